/* io_poll.c: poll, ppoll, select and pselect block only the calling green thread
 * (io_park.c); all are cancellation points. A zero timeout goes straight to the
 * kernel. A timeout becomes a deadline on CLOCK_MONOTONIC read through the recorded
 * clock_gettime, and its expiry is a logged scheduler decision like any timed wait.
 *
 * A signal's handler ends the wait with EINTR, SA_RESTART or not (signal(7)). select
 * sets its timeout to the time left, as Linux's does, measured on the same recorded
 * clock; pselect leaves its own as given.
 *
 * Difference from the kernel's: the signal mask of ppoll and pselect is not applied
 * while the thread waits (one kernel thread: it is the process's). */
#include "io/io.h"

#include <poll.h>
#include <sys/select.h>
#include <sys/syscall.h>

struct pl {
	struct pollfd *fds;
	unsigned long nfds;
};

static long try_poll(void *arg)
{
	const struct pl *a = arg;
	struct timespec zero = {0, 0};
	long n = rp_raw_syscall(SYS_ppoll, (long)a->fds, (long)a->nfds, (long)&zero, 0, 8, 0);
	return n == 0 ? -EAGAIN : n;
}

/* The time from now until dl, none if it has passed. */
static void time_left(const struct timespec *dl, struct timespec *left)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = (int64_t)(dl->tv_sec - now.tv_sec) * 1000000000 + dl->tv_nsec - now.tv_nsec;
	if (ns < 0)
		ns = 0;
	left->tv_sec = ns / 1000000000;
	left->tv_nsec = ns % 1000000000;
}

/* Does the set hold a descriptor of the world (inputs/in_world.c)? Then what poll
 * answers is an input: logged, and replayed without asking the stand-ins. */
static bool world_set(const struct pollfd *fds, unsigned long nfds)
{
	for (unsigned long k = 0; k < nfds; k++)
		if (fds[k].fd >= 0 && in_world_fd(fds[k].fd))
			return true;
	return false;
}

struct pl_now {
	struct pollfd *fds;
	unsigned long nfds;
	struct timespec *t;
};

static long poll_now(void *arg)
{
	const struct pl_now *a = arg;
	return rp_raw_syscall(SYS_ppoll, (long)a->fds, (long)a->nfds, (long)a->t, 0, 8, 0);
}

int io_poll(struct pollfd *fds, unsigned long nfds, const struct timespec *rel,
	    struct timespec *left)
{
	bool now = rel && rel->tv_sec == 0 && rel->tv_nsec == 0;
	bool world = world_set(fds, nfds);
	struct iovec all = {fds, nfds * sizeof *fds};
	struct io_span span = {&all, 1};
	if (!io_green() || now) {
		/* The kernel sets the time left in a timeout it may change. */
		struct timespec t = rel ? *rel : (struct timespec){0, 0};
		struct pl_now a = {fds, nfds, rel ? &t : NULL};
		long r = world ? in_world_call(IN_WC_POLL, nfds ? fds[0].fd : -1, poll_now, &a, &all, 1,
					       IN_OUT_WHOLE)
			       : poll_now(&a);
		if (left && rel)
			*left = t;
		return (int)io_ret(r);
	}
	pt_testcancel(pt_self());
	if (rel && (rel->tv_sec < 0 || rel->tv_nsec < 0 || rel->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	struct timespec dl;
	if (rel)
		pt_deadline_in(rel->tv_sec, rel->tv_nsec, &dl);
	struct pl a = {fds, nfds};
	long r = io_call(fds, nfds, rel ? &dl : NULL, world ? IO_WORLD_ALL | IO_WORLD_CALL(IN_WC_POLL) : 0,
			 -1, try_poll, &a, world ? &span : NULL);
	if (r == -ETIMEDOUT) {
		for (unsigned long k = 0; k < nfds; k++)
			fds[k].revents = 0;
		if (left)
			*left = (struct timespec){0, 0};
		return 0;
	}
	/* The clock is read again only when the caller asks: a recorded input, at
	 * the same point of the replay. */
	if (left && rel)
		time_left(&dl, left);
	return (int)io_ret(r);
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct timespec rel = {timeout / 1000, (long)(timeout % 1000) * 1000000};
	return io_poll(fds, nfds, timeout < 0 ? NULL : &rel, NULL);
}

int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo, const sigset_t *sigmask)
{
	if (!io_green())
		return (int)io_ret(rp_raw_syscall(SYS_ppoll, (long)fds, (long)nfds, (long)tmo,
						     (long)sigmask, 8, 0));
	return io_poll(fds, nfds, tmo, NULL);
}

/* select's sets as poll's events (the kernel's own correspondence). */
#define SEL_IN  (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define SEL_OUT (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define SEL_EX  POLLPRI

static int green_select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
			const struct timespec *rel, struct timespec *left)
{
	if (nfds < 0 || nfds > FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	struct pollfd p[nfds > 0 ? nfds : 1];
	unsigned long n = 0;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = (rd && FD_ISSET(fd, rd) ? POLLIN : 0) |
			   (wr && FD_ISSET(fd, wr) ? POLLOUT : 0) | (ex && FD_ISSET(fd, ex) ? POLLPRI : 0);
		if (ev)
			p[n++] = (struct pollfd){fd, ev, 0};
	}
	int r = io_poll(p, n, rel, left);
	if (r < 0)
		return r;
	int bits = 0;
	for (unsigned long k = 0; k < n; k++)
		if (p[k].revents & POLLNVAL) {
			errno = EBADF;
			return -1;
		}
	for (unsigned long k = 0; k < n; k++) {
		int fd = p[k].fd;
		short ev = p[k].events, rev = p[k].revents;
		if ((ev & POLLIN) && !(rev & SEL_IN))
			FD_CLR(fd, rd);
		if ((ev & POLLOUT) && !(rev & SEL_OUT))
			FD_CLR(fd, wr);
		if ((ev & POLLPRI) && !(rev & SEL_EX))
			FD_CLR(fd, ex);
		bits += ((ev & POLLIN) && FD_ISSET(fd, rd)) + ((ev & POLLOUT) && FD_ISSET(fd, wr)) +
			((ev & POLLPRI) && FD_ISSET(fd, ex));
	}
	return bits;
}

int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	if (!io_green())
		return (int)io_ret(rp_raw_syscall(SYS_select, nfds, (long)rd, (long)wr, (long)ex,
						     (long)tv, 0));
	if (tv && (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)) {
		errno = EINVAL;
		return -1;
	}
	struct timespec rel, left;
	if (tv)
		rel = left = (struct timespec){tv->tv_sec, tv->tv_usec * 1000};
	int r = green_select(nfds, rd, wr, ex, tv ? &rel : NULL, tv ? &left : NULL);
	/* Linux's select sets the timeout to the time not slept, whatever it returns. */
	if (tv) {
		tv->tv_sec = left.tv_sec;
		tv->tv_usec = left.tv_nsec / 1000;
	}
	return r;
}

int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *tmo,
	    const sigset_t *sigmask)
{
	if (!io_green()) {
		struct {
			const sigset_t *ss;
			size_t len;
		} data = {sigmask, 8};
		return (int)io_ret(rp_raw_syscall(SYS_pselect6, nfds, (long)rd, (long)wr, (long)ex,
						     (long)tmo, (long)&data));
	}
	return green_select(nfds, rd, wr, ex, tmo, NULL);
}
