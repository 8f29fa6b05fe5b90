/* mix.c: the test's own shared library (libmix.so). Built with MIX_MUL=37 instead of
 * 31, it is the same library rebuilt with other code: a pack holding it must refuse. */
#ifndef MIX_MUL
#define MIX_MUL 31
#endif

long mix_step(long x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = x * MIX_MUL + (x >> 7) + i;
	return x;
}
