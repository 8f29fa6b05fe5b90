/* pt_detach.c: nobody will join the thread: its record goes when it exits. */
#include "pthread/pt_impl.h"

int pthread_detach(pthread_t thread)
{
	struct sched_thread *t = pt_sched(thread);
	struct pt_thread *pt = pt_find(t);
	int err = sched_detach(t); /* frees t if it has exited */
	if (err || !pt)
		return err;
	if (pt->exited)
		pt_release(pt);
	else
		pt->detached = true;
	return 0;
}
