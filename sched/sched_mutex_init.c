/* sched_mutex_init.c */
#include "sched_impl.h"

#include <string.h>

int sched_mutex_init(struct sched_mutex *m, int type)
{
	if (type != SCHED_MUTEX_NORMAL && type != SCHED_MUTEX_RECURSIVE &&
	    type != SCHED_MUTEX_ERRORCHECK)
		return EINVAL;
	memset(m, 0, sizeof *m);
	m->type = type;
	return 0;
}
