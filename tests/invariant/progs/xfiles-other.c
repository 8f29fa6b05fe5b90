/* The other file of xfiles.c: its callees, and a recursion back into it. */
long here_down(long x, int depth);

long other_leaf(long x)
{
	return x * 3 + 1;
}

long other_down(long x, int depth)
{
	return here_down(x * 2 % 1000, depth - 1) - 1;
}

__attribute__((noinline)) long other_tail(long x)
{
	if (x & 1)
		return other_leaf(x >> 1); /* a tail jump to the direct entry */
	return here_down(x, 2);    /* one to the other file's */
}

__attribute__((weak)) long other_weak(long x)
{
	return x ^ 5;
}

static long through_ptr(long x)
{
	return other_leaf(x) + 2;
}

long (*other_ptr(void))(long)
{
	return through_ptr;
}
