/* sched_sem_getvalue.c: the units available (0 while threads wait, as in glibc). */
#include "sched_impl.h"

int sched_sem_getvalue(struct sched_sem *s, int *value)
{
	*value = (int)s->value;
	return 0;
}
