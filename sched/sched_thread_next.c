/* sched_thread_next.c: walk every thread of the run, for debugging tools. */
#include "sched_impl.h"

struct sched_thread *sched_thread_next(struct sched_thread *t)
{
	return t ? t->all_next : sched_g.all_head;
}

/* Who holds what a blocked thread waits for (0: nobody, or not a single thread). */
static int wait_owner(const struct sched_thread *t)
{
	const struct sched_mutex *m = t->wait_obj;
	const struct sched_rwlock *l = t->wait_obj;
	if (t->state != SCHED_BLOCKED || !t->wait_obj)
		return 0;
	switch (t->wait_kind) {
	case SCHED_WAIT_MUTEX:
		return m->count ? m->owner : 0;
	case SCHED_WAIT_RDLOCK:
	case SCHED_WAIT_WRLOCK:
		return l->writer ? l->wowner : 0;
	case SCHED_WAIT_JOIN:
		return ((const struct sched_thread *)t->wait_obj)->id;
	default:
		return 0;
	}
}

void sched_thread_info(const struct sched_thread *t, struct sched_thread_info *out)
{
	bool suspended = t->state == SCHED_RUNNABLE || t->state == SCHED_BLOCKED;
	*out = (struct sched_thread_info){
		.id = t->id,
		.state = t->state,
		.wait_kind = t->state == SCHED_BLOCKED ? t->wait_kind : SCHED_WAIT_NONE,
		.wait_obj = t->state == SCHED_BLOCKED ? t->wait_obj : NULL,
		.has_deadline = t->tm_slot >= 0,
		.clock = t->tm_slot >= 0 ? sched_slot_clock(t->tm_slot) : CLOCK_MONOTONIC,
		.deadline_ns = t->tm_slot >= 0 ? t->deadline_ns : 0,
		.detached = t->detached,
		.sp = suspended ? t->sp : NULL,
		.pc = suspended ? (uintptr_t)sched_switch_resume : 0,
		.stack_lo = t->stack_lo,
		.stack_hi = t->stack_hi,
		.tp = t->tp,
		.wait_owner = wait_owner(t),
		.nheld = t->nheld,
		.prio = t->prio,
	};
	for (unsigned i = 0; i < t->nheld && i < SCHED_HELD_MAX; i++)
		out->held[i] = t->held[i];
}
