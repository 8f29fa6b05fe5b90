/* Foreign code of leaves.c, built by gcc with -ffixed-r15 (not instrumented): it calls
 * its callback in a loop and never touches r15, so the token the caller passed is still
 * there at each call (an entry check's fast path) and no counting point of ours lies
 * between two calls. */
long foreign_apply(long (*fn)(long), long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += fn(i);
	return s;
}
