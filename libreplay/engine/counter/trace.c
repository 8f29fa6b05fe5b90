/* trace.c: --trace-schedule FILE: every switch between green threads, one text line
 * each, for replay-dump --timeline (docs/tools.md):
 *
 *   seq clock ns from to from_count to_count reason
 *
 * clock: the counts the program's threads executed so far, summed (the logical clock:
 * the same in a recording and its replays); ns: monotonic time since the trace began;
 * from_count, to_count: the two threads' own counts (a preemption's from_count is its
 * PREEMPT record's count);
 * reason: why `from` stopped: preempt, yield, exit, blocked:<wait kind> (mutex, cond,
 * join, sleep, ...), or host (the scheduler's own context, thread 0, handing over).
 * The last line has `to` 0 and says how the run ended: exit:STATUS, deadlock (every
 * thread blocked when the process exits), or the crash's signal (SIGSEGV...).
 * The log holds only the preemptions; the blocking switches follow from the program,
 * so `./app --replay LOG --trace-schedule T` traces the recording's whole schedule.
 *
 * Switches happen in the timer's signal handler: no malloc, no stdio; a static buffer
 * goes out with write(2) when full, at exit and from the crash handler. */
#include "engine/engine.h"
#include "engine/session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

bool rp_trace_on;
static int trace_fd = -1;
static char buf[1 << 16];
static size_t used;
static uint64_t seq, clock_sum, cur_start, t0;
/* Where a write failed (a full disk, EIO), or would pass the file size limit (and
 * raise SIGXFSZ, which ends the process): said once, and nothing more is written, so
 * the trace ends without its last line and replay-dump --timeline says it is cut. */
static const char *trace_path;
static uint64_t trace_bytes, trace_max = UINT64_MAX;
static bool trace_cut;

static void cut(int err)
{
	trace_cut = true;
	rp_say("cannot write the schedule trace %s: %s; it stops here (cut)", trace_path,
	       strerror(err));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	if (rp_raw_syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0, 0) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rp_trace_flush(void)
{
	int saved = errno;
	size_t off = 0, fits = used;
	if (trace_bytes + used > trace_max) /* what fits below the limit, then no more */
		fits = trace_max > trace_bytes ? (size_t)(trace_max - trace_bytes) : 0;
	while (trace_fd >= 0 && !trace_cut && off < fits) {
		ssize_t n = rp_sys_write(trace_fd, buf + off, fits - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cut(n < 0 ? errno : ENOSPC);
			break;
		}
		off += (size_t)n;
		trace_bytes += (uint64_t)n;
	}
	if (trace_fd >= 0 && !trace_cut && fits < used)
		cut(EFBIG);
	used = 0;
	errno = saved;
}

static void put(const char *s)
{
	size_t n = strlen(s);
	if (used + n > sizeof buf)
		rp_trace_flush();
	memcpy(buf + used, s, n);
	used += n;
}

static void put_u(uint64_t v, char sep)
{
	char d[24];
	int k = sizeof d - 1;
	d[k] = 0;
	d[--k] = sep;
	do
		d[--k] = (char)('0' + v % 10);
	while ((v /= 10));
	put(d + k);
}

void rp_trace_switch(struct sched_thread *prev, struct sched_thread *next, uint64_t prev_count,
		     uint64_t next_count, bool preempted)
{
	if (!rp_trace_on)
		return;
	/* Only one thread runs at a time: what it executed since it resumed moves the
	 * clock. The host (thread 0) runs uncounted code: it does not. */
	if (prev->id != 0)
		clock_sum += prev_count - cur_start;
	cur_start = next_count;
	struct sched_thread_info in;
	sched_thread_info(prev, &in);
	put_u(++seq, ' ');
	put_u(clock_sum, ' ');
	put_u(mono_ns() - t0, ' ');
	put_u((uint64_t)prev->id, ' ');
	put_u((uint64_t)next->id, ' ');
	put_u(prev_count, ' ');
	put_u(next_count, ' ');
	if (prev->id == 0)
		put("host\n");
	else if (preempted)
		put("preempt\n");
	else if (in.state == SCHED_EXITED || in.state == SCHED_ABANDONED)
		put("exit\n");
	else if (in.state == SCHED_BLOCKED) {
		/* one word each (sched_wait_kind_name's have spaces) */
		static const char *const kinds[] = {
			[SCHED_WAIT_NONE] = "none",   [SCHED_WAIT_JOIN] = "join",
			[SCHED_WAIT_MUTEX] = "mutex", [SCHED_WAIT_COND] = "cond",
			[SCHED_WAIT_SEM] = "sem",     [SCHED_WAIT_BARRIER] = "barrier",
			[SCHED_WAIT_RDLOCK] = "rdlock", [SCHED_WAIT_WRLOCK] = "wrlock",
			[SCHED_WAIT_SLEEP] = "sleep", [SCHED_WAIT_QUEUE] = "queue",
			[SCHED_WAIT_EVENT] = "io",
		};
		unsigned k = (unsigned)in.wait_kind;
		put("blocked:");
		put(k < sizeof kinds / sizeof kinds[0] && kinds[k] ? kinds[k] : "other");
		put("\n");
	} else
		put("yield\n");
}

/* Before the last line: for rp_trace_resume. */
static uint64_t end_bytes, end_seq, end_clock;

void rp_trace_end(const char *why, const ucontext_t *uc)
{
	if (!rp_trace_on)
		return;
	end_bytes = trace_bytes + used;
	end_seq = seq;
	end_clock = clock_sum;
	/* The running thread's last stretch: its count is in r15 if a signal stopped it
	 * in instrumented code, published in __sic_home otherwise. */
	uint64_t counter = __sic_home;
	if (uc && rp_sic_pc_instrumented((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
		counter = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	uint64_t count = rp_cur->offset - counter;
	if (rp_cur->tid != 0)
		clock_sum += count - cur_start;
	put_u(++seq, ' ');
	put_u(clock_sum, ' ');
	put_u(mono_ns() - t0, ' ');
	put_u((uint64_t)rp_cur->tid, ' ');
	put("0 ");
	put_u(count, ' ');
	put("0 ");
	put(why);
	put("\n");
	rp_trace_flush();
	rp_trace_on = false;
}

void rp_trace_resume(void)
{
	if (rp_trace_on || trace_fd < 0 || trace_cut || !end_bytes ||
	    rp_raw_syscall(SYS_ftruncate, trace_fd, (long)end_bytes, 0, 0, 0, 0) != 0 ||
	    rp_raw_syscall(SYS_lseek, trace_fd, (long)end_bytes, SEEK_SET, 0, 0, 0) < 0)
		return;
	trace_bytes = end_bytes;
	seq = end_seq;
	clock_sum = end_clock;
	rp_trace_on = true;
}

/* Exiting with every live thread blocked (none running: the scheduler's deadlock
 * hook exits): a deadlock. */
static bool deadlocked(void)
{
	bool blocked = false;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info in;
		sched_thread_info(t, &in);
		if (in.state == SCHED_RUNNABLE || in.state == SCHED_RUNNING)
			return false;
		blocked |= in.state == SCHED_BLOCKED;
	}
	return blocked;
}

static void at_exit(int status, void *arg)
{
	char why[24] = "deadlock";
	if (!deadlocked())
		snprintf(why, sizeof why, "exit:%d", status & 0xff);
	rp_trace_end(why, NULL);
}

void rp_trace_forget(void)
{
	/* The parent's trace: the child neither writes its buffer again nor adds to it. */
	rp_trace_on = false;
	used = 0;
	if (trace_fd >= 0)
		rp_fd_close(trace_fd);
	trace_fd = -1;
}

void rp_trace_open(const char *path)
{
	int fd = rp_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) { /* a directory, a missing one, no permission: the user's to fix */
		rp_say("--trace-schedule %s: %s", path, strerror(errno));
		rp_exit(RP_EXIT_USAGE);
	}
	trace_path = path;
	struct rlimit fsize;
	if (rp_raw_syscall(SYS_getrlimit, RLIMIT_FSIZE, (long)&fsize, 0, 0, 0, 0) == 0 &&
	    fsize.rlim_cur != RLIM_INFINITY)
		trace_max = fsize.rlim_cur;
	/* High, like the log's: the program's own open() gets the same numbers with and
	 * without a trace. */
	trace_fd = rp_fd_own(fd);
	t0 = mono_ns();
	put("# libreplay schedule trace 1: seq clock ns from to from_count to_count reason\n");
	rp_trace_on = true;
	on_exit(at_exit, NULL);
}
