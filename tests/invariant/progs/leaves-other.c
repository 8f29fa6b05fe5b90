/* The other file of leaves.c: leaves it calls at their direct entries, through a
 * pointer and through a weak function's shim, and a tail jump to one. */
extern long hits;

long other_leaf(long x)
{
	hits++;
	return x * 3 + 1;
}

__attribute__((noinline)) long other_tail(long x)
{
	if (x & 1)
		return other_leaf(x >> 1); /* a tail jump to the leaf's direct entry */
	return x;
}

__attribute__((weak)) long other_weak(long x)
{
	hits ^= x;
	return x ^ 5;
}

static long ptr_leaf(long x)
{
	return x - 4;
}

long (*other_ptr(void))(long)
{
	return ptr_leaf;
}
