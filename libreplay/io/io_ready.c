/* io_ready.c: the scheduler's questions about threads parked on descriptors
 * (sched_wait_event with a struct io_wait, from the pthread layer's io_park.c).
 *
 * Whether a descriptor is ready at a given scheduling point depends on time (data
 * from outside, the kernel's own pace), so the answer is an input: recording, a real
 * zero-timeout poll decides and a yes is logged (RP_INPUT_IO_READY, the question's
 * position); replaying, the log decides and no descriptor is looked at. */
#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "engine/session.h"

static bool ready_now(const void *obj)
{
	const struct io_wait *w = obj;
	struct timespec zero = {0, 0};
	return rp_raw_syscall(SYS_ppoll, (long)w->fds, (long)w->nfds, (long)&zero, 0, 8, 0) > 0;
}

bool io_event_ready(struct sched_thread *t, const void *obj)
{
	return rp_sched_question(t, RP_INPUT_IO_READY, ready_now, obj);
}

/* Every waiter's descriptors, for one poll. Past the table's size the rest are not
 * watched, and the wait is cut to 1 ms so that they are asked about soon enough. */
#define IO_IDLE_MAX 1024
static struct pollfd idle_fds[IO_IDLE_MAX];

void io_idle(uint64_t deadline_ns, clockid_t clk)
{
	if (rp_replay_decides()) {
		/* No waiting: the next record says which wait ends, and when. */
		rp_replay_idle_check(RP_INPUT_IO_READY);
		return;
	}
	rp_idle_hang_check();
	unsigned long n = 0;
	bool overflow = false;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info info;
		sched_thread_info(t, &info);
		if (info.state != SCHED_BLOCKED || info.wait_kind != SCHED_WAIT_EVENT)
			continue;
		const struct io_wait *w = info.wait_obj;
		for (unsigned long k = 0; k < w->nfds; k++) {
			if (n == IO_IDLE_MAX) {
				overflow = true;
				break;
			}
			idle_fds[n++] = w->fds[k];
		}
	}
	struct timespec ts, *tsp = NULL;
	uint64_t left = UINT64_MAX;
	if (deadline_ns != UINT64_MAX) {
		struct timespec now;
		rp_raw_syscall(SYS_clock_gettime, clk, (long)&now, 0, 0, 0, 0);
		uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		left = deadline_ns > now_ns ? deadline_ns - now_ns : 0;
	}
	if (overflow && left > 1000000)
		left = 1000000;
	if (left != UINT64_MAX) {
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		tsp = &ts;
	}
	/* A signal (or a deadline on the other clock) only means asking again sooner. */
	if (!rp_idle_begin())
		return; /* a signal from outside was delivered: a thread may run */
	rp_raw_syscall(SYS_ppoll, (long)idle_fds, (long)n, (long)tsp, (long)rp_idle_mask(), 8, 0);
	rp_idle_end();
}
