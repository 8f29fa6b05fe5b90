/* sched_dump.c: what every thread is doing, in words (deadlock reports, debuggers). */
#include "sched_impl.h"

#include <inttypes.h>

const char *sched_wait_kind_name(enum sched_wait_kind kind)
{
	static const char *const names[] = {
		[SCHED_WAIT_NONE] = "nothing",       [SCHED_WAIT_JOIN] = "join",
		[SCHED_WAIT_MUTEX] = "mutex",        [SCHED_WAIT_COND] = "condvar",
		[SCHED_WAIT_SEM] = "semaphore",      [SCHED_WAIT_BARRIER] = "barrier",
		[SCHED_WAIT_RDLOCK] = "rwlock (read)", [SCHED_WAIT_WRLOCK] = "rwlock (write)",
		[SCHED_WAIT_SLEEP] = "sleep",        [SCHED_WAIT_QUEUE] = "wait queue",
		[SCHED_WAIT_EVENT] = "event",
	};
	if ((unsigned)kind < sizeof names / sizeof names[0] && names[kind])
		return names[kind];
	return "?";
}

static void blocked_on(FILE *f, const struct sched_thread *t)
{
	const struct sched_mutex *m = t->wait_obj;
	const struct sched_rwlock *l = t->wait_obj;
	switch (t->wait_kind) {
	case SCHED_WAIT_JOIN:
		fprintf(f, "joining thread %d", ((const struct sched_thread *)t->wait_obj)->id);
		break;
	case SCHED_WAIT_SLEEP:
		fputs("sleeping", f);
		break;
	case SCHED_WAIT_MUTEX:
		fprintf(f, "mutex %p", t->wait_obj);
		if (m->count)
			fprintf(f, " held by thread %d", m->owner);
		break;
	case SCHED_WAIT_RDLOCK:
	case SCHED_WAIT_WRLOCK:
		fprintf(f, "%s %p", sched_wait_kind_name(t->wait_kind), t->wait_obj);
		if (l->writer)
			fprintf(f, " write-locked by thread %d", l->wowner);
		else if (l->readers)
			fprintf(f, " read-locked %u times", l->readers);
		break;
	default:
		fprintf(f, "%s %p", sched_wait_kind_name(t->wait_kind), t->wait_obj);
	}
	if (t->tm_slot >= 0)
		fprintf(f, " until %" PRIu64 " ns (%s)", t->deadline_ns,
			t->tm_slot == SCHED_SLOT_REALTIME ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC");
}

static void held(FILE *f, const struct sched_thread *t)
{
	for (unsigned i = 0; i < t->nheld && i < SCHED_HELD_MAX; i++)
		fprintf(f, "%s%p", i ? ", " : "; holds mutex ", (const void *)t->held[i]);
	if (t->nheld > SCHED_HELD_MAX)
		fprintf(f, " and %u more", t->nheld - SCHED_HELD_MAX);
}

static bool host_blocked(void)
{
	return sched_g.cur == &sched_g.host && sched_g.host.state == SCHED_BLOCKED;
}

void sched_dump(FILE *f)
{
	for (struct sched_thread *t = sched_g.all_head; t; t = t->all_next) {
		fprintf(f, "sched:   thread %d: ", t->id);
		switch (t->state) {
		case SCHED_RUNNING:
			fputs("running", f);
			break;
		case SCHED_RUNNABLE:
			fputs("runnable", f);
			break;
		case SCHED_BLOCKED:
			fputs("blocked on ", f);
			blocked_on(f, t);
			break;
		case SCHED_EXITED:
			fputs("exited, not joined", f);
			break;
		case SCHED_ABANDONED:
			fputs("abandoned", f);
			break;
		}
		if (t->detached)
			fputs(" (detached)", f);
		held(f, t);
		fputc('\n', f);
	}
	if (host_blocked()) {
		fputs("sched:   host (outside sched_run_main): blocked on ", f);
		blocked_on(f, &sched_g.host);
		fputc('\n', f);
	}
}

void sched_report_deadlock(FILE *f)
{
	int n = sched_g.live + host_blocked(), exited = 0;
	for (struct sched_thread *t = sched_g.all_head; t; t = t->all_next)
		exited += t->state == SCHED_EXITED;
	fprintf(f, "sched: deadlock: all %d live thread%s blocked", n, n == 1 ? " is" : "s are");
	if (exited)
		fprintf(f, " (%d more exited, not joined)", exited);
	fputc('\n', f);
	sched_dump(f);
}
