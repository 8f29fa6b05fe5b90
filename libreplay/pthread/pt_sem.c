/* pt_sem.c: unnamed POSIX semaphores are sched's (FIFO: a post hands its unit to the
 * longest waiter). Errors the POSIX way: -1 and errno. Waiting is a cancellation
 * point. Process-shared and named semaphores are refused (ENOSYS): green threads
 * live in one process, and a semaphore shared with another would look like it
 * works until a waiter waits for ever. */
#include "pthread/pt_impl.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>

static struct sched_sem *ss(sem_t *s)
{
	return (struct sched_sem *)s;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

int sem_init(sem_t *s, int pshared, unsigned value)
{
	if (pshared) {
		fputs("libreplay: sem_init: process-shared semaphores are not supported\n", stderr);
		return fail(ENOSYS);
	}
	int err = sched_sem_init(ss(s), value);
	return err ? fail(err) : 0;
}

int sem_destroy(sem_t *s)
{
	int err = sched_sem_destroy(ss(s));
	return err ? fail(err) : 0;
}

/* A signal's handler ends the wait with EINTR, as glibc's futex wait does on Linux,
 * except an untimed one when the handler has SA_RESTART: the kernel restarts that
 * futex wait. A signal that ran no handler (a stop) restarts either. */
static int wait(sem_t *s, const struct timespec *deadline, clockid_t clk, bool timed)
{
	struct pt_thread *self = pt_self();
	pt_testcancel(self);
	for (;;) {
		pt_wait_begin(self, PT_WAIT_SEM);
		int err = timed ? sched_sem_timedwait(ss(s), deadline, clk) : sched_sem_wait(ss(s));
		enum pt_handled h = pt_wait_end(self, err == PT_EINTERRUPTED);
		if (err == PT_ESIGNALED && (h == PT_HANDLED_NONE || (h == PT_HANDLED_RESTART && !timed)))
			continue;
		if (!err)
			RP_RACE_SYNC(s, RP_RACE_ACQUIRE);
		return err ? fail(err) : 0;
	}
}

int sem_wait(sem_t *s)
{
	return PT_SYNC(wait(s, NULL, CLOCK_REALTIME, false));
}

int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	if (!pt_nsec_ok(abstime))
		return fail(EINVAL);
	return PT_SYNC(wait(s, abstime, CLOCK_REALTIME, true));
}

int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
	if (!pt_clock_ok(clk) || !pt_nsec_ok(abstime))
		return fail(EINVAL);
	return PT_SYNC(wait(s, abstime, clk, true));
}

static int sem_trywait_call(sem_t *s)
{
	int err = sched_sem_trywait(ss(s));
	if (!err)
		RP_RACE_SYNC(s, RP_RACE_ACQUIRE);
	return err ? fail(pt_try_failed(err)) : 0;
}

int sem_trywait(sem_t *s)
{
	return PT_SYNC(sem_trywait_call(s));
}

static int sem_post_call(sem_t *s)
{
	RP_RACE_SYNC(s, RP_RACE_RELEASE);
	int err = sched_sem_post(ss(s));
	return err ? fail(err) : 0;
}

int sem_post(sem_t *s)
{
	return PT_SYNC(sem_post_call(s));
}

int sem_getvalue(sem_t *restrict s, int *restrict value)
{
	int err = sched_sem_getvalue(ss(s), value);
	return err ? fail(err) : 0;
}

sem_t *sem_open(const char *name, int oflag, ...)
{
	rp_say("sem_open(\"%s\"): named semaphores are shared between "
			"processes, which green threads do not support", name);
	errno = ENOSYS;
	return SEM_FAILED;
}

/* No sem_open succeeds, so nothing can be closed. */
int sem_close(sem_t *s)
{
	return fail(EINVAL);
}
