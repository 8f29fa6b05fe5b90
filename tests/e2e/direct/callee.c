/* callee.c: the instrumented callees of main.c (tests/e2e/direct_entries.sh). */
long ping(long x, int depth);
long plain_fn(long x);

long leaf(long x)
{
	return x * 3 + 1;
}

long bounce(long x, int depth)
{
	return ping(x * 2, depth) - 1;
}

__attribute__((weak)) long weak_fn(long x)
{
	return x - 7;
}

__attribute__((noinline)) long tail_to_leaf(long x)
{
	if (x & 1)
		return leaf(x >> 1);
	return x;
}

long non_leaf(long x)
{
	return plain_fn(x) + 2;
}

/* Its address is taken here: its cross-file entry is a thunk (sicpp/xcall.c). */
long taken_fn(long x)
{
	return plain_fn(x) - 3;
}

long (*taken_ptr)(long) = taken_fn;
