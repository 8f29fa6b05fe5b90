/* tests/gdb/direct.sh: calls by name to another file's functions (direct entries in a -g
 * build; scale a leaf, checked hot and cold), from the same file, and through a pointer. */
#include <stdio.h>

int work(int n), scale(int v), checked(int n);
extern int total;

/* Its address is taken here: it keeps its entry check in its body, where a call
 * through the pointer comes and `step` goes in. */
__attribute__((noinline)) int by_ptr(int n)
{
	total += scale(n);
	return n * 2;
}

int (*volatile fp)(int) = by_ptr;

static __attribute__((noinline)) int twice(int n)
{
	int w = work(n);
	return w + work(checked(n) + 1);
}

int main(void)
{
	int r = work(4);
	r += twice(2);
	r += fp(5);
	printf("%d %d\n", r, total);
	return 0;
}
