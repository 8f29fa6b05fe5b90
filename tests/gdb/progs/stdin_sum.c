/* stdin_sum.c: reads standard input to its end and prints how many bytes came
 * (tests/gdb/reverse.sh feeds it from a pipe of another process). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char buf[64];
	long total = 0;
	ssize_t n;
	while ((n = read(0, buf, sizeof buf)) > 0)
		total += n;
	printf("%ld\n", total); /* read all */
	return 0;
}
