/* session.h: the session: options, modes, exit statuses, INPUT kinds, and the calls
 * the layers above make to record and replay (session.c, options.c, input_log.c,
 * decide.c). */
#ifndef RP_REPLAY_H
#define RP_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "green.h"

enum rp_mode { RP_MODE_RECORD, RP_MODE_REPLAY, RP_MODE_OFF };
/* --breakpoints: how the replay stops between counting points (engine/schedule/breakpoint.c). */
enum rp_bp_choice { RP_BP_WANT_AUTO, RP_BP_WANT_HARDWARE, RP_BP_WANT_SOFTWARE };
enum rp_bp_kind { RP_BP_NONE, RP_BP_HARDWARE, RP_BP_SOFTWARE };

#define RP_DEFAULT_QUANTUM_NS 10000000ull /* 10 ms */
#define RP_MIN_QUANTUM_NS 50000ull        /* 50 us */
#define RP_HUNT_MAX_DEPTH 16 /* --hunt-depth at most (hunt.c) */
/* --hunt-strategy (hunt.c, docs/replay.md "A portfolio"): drawn per seed, or one. */
enum { RP_HUNT_DRAWN, RP_HUNT_WINDOWS, RP_HUNT_ACCESSES, RP_HUNT_PCT, RP_HUNT_QUICK,
       RP_HUNT_DELAYS, RP_HUNT_STRATEGIES };
#define RP_HUNT_STRATEGY_NAMES {"drawn", "windows", "accesses", "pct", "quick", "delays"}

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
/* 36..39: processes (docs/inputs.md, "Processes"); the replay makes no child. */
#define RP_INPUT_CHILD 36 /* fork, vfork, _Fork, posix_spawn(p), system, kill or sigqueue of
			   * another process, pidfd_open: which call (i32: 1 fork or vfork,
			   * 2 _Fork, 3 posix_spawn, 4 posix_spawnp, 5 system, 6 kill,
			   * 7 sigqueue, 8 pidfd_open), its value (i32: the pid, 0, -1, system's
			   * status, or the descriptor), its error (i32:
			   * errno when the value is -1, posix_spawn's result), 0 (i32) */
#define RP_INPUT_WAIT 37  /* wait, waitpid, wait3, wait4: result (i64: pid, 0, or -errno),
			   * status (i32), 0 (i32), then the struct rusage if the call asked for
			   * one (wait3, wait4) */
#define RP_INPUT_WAITID 38 /* waitid: result (i64: 0 or -errno), then what the kernel fills
			    * (i32 each): si_signo, si_errno, si_code, si_pid, si_uid, si_status */
#define RP_INPUT_WAIT_POLL 39 /* a wait for one child's exit with no pidfd to park on (it
			       * polls instead): its first try (u64, pt_thread.io_seq) */
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
/* The objects the recording ran with (objects.c: the executable, the dynamic loader,
 * each shared library: role, load address, build-id, path, one a line of text), after
 * CONTEXT and before LAYOUT; the replay compares this run's with it, and skips it. */
#define RP_INPUT_OBJECTS 40
/* A pack's executable (replay-pack) names its dynamic loader so: the descriptor its
 * launcher opened on the pack's loader, which the kernel opens at exec; the loader's
 * copy names its cache and its system directories (fds 7 and 8) so. The runtime
 * closes the three before the program runs (objects.c). */
#define RP_PACK_CACHE_FD 7
#define RP_PACK_SYSTEM_FD 8
#define RP_PACK_INTERP_FD 9
#define RP_PACK_CACHE "/proc/self/fd/7"
#define RP_PACK_SYSTEM "/proc/self/fd/8"
#define RP_PACK_INTERP "/proc/self/fd/9"
/* A system call on the world (a file, a socket, a path, a pipe or terminal from
 * outside: inputs/in_world.c): the call and its descriptor (i32 each), its raw result
 * (i64: >= 0, or -errno) and how many bytes it gave (u64), which follow as BYTES
 * records (pieces of at most RP_LOG_INPUT_MAX). The replay gives the same without
 * making the call. */
#define RP_INPUT_WORLD 41
/* A signal from outside the process, delivered here (schedule/async.c): where (u8: 1
 * every thread waiting, 3 at a counting point of the running thread), then the count
 * (u64; waiting: the scheduler's question position) and the pc from the load base
 * (u64; 0 when waiting), then the kernel's siginfo_t as the handler got it (128
 * bytes). The replay delivers it there, with that siginfo. */
#define RP_INPUT_SIGNAL_AT 34
#define RP_SIGNAL_AT_LEN (1 + 8 + 8 + 128)
/* A timer's answer (signals/sig_timer.c): the call (i32: 1 alarm, 2 getitimer, 3
 * setitimer's old value, 4 timer_gettime, 6 timer_getoverrun; 5, timer_settime's old
 * value, is not written), its result (i32), errno (i32), 4 bytes of padding, then the
 * struct itimerval or itimerspec it wrote (32 bytes, zeros if none). */
#define RP_INPUT_TIMER 35
/* --hunt: the main thread returned from main while other threads were runnable, and
 * they ran first (hunt/count.c): thread (i32), its new priority (i32, 0: unchanged).
 * The replay gives them the same turn; a log without it ends at main's return. */
#define RP_INPUT_EXIT_TURN 42
/* The C library's malloc key (tcache.c: u64, 0 where the recording found none), after
 * LAYOUT; the replay sets its own to it before any constructor, and skips it. */
#define RP_INPUT_TCACHE 43
/* --hunt: at a demotion, the thread that would run next (i32) and every runnable one
 * below the sleeper (i32), a thread waiting for a deadline of higher priority, waited
 * until its deadline came (hunt/count.c, sched's sleeper_turn). The replay waits at the
 * same preemption; a log without it never does. */
#define RP_INPUT_SLEEPER_TURN 44

struct rp_options {
	enum rp_mode mode;
	const char *log_path;
	uint64_t quantum_ns;
	bool chaos; /* count slices from the seed (hunt.c), round robin */
	bool hunt;  /* the hunting scheduler (hunt.c) */
	bool seed_given;
	uint64_t seed;
	int hunt_depth;      /* 0: the default */
	int hunt_strategy;   /* --hunt-strategy: RP_HUNT_DRAWN (each seed draws one), ... */
	uint64_t timeout_ns; /* --timeout: 0 none */
	bool timeout_own;    /* ... less the waits for a CPU (--timeout-own), else wall */
	const char *trace_path; /* --trace-schedule: every switch, for the timeline */
	enum rp_bp_choice breakpoints; /* --breakpoints */
	int tls_path; /* --tls: enum sched_tls_path, 0 auto */
	bool any_layout;        /* --any-layout: replay at other addresses than the recording's */
	bool any_libraries;     /* --any-libraries: replay with other shared libraries */
	bool syscall_audit;     /* --syscall-audit: name the calls the recording misses (audit.c) */
	bool log_in_dir;        /* no --record FILE: a new log in the recording directory
				 * (core/logdir.c); log_path says so until it is made */
	const char *log_dir;    /* --record-dir: that directory (else LIBREPLAY_DIR ...) */
	bool races;             /* --races: a replay by the race build reports races (races/) */
	const char *races_of;   /* --races=EXE: the recorded executable (else the log's) */
};
extern struct rp_options rp_opts;

/* options.c: take our flags off the front of argv (and LIBREPLAY_OPTS); exits with a
 * one-line message on a bad one. */
void rp_options_parse(int *argc, char **argv);
/* session.c */
void rp_session_start(int *argc, char ***argv, struct sched_hooks *h);
/* In the child of fork(), first thing (the pthread layer's fork): the child runs on
 * unrecorded, without time slice, breakpoint or trace, and never writes the log. */
void rp_session_forked(void);
/* _exit and the other ends without exit's handlers (the pthread layer's pt_end.c):
 * the log's END with the status, or the replay's check of it, as exit gives. */
void rp_session_exit_now(int status);
/* This process records or replays a log still open: not a child of fork(), not ended. */
bool rp_session_logged(void);
/* An exec about to replace the process image (pt_exec.c): END, how = exec, or the
 * replay's check of it. Recording, rp_session_exec_begin first (before the records
 * of the exec itself), and the END is tentative: if the exec returns,
 * rp_session_exec_failed takes back what was written since the begin (END too) and
 * the recording goes on. */
void rp_session_exec_begin(void);
void rp_session_exec_now(void);
void rp_session_exec_failed(void);
/* The runtime's handler that stands in for SIG_DFL while recording or replaying, for
 * a signal whose default action ends the process (the signals layer installs it when
 * the program asks for SIG_DFL, and shows SIG_DFL for it): true and *sa filled, or
 * false (the signal's default is left alone). */
struct sigaction;
bool rp_session_default_action(int sig, struct sigaction *sa);
bool rp_session_is_default_action(const struct sigaction *sa);
/* Every thread waits and the scheduler idles (a sleep or a poll in the idle hooks):
 * set around that wait, by them; the log is written before it (record.c). A signal
 * from outside that is due is delivered at rp_idle_begin instead, which then returns
 * false: the caller does not wait, a thread may run. Else the program's signals are
 * held until the wait, which must take rp_idle_mask() as its signal mask (ppoll), so
 * that one arriving from here on ends it; rp_idle_end delivers it. */
bool rp_idle_begin(void);
const sigset_t *rp_idle_mask(void);
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
/* The same, and before the session too (constructors: rp_input_record keeps their
 * values, rp_input_replay reads the log early): a call on the world is logged or
 * taken from the log now. False once the program is dying or the log has ended. */
bool rp_inputs_kept(void);
/* Recording: a signal from outside the process (SIGINT from a terminal, SIGUSR1 from
 * another process, SIGALRM from alarm) reached the trampoline of a program's handler,
 * si as the kernel gave it, uc where it interrupted (schedule/async.c). It is held and
 * delivered at the next point the log can name: the running thread's next counting
 * point that a replay can stop at, or, while every thread waits, the idle wait it
 * ends; each is logged there as a SIGNAL_AT input. Async-signal-safe. */
void rp_async_arrived(const siginfo_t *si, ucontext_t *uc);
/* Are signals from outside held and logged (recording with a log, scheduling)? Else
 * (a fork child, unrecorded) the trampoline runs the handler at once, as before. */
bool rp_async_defers(void);
/* Threads waiting in sigsuspend or pause (the signals layer counts them; the kernel's
 * mask is theirs meanwhile): while one does, every thread blocked is not a deadlock:
 * a signal from outside may end the wait (async.c). */
extern int rp_signal_waiters;
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
