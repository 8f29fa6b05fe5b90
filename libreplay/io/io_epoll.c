/* io_epoll.c: epoll_wait and epoll_pwait block only the calling green thread: an
 * epoll descriptor is itself readable while it has events to report, so the thread
 * parks on (epfd, POLLIN) (io_park.c) after a zero-timeout try. Cancellation
 * points; the timeout is a deadline on the recorded CLOCK_MONOTONIC, as for poll.
 * epoll_pwait's signal mask is not applied while the thread waits (io_poll.c). A
 * signal's handler ends the wait with EINTR, SA_RESTART or not. */
#include "io/io.h"

#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

struct ep {
	int epfd;
	struct epoll_event *events;
	int max;
};

/* The kernel lists ready events in the order they joined the epoll set's ready list,
 * which depends on more than the program: the recorder's own idle polls of the
 * descriptor reorder it (seen: every replay of tests/io/epoll_order under --chaos
 * got its events in another order than the recording, and diverged or hung). The
 * order is unspecified; ours is by the event's data, then its mask, in a recording
 * and its replay alike. */
static int by_data(const void *x, const void *y)
{
	const struct epoll_event *a = x, *b = y;
	if (a->data.u64 != b->data.u64)
		return a->data.u64 < b->data.u64 ? -1 : 1;
	return (a->events > b->events) - (a->events < b->events);
}

static long epoll_sorted(const struct ep *a, int timeout, const sigset_t *sigmask)
{
	long n = rp_raw_syscall(SYS_epoll_pwait, a->epfd, (long)a->events, a->max, timeout,
				(long)sigmask, 8);
	if (n > 1)
		qsort(a->events, (size_t)n, sizeof *a->events, by_data);
	return n;
}

static long try_epoll(void *arg)
{
	long n = epoll_sorted(arg, 0, NULL);
	return n == 0 ? -EAGAIN : n;
}

int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout,
		const sigset_t *sigmask)
{
	if (!io_green())
		return (int)io_ret(rp_raw_syscall(SYS_epoll_pwait, epfd, (long)events, max,
						     timeout, (long)sigmask, 8));
	struct ep a = {epfd, events, max};
	if (timeout == 0)
		return (int)io_ret(epoll_sorted(&a, 0, sigmask));
	pt_testcancel(pt_self());
	struct timespec dl;
	if (timeout > 0)
		pt_deadline_in(timeout / 1000, (long)(timeout % 1000) * 1000000, &dl);
	struct pollfd p = {epfd, POLLIN, 0};
	long r = io_call(&p, 1, timeout > 0 ? &dl : NULL, 0, -1, try_epoll, &a, NULL);
	return r == -ETIMEDOUT ? 0 : (int)io_ret(r);
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
	return epoll_pwait(epfd, events, max, timeout, NULL);
}
