/* debug.c: what a debugger reads and writes during a replay (libreplay/gdb/libreplay.py).
 *
 * The gdb extension asks for stops by writing (thread, count) pairs into
 * rp_debug.stops while the program is stopped: its `replay stop-at`, and the counts
 * where a breakpoint's `$rcount` condition turns true or false. The replay engine
 * keeps a thread's counter from running past its nearest requested count (the nearer
 * of it and the next logged preemption), and when the counter reaches it,
 * rp_debug_stopped runs: the extension has a breakpoint there. Nothing here changes
 * the schedule: the counter only overflows once more.
 *
 * Stepping over a preemption: gdb, asked to step a thread that the replay's trap (or
 * the recording's tick) preempts, would let the program run with a breakpoint at the
 * interrupted pc, and every other green thread runs the same code: each pass is a
 * stop. So while it steps, the extension sets step_tid, and a preemption of that
 * thread stops in rp_debug_preempting first; it then sets resume_tid and continues,
 * and rp_debug_resumed stops when that thread runs again, with no breakpoint in the
 * program meanwhile. Neither changes the schedule.
 *
 * Between two stops the debugger says which other threads ran and how many
 * preemptions passed: the runtime counts switches and preemptions, and notes in each
 * thread the switch that last started it (rp_debug_switched).
 *
 * Going back in time (paper 003): the extension keeps fork checkpoints of the replay
 * and goes back by restoring one and replaying forward to the time wanted. It asks
 * for a tick (tick_every, ckpt_ns): every thread's counter then overflows at least
 * every tick_every counts, and once ckpt_ns of replay CPU time have passed the
 * runtime stops in rp_debug_checkpoint, where the extension forks a checkpoint.
 * Time is the sum of every thread's count; stop_time stops when it reaches a value.
 * A checkpoint is forked by the program's fork() with checkpointing set: a bare
 * system call, no atfork handlers (which would end the replay in the child). A
 * restored copy opens its own hardware breakpoint (rp_debug_restored, replay.c's
 * rp_bp_reopen): the perf event it inherited belongs to the process
 * it was forked from.
 *
 * Who changed some bytes last (`replay last-write`, and watchpoints where the debug
 * registers do not work, or more than they hold): while watch_n is set, the runtime
 * compares up to RP_DEBUG_WATCHES regions with their last value at every counting
 * point that reaches it (at least every watch_every counts of a thread) and at
 * every switch, and notes the thread, the two counts between which the last change
 * came and the regions it changed (watch_check); with watch_stop, it stops there. */
#include "engine/core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/rp_syscall.h"

#include <sys/stat.h>

/* volatile: the debugger writes it while the program is stopped. */
volatile struct rp_debug rp_debug = {.version = RP_DEBUG_VERSION, .outside_fd = -1};

/* Never inlined or merged: its address is where the debugger stops. */
__attribute__((noinline, noclone, used)) void rp_debug_stopped(void)
{
	__asm__ volatile("" ::: "memory");
}

static uint64_t min_left(uint64_t left, uint64_t to)
{
	return to && to < left ? to : left;
}

uint64_t rp_debug_clip(int tid, uint64_t now, uint64_t left)
{
	int n = rp_debug.nstops < RP_DEBUG_STOPS ? rp_debug.nstops : RP_DEBUG_STOPS;
	for (int i = 0; i < n; i++) {
		const volatile struct rp_debug_stop *s = &rp_debug.stops[i];
		if (s->tid == tid && s->count > now)
			left = min_left(left, s->count - now);
	}
	if (rp_debug.tick_every)
		left = min_left(left, rp_debug.tick_every - now % rp_debug.tick_every);
	if (rp_debug.watch_n && rp_debug.watch_every)
		left = min_left(left, rp_debug.watch_every - now % rp_debug.watch_every);
	if (rp_debug.stop_time) {
		/* Nothing else runs until this thread's counter is loaded again. */
		uint64_t time = rp_thread_counts_but(tid) + now;
		if (rp_debug.stop_time > time)
			left = min_left(left, rp_debug.stop_time - time);
	}
	return left;
}

static void hit(int tid, uint64_t now)
{
	rp_debug.hit_tid = tid;
	rp_debug.hit_count = now;
	rp_debug_stopped();
}

/* The process's CPU clock (not the program's recorded clocks); a system call, so
 * only at ticks. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	if (rp_raw_syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long)&ts, 0, 0, 0, 0))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A thread whose time goes into code without counting points (a library not built
 * with sicc: zlib's deflate in pigz, memset over a large block) counts slowly: a tick
 * every tick_every counts came seldom or never, and a replay of seconds kept the one
 * checkpoint at main. So a timer of the process's CPU time asks for a tick too: the
 * running thread overflows at its next counting point (as a recording's deferred
 * tick arranges it, async.c), where rp_debug_check ticks. Only when the debugger
 * asks (clock_on: it saw the CPU time pass with no tick), as the signal is not free:
 * one that comes while gdb steps over a breakpoint makes it report that breakpoint
 * twice. A fork does not inherit the timer: a restored checkpoint starts its own
 * (rp_debug_restored). */
#define RP_DEBUG_CLOCK_NS 50000000u
static timer_t clock_timer;
static bool clock_made;
static volatile sig_atomic_t clock_due;

static void on_clock(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	int saved = errno;
	struct rp_thread *t = rp_cur;
	clock_due = 1;
	if (rp_replaying && rp_debug.ckpt_ns && ucv && t && t->tid != 0 && !t->tick_depth &&
	    !sched_busy() && !rp_idling && !rp_dying)
		rp_overflow_next(t, ucv, true);
	errno = saved;
}

void rp_debug_clock_start(void)
{
	if (!rp_debug.ckpt_ns || !rp_debug.clock_on || !rp_replaying || clock_made)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	rp_install_handler(SIGPROF, on_clock, 0);
	clock_made = timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &clock_timer) == 0;
	if (!clock_made)
		return; /* ticks by counts only */
	struct itimerspec it = {{0, RP_DEBUG_CLOCK_NS}, {0, RP_DEBUG_CLOCK_NS}};
	timer_settime(clock_timer, 0, &it, NULL);
}

void rp_debug_clock_stop(void)
{
	if (!clock_made)
		return;
	timer_delete(clock_timer);
	clock_made = false;
}

static void tick(void)
{
	uint64_t c = cpu_ns();
	if (rp_debug.clock_ns) /* (the first tick only starts the clock: what ran
				* before main is no replay) */
		rp_debug.replay_ns += c - rp_debug.clock_ns;
	rp_debug.clock_ns = c;
	if (rp_debug.ckpt_ns && rp_debug.replay_ns - rp_debug.ckpt_at_ns >= rp_debug.ckpt_ns) {
		rp_debug.ckpt_at_ns = rp_debug.replay_ns;
		rp_debug_checkpoint();
	}
}

/* Who changed the watched bytes last: only the running thread (tid, at count now)
 * can have, since the last comparison, and the counting points of one thread are
 * where its count grows: so a change seen here was made by tid between the count
 * of the last comparison (or of its start, after a switch) and now. The extension
 * reads the last change and then looks closer (libreplay/gdb/reverse.py). The
 * bytes must stay mapped meanwhile: the extension checks that they are from the
 * checkpoint the pass starts at. */
static bool watch_check(int tid, uint64_t now)
{
	int n = rp_debug.watch_n;
	if (n <= 0 || n > RP_DEBUG_WATCHES)
		return false;
	uint32_t which = 0;
	int at = 0;
	for (int w = 0; w < n; w++) {
		int len = rp_debug.watches[w].len;
		if (len <= 0 || len > RP_DEBUG_WATCH - at)
			break; /* the debugger's mistake: compare no further */
		const volatile unsigned char *p =
			(const volatile unsigned char *)rp_debug.watches[w].addr;
		for (int i = 0; i < len; i++) {
			if (p[i] != rp_debug.watch_val[at + i]) {
				rp_debug.watch_val[at + i] = p[i];
				which |= 1u << w;
			}
		}
		at += len;
	}
	bool stop = false;
	if (which) {
		rp_debug.watch_changes++;
		rp_debug.watch_tid = tid;
		rp_debug.watch_from = rp_debug.seen_tid == tid ? rp_debug.seen_count : 0;
		rp_debug.watch_to = now;
		rp_debug.watch_which = which;
		stop = rp_debug.watch_stop;
	}
	rp_debug.seen_tid = tid;
	rp_debug.seen_count = now;
	return stop;
}

void rp_debug_check(int tid, uint64_t now)
{
	bool stop = watch_check(tid, now);
	if (rp_debug.clock_on && !clock_made)
		rp_debug_clock_start(); /* (asked for at a stop) */
	if (rp_debug.tick_every && (now % rp_debug.tick_every == 0 || clock_due)) {
		clock_due = 0;
		tick();
	}
	int n = rp_debug.nstops < RP_DEBUG_STOPS ? rp_debug.nstops : RP_DEBUG_STOPS;
	for (int i = 0; i < n; i++) {
		volatile struct rp_debug_stop *s = &rp_debug.stops[i];
		if (s->tid == tid && s->count == now) {
			s->tid = 0; /* once: a continue goes on */
			stop = true;
		}
	}
	if (rp_debug.stop_time && rp_thread_counts_but(tid) + now == rp_debug.stop_time) {
		rp_debug.stop_time = 0;
		stop = true;
	}
	if (stop)
		hit(tid, now);
}

__attribute__((noinline, noclone, used)) void rp_debug_log_end(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The run ends in a deadlock or a hang (how: RP_LOG_DEADLOCK or RP_LOG_HANG), every
 * green thread where it stopped: the gdb extension stops here (docs/gdb.md). */
__attribute__((noinline, noclone, used)) void rp_debug_outcome(int how)
{
	__asm__ volatile("" ::"r"(how) : "memory");
}

__attribute__((noinline, noclone, used)) void rp_debug_preempting(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noclone, used)) void rp_debug_resumed(void)
{
	__asm__ volatile("" ::: "memory");
}

void rp_debug_preempt_begin(int tid)
{
	if (rp_debug.step_tid == tid)
		rp_debug_preempting();
}

void rp_debug_preempt_end(int tid)
{
	if (rp_debug.resume_tid != tid)
		return;
	rp_debug.resume_tid = 0;
	rp_debug_resumed();
}

void rp_debug_switched(struct rp_thread *prev, uint64_t prev_count, struct rp_thread *next,
		       bool preempted)
{
	if (watch_check(prev->tid, prev_count))
		hit(prev->tid, prev_count); /* before the switch's bookkeeping: the
					     * debugger goes back to look closer */
	rp_debug.seen_tid = next->tid;
	rp_debug.seen_count = next->offset - *rp_thread_counter(next);
	rp_debug.switches++;
	rp_debug.preemptions += preempted;
	next->ran_at = rp_debug.switches;
}

/* The extension forks a checkpoint when the replay stops here. */
__attribute__((noinline, noclone, used)) void rp_debug_checkpoint(void)
{
	__asm__ volatile("" ::: "memory");
}


/* ---- pipes the process holds both ends of --------------------------------------- */

/* A pipe is kernel state that a fork shares instead of copying: the checkpoint would
 * read what the live process left in it, and would keep its write end open, so that
 * the live reader never sees the end of the data. So after forking a checkpoint the
 * live process moves to pipes of its own: a new pipe for each one it holds both ends
 * of, with the same contents, flags and descriptor numbers; the old one, contents
 * intact, stays with the checkpoint. A pipe the program reads from another process
 * (stdin from a shell, say) or a socket cannot be copied: rp_debug.outside_fd names
 * one. */
#define RP_DEBUG_FDS 4096

static long sys(long nr, long a, long b, long c)
{
	return rp_raw_syscall(nr, a, b, c, 0, 0, 0);
}

/* A fork shares the open file descriptions, and with them their file status flags:
 * what the live process sets later (xz sets O_NONBLOCK on standard output, which it
 * reads the flags of first) would hold in a checkpoint restored too, and the program
 * would take another way there. So the flags are noted before a checkpoint is forked,
 * in the memory it keeps, and put back when it is restored. */
static struct {
	int fd, flags;
} fd_flags[RP_DEBUG_FDS];
static int nfd_flags;

void rp_debug_forking(void)
{
	nfd_flags = 0;
	for (int fd = 0; fd < RP_DEBUG_FDS; fd++) {
		long fl = sys(SYS_fcntl, fd, F_GETFL, 0);
		if (fl < 0)
			continue;
		fd_flags[nfd_flags].fd = fd;
		fd_flags[nfd_flags++].flags = (int)fl;
	}
}

/* Called by the debugger in a checkpoint it restored. */
int rp_debug_restored(void)
{
	rp_debug.clock_ns = cpu_ns(); /* a new process's clock starts again */
	clock_made = false;           /* (and its timer: a fork has none) */
	rp_debug_clock_start();
	for (int i = 0; i < nfd_flags; i++)
		sys(SYS_fcntl, fd_flags[i].fd, F_SETFL, fd_flags[i].flags);
	return rp_bp_reopen();
}

/* fd's pipe inode and access mode, or 0 if it is no pipe. */
static unsigned long pipe_of(int fd, int *mode)
{
	struct stat st;
	if (sys(SYS_fstat, fd, (long)&st, 0) != 0 || !S_ISFIFO(st.st_mode))
		return 0;
	*mode = (int)sys(SYS_fcntl, fd, F_GETFL, 0) & O_ACCMODE;
	return (unsigned long)st.st_ino;
}

static int end_of(unsigned long ino, int want)
{
	int mode;
	for (int fd = 0; fd < RP_DEBUG_FDS; fd++)
		if (pipe_of(fd, &mode) == ino && mode == want)
			return fd;
	return -1;
}

/* Every descriptor of the old pipe's end (mode) now names the new one's. */
static void move_end(unsigned long ino, int mode, int to)
{
	int m = 0;
	for (int fd = 0; fd < RP_DEBUG_FDS; fd++) {
		if (fd == to || pipe_of(fd, &m) != ino || m != mode)
			continue;
		long fdfl = sys(SYS_fcntl, fd, F_GETFD, 0);
		long fl = sys(SYS_fcntl, fd, F_GETFL, 0);
		sys(SYS_dup2, to, fd, 0);
		sys(SYS_fcntl, fd, F_SETFD, fdfl);
		sys(SYS_fcntl, fd, F_SETFL, fl);
	}
}

/* Copy the pipe of read end r and write end w: the old one keeps its contents. */
static void repipe(unsigned long ino, int r, int w)
{
	static char buf[1 << 16];
	int fresh[2];
	if (sys(SYS_pipe2, (long)fresh, O_CLOEXEC, 0) != 0)
		return;
	long size = sys(SYS_fcntl, r, F_GETPIPE_SZ, 0);
	if (size > 0)
		sys(SYS_fcntl, fresh[1], F_SETPIPE_SZ, size);
	int n = 0;
	if (sys(SYS_ioctl, r, FIONREAD, (long)&n) == 0 && n > 0 && (size_t)n <= sizeof buf) {
		long got = sys(SYS_read, r, (long)buf, n);
		if (got > 0) {
			sys(SYS_write, w, (long)buf, got);        /* the checkpoint's, as it was */
			sys(SYS_write, fresh[1], (long)buf, got); /* ours */
		}
	}
	move_end(ino, O_RDONLY, fresh[0]);
	move_end(ino, O_WRONLY, fresh[1]);
	int mode;
	unsigned long to = pipe_of(fresh[0], &mode);
	if (rp_debug_pipe_moved && to)
		rp_debug_pipe_moved(ino, to);
	sys(SYS_close, fresh[0], 0, 0);
	sys(SYS_close, fresh[1], 0, 0);
}

void (*rp_debug_pipe_moved)(unsigned long from, unsigned long to);
bool (*rp_debug_fd_logged)(int fd);

void rp_debug_forked(void)
{
	rp_debug.outside_fd = -1;
	int mode = 0;
	for (int fd = 0; fd < RP_DEBUG_FDS; fd++) {
		struct stat st;
		if (sys(SYS_fstat, fd, (long)&st, 0) != 0)
			continue;
		if (rp_debug_fd_logged && rp_debug_fd_logged(fd))
			continue; /* its reads come from the log, in every copy of the replay */
		if (S_ISSOCK(st.st_mode) && rp_debug.outside_fd < 0)
			rp_debug.outside_fd = fd; /* what it received cannot be put back */
		unsigned long ino = pipe_of(fd, &mode);
		if (!ino)
			continue;
		int r = end_of(ino, O_RDONLY), w = end_of(ino, O_WRONLY);
		if (r < 0 || w < 0) {
			/* Output to another process (stdout to a pager) is no state of ours. */
			if (mode != O_WRONLY && rp_debug.outside_fd < 0)
				rp_debug.outside_fd = fd;
			continue;
		}
		if (fd == (r < w ? r : w))
			repipe(ino, r, w); /* once per pipe, at its lowest descriptor */
	}
}

