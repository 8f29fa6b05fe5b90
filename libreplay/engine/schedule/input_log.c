/* input_log.c: recorded inputs, the log's side (docs/inputs.md): what a wrapped call
 * returned while recording is logged as an INPUT record, and the replay returns it
 * from the log. The wrappers themselves are the inputs layer's (libreplay/inputs/) and
 * the io layer's; this is what they call. Inputs recorded by constructors, before
 * the session starts, are kept and logged first. */
#include "engine/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- recorded inputs: what a call returned to the program ------------------------------ */

/* Recorded inputs of constructors, before the session (main.c parses the flags in the
 * executable's .preinit_array; constructors run later). Recording, they are kept here
 * (tid, kind, len, bytes) and logged first; replaying, the first one reads the log. */
#define EARLY_MAX 65536u

static uint8_t early[EARLY_MAX];

static size_t early_len;

static bool before_session(enum rp_mode mode)
{
	return !rp_session_started && rp_opts.log_path && rp_opts.mode == mode;
}

static void keep_early(uint32_t tid, uint8_t kind, const void *buf, size_t len)
{
	uint32_t n = (uint32_t)len;
	if (len > EARLY_MAX || early_len + 9 + len > EARLY_MAX) {
		rp_say("more than %u bytes of recorded inputs before main "
				"(in constructors): not supported", EARLY_MAX);
		rp_exit(RP_EXIT_USAGE);
	}
	memcpy(early + early_len, &tid, 4);
	early[early_len + 4] = kind;
	memcpy(early + early_len + 5, &n, 4);
	memcpy(early + early_len + 9, buf, len);
	early_len += 9 + len;
}

void rp_input_log_early(void)
{
	for (size_t at = 0; at < early_len;) {
		uint32_t tid, n;
		memcpy(&tid, early + at, 4);
		memcpy(&n, early + at + 5, 4);
		rp_log_input(rp_writer, tid, early[at + 4], early + at + 9, n);
		at += 9 + n;
	}
	early_len = 0;
}

/* For divergence messages: which call an INPUT kind records (session.h). */
const char *rp_input_name(uint8_t kind)
{
	static const char *const names[] = {
		"?", "the clock (for a sleep)", "clock_gettime", "gettimeofday", "time", "times",
		"clock", "getrusage", "timespec_get", "getrandom, arc4random_buf or a random device",
		"(bytes)", "arc4random", "getpid, getppid or gettid", "sysconf", "sched_getaffinity",
		"uname", "(a signal from outside)", "(a priority)",
		"clock_gettime, gettimeofday or time"};
	if (kind < sizeof names / sizeof names[0])
		return names[kind];
	if (kind == RP_INPUT_IO_READY)
		return "a descriptor found ready";
	if (kind == RP_INPUT_IO_COUNT)
		return "a socket transfer's byte count";
	if (kind == RP_INPUT_WORLD)
		return "a system call on a file, socket or path";
	if (kind == RP_INPUT_CHILD)
		return "fork, posix_spawn or system";
	if (kind == RP_INPUT_WAIT || kind == RP_INPUT_WAITID)
		return "a wait for a child";
	if (kind == RP_INPUT_WAIT_POLL)
		return "a wait for a child without a pidfd";
	if (kind == RP_INPUT_SIGNAL_STOP)
		return "(the end by a signal from outside)";
	if (kind == RP_INPUT_SIGNAL_AT)
		return "(a signal from outside, delivered)";
	if (kind == RP_INPUT_TIMER)
		return "alarm, getitimer, setitimer or a timer_* call";
	if (kind == RP_INPUT_EXIT_TURN)
		return "(the other threads' turn at main's return)";
	if (kind == RP_INPUT_SLEEPER_TURN)
		return "(a wait for a sleeper's deadline at a demotion)";
	return kind >= 20 && kind <= 29 ? "a blocking system call" : "a recorded call";
}

bool rp_input_replay(uint8_t kind, void *buf, size_t len)
{
	if (rp_dying)
		return false;
	bool early_replay = before_session(RP_MODE_REPLAY);
	if (early_replay && !rp_replay_log_loaded())
		rp_replay_load_log();
	if (early_replay ? rp_replay_log_cut_here() : rp_replay_run_free())
		return false;
	const struct rp_log_record *r = rp_replay_peek();
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind || r->len != len ||
	    r->tid != (uint32_t)rp_cur->tid)
		rp_diverge("record %zu: thread %d called %s, where the recording %s%s", rp_replay_recno(),
			rp_cur->tid, rp_input_name(kind), !r ? "had ended" :
			r->kind != RP_LOG_INPUT ? "did something else" :
			r->tid != (uint32_t)rp_cur->tid ? "had another thread call " : "called ",
			r && r->kind == RP_LOG_INPUT ? rp_input_name(r->input_kind) : "");
	memcpy(buf, r->data, len);
	rp_replay_next();
	rp_replay_rearm_running();
	return true;
}

void rp_input_record(uint8_t kind, const void *buf, size_t len)
{
	if (rp_dying)
		return;
	if (rp_writer && !rp_replaying) {
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, kind, buf, len);
		rp_log_maybe_flush(rp_writer, rp_mono_ns());
	}
	else if (before_session(RP_MODE_RECORD))
		keep_early((uint32_t)rp_cur->tid, kind, buf, len);
}

bool rp_input_replay_try(uint8_t kind, uint64_t seq, const char *what, void *buf, size_t len)
{
	if (rp_replay_run_free())
		return false;
	const struct rp_log_record *r = rp_replay_peek();
	uint64_t logged;
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind ||
	    r->tid != (uint32_t)rp_cur->tid || r->len != sizeof logged + len)
		return false;
	memcpy(&logged, r->data, sizeof logged);
	if (logged < seq)
		rp_diverge("record %zu: thread %d %s at its try %llu when recorded; the replay passed "
			"that try without it and is at try %llu", rp_replay_recno(), rp_cur->tid,
			what, (unsigned long long)logged, (unsigned long long)seq);
	if (logged != seq)
		return false;
	memcpy(buf, r->data + sizeof logged, len);
	rp_replay_next();
	if (len) /* a value: the thread goes on running, toward its next record */
		rp_replay_rearm_running();
	return true;
}

bool rp_input_replay_keyed(uint8_t kind, const void *key, size_t keylen, void *buf, size_t len)
{
	if (rp_replay_run_free())
		return false;
	const struct rp_log_record *r = rp_replay_peek();
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind ||
	    r->tid != (uint32_t)rp_cur->tid || r->len != keylen + len || memcmp(r->data, key, keylen))
		return false;
	memcpy(buf, r->data + keylen, len);
	rp_replay_next();
	rp_replay_rearm_running();
	return true;
}

bool rp_inputs_logged(void)
{
	return rp_writer || (rp_replaying && !rp_replay_run_free());
}

bool rp_inputs_kept(void)
{
	if (rp_dying || !rp_opts.log_path)
		return false;
	if (!rp_session_started)
		return rp_opts.mode == RP_MODE_RECORD || rp_opts.mode == RP_MODE_REPLAY;
	return rp_inputs_logged();
}

bool rp_replay_decides(void)
{
	return !rp_replay_run_free();
}
