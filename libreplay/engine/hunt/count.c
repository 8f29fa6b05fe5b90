/*
 * count.c: preemptions by instruction count (--hunt, --chaos), recording or not
 * (docs/replay.md, "Finding the bug: --hunt"). hunt.c decides, from the seed alone;
 * this file puts its decisions where the replay can take them again.
 *
 * Each thread's counter is loaded to reach zero where hunt.c wants it preempted: at the
 * end of its slice (slice_end), or at its next counting point (soon: after a
 * synchronization call, or when a preemption could not be taken where it fell). The
 * overflow then preempts there and logs an ordinary PREEMPT; or it arms the hardware
 * breakpoint at one of the next few memory accesses (soon_pc), and the breakpoint's
 * signal preempts there (rp_count_trap), unless the next counting point comes first.
 * A slice's end looks for its place a while (seek): a counting point with a window
 * ahead (a repeated or atomic access, sicpp/hunt.c), or one out of the loop it ended
 * in, or the loop's exit by the breakpoint; not where nothing can be decided (a
 * cooldown, rp_hunt_quiet: the next slice's end comes later), nor, from a place that
 * had many preemptions placed already (rp_hunt_place_worth): decided there, no seek
 * and no trap. A synchronization call may also be
 * preempted before it acts: the thread is switched out inside the call, logged at the
 * counting point of the program's call instruction, where the replay stops it.
 * Priorities (--hunt) are given at creation and at change points, and logged as INPUT
 * PRIORITY records after the PREEMPT. Since every decision is a function of the seed
 * and the counts, the same seed and inputs give the same schedule, logged or not.
 */
#include "engine/core.h"
#include "engine/hunt/hunt.h"

#include <string.h>

bool rp_sync_watch;
uint32_t rp_sync_quiet, rp_sync_sites[1 << RP_SYNC_SITES_LOG2];
bool rp_sync_wake;
bool rp_sync_sleepers;
unsigned long rp_sync_gen;
_Static_assert(1 << RP_SYNC_SITES_LOG2 == RP_HUNT_SITES, "one slot per site hunt.c tells apart");
static bool pct; /* --hunt: priorities, steps at synchronization calls */
static int created_by; /* the thread whose call created a thread last, till its call ends */

void rp_count_arm(struct rp_thread *t, uint64_t *counter)
{
	uint64_t now = t->offset - *counter;
	uint64_t left = t->soon || t->slice_end <= now ? 1 : t->slice_end - now;
	*counter = left;
	t->offset = now + left;
}

/* The recording's breakpoint is one thread's: a switch, or the counting point that
 * came first, takes it back. */
static void exit_pc_cancel(struct rp_thread *t)
{
	if (t->exit_pc) {
		rp_bp_disarm();
		t->exit_pc = 0;
	}
}

static void soon_pc_cancel(struct rp_thread *t)
{
	t->start_trap = false;
	t->ret_walk = false;
	if (t->soon_pc) {
		rp_bp_disarm();
		t->soon_pc = 0;
	}
}

static bool soon_at(struct rp_thread *t, uintptr_t pc);

void rp_count_switched(struct rp_thread *prev, struct rp_thread *next)
{
	soon_pc_cancel(prev);
	exit_pc_cancel(prev);
	prev->soon = prev->pending = false;
	prev->new_prio = 0; /* a decision not taken before it switched goes */
	prev->sync_step = false;
	rp_sync_gen = sched_runnable_gen - 1; /* next's first step after a call asks */
	next->in_count = next->offset - *rp_thread_counter(next);
	rp_hunt_resumed(next->tid);
	if (next->start_call)
		rp_hunt_sync_ask(); /* its first call's step after must not pass unasked */
	if (next->start_memop) {
		/* its first turn: ends at the access, if it gets there before its slice's
		 * end or a switch (either takes the breakpoint back) */
		uintptr_t pc = next->start_memop;
		next->start_memop = 0;
		if (!rp_replaying && soon_at(next, pc))
			next->start_trap = true;
	}
}

/* The repeated or atomic memory accesses (sicpp/hunt.c) in the window after from, where
 * a preemption splits two accesses to one location; preemptible ones only. */
#define RP_SEEK_POINTS 256 /* counting points a slice's end looks on for a window */
#define RP_EXIT_SLICES 2   /* slices a loop's end is waited for */
#define RP_WINDOW_CANDIDATES 4
#define RP_PLACE_CANDIDATES 8 /* the arrays: windows, or any accesses (places_ahead) */
static size_t window_ahead(uintptr_t from, uintptr_t *c)
{
	if (!rp_bp_ready() || !from || !rp_sic_pc_instrumented(from))
		return 0;
	size_t found = rp_sic_memops(from, from + RP_WINDOW_BYTES, RP_MEMOP_ATOMIC | RP_MEMOP_REPEAT,
				     c, RP_WINDOW_CANDIDATES);
	size_t n = 0;
	for (size_t i = 0; i < found; i++)
		if (rp_sic_pc_preemptible(c[i]))
			c[n++] = c[i];
	return n;
}

/* The first return of the function from is in (sicpp writes each as movq $TOKEN, %r15;
 * ret), within the window after from: where its `ret` is, or 0. */
static uintptr_t return_ahead(uintptr_t from)
{
	static const unsigned char ret[] = {0x49, 0xc7, 0xc7, 0xde, 0xc0, 0x5a, 0x9e, 0xc3};
	if (!rp_sic_pc_instrumented(from + RP_WINDOW_BYTES - 1))
		return 0; /* (mapped) */
	const unsigned char *r = memmem((const void *)from, RP_WINDOW_BYTES, ret, sizeof ret);
	return r ? (uintptr_t)r + sizeof ret - 1 : 0;
}

/* The shared memory accesses (any kind sic_memops lists: stores and loads of non-stack
 * memory) ahead of from, before its function's first return (those after it are
 * another function's), preemptible ones, at most max; none before the return: *retp
 * gets its `ret` (else 0), where a trap can look on in the caller (ret_walk). */
static size_t accesses_ahead(uintptr_t from, uintptr_t *c, size_t max, uintptr_t *retp)
{
	*retp = 0;
	if (!rp_bp_ready() || !from || !rp_sic_pc_instrumented(from))
		return 0;
	uintptr_t r = return_ahead(from);
	size_t found = rp_sic_memops(from, r ? r : from + RP_WINDOW_BYTES, RP_MEMOP_ANY, c, max);
	size_t n = 0;
	for (size_t i = 0; i < found; i++)
		if (rp_sic_pc_preemptible(c[i]))
			c[n++] = c[i];
	if (!n && r && rp_sic_pc_instrumented(r))
		*retp = r;
	return n;
}

/* Where a decision taken at from may land ahead: its windows, or, in a seed that
 * switches at any shared access (rp_hunt_any_access), the accesses ahead, up to the
 * function's return and past it (*retp). */
static size_t places_ahead(uintptr_t from, uintptr_t *c, uintptr_t *retp)
{
	*retp = 0;
	if (!rp_hunt_any_access())
		return window_ahead(from, c);
	return accesses_ahead(from, c, RP_PLACE_CANDIDATES, retp);
}

/* What places_ahead finds from a pc is the code's, fixed while that code is there: a
 * hot synchronization call site or counting point asks again and again (a lock loop
 * 10^7 times: the return's memmem and the tables' binary searches made hunting cost 9x
 * --no-record), so each answer is kept, a few hundred of them (direct-mapped, by pc),
 * until a shared object comes or goes (rp_sic_code_gen): a library dlopened where a
 * dlclosed one was has other accesses at the same pcs (tests/hunt's lib_swap). */
#define RP_PLACES_CACHE 512
struct places {
	uintptr_t from, ret;
	unsigned long gen;
	size_t n;
	uintptr_t c[RP_PLACE_CANDIDATES];
};

static const struct places *places_cached(uintptr_t from)
{
	static struct places cache[RP_PLACES_CACHE];
	struct places *e = &cache[(from ^ from >> 9) % RP_PLACES_CACHE];
	if (e->from != from || e->gen != rp_sic_code_gen || !from) {
		e->from = from;
		e->gen = rp_sic_code_gen;
		e->n = places_ahead(from, e->c, &e->ret);
	}
	return e;
}

/* Does the RIP-relative movq at p name __sic_home, directly (the executable's form) or
 * through its GOT slot (a shared object's, sicpp --pic: the slot read only if it lies
 * in p's object)? 1, 2 (the slot), or 0. */
static int names_home(const unsigned char *p)
{
	int32_t disp;
	memcpy(&disp, p + 3, sizeof disp);
	uintptr_t at = (uintptr_t)(p + 7) + (intptr_t)disp, slot;
	if (at == (uintptr_t)&__sic_home)
		return 1;
	if (!rp_sic_same_object((uintptr_t)p, at, sizeof slot))
		return 0;
	memcpy(&slot, (const void *)at, sizeof slot);
	return slot == (uintptr_t)&__sic_home ? 2 : 0;
}

/* The first instruction after a call from the program returns: past the reload of the
 * count (movq __sic_home(%rip), %r15, as sicpp writes it; in a shared object movq
 * __sic_home@GOTPCREL(%rip), %r15; movq (%r15), %r15), at the count the call
 * published. 0 if ret is not such a return or the instruction is not preemptible. */
static uintptr_t after_call(uintptr_t ret)
{
	static const unsigned char deref[] = {0x4d, 0x8b, 0x3f};
	if (!rp_sic_pc_instrumented(ret))
		return 0;
	const unsigned char *r = (const unsigned char *)ret;
	int how = r[0] == 0x4c && r[1] == 0x8b && r[2] == 0x3d ? names_home(r) : 0;
	uintptr_t first = how == 1 ? ret + 7 :
			  how == 2 && !memcmp(r + 7, deref, sizeof deref) ? ret + 10 : 0;
	return first && rp_sic_pc_preemptible(first) ? first : 0;
}

/* after_call(ret), kept as places_cached keeps its answers. */
static uintptr_t after_cached(uintptr_t ret)
{
	static struct {
		uintptr_t ret, first;
		unsigned long gen;
	} cache[RP_PLACES_CACHE];
	size_t i = (ret ^ ret >> 9) % RP_PLACES_CACHE;
	if (cache[i].ret != ret || cache[i].gen != rp_sic_code_gen) {
		cache[i].ret = ret;
		cache[i].gen = rp_sic_code_gen;
		cache[i].first = after_call(ret);
	}
	return cache[i].first;
}

/* Stop t at pc with the breakpoint (before its next counting point). */
static bool soon_at(struct rp_thread *t, uintptr_t pc)
{
	if (!rp_bp_ready() || !pc)
		return false;
	t->exit_pc = 0; /* one breakpoint: it was that one */
	t->start_trap = false;
	rp_bp_arm(pc);
	t->soon_pc = pc;
	return true;
}

/* Stop t at the access pc with the breakpoint, if its place is worth a trap still
 * (rp_hunt_place_worth); else false: the preemption comes at a counting point. */
static bool window_at(struct rp_thread *t, uintptr_t pc)
{
	return rp_bp_ready() && pc && rp_hunt_place_worth(rp_sic_pc_key(pc)) && soon_at(t, pc);
}

/* A decision to land at an access ahead, where there is none before the function
 * returns: stop t at its `ret` (r) by the breakpoint, and look on from there in the
 * caller (rp_count_trap), so a lock taken in a wrapper (lock(m) calling
 * pthread_mutex_lock) is followed by a switch at the caller's accesses. Not soon: the
 * return's own counting point comes before the `ret`. */
static bool ret_walk_at(struct rp_thread *t, uintptr_t r)
{
	if (!r || !rp_hunt_place_worth(rp_sic_pc_key(r)) || !soon_at(t, r))
		return false;
	t->ret_walk = true;
	t->soon = false;
	return true;
}

/* A step of the hunting scheduler; then, if synchronization steps can decide nothing
 * more in this run (rp_hunt_sync_steps: quick, delays past its change points), the
 * pthread layer's hooks stop calling (a hot lock loop's 4 calls an iteration). */
static bool sync_may_stop; /* a strategy whose synchronization steps may end (delays) */

static struct rp_hunt_decision step(const struct rp_hunt_question *q)
{
	struct rp_hunt_decision d = rp_hunt_step(q);
	if (sync_may_stop && !rp_hunt_sync_steps())
		rp_sync_watch = sync_may_stop = false;
	return d;
}

/* Priorities: sched's, logged where the replay takes them (rp_count_thread_created,
 * replay_priorities). */
struct prio_rec {
	int32_t tid, prio;
};

static void give_priority(struct sched_thread *st, int prio)
{
	struct prio_rec r = {st->id, prio};
	sched_set_priority(st, prio);
	if (rp_writer)
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_PRIORITY, &r, sizeof r);
}

/* One of the first shared memory accesses (any kind) of a start function, where its
 * thread's first turn may end (rp_hunt_thread_start), or 0. */
static uintptr_t start_access(uintptr_t fn)
{
	uintptr_t c[RP_WINDOW_CANDIDATES], r;
	size_t n = accesses_ahead(fn, c, RP_WINDOW_CANDIDATES, &r);
	return n ? c[rp_hunt_choose((unsigned)n)] : 0;
}

void rp_count_thread_created(struct sched_thread *st, struct rp_thread *t)
{
	if (rp_replaying) {
		struct prio_rec r;
		if (rp_log_hunted && rp_input_replay(RP_INPUT_PRIORITY, &r, sizeof r)) {
			if (r.tid != st->id)
				rp_diverge("record %zu: thread %d got a priority, here thread %d was created",
					rp_replay_recno() - 1, r.tid, st->id);
			sched_set_priority(st, r.prio);
		}
		return;
	}
	if (!rp_counting)
		return;
	created_by = rp_cur ? rp_cur->tid : 0;
	if (pct)
		rp_hunt_sync_ask(); /* the creator's step after the call knows it created */
	t->slice_end = (t->offset - t->home) + rp_hunt_slice(t->offset - t->home);
	if (pct)
		give_priority(st, rp_hunt_priority(sched_priority(sched_current())));
	/* The executable's start functions only: a library's thread wrapper (NSPR's
	 * _pt_root) calls the program's function later, and its first accesses are its
	 * own bookkeeping; a demotion there put the new thread last (radbench bug6, pct:
	 * 92 of 300 runs failed without it, 60 with it). */
	if (pct && t->prog_fn && rp_hunt_thread_start() &&
	    (uintptr_t)t->prog_fn - rp_exe_base < rp_exe_span)
		t->start_memop = start_access((uintptr_t)t->prog_fn);
	/* none at an access: right after its first synchronization call, then */
	if (pct && t->prog_fn && !t->start_memop && rp_hunt_thread_first_call())
		t->start_call = true;
}

/* Replay: the priority a change point gave, right after its PREEMPT. */
void rp_count_replay_priorities(struct rp_thread *t)
{
	const struct rp_log_record *r;
	struct prio_rec p;
	if (!rp_log_hunted)
		return;
	while ((r = rp_replay_peek()) && r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_PRIORITY &&
	       r->tid == (uint32_t)t->tid && r->len == sizeof p) {
		memcpy(&p, r->data, sizeof p);
		if (p.tid != t->tid)
			break; /* a thread it creates next */
		rp_replay_next();
		sched_set_priority(sched_current(), p.prio);
	}
}

/* Preempt t, which is at (count, pc), from our own code (not a signal): its counter is
 * in __sic_home meanwhile. Returns once it runs again, its counter loaded anew. */
static void count_preempt(struct rp_thread *t, uint64_t count, uintptr_t pc)
{
	t->soon = false;
	soon_pc_cancel(t);
	rp_record_preempt(t, count, pc);
	if (t->new_prio) {
		give_priority(sched_current(), t->new_prio);
		t->new_prio = 0;
	}
	t->demoting = t->sync_step;
	t->sync_step = false;
	__sic_home = t->offset - count;
	t->tick_depth++;
	t->stop_pc = pc;
	rp_preempt_at_count = true;
	sched_preempt(); /* on_switch loads its counter when it runs again */
	rp_preempt_at_count = false;
	t->demoting = false;
	t->stop_pc = 0;
	t->tick_depth--;
	if (rp_resumed_hook)
		rp_resumed_hook(&__sic_home);
}

/* Would preempting t change anything? With a new (lower) priority, any other runnable
 * thread may now outrank it. */
static bool preempt_worth(struct rp_thread *t)
{
	return sched_preempt_useful() || (t->new_prio && sched_others_runnable());
}

/* May this thread be preempted by count now? Not the host, not inside the scheduler,
 * not once rp_dying. */
static bool count_eligible(struct rp_thread *t)
{
	return rp_scheduling && rp_counting && t->tid != 0 && !sched_busy() && !rp_dying;
}

/* Main returned, or a thread called exit(), its count in __sic_home, outside the
 * program's code: a turn for the others before the process ends, as a voluntary
 * switch (a yield, no PREEMPT: the replay needs no stop in the code), logged as an
 * EXIT_TURN input that the replay takes at the same place. A log without one (none
 * drawn, or recorded before there was such a turn) ends at once, as it did. Asked
 * once a process: main's return ends in exit(), which asks no more, and a thread that
 * calls exit() in the turn goes straight to the C library's (its status, its END). */
void rp_count_exit_turn(void)
{
	static bool asked;
	struct rp_thread *t = rp_cur;
	struct prio_rec p;
	if (asked || !t || t->tid == 0 || rp_dying)
		return;
	asked = true;
	if (rp_replaying) {
		const struct rp_log_record *r;
		if (!rp_log_hunted || rp_replay_run_free() || !(r = rp_replay_peek()) ||
		    r->kind != RP_LOG_INPUT || r->input_kind != RP_INPUT_EXIT_TURN ||
		    r->tid != (uint32_t)t->tid || r->len != sizeof p)
			return;
		memcpy(&p, r->data, sizeof p);
		rp_replay_next();
		rp_replay_rearm_running();
	} else {
		if (!pct || !count_eligible(t) || !sched_others_runnable() ||
		    !rp_hunt_exit_turn(&p.prio))
			return;
		p.tid = t->tid;
		if (rp_writer)
			rp_log_input(rp_writer, (uint32_t)t->tid, RP_INPUT_EXIT_TURN, &p, sizeof p);
	}
	if (p.prio)
		sched_set_priority(sched_current(), p.prio);
	soon_pc_cancel(t);
	exit_pc_cancel(t);
	t->soon = t->pending = false;
	sched_preempt();
}

/* A sleeper's turn is taken for a deadline within this: about the time an OS may leave
 * a runnable thread unscheduled on a loaded machine (a longer sleep is left alone). */
#define RP_SLEEPER_TURN_MAX_NS 200000000u

struct sleeper_rec {
	int32_t next, sleeper;
};

/* sched's sleeper_turn, at a preemption --hunt decided at a synchronization step or a
 * new thread's first access: the preempted thread, and every runnable one whose turn
 * comes after sleeper's (under priorities, those below it), wait until sleeper's
 * deadline has come, as when a sleep is a yield (PCT's tools make usleep one) to the
 * threads a preemption lets run. Real time passes: a sleep never ends before its
 * deadline, and the clocks the program reads (recorded) say so. Drawn from the seed
 * (rp_hunt_sleeper_turn), logged as a SLEEPER_TURN input; the replay takes it at the
 * same preemption, and a log without one (recorded before there was such a turn)
 * never waits. */
bool rp_count_sleeper_turn(struct sched_thread *next, struct sched_thread *sleeper)
{
	struct sleeper_rec s;
	bool demoted = rp_cur && rp_cur->demoting;
	if (rp_cur)
		rp_cur->demoting = false;
	if (rp_replaying) {
		const struct rp_log_record *r;
		if (!rp_log_hunted || rp_replay_run_free() || !(r = rp_replay_peek()) ||
		    r->kind != RP_LOG_INPUT || r->input_kind != RP_INPUT_SLEEPER_TURN ||
		    r->tid != (uint32_t)rp_cur->tid || r->len != sizeof s)
			return false;
		memcpy(&s, r->data, sizeof s);
		if (s.next != next->id || s.sleeper != sleeper->id)
			rp_diverge("record %zu: thread %d waited for thread %d's deadline in the recording, "
				"here thread %d would run and thread %d sleeps", rp_replay_recno(),
				s.next, s.sleeper, next->id, sleeper->id);
		rp_replay_next();
		rp_replay_rearm_running();
		return true;
	}
	if (!demoted || !pct || !rp_cur)
		return false;
	struct sched_thread_info in;
	sched_thread_info(sleeper, &in);
	if (!in.has_deadline ||
	    in.deadline_ns > rp_clock_ns(in.clock) + RP_SLEEPER_TURN_MAX_NS ||
	    !rp_hunt_sleeper_turn())
		return false;
	s.next = next->id;
	s.sleeper = sleeper->id;
	if (rp_writer)
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_SLEEPER_TURN, &s, sizeof s);
	return true;
}

/* Where a slice's end looks for its place: one time in two a counting point with a
 * window ahead (each taken one time in two, so the later ones of a loop get their
 * turn), else, or if there is none, one at another pc than where the slice ended (out
 * of an inner loop: its outer loop's head may be inside a window, a value loaded at
 * the end of the last turn and stored in this one). A decision whose window was not
 * reached looks for another window. */

/* Look on from pc, counting point by counting point, for where to decide. */
static void seek_start(struct rp_thread *t, int mode, uintptr_t pc, uint64_t now)
{
	t->seek = mode;
	t->seek_pc = pc;
	t->seek_left = RP_SEEK_POINTS;
	t->slice_end = now + 1;
}

static bool seek_found(struct rp_thread *t, uintptr_t pc, size_t n)
{
	if (t->seek_left == 0 && t->seek == RP_SEEK_WINDOW && !t->pending) {
		t->seek = RP_SEEK_EXIT; /* no window near: out of this loop, then */
		t->seek_left = RP_SEEK_POINTS;
	}
	if (t->seek_left == 0)
		return true;
	t->seek_left--;
	if (t->seek == RP_SEEK_WINDOW)
		return n && rp_hunt_take_window();
	return pc != t->seek_pc;
}

/* Take decision d here (pc, now) or at a window ahead (c, n); returns the counter to
 * go on with, or 0 once preempted here (the counter is then __sic_home). */
static bool count_place(struct rp_thread *t, uint64_t now, uintptr_t pc, const uintptr_t *c,
			size_t n, uintptr_t ret, bool at_memop)
{
	if (at_memop && n && window_at(t, c[rp_hunt_choose((unsigned)n)])) {
		t->soon = true; /* held until the access, or looked on for at the next point */
		return false;
	}
	if (at_memop && !n && ret_walk_at(t, ret))
		return false; /* held until the return, then the caller's accesses */
	if (pc && rp_sic_pc_preemptible(pc) && preempt_worth(t)) {
		t->soon = false;
		__sic_home = 0;
		count_preempt(t, now, pc);
		return true;
	}
	t->soon = preempt_worth(t); /* not preemptible here: the next one */
	if (!t->soon)
		t->new_prio = 0;
	return false;
}

uint64_t rp_count_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t now = t->offset; /* the counter is 0 */
	bool missed = t->soon_pc != 0; /* the next counting point came before the access */
	if (t->ret_walk)
		t->new_prio = 0; /* ... or before the return: the decision goes */
	soon_pc_cancel(t);
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	const struct places *pl = places_cached(pc);
	const uintptr_t *c = pl->c, ret = pl->ret;
	size_t n = pl->n;
	bool careful = true; /* a slice's decision at a place sought, by a trap if need be */
	if (!count_eligible(t)) {
		t->soon = t->pending = false;
		t->seek = RP_SEEK_NONE;
		t->new_prio = 0;
		t->slice_end = now + rp_hunt_slice(now);
		goto arm;
	}
	if (missed && t->soon) {
		/* A window decided on was not reached: look for another, a while. */
		t->soon = false;
		t->pending = true;
		seek_start(t, RP_SEEK_WINDOW, pc, now);
	}
	if (t->soon) { /* here: after a call whose return was not preemptible, say */
		if (count_place(t, now, pc, c, n, ret, false))
			return __sic_home;
		goto arm;
	}
	if (t->seek == RP_SEEK_NONE && now < t->slice_end)
		goto arm;
	if (t->seek == RP_SEEK_NONE && t->exit_pc && ++t->exit_slices < RP_EXIT_SLICES) {
		t->slice_end = now + rp_hunt_slice(now); /* still waiting for its loop's end */
		goto arm;
	}
	if (t->seek == RP_SEEK_NONE) { /* the slice ended: where to decide */
		exit_pc_cancel(t);
		t->exit_slices = 0;
		uint64_t quiet = sched_others_runnable() ?
				 rp_hunt_quiet(sched_preempt_wanted(), now - t->in_count, now) : 0;
		if (quiet) { /* nothing to decide here, nor at its next few slices' ends */
			t->slice_end = now + quiet;
			goto arm;
		}
		if (!rp_hunt_place_worth(rp_sic_pc_key(pc))) {
			careful = false; /* looked on from here often already: decided here */
			goto decide;
		}
		if (!rp_sic_loop_exit(pc) && rp_hunt_decide_here(now))
			goto decide; /* code that runs once, in the thread's first counts */
		seek_start(t, rp_hunt_take_window() ? RP_SEEK_WINDOW : RP_SEEK_EXIT, pc, now);
		uintptr_t x = t->seek == RP_SEEK_EXIT ? rp_sic_loop_exit(pc) : 0;
		if (x && rp_bp_ready() && rp_sic_pc_preemptible(x) &&
		    rp_hunt_place_worth(rp_sic_pc_key(x))) {
			/* out of this loop: where it ends, by the breakpoint (on_count_trap) */
			rp_bp_arm(x);
			t->exit_pc = x;
			t->seek = RP_SEEK_NONE;
			t->slice_end = now + rp_hunt_slice(now);
		}
		goto arm;
	}
	if (!seek_found(t, pc, n)) {
		t->slice_end = now + 1;
		goto arm;
	}
decide:;
	bool exited = careful && t->seek == RP_SEEK_EXIT && pc != t->seek_pc;
	t->seek = RP_SEEK_NONE;
	t->slice_end = now + rp_hunt_slice(now);
	if (t->pending) { /* a decision looking for its window */
		t->pending = false;
		if (count_place(t, now, pc, c, n, ret, n > 0 || ret))
			return __sic_home;
	} else if (!sched_others_runnable() && sched_preempt_useful()) {
		/* Alone, but threads wait for deadlines or descriptors: a preemption asks
		 * whether they may run (as a time slice's end does). */
		t->sync_step = false;
		if (count_place(t, now, pc, c, 0, 0, false))
			return __sic_home;
	} else if (sched_others_runnable()) {
		struct rp_hunt_question q = {RP_HUNT_SLICE, t->tid, 0, sched_preempt_wanted(),
					     n > 0 || ret || exited, now - t->in_count, false, NULL, NULL, now};
		struct rp_hunt_decision d = step(&q);
		if (d.preempt) {
			t->new_prio = d.new_priority;
			t->sync_step = false;
			t->seek_left = RP_SEEK_POINTS;
			if (count_place(t, now, pc, c, n, ret, d.at_memop && careful))
				return __sic_home;
		}
	}
arm:;
	uint64_t counter = 0;
	rp_count_arm(t, &counter);
	return counter;
}

/* The recording's breakpoint (soon_at_memop): the thread reached the memory access. */
void rp_count_trap(ucontext_t *uc, int sig)
{
	struct rp_thread *t = rp_cur;
	uintptr_t pc = rp_pc_of(uc);
	rp_bp_disarm();
	if (rp_hang_due && pc == rp_hang_pc && t->tid != 0)
		rp_outcome(RP_LOG_HANG, uc, t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15], pc);
	if (pc == t->soon_pc && t->ret_walk) {
		/* its function returns (ret_walk_at): the decision lands at one of the
		 * accesses after the call in the caller, else at the next counting point.
		 * At the `ret` the count is in __sic_home and r15 holds the token. */
		t->ret_walk = false;
		t->soon_pc = 0;
		if (!count_eligible(t)) {
			t->new_prio = 0;
			return;
		}
		uintptr_t to = *(const uintptr_t *)uc->uc_mcontext.gregs[REG_RSP], c[RP_PLACE_CANDIDATES], r;
		uintptr_t first = after_call(to);
		size_t n = first ? accesses_ahead(first, c, RP_PLACE_CANDIDATES, &r) : 0;
		if (n)
			window_at(t, c[rp_hunt_choose((unsigned)n)]);
		t->soon = true;
		rp_count_arm(t, &__sic_home);
		return;
	}
	if (pc == t->exit_pc && count_eligible(t)) {
		/* its loop ended: a slice's place, as if it ended here */
		t->exit_pc = 0;
		uintptr_t c[RP_PLACE_CANDIDATES], ret;
		size_t n = places_ahead(pc, c, &ret); /* (here: no return crossed) */
		uint64_t now = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
		if (!sched_others_runnable())
			return;
		struct rp_hunt_question q = {RP_HUNT_SLICE, t->tid, 0, sched_preempt_wanted(), true,
					     now - t->in_count, false, NULL, NULL, now};
		struct rp_hunt_decision d = step(&q);
		if (!d.preempt)
			return;
		t->new_prio = d.new_priority;
		t->sync_step = false;
		if ((d.at_memop && n && window_at(t, c[rp_hunt_choose((unsigned)n)])) ||
		    rp_hunt_take_window()) {
			/* at the window after it, or at the next counting point (an outer loop's
			 * head, past the store after this loop) */
			t->soon = true;
			uc->uc_mcontext.gregs[REG_R15] = 1;
			t->offset = now + 1;
			return;
		}
		t->soon_pc = pc; /* here: as a window reached */
	}
	if (pc != t->soon_pc || !count_eligible(t))
		return; /* not its breakpoint any more */
	t->soon_pc = 0;
	t->soon = false;
	if (t->start_trap) { /* its first turn ends here, below every other thread */
		t->start_trap = false;
		if (!sched_others_runnable())
			return;
		t->new_prio = rp_hunt_start_demote(t->tid);
		t->sync_step = true;
	}
	if (!preempt_worth(t)) {
		t->new_prio = 0;
		return;
	}
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	rp_record_preempt(t, count, pc);
	if (t->new_prio) {
		give_priority(sched_current(), t->new_prio);
		t->new_prio = 0;
	}
	t->demoting = t->sync_step;
	t->sync_step = false;
	t->tick_depth++;
	rp_preempt_from_signal(uc, sig);
	t->demoting = false;
	t->tick_depth--;
}

/* Where the call that returns to ret goes (rp_call_dest), through one PLT entry
 * ([endbr64] [bnd] jmp *GOT(%rip)) if it goes to one. */
static uintptr_t call_target(uintptr_t ret)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	uintptr_t to = rp_call_dest(ret);
	if (!to || rp_sic_pc_instrumented(to))
		return to;
	const unsigned char *p = (const unsigned char *)to;
	if (memcmp(p, endbr64, sizeof endbr64) == 0)
		p += sizeof endbr64;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return to;
	int32_t rel;
	memcpy(&rel, p + 2, sizeof rel);
	memcpy(&to, p + 6 + rel, sizeof to);
	return to;
}

/* Where the program's call to a synchronization function stands: the counting point
 * of the call instruction (movq %r15, __sic_home(%rip); movq $TOKEN, %r15; call f,
 * as sicpp writes it, the call direct or through the GOT; in a shared object the
 * store is movq %rax, -8(%rsp); movq __sic_home@GOTPCREL(%rip), %rax; movq %r15,
 * (%rax); movq -8(%rsp), %rax), whose count the caller published. 0 if ret is not
 * such a call's return, or if the call went to
 * instrumented code, which then came to the synchronization function by a tail jump
 * (libzstd's POOL_add ends in `jmp pthread_mutex_unlock`): that code ran and counted
 * since, and the published count is its, not the call site's. */
static uintptr_t call_site(uintptr_t ret)
{
	static const unsigned char token[] = {0x49, 0xc7, 0xc7, 0xde, 0xc0, 0x5a, 0x9e};
	if (!rp_sic_pc_instrumented(ret))
		return 0;
	const unsigned char *r = (const unsigned char *)ret;
	const unsigned char *call = r[-5] == 0xe8 ? r - 5 : r[-6] == 0xff && r[-5] == 0x15 ? r - 6 : NULL;
	if (!call || memcmp(call - 7, token, sizeof token) != 0)
		return 0;
	if (rp_sic_pc_instrumented(call_target(ret)))
		return 0;
	static const unsigned char save[] = {0x48, 0x89, 0x44, 0x24, 0xf8}, put[] = {0x4c, 0x89, 0x38},
				   back[] = {0x48, 0x8b, 0x44, 0x24, 0xf8};
	const unsigned char *store = call - 14, *pic = call - 27;
	if (store[0] == 0x4c && store[1] == 0x89 && store[2] == 0x3d && names_home(store) == 1)
		return rp_sic_pc_preemptible((uintptr_t)store) ? (uintptr_t)store : 0;
	if (memcmp(pic, save, sizeof save) || pic[5] != 0x48 || pic[6] != 0x8b || pic[7] != 0x05 ||
	    names_home(pic + 5) != 2 || memcmp(pic + 12, put, sizeof put) ||
	    memcmp(pic + 15, back, sizeof back))
		return 0;
	return rp_sic_pc_preemptible((uintptr_t)pic) ? (uintptr_t)pic : 0;
}

/* May the hooks take a step for t now? count_eligible's checks, the cheap ones first
 * (two calls into sched at each of 10^7 locks and unlocks cost). */
static inline bool sync_eligible(struct rp_thread *t)
{
	return rp_scheduling && rp_counting && t->tid != 0 && !rp_dying && !rp_replaying &&
	       rp_sync_others_may_run() && !sched_busy();
}

void rp_sync_begin_slow(void *ret)
{
	struct rp_thread *t = rp_cur;
	if (!sync_eligible(t))
		return;
	bool hit = rp_hunt_site_visit(rp_sync_slot(ret, 0));
	struct rp_hunt_question q = {RP_HUNT_BEFORE, t->tid, hit, false, false,
				     t->offset - __sic_home - t->in_count, false, NULL, NULL, 0};
	struct rp_hunt_decision d = step(&q);
	if (t->start_call)
		rp_hunt_sync_ask(); /* (the step re-armed the fast path) */
	if (!d.preempt)
		return;
	t->new_prio = d.new_priority;
	t->sync_step = true;
	uintptr_t site = call_site((uintptr_t)ret);
	if (site) {
		count_preempt(t, t->offset - __sic_home, site);
	} else {
		t->soon = true; /* not from the program's own call: after it instead */
		rp_count_arm(t, &__sic_home);
	}
}

/* Where a decision after a call may land: the first instruction after it returns, and
 * the places ahead of that, looked up only once a decision needs them. */
struct after {
	uintptr_t ret, first;
	const struct places *pl;
};

static bool after_ahead(void *arg)
{
	struct after *a = arg;
	if (!a->pl) {
		a->first = after_cached(a->ret);
		a->pl = places_cached(a->first);
	}
	return a->pl->n > 0 || a->pl->ret;
}

void rp_sync_end_slow(void *ret)
{
	struct rp_thread *t = rp_cur;
	bool created = created_by && created_by == t->tid;
	bool first = t->start_call; /* its first call: its first turn ends here */
	created_by = 0;
	t->start_call = false;
	if (!sync_eligible(t))
		return;
	struct after a = {(uintptr_t)ret, 0, NULL};
	unsigned long gen = sched_runnable_gen;
	bool wake = sched_preempt_wanted();
	bool hit = rp_hunt_site_visit(rp_sync_slot(ret, 1));
	struct rp_hunt_question q = {RP_HUNT_AFTER, t->tid, hit, wake, false,
				     t->offset - __sic_home - t->in_count, created, after_ahead, &a, 0};
	if (!wake)
		rp_sync_gen = gen; /* none outranks it: the fast path may pass till that changes */
	struct rp_hunt_decision d = step(&q);
	if (first && !d.preempt && rp_hunt_first_call_end(t->tid, &d.new_priority))
		d.preempt = true; /* right after the call: before the check under its lock */
	if (!d.preempt)
		return;
	after_ahead(&a);
	const uintptr_t *c = a.pl->c, r = a.pl->ret;
	size_t n = a.pl->n;
	t->new_prio = d.new_priority;
	t->sync_step = true;
	/* Right after the call returns (a thread that outranks it runs first), or at one
	 * of the accesses in the window after it; else at the next counting point. */
	soon_pc_cancel(t);
	if (d.at_memop && !n && ret_walk_at(t, r))
		return; /* at the caller's accesses, past the return */
	if (!(d.at_memop && n) && a.first && rp_bp_ready()) {
		/* Right after the call: nothing of the program's runs from here to there
		 * (the call only returns), so switch now, logged at that instruction and
		 * count, where the replay's trap stops it, as the breakpoint's trap here
		 * would have (a wake-up after each unlock and barrier of a lock loop: a
		 * trap each, ~20 us). */
		if (preempt_worth(t))
			count_preempt(t, t->offset - __sic_home, a.first);
		else
			t->new_prio = 0;
		return;
	}
	soon_at(t, d.at_memop && n ? c[rp_hunt_choose((unsigned)n)] : a.first);
	t->soon = true;
	rp_count_arm(t, &__sic_home);
}

void rp_count_start(void)
{
	if (rp_opts.timeout_ns)
		rp_hang_start(rp_opts.timeout_ns);
	if (!rp_opts.chaos && !rp_opts.hunt)
		return;
	struct rp_hunt_params p = {rp_opts.seed, rp_opts.hunt_depth, rp_opts.chaos,
				   rp_opts.hunt_strategy, &rp_sync_quiet, rp_sync_sites};
	rp_hunt_init(&p);
	rp_counting = true;
	rp_sic_memops_load();
	rp_sic_quick.seeking = true;
	pct = rp_opts.hunt;
	rp_sync_watch = pct && rp_hunt_sync_steps();
	sync_may_stop = rp_sync_watch && rp_hunt_strategy() == RP_HUNT_DELAYS;
	rp_sync_wake = rp_sync_watch && rp_hunt_strict();
	rp_sync_sleepers = rp_sync_watch;
	rp_bp_open(); /* stops at memory accesses, if perf allows a breakpoint */
}
