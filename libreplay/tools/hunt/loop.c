/* loop.c: the runs, J at a time: start the next while there is room and time,
 * reap those that end, kill those past the limit (their whole process group),
 * keep the tally, and show progress on a terminal. SIGINT, SIGTERM and SIGHUP stop
 * the hunt: the runs in flight are killed and not counted. The hunt is its runs'
 * subreaper: what they leave behind becomes its child, and it returns only once
 * every process of theirs is dead and reaped. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hunt.h"

#define HUNT_PROGRESS_NS 200000000ull /* a terminal's progress line, every 0.2 s */
#define HUNT_KILL_GRACE_NS 5000000000ull

struct loop {
	const struct hunt_opts *o;
	struct hunt_tally *t;
	struct hunt_slot *slots;
	unsigned active;
	uint64_t next, start_ns, limit_ns;
	bool stopping, tty;
	sigset_t sigs;
};

static bool may_start(const struct loop *l, uint64_t now)
{
	const struct hunt_opts *o = l->o;
	if (l->stopping || (o->stop && l->t->failures))
		return false;
	if (o->runs && l->next >= o->runs)
		return false; /* the campaign's last run (of this shard) is started */
	return !o->time_ns || now - l->start_ns < o->time_ns;
}

static void start_run(struct loop *l, uint64_t now)
{
	struct hunt_slot *s = l->slots;
	while (s->pid)
		s++;
	s->run = l->next;
	l->next += l->o->shard_n;
	if (!l->t->started++)
		l->t->lo = s->run;
	l->t->hi = s->run;
	s->pid = hunt_spawn(l->o, s->run);
	s->start_ns = now;
	s->kill_ns = now + l->limit_ns;
	s->killed = false;
	l->active++;
}

void hunt_tally_add(struct hunt_tally *t, const struct hunt_result *r)
{
	t->runs++;
	t->by_verdict[r->verdict]++;
	if (r->verdict == HUNT_OK)
		return;
	t->failures++;
	if (t->nfailed == t->capfailed) {
		t->capfailed = t->capfailed ? 2 * t->capfailed : 64;
		t->failed = realloc(t->failed, t->capfailed * sizeof *t->failed);
		if (!t->failed)
			hunt_die(2, "out of memory");
	}
	t->failed[t->nfailed++] = *r;
}

static void finish(struct loop *l, struct hunt_slot *s, int status)
{
	/* anything the run left behind in its process group goes with it */
	kill(-s->pid, SIGKILL);
	struct hunt_result r = {.run = s->run, .ns = hunt_now_ns() - s->start_ns};
	if (l->stopping) {
		hunt_discard(l->o, s->run); /* interrupted: neither a pass nor a failure */
	} else {
		r.verdict = hunt_judge(l->o, s->run, status, s->killed, &r.code);
		if (r.verdict == HUNT_OK)
			hunt_discard(l->o, s->run);
		hunt_tally_add(l->t, &r);
		hunt_json_run(l->o, &r);
	}
	s->pid = 0;
	l->active--;
}

static void reap(struct loop *l)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < l->o->jobs; i++)
			if (l->slots[i].pid == pid)
				finish(l, &l->slots[i], status);
	}
}

static void kill_all(struct loop *l)
{
	for (unsigned i = 0; i < l->o->jobs; i++)
		if (l->slots[i].pid)
			kill(-l->slots[i].pid, SIGKILL);
}

/* The time process pid has waited on a run queue for a CPU (/proc/PID/schedstat's
 * second field, ns), or 0 if unknown. */
static uint64_t run_queue_wait_ns(pid_t pid)
{
	char path[64];
	unsigned long long on_cpu, waited;
	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int got = fscanf(f, "%llu %llu", &on_cpu, &waited);
	fclose(f);
	return got == 2 ? waited : 0;
}

/* A run is killed once its own time passes the limit: the wall time since it started
 * less its waits for a CPU (a loaded machine, other jobs), so that a run slowed by
 * others is not called a hang, and one blocked for good still is. Its deadline moves
 * on by each wait (kill_ns). */
static void kill_late(struct loop *l, uint64_t now)
{
	for (unsigned i = 0; i < l->o->jobs; i++) {
		struct hunt_slot *s = &l->slots[i];
		if (!s->pid || s->killed || now < s->kill_ns)
			continue;
		s->kill_ns = s->start_ns + l->limit_ns + run_queue_wait_ns(s->pid);
		if (now >= s->kill_ns) {
			kill(-s->pid, SIGKILL);
			s->killed = true;
		}
	}
}

static void progress(const struct loop *l, uint64_t now)
{
	const struct hunt_tally *t = l->t;
	fprintf(stderr, "\rreplay-hunt: %llu", (unsigned long long)t->runs);
	if (l->o->runs)
		fprintf(stderr, "/%llu", (unsigned long long)hunt_shard_runs(l->o));
	fprintf(stderr, " runs, %llu failed", (unsigned long long)t->failures);
	if (t->nfailed) {
		uint64_t first = t->failed[0].run;
		for (size_t i = 1; i < t->nfailed; i++)
			if (t->failed[i].run < first)
				first = t->failed[i].run;
		fprintf(stderr, " (first: run %llu)", (unsigned long long)first);
	}
	fprintf(stderr, ", %u running, %.1f s\033[K", l->active, (double)(now - l->start_ns) / 1e9);
	fflush(stderr);
}

/* Sleep until a signal of ours or the next thing to do. */
static void wait_event(struct loop *l, uint64_t now)
{
	uint64_t wake = now + (l->tty ? HUNT_PROGRESS_NS : 1000000000ull);
	for (unsigned i = 0; i < l->o->jobs; i++)
		if (l->slots[i].pid && !l->slots[i].killed && l->slots[i].kill_ns < wake)
			wake = l->slots[i].kill_ns;
	uint64_t ns = wake > now ? wake - now : 0;
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	int sig = sigtimedwait(&l->sigs, NULL, &ts);
	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
		l->stopping = true;
		l->t->interrupted = true;
		kill_all(l);
	}
}

/* Kill every child left (a run's orphans, reparented to the hunt, its subreaper) and
 * reap it, until none is left. kill(2) only queues a SIGKILL: a process killed when
 * the hunt returned could run on for a while, longer on a loaded machine (tests/hunt's
 * check that an interrupt kills the run in flight saw a grandchild still running in 1
 * of 60 interrupts under load). */
static void reap_leftovers(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);
		if (pid > 0)
			continue;
		if (pid < 0 && errno != EINTR)
			return; /* ECHILD: none left */
		FILE *f = fopen(path, "r");
		if (!f)
			return; /* a kernel without the list: not waited for */
		int child, killed = 0;
		while (fscanf(f, "%d", &child) == 1)
			killed += kill(child, SIGKILL) == 0;
		fclose(f);
		if (!killed)
			return;
		waitpid(-1, NULL, 0);
	}
}

void hunt_loop(const struct hunt_opts *o, struct hunt_tally *t)
{
	struct loop l = {.o = o, .t = t, .tty = isatty(2)};
	l.slots = calloc(o->jobs, sizeof *l.slots);
	if (!l.slots)
		hunt_die(2, "out of memory");
	/* The runtime's --timeout reports a hang itself; the runner's kill is for what
	 * it cannot stop (or a runtime without --timeout, or a native program). */
	l.limit_ns = o->rt_timeout ? 2 * o->timeout_ns + HUNT_KILL_GRACE_NS : o->timeout_ns;
	sigemptyset(&l.sigs);
	sigaddset(&l.sigs, SIGCHLD);
	sigaddset(&l.sigs, SIGINT);
	sigaddset(&l.sigs, SIGTERM);
	sigaddset(&l.sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &l.sigs, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	l.next = o->first + o->shard_k;
	l.start_ns = hunt_now_ns();
	uint64_t shown = 0;
	for (;;) {
		uint64_t now = hunt_now_ns();
		while (l.active < o->jobs && may_start(&l, now))
			start_run(&l, now);
		if (!l.active)
			break;
		wait_event(&l, now);
		reap(&l);
		now = hunt_now_ns();
		kill_late(&l, now);
		if (l.tty && now - shown >= HUNT_PROGRESS_NS) {
			progress(&l, now);
			shown = now;
		}
	}
	reap_leftovers();
	if (l.tty && shown)
		fputs("\r\033[K", stderr);
	t->elapsed_ns = hunt_now_ns() - l.start_ns;
	free(l.slots);
}
