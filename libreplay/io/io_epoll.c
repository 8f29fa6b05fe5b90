/* io_epoll.c: epoll_wait and epoll_pwait block only the calling green thread: an
 * epoll descriptor is itself readable while it has events to report, so the thread
 * parks on (epfd, POLLIN) (io_park.c) after a zero-timeout try. Cancellation
 * points; the timeout is a deadline on the recorded CLOCK_MONOTONIC, as for poll.
 * epoll_pwait's signal mask is not applied while the thread waits (io_poll.c). A
 * signal's handler ends the wait with EINTR, SA_RESTART or not. */
#include "io/io.h"

#include <sys/epoll.h>
#include <sys/syscall.h>

struct ep {
	int epfd;
	struct epoll_event *events;
	int max;
};

static long try_epoll(void *arg)
{
	const struct ep *a = arg;
	long n = rp_raw_syscall(SYS_epoll_pwait, a->epfd, (long)a->events, a->max, 0, 0, 8);
	return n == 0 ? -EAGAIN : n;
}

int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout,
		const sigset_t *sigmask)
{
	if (!io_green() || timeout == 0)
		return (int)io_ret(rp_raw_syscall(SYS_epoll_pwait, epfd, (long)events, max,
						     timeout, (long)sigmask, 8));
	pt_testcancel(pt_self());
	struct timespec dl;
	if (timeout > 0)
		pt_deadline_in(timeout / 1000, (long)(timeout % 1000) * 1000000, &dl);
	struct ep a = {epfd, events, max};
	struct pollfd p = {epfd, POLLIN, 0};
	long r = io_call(&p, 1, timeout > 0 ? &dl : NULL, 0, -1, try_epoll, &a, NULL);
	return r == -ETIMEDOUT ? 0 : (int)io_ret(r);
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
	return epoll_pwait(epfd, events, max, timeout, NULL);
}
