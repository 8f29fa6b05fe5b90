/* decide.c: the scheduler's time-dependent decisions (paper 002's "every decision that
 * depends on time is logged"): the clock read that turns a sleep into a deadline, a
 * deadline found expired, an awaited event found to have happened (rp_sched_question,
 * for the io layer's descriptors), idling (where a --timeout may end the run), and
 * every thread blocked (a deadlock: outcome.c). Recording, a yes
 * is logged with the question's position (questions are numbered in the order the
 * scheduler asks them); replaying, the log answers and nothing real is looked at. */
#include "engine/core.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

static uint64_t questions; /* questions asked so far: their position */

static uint64_t hook_now(clockid_t clk)
{
	uint64_t v;
	if (!rp_replay_run_free()) {
		const struct rp_log_record *r = rp_replay_peek();
		if (!r || r->kind != RP_LOG_INPUT || r->input_kind != RP_INPUT_SCHED_CLOCK ||
		    r->tid != (uint32_t)rp_cur->tid || r->len != sizeof v)
			rp_diverge("record %zu: thread %d read the clock for a sleep, the recording did not",
				rp_replay_recno(), rp_cur->tid);
		memcpy(&v, r->data, sizeof v);
		rp_replay_next();
		rp_replay_rearm_running();
		return v;
	}
	v = rp_clock_ns(clk);
	if (rp_writer) {
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_SCHED_CLOCK, &v, sizeof v);
		rp_log_maybe_flush(rp_writer, rp_mono_ns());
	}
	return v;
}

static bool hook_timeout_expired(struct sched_thread *t, uint64_t deadline_ns, clockid_t clk)
{
	uint64_t pos = questions++;
	if (!rp_replay_run_free()) {
		const struct rp_log_record *r = rp_replay_peek();
		if (r && r->kind == RP_LOG_TIMEOUT && r->pos == pos) {
			if (r->tid != (uint32_t)t->id)
				rp_diverge("record %zu: thread %u's deadline expired, here thread %d's is asked",
					rp_replay_recno(), r->tid, t->id);
			rp_replay_next();
			rp_replay_rearm_running();
			return true;
		}
		return false;
	}
	bool yes = rp_clock_ns(clk) >= deadline_ns;
	if (yes && rp_writer) {
		rp_log_timeout(rp_writer, (uint32_t)t->id, pos);
		rp_log_maybe_flush(rp_writer, rp_mono_ns());
	}
	return yes;
}

static void hook_idle(uint64_t deadline_ns, clockid_t clk)
{
	rp_idle_hang_check();
	if (!rp_replay_run_free())
		return; /* the log says when the deadline passed */
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
	/* The system call itself: clock_nanosleep is the pthread layer's, for threads. */
	while (rp_raw_syscall(SYS_clock_nanosleep, clk, TIMER_ABSTIME, (long)&ts, 0, 0, 0) == -EINTR)
		rp_idle_hang_check();
}

bool rp_sched_question(struct sched_thread *t, uint8_t kind, bool (*ask)(const void *),
		       const void *obj)
{
	uint64_t pos = questions++;
	if (!rp_replay_run_free()) {
		const struct rp_log_record *r = rp_replay_peek();
		uint64_t p;
		if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind || r->len != sizeof p)
			return false;
		memcpy(&p, r->data, sizeof p);
		if (p != pos)
			return false;
		if (r->tid != (uint32_t)t->id)
			rp_diverge("record %zu: thread %u's event happened, here thread %d's is asked",
				rp_replay_recno(), r->tid, t->id);
		rp_replay_next();
		return true;
	}
	bool yes = ask(obj);
	if (yes && rp_writer) {
		rp_log_input(rp_writer, (uint32_t)t->id, kind, &pos, sizeof pos);
		rp_log_maybe_flush(rp_writer, rp_mono_ns());
	}
	return yes;
}

void rp_replay_idle_check(uint8_t kind)
{
	rp_idle_hang_check();
	const struct rp_log_record *r = rp_replay_run_free() ? NULL : rp_replay_peek();
	if (r && r->kind != RP_LOG_TIMEOUT && !(r->kind == RP_LOG_INPUT && r->input_kind == kind))
		rp_diverge("record %zu: every thread waits, but the recording went on (next: thread %u)",
			rp_replay_recno(), r->tid);
}

/* Every thread blocked for good: an outcome (outcome.c), unless the recording went on. */
static void hook_deadlock(void)
{
	const struct rp_log_record *r = rp_replaying ? rp_replay_peek() : NULL;
	if (r && !(r->kind == RP_LOG_END && r->how == RP_LOG_DEADLOCK))
		rp_diverge("record %zu: every thread is blocked, but the recording went on (next: thread %u)",
			rp_replay_recno(), r->tid);
	rp_outcome(RP_LOG_DEADLOCK, NULL, 0, 0);
}

void rp_decide_hooks(struct sched_hooks *h)
{
	h->now_ns = hook_now;
	h->timeout_expired = hook_timeout_expired;
	h->idle = hook_idle;
	h->deadlock = hook_deadlock;
}
