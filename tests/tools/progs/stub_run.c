/* Three leaf functions whose loops' counting points share one run of overflow stubs
 * (the same frame at each: docs/sic.md, "Stubs"), each entry named after its own
 * function ("first.sic_stub.N" ...). A pc inside the run belongs to the function whose
 * counting point jumped in, which %r15 tells (0 at the jump, one less an entry), not
 * to the nearest entry's name. */
#include <stdio.h>

static volatile long sink;

static long __attribute__((noipa)) first(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * 3 + sink;
	return s;
}

static long __attribute__((noipa)) second(long n)
{
	long s = 1;
	for (long i = 0; i < n; i++)
		s ^= i * 5 + sink;
	return s;
}

static long __attribute__((noipa)) third(long n)
{
	long s = 2;
	for (long i = 0; i < n; i++)
		s -= i * 7 + sink;
	return s;
}

int main(void)
{
	long t = 0;
	for (int k = 0; k < 20; k++)
		t += first(100000) + second(100000) + third(100000);
	printf("%ld\n", t);
	return 0;
}
