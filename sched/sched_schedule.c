/* sched_schedule.c: the scheduler's core: deadlines, picking the next thread,
 * switching, blocking and waking. Every function here is called busy. */
#include "sched_impl.h"

#include <stdlib.h>

/* Make the waiters whose deadline passed runnable: per clock, earliest first (ties
 * by id), asking timeout_expired until it says no. Safe in a signal handler. */
void sched_expire_timers(void)
{
	for (int slot = 0; slot < SCHED_NSLOTS; slot++) {
		struct sched_thread *t;
		while ((t = sched_g.timers[slot]) &&
		       sched_g.hooks.timeout_expired(t, t->deadline_ns, sched_slot_clock(slot))) {
			sched_timer_remove(t);
			wq_remove(t);
			t->wake_status = ETIMEDOUT;
			rq_push(t);
		}
	}
}

static uint64_t time_left(const struct sched_thread *t, clockid_t clk)
{
	uint64_t now = sched_g.hooks.now_ns(clk);
	return t->deadline_ns > now ? t->deadline_ns - now : 0;
}

/* The earliest deadline: with deadlines on both clocks, now_ns says which comes first.
 * NULL if no thread waits for one. */
static struct sched_thread *earliest(void)
{
	struct sched_thread *m = sched_g.timers[SCHED_SLOT_MONOTONIC];
	struct sched_thread *r = sched_g.timers[SCHED_SLOT_REALTIME];
	if (m && r && time_left(r, CLOCK_REALTIME) < time_left(m, CLOCK_MONOTONIC))
		return r;
	return m ? m : r;
}

/* Nothing can run: let time pass until the earliest deadline or, when threads wait
 * for events, until one may have happened, or else until what idle_outside waits
 * for came. False: nothing to wait for. */
bool sched_idle(void)
{
	struct sched_thread *t = earliest();
	clockid_t clk = t ? sched_slot_clock(t->tm_slot) : CLOCK_MONOTONIC;
	if (sched_g.events.head)
		sched_g.hooks.idle_events(t ? t->deadline_ns : UINT64_MAX, clk);
	else if (t)
		sched_g.hooks.idle(t->deadline_ns, clk);
	else
		return sched_g.hooks.idle_outside && sched_g.hooks.idle_outside();
	return true;
}

/* A switched-out thread's saved stack pointer is 16-byte aligned: sched_switch saves
 * it so (its callers are ABI-aligned C), and a new thread's frame is built so. (Not
 * necessarily inside its stack: a program's coroutine stack is its own.) Anything
 * else means its descriptor was overwritten or a switch went wrong: resumed, it would
 * fault somewhere unrelated, at the first movaps to its stack. Say so here instead. */
static void check_saved_sp(const struct sched_thread *t)
{
	if (!((uintptr_t)t->sp & 15))
		return;
	fprintf(stderr, "sched: thread %d cannot resume: its saved stack pointer %p is not 16-byte "
		"aligned (its stack: [%p, %p))\n", t->id, t->sp, t->stack_lo, t->stack_hi);
	abort();
}

/* Switch from the current thread, already queued wherever it belongs, to next. */
void sched_switch_to(struct sched_thread *next)
{
	struct sched_thread *prev = sched_g.cur;
	check_saved_sp(next);
	if (sched_g.hooks.on_switch)
		sched_g.hooks.on_switch(prev, next);
	sched_g.cur = next;
	next->state = SCHED_RUNNING;
	/* Its TLS (errno too) from here on; only thread 1 and the host share one. The
	 * kernel neither saves nor restores the fs base for a signal frame, so a thread
	 * switched out inside a handler gets its own back here too. */
	if (next->tp != prev->tp)
		sched_load_tp(next);
	sched_switch(&prev->sp, next->sp);
	/* prev runs again: whoever switched here made it current and loaded its tp */
}

/* Free the detached threads that exited. Not on sched_preempt's path (free). */
void sched_reap_dead(void)
{
	struct sched_thread *t;
	while ((t = sched_g.dead)) {
		sched_g.dead = t->rq_next;
		sched_free_thread(t);
	}
}

/* The current thread blocked or exited: run the next runnable thread, letting
 * time pass if all wait for deadlines. Returns when the current thread runs again. */
void sched_schedule(void)
{
	struct sched_thread *cur = sched_g.cur, *next;
	for (;;) {
		sched_expire();
		if ((next = rq_pick(NULL)))
			break;
		if (sched_idle())
			continue;
		sched_g.hooks.deadlock();
		if (sched_g.running)
			sched_finish(SCHED_RUN_ABORTED);
		/* The host, outside a run, waited for something no thread can give. */
		wq_remove(cur);
		cur->wake_status = EDEADLK;
		cur->state = SCHED_RUNNING;
		return;
	}
	if (next == cur) {
		cur->state = SCHED_RUNNING;
		sched_go_on();
		return;
	}
	sched_switch_to(next);
	sched_reap();
}

int sched_wait(struct sched_waitq *q, int slot, uint64_t deadline_ns,
	       enum sched_wait_kind kind, const void *obj)
{
	struct sched_thread *cur = sched_g.cur;
	cur->state = SCHED_BLOCKED;
	cur->wait_kind = kind;
	cur->wait_obj = obj;
	cur->wake_status = 0;
	if (q)
		wq_push(q, cur);
	if (slot >= 0)
		sched_timer_insert(cur, slot, deadline_ns);
	sched_schedule();
	cur->wait_kind = SCHED_WAIT_NONE;
	cur->wait_obj = NULL;
	return cur->wake_status;
}

struct sched_thread *sched_wakeup(struct sched_waitq *q)
{
	struct sched_thread *t = wq_first(q);
	if (!t)
		return NULL;
	wq_remove(t);
	sched_timer_remove(t);
	t->wake_status = 0;
	rq_push(t);
	return t;
}
