/* Three frames of instrumented code with a loop at the bottom: in stress mode the
 * counter overflows inside leaf3, and a debugger stopped in the runtime must walk
 * back through the out-of-line stub to main. */
#include <stdio.h>
__attribute__((noinline)) static long leaf3(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}
__attribute__((noinline)) static long mid2(long n) { return leaf3(n) + 1; }
__attribute__((noinline)) long top1(long n) { return mid2(n) * 2; }
int main(void)
{
	printf("%ld\n", top1(1000));
	return 0;
}
