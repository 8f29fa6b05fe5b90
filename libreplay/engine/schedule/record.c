/*
 * record.c: recording the schedule (paper 002, section 3). A CPU-time timer (SIGPROF)
 * ends the time slice. If the interrupted PC is one where the replay can reproduce the
 * state (rp_sic_pc_preemptible), the handler logs a PREEMPT record (thread, count, pc)
 * and preempts; otherwise the tick is deferred: to the thread's next counting point
 * when it is in foreign code or at a counting point's branch, else to a tick soon after
 * (retry_tick). With --hunt or --chaos the counts
 * decide instead (count.c), and without a log (--no-record) the same preemptions are
 * taken, only not logged. The other time-dependent decisions
 * (a deadline found expired, the clock read for a sleep) are logged by decide.c,
 * recorded calls' results by input_log.c. Blocking switches are not logged.
 */
#include "engine/core.h"
#include "base/rp_alloc.h"
#include "base/rp_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

struct rp_log_writer *rp_writer;
bool rp_scheduling;

static uint64_t deferred_ticks, taken_ticks;

/* The time slice is CPU time. ITIMER_PROF only has the kernel tick's resolution
 * (1-4 ms), so it is the fallback: the task clock of perf_event_open is exact to
 * the microsecond. Both raise SIGPROF. */
static int tick_fd = -1;

/* The runtime's timer and handlers by system call (handlers: rp_sigaction): the
 * program's setitimer and sigaction (sig_action.c) refuse SIGPROF. */
static void prof_timer(const struct itimerval *it)
{
	rp_raw_syscall(SYS_setitimer, ITIMER_PROF, (long)it, 0, 0, 0, 0);
}

static void arm_timer(uint64_t ns)
{
	if (tick_fd >= 0) {
		/* the runtime's own call: never the C library's, which --syscall-audit
		 * would name as the program's (audit.c) */
		rp_syscall(SYS_ioctl, tick_fd, PERF_EVENT_IOC_PERIOD, &ns);
		return;
	}
	struct itimerval it = {{0, 0}, {(time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000)}};
	if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	prof_timer(&it);
}

void rp_record_stop_timer(void)
{
	if (tick_fd >= 0)
		rp_syscall(SYS_ioctl, tick_fd, PERF_EVENT_IOC_DISABLE, 0);
	struct itimerval off = {{0, 0}, {0, 0}};
	prof_timer(&off);
}

void rp_record_resume_timer(void)
{
	if (!rp_scheduling || rp_counting)
		return; /* no time slice (rp_record_schedule) */
	if (tick_fd >= 0)
		rp_syscall(SYS_ioctl, tick_fd, PERF_EVENT_IOC_ENABLE, 0);
	arm_timer(rp_opts.quantum_ns);
}

static void start_timer(uint64_t ns)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = ns;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	tick_fd = rp_fd_own(rp_perf_event_open(&a));
	if (tick_fd >= 0 && rp_route_signal(tick_fd, SIGPROF) != 0) {
		rp_fd_close(tick_fd);
		tick_fd = -1;
	}
	if (tick_fd < 0)
		arm_timer(ns);
}

/* A TIMESTAMP at the start, at the first preemption after each RP_STAMP_INTERVAL_NS
 * and at the end: what tools need for rates (10.7 bytes each, so ~11 bytes a second). */
#define RP_STAMP_INTERVAL_NS 1000000000ull

static uint64_t last_stamp_ns;

static void log_timestamp(uint64_t now)
{
	last_stamp_ns = now;
	if (rp_writer)
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_TIMESTAMP, &now, sizeof now);
}

void rp_record_preempt(struct rp_thread *t, uint64_t count, uintptr_t pc)
{
	taken_ticks++;
	if (!rp_writer)
		return;
	rp_log_preempt(rp_writer, (uint32_t)t->tid, count, pc - rp_exe_base);
	uint64_t now = rp_mono_ns();
	if (now - last_stamp_ns >= RP_STAMP_INTERVAL_NS)
		log_timestamp(now);
	rp_log_maybe_flush(rp_writer, now);
}

/* A tick in foreign code (libc, zlib, ...) cannot preempt there: %r15 is not the
 * counter and the PC is not reproducible. It makes the thread preempt at its next
 * counting point instead, or a thread that spends its time in a library would never
 * be preempted: the count it published before the foreign call (__sic_home, which
 * the instrumented code reloads when the call returns) becomes 1, the offset moves so
 * that its count stays the same, and the next counting point overflows
 * (rp_record_overflow). Only where the count is in __sic_home: outside the
 * executable, or in the runtime's own code (part of the executable) during a call out
 * of instrumented code, which leaves the token in r15 (callee-saved: the runtime gives
 * it back before returning; its signal return, the overflow path and its handlers
 * never have it there); not while the thread is inside one of its own preemptions
 * (its tick_depth: the count is in the signal frame then, and on_tick calls the vDSO),
 * and not while the scheduler runs. A loop of time() or of uncontended lock/unlock
 * spends most of its time in the runtime: without the token rule it was never
 * preempted. The way back from a signal handler is the runtime's own restorer
 * (rp_sigaction), in the executable: a tick there once found a stale __sic_home and
 * moved the thread's count by 3 * 2^62. Nor in a shared object's stub run, where r15
 * is the counter (rp_sic_count_at_home). */

static void preempt_at_next_count(struct rp_thread *t, uintptr_t pc, uint64_t r15)
{
	if (t->preempt_soon || !rp_sic_count_at_home(pc, r15) || __sic_home <= 1)
		return;
	/* Foreign code the scheduler called (munmap of a dead thread's stack, say) may run
	 * half way through a switch: rp_cur and __sic_home are the next thread's already,
	 * whose counter may be in a signal frame, not in __sic_home. */
	if (sched_busy())
		return;
	t->offset -= __sic_home - 1;
	__sic_home = 1;
	t->preempt_soon = true;
}

/* At a steady quantum of 1 ms or more (not chaos), a tick that strikes instrumented
 * code preempts at the next count that is a multiple of RP_PREEMPT_ALIGN, through the
 * overflow path (rp_record_overflow), instead of where it struck: a few microseconds
 * later, at a counting point. The log codes such counts in 12 fewer bits (the per-slice
 * jitter of ~0.7 % of a slice's count is what the count of an exact tick costs:
 * docs/log-format.md), so a CPU-bound program's log at the default 10 ms quantum
 * stays under 300 bytes a second. Short and random quanta keep preempting exactly
 * where the tick strikes, which is what hunting for races wants. */
#define RP_PREEMPT_ALIGN 4096u

static bool align_ticks(void)
{
	return !rp_opts.chaos && rp_opts.quantum_ns >= 1000000;
}

/* The counter in the signal frame runs out at the next aligned count. The tick may
 * strike right after the count was published for a call or a return (`movq %r15,
 * __sic_home`, then the token): the reload after that call must find the new counter,
 * so a __sic_home equal to r15 moves with it (an older, different value is never
 * reloaded: every reload follows a publish). */
static void preempt_at_aligned_count(struct rp_thread *t, ucontext_t *uc)
{
	uint64_t r15 = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	uint64_t count = t->offset - r15;
	uint64_t d = RP_PREEMPT_ALIGN - count % RP_PREEMPT_ALIGN;
	if (d < r15) {
		uc->uc_mcontext.gregs[REG_R15] = (greg_t)d;
		if (__sic_home == r15)
			__sic_home = d;
		t->offset = count + d;
	}
	t->preempt_soon = true;
}

/* The interrupted context uc stopped at a counting point's branch (dec %r15; je stub),
 * where the flags are live and it cannot be preempted: a tight loop (for (;;);, a spin
 * on a flag) is interrupted there nearly every time, as the instruction after the
 * decrement retires with it. %r15 is surely the counter there: it becomes 1 (0: the
 * branch goes to the overflow already), the offset moves so that the count stays the
 * same, and the next counting point overflows. */
bool rp_overflow_soon(struct rp_thread *t, ucontext_t *uc)
{
	static const unsigned char dec_r15[] = {0x49, 0xff, 0xcf};
	const unsigned char *p = (const unsigned char *)rp_pc_of(uc);
	if (!rp_sic_pc_instrumented((uintptr_t)p) || memcmp(p - 3, dec_r15, 3) != 0 ||
	    p[0] != 0x0f || p[1] != 0x84)
		return false;
	uint64_t *r15 = (uint64_t *)&uc->uc_mcontext.gregs[REG_R15];
	if (*r15 > 1) {
		t->offset -= *r15 - 1;
		*r15 = 1;
	}
	return true;
}

/* A tick that could neither end the slice nor arrange for its end (it struck the
 * scheduler's own code, sched_busy, or a thread inside its own preemption, or code
 * where the count is not in __sic_home) is tried again an eighth of a quantum of CPU
 * time later, not a whole quantum later. A loop of uncontended lock/unlock spends
 * about half its time in the scheduler: without the retry about half its ticks were
 * lost (1-3 of a 40 ms loop's 4 at the default quantum) and its slices ran for two
 * quanta on average. */
static bool tick_retrying;

static void retry_tick(struct rp_thread *t)
{
	if (t->preempt_soon || tick_retrying)
		return;
	uint64_t ns = rp_opts.quantum_ns / 8;
	tick_retrying = true;
	arm_timer(ns < RP_MIN_QUANTUM_NS ? RP_MIN_QUANTUM_NS : ns);
}

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (rp_dying)
		return;
	if (rp_audit_lapsed) /* --syscall-audit let a clone run natively (audit.c): back on */
		rp_audit_release(rp_audit_hold());
	if (tick_fd < 0 || tick_retrying)
		arm_timer(rp_opts.quantum_ns);
	tick_retrying = false;
	uintptr_t pc = rp_pc_of(uc);
	struct rp_thread *t = rp_cur;
	rp_async_tick(uc); /* a signal from outside due: soon, wherever the thread is */
	if (!rp_scheduling || t->tid == 0 || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful()) {
		if (rp_scheduling && t->tid != 0 && !t->tick_depth && sched_preempt_useful() &&
		    !sched_busy()) {
			if (!rp_sic_pc_instrumented(pc))
				preempt_at_next_count(t, pc, (uint64_t)uc->uc_mcontext.gregs[REG_R15]);
			else if (rp_overflow_soon(t, uc))
				t->preempt_soon = true;
		}
		if (rp_scheduling && t->tid != 0 && sched_preempt_useful())
			retry_tick(t);
		if (rp_writer) /* records of a thread that runs alone are written too */
			rp_log_maybe_flush(rp_writer, rp_mono_ns());
		deferred_ticks++;
		errno = saved;
		return;
	}
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	if (t->resumed_from_signal && count == t->resume_count && pc == t->resume_pc) {
		deferred_ticks++; /* no progress since it resumed: same (count, pc) twice */
		errno = saved;
		return;
	}
	if (align_ticks()) {
		if (!t->preempt_soon)
			preempt_at_aligned_count(t, uc);
		errno = saved;
		return;
	}
	t->tick_depth++;
	rp_record_preempt(t, count, pc);
	rp_preempt_from_signal(uc, sig);
	t->tick_depth--;
	errno = saved;
}

uint64_t rp_record_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	/* Inside its own preemption from here on: the counter is 0 and __sic_home stale,
	 * so a tick in the C library this calls (bsearch, memcmp, the vDSO's clock) must
	 * not be deferred through __sic_home (preempt_at_next_count). */
	t->tick_depth++;
	t->preempt_soon = false;
	uint64_t count = t->offset; /* the counter is 0 */
	uint64_t fresh = rp_sic_start_value();
	t->offset = count + fresh;
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	if (rp_scheduling && (!pc || !rp_sic_pc_preemptible(pc)) && align_ticks() &&
	    !(count % RP_PREEMPT_ALIGN) && sched_preempt_useful()) {
		/* a counting point where no preemption may be taken (the flag-preserving
		 * form, a foreign caller's entry): the next aligned count, then */
		t->preempt_soon = true;
		t->offset = count + RP_PREEMPT_ALIGN;
		t->tick_depth--;
		return RP_PREEMPT_ALIGN;
	}
	if (!rp_scheduling || !pc || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful()) {
		t->tick_depth--;
		return fresh;
	}
	rp_record_preempt(t, count, pc);
	/* Switched out from here, not from a signal: home holds its counter meanwhile. */
	__sic_home = fresh;
	rp_preempt_at_count = true; /* the replay stops here by its trap: a preemption too */
	t->stop_pc = pc;
	sched_preempt();
	t->stop_pc = 0;
	rp_preempt_at_count = false; /* consumed by on_switch, or no switch happened */
	t->tick_depth--;
	/* It resumes before pc: a tick there before it moves must not preempt again. */
	t->resumed_from_signal = true;
	t->resume_count = count;
	t->resume_pc = pc;
	if (rp_resumed_hook)
		rp_resumed_hook(&fresh);
	t->resume_count = t->offset - fresh; /* past a handler, if one ran */
	return fresh;
}

/* A write of the log failed (a full disk, EIO, the file size limit): said at once, in
 * whatever context (a signal handler too: strerrordesc_np is a table), and again at
 * exit (rp_record_close). The file keeps what was written before. */
static void log_failed(int err)
{
	rp_say("cannot write %s: %s; the log holds the recording up to here (it replays that "
	       "far) and the program runs on, unrecorded", rp_opts.log_path, strerrordesc_np(err));
}

void rp_record_close(void)
{
	if (!rp_writer)
		return;
	int err = rp_log_error_number(rp_writer);
	if (rp_log_close(rp_writer) != 0 && !err)
		err = errno;
	rp_writer = NULL;
	if (err)
		rp_say("%s is incomplete: writing it failed (%s); it replays up to where it stops",
		       rp_opts.log_path, strerrordesc_np(err));
}

void rp_record_signal_stop(int sig, const ucontext_t *uc)
{
	struct rp_thread *t = rp_cur;
	uintptr_t pc = uc ? rp_pc_of(uc) : 0;
	uint8_t where = RP_STOP_NOWHERE, v[RP_SIGNAL_STOP_LEN];
	uint64_t count = 0, off = 0;
	int32_t s = sig;
	if (t->tid != 0 && rp_idling) {
		where = RP_STOP_IDLE;
	} else if (t->tid != 0 && !sched_busy() && !t->tick_depth && uc) {
		if (rp_sic_pc_preemptible(pc)) { /* an instruction of the program */
			where = RP_STOP_EXACT;
			count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
			off = pc - rp_exe_base;
		} else if (!rp_sic_pc_instrumented(pc)) { /* a call out: its count published */
			where = RP_STOP_COUNT;
			count = t->offset - __sic_home;
		}
	}
	memcpy(v, &s, 4);
	v[4] = where;
	memcpy(v + 5, &count, 8);
	memcpy(v + 13, &off, 8);
	rp_log_input(rp_writer, (uint32_t)t->tid, RP_INPUT_SIGNAL_STOP, v, sizeof v);
}

/* The parent process of pid, from /proc/pid/stat (after the command's closing
 * parenthesis: state, then the parent); 0 if not known. */
static pid_t parent_of(pid_t pid)
{
	char path[40], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ssize_t n = rp_sys_read(fd, buf, sizeof buf - 1);
	rp_sys_close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	int ppid = 0;
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

/* Is the file st names another process's log, open among the runtime's descriptors of
 * one of this process's ancestors? That process, or 0. */
static pid_t ancestor_writing(const struct stat *st)
{
	pid_t pid = (pid_t)rp_raw_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
	for (int depth = 0; depth < 32 && pid > 1; depth++, pid = parent_of(pid))
		for (int fd = RP_FD_MIN; fd < RP_FD_MIN + RP_FD_SLOTS; fd++) {
			char path[48];
			struct stat at;
			snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
			if (rp_raw_syscall(SYS_newfstatat, AT_FDCWD, (long)path, (long)&at, 0, 0, 0) == 0 &&
			    at.st_dev == st->st_dev && at.st_ino == st->st_ino)
				return pid;
		}
	return 0;
}

/* A program that a recording runs (a test suite running its own binary, a build
 * running tools built with sicc) records too, to the log LIBREPLAY_OPTS names for
 * both: opening it would find the running recording's log locked (a new file in the
 * recording directory, the default, is the child's own). Such a child records to the parent's name with
 * its pid appended instead, and says so. */
static const char *own_log_path(const char *path)
{
	struct stat st;
	if (rp_raw_syscall(SYS_newfstatat, AT_FDCWD, (long)path, (long)&st, 0, 0, 0) != 0)
		return path;
	pid_t writer = ancestor_writing(&st);
	if (!writer)
		return path;
	size_t len = strlen(path) + 24;
	char *mine = rp_malloc(len);
	if (!mine)
		rp_fatal_memory("the log's name");
	snprintf(mine, len, "%s.%d", path, (int)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0));
	rp_say("%s is the log process %d (an ancestor) is recording; this one records to %s",
	       path, (int)writer, mine);
	return mine;
}

void rp_record_start(int argc, char **argv)
{
	struct rp_log_header h;
	memset(&h, 0, sizeof h);
	h.flags = (rp_opts.chaos ? RP_LOG_F_CHAOS : 0) | (rp_opts.hunt ? RP_LOG_F_HUNT : 0);
	h.quantum_ns = rp_opts.quantum_ns;
	h.seed = rp_opts.seed;
	rp_log_self_identity(&h); /* its build-id, or a hash of what it loads */
	h.argc = argc;
	h.argv = (const char *const *)argv;
	char err[RP_LOG_ERRLEN];
	/* Read and write where allowed: the writer reads earlier INPUT bytes back before
	 * it stores a payload as a reference to them (docs/log-format.md); a file it may
	 * only write gets no references to earlier blocks. Never through a link, never a
	 * FIFO or a file that is not a log, locked for the run (log/log_target.c). */
	int fd;
	if (rp_opts.log_in_dir) {
		fd = rp_logdir_new(&rp_opts.log_path);
	} else {
		rp_opts.log_path = own_log_path(rp_opts.log_path);
		fd = rp_log_open_target(AT_FDCWD, rp_opts.log_path, false, err, sizeof err);
		if (fd < 0) {
			rp_say("%s", err);
			rp_exit(RP_EXIT_USAGE);
		}
	}
	fd = rp_fd_own(fd);
	if (rp_log_create_fd(fd, rp_opts.log_path, &h, &rp_writer, err, sizeof err) != 0) {
		if (errno == ENOMEM)
			rp_fatal_memory("the log's header and buffers");
		rp_say("%s", err);
		rp_exit(RP_EXIT_USAGE);
	}
	/* The block so far is written at most every RP_LOG_FLUSH_INTERVAL_NS (2 ms) while
	 * records come (rp_log_maybe_flush at each), and before the scheduler idles: a
	 * SIGKILL loses at most the records of the last 2 ms. */
	const char *bench = getenv("LIBREPLAY_FLUSH_NS"); /* bench/durability.sh's knob */
	rp_log_set_flush_interval(rp_writer, bench && *bench ? strtoull(bench, NULL, 10)
							     : RP_LOG_FLUSH_INTERVAL_NS);
	rp_log_set_error_hook(rp_writer, log_failed);
	/* bench/logsize.sh's knob: the log's INPUT bytes stored as they are (plain), only
	 * compressed (zstd), only by reference (refs); by default both (docs/log-format.md). */
	const char *store = getenv("LIBREPLAY_LOG_STORE");
	if (store && *store) {
		bool zstd = !strcmp(store, "zstd") || !strcmp(store, "zstd+refs");
		bool refs = !strcmp(store, "refs") || !strcmp(store, "zstd+refs");
		if (!zstd && !refs && strcmp(store, "plain")) {
			rp_say("LIBREPLAY_LOG_STORE=%s: not plain, zstd, refs or zstd+refs", store);
			rp_exit(RP_EXIT_USAGE);
		}
		if (rp_log_set_store(rp_writer, zstd ? RP_LOG_ZSTD_LEVEL : 0, refs) != 0)
			rp_fatal_memory("the log's compression");
	}
	rp_context_record();
	rp_objects_record();
	rp_layout_record();
	rp_tcache_record();
	rp_input_log_early();
	log_timestamp(rp_mono_ns());
}

void rp_record_schedule(void)
{
	rp_scheduling = true;
	if (rp_counting)
		return;
	rp_install_handler(SIGPROF, on_tick, 0);
	start_timer(rp_opts.quantum_ns);
}

/* A replay past the end of a log cut short: time slices of the recording's quantum
 * (whatever decided its preemptions), nothing logged. */
void rp_record_free_run(void)
{
	if (rp_scheduling)
		return;
	rp_scheduling = true;
	rp_debug_clock_stop(); /* SIGPROF is the time slice's now */
	rp_install_handler(SIGPROF, on_tick, 0);
	start_timer(rp_opts.quantum_ns);
}

/* ---- the end ------------------------------------------------------------------------------ */

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];

void rp_record_end(int how, int value, const ucontext_t *uc)
{
	if (!rp_writer)
		return;
	log_timestamp(rp_mono_ns());
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	if (rp_log_end(rp_writer, how, value, end_threads, n) != 0 || uc)
		rp_log_flush_from_signal(rp_writer);
	if (getenv("LIBREPLAY_STATS"))
		rp_say("%llu preemptions taken, %llu ticks deferred",
			(unsigned long long)taken_ticks, (unsigned long long)deferred_ticks);
}

void rp_record_outcome(int how, int value, const ucontext_t *uc, const struct rp_log_outcome *o)
{
	if (!rp_writer)
		return;
	log_timestamp(rp_mono_ns());
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	if (rp_log_end_outcome(rp_writer, how, value, end_threads, n, o) != 0 || uc)
		rp_log_flush_from_signal(rp_writer);
}

bool rp_record_mark(void)
{
	return rp_writer && rp_log_mark(rp_writer) == 0;
}

bool rp_record_rewind(void)
{
	if (!rp_writer)
		return false;
	if (rp_log_rewind(rp_writer) == 0)
		return true;
	rp_say("%s: cannot take back the END of an exec that failed (%s): the log ends there",
	       rp_opts.log_path, strerror(errno));
	return false;
}

void rp_record_forget(void)
{
	if (tick_fd >= 0)
		rp_fd_close(tick_fd);
	tick_fd = -1;
	struct itimerval off = {{0, 0}, {0, 0}};
	prof_timer(&off);
	struct sigaction ign = {.sa_handler = SIG_IGN};
	rp_sigaction(SIGPROF, &ign, NULL);
	rp_log_abandon(rp_writer); /* only its descriptor: the lock goes with the parent */
	rp_writer = NULL; /* the parent's: never flushed or written from here */
}
