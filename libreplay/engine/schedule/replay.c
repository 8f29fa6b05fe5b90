/*
 * replay.c: replaying the schedule (paper 002, section 4). The log is read as the
 * replay goes (memory does not grow with it): the next record is peeked, consumed,
 * and only then is the one after it read. No timer: the running thread's counter is
 * loaded so that it reaches zero exactly at the count of its next PREEMPT record
 * (rp_replay_arm); the overflow arms the breakpoint (breakpoint.c: a debug register,
 * or a trap byte in the code) at the logged PC; its trap (rp_bp_hit) reproduces the
 * preemption. Any other outcome is a
 * divergence, reported at once in one line (rp_diverge, exit RP_EXIT_DIVERGED). A
 * log cut short ends in a free run: said once, then time slices as in a recording,
 * unlogged (record.c), so that the program finishes. A deadlock or a hang the log ends
 * with is reached and reported as the recording's was (outcome.c), and so is a signal
 * from outside that ended it. The breakpoint serves the counting modes' recordings too
 * (count.c).
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

bool rp_log_hunted;

/* The log, read as the replay goes. The reader lends a record's data until its next
 * call, which comes only once that record is consumed. */
static struct rp_log_reader *reader;
static struct rp_log_record cur; /* the next record, once read (have_cur) */
static bool have_cur;
static size_t next_rec;          /* records consumed, TIMESTAMPs included */
static enum rp_log_status log_end_status = RP_LOG_OK;
static char log_end_msg[RP_LOG_ERRLEN];
static bool free_run;            /* past the end of a log cut short */
static bool end_checked;         /* END matched: the program is leaving */
/* Preemptions reproduced at a counting point's stub, and at the breakpoint (for
 * LIBREPLAY_STATS=1, bench/stops.sh). */
static uint64_t at_stub, at_trap;

/* What the debugger shows (engine.h). */
volatile struct rp_replay_view rp_replay_view;
static struct rp_log_reader *ahead; /* the look-ahead for the view, or NULL */
static uint64_t ahead_recno;        /* the number of the record it read last */

/* END's final counts, read from the log's last block at start (sorted by tid): no
 * thread of the replay runs past its own. */
static struct rp_log_final *finals;
static uint32_t nfinals;
static bool finals_all; /* every thread of the recording is listed */

/* A one-line divergence message, then exit: the replay cannot go on meaningfully.
 * What differs from the recording's context (context.c: the environment, the working
 * directory, the standard descriptors) is named in it, the likely cause. */
static bool is_stop(const struct rp_log_record *r);
static bool signal_at(const struct rp_log_record *r, uint8_t *where, uint64_t *count, uint64_t *pc,
		      siginfo_t *si);
static bool take_signals_at(struct rp_thread *t, uint64_t count, uintptr_t pc);
static int stop_at(const struct rp_log_record *r, uint32_t *tid, uint64_t *count, uint64_t *pc);
static _Noreturn void signal_stop(const struct rp_log_record *r, const ucontext_t *uc, bool counts,
				  uint64_t now);

_Noreturn void rp_diverge(const char *fmt, ...)
{
	char msg[768];
	/* The recording was killed from outside right here, at a point the log names only
	 * roughly (a runtime call, the scheduler): end as it did, not as a divergence. */
	if (have_cur && is_stop(&cur) && !rp_dying)
		signal_stop(&cur, NULL, false, 0);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *cause = rp_context_differences(), *addrs = rp_layout_differences();
	rp_say("replay diverged: %s%s%s%s%s", msg, *cause ? "; " : "", cause,
	       *addrs ? "; the addresses differ from the recording's: " : "", addrs);
	rp_exit_group(RP_EXIT_DIVERGED);
}

/* ---- reading the log ------------------------------------------------------------------- */

/* Keep the view's next preemption at the first PREEMPT from record number first on. */
static void look_ahead(uint64_t first)
{
	if (!ahead || rp_replay_view.next_preempt_recno >= first)
		return;
	struct rp_log_record r;
	rp_replay_view.next_preempt_recno = 0;
	while (rp_log_next(ahead, &r) == RP_LOG_OK) {
		if (++ahead_recno >= first && r.kind == RP_LOG_PREEMPT) {
			rp_replay_view.next_preempt_tid = r.tid;
			rp_replay_view.next_preempt_count = r.count;
			rp_replay_view.next_preempt_pc = r.pc;
			rp_replay_view.next_preempt_recno = ahead_recno;
			return;
		}
	}
}

_Noreturn void rp_replay_refuse_async(const struct rp_log_record *r)
{
	int32_t sig = 0;
	memcpy(&sig, r->data, r->len >= sizeof sig ? sizeof sig : 0);
	rp_say("%s: the recording received signal %d from outside the process; replaying such "
	       "signals is not supported", rp_opts.log_path, (int)sig);
	rp_exit_group(RP_EXIT_USAGE);
}

/* Read the record now next into cur, past TIMESTAMPs (for tools: no decision of the
 * replay depends on them). False at the end of the log. A damaged block part-way
 * ends the replay: nothing after it can be replayed. */
static bool read_next(void)
{
	while (!have_cur && log_end_status == RP_LOG_OK) {
		enum rp_log_status st = rp_log_next(reader, &cur);
		if (st != RP_LOG_OK) {
			log_end_status = st;
			snprintf(log_end_msg, sizeof log_end_msg, "%s", rp_log_error(reader));
			if (st == RP_LOG_CORRUPT || st == RP_LOG_IO_ERROR) {
				rp_say("%s", log_end_msg);
				rp_exit_group(RP_EXIT_USAGE);
			}
			break;
		}
		if (cur.kind == RP_LOG_INPUT && (cur.input_kind == RP_INPUT_TIMESTAMP ||
						 cur.input_kind == RP_INPUT_CONTEXT ||
						 cur.input_kind == RP_INPUT_OBJECTS ||
						 cur.input_kind == RP_INPUT_LAYOUT ||
						 cur.input_kind == RP_INPUT_TCACHE)) {
			if (cur.input_kind == RP_INPUT_CONTEXT)
				rp_context_check(cur.data, cur.len);
			if (cur.input_kind == RP_INPUT_OBJECTS) {
				rp_objects_check(cur.data, cur.len);
				if (rp_opts.races)
					rp_anchors_need(cur.data, cur.len);
			}
			if (cur.input_kind == RP_INPUT_LAYOUT)
				rp_layout_check(cur.data, cur.len);
			if (cur.input_kind == RP_INPUT_TCACHE)
				rp_tcache_note(cur.data, cur.len);
			rp_replay_view.done = ++next_rec;
			continue;
		}
		if (cur.kind == RP_LOG_INPUT && cur.input_kind == RP_INPUT_ASYNC_SIGNAL)
			rp_replay_refuse_async(&cur);
		if (rp_opts.races) { /* the recorded build's pcs, as this race build's */
			rp_anchors_need(NULL, 0);
			rp_anchors_map_record(&cur);
		}
		have_cur = true;
	}
	return have_cur;
}

/* The end of a log cut short: said once, then a free run (time slices, unlogged);
 * under a debugger, a stop there first (rp_debug_log_end). */
static void log_ended(void)
{
	if (free_run || log_end_status == RP_LOG_DONE || !rp_replaying)
		return;
	free_run = true;
	rp_replay_view.ended = 1;
	rp_bp_disarm();
	if (!rp_say("%s; the replay runs on with time slices, unrecorded", log_end_msg))
		rp_exit_group(RP_EXIT_DIVERGED);
	rp_debug_log_end();
	rp_record_free_run();
}

const struct rp_log_record *rp_replay_peek(void)
{
	if (!reader || free_run)
		return NULL;
	if (read_next()) {
		look_ahead(next_rec + 1);
		return &cur;
	}
	log_ended();
	return NULL;
}

void rp_replay_next(void)
{
	have_cur = false;
	next_rec++;
	rp_replay_view.done = next_rec;
}

size_t rp_replay_recno(void)
{
	return next_rec + 1;
}

bool rp_replay_log_loaded(void)
{
	return reader != NULL;
}

bool rp_replay_log_cut_here(void)
{
	return !rp_replay_peek() && log_end_status != RP_LOG_DONE;
}

/* For messages: what a record says, in words. */
const char *rp_replay_describe(const struct rp_log_record *r, char *buf, size_t len)
{
	if (!r)
		snprintf(buf, len, "the end of the log");
	else if (r->kind == RP_LOG_PREEMPT)
		snprintf(buf, len, "thread %u preempted at count %llu (pc %#llx)", r->tid,
			 (unsigned long long)r->count, (unsigned long long)r->pc);
	else if (r->kind == RP_LOG_TIMEOUT)
		snprintf(buf, len, "thread %u's deadline found expired (question %llu)", r->tid,
			 (unsigned long long)r->pos);
	else if (r->kind == RP_LOG_INPUT)
		snprintf(buf, len, "%s for thread %u", rp_input_name(r->input_kind), r->tid);
	else if (r->kind == RP_LOG_THREAD_END)
		snprintf(buf, len, "thread %u's end at count %llu", r->tid, (unsigned long long)r->count);
	else if (r->how == RP_LOG_EXECED)
		snprintf(buf, len, "the program's exec");
	else
		snprintf(buf, len, "the program's end (%s %d)",
			 r->how == RP_LOG_EXITED ? "exit status" : "signal", r->value);
	return buf;
}

/* A child of fork() is not what the log describes: it runs on unrecorded and
 * unscheduled, and leaves the breakpoint to the parent. */
void rp_replay_forget(void)
{
	rp_replaying = false;
	have_cur = false;
	log_end_status = RP_LOG_DONE;
}

/* ---- the counter and the breakpoint --------------------------------------------------- */

/* Thread tid's count when the recording ended (END), or UINT64_MAX if not known. */
static uint64_t final_count(int tid, bool *listed)
{
	uint32_t lo = 0, hi = nfinals;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (finals[mid].tid < (uint32_t)tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*listed = lo < nfinals && finals[lo].tid == (uint32_t)tid;
	return *listed ? finals[lo].count : UINT64_MAX;
}

/* No thread runs past the count it ended at in the recording: one that would has left
 * the recorded path (a loop the recording never made), and the replay says so there
 * instead of running on for ever. Until END is checked: the exit handlers after it
 * run on. */
static uint64_t bound_by_end(struct rp_thread *t, uint64_t now, uint64_t left)
{
	bool listed;
	if (!nfinals || end_checked || free_run)
		return left;
	uint64_t f = final_count(t->tid, &listed);
	if (!listed && finals_all)
		rp_diverge("record %zu: thread %d runs, but the recording had no thread %d",
			next_rec + 1, t->tid, t->tid);
	if (!listed)
		return left;
	if (now > f)
		rp_diverge("record %zu: thread %d reached count %llu, past count %llu where it ended "
			"in the recording", next_rec + 1, t->tid, (unsigned long long)now,
			(unsigned long long)f);
	return f - now + 1 < left ? f - now + 1 : left;
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
	int where = stop_at(r, &tid, &count, &pc);
	if (where == RP_STOP_NOWHERE)
		signal_stop(r, NULL, false, 0);
	if (where >= RP_STOP_COUNT && tid == (uint32_t)t->tid) {
		if (count < now)
			rp_diverge("record %zu: thread %u should have been %s at count %llu "
				"(pc %#llx) but is at count %llu", next_rec + 1, tid,
				r->kind == RP_LOG_PREEMPT ? "preempted" : r->kind == RP_LOG_END ?
				"stopped by the hang" : is_stop(r) ? "stopped by a signal" :
				"given a signal from outside",
				(unsigned long long)count, (unsigned long long)pc, (unsigned long long)now);
		if (count == now && where == RP_STOP_COUNT)
			signal_stop(r, NULL, true, now);
		if (count == now) {
			/* (A PC from a damaged or forged log may be no address at all.) */
			if (rp_bp_try_arm(rp_exe_base + pc) != 0)
				rp_diverge("record %zu: thread %u should stop at pc %#llx, where no "
					"breakpoint can be set (%s)", next_rec + 1, tid,
					(unsigned long long)pc, strerror(errno));
			left = 1; /* the next counting point first is a divergence */
		} else {
			left = count - now;
		}
	}
	left = bound_by_end(t, now, left);
	left = rp_debug_clip(t->tid, now, left);
	*counter = left;
	t->offset = now + left;
}

/* Is r thread t's PREEMPT at (count, pc)? */
static bool preempt_here(const struct rp_log_record *r, const struct rp_thread *t,
			 uint64_t count, uintptr_t pc)
{
	return r && r->kind == RP_LOG_PREEMPT && r->tid == (uint32_t)t->tid && r->count == count &&
	       rp_exe_base + r->pc == pc;
}

/* t reached the PREEMPT next in the log: the same scheduling decision as recorded. The
 * record and the priorities it gave are consumed, and t's counter (*counter, zero at
 * the record's count) continues from here, armed for the record after. The thread
 * may be between publishing its count and a call (movq %r15, __sic_home; movq $token,
 * %r15; call): the published copy is kept equal to the new counter. */
static void pass_preempt(struct rp_thread *t, uint64_t *counter)
{
	rp_replay_next();
	rp_up.count_replay_priorities(t);
	rp_replay_arm(t, counter);
	__sic_home = *counter;
}

/* The next record preempts t (at count now) right where the counting point whose stub
 * ran out goes on: most do (a recording preempts at a counting point's overflow). Take
 * it here, as the recording did, without arming the breakpoint at the resume pc and
 * taking its trap there (a signal: about 40 us each, 13 s of a replay of 334,000
 * preemptions that took 0.3 s to record). The thread is switched out from our own
 * code, its counter in __sic_home meanwhile, as count.c and record.c do. */
static bool preempt_at_stub(struct rp_thread *t, uint64_t now, uintptr_t stub_ret)
{
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	if (!pc || !preempt_here(rp_replay_peek(), t, now, pc))
		return false;
	rp_bp_disarm();
	at_stub++;
	uint64_t counter = 0; /* at now */
	pass_preempt(t, &counter);
	t->tick_depth++;
	t->stop_pc = pc;
	rp_preempt_at_count = true;
	rp_debug_preempt_begin(t->tid);
	sched_preempt(); /* on_switch arms its counter again when it runs again */
	rp_preempt_at_count = false; /* consumed by on_switch, or no switch happened */
	rp_debug_preempt_end(t->tid);
	t->stop_pc = 0;
	t->tick_depth--;
	if (rp_resumed_hook)
		rp_resumed_hook(&__sic_home);
	return true;
}

/* The next records deliver signals from outside to t here, at count now, where the
 * recording's overflow delivered them (async.c): the same, then its handlers run
 * from here as they did, the counter armed for the record after them. */
static bool async_at_stub(struct rp_thread *t, uint64_t now, uintptr_t stub_ret)
{
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	if (!pc || !take_signals_at(t, now, pc))
		return false;
	uint64_t counter = 0; /* at now */
	rp_replay_arm(t, &counter);
	__sic_home = counter;
	if (rp_resumed_hook)
		rp_resumed_hook(&__sic_home);
	return true;
}

uint64_t rp_replay_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t zero = 0;
	rp_debug_check(t->tid, t->offset);
	if (preempt_at_stub(t, t->offset, stub_ret))
		return __sic_home;
	if (async_at_stub(t, t->offset, stub_ret))
		return __sic_home;
	rp_replay_arm(t, &zero);
	return zero;
}

/* The breakpoint's trap (breakpoint.c): the replay's, or a recording's. */
void rp_bp_hit(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (!rp_replaying) { /* a recording's (count.c, outcome.c) */
		rp_up.count_trap(uc, sig);
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
	    rp_exe_base + r->outcome.stop_pc == pc) {
		rp_up.outcome(RP_LOG_HANG, uc, count, pc);
		__builtin_unreachable();
	}
	uint32_t stop_tid;
	uint64_t stop_count, stop_pc;
	if (is_stop(r) && stop_at(r, &stop_tid, &stop_count, &stop_pc) == RP_STOP_EXACT &&
	    stop_tid == (uint32_t)t->tid &&
	    stop_count == count && rp_exe_base + stop_pc == pc)
		signal_stop(r, uc, true, count);
	if (take_signals_at(t, count, pc)) {
		/* (a delivery at the count the thread was armed at already) */
		uint64_t *counter = (uint64_t *)&uc->uc_mcontext.gregs[REG_R15];
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig); /* the handlers' own stops trap too */
		rp_sigprocmask(SIG_UNBLOCK, &one, NULL);
		rp_replay_arm(t, counter);
		__sic_home = *counter;
		if (rp_resumed_hook)
			rp_resumed_hook(counter);
		errno = saved;
		return;
	}
	if (!preempt_here(r, t, count, pc)) {
		if (free_run) /* the log ended while the trap was on its way */
			return;
		char what[160];
		rp_diverge("record %zu: thread %d reached pc %#lx at count %llu, expected %s",
			next_rec + 1, t->tid, (unsigned long)(pc - rp_exe_base), (unsigned long long)count,
			rp_replay_describe(r, what, sizeof what));
	}
	at_trap++;
	pass_preempt(t, (uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
	rp_preempt_from_signal(uc, sig);
	errno = saved;
}

/* The running thread's counter was armed, when it was switched in, for the record
 * that came next then. A record consumed since (an input, a deadline) may leave its
 * preemption next, and it may go on without a switch that would arm it again: arm
 * it now. Its counter is in the signal frame during a preemption (sched_preempt
 * asks about deadlines), else published in __sic_home (a call from the program). */
void rp_replay_rearm_running(void)
{
	struct sched_thread *running = sched_current();
	if (!rp_replaying || rp_cur->tid == 0 || !running || running->ext != rp_cur)
		return; /* the host has no counter; main has none before it first runs */
	if (rp_preempt_uc) {
		uint64_t *counter = (uint64_t *)&rp_preempt_uc->uc_mcontext.gregs[REG_R15];
		rp_replay_arm(rp_cur, counter);
		__sic_home = *counter;
	} else {
		rp_replay_arm(rp_cur, &__sic_home);
	}
}

/* Replaying, past the end of a log cut short (or not replaying): no log decides. */
bool rp_replay_run_free(void)
{
	return !rp_replaying || free_run || (!rp_replay_peek() && log_end_status != RP_LOG_DONE);
}

/* Replay: a thread that exits with its next preemption still ahead of it has left the
 * recorded path. */
void rp_replay_thread_exit(struct rp_thread *t)
{
	const struct rp_log_record *r = rp_replaying ? rp_replay_peek() : NULL;
	uint32_t tid;
	uint64_t count, pc;
	if (stop_at(r, &tid, &count, &pc) == RP_STOP_EXACT && r->kind != RP_LOG_END &&
	    tid == (uint32_t)t->tid)
		rp_diverge("record %zu: thread %d exited at count %llu before its %s at count %llu",
			next_rec + 1, t->tid, (unsigned long long)(t->offset - __sic_home),
			r->kind == RP_LOG_PREEMPT ? "preemption" : is_stop(r) ? "stop by a signal" :
			"signal from outside", (unsigned long long)count);
}

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];

static const char *end_name(int how)
{
	return how == RP_LOG_DEADLOCK ? "deadlock" : how == RP_LOG_HANG ? "hang" :
	       how == RP_LOG_EXECED ? "exec" :
	       how == RP_LOG_EXITED ? "exit status" : "signal";
}

/* The final counts of the threads (uc: where the running one stopped; now, when
 * now_known, its count) against the END record r's, if counts; then r is consumed. */
static void check_finals(const struct rp_log_record *r, const ucontext_t *uc, bool counts,
			 bool now_known, uint64_t now)
{
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	for (size_t j = 0; now_known && j < n; j++)
		if (end_threads[j].tid == (uint32_t)rp_cur->tid)
			end_threads[j].count = now;
	for (uint32_t k = 0; counts && k < r->nthreads; k++) {
		size_t j = 0;
		while (j < n && end_threads[j].tid != r->threads[k].tid)
			j++;
		if (j == n || end_threads[j].count != r->threads[k].count)
			rp_diverge("thread %u ended at count %llu, in the recording at %llu", r->threads[k].tid,
				j == n ? 0ull : (unsigned long long)end_threads[j].count,
				(unsigned long long)r->threads[k].count);
	}
	end_checked = true;
	rp_replay_next();
	if (getenv("LIBREPLAY_STATS"))
		rp_say("%llu preemptions replayed at a counting point, %llu at the %s breakpoint",
		       (unsigned long long)at_stub, (unsigned long long)at_trap,
		       rp_bp_kind() == RP_BP_SOFTWARE ? "software" : "hardware");
	/* What runs after END (exit handlers registered before the session: gcov's
	 * writing of its counts, say) ran unrecorded: so it runs here, live. */
	free_run = true;
}

/* The program ends (how, value) as the END record now next says? */
static void end_check(int how, int value, const ucontext_t *uc, bool counts, bool now_known,
		      uint64_t now)
{
	const struct rp_log_record *r = rp_replay_peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END) {
		char what[160];
		rp_diverge("record %zu: the program ended (%s %d) where the recording went on: %s",
			next_rec + 1, end_name(how), value, rp_replay_describe(r, what, sizeof what));
	}
	if (r->how != how || r->value != value)
		rp_diverge("the program ended with %s %d, the recording with %s %d", end_name(how),
			value, end_name(r->how), r->value);
	check_finals(r, uc, counts, now_known, now);
}

void rp_replay_check_end(int how, int value, const ucontext_t *uc)
{
	end_check(how, value, uc, true, false, 0);
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
	if (!rp_up.outcome_same(o->waits, o->nwaits, x->waits, x->nwaits))
		rp_diverge("the %s left the threads in other states than the recording's", end_name(how));
	check_finals(r, uc, true, false, 0);
}

/* ---- a recording ended by a signal from outside ------------------------------------------ */

static bool is_stop(const struct rp_log_record *r)
{
	return r && r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_SIGNAL_STOP &&
	       r->len == RP_SIGNAL_STOP_LEN;
}

/* Where a record stops a thread: a PREEMPT (RP_STOP_EXACT), a SIGNAL_STOP (where it
 * says); -1 for any other record. */
static int stop_at(const struct rp_log_record *r, uint32_t *tid, uint64_t *count, uint64_t *pc)
{
	if (r && r->kind == RP_LOG_PREEMPT) {
		*tid = r->tid, *count = r->count, *pc = r->pc;
		return RP_STOP_EXACT;
	}
	if (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && r->outcome.stop_tid) {
		*tid = r->outcome.stop_tid, *count = r->outcome.stop_count, *pc = r->outcome.stop_pc;
		return RP_STOP_EXACT; /* where --timeout stopped the recording */
	}
	uint8_t where;
	siginfo_t si;
	if (signal_at(r, &where, count, pc, &si)) {
		*tid = r->tid;
		return where == RP_STOP_EXACT ? RP_STOP_EXACT : -1; /* at idle: no thread stops */
	}
	if (!is_stop(r))
		return -1;
	*tid = r->tid;
	memcpy(count, r->data + 5, 8);
	memcpy(pc, r->data + 13, 8);
	return r->data[4] <= RP_STOP_EXACT ? r->data[4] : RP_STOP_NOWHERE;
}

/* The replay reached the point where a signal from outside ended the recording: it
 * ends the same way, dying of that signal, after checking END (every thread's count
 * too where the log names the point: counts; the running thread's is now). */
static _Noreturn void signal_stop(const struct rp_log_record *r, const ucontext_t *uc, bool counts,
				  uint64_t now)
{
	int32_t sig;
	memcpy(&sig, r->data, sizeof sig);
	const char *name = sigabbrev_np(sig);
	rp_dying = 1;
	rp_bp_disarm();
	rp_say("the recording was ended here by signal %d (SIG%s) from outside; so is its replay%s",
	       (int)sig, name ? name : "?", counts ? "" : " (the log names this point only roughly)");
	rp_replay_next();
	end_check(RP_LOG_SIGNALED, sig, uc, counts, counts && uc == NULL && now != 0, now);
	char why[16] = "SIG";
	strncat(why, name ? name : "?", sizeof why - 4);
	rp_trace_end(why, uc);
	rp_session_die_of(sig);
}

/* ---- signals from outside, delivered (async.c) ------------------------------------------ */

/* Is r a SIGNAL_AT? Then where it was delivered and the siginfo. */
static bool signal_at(const struct rp_log_record *r, uint8_t *where, uint64_t *count, uint64_t *pc,
		      siginfo_t *si)
{
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != RP_INPUT_SIGNAL_AT ||
	    r->len != RP_SIGNAL_AT_LEN)
		return false;
	*where = r->data[0];
	memcpy(count, r->data + 1, 8);
	memcpy(pc, r->data + 9, 8);
	memcpy(si, r->data + 17, sizeof *si);
	return true;
}

/* The next records deliver signals from outside to the running thread t at (count,
 * pc): each is queued as the recording queued it, and consumed. False if none. */
static bool take_signals_at(struct rp_thread *t, uint64_t count, uintptr_t pc)
{
	uint8_t where;
	uint64_t c, p;
	siginfo_t si;
	const struct rp_log_record *r;
	bool any = false;
	while ((r = rp_replay_peek()) && signal_at(r, &where, &c, &p, &si) &&
	       where == RP_STOP_EXACT && r->tid == (uint32_t)t->tid && c == count &&
	       rp_exe_base + p == pc) {
		rp_replay_next();
		if (rp_async_hook)
			rp_async_hook(&si, true);
		any = true;
	}
	return any;
}

/* Every thread waits, the scheduler at question pos: the next records that deliver
 * signals from outside there are taken (queued for their threads, which they may
 * wake). */
static bool take_signals_idle(uint64_t pos)
{
	uint8_t where;
	uint64_t c, p;
	siginfo_t si;
	bool any = false;
	while (signal_at(rp_replay_peek(), &where, &c, &p, &si) && where == RP_STOP_IDLE &&
	       c == pos) {
		rp_replay_next();
		if (rp_async_hook)
			rp_async_hook(&si, false);
		any = true;
	}
	if (any)
		rp_replay_rearm_running();
	return any;
}

bool rp_replay_async_idle(void)
{
	return !rp_replay_run_free() && take_signals_idle(rp_questions_asked());
}

/* The question position a SIGNAL_AT delivered at while every thread waited, if r is
 * one (decide.c's idle check). */
bool rp_replay_signal_idle_pos(const struct rp_log_record *r, uint64_t *pos)
{
	uint8_t where;
	uint64_t pc;
	siginfo_t si;
	return signal_at(r, &where, pos, &pc, &si) && where == RP_STOP_IDLE;
}

void rp_replay_idle_stop(void)
{
	uint32_t tid;
	uint64_t count, pc;
	const struct rp_log_record *r = have_cur ? &cur : NULL;
	if (stop_at(r, &tid, &count, &pc) == RP_STOP_IDLE)
		signal_stop(r, NULL, true, 0);
}

/* ---- opening the log ---------------------------------------------------------------------- */

static int by_tid(const void *a, const void *b)
{
	const struct rp_log_final *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The log's last block, read alone (each block decodes on its own): its END's final
 * counts, and an outside signal the recording noted (record.c repeats it there). */
static void read_last_block(const struct rp_log_scan *sc)
{
	struct rp_log_reader *t;
	struct rp_log_record rec;
	char err[RP_LOG_ERRLEN];
	if (!sc->blocks || rp_log_open(rp_opts.log_path, &t, err, sizeof err) != 0)
		return;
	rp_log_seek(t, sc->last_off, sc->last_seq, sc->last_first);
	while (rp_log_next(t, &rec) == RP_LOG_OK) {
		if (rec.kind == RP_LOG_INPUT && rec.input_kind == RP_INPUT_ASYNC_SIGNAL)
			rp_replay_refuse_async(&rec);
		if (rec.kind != RP_LOG_END)
			continue;
		finals = rp_malloc((rec.nthreads ? rec.nthreads : 1) * sizeof *finals);
		if (!finals)
			rp_fatal_memory("the log's last block");
		memcpy(finals, rec.threads, rec.nthreads * sizeof *finals);
		nfinals = rec.nthreads;
		finals_all = rec.nthreads < RP_LOG_END_THREADS_MAX;
		qsort(finals, nfinals, sizeof *finals, by_tid);
		rp_replay_view.has_end = 1;
		rp_replay_view.finals = finals;
		rp_replay_view.nfinals = nfinals;
	}
	rp_log_close_reader(t);
}

/* Started by a debugger (gdb runs it traced from the first instruction)? */
static bool traced(void)
{
	char buf[4096];
	int fd = rp_sys_open("/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ssize_t n = rp_sys_read(fd, buf, sizeof buf - 1);
	rp_sys_close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *p = strstr(buf, "TracerPid:");
	return p && strtol(p + 10, NULL, 10) != 0;
}

/* Replay: open the log and check it is this program's; its blocks are counted and its
 * last one read, the rest is read as the replay goes. Called by the first recorded
 * input of a constructor, or at start. */
void rp_replay_load_log(void)
{
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	if (rp_log_open(rp_opts.log_path, &r, err, sizeof err) != 0) {
		if (errno == ENOMEM)
			rp_fatal_memory("the log's reader");
		rp_say("%s", err);
		rp_exit(RP_EXIT_USAGE);
	}
	/* A race build replays the ordinary build's recording (anchors.c). */
	if (!rp_opts.races && rp_log_check_build_id(r, err, sizeof err) < 0) {
		rp_say("%s", err);
		rp_exit(RP_EXIT_USAGE);
	}
	struct rp_log_scan sc;
	if (rp_log_scan(r, &sc) == 0) {
		rp_replay_view.total = sc.records;
		read_last_block(&sc);
	}
	reader = r;
	if (traced() && rp_log_open(rp_opts.log_path, &ahead, err, sizeof err) == 0)
		rp_replay_view.lookahead = 1;
	rp_replay_view.version = RP_REPLAY_VIEW_VERSION;
	read_next(); /* the context note first: its warning comes before the program runs */
}

void rp_replay_start(int *argc, char ***argv)
{
	if (!reader)
		rp_replay_load_log();
	const struct rp_log_header *h = rp_log_header(reader);
	/* The recorded arguments, unless the command line names the same ones. */
	if (*argc > 1) {
		bool same = *argc == h->argc;
		for (int i = 1; same && i < *argc; i++)
			same = strcmp((*argv)[i], h->argv[i]) == 0;
		if (!same) {
			rp_say("%s: recorded with other arguments (replay takes them "
					"from the log: give none)", rp_opts.log_path);
			rp_exit(RP_EXIT_USAGE);
		}
	}
	char **av = rp_calloc((size_t)h->argc + 1, sizeof *av);
	for (int i = 0; av && i < h->argc; i++)
		av[i] = rp_strdup(h->argv[i]);
	if (!av)
		rp_fatal_memory("the recorded arguments");
	av[0] = (*argv)[0];
	*argc = h->argc;
	*argv = av;
	/* After the log ends, time slices of the recording's quantum. */
	if (h->quantum_ns >= RP_MIN_QUANTUM_NS)
		rp_opts.quantum_ns = h->quantum_ns;
	rp_log_hunted = h->flags & RP_LOG_F_HUNT;

	rp_bp_open();
	rp_replaying = true;
	look_ahead(1);
}
