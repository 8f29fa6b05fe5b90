/* lib_swap_a.c: lib_swap.c's first library: swap_touch stores to one cell. */
static long volatile cells[8];

void swap_touch(long v)
{
	cells[0] = v;
}
