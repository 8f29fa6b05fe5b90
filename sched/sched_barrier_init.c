/* sched_barrier_init.c */
#include "sched_impl.h"

#include <string.h>

int sched_barrier_init(struct sched_barrier *b, unsigned count)
{
	if (count == 0)
		return EINVAL;
	memset(b, 0, sizeof *b);
	b->count = count;
	return 0;
}
