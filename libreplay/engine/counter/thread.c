/* thread.c: green threads as the counter sees them. Each has its own count, its own
 * __sic_home and its own side stack; on_switch swaps them (docs/sic.md). */
#include "engine/core.h"
#include "base/rp_alloc.h"
#include "engine/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

ucontext_t *rp_preempt_uc;
bool rp_preempt_at_count;

/* Final counts of exited threads, by tid. */
static uint64_t *finals;
static size_t nfinals;

static struct rp_thread host_thread; /* the context that runs the scheduler */

static struct rp_thread *rt(struct sched_thread *t)
{
	if (!t || !t->ext)
		return &host_thread;
	return t->ext;
}

uint64_t *rp_thread_counter(struct rp_thread *t)
{
	return t->uc ? (uint64_t *)&t->uc->uc_mcontext.gregs[REG_R15] : &t->home;
}

/* Runs on the new thread's stack: enter instrumented code with the counter set. */
static void *thread_start(void *arg)
{
	struct rp_thread *t = arg;
	return (void *)(uintptr_t)rp_sic_call((void *)t->fn, (uint64_t)(uintptr_t)t->arg, 0, 0);
}

static void on_thread_create(struct sched_thread *st)
{
	if (st->id == 1) { /* main: keeps the count of the constructors before it */
		st->ext = &rp_main_thread;
		rp_main_thread.home = __sic_home;
		rp_main_thread.side_base = __sic_side_base;
		rp_main_thread.side_top = __sic_side_top;
		rp_main_thread.side_end = __sic_side_end;
		rp_up.count_thread_created(st, &rp_main_thread);
		/* A replay read its priority there and loaded the counter again, in
		 * __sic_home (rp_cur is main already): keep the copy it starts from the
		 * same (else its count is off by 2^62 from a debugger's first tick). */
		rp_main_thread.home = __sic_home;
		return;
	}
	/* A thread of rp_thread_create brings its own (as the start argument). */
	struct rp_thread *t = st->start == thread_start ? st->arg : st->ext;
	if (!t) {
		t = rp_calloc(1, sizeof *t);
		if (!t)
			rp_fatal_memory("a new thread");
	}
	st->ext = t;
	uint64_t *side = rp_calloc(RP_SIDE_WORDS * RP_SIDE_ENTRIES_THREAD, sizeof *side);
	if (!side)
		rp_fatal_memory("a new thread");
	t->tid = st->id;
	t->offset = t->home = rp_sic_start_value();
	t->side_base = t->side_top = side;
	t->side_end = side + RP_SIDE_WORDS * RP_SIDE_ENTRIES_THREAD;
	rp_up.count_thread_created(st, t);
}

static void on_thread_exit(struct sched_thread *st)
{
	struct rp_thread *t = rt(st);
	/* It is in our code: the count is published. */
	uint64_t count = t->offset - __sic_home;
	if ((size_t)t->tid >= nfinals) {
		size_t n = nfinals ? 2 * nfinals : 64;
		while (n <= (size_t)t->tid)
			n *= 2;
		uint64_t *f = rp_realloc(finals, n * sizeof *f);
		if (!f)
			rp_fatal_memory("the final counts of threads");
		memset(f + nfinals, 0xff, (n - nfinals) * sizeof *f);
		finals = f;
		nfinals = n;
	}
	finals[t->tid] = count;
	rp_up.replay_thread_exit(t);
}

/* The logical clock: every count the program's threads executed, summed (the same in a
 * recording and its replays): the threads switched out, and the running one since it
 * was switched in (its count then in switch_count). */
static uint64_t logical_base;

uint64_t rp_logical_clock(void)
{
	struct rp_thread *t = rp_cur;
	return logical_base + (t->offset - __sic_home) - t->switch_count;
}

static void on_switch(struct sched_thread *prev_st, struct sched_thread *next_st)
{
	struct rp_thread *prev = rt(prev_st), *next = rt(next_st);
	prev->home = __sic_home;
	prev->side_top = __sic_side_top;
	prev->uc = rp_preempt_uc; /* NULL for a voluntary switch */
	if (prev != next) {
		logical_base += prev->offset - *rp_thread_counter(prev) - prev->switch_count;
		next->switch_count = next->offset - *rp_thread_counter(next);
	}
	rp_preempt_uc = NULL;
	bool preempted = prev->uc != NULL || rp_preempt_at_count;
	rp_preempt_at_count = false;

	rp_cur = next;
	next->resumed_from_signal = next->uc != NULL;
	if (next->uc) {
		next->resume_count = next->offset - next->uc->uc_mcontext.gregs[REG_R15];
		next->resume_pc = next->uc->uc_mcontext.gregs[REG_RIP];
	}
	if (rp_counting && !rp_replaying && prev != next)
		rp_up.count_switched(prev, next);
	if ((rp_replaying || rp_counting) && next != &host_thread) {
		if (rp_replaying)
			rp_up.replay_arm(next, rp_thread_counter(next));
		else
			rp_up.count_arm(next, rp_thread_counter(next));
		/* Preempted between publishing its count and a call, it will read home:
		 * keep it equal to the counter just loaded in its signal frame. */
		next->home = *rp_thread_counter(next);
	}
	if (prev_st != next_st) /* on_resume: not a switch */
		rp_up.debug_switched(prev, prev->offset - *rp_thread_counter(prev), next,
				     preempted);
	if (rp_trace_on && prev_st != next_st)
		rp_trace_switch(prev_st, next_st, prev->offset - *rp_thread_counter(prev),
				next->offset - *rp_thread_counter(next), preempted);
	next->uc = NULL; /* the frame is consumed when it resumes */
	__sic_home = next->home;
	/* A signal from outside is due (async.c): its next counting point delivers it.
	 * Not into a preemption in progress (tick_depth): it resumes through
	 * rp_resumed_hook, which does the same where its counter is. */
	if (rp_async_due && next != &host_thread && !next->tick_depth)
		rp_async_counter_soon(&__sic_home);
	__sic_side_base = next->side_base;
	__sic_side_top = next->side_top;
	__sic_side_end = next->side_end;
}

void rp_async_counter_soon(uint64_t *counter)
{
	if (!rp_async_due || rp_replaying || rp_cur->tid == 0 || *counter <= 1)
		return;
	/* preempted right after a publish: the reload after the call reads home */
	if (counter != &__sic_home && __sic_home == *counter)
		__sic_home = 1;
	rp_cur->offset -= *counter - 1;
	*counter = 1;
	rp_cur->async_soon = true;
}

/* No switch, but the replay may have consumed records (a deadline, a descriptor found
 * ready) that change where t's counter must stop next: set it up as for a switch. */
static void on_resume(struct sched_thread *st)
{
	on_switch(st, st);
}

int rp_thread_create(struct sched_thread **out, const struct sched_thread_attr *attr,
		     void *(*fn)(void *), void *arg, void *(*prog_fn)(void *))
{
	struct rp_thread *t = rp_calloc(1, sizeof *t);
	if (!t)
		return EAGAIN;
	t->fn = fn;
	t->arg = arg;
	t->prog_fn = prog_fn;
	struct sched_thread *st;
	int err = sched_create(&st, attr, thread_start, t);
	if (err) {
		rp_free(t);
		return err;
	}
	if (out)
		*out = st;
	return 0;
}

size_t rp_thread_finals(struct rp_log_final *out, size_t max, const ucontext_t *uc)
{
	/* The running thread: its r15 if a signal stopped it in instrumented code. */
	uint64_t cur_counter = __sic_home;
	if (uc && rp_sic_pc_instrumented((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
		cur_counter = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	size_t n = 0;
	for (size_t tid = 1; tid < nfinals && n < max; tid++)
		if (finals[tid] != UINT64_MAX)
			out[n++] = (struct rp_log_final){(uint32_t)tid, finals[tid]};
	/* Threads still alive keep their counter in home or a signal frame. */
	for (struct sched_thread *st = sched_thread_next(NULL); st && n < max;
	     st = sched_thread_next(st)) {
		struct rp_thread *t = st->ext;
		if (!t || ((size_t)t->tid < nfinals && finals[t->tid] != UINT64_MAX))
			continue;
		uint64_t counter = t == rp_cur ? cur_counter : *rp_thread_counter(t);
		out[n++] = (struct rp_log_final){(uint32_t)t->tid, t->offset - counter};
	}
	return n;
}

uint64_t rp_thread_counts_but(int tid)
{
	uint64_t sum = 0;
	for (size_t k = 1; k < nfinals; k++)
		if (finals[k] != UINT64_MAX && (int)k != tid)
			sum += finals[k];
	for (struct sched_thread *st = sched_thread_next(NULL); st; st = sched_thread_next(st)) {
		struct rp_thread *t = st->ext;
		if (!t || t->tid == tid || ((size_t)t->tid < nfinals && finals[t->tid] != UINT64_MAX))
			continue;
		sum += t->offset - *rp_thread_counter(t);
	}
	return sum;
}

void rp_threads_init(struct sched_hooks *h)
{
	/* The host runs what comes after main returns: exit's atexit handlers and
	 * destructors, which may be instrumented. It has a count of its own (tid 0). */
	static uint64_t host_side[RP_SIDE_WORDS * RP_SIDE_ENTRIES_THREAD];
	host_thread.offset = host_thread.home = rp_sic_start_value();
	host_thread.side_base = host_thread.side_top = host_side;
	host_thread.side_end = host_side + RP_SIDE_WORDS * RP_SIDE_ENTRIES_THREAD;
	if (rp_opts.trace_path)
		rp_trace_open(rp_opts.trace_path);
	h->on_thread_create = on_thread_create;
	h->on_thread_exit = on_thread_exit;
	h->on_switch = on_switch;
	h->on_resume = on_resume;
}
