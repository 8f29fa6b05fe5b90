/* io_futex.c: the futex system call between green threads, for programs that build
 * their own locks on syscall(SYS_futex, ...). One kernel thread runs them all, so a
 * FUTEX_WAIT in the kernel would never return: waiters park in sched instead.
 *
 * Waiters form one FIFO list of records on their own stacks (address, bitset, a
 * one-thread wait queue); FUTEX_WAKE wakes the first matching ones in waiting order,
 * so wakes are deterministic. The check of *uaddr and the park are atomic: no other
 * green thread runs in between (this code is never preempted).
 *
 * Covered: WAIT, WAKE, WAIT_BITSET, WAKE_BITSET, REQUEUE, CMP_REQUEUE, with or without
 * FUTEX_PRIVATE_FLAG (every futex is taken to be this process's) and, for the absolute
 * timeout of WAIT_BITSET, FUTEX_CLOCK_REALTIME. The others fail with ENOSYS and a
 * one-line note. Futex waits are not cancellation points (as in the kernel).
 *
 * A signal sent to a waiter (sig_deliver.c) ends its wait as the kernel's does: after
 * the handler, a wait with a timeout fails with EINTR; one without fails with EINTR,
 * or, if the handler has SA_RESTART, starts again (and checks the value again). An
 * ignored signal, or a stop, ends nothing. */
#include "io/io.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>

struct fwaiter {
	uint32_t *addr;
	uint32_t bitset;
	struct sched_waitq q;
	struct fwaiter *next, *prev;
};

static struct fwaiter *head, *tail;

static void unlink_waiter(struct fwaiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		tail = w->prev;
	w->next = w->prev = NULL;
	w->addr = NULL;
}

static long futex_wait(uint32_t *uaddr, uint32_t val, const struct timespec *ts, bool absolute,
		       clockid_t clk, uint32_t bitset)
{
	if (!bitset)
		return -EINVAL;
	if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000))
		return -EINVAL;
	struct pt_thread *self = pt_self();
	/* A signal that came while the thread ran is handled before it waits. */
	pt_signals_check(self);
	if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val)
		return -EAGAIN;
	struct timespec dl;
	if (ts && !absolute)
		pt_deadline_in(ts->tv_sec, ts->tv_nsec, &dl); /* FUTEX_WAIT's is relative */
	else if (ts)
		dl = *ts;
	for (;;) {
		struct fwaiter w = {uaddr, bitset, {NULL, NULL}, NULL, tail};
		if (tail)
			tail->next = &w;
		else
			head = &w;
		tail = &w;
		pt_wait_begin(self, PT_WAIT_FUTEX);
		int err = sched_block(&w.q, ts ? &dl : NULL, clk);
		if (w.addr) /* timed out or interrupted: a wake unlinks its waiter */
			unlink_waiter(&w);
		/* Off the list before a handler runs (it may wake the futex). */
		enum pt_handled h = pt_wait_end(self, false);
		if (err == 0 || err == ETIMEDOUT)
			return -err;
		/* Interrupted by a signal: the kernel restarts the wait after a stop, or
		 * after a handler with SA_RESTART if it has no timeout. */
		if (h == PT_HANDLED_NORESTART || (h == PT_HANDLED_RESTART && ts))
			return -EINTR;
		if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val)
			return -EAGAIN;
	}
}

/* Wake up to n waiters on uaddr matching bitset; then, if to, move up to n2 more of
 * them to wait on to. Returns how many were woken plus moved (the kernel's count). */
static long futex_wake(uint32_t *uaddr, int n, uint32_t bitset, uint32_t *to, int n2)
{
	long woken = 0, moved = 0;
	if (!bitset)
		return -EINVAL;
	for (struct fwaiter *w = head, *next; w; w = next) {
		next = w->next;
		if (w->addr != uaddr || !(w->bitset & bitset))
			continue;
		if (woken < n) {
			unlink_waiter(w);
			/* NULL: its deadline passed and it has not run yet; it is not woken. */
			if (sched_wake_one(&w->q))
				woken++;
		} else if (to && moved < n2) {
			w->addr = to;
			moved++;
		} else {
			break;
		}
	}
	return woken + moved;
}

long io_futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
	      uint32_t *uaddr2, uint32_t val3)
{
	if (!io_green())
		return rp_raw_syscall(SYS_futex, (long)uaddr, op, val, (long)ts, (long)uaddr2, val3);
	int cmd = op & FUTEX_CMD_MASK;
	clockid_t clk = (op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	int n = val > INT_MAX ? INT_MAX : (int)val;
	/* REQUEUE passes its second count where the others pass the timeout. */
	long n2 = (long)(uintptr_t)ts;
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(uaddr, val, ts, false, CLOCK_MONOTONIC, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, val, ts, true, clk, val3);
	case FUTEX_WAKE:
		return futex_wake(uaddr, n, FUTEX_BITSET_MATCH_ANY, NULL, 0);
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, n, val3, NULL, 0);
	case FUTEX_CMP_REQUEUE:
		if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val3)
			return -EAGAIN;
		/* fall through */
	case FUTEX_REQUEUE:
		if (n2 < 0)
			return -EINVAL;
		return futex_wake(uaddr, n, FUTEX_BITSET_MATCH_ANY, uaddr2,
				  n2 > INT_MAX ? INT_MAX : (int)n2);
	default: {
		static bool told;
		if (!told)
			rp_say("futex operation %d between green threads is not "
					"supported (ENOSYS)", cmd);
		told = true;
		return -ENOSYS;
	}
	}
}
