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

/* Replaying question pos: the next record answers an earlier question, one the replay
 * asked without taking it (or never asked): the recording's scheduling points or its
 * waiters differed from here on, and that record would wait for ever. */
static void question_passed(const struct rp_log_record *r, uint64_t pos)
{
	uint64_t p;
	if (!r)
		return;
	if (r->kind == RP_LOG_TIMEOUT)
		p = r->pos;
	else if (r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_IO_READY && r->len == sizeof p)
		memcpy(&p, r->data, sizeof p);
	else
		return;
	if (p < pos) {
		char what[160];
		rp_diverge("record %zu: the recording answered question %llu (%s), which the replay "
			"has passed: it asks question %llu", rp_replay_recno(), (unsigned long long)p,
			rp_replay_describe(r, what, sizeof what), (unsigned long long)pos);
	}
}

static bool hook_timeout_expired(struct sched_thread *t, uint64_t deadline_ns, clockid_t clk)
{
	uint64_t pos = questions++;
	if (!rp_replay_run_free()) {
		const struct rp_log_record *r = rp_replay_peek();
		question_passed(r, pos);
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

uint64_t rp_questions_asked(void)
{
	return questions;
}

static void hook_idle(uint64_t deadline_ns, clockid_t clk)
{
	rp_up.idle_hang_check();
	if (!rp_replay_run_free()) {
		rp_replay_idle_check(0); /* the log says when the deadline passed */
		return;
	}
	if (!rp_idle_begin())
		return; /* a signal from outside was delivered: a thread may run */
	/* The system call itself (clock_nanosleep and ppoll are the pthread layer's, for
	 * threads): ppoll, whose mask lets a signal from outside end the wait (async.c);
	 * relative, so each turn asks the clock again. */
	for (;;) {
		uint64_t now = rp_clock_ns(clk);
		if (now >= deadline_ns)
			break;
		struct timespec ts = {(time_t)((deadline_ns - now) / 1000000000u),
				      (long)((deadline_ns - now) % 1000000000u)};
		if (rp_raw_syscall(SYS_ppoll, 0, 0, (long)&ts, (long)rp_idle_mask(), 8, 0) != -EINTR ||
		    rp_async_due)
			break;
		rp_up.idle_hang_check();
	}
	rp_idle_end();
}

bool rp_sched_question(struct sched_thread *t, uint8_t kind, bool (*ask)(const void *),
		       const void *obj)
{
	uint64_t pos = questions++;
	if (!rp_replay_run_free()) {
		const struct rp_log_record *r = rp_replay_peek();
		uint64_t p;
		question_passed(r, pos);
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

/* What every thread is doing, in a few words: "thread 1 joins thread 2, thread 2 sleeps
 * (deadline)". */
static const char *thread_states(char *buf, size_t len)
{
	size_t n = 0;
	int shown = 0, more = 0;
	buf[0] = '\0';
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info in;
		sched_thread_info(t, &in);
		if (in.state == SCHED_EXITED || in.state == SCHED_ABANDONED)
			continue;
		if (shown == 8 || n >= len - 64) {
			more++;
			continue;
		}
		int k;
		if (in.state != SCHED_BLOCKED)
			k = snprintf(buf + n, len - n, "%sthread %d runnable", shown ? ", " : "", in.id);
		else if (in.wait_kind == SCHED_WAIT_JOIN && in.wait_owner)
			k = snprintf(buf + n, len - n, "%sthread %d joins thread %d%s", shown ? ", " : "",
				     in.id, in.wait_owner, in.has_deadline ? " (deadline)" : "");
		else if (in.wait_kind == SCHED_WAIT_MUTEX && in.wait_owner)
			k = snprintf(buf + n, len - n, "%sthread %d waits for a mutex thread %d holds%s",
				     shown ? ", " : "", in.id, in.wait_owner,
				     in.has_deadline ? " (deadline)" : "");
		else
			k = snprintf(buf + n, len - n, "%sthread %d waits (%s%s)", shown ? ", " : "", in.id,
				     sched_wait_kind_name(in.wait_kind), in.has_deadline ? ", deadline" : "");
		if (k > 0)
			n += (size_t)k < len - n ? (size_t)k : len - n - 1;
		shown++;
	}
	if (more)
		snprintf(buf + n, len - n, " and %d more", more);
	return buf;
}

/* Is thread tid blocked (with a deadline: deadline)? */
static bool waiting(uint32_t tid, bool deadline, enum sched_wait_kind kind)
{
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info in;
		sched_thread_info(t, &in);
		if ((uint32_t)in.id == tid)
			return in.state == SCHED_BLOCKED && (!deadline || in.has_deadline) &&
			       (kind == SCHED_WAIT_NONE || in.wait_kind == kind);
	}
	return false;
}

/* A record a round of questions could answer while every thread waits: the number of
 * its question, and the thread it is about; false for any other record. */
static bool answers_a_wait(const struct rp_log_record *r, uint8_t kind, uint64_t *pos)
{
	if (r->kind == RP_LOG_TIMEOUT) {
		*pos = r->pos;
		return waiting(r->tid, true, SCHED_WAIT_NONE);
	}
	if (kind && r->kind == RP_LOG_INPUT && r->input_kind == kind && r->len == sizeof *pos) {
		memcpy(pos, r->data, sizeof *pos);
		return waiting(r->tid, false, SCHED_WAIT_EVENT);
	}
	return false;
}

/* A recording that asked this many questions more while every thread waited would
 * have idled (a system call each time) for hours: a replay that would have to is
 * following a damaged or forged log. */
#define RP_IDLE_QUESTIONS_MAX 10000000u
/* Idle rounds that may leave a clock read next before it is a divergence. */
#define RP_IDLE_CLOCK_ROUNDS 1000u

void rp_replay_idle_check(uint8_t kind)
{
	rp_up.idle_hang_check();
	const struct rp_log_record *r = rp_replay_run_free() ? NULL : rp_replay_peek();
	uint64_t pos = 0;
	char what[160], states[400];
	if (!r)
		return;
	rp_up.idle_hang_check(); /* a hang the log ends with, every thread waiting */
	rp_replay_idle_stop(); /* a signal from outside ended the recording here */
	/* Deadlines on both clocks: the next round asks the clock which comes first. A
	 * clock read that rounds after rounds leave next is one no round takes (a forged
	 * log's: a sleep's clock read twice, its TIMEOUT left out); it spun for ever. */
	static size_t clock_recno, clock_rounds;
	if (r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_SCHED_CLOCK &&
	    r->tid == (uint32_t)rp_cur->tid) {
		if (clock_recno != rp_replay_recno()) {
			clock_recno = rp_replay_recno();
			clock_rounds = 0;
		}
		if (++clock_rounds <= RP_IDLE_CLOCK_ROUNDS)
			return;
		rp_diverge("record %zu: every thread waits (%s), and the recording's next record, "
			"a clock read, is not taken: %s", rp_replay_recno(),
			thread_states(states, sizeof states), rp_replay_describe(r, what, sizeof what));
	}
	if (rp_replay_async_idle())
		return; /* a signal from outside ended the wait here */
	if (!rp_replay_signal_idle_pos(r, &pos) && !answers_a_wait(r, kind, &pos))
		rp_diverge("record %zu: every thread waits (%s), and the recording's next record "
			"cannot end a wait: %s", rp_replay_recno(), thread_states(states, sizeof states),
			rp_replay_describe(r, what, sizeof what));
	if (pos < questions)
		rp_diverge("record %zu: every thread waits (%s), and the recording's next record "
			"answers question %llu, which has passed (%llu asked): %s", rp_replay_recno(),
			thread_states(states, sizeof states), (unsigned long long)pos,
			(unsigned long long)questions, rp_replay_describe(r, what, sizeof what));
	if (pos - questions > RP_IDLE_QUESTIONS_MAX)
		rp_diverge("record %zu: every thread waits (%s), and the recording's next record "
			"answers question %llu, %llu questions ahead: %s", rp_replay_recno(),
			thread_states(states, sizeof states), (unsigned long long)pos,
			(unsigned long long)(pos - questions), rp_replay_describe(r, what, sizeof what));
}

/* Every thread blocked for good: an outcome (outcome.c), unless the recording went on. */
static void hook_deadlock(void)
{
	const struct rp_log_record *r = rp_replaying ? rp_replay_peek() : NULL;
	char what[160], states[400];
	if (r && !(r->kind == RP_LOG_END && r->how == RP_LOG_DEADLOCK))
		rp_diverge("record %zu: every thread is blocked (%s), but the recording went on: %s",
			rp_replay_recno(), thread_states(states, sizeof states),
			rp_replay_describe(r, what, sizeof what));
	rp_up.outcome(RP_LOG_DEADLOCK, NULL, 0, 0);
	__builtin_unreachable();
}

void rp_decide_hooks(struct sched_hooks *h)
{
	h->now_ns = hook_now;
	h->timeout_expired = hook_timeout_expired;
	h->idle = hook_idle;
	h->deadlock = hook_deadlock;
	h->idle_outside = rp_async_idle_outside;
}
