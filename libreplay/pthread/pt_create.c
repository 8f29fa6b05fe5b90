/* pt_create.c: pthread_create: a green thread through the runtime (rp_thread_create
 * sets up its instruction counter), running start(arg) and then the exit work. */
#include "pthread/pt_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* The new thread's first function. Returning from start is pthread_exit. */
static void *pt_start(void *arg)
{
	struct pt_thread *self = arg;
	pthread_exit(self->fn(self->arg));
}

static int create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
		  void *arg)
{
	const struct pt_attr *a = attr ? (const struct pt_attr *)attr : &pt_default_attr;
	struct sched_thread_attr sa = {
		.stack_size = a->stacksize ? a->stacksize : pt_default_attr.stacksize,
		.detached = a->detachstate == PTHREAD_CREATE_DETACHED,
	};
	if (a->stacktop) /* the caller's stack: below its top (the default size if none) */
		sa.stack_addr = (char *)a->stacktop - sa.stack_size;
	struct pt_thread *self = pt_self();
	struct pt_thread *pt = calloc(1, sizeof *pt);
	if (!pt)
		return EAGAIN;
	pt->fn = start;
	pt->arg = arg;
	pt->detached = sa.detached;
	pt->user_stack = a->stacktop != NULL;
	pt->sigmask = a->flags & PT_ATTR_SIGMASK ? a->sigmask : self->sigmask;
	if (a->inheritsched == PTHREAD_EXPLICIT_SCHED) {
		pt->policy = a->policy;
		pt->param = a->param;
	} else {
		pt->policy = self->policy;
		pt->param = self->param;
	}
	/* Room for the new id before the thread exists: afterwards, failing would
	 * leave a thread nobody can join. */
	int err = pt_table_reserve_next();
	struct sched_thread *st;
	if (!err)
		err = rp_thread_create(&st, &sa, pt_start, pt, start);
	if (err) {
		free(pt);
		if (err == EPERM && sched_thread_id(sched_current()) == 0)
			fputs("libreplay: pthread_create outside main's run (in a constructor or "
			      "an atexit handler) is not supported\n",
			      stderr);
		return err == ENOMEM ? EAGAIN : err;
	}
	/* The creator goes on running: the new thread cannot have run yet. */
	pt->id = sched_thread_id(st);
	pt_register(pt);
	if (rp_races_on) /* what the creator did happens before the new thread */
		rp_race_thread_created(pt->id);
	*thread = (pthread_t)st;
	return 0;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
		   void *arg)
{
	return PT_SYNC(create(thread, attr, start, arg));
}
