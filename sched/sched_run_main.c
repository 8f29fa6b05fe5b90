/* sched_run_main.c: run the program's main as thread 1, until the run ends. */
#include "sched_impl.h"

#include <stdlib.h>

static void *main_start(void *unused)
{
	int status = sched_g.main_fn(sched_g.argc, sched_g.argv, sched_g.envp);
	sched_enter();
	if (sched_g.hooks.on_thread_exit)
		sched_g.hooks.on_thread_exit(sched_g.cur);
	sched_finish(status);
}

/* Back to the host, for good: the current thread is never resumed. */
_Noreturn void sched_finish(int status)
{
	sched_g.status = status;
	sched_switch_to(&sched_g.host);
	abort();
}

/* Free everything of the run, except the descriptors of threads still on a wait
 * queue: a static object may outlive the run and still link them (wq_first drops
 * them later). Their stacks go: they never run again. The descriptors stay listed
 * (sched_g.abandoned), so leak checkers see them reachable. */
static void teardown(void)
{
	struct sched_thread *t, *next;
	sched_reap();
	/* The event list is ours, not a static object's: nobody can wake them later. */
	while (sched_g.events.head)
		wq_remove(sched_g.events.head);
	for (t = sched_g.all_head; t; t = next) {
		next = t->all_next;
		if (t->state == SCHED_BLOCKED && t->waitq) {
			sched_timer_remove(t);
			sched_stack_free(t);
			t->state = SCHED_ABANDONED;
			t->all_prev = NULL;
			t->all_next = sched_g.abandoned;
			sched_g.abandoned = t;
		} else {
			sched_stack_free(t);
			free(t);
		}
	}
	sched_g.all_head = sched_g.all_tail = NULL;
	sched_g.rq_head = sched_g.rq_tail = NULL;
	for (int slot = 0; slot < SCHED_NSLOTS; slot++)
		sched_g.timers[slot] = NULL;
	sched_g.live = 0;
	sched_g.next_id = 1;
	sched_g.priorities = false;
	sched_stack_cache_drop();
	sched_tls_cache_drop();
}

int sched_run_main(int (*main_fn)(int, char **, char **), int argc, char **argv,
		   char **envp)
{
	static const struct sched_thread_attr attr = { .stack_size = SCHED_MAIN_STACK_SIZE };
	struct sched_thread *t1;
	if (sched_g.running) {
		errno = EBUSY;
		return SCHED_RUN_ABORTED;
	}
	sched_enter();
	int host_errno = errno; /* thread 1 uses the host's TLS, errno included */
	sched_g.host.tp = __builtin_thread_pointer();
	sched_tls_init();
	sched_g.running = true;
	sched_g.main_fn = main_fn;
	sched_g.argc = argc;
	sched_g.argv = argv;
	sched_g.envp = envp;
	sched_g.status = 0;
	int err = sched_new_thread(&t1, &attr, SCHED_MAIN_STACK_SIZE, main_start, NULL);
	if (err) {
		sched_g.running = false;
		sched_leave();
		errno = err == EAGAIN ? ENOMEM : err;
		return SCHED_RUN_ABORTED;
	}
	sched_g.host.state = SCHED_BLOCKED;
	sched_switch_to(rq_pick(NULL));
	/* The run is over: main returned, the last thread exited, or a deadlock. */
	teardown();
	sched_g.running = false;
	sched_leave();
	errno = host_errno;
	return sched_g.status;
}
