/* outcome.c: deadlocks and hangs are how a run ends, not divergences (docs/replay.md,
 * "Deadlocks and hangs"). What every thread is doing (the waits-for graph the END
 * record carries, rp_outcome_graph), and the report a recording and its replay print
 * alike: each thread's state in words, with the objects named by their symbols
 * (objname.c), and its backtrace (crash.c); then the waits-for cycle, if there is one.
 * No stdio for the report: a hang's may come from a signal handler (the program's
 * stdout is flushed before the exit all the same, as exit would). */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RP_OUTCOME_THREADS 1024 /* threads whose state an END of a deadlock or hang holds */
static struct rp_log_wait outcome_waits[RP_OUTCOME_THREADS];

/* The run ends as a deadlock or a hang (how): the log gets END with every thread's
 * state (the replay checks its own against it), the report is printed, a debugger
 * stops in rp_debug_outcome, and the process exits with the outcome's status. uc: the
 * signal context the running thread stopped at (count, pc) (a hang), or NULL. */
_Noreturn void rp_outcome(int how, ucontext_t *uc, uint64_t count, uintptr_t pc)
{
	rp_dying = 1;
	rp_record_stop_timer();
	rp_hang_stop();
	rp_bp_disarm();
	rp_trace_end(how == RP_LOG_DEADLOCK ? "deadlock" : "hang", uc);
	struct rp_log_outcome o = {0};
	o.nwaits = (uint32_t)rp_outcome_graph(outcome_waits, RP_OUTCOME_THREADS);
	o.waits = outcome_waits;
	if (uc) {
		o.stop_tid = (uint32_t)rp_cur->tid;
		o.stop_count = count;
		o.stop_pc = pc - rp_exe_base;
	}
	int status = how == RP_LOG_DEADLOCK ? RP_EXIT_DEADLOCK : RP_EXIT_HANG;
	if (rp_replaying)
		rp_replay_check_outcome(how, uc, &o);
	else
		rp_record_outcome(how, status, uc, &o);
	if (!rp_debug.quiet) /* (the debugger going back: the user saw it) */
		rp_outcome_report(how, "the run went on past --timeout", sched_current(), uc);
	fflush(stdout);
	rp_debug_outcome(how);
	rp_exit_group(status);
}

size_t rp_outcome_graph(struct rp_log_wait *w, size_t max)
{
	size_t n = 0;
	for (struct sched_thread *st = sched_thread_next(NULL); st && n < max; st = sched_thread_next(st)) {
		struct sched_thread_info in;
		sched_thread_info(st, &in);
		struct rp_log_wait *x = &w[n++];
		memset(x, 0, sizeof *x);
		x->tid = (uint32_t)in.id;
		x->state = (uint8_t)in.state;
		x->kind = (uint8_t)in.wait_kind;
		x->obj = (uint64_t)(uintptr_t)in.wait_obj;
		x->owner = in.wait_owner > 0 ? (uint32_t)in.wait_owner : 0;
		x->nheld = in.nheld;
		for (unsigned k = 0; k < in.nheld && k < RP_LOG_HELD_MAX && k < SCHED_HELD_MAX; k++)
			x->held[k] = (uint64_t)(uintptr_t)in.held[k];
	}
	return n;
}

struct addr_pair {
	uint64_t x, y;
};

static int by_x(const void *p, const void *q)
{
	const struct addr_pair *a = p, *b = q;
	return a->x < b->x ? -1 : a->x > b->x ? 1 : a->y < b->y ? -1 : a->y > b->y;
}

/* Each address of one list stands for one of the other, and the other way round. */
static bool one_to_one(struct addr_pair *p, size_t n)
{
	for (int pass = 0; pass < 2; pass++) {
		qsort(p, n, sizeof *p, by_x);
		for (size_t i = 1; i < n; i++)
			if (p[i].x == p[i - 1].x && p[i].y != p[i - 1].y)
				return false;
		for (size_t i = 0; i < n; i++) {
			uint64_t t = p[i].x;
			p[i].x = p[i].y;
			p[i].y = t;
		}
	}
	return true;
}

/* The objects the threads wait on and hold are compared by address; a replay at
 * other addresses than its recording's (--any-layout) has its own, so there the same
 * objects must stand in the same places: one address of the recording for one of the
 * replay. */
static bool same_objects(const struct rp_log_wait *a, const struct rp_log_wait *b, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += 1 + (a[i].nheld < RP_LOG_HELD_MAX ? a[i].nheld : RP_LOG_HELD_MAX);
	struct addr_pair *p = rp_malloc(m * sizeof *p);
	if (!p)
		rp_fatal_memory("the deadlock's comparison");
	m = 0;
	for (size_t i = 0; i < n; i++) {
		p[m++] = (struct addr_pair){a[i].obj, b[i].obj};
		for (uint32_t k = 0; k < a[i].nheld && k < RP_LOG_HELD_MAX; k++)
			p[m++] = (struct addr_pair){a[i].held[k], b[i].held[k]};
	}
	bool same = one_to_one(p, m);
	rp_free(p);
	return same;
}

/* Is the graph the replay reached the one the recording logged? */
bool rp_outcome_same(const struct rp_log_wait *a, size_t na, const struct rp_log_wait *b, size_t nb)
{
	bool moved = *rp_layout_differences() != '\0';
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].tid != b[i].tid || a[i].state != b[i].state || a[i].kind != b[i].kind ||
		    a[i].owner != b[i].owner || a[i].nheld != b[i].nheld ||
		    (!moved && (a[i].obj != b[i].obj || memcmp(a[i].held, b[i].held, sizeof a[i].held))))
			return false;
	return !moved || same_objects(a, b, na);
}

/* "blocked on mutex lock_b, held by thread 2; holds mutex lock_a" */
static void describe(const struct sched_thread_info *in, bool stopped, char *buf, size_t len)
{
	char obj[160];
	size_t n = 0;
	switch (in->state) {
	case SCHED_RUNNING:
	case SCHED_RUNNABLE:
		n = (size_t)snprintf(buf, len, "%s", stopped ? "stopped here" : "runnable");
		break;
	case SCHED_EXITED:
		n = (size_t)snprintf(buf, len, "exited, not joined");
		break;
	case SCHED_BLOCKED:
		if (in->wait_kind == SCHED_WAIT_JOIN)
			n = (size_t)snprintf(buf, len, "blocked joining thread %d", in->wait_owner);
		else if (in->wait_kind == SCHED_WAIT_SLEEP)
			n = (size_t)snprintf(buf, len, "sleeping");
		else
			n = (size_t)snprintf(buf, len, "blocked on %s %s", sched_wait_kind_name(in->wait_kind),
					     rp_objname(in->wait_obj, obj, sizeof obj));
		if (in->wait_owner > 0 && in->wait_kind != SCHED_WAIT_JOIN && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", held by thread %d", in->wait_owner);
		break;
	default:
		n = (size_t)snprintf(buf, len, "abandoned");
	}
	for (unsigned k = 0; k < in->nheld && k < SCHED_HELD_MAX && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "; holds mutex ",
				      rp_objname(in->held[k], obj, sizeof obj));
	if (in->nheld > SCHED_HELD_MAX && n < len)
		snprintf(buf + n, len - n, " and %u more", in->nheld - SCHED_HELD_MAX);
}

#define RP_CYCLE_MAX 8192 /* threads followed around a cycle */

static struct sched_thread *by_id(int id)
{
	for (struct sched_thread *st = sched_thread_next(NULL); st; st = sched_thread_next(st))
		if (st->id == id)
			return st;
	return NULL;
}

/* The waits-for cycle through the first thread that is on one, as a line. */
static void cycle(void)
{
	char line[512];
	for (struct sched_thread *start = sched_thread_next(NULL); start; start = sched_thread_next(start)) {
		struct sched_thread *t = start;
		bool back = false;
		/* follow who holds what each waits for: back at start? */
		for (int steps = 0; steps < RP_CYCLE_MAX && !back; steps++) {
			struct sched_thread_info in;
			sched_thread_info(t, &in);
			if (in.state != SCHED_BLOCKED || in.wait_owner <= 0 || !(t = by_id(in.wait_owner)))
				break;
			back = t == start;
		}
		if (!back)
			continue;
		size_t n = (size_t)snprintf(line, sizeof line, "libreplay: waits-for cycle: thread %d", start->id);
		t = start;
		do {
			struct sched_thread_info in;
			sched_thread_info(t, &in);
			t = by_id(in.wait_owner);
			if (n < sizeof line)
				n += (size_t)snprintf(line + n, sizeof line - n, " -> thread %d", t->id);
		} while (t != start);
		if (n < sizeof line - 1)
			strcpy(line + n, "\n");
		rp_report_line(line);
		return;
	}
}

void rp_outcome_report(int how, const char *why, struct sched_thread *here, ucontext_t *uc)
{
	bool stopped = uc != NULL;
	char line[1024], state[800];
	int live = 0, exited = 0;
	for (struct sched_thread *st = sched_thread_next(NULL); st; st = sched_thread_next(st)) {
		struct sched_thread_info in;
		sched_thread_info(st, &in);
		exited += in.state == SCHED_EXITED;
		live += in.state != SCHED_EXITED;
	}
	if (how == RP_LOG_DEADLOCK)
		snprintf(line, sizeof line, "libreplay: deadlock: all %d live thread%s blocked", live,
			 live == 1 ? " is" : "s are");
	else
		snprintf(line, sizeof line, "libreplay: hang: %s", why);
	rp_report_line(line);
	if (exited) {
		snprintf(line, sizeof line, " (%d more exited, not joined)", exited);
		rp_report_line(line);
	}
	/* The threads the forking one left behind are not listed: say where they went. */
	if (sched_in_forked_child())
		rp_report_line(" in a child of fork(), which has only the thread that forked and "
			       "those it made: the others' locks stay held");
	rp_report_line("\n");
	for (struct sched_thread *st = sched_thread_next(NULL); st; st = sched_thread_next(st)) {
		struct sched_thread_info in;
		sched_thread_info(st, &in);
		describe(&in, stopped && st == here, state, sizeof state);
		rp_report_thread(st, state, st == here, uc);
	}
	if (how == RP_LOG_DEADLOCK)
		cycle();
	rp_report_flush();
}
