/* core.h: what the engine's session files share: session.c (starting and ending a
 * session), record.c (the time slice and what is logged), replay.c (the log read back
 * and each preemption reached), decide.c (the scheduler's time-dependent decisions),
 * input_log.c (what recorded calls returned) and preempt.c (switching away from a
 * signal handler). Private to libreplay/engine/; other layers use engine.h and
 * session.h. */
#ifndef RP_CORE_H
#define RP_CORE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "engine/engine.h"
#include "engine/session.h"

struct perf_event_attr;

/* ---- core/core.c: what every room shares ------------------------------------------------ */

/* The session starts (rp_session_start, first): the load address, the clock. */
void rp_core_start(void);

/* The executable's load address: PREEMPT records hold PCs relative to it. */
extern uintptr_t rp_exe_base;
/* rp_session_start ran: main is about to run (recorded inputs before it are early). */
extern bool rp_session_started;
/* Set once the program is dying of a signal: the crash handler's own calls (libunwind
 * reads getpid, for one) are not the program's, so they are neither recorded nor
 * replayed; and a tick before the timer stops is not a preemption. */
extern volatile sig_atomic_t rp_dying;

/* perf_event_open(2) for this thread, any CPU: a descriptor, or -1 with errno set. */
int rp_perf_event_open(struct perf_event_attr *a);
/* fd's events are signalled as sig to this kernel thread: 0, or -1. */
int rp_route_signal(int fd, int sig);
/* The runtime's own clock reads, in ns: the system call, not the program's (recorded)
 * clock_gettime; async-signal-safe. */
uint64_t rp_clock_ns(clockid_t clk);
uint64_t rp_mono_ns(void);
/* A handler of the runtime's own (SA_SIGINFO | SA_RESTART | flags, rp_sigaction). */
void rp_install_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags);

static inline uintptr_t rp_pc_of(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* ---- core/logdir.c: where recordings go by default ------------------------------------- */

/* A new log of this program in the recording directory (made if missing): PROG-N.bin,
 * PROG-latest pointing to it, the oldest beyond LIBREPLAY_KEEP removed. Its descriptor
 * (rp_log_open_target's: new, 0600, locked), its path in *path; exits with a one-line
 * error where there is no directory to be had. */
int rp_logdir_new(const char **path);
/* --replay without a file: the path of this program's latest recording; exits with a
 * one-line error where there is none. */
const char *rp_logdir_latest(void);

/* ---- record.c----------------------------------------------------------------------- */

/* Recording: the log being written; NULL otherwise. */
extern struct rp_log_writer *rp_writer;
/* This process makes the scheduling decisions (recording, or --no-record): the time
 * slice or the counts (count.c) preempt; rp_writer says whether they are logged. */
extern bool rp_scheduling;
/* A replay past the end of a log cut short: time slices as in a recording, unlogged. */
void rp_record_free_run(void);
/* Create the log, write what constructors recorded. */
void rp_record_start(int argc, char **argv);
/* Start preempting (recording or --no-record): the time slice, unless counting. */
void rp_record_schedule(void);
/* uc stopped t at a counting point's branch: make its next counting point overflow
 * (false: not there, nothing done). */
bool rp_overflow_soon(struct rp_thread *t, ucontext_t *uc);
/* async.c: t overflows at its next counting point, wherever uc interrupted it
 * (foreign: in code not built with sicc too); false where it cannot be arranged. */
bool rp_overflow_next(struct rp_thread *t, ucontext_t *uc, bool foreign);
/* A preemption of t at (count, pc) taken: its PREEMPT record, if there is a log. */
void rp_record_preempt(struct rp_thread *t, uint64_t count, uintptr_t pc);
/* The program ends (uc: the fatal signal's context, or NULL): the END record. */
void rp_record_end(int how, int value, const ucontext_t *uc);
/* ... in a deadlock or a hang (how), value its exit status: END with the threads'
 * states o. */
void rp_record_outcome(int how, int value, const ucontext_t *uc, const struct rp_log_outcome *o);
/* A signal from outside ends the recording (uc: where it interrupted): a SIGNAL_STOP
 * input saying where, for the replay to stop there. */
void rp_record_signal_stop(int sig, const ucontext_t *uc);
/* At exit: the log written and closed; a write that failed is said again. */
void rp_record_close(void);
/* The scheduler idles: every thread waits (rp_idle_begin/end). */
extern volatile sig_atomic_t rp_idling;
void rp_record_stop_timer(void);
/* ... and on again (the time slice of a recording that goes on after an exec failed). */
void rp_record_resume_timer(void);
/* An END that may be taken back (an exec's): rp_log_mark, rp_log_rewind on the log
 * being written; false where that failed (said). */
bool rp_record_mark(void);
bool rp_record_rewind(void);
/* In a child of fork: no timer, and the parent's log is left alone. */
void rp_record_forget(void);

/* ---- replay.c ------------------------------------------------------------------------------ */

/* The next record that decides something (TIMESTAMPs skipped), or NULL past the end
 * (said once, for a log cut short). rp_replay_next consumes it; rp_replay_recno is
 * its number, from 1, for messages. */
const struct rp_log_record *rp_replay_peek(void);
void rp_replay_next(void);
size_t rp_replay_recno(void);
/* Replaying, past the end of a log cut short (or not replaying): no log decides. */
bool rp_replay_run_free(void);
/* The running thread's counter, armed again for the record now next. */
void rp_replay_rearm_running(void);
/* Open the log, check it is this program's and read it (once; a constructor's
 * recorded input may do it before main). */
void rp_replay_load_log(void);
bool rp_replay_log_loaded(void);
/* The log was cut short (a crash, SIGKILL) and has no record left: a replay runs free
 * from here (replay.md), before main too. */
bool rp_replay_log_cut_here(void);
/* The recorded arguments in place of the command line's; the breakpoint; the trap. */
void rp_replay_start(int *argc, char ***argv);
/* The program ends as the recording did, or the replay has diverged. */
void rp_replay_check_end(int how, int value, const ucontext_t *uc);
/* ... in the same deadlock or hang (how), every thread in the same state o. */
void rp_replay_check_outcome(int how, const ucontext_t *uc, const struct rp_log_outcome *o);
/* The log being replayed was recorded with --hunt: it holds PRIORITY inputs. */
extern bool rp_log_hunted;
/* In a child of fork: not what the log describes. */
void rp_replay_forget(void);
/* For messages: what a record says, in words (r NULL: the end of the log). */
const char *rp_replay_describe(const struct rp_log_record *r, char *buf, size_t len);
/* Every thread waits: if the next record says a signal from outside ended the
 * recording while they did, the replay ends there too (dies of it). */
void rp_replay_idle_stop(void);
/* The log holds a signal from outside (ASYNC_SIGNAL): refuse it, one line, exit 2. */
_Noreturn void rp_replay_refuse_async(const struct rp_log_record *r);

/* Where a SIGNAL_STOP input says the recording's thread stood (session.h). */
enum rp_stop_where { RP_STOP_NOWHERE, RP_STOP_IDLE, RP_STOP_COUNT, RP_STOP_EXACT };
#define RP_SIGNAL_STOP_LEN 21 /* i32 signal, u8 where, u64 count, u64 pc */
/* The process dies of sig, its default action restored (the end of on_ending; core.c). */
_Noreturn void rp_session_die_of(int sig);

/* The breakpoint's trap: the replay's preemption (or a divergence); while not
 * replaying, rp_count_trap's. */
void rp_bp_hit(int sig, siginfo_t *si, void *uc);

/* ---- breakpoint.c: the stop at one pc (one, this kernel thread's) -------------------------- */

/* Open it, the replay's and the counting recordings': hardware if this machine's
 * debug registers are seen to fire (and --breakpoints allows), else the software
 * trap byte. True once open (--breakpoints=hardware where it does not work: one line,
 * exit RP_EXIT_USAGE). */
bool rp_bp_open(void);
bool rp_bp_ready(void);
enum rp_bp_kind rp_bp_kind(void);
extern enum rp_bp_kind rp_bp_mode; /* the same, for gdb's extension */
/* Why the kind taken is not the hardware one ("" if it is). */
const char *rp_bp_why(void);
/* How it stops: "debug register", "/proc/self/mem" or "mprotect" (the trap byte's
 * writes), "none" before rp_bp_open (replay-doctor says it). */
const char *rp_bp_how(void);
/* Arm at pc: 0, or -1 with errno (an address that is none); rp_bp_arm dies on that. */
int rp_bp_try_arm(uintptr_t pc);
void rp_bp_arm(uintptr_t pc);
void rp_bp_disarm(void);
/* Where it is armed (0: nowhere). */
uintptr_t rp_bp_armed_pc(void);
struct rp_bp_trap {
	uintptr_t pc;               /* armed here (0: nowhere) */
	unsigned char saved;        /* software: the byte the trap byte replaced */
	unsigned char under_debugger; /* software: a gdb breakpoint's int3 was there */
};
extern struct rp_bp_trap rp_bp_trap; /* for gdb's extension */
/* In a checkpoint the debugger restored: this process's own breakpoint, armed as it
 * was (0, or -errno). */
int rp_bp_reopen(void);
/* In a child of fork(): no breakpoint, the code as it was. */
void rp_bp_forget(void);

/* What a lower room asks of a higher one (engine/README.md, "Rooms"): the session
 * room (rp_session_start, before it starts anything) fills it with the higher rooms'
 * functions, so no room calls a room above it by name (tests/layers/run.sh). */
struct rp_log_wait;
struct rp_room_hooks {
	/* counter/sic.c: a counter ran out, in the stub that returns to stub_ret: the
	 * room that drives this run's preemptions (schedule/, ending/, hunt/) */
	uint64_t (*replay_overflow)(uintptr_t stub_ret);
	uint64_t (*hang_overflow)(uintptr_t stub_ret);
	uint64_t (*count_overflow)(uintptr_t stub_ret);
	uint64_t (*record_overflow)(uintptr_t stub_ret);
	uint64_t (*async_overflow)(uintptr_t stub_ret); /* a signal from outside is due */
	/* counter/thread.c: a thread made, ended, switched to (its counter loaded again) */
	void (*count_thread_created)(struct sched_thread *st, struct rp_thread *t);
	void (*replay_thread_exit)(struct rp_thread *t);
	void (*count_switched)(struct rp_thread *prev, struct rp_thread *next);
	void (*replay_arm)(struct rp_thread *t, uint64_t *counter);
	void (*count_arm)(struct rp_thread *t, uint64_t *counter);
	void (*debug_switched)(struct rp_thread *prev, uint64_t prev_count,
			       struct rp_thread *next, bool preempted);
	/* schedule/: the run ends in a deadlock or a hang (ending/); a recording's trap
	 * and a hunted log's priorities (hunt/) */
	void (*outcome)(int how, ucontext_t *uc, uint64_t count, uintptr_t pc); /* no return */
	bool (*outcome_same)(const struct rp_log_wait *a, size_t na, const struct rp_log_wait *b,
			     size_t nb);
	void (*idle_hang_check)(void);
	void (*count_trap)(ucontext_t *uc, int sig);
	void (*count_replay_priorities)(struct rp_thread *t);
};
extern struct rp_room_hooks rp_up;

/* session.c: the fatal-signal handler (END, the crash report, the signal again), for
 * a SIGILL that is not the trap byte's; SIGILL's action must be SIG_DFL already.
 * breakpoint.c reaches it through rp_session_fatal_hook (core.c), which
 * rp_session_start sets first: the session room is above the schedule's. */
void rp_session_fatal(int sig, siginfo_t *si, void *uc);
extern void (*rp_session_fatal_hook)(int sig, siginfo_t *si, void *uc);

/* ---- count.c, outcome.c ------------------------------------------------------------------ */

/* The breakpoint's trap while not replaying: a counting decision's memory access or
 * loop end, or the place a hang stops. */
void rp_count_trap(ucontext_t *uc, int sig);
/* --timeout: start its timer (recording or not). */
void rp_hang_start(uint64_t ns);
void rp_hang_stop(void);
/* The hang's breakpoint: where rp_hang_overflow stopped the running thread. */
extern uintptr_t rp_hang_pc;

/* ---- preempt.c ------------------------------------------------------------------------------- */

/* Switch away from a signal handler (a tick, the replay's trap) with the interrupted
 * context uc; the thread resumes here, returns, and sigreturn puts it back. */
void rp_preempt_from_signal(ucontext_t *uc, int sig);

/* ---- decide.c ---------------------------------------------------------------------------------- */

/* The scheduler hooks for time: the clock of a sleep, deadlines, idling, deadlock. */
void rp_decide_hooks(struct sched_hooks *h);

/* ---- input_log.c ------------------------------------------------------------------------------- */

/* Recording: log the inputs constructors recorded before the session. */
void rp_input_log_early(void);
/* For messages: which call an INPUT kind records. */
const char *rp_input_name(uint8_t kind);

/* ---- async.c: signals from outside ------------------------------------------------------ */

/* Recording with a signal from outside due: the running thread's counter ran out at a
 * counting point (the stub returns to stub_ret); deliver there if a replay can stop
 * there, log it, and return the counter it goes on with. */
uint64_t rp_async_overflow(uintptr_t stub_ret);
/* The time slice's tick interrupted the running thread at uc (record.c): if a signal
 * from outside is due, its next counting point delivers it, also from foreign code. */
void rp_async_tick(ucontext_t *uc);
/* sched's idle_outside hook (decide.c installs it). */
bool rp_async_idle_outside(void);
/* decide.c: the scheduler's questions asked so far (the next one's position). */
uint64_t rp_questions_asked(void);
/* replay.c: every thread blocked, some waiting for a signal: true if the next record
 * delivers one here (it is delivered), false if not (a deadlock, or a divergence). */
bool rp_replay_async_idle(void);
/* Is r a SIGNAL_AT delivered while every thread waited? Then its question position. */
bool rp_replay_signal_idle_pos(const struct rp_log_record *r, uint64_t *pos);

/* ---- context.c ----------------------------------------------------------------------------- */

/* Recording: note what a replay needs to match (a CONTEXT input). */
void rp_context_record(void);
/* Replaying: compare the recorded note with now, and warn in one line if they differ. */
void rp_context_check(const void *recorded, size_t len);
/* What differs ("" if nothing), for divergence messages. */
const char *rp_context_differences(void);

/* ---- objects.c ----------------------------------------------------------------------------- */

/* Recording: note the executable, loader and libraries loaded (an OBJECTS input): at
 * the start, and again once the session has loaded its own (session.c). */
void rp_objects_record(void);
/* Replaying: compare this run's with it; refuse (exit 2) where a loader or library
 * differs by build-id or is missing or new, unless --any-libraries (a warning). */
void rp_objects_check(const void *recorded, size_t len);
/* The session has loaded its own objects (rp_crash_init's libunwind): a note taken
 * then is checked now, or when read; a pack's descriptors are closed. */
void rp_objects_started(void);

/* ---- layout.c ------------------------------------------------------------------------------ */

/* Recording: note the address layout (a LAYOUT input). */
void rp_layout_record(void);
/* Replaying: compare this run's with it; refuse (exit 2) where they differ, unless
 * --any-layout (then a warning, and rp_layout_differences names it). */
void rp_layout_check(const void *recorded, size_t len);
const char *rp_layout_differences(void);

/* ---- core/elf.c ----------------------------------------------------------------------------- */

/* Each section header of the 64-bit ELF file at path, with its name, to fn (shdr an
 * Elf64_Shdr; fd the file, open) until fn returns true; false if the file cannot be
 * read as one. Raw system calls: the program's descriptors stay as they were. */
bool rp_elf_sections(const char *path, bool (*fn)(const char *name, const void *shdr, int fd, void *arg),
		     void *arg);
/* The contents of section name of the ELF file at path (rp_malloc'd, *len its size). */
void *rp_elf_section(const char *path, const char *name, size_t *len);

/* ---- core/addr2line.c ------------------------------------------------------------------------ */

/* Runs /usr/bin/addr2line with argv (argv[0] "addr2line", then its flags, -e and the
 * executable, the pcs) in the C locale, forked by the system call, and reads what it
 * writes into buf, NUL-terminated (at most len - 1 bytes), until it ends. Returns the
 * bytes read: 0 where it could not run (not installed). System calls only, nothing
 * allocated: the crash handler calls it. */
size_t rp_addr2line(char *const argv[], char *buf, size_t len);

/* ---- tcache.c ------------------------------------------------------------------------------ */

/* Recording: log the malloc key rp_tcache_start learned (a TCACHE input). */
void rp_tcache_record(void);
/* Replaying: the log's TCACHE record, read with its first records. */
void rp_tcache_note(const void *recorded, size_t len);

/* ---- anchors.c ----------------------------------------------------------------------------- */

/* --races: the recorded build's pcs mapped to this race build's (sicpp/races.c). */
extern bool rp_anchors_on;
/* Load the recorded executable's anchors and this one's; -1 and why if they differ. */
int rp_anchors_load(const char *recorded, char *why, size_t whylen);
/* Once, from --races=EXE or the log's OBJECTS note (NULL: none came), or exit 2. */
void rp_anchors_need(const void *note, size_t len);
/* Offsets from the load base: the recording's to this build's, and back. */
uint64_t rp_anchors_map(uint64_t off);
uint64_t rp_anchors_unmap(uint64_t off);
/* A record's pcs (PREEMPT, END's stop, SIGNAL_AT, SIGNAL_STOP), rewritten in place. */
void rp_anchors_map_record(struct rp_log_record *r);

#endif
