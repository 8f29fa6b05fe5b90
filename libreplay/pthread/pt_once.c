/* pt_once.c: pthread_once. pthread_once_t is an int: 0 (PTHREAD_ONCE_INIT) not run,
 * RUNNING while a thread runs the routine, DONE after. Threads that find it running
 * wait on one queue shared by every once_control and look again when any finishes. */
#include "pthread/pt_impl.h"

enum { ONCE_RUNNING = 1, ONCE_DONE = 2 };

static struct sched_waitq waiters;

/* The routine was cancelled: as if it had never started. */
static void undo(void *arg)
{
	*(pthread_once_t *)arg = 0;
	sched_wake_all(&waiters);
}

int pthread_once(pthread_once_t *once, void (*routine)(void))
{
	for (;;) {
		if (*once == ONCE_DONE) {
			RP_RACE_SYNC(once, RP_RACE_ACQUIRE); /* what the routine did */
			return 0;
		}
		if (*once == 0)
			break;
		sched_block(&waiters, NULL, CLOCK_MONOTONIC);
	}
	*once = ONCE_RUNNING;
	pthread_cleanup_push(undo, once);
	routine();
	pthread_cleanup_pop(0);
	RP_RACE_SYNC(once, RP_RACE_RELEASE);
	*once = ONCE_DONE;
	sched_wake_all(&waiters);
	return 0;
}

PT_ALIAS(__pthread_once, pthread_once);
