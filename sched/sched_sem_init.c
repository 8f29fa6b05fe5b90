/* sched_sem_init.c */
#include "sched_impl.h"

#include <string.h>

int sched_sem_init(struct sched_sem *s, unsigned value)
{
	if (value > SCHED_SEM_VALUE_MAX)
		return EINVAL;
	memset(s, 0, sizeof *s);
	s->value = value;
	return 0;
}
