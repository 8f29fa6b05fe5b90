/* lib_swap_b.c: lib_swap.c's second library, loaded where the first was: swap_touch
 * begins as lib_swap_a.c's does (its entry's counting point and its first store at the
 * same pcs), then stores to seven cells more, where that one had returned. */
static long volatile cells[8];

void swap_touch(long v)
{
	cells[0] = v;
	cells[1] = v;
	cells[2] = v;
	cells[3] = v;
	cells[4] = v;
	cells[5] = v;
	cells[6] = v;
	cells[7] = v;
}
