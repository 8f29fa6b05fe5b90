/* plain.c: built by plain gcc (foreign code) in tests/e2e/direct_entries.sh; its weak_fn
 * is strong and wins over callee.c's weak one when both are linked. */
long leaf(long x);

long plain_fn(long x)
{
	return leaf(x) ^ 5;
}

#ifdef STRONG_WEAK_FN
long weak_fn(long x)
{
	return x + 11;
}
#endif
