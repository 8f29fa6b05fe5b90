/* sched_sem_trywait.c */
#include "sched_impl.h"

int sched_sem_trywait(struct sched_sem *s)
{
	int err = EAGAIN;
	sched_enter();
	if (s->value > 0) {
		s->value--;
		err = 0;
	}
	sched_leave();
	return err;
}
