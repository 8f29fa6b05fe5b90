/* sched_priority.c: thread priorities, for a testing scheduler (libreplay's --hunt,
 * PCT): the runnable thread of the highest priority runs; FIFO among equals. */
#include "sched_impl.h"

void sched_set_priority(struct sched_thread *t, int prio)
{
	t->prio = prio;
	sched_runnable_gen++;
	if (prio != 0)
		sched_g.priorities = true;
}

int sched_priority(const struct sched_thread *t)
{
	return t->prio;
}

struct sched_thread *sched_rq_pick_prio(const struct sched_thread *not)
{
	struct sched_thread *best = NULL, *best_prev = NULL, *prev = NULL;
	for (struct sched_thread *t = sched_g.rq_head; t; prev = t, t = t->rq_next)
		if (t != not && (!best || t->prio > best->prio)) {
			best = t;
			best_prev = prev;
		}
	if (!best)
		return rq_pop(); /* `not` alone, or nothing */
	if (best_prev)
		best_prev->rq_next = best->rq_next;
	else
		sched_g.rq_head = best->rq_next;
	if (sched_g.rq_tail == best)
		sched_g.rq_tail = best_prev;
	best->rq_next = NULL;
	return best;
}

bool sched_preempt_wanted(void)
{
	if (!sched_g.priorities || sched_g.cur == &sched_g.host)
		return false;
	for (struct sched_thread *t = sched_g.rq_head; t; t = t->rq_next)
		if (t->prio > sched_g.cur->prio)
			return true;
	return false;
}

/* The held lists are for reports only: a NORMAL mutex may be unlocked by another
 * thread than its owner (as in glibc), so the owner's list is the one to fix. */
static void drop_from(struct sched_thread *t, const struct sched_mutex *m)
{
	unsigned n = t->nheld < SCHED_HELD_MAX ? t->nheld : SCHED_HELD_MAX;
	for (unsigned i = n; i-- > 0;)
		if (t->held[i] == m) {
			for (; i + 1 < n; i++)
				t->held[i] = t->held[i + 1];
			if (t->nheld > SCHED_HELD_MAX)
				t->held[SCHED_HELD_MAX - 1] = NULL; /* one not listed moves up: unknown */
			t->nheld--;
			return;
		}
	if (t->nheld > SCHED_HELD_MAX)
		t->nheld--; /* one of those not listed */
}

void sched_held_drop(int owner, const struct sched_mutex *m)
{
	struct sched_thread *t = sched_g.cur;
	if (t->id != owner) {
		t = owner == 0 ? &sched_g.host : sched_g.all_head;
		while (t && t->id != owner)
			t = t->all_next;
		if (!t)
			return;
	}
	drop_from(t, m);
}
