/* io_epoll.c: epoll_wait and epoll_pwait block only the calling green thread: an
 * epoll descriptor is itself readable while it has events to report, so the thread
 * parks on (epfd, POLLIN) (io_park.c) after a zero-timeout try. Cancellation
 * points; the timeout is a deadline on the recorded CLOCK_MONOTONIC, as for poll.
 * epoll_pwait's signal mask is not applied while the thread waits (io_poll.c). A
 * signal's handler ends the wait with EINTR, SA_RESTART or not. */
#include "io/io.h"
#include "base/rp_alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

/* What each epoll set watches, as epoll_create and epoll_ctl made it: with more
 * events ready than maxevents, which ones come first is the kernel's ready list's
 * order too. If every descriptor of the set is level-triggered, taking all the ready
 * events and giving the first maxevents in our order loses nothing (the others are
 * still ready at the next call); an edge-triggered or one-shot event taken would be
 * lost, so with one of those in the set the kernel's choice stands. */
struct watch {
	int epfd, fd;
	bool edge; /* EPOLLET or EPOLLONESHOT */
};
static struct watch *watches;
static size_t nwatches, watches_cap;
/* The sets epoll_create made, with how many descriptors each watches and how many of
 * those are edge-triggered or one-shot: what every epoll_wait asks (level_watches),
 * kept by epoll_ctl rather than counted over every set's descriptors at each wait. */
#define SETS_KNOWN 64
static struct set {
	int epfd1; /* the epoll descriptor + 1; 0: a free slot */
	size_t n, edge;
} sets[SETS_KNOWN];

static struct set *set_of(int epfd)
{
	for (int k = 0; k < SETS_KNOWN; k++)
		if (sets[k].epfd1 == epfd + 1)
			return &sets[k];
	return NULL;
}

static void forget_set(int epfd)
{
	for (size_t k = 0; k < nwatches;)
		if (watches[k].epfd == epfd)
			watches[k] = watches[--nwatches];
		else
			k++;
}

static void made_set(int epfd)
{
	forget_set(epfd); /* a number used again */
	struct set *s = set_of(epfd);
	for (int k = 0; k < SETS_KNOWN && !s; k++)
		if (sets[k].epfd1 == 0)
			s = &sets[k];
	if (s)
		*s = (struct set){epfd + 1, 0, 0};
}

int epoll_create1(int flags)
{
	long r = rp_raw_syscall(SYS_epoll_create1, flags, 0, 0, 0, 0, 0);
	if (r >= 0) {
		made_set((int)r);
		in_fd_closed((int)r); /* the program's own, whatever the number was before */
	}
	return (int)io_ret(r);
}

int epoll_create(int size)
{
	if (size <= 0) {
		errno = EINVAL;
		return -1;
	}
	return epoll_create1(0);
}

static struct watch *watch_of(int epfd, int fd)
{
	for (size_t k = 0; k < nwatches; k++)
		if (watches[k].epfd == epfd && watches[k].fd == fd)
			return &watches[k];
	return NULL;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	long r = rp_raw_syscall(SYS_epoll_ctl, epfd, op, fd, (long)ev, 0, 0);
	if (r != 0)
		return (int)io_ret(r);
	struct watch *w = watch_of(epfd, fd);
	struct set *set = set_of(epfd);
	if (op == EPOLL_CTL_DEL) {
		if (w) {
			if (set) {
				set->n--;
				set->edge -= w->edge;
			}
			*w = watches[--nwatches];
		}
		return 0;
	}
	if (!w) {
		if (nwatches == watches_cap) {
			size_t cap = watches_cap ? 2 * watches_cap : 64;
			struct watch *more = rp_realloc(watches, cap * sizeof *more);
			if (!more)
				rp_fatal_memory("the epoll sets' table");
			watches = more;
			watches_cap = cap;
		}
		w = &watches[nwatches++];
		*w = (struct watch){epfd, fd, false};
		if (set)
			set->n++;
	}
	bool edge = ev && (ev->events & (EPOLLET | EPOLLONESHOT));
	if (set && edge && !w->edge)
		set->edge++;
	else if (set && !edge && w->edge)
		set->edge--;
	w->edge = edge;
	return 0;
}

/* How many descriptors epfd watches if all are level-triggered and it is a set we saw
 * made, else 0. (A descriptor closed without EPOLL_CTL_DEL leaves the set but not the
 * table: one more is only a larger buffer; a stale edge-triggered one only keeps the
 * kernel's choice.) */
static size_t level_watches(int epfd)
{
	const struct set *s = set_of(epfd);
	return s && s->edge == 0 ? s->n : 0;
}

/* Where a call takes every ready event of a large level-triggered set: kept from call
 * to call (the runtime is not preempted while it uses it), grown as sets grow. */
static struct epoll_event *all_events;
static size_t all_cap;

static long epoll_sorted(const struct ep *a, int timeout, const sigset_t *sigmask)
{
	size_t all = a->max > 0 ? level_watches(a->epfd) : 0;
	struct epoll_event *got = a->events;
	int max = a->max;
	if (all > (size_t)a->max && all <= INT_MAX) {
		if (all > all_cap) {
			struct epoll_event *more = rp_realloc(all_events, all * sizeof *more);
			if (!more)
				rp_fatal_memory("epoll_wait's events");
			all_events = more;
			all_cap = all;
		}
		got = all_events;
		max = (int)all;
	}
	long n = rp_raw_syscall(SYS_epoll_pwait, a->epfd, (long)got, max, timeout, (long)sigmask, 8);
	if (n > 1)
		qsort(got, (size_t)n, sizeof *got, by_data);
	if (got != a->events) {
		if (n > a->max)
			n = a->max;
		if (n > 0)
			memcpy(a->events, got, (size_t)n * sizeof *got);
	}
	return n;
}

static long try_epoll(void *arg)
{
	long n = epoll_sorted(arg, 0, NULL);
	return n == 0 ? -EAGAIN : n;
}

/* Does the set watch a descriptor of the world (inputs/in_world.c)? Then the events
 * it returns are inputs: logged, and replayed without asking the kernel. */
static bool world_set(int epfd)
{
	for (size_t k = 0; k < nwatches; k++)
		if (watches[k].epfd == epfd && in_world_fd(watches[k].fd))
			return true;
	return false;
}

/* The n events a call on a set of the world returned, logged or taken from the log. */
static long world_events(int epfd, struct epoll_event *events, long n)
{
	if (n <= 0)
		return n;
	struct iovec out = {events, (size_t)n * sizeof *events};
	long r;
	if (!in_world_replayed(IN_WC_EPOLL, epfd, &out, 1, &r))
		in_world_record(IN_WC_EPOLL, epfd, n, &out, 1, IN_OUT_WHOLE);
	return n;
}

struct ep_now {
	struct ep *a;
	int timeout;
	const sigset_t *sigmask;
};

static long epoll_now(void *arg)
{
	const struct ep_now *c = arg;
	return c->a->epfd >= 0 && io_green() ? epoll_sorted(c->a, c->timeout, c->sigmask)
		: rp_raw_syscall(SYS_epoll_pwait, c->a->epfd, (long)c->a->events, c->a->max,
				 c->timeout, (long)c->sigmask, 8);
}

int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout,
		const sigset_t *sigmask)
{
	struct ep a = {epfd, events, max};
	bool world = world_set(epfd);
	if (!io_green() || timeout == 0) {
		struct ep_now c = {&a, timeout, sigmask};
		if (!world)
			return (int)io_ret(epoll_now(&c));
		long r = in_world_call(IN_WC_EPOLL, epfd, epoll_now, &c, NULL, 0, IN_OUT_NONE);
		return (int)io_ret(world_events(epfd, events, r));
	}
	pt_testcancel(pt_self());
	struct timespec dl;
	if (timeout > 0)
		pt_deadline_in(timeout / 1000, (long)(timeout % 1000) * 1000000, &dl);
	struct pollfd p = {epfd, POLLIN, 0};
	long r = io_call(&p, 1, timeout > 0 ? &dl : NULL, world ? IO_WORLD | IO_WORLD_CALL(IN_WC_EPOLL) : 0,
			 -1, try_epoll, &a, NULL);
	if (world)
		r = world_events(epfd, events, r);
	return r == -ETIMEDOUT ? 0 : (int)io_ret(r);
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
	return epoll_pwait(epfd, events, max, timeout, NULL);
}
