/* sched_sleeper_turn.c: a preemption may wait for a thread sleeping until a deadline
 * (the sleeper_turn hook), as an OS may leave a runnable thread unscheduled while a
 * sleep ends: without it, a thread that is the only runnable one (or, under
 * priorities, runnable threads of lower priority than the sleeper's) runs on while a
 * sleeper's deadline passes, whatever a testing scheduler's order says. */
#include "sched_impl.h"

/* The thread that would run next, of cur (running, not queued) and the runnable ones:
 * with priorities, the first of the highest, cur before the others of its own; without,
 * cur if it is alone (a round robin's preemption gives a runnable thread the turn),
 * else NULL. */
static struct sched_thread *next_of(struct sched_thread *cur)
{
	struct sched_thread *best = cur;
	if (!sched_g.priorities)
		return sched_g.rq_head ? NULL : cur;
	for (struct sched_thread *t = sched_g.rq_head; t; t = t->rq_next)
		if (t->prio > best->prio)
			best = t;
	return best;
}

/* A thread waiting for a deadline whose turn comes before next's: with priorities, one
 * of higher priority; without, any. The earliest on the monotonic clock, else on the
 * real-time one (no clock is read: the answer depends on the scheduler's state alone).
 * NULL if none. */
static struct sched_thread *sleeper_before(const struct sched_thread *next)
{
	for (int slot = 0; slot < SCHED_NSLOTS; slot++)
		for (struct sched_thread *t = sched_g.timers[slot]; t; t = t->tm_next)
			if (!sched_g.priorities || t->prio > next->prio)
				return t;
	return NULL;
}

bool sched_sleeper_due(struct sched_thread *cur)
{
	if (!sched_g.hooks.sleeper_turn ||
	    !(sched_g.timers[SCHED_SLOT_MONOTONIC] || sched_g.timers[SCHED_SLOT_REALTIME]))
		return false;
	struct sched_thread *next = next_of(cur);
	return next && sleeper_before(next);
}

void sched_sleeper_turn(struct sched_thread *cur)
{
	struct sched_thread *next = next_of(cur), *s = next ? sleeper_before(next) : NULL;
	if (!s || !sched_g.hooks.sleeper_turn(next, s))
		return;
	/* Until s's wait ends (its deadline, or anything that wakes it) or a thread whose
	 * turn comes before next's can run; each round's answers are the deadlines'
	 * questions. */
	while (s->tm_slot >= 0 && next_of(cur) == next) {
		if (!sched_idle())
			break;
		sched_expire();
	}
}
