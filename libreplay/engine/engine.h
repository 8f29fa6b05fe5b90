/* engine/engine.h: libreplay's internal interface. */
#ifndef RP_IMPL_H
#define RP_IMPL_H

#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <ucontext.h>

#include "green.h"
#include "libreplay.h"
#include "log/log.h"
#include "base/rp_fd.h"
#include "base/rp_say.h"
#include "base/rp_syscall.h"

/* What an instrumented caller leaves in %r15 during a call (sicpp/rewrite.h, SIC_TOKEN;
 * sic_rt.S has its own copy). */
#define RP_SIC_TOKEN ((uint64_t)(int64_t)-0x61a53f22)

/* The counter's start in normal runs: counting down from 2^62 never reaches zero, and
 * a foreign library's r15 is very unlikely to equal such a value. */
#define RP_SIC_BASE (UINT64_C(1) << 62)

/* A green thread as the runtime sees it (struct sched_thread's ext). Its count is
 * offset - counter, where the counter is: %r15 while it runs instrumented code;
 * saved r15 in uc while it is switched out from a signal handler; home otherwise. */
struct rp_thread {
	int tid;
	uint64_t offset;
	uint64_t home;
	uint64_t *side_base, *side_top, *side_end; /* the foreign-entry side stack */
	ucontext_t *uc;
	bool resumed_from_signal; /* and where: a second tick there is no progress */
	bool preempt_soon;        /* a tick landed in foreign code: preempt at the next
				   * counting point (record.c, rp_record_overflow) */
	int tick_depth;           /* its preemptions in progress (on_tick, nested with
				   * SA_NODEFER, or rp_record_overflow): its own, since
				   * it is switched out inside them */
	uint64_t resume_count;
	uintptr_t resume_pc;
	uint64_t ran_at;          /* rp_debug.switches when it last started running */
	/* Preemptions by count (--hunt, --chaos; count.c): */
	uint64_t slice_end;       /* the count where its slice ends */
	bool soon;                /* preempt at its next counting point ... */
	uintptr_t soon_pc;        /* ... or at this memory access first (the breakpoint) */
	uintptr_t exit_pc;        /* the breakpoint where its loop ends: decide there */
	unsigned exit_slices;     /* ... slices it has waited for it */
	int new_prio;             /* a change point's priority, given at that preemption */
	bool sync_step;           /* its pending preemption was decided at a synchronization
				   * step or a new thread's first access (there alone,
				   * rp_count_sleeper_turn asks) */
	bool demoting;            /* ... and that preemption is being taken (a demotion,
				   * under priorities): sched's sleeper_turn may wait for
				   * a sleeper (rp_count_sleeper_turn) */
	uint64_t in_count;        /* its count when it was last switched in */
	uintptr_t stop_pc;        /* switched out by a preemption from our own code (not a
				   * signal): the pc its PREEMPT names, for reports */
	uint64_t switch_count;    /* its count when it was switched in (thread.c) */
	int seek;                 /* where its slice's end looks for a place (count.c) */
	bool pending;             /* ... for a decision taken already (a window missed) */
	uintptr_t seek_pc;        /* ... the pc the slice ended at */
	unsigned seek_left;       /* ... counting points it may still look at */
	uintptr_t start_memop;    /* a shared access of its start function where its first
				   * turn is to end (count.c, rp_hunt_thread_start) */
	bool start_trap;          /* ... its breakpoint is armed */
	bool start_call;          /* ... or it ends right after its first synchronization
				   * call returns (rp_hunt_thread_first_call) */
	bool ret_walk;            /* its breakpoint is at a return: a decision looks on
				   * from there in the caller (count.c, ret_walk_at) */
	/* Its clock reads' number, the next one's (inputs/in_clock.c: a logged value's key). */
	uint64_t clock_reads;
	/* Its counter was made to run out at its next counting point for a signal from
	 * outside (schedule/async.c): that overflow is async.c's, even if another thread
	 * took the signal meanwhile. */
	bool async_soon;
	void *(*fn)(void *);      /* what it runs (threads of rp_thread_create) */
	void *(*prog_fn)(void *); /* ... the program's function it calls (pthread_create's) */
	void *arg;
};
/* The running thread (the main thread before sched runs). */
extern struct rp_thread *rp_cur;
extern struct rp_thread rp_main_thread;
/* Where t's counter is while it is switched out. */
uint64_t *rp_thread_counter(struct rp_thread *t);

/* thread.c */
int rp_thread_create(struct sched_thread **out, const struct sched_thread_attr *attr,
		     void *(*fn)(void *), void *arg,
		     void *(*prog_fn)(void *));
void rp_threads_init(struct sched_hooks *h);
/* Final counts of every thread so far (exited ones and, for live ones, now; uc: the
 * signal that stopped the running thread, or NULL in our own code). */
size_t rp_thread_finals(struct rp_log_final *out, size_t max, const ucontext_t *uc);
/* The logical clock: the counts all the program's threads executed, summed; from our
 * code called by the program (its count published). */
uint64_t rp_logical_clock(void);
/* Set before sched_preempt from a signal handler: the interrupted context. */
extern ucontext_t *rp_preempt_uc;
/* Set before sched_preempt at a counting point that overflowed (rp_record_overflow):
 * a preemption, though not from a signal (the trace's reason). on_switch clears it. */
extern bool rp_preempt_at_count;
/* preempt.c: the running thread resumes from a preemption with its counter at
 * *counter: run the handlers of the signals other threads sent it meanwhile (they
 * count from *counter on), and leave the counter after them there. Set by the signals
 * layer when it queues its first signal; NULL before: nothing to deliver. */
extern void (*rp_resumed_hook)(uint64_t *counter);
/* Signals from outside the process (schedule/async.c, docs/inputs.md): one arrived
 * (rp_async_arrived) and waits for the point where it is delivered and logged. Read by
 * the counter's overflow and the switch, which make that point come soon. */
extern volatile sig_atomic_t rp_async_due;
/* Queue the signal si from outside for a thread of the program (the signals layer's
 * choice, the same in a replay), at a point the log names: running, true if the
 * running thread is at a counting point and may run handlers now (rp_resumed_hook
 * runs them after), false while every thread waits. Set by the signals layer when the
 * program installs a handler. */
extern void (*rp_async_hook)(const siginfo_t *si, bool running);
/* counter/thread.c: a signal from outside is due (recording): the running thread's
 * counter (*counter, in __sic_home or a signal frame) runs out at its next counting
 * point, its count unchanged (a thread switched in or resumed from a preemption). */
void rp_async_counter_soon(uint64_t *counter);

/* startup.c: a session's program sees argv, its strings, the environment and the
 * auxiliary vector at the same addresses in a recording and its replay: copied into
 * a block at a fixed address before its main (environ and program_invocation_name
 * too). rp_startup_auxv: an entry of that copy (false before it exists, or if the
 * kernel gave no such type). */
void rp_startup_place(int *argc, char ***argv, char ***envp);
bool rp_startup_auxv(unsigned long type, unsigned long *val);

/* layout.c: main.c's word on the address layout, before any constructor: err, the
 * errno of the personality() that could not turn ASLR off (0: none failed), and
 * whether the run is under valgrind (no re-exec). A replay reads its log now, and
 * refuses if the recording's addresses differ from this run's. */
void rp_layout_start(int err, bool under_valgrind);
/* tcache.c: right after rp_layout_start, before any constructor: a recording learns the
 * C library's malloc key, a replay sets its own to the recording's. */
void rp_tcache_start(void);
/* Run from a pack (replay-pack's launcher): give LD_LIBRARY_PATH back its value
 * before the pack's (objects.c); after the re-exec, before anything of the program
 * runs. (The pack's descriptors are closed once the session has started.) */
void rp_objects_pack_start(void);

/* sic_rt.S */
extern uint64_t __sic_home;
extern uint64_t *__sic_side_base, *__sic_side_top, *__sic_side_end;
/* Words per side-stack entry: {foreign r15, return address, slot, rbx} (sic_rt.S). */
#define RP_SIDE_WORDS 4
uint64_t rp_sic_call(void *fn, uint64_t a, uint64_t b, uint64_t c);

/* sic.c */
void rp_sic_init(void);
/* What a new thread's counter starts at (its count is then 0). */
uint64_t rp_sic_start_value(void);
/* Side stack for a new thread. */
#define RP_SIDE_ENTRIES_THREAD 256
uint64_t rp_sic_overflow_c(uintptr_t stub_ret);
/* sic_quick.c: the overflow when only the counter changes (0: the full path, which
 * saves the vector state). What it needs, set up by the full path's code. */
#define RP_WINDOW_BYTES 256 /* how far ahead a window is looked for */
enum { RP_SEEK_NONE, RP_SEEK_WINDOW, RP_SEEK_EXIT };
struct rp_sic_quick {
	uint64_t reload;        /* LIBREPLAY_SIC_STRESS */
	bool seeking;           /* the counting modes look on for windows */
	const uintptr_t *atomics, *repeats; /* sorted (sic.c) */
	size_t natomics, nrepeats;
};
extern struct rp_sic_quick rp_sic_quick;
uint64_t rp_sic_overflow_quick(uintptr_t stub_ret);
/* Where a counting point's stub that returns to ret resumes the program, or 0. */
uintptr_t rp_stub_resume_pc(uintptr_t ret);
/* Where the call that returns to ret goes: e8 rel32, or ff 15 disp32 through the GOT
 * (the slot's value); 0 if no such call ends at ret. */
uintptr_t rp_call_dest(uintptr_t ret);
/* sic.c: sort the memory access tables and hand them to the quick path. */
void rp_sic_memops_load(void);
/* sic.c: moves on when an instrumented shared object registers or goes (dlopen,
 * dlclose): what was found in the code at a pc (count.c's caches) may be another's. */
extern unsigned long rp_sic_code_gen;
/* sic.c: do [at, at + len) lie in the loaded object that holds pc (its segments' span;
 * known once the counting modes start)? */
bool rp_sic_same_object(uintptr_t pc, uintptr_t at, size_t len);
/* sic.c: where the innermost loop around pc is left (sicpp's sic_loops), or 0. */
uintptr_t rp_sic_loop_exit(uintptr_t pc);
/* The memory accesses (sicpp/hunt.c's tables: the executable's and its instrumented
 * shared objects', sic.c) of the kinds asked in
 * [from, to), at most max of them, in table order (any, atomic, repeated). */
enum { RP_MEMOP_ANY = 1, RP_MEMOP_ATOMIC = 2, RP_MEMOP_REPEAT = 4 };
size_t rp_sic_memops(uintptr_t from, uintptr_t to, unsigned kinds, uintptr_t *out, size_t max);
/* sic_rt.S's __sic_pause: a pause or a spin-wait's loop yields (count in __sic_home). */
void rp_sic_pause_c(void);
extern uint64_t rp_sic_pause_yields;
_Noreturn void rp_sic_side_overflow(void);
_Noreturn void rp_sic_side_corrupt(void);
bool rp_sic_pc_instrumented(uintptr_t pc);
bool rp_sic_count_at_home(uintptr_t pc, uint64_t r15);
bool rp_sic_pc_preemptible(uintptr_t pc);
extern uint64_t rp_sic_xsave_size;

/* replay.c sets it (core.c) */
extern bool rp_replaying;

/* count.c: preemptions by instruction count (--hunt, --chaos) rather than by a timer,
 * recording or not. */
extern bool rp_counting;
/* The counter of the running thread reached zero (counting modes, not replaying). */
uint64_t rp_count_overflow(uintptr_t stub_ret);
/* Load t's counter (at *counter) for its next preemption by count. */
void rp_count_arm(struct rp_thread *t, uint64_t *counter);
/* A switch from prev to next (thread.c's on_switch): prev's pending preemption goes. */
void rp_count_switched(struct rp_thread *prev, struct rp_thread *next);
/* A thread was created (thread.c): its slice, and its priority (--hunt). */
void rp_count_thread_created(struct sched_thread *st, struct rp_thread *t);
/* Replaying a --hunt log: the PRIORITY inputs of the running thread t due now. */
void rp_count_replay_priorities(struct rp_thread *t);
/* The main thread returned from main (main.c), or a thread called exit() (the pthread
 * layer's, pt_end.c): before the process ends, --hunt may let the other runnable
 * threads run first (logged as an EXIT_TURN input; the replay does the same). Asked
 * once a process: main's return, then its exit(), ask once. */
void rp_count_exit_turn(void);
/* sched's sleeper_turn hook (--hunt): at a preemption decided at a synchronization
 * step, wait for a sleeper whose turn comes first (logged as a SLEEPER_TURN input; the
 * replay does the same). */
bool rp_count_sleeper_turn(struct sched_thread *next, struct sched_thread *sleeper);
/* Start the preemptions of a run that is not a replay (session.c): the timer, or the
 * counts; the --timeout timer. */
void rp_count_start(void);
/* The pthread layer's synchronization calls (lock, unlock, wait, signal, post, create,
 * join...): ret is the call's return address. Steps of the hunting scheduler, which
 * may preempt the caller before the call acts, or right after it. */
extern bool rp_sync_watch;
void rp_sync_begin_slow(void *ret);
void rp_sync_end_slow(void *ret);
/* Most steps decide nothing: no change point falls on them and the call site does not
 * preempt at this visit (a hot lock loop's 4 steps an iteration, 10^7 of them). The
 * hunting scheduler says how many steps may pass before the next change point's
 * (rp_sync_quiet) and, per call site and side (a slot, hashed), how many visits before
 * its next preemption (rp_sync_sites); a step that passes only counts down both, here.
 * A step on which no other thread is runnable is none (as in the slow path), unless
 * one waits for a deadline (rp_sync_sleepers): a preemption there may wait for it
 * (rp_count_sleeper_turn); with priorities (rp_sync_wake), a step after a call that
 * woke a thread of a higher one is asked, as that thread runs at once. */
#define RP_SYNC_SITES_LOG2 10
extern uint32_t rp_sync_quiet, rp_sync_sites[1 << RP_SYNC_SITES_LOG2];
extern bool rp_sync_wake;
extern bool rp_sync_sleepers;
extern unsigned long rp_sync_gen; /* sched_runnable_gen when none outranked the thread */
extern uintptr_t rp_exe_base; /* (core.h) */
extern uintptr_t rp_exe_span;
/* sic.c: pc's offset in its object, which ASLR does not move (a library's told apart
 * from the executable's by its name). */
uint64_t rp_sic_pc_key(uintptr_t pc);
static inline unsigned rp_sync_slot(void *ret, int after)
{
	/* the call's offset in the executable, as the address moves with ASLR (--no-record
	 * keeps it), or in its library; a return address + 1 is none */
	uint64_t key = (uintptr_t)ret - rp_exe_base;
	if (__builtin_expect(key >= rp_exe_span, 0))
		key = rp_sic_pc_key((uintptr_t)ret);
	key += (unsigned)after;
	return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> (64 - RP_SYNC_SITES_LOG2));
}
/* Is a synchronization call a step: may another thread run after a preemption there?
 * One that is runnable, or one waiting for a deadline, which the preemption may wait
 * for (rp_count_sleeper_turn), as PCT's tools make a sleep a yield: a thread running
 * alone is preempted at its calls as if the sleeper were there. (Not at a slice's end:
 * in the middle of a computation a sleeper's poll finds nothing new, and each wait
 * costs its deadline: pbzip2's waits at its slices' ends made a 0.1 s run last 2.3 s.) */
static inline bool rp_sync_others_may_run(void)
{
	return sched_others_runnable() || (rp_sync_sleepers && sched_deadline_waiters());
}
static inline bool rp_sync_pass(void *ret, int after)
{
	uint32_t *left = &rp_sync_sites[rp_sync_slot(ret, after)];
	if (!*left || !rp_sync_quiet)
		return false;
	if (!rp_sync_others_may_run())
		return true; /* not a step */
	if (after && rp_sync_wake && rp_sync_gen != sched_runnable_gen)
		return false; /* asked: sched_preempt_wanted */
	(*left)--;
	rp_sync_quiet--;
	return true;
}
static inline void rp_sync_begin(void *ret)
{
	if (__builtin_expect(rp_sync_watch, 0) && !rp_sync_pass(ret, 0))
		rp_sync_begin_slow(ret);
}
static inline void rp_sync_end(void *ret)
{
	if (__builtin_expect(rp_sync_watch, 0) && !rp_sync_pass(ret, 1))
		rp_sync_end_slow(ret);
}

/* outcome.c: --timeout expired: the running thread stops where the replay can stop it
 * too; at an overflow, the instruction after it (rp_hang_overflow). Every thread
 * waiting for time or descriptors: the idle hooks end the run (rp_idle_hang_check,
 * also replaying: the log's END says the hang came then). */
extern volatile sig_atomic_t rp_hang_due;
uint64_t rp_hang_overflow(uintptr_t stub_ret);
void rp_idle_hang_check(void);
/* The run ends in a deadlock or a hang (how: RP_LOG_DEADLOCK, RP_LOG_HANG): log it (or
 * check the log says so), report it, stop a debugger there, exit 87 or 88. uc, count,
 * pc: where the running thread stopped (a hang), or NULL. */
_Noreturn void rp_outcome(int how, ucontext_t *uc, uint64_t count, uintptr_t pc);
/* Every thread's state (the waits-for graph of END), whether two are the same, and the
 * report of a deadlock or a hang (here: the running thread; uc: where it stopped, or
 * NULL). */
size_t rp_outcome_graph(struct rp_log_wait *w, size_t max);
bool rp_outcome_same(const struct rp_log_wait *a, size_t na, const struct rp_log_wait *b, size_t nb);
void rp_outcome_report(int how, const char *why, struct sched_thread *here, ucontext_t *uc);
/* audit.c: --syscall-audit, while recording: name the system calls made outside the
 * executable's code (glibc's own) that escape the recording, from here on. */
void rp_audit_start(void);
/* objname.c: a name for an address the reports mention ("lock_a", "locks+0x18"). */
const char *rp_objname(const void *p, char *buf, size_t len);
/* pc is in a stub of sicpp's ("fn.sic_stub.N"): "fn.sic_stub" in buf, else NULL; fn
 * is the function whose counting point jumped into a shared run, given r15 at pc
 * (NULL: unknown, the entry at or below pc). */
const char *rp_stub_function(uintptr_t pc, const uint64_t *r15, char *buf, size_t len);
/* The counter reached zero during replay, in the stub that returns to stub_ret: the
 * preemption logged where that counting point goes on is taken there; else the trap is
 * armed for the next record. Returns the new counter. */
uint64_t rp_replay_overflow(uintptr_t stub_ret);
/* record.c: the counter of a thread marked preempt_soon (or any thread, with
 * LIBREPLAY_SIC_STRESS=N,preempt) reached zero in the stub that returns to stub_ret:
 * preempt it there if that is useful; returns the new counter. */
uint64_t rp_record_overflow(uintptr_t stub_ret);
/* A thread is about to run: during replay, load its counter for its next record. */
void rp_replay_arm(struct rp_thread *t, uint64_t *counter);
/* A thread exits: during replay, check the log did not expect more of it. */
void rp_replay_thread_exit(struct rp_thread *t);
/* breakpoint.c: the program sets its SIGILL action while the replay's software trap
 * needs the signal: kept there (true, *old the previous one as the program knows
 * it); false when the trap does not need it (the program's action goes to the kernel). */
struct sigaction;
bool rp_bp_sigill_action(const struct sigaction *act, struct sigaction *old);
/* The software trap is in use: SIGILL must never be blocked in the kernel (a fault
 * on a blocked signal kills the process), whatever mask the program asks for. */
bool rp_bp_traps_sigill(void);
/* What a debugger shows of a replay (replay status, replay stop-at's checks): the
 * replay reads the log as it goes, so this is all of it there is in memory. */
#define RP_REPLAY_VIEW_VERSION 1
struct rp_replay_view {
	int version;
	uint64_t total;     /* records in the log (its blocks' headers) */
	uint64_t done;      /* records consumed */
	int lookahead;      /* next_preempt_* is kept (the replay started under a debugger) */
	uint64_t next_preempt_recno; /* the next PREEMPT record's number, 0 if none */
	uint32_t next_preempt_tid;
	uint64_t next_preempt_count, next_preempt_pc;
	int ended;          /* the log was cut short and has ended: a free run */
	int has_end;        /* its END record, read at start: */
	uint32_t nfinals;   /* every thread's final count */
	const struct rp_log_final *finals;
};
extern volatile struct rp_replay_view rp_replay_view;

/* trace.c: --trace-schedule, every switch (rp_trace_on once a trace is open). */
extern bool rp_trace_on;
void rp_trace_open(const char *path);
void rp_trace_switch(struct sched_thread *prev, struct sched_thread *next, uint64_t prev_count,
		     uint64_t next_count, bool preempted);
void rp_trace_flush(void); /* async-signal-safe */
/* The last line (why: "end", or the crash's signal name; uc: the crash's context, or
 * NULL), then flush and stop; async-signal-safe. */
void rp_trace_end(const char *why, const ucontext_t *uc);
/* The last line taken back (an exec that failed): the trace goes on, if its file can
 * be cut back there (not a pipe). */
void rp_trace_resume(void);
/* In a child of fork(): the parent's trace is neither written again nor added to. */
void rp_trace_forget(void);

/* crash.c: the crash report (load libunwind first, at session start). rp_crash ends
 * the schedule trace and prints the report; async-signal-safe. */
void rp_crash_init(void);
void rp_crash(int sig, const siginfo_t *si, ucontext_t *uc);
void rp_crash_report(int sig, const siginfo_t *si, ucontext_t *uc);
/* crash.c, for outcome.c's reports: a thread's header and backtrace (here: the one
 * making the report, from its own stack), more text, and out with it all. */
void rp_report_thread(struct sched_thread *st, const char *state, bool here, ucontext_t *here_uc);
void rp_report_line(const char *s);
void rp_report_flush(void);
/* session.c: the crash handler's last act: die of sig (its default action is back). */
void rp_crash_reraise(int sig);
/* debug.c: the debugger's requests (docs/gdb.md). */
#define RP_DEBUG_VERSION 6
#define RP_DEBUG_WATCHES 32 /* regions of bytes watched ... */
#define RP_DEBUG_WATCH 512  /* ... and their bytes in all */
#define RP_DEBUG_STOPS 64
struct rp_debug {
	int version;
	int nstops;          /* debugger: the stops[] in use are below this */
	struct rp_debug_stop {
		int tid;        /* debugger: stop when this thread (0: a free slot) ... */
		uint64_t count; /* ... reaches this count; the runtime frees the slot */
	} stops[RP_DEBUG_STOPS];
	int hit_tid;         /* runtime: the last stop taken */
	uint64_t hit_count;
	int step_tid;        /* debugger: this thread is being stepped: stop (in
			      * rp_debug_preempting) before it is preempted */
	int resume_tid;      /* debugger: stop (in rp_debug_resumed) when this thread,
			      * preempted, runs again; once */
	uint64_t switches;    /* runtime: switches between threads so far ... */
	uint64_t preemptions; /* ... and how many of them were preemptions */
	/* Going back in time (checkpoints, docs/gdb.md). */
	uint64_t stop_time;  /* debugger: stop when the time (the sum of every thread's
			      * count) reaches this (0: none) */
	uint64_t tick_every; /* debugger: a counter overflows at least every this many
			      * counts of a thread (0: off) ... */
	uint64_t ckpt_ns;    /* ... and stops in rp_debug_checkpoint once this much
			      * replay CPU time has passed since the last stop there */
	uint64_t replay_ns;  /* runtime: CPU time the replay has run, as of the last tick */
	uint64_t ckpt_at_ns; /* runtime: replay_ns at the last stop in rp_debug_checkpoint */
	uint64_t clock_ns;   /* runtime: this process's CPU clock at the last tick */
	int checkpointing;   /* debugger: fork() is a checkpoint (a bare fork system call) */
	int outside_fd;      /* runtime: a pipe read here whose other end is another
			      * process's (-1: none), as of the last checkpoint */
	int quiet;           /* debugger: replaying again what was seen (going back): a
			      * deadlock or hang reached prints no report */
	int clock_on;        /* debugger: ticks by CPU time too (rp_debug_clock_start):
			      * a replay whose counts come too seldom for checkpoints */
	/* Who changed these bytes last (the extension's `replay last-write`, and its
	 * watchpoints without debug registers): compared at every counting point that
	 * reaches the runtime and at every switch. */
	int watch_n;          /* debugger: the regions watched (0: none) ... */
	struct rp_debug_watch {
		uint64_t addr;
		int len;      /* their bytes lie one region after another in watch_val */
	} watches[RP_DEBUG_WATCHES];
	uint64_t watch_every; /* ... and a counter overflows at least every this many
			       * counts of a thread while they are (0: no more often) */
	unsigned char watch_val[RP_DEBUG_WATCH]; /* debugger, then runtime: their value
						  * at the last comparison */
	uint64_t watch_changes; /* runtime: changes seen so far; the last one: */
	int watch_tid;        /* the thread that ran ... */
	uint64_t watch_from;  /* ... from this count (a comparison saw the old value) ... */
	uint64_t watch_to;    /* ... to this one (the next saw the new) ... */
	uint32_t watch_which; /* ... and the regions that changed (bit i: watches[i]) */
	int watch_stop;       /* debugger: stop (rp_debug_stopped, hit_tid and hit_count
			       * set) at the comparison that sees a change */
	int seen_tid;         /* runtime: the running thread and its count at the last */
	uint64_t seen_count;  /* comparison or switch */
};
extern volatile struct rp_debug rp_debug;
/* Counts left before t's counter next reaches zero: no further than its nearest
 * requested stop. */
uint64_t rp_debug_clip(int tid, uint64_t now, uint64_t left);
/* The running thread's counter reached zero at count now: stop there if asked. */
void rp_debug_check(int tid, uint64_t now);
void rp_debug_stopped(void);
/* The replay reached the end of a log cut short: the debugger stops here once. */
void rp_debug_log_end(void);
/* A preemption of the running thread (a tick, the replay's trap), just before the
 * switch and just after it runs again: the debugger's stops, if asked. */
void rp_debug_preempt_begin(int tid);
void rp_debug_preempt_end(int tid);
/* The debugger restored a checkpoint (a forked copy of the replay): its CPU clock
 * starts again, the replay's hardware breakpoint, which belonged to the process it
 * was forked from, is opened again in this one (0, or -errno), and its descriptors
 * get back the file status flags they had when it was forked. */
int rp_debug_restored(void);
/* Ticks by CPU time too, for threads that count slowly: at the replay's start and
 * in a restored checkpoint when the debugger has set clock_on, or called by it. */
void rp_debug_clock_start(void);
/* ... and no more (a replay past the end of a log cut short: SIGPROF is the time
 * slice's). */
void rp_debug_clock_stop(void);
void rp_debug_checkpoint(void);
/* Before forking a checkpoint: its descriptors' file status flags noted (debug.c). */
void rp_debug_forking(void);
/* After forking a checkpoint, in the live process: pipes of its own (debug.c). */
void rp_debug_forked(void);
/* Told each pipe moved so, by its old and new inode (the io layer knows the pipes
 * the program made by inode: io_rw.c); NULL: nobody asked. */
extern void (*rp_debug_pipe_moved)(unsigned long from, unsigned long to);
/* Is fd a descriptor whose reads come from the log (the inputs layer's world:
 * in_world.c)? Then a checkpoint need not copy it, and going back past a read of it
 * reads the same bytes again. NULL: none is. */
extern bool (*rp_debug_fd_logged)(int fd);
/* thread.c: the sum of the counts of every thread but tid (exited ones included). */
uint64_t rp_thread_counts_but(int tid);
/* A switch to next (a preemption of the thread before it, or not): what the debugger
 * reads to say which threads ran while the program was resumed. */
void rp_debug_switched(struct rp_thread *prev, uint64_t prev_count, struct rp_thread *next,
		       bool preempted);
/* The run ends in a deadlock or a hang: a debugger stops here first. */
void rp_debug_outcome(int how);
/* replay.c: "libreplay: replay diverged: ..." and exit RP_EXIT_DIVERGED. */
_Noreturn void rp_diverge(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- races/ (--races, docs/races.md) ------------------------------------------------- */

/* The race detector of a replay by the race build: happens-before from the pthread
 * layer's synchronization. RP_RACE_SYNC costs a test when it is off. */
extern bool rp_races_on;
enum { RP_RACE_ACQUIRE = 1, RP_RACE_RELEASE = 2, RP_RACE_LOCKED = 4, RP_RACE_UNLOCKED = 8 };
void rp_race_sync(const void *obj, int how);
#define RP_RACE_SYNC(obj, how)                          \
	do {                                            \
		if (rp_races_on)                        \
			rp_race_sync((const void *)(uintptr_t)(obj), (how)); \
	} while (0)
/* The running thread made thread child (which has not run yet); joined it (exited). */
void rp_race_thread_created(int child);
void rp_race_thread_joined(int child);
/* races_report.c: the session's start (a replay with --races) and end. */
void rp_races_start(void);
void rp_races_end(void);

#endif
