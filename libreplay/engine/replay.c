/*
 * replay.c: replaying the schedule (paper 002, section 4). The whole log is read
 * before the program starts (no reading in handlers). No timer: the running thread's
 * counter is loaded so that it reaches zero exactly at the count of its next PREEMPT
 * record (rp_replay_arm); the overflow arms a hardware breakpoint (perf_event_open,
 * delivered as a real-time signal: it works under gdb, int3 does not) at the logged PC;
 * the breakpoint's trap (on_trap) reproduces the preemption. Any other outcome is a
 * divergence, reported at once in one line (rp_diverge, exit RP_EXIT_DIVERGED), but
 * a deadlock or a hang the log ends with is reached and reported as the recording's
 * was (outcome.c). The breakpoint serves the counting modes' recordings too (count.c).
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

bool rp_replaying;
bool rp_log_hunted;

/* Replay: the whole log, read before the program starts (no reading in handlers). */
static struct rp_log_record *recs;

static size_t nrecs, next_rec;

static enum rp_log_status log_end_status;

static char log_end_msg[RP_LOG_ERRLEN];

static bool told_log_end;

static int bp_fd = -1;
static uintptr_t bp_armed_pc;

#define RP_BP_SIGNAL (SIGRTMIN + 7)

/* A one-line divergence message, then exit: replay cannot go on meaningfully. */
_Noreturn void rp_diverge(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vsay("libreplay: replay diverged: ", fmt, ap);
	va_end(ap);
	_exit(RP_EXIT_DIVERGED);
}

/* ---- replay: the next record and the counter ------------------------------------- */

const struct rp_log_record *rp_replay_peek(void)
{
	/* Timestamps are for tools: no decision of the replay depends on them. */
	while (next_rec < nrecs && recs[next_rec].kind == RP_LOG_INPUT &&
	       recs[next_rec].input_kind == RP_INPUT_TIMESTAMP)
		next_rec++;
	if (next_rec < nrecs)
		return &recs[next_rec];
	if (!told_log_end && log_end_status != RP_LOG_DONE) {
		/* A log cut short: say so once, then run on unscheduled. */
		told_log_end = true;
		char msg[RP_LOG_ERRLEN + 64];
		int n = snprintf(msg, sizeof msg, "libreplay: %s; running on without a schedule\n",
				 log_end_msg);
		if (n > 0 && rp_sys_write(2, msg, (size_t)n) < 0)
			_exit(RP_EXIT_DIVERGED);
	}
	return NULL;
}

void rp_replay_next(void)
{
	next_rec++;
}

size_t rp_replay_recno(void)
{
	return next_rec + 1;
}

bool rp_replay_log_loaded(void)
{
	return recs != NULL;
}

uintptr_t rp_replay_armed_pc(void)
{
	return bp_armed_pc;
}

/* A child of fork() is not what the log describes: it runs on unrecorded and
 * unscheduled, and leaves the breakpoint to the parent. */
void rp_replay_forget(void)
{
	if (bp_fd >= 0) {
		rp_sys_close(bp_fd);
		bp_fd = -1;
		bp_armed_pc = 0;
	}
	rp_replaying = false;
	nrecs = next_rec = 0;
	log_end_status = RP_LOG_DONE;
}

/* A hardware execute breakpoint at pc that signals on every hit. */
static void bp_attr(struct perf_event_attr *a, uintptr_t pc)
{
	memset(a, 0, sizeof *a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof *a;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = pc;
	a->bp_len = sizeof(long);
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
}

void rp_bp_arm(uintptr_t pc)
{
	struct perf_event_attr a;
	bp_attr(&a, pc);
	if (ioctl(bp_fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) != 0 ||
	    ioctl(bp_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
		rp_fatal("cannot arm the breakpoint at %#lx: %s", (unsigned long)pc,
			 strerror(errno));
	bp_armed_pc = pc;
}

void rp_bp_disarm(void)
{
	if (bp_armed_pc && bp_fd >= 0) {
		ioctl(bp_fd, PERF_EVENT_IOC_DISABLE, 0);
		bp_armed_pc = 0;
	}
}

bool rp_bp_ready(void)
{
	return bp_fd >= 0;
}

/* Where a record stops a thread: a PREEMPT, or the END of a hang that stopped it. */
static bool record_stop(const struct rp_log_record *r, uint32_t *tid, uint64_t *count, uint64_t *pc)
{
	if (r && r->kind == RP_LOG_PREEMPT) {
		*tid = r->tid, *count = r->count, *pc = r->pc;
		return true;
	}
	if (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && r->outcome.stop_tid) {
		*tid = r->outcome.stop_tid, *count = r->outcome.stop_count, *pc = r->outcome.stop_pc;
		return true;
	}
	return false;
}

/* Load t's counter (at *counter) for its next record: zero at the record's count, or
 * the breakpoint armed now if it is already there. */
void rp_replay_arm(struct rp_thread *t, uint64_t *counter)
{
	uint64_t now = t->offset - *counter;
	const struct rp_log_record *r = rp_replay_peek();
	uint64_t left = RP_SIC_BASE;
	rp_bp_disarm();
	uint32_t tid;
	uint64_t count, pc;
	if (record_stop(r, &tid, &count, &pc) && tid == (uint32_t)t->tid) {
		if (count < now)
			rp_diverge("record %zu: thread %u should have been %s at count %llu "
				"(pc %#llx) but is at count %llu", next_rec + 1, tid,
				r->kind == RP_LOG_PREEMPT ? "preempted" : "stopped by the hang",
				(unsigned long long)count, (unsigned long long)pc, (unsigned long long)now);
		if (count == now) {
			rp_bp_arm(rp_exe_base + pc);
			left = 1; /* the next counting point first is a divergence */
		} else {
			left = count - now;
		}
	}
	left = rp_debug_clip(t->tid, now, left);
	*counter = left;
	t->offset = now + left;
}

uint64_t rp_replay_overflow(void)
{
	uint64_t zero = 0;
	rp_debug_check(rp_cur->tid, rp_cur->offset);
	rp_replay_arm(rp_cur, &zero);
	return zero;
}

/* The replay breakpoint. */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (!rp_replaying) { /* a recording's (count.c, outcome.c) */
		rp_count_trap(uc, sig);
		errno = saved;
		return;
	}
	uintptr_t pc = rp_pc_of(uc);
	struct rp_thread *t = rp_cur;
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	const struct rp_log_record *r = rp_replay_peek();
	rp_bp_disarm();
	if (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG &&
	    r->outcome.stop_tid == (uint32_t)t->tid && r->outcome.stop_count == count &&
	    rp_exe_base + r->outcome.stop_pc == pc)
		rp_outcome(RP_LOG_HANG, uc, count, pc);
	if (!r || r->kind != RP_LOG_PREEMPT || r->tid != (uint32_t)t->tid || r->count != count ||
	    rp_exe_base + r->pc != pc)
		rp_diverge("record %zu: thread %d reached pc %#lx at count %llu, expected %s",
			next_rec + 1, t->tid, (unsigned long)(pc - rp_exe_base), (unsigned long long)count,
			r ? "another record" : "the end of the log");
	next_rec++;
	rp_count_replay_priorities(t);
	/* The same scheduling decision as recorded: the counter continues from here. The
	 * thread may be between publishing its count and a call (movq %r15, __sic_home;
	 * movq $token, %r15; call): keep the published copy equal to the new counter. */
	rp_replay_arm(t, (uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
	__sic_home = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	rp_preempt_from_signal(uc, sig);
	errno = saved;
}

/* ---- scheduler hooks: time ------------------------------------------------------------ */

/* The running thread's counter was armed, when it was switched in, for the record
 * that came next then. A record consumed since (an input, a deadline) may leave its
 * preemption next, and it may go on without a switch that would arm it again: arm
 * it now. Its counter is in the signal frame during a preemption (sched_preempt
 * asks about deadlines), else published in __sic_home (a call from the program). */
void rp_replay_rearm_running(void)
{
	if (!rp_replaying || rp_cur->tid == 0)
		return; /* the host has no counter */
	if (rp_preempt_uc) {
		uint64_t *counter = (uint64_t *)&rp_preempt_uc->uc_mcontext.gregs[REG_R15];
		rp_replay_arm(rp_cur, counter);
		__sic_home = *counter;
	} else {
		rp_replay_arm(rp_cur, &__sic_home);
	}
}

/* Replaying, past the end of a log cut short: the program runs on unscheduled. */
bool rp_replay_run_free(void)
{
	return !rp_replaying || (!rp_replay_peek() && log_end_status != RP_LOG_DONE);
}

/* Replay: a thread that exits with its next preemption still ahead of it, or every
 * thread blocked while the log goes on, has left the recorded path. */
void rp_replay_thread_exit(struct rp_thread *t)
{
	const struct rp_log_record *r = rp_replaying ? rp_replay_peek() : NULL;
	if (r && r->kind == RP_LOG_PREEMPT && r->tid == (uint32_t)t->tid)
		rp_diverge("record %zu: thread %d exited at count %llu before its preemption at count %llu",
			next_rec + 1, t->tid, (unsigned long long)(t->offset - __sic_home),
			(unsigned long long)r->count);
}

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];

static const char *end_name(int how)
{
	return how == RP_LOG_DEADLOCK ? "deadlock" : how == RP_LOG_HANG ? "hang" :
	       how == RP_LOG_EXITED ? "exit status" : "signal";
}

/* The final counts of the threads (uc: where the running one stopped) against the END
 * record r's; then r is consumed. */
static void check_finals(const struct rp_log_record *r, const ucontext_t *uc)
{
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	for (uint32_t k = 0; k < r->nthreads; k++) {
		size_t j = 0;
		while (j < n && end_threads[j].tid != r->threads[k].tid)
			j++;
		if (j == n || end_threads[j].count != r->threads[k].count)
			rp_diverge("thread %u ended at count %llu, in the recording at %llu", r->threads[k].tid,
				j == n ? 0ull : (unsigned long long)end_threads[j].count,
				(unsigned long long)r->threads[k].count);
	}
	next_rec++;
}

void rp_replay_check_end(int how, int value, const ucontext_t *uc)
{
	const struct rp_log_record *r = rp_replay_peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END)
		rp_diverge("record %zu: the program ended (%s %d) with records left",
			next_rec + 1, end_name(how), value);
	if (r->how != how || r->value != value)
		rp_diverge("the program ended with %s %d, the recording with %s %d", end_name(how),
			value, end_name(r->how), r->value);
	check_finals(r, uc);
}

void rp_replay_check_outcome(int how, const ucontext_t *uc, const struct rp_log_outcome *o)
{
	const struct rp_log_record *r = rp_replay_peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END || r->how != how)
		rp_diverge("record %zu: the program ended in a %s where the recording %s", next_rec + 1,
			end_name(how), r->kind != RP_LOG_END ? "went on" : end_name(r->how));
	const struct rp_log_outcome *x = &r->outcome;
	if (x->stop_tid != o->stop_tid ||
	    (o->stop_tid && (x->stop_count != o->stop_count || x->stop_pc != o->stop_pc)))
		rp_diverge("the %s stopped thread %u at count %llu, the recording thread %u at count %llu",
			end_name(how), o->stop_tid, (unsigned long long)o->stop_count, x->stop_tid,
			(unsigned long long)x->stop_count);
	if (!rp_outcome_same(o->waits, o->nwaits, x->waits, x->nwaits))
		rp_diverge("the %s left the threads in other states than the recording's", end_name(how));
	check_finals(r, uc);
}

/* A hardware execute breakpoint on this (only) kernel thread, disabled until armed,
 * that signals RP_BP_SIGNAL when hit; -1 if perf does not allow one. */
static int try_breakpoint(void)
{
	struct perf_event_attr a;
	bp_attr(&a, (uintptr_t)&try_breakpoint);
	a.disabled = 1;
	int fd = rp_high_fd(rp_perf_event_open(&a));
	if (fd >= 0 && rp_route_signal(fd, RP_BP_SIGNAL) != 0) {
		rp_sys_close(fd);
		fd = -1;
	}
	return fd;
}

bool rp_bp_open(void)
{
	if (bp_fd < 0 && (bp_fd = try_breakpoint()) >= 0)
		rp_install_handler(RP_BP_SIGNAL, on_trap, 0);
	return bp_fd >= 0;
}

/* The replay's: it cannot do without. */
static int open_breakpoint(void)
{
	struct perf_event_attr a;
	bp_attr(&a, (uintptr_t)&open_breakpoint);
	a.disabled = 1;
	int fd = rp_high_fd(rp_perf_event_open(&a));
	if (fd < 0) {
		fprintf(stderr, "libreplay: replay needs a hardware breakpoint (perf_event_open: %s; "
				"see /proc/sys/kernel/perf_event_paranoid)\n", strerror(errno));
		exit(RP_EXIT_USAGE);
	}
	if (rp_route_signal(fd, RP_BP_SIGNAL) != 0) {
		fprintf(stderr, "libreplay: cannot route the replay breakpoint's signal: %s\n",
			strerror(errno));
		exit(RP_EXIT_USAGE);
	}
	return fd;
}

/* Replay: open the log, check it is this program's and read every record (no reading
 * in handlers). Called by the first recorded input of a constructor, or at start. */
static struct rp_log_reader *log_reader;

void rp_replay_load_log(void)
{
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	if (rp_log_open(rp_opts.log_path, &r, err, sizeof err) != 0) {
		fprintf(stderr, "libreplay: %s\n", err);
		exit(RP_EXIT_USAGE);
	}
	int b = rp_log_check_build_id(r, err, sizeof err);
	if (b < 0) {
		fprintf(stderr, "libreplay: %s\n", err);
		exit(RP_EXIT_USAGE);
	}
	size_t cap = 1024;
	recs = rp_malloc(cap * sizeof *recs);
	struct rp_log_record rec;
	enum rp_log_status st;
	while (recs && (st = rp_log_next(r, &rec)) == RP_LOG_OK) {
		if (nrecs == cap) {
			cap *= 2;
			recs = rp_realloc(recs, cap * sizeof *recs);
			if (!recs)
				break;
		}
		/* Copy what the reader lends until its next call. */
		if (rec.kind == RP_LOG_INPUT) {
			uint8_t *d = rp_malloc(rec.len ? rec.len : 1);
			if (d)
				memcpy(d, rec.data, rec.len);
			rec.data = d;
		} else if (rec.kind == RP_LOG_END) {
			struct rp_log_final *f = rp_malloc((rec.nthreads ? rec.nthreads : 1) * sizeof *f);
			if (f)
				memcpy(f, rec.threads, rec.nthreads * sizeof *f);
			rec.threads = f;
			uint32_t nw = rec.outcome.nwaits;
			struct rp_log_wait *w = rp_malloc((nw ? nw : 1) * sizeof *w);
			if (w && nw)
				memcpy(w, rec.outcome.waits, nw * sizeof *w);
			rec.outcome.waits = w;
		}
		recs[nrecs++] = rec;
	}
	if (!recs)
		rp_fatal("out of memory reading %s", rp_opts.log_path);
	log_end_status = st;
	snprintf(log_end_msg, sizeof log_end_msg, "%s", st == RP_LOG_DONE ? "" : rp_log_error(r));
	if (st == RP_LOG_CORRUPT || st == RP_LOG_IO_ERROR) {
		fprintf(stderr, "libreplay: %s\n", log_end_msg);
		exit(RP_EXIT_USAGE);
	}
	/* A signal from outside reached a handler while recording (sig_action.c): no
	 * record says where to deliver it, so the replay would diverge. */
	for (size_t k = 0; k < nrecs; k++)
		if (recs[k].kind == RP_LOG_INPUT && recs[k].input_kind == RP_INPUT_ASYNC_SIGNAL) {
			int32_t sig = 0;
			memcpy(&sig, recs[k].data, recs[k].len >= sizeof sig ? sizeof sig : 0);
			fprintf(stderr, "libreplay: %s: the recording received signal %d from outside "
					"the process; replaying such signals is not supported\n",
				rp_opts.log_path, (int)sig);
			exit(RP_EXIT_USAGE);
		}
	log_reader = r;
}

void rp_replay_start(int *argc, char ***argv)
{
	if (!log_reader)
		rp_replay_load_log();
	struct rp_log_reader *r = log_reader;
	const struct rp_log_header *h = rp_log_header(r);
	/* The recorded arguments, unless the command line names the same ones. */
	if (*argc > 1) {
		bool same = *argc == h->argc;
		for (int i = 1; same && i < *argc; i++)
			same = strcmp((*argv)[i], h->argv[i]) == 0;
		if (!same) {
			fprintf(stderr, "libreplay: %s: recorded with other arguments (replay takes them "
					"from the log: give none)\n", rp_opts.log_path);
			exit(RP_EXIT_USAGE);
		}
	}
	char **av = rp_calloc((size_t)h->argc + 1, sizeof *av);
	for (int i = 0; av && i < h->argc; i++)
		av[i] = rp_strdup(h->argv[i]);
	if (!av)
		rp_fatal("out of memory");
	av[0] = (*argv)[0];
	*argc = h->argc;
	*argv = av;
	rp_log_hunted = h->flags & RP_LOG_F_HUNT;
	rp_log_close_reader(r);

	bp_fd = open_breakpoint();
	rp_install_handler(RP_BP_SIGNAL, on_trap, 0);
	rp_replaying = true;
}
