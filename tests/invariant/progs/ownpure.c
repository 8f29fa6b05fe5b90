/* Calls to a C library function that calls nothing of the program (strcspn: libc_pure
 * in sicpp/analyze_calls.c) keep the count in r15, published and reloaded around the
 * call, without the token. Here the program defines its own strcspn, in another file
 * (ownpure-other.c): such a call reaches that definition by its slow entry, which
 * loads the published count, counts and publishes it back. */
#include <stdio.h>
#include <string.h>

static const char *words[] = {"alpha,beta", "gamma", "de,lta", ",", ""};

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 60; i++) {
		const char *w = words[i % 5];
		sum += (long)strcspn(w, ",") * (i + 1);
		sum += (long)strcspn(w + (w[0] != 0), ",") + 1;
	}
	printf("%ld\n", sum);
	return 0;
}
