/* sched_deadline.c: deadlines, and the per-clock lists of threads waiting for one. */
#include "sched_impl.h"

int sched_deadline(const struct timespec *ts, clockid_t clk, int *slot, uint64_t *ns)
{
	*slot = -1;
	*ns = 0;
	if (!ts)
		return 0;
	if (clk == CLOCK_MONOTONIC)
		*slot = SCHED_SLOT_MONOTONIC;
	else if (clk == CLOCK_REALTIME)
		*slot = SCHED_SLOT_REALTIME;
	else
		return EINVAL;
	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
		return EINVAL;
	if (ts->tv_sec < 0)
		*ns = 0; /* long past */
	else if ((uint64_t)ts->tv_sec >= UINT64_MAX / 1000000000u)
		*ns = UINT64_MAX;
	else
		*ns = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
	return 0;
}

clockid_t sched_slot_clock(int slot)
{
	return slot == SCHED_SLOT_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
}

static bool before(const struct sched_thread *a, const struct sched_thread *b)
{
	return a->deadline_ns < b->deadline_ns ||
	       (a->deadline_ns == b->deadline_ns && a->id < b->id);
}

/* Sorted by (deadline, thread id): the order sched_expire asks in. */
void sched_timer_insert(struct sched_thread *t, int slot, uint64_t ns)
{
	struct sched_thread *prev = NULL, *next = sched_g.timers[slot];
	t->tm_slot = slot;
	t->deadline_ns = ns;
	while (next && !before(t, next)) {
		prev = next;
		next = next->tm_next;
	}
	t->tm_prev = prev;
	t->tm_next = next;
	if (prev)
		prev->tm_next = t;
	else
		sched_g.timers[slot] = t;
	if (next)
		next->tm_prev = t;
}

void sched_timer_remove(struct sched_thread *t)
{
	if (t->tm_slot < 0)
		return;
	if (t->tm_prev)
		t->tm_prev->tm_next = t->tm_next;
	else
		sched_g.timers[t->tm_slot] = t->tm_next;
	if (t->tm_next)
		t->tm_next->tm_prev = t->tm_prev;
	t->tm_next = t->tm_prev = NULL;
	t->tm_slot = -1;
}
