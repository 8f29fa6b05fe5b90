/* session.h: the session: options, modes, exit statuses, INPUT kinds, and the calls
 * the layers above make to record and replay (session.c, options.c, input_log.c,
 * decide.c). */
#ifndef RP_REPLAY_H
#define RP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "green.h"

enum rp_mode { RP_MODE_RECORD, RP_MODE_REPLAY, RP_MODE_OFF };
/* --breakpoints: how the replay stops between counting points (engine/schedule/breakpoint.c). */
enum rp_bp_choice { RP_BP_WANT_AUTO, RP_BP_WANT_HARDWARE, RP_BP_WANT_SOFTWARE };
enum rp_bp_kind { RP_BP_NONE, RP_BP_HARDWARE, RP_BP_SOFTWARE };

#define RP_DEFAULT_QUANTUM_NS 10000000ull /* 10 ms */
#define RP_MIN_QUANTUM_NS 50000ull        /* 50 us */
#define RP_DEFAULT_LOG "log.bin"
#define RP_HUNT_MAX_DEPTH 16 /* --hunt-depth at most (hunt.c) */

/* Exit statuses of our own (the program's are passed through). */
#define RP_EXIT_USAGE 2     /* bad flags, unreadable or foreign log */
#define RP_EXIT_DIVERGED 86 /* replay did not follow the log */
#define RP_EXIT_DEADLOCK 87 /* every thread blocked for good */
#define RP_EXIT_HANG 88     /* --timeout stopped the run */

/* INPUT record kinds. */
#define RP_INPUT_SCHED_CLOCK 1 /* the clock read to turn a sleep into a deadline */
#define RP_INPUT_CLOCK_GETTIME 2 /* the program's clock_gettime: clock, result, time */
#define RP_INPUT_GETTIMEOFDAY 3
#define RP_INPUT_TIME 4
/* 5..19: the other recorded inputs (docs/inputs.md, libreplay/inputs/inputs.h). */
#define RP_INPUT_TIMES 5        /* times(): return value and struct tms */
#define RP_INPUT_CLOCK 6        /* clock() */
#define RP_INPUT_GETRUSAGE 7    /* getrusage(): who, result, struct rusage */
#define RP_INPUT_TIMESPEC_GET 8 /* timespec_get(): base, result, time */
#define RP_INPUT_CHUNK 9        /* a call that fills a buffer: which call, result, errno */
#define RP_INPUT_BYTES 10       /* ... then the bytes it gave (after a CHUNK > 0) */
#define RP_INPUT_ARC4RANDOM 11  /* arc4random(), arc4random_uniform(): the value */
#define RP_INPUT_ID 12          /* getpid/getppid/gettid: which, value */
#define RP_INPUT_SYSCONF 13     /* processor and memory counts: name, value */
#define RP_INPUT_AFFINITY 14    /* sched_getaffinity(): result, mask */
#define RP_INPUT_UNAME 15       /* uname(): result, struct utsname */
#define RP_INPUT_ASYNC_SIGNAL 16 /* a signal from outside reached a handler: replay refuses */
#define RP_INPUT_PRIORITY 17    /* --hunt: thread (i32) gets priority (i32) */
#define RP_INPUT_CLOCK_FIX 18   /* a clock read the model did not predict: clock, the thread's
				 * read number (u64), the value (ns, u64) (in_clock.c) */
/* 20..29: blocking system calls (docs/io.md). */
#define RP_INPUT_IO_READY 20 /* tid's awaited descriptor was found ready: the question's
			      * position (u64), numbered with the TIMEOUT questions */
#define RP_INPUT_IO_BLOCK 21 /* tid's call would have blocked and it parks: which of its
			      * tries (u64, pt_thread.io_seq) */
#define RP_INPUT_IO_COUNT 22 /* tid's try on a TCP-like socket transferred less than asked
			      * (or failed): which try (u64), its result (i64: count or -errno) */
/* The runtime's monotonic clock, ns (u64), about every second of a recording, for
 * tools (replay-dump's preemptions per second); replay skips these records. */
#define RP_INPUT_TIMESTAMP 30
/* What the replay needs to match (context.c: working directory, standard descriptors,
 * the environment's hashes), first in the log; the replay compares it and skips it. */
#define RP_INPUT_CONTEXT 31
/* A signal from outside ended the recording here (record.c): the signal (i32), then
 * where the thread stood (u64 count, u64 pc from the load base, 0 if not at a
 * preemptible instruction), and whether every thread was waiting (u8); END follows.
 * The replay stops there and dies of the same signal. */
#define RP_INPUT_SIGNAL_STOP 32
/* The recording's address layout (layout.c: flags, an errno, five addresses), after
 * CONTEXT; the replay compares this run's with it before the program runs, and skips it. */
#define RP_INPUT_LAYOUT 33

struct rp_options {
	enum rp_mode mode;
	const char *log_path;
	uint64_t quantum_ns;
	bool chaos; /* count slices from the seed (hunt.c), round robin */
	bool hunt;  /* the hunting scheduler (hunt.c) */
	bool seed_given;
	uint64_t seed;
	int hunt_depth;      /* 0: the default */
	uint64_t timeout_ns; /* --timeout: 0 none */
	const char *trace_path; /* --trace-schedule: every switch, for the timeline */
	enum rp_bp_choice breakpoints; /* --breakpoints */
	int tls_path; /* --tls: enum sched_tls_path, 0 auto */
	bool any_layout;        /* --any-layout: replay at other addresses than the recording's */
};
extern struct rp_options rp_opts;

/* options.c: take our flags off the front of argv (and LIBREPLAY_OPTS); exits with a
 * one-line message on a bad one. */
void rp_options_parse(int *argc, char **argv);
/* session.c */
void rp_session_start(int *argc, char ***argv, struct sched_hooks *h);
/* The runtime's handler that stands in for SIG_DFL while recording or replaying, for
 * a signal whose default action ends the process (the signals layer installs it when
 * the program asks for SIG_DFL, and shows SIG_DFL for it): true and *sa filled, or
 * false (the signal's default is left alone). */
struct sigaction;
bool rp_session_default_action(int sig, struct sigaction *sa);
bool rp_session_is_default_action(const struct sigaction *sa);
/* Every thread waits and the scheduler idles (a sleep or a poll in the idle hooks):
 * set around that wait, by them; the log is written before it (record.c). */
void rp_idle_begin(void);
void rp_idle_end(void);
/* input_log.c: a value a recorded call returned. Replaying: fills buf from the log and returns
 * true (a different call is a divergence). Otherwise false; then, recording,
 * rp_input_record logs what the real call gave. */
bool rp_input_replay(uint8_t kind, void *buf, size_t len);
void rp_input_record(uint8_t kind, const void *buf, size_t len);
/* Replaying: is the next record an INPUT of kind for the current thread holding seq,
 * its try number (u64, one more at each try)? If so it is consumed and true returned:
 * a decision logged only when it happened, seq naming where (so that an earlier try
 * cannot take it); buf gets the len bytes logged after seq. One of an earlier try
 * still next is one the replay passed: a divergence (what: what the thread did at
 * that try when recorded, "parked"...). */
bool rp_input_replay_try(uint8_t kind, uint64_t seq, const char *what, void *buf, size_t len);
/* Replaying: is the next record an INPUT of kind for the current thread starting with
 * key? If so buf gets the rest, it is consumed, and true returned (a value logged only
 * when it could not be predicted, key naming which call it was). */
bool rp_input_replay_keyed(uint8_t kind, const void *key, size_t keylen, void *buf, size_t len);
/* Recording with a log, or replaying one (not past its end). */
bool rp_inputs_logged(void);
/* Recording: a signal from outside the process reached a program's handler (the
 * signals layer's trampoline, sig_action.c). No record could say where to deliver it
 * in a replay, so an ASYNC_SIGNAL input marks the log as one the replay refuses. The
 * log is written only where the runtime is surely not writing it: at once when the
 * handler interrupted the program's own code (in_program), else at the next recorded
 * input (rp_async_signal_flush, which the inputs' wrappers call) or at exit. */
void rp_async_signal(int sig, int code, int pid, bool in_program);
void rp_async_signal_flush(void);
/* Replaying, and not past the end of a log cut short: the log decides. */
bool rp_replay_decides(void);
/* A time-dependent question about thread t at a scheduling point (has the event it
 * waits for happened?), numbered with the deadline questions. Replaying: the logged
 * answer. Otherwise ask(obj); recording logs a yes as an INPUT of kind holding the
 * question's position. */
bool rp_sched_question(struct sched_thread *t, uint8_t kind, bool (*ask)(const void *),
		       const void *obj);
/* Replaying with every thread waiting: the next record must end a wait (a TIMEOUT or an
 * INPUT of kind), else the replay has diverged. */
void rp_replay_idle_check(uint8_t kind);

#endif
