/* report.c: what replay-hunt prints at the end, on stdout: the runs, the failures,
 * the first failing run with its seed, and the commands that replay and debug it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hunt.h"

#define HUNT_LIST_MAX 5 /* failing runs listed one per line */

static bool seeded(const struct hunt_opts *o)
{
	return o->mode == HUNT_MODE_HUNT || o->mode == HUNT_MODE_CHAOS;
}

static int by_run(const void *a, const void *b)
{
	const struct hunt_result *x = a, *y = b;
	return x->run < y->run ? -1 : x->run > y->run;
}

static void one_run(const struct hunt_opts *o, const struct hunt_result *r)
{
	printf("%llu", (unsigned long long)r->run);
	if (seeded(o))
		printf(" (seed %llu)", (unsigned long long)(o->seed + r->run));
	fputs(": ", stdout);
	hunt_describe(stdout, r);
	putchar('\n');
}

/* How to call replay-gdb: its bare name when that is the one beside us (or none is
 * beside us), else its path. */
static void print_replay_gdb(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);
	if (n > 0) {
		self[n] = 0;
		strcpy(strrchr(self, '/') + 1, "replay-gdb");
		struct stat mine, found;
		if (!stat(self, &mine)) {
			const char *path = getenv("PATH");
			bool same = false;
			for (const char *p = path ? path : ""; *p && !same;) {
				size_t len = strcspn(p, ":");
				char f[PATH_MAX];
				snprintf(f, sizeof f, "%.*s/replay-gdb", (int)len, p);
				same = !stat(f, &found) && found.st_ino == mine.st_ino &&
				       found.st_dev == mine.st_dev;
				p += len + (p[len] == ':');
			}
			if (!same) {
				hunt_print_quoted(stdout, self);
				return;
			}
		}
	}
	fputs("replay-gdb", stdout);
}

static void commands(const struct hunt_opts *shard, const struct hunt_result *r)
{
	struct hunt_opts where = *shard;
	if (r->keep)
		where.keep = r->keep; /* --merge: its shard's directory */
	const struct hunt_opts *o = &where;
	uint64_t run = r->run;
	char *bin = hunt_path(o, run, "bin"), *out = hunt_path(o, run, "out"),
	     *err = hunt_path(o, run, "err");
	if (o->mode == HUNT_MODE_NATIVE) {
		puts("replay: none (a native run records nothing)");
	} else {
		fputs("replay: ", stdout);
		hunt_print_quoted(stdout, o->cmd[0]);
		fputs(" --replay ", stdout);
		hunt_print_quoted(stdout, bin);
		if (o->stdin_path) {
			/* the log holds what the run read; the file keeps the replay's stdin
			 * of the recording's kind, so the runtime warns of no difference */
			fputs(" < ", stdout);
			hunt_print_quoted(stdout, o->stdin_path);
		}
		fputs("\ndebug: ", stdout);
		print_replay_gdb();
		putchar(' ');
		hunt_print_quoted(stdout, o->cmd[0]);
		putchar(' ');
		hunt_print_quoted(stdout, bin);
		putchar('\n');
	}
	printf("output: %s %s\n", out, err);
	free(bin);
	free(out);
	free(err);
}

void hunt_report(const struct hunt_opts *o, struct hunt_tally *t)
{
	if (t->nfailed)
		qsort(t->failed, t->nfailed, sizeof *t->failed, by_run);
	printf("runs: %llu (%.1f s, %u job%s, mode %s", (unsigned long long)t->runs,
	       (double)t->elapsed_ns / 1e9, o->jobs, o->jobs == 1 ? "" : "s", o->mode_name);
	if (seeded(o) && t->started)
		printf(", seeds %llu to %llu", (unsigned long long)(o->seed + t->lo),
		       (unsigned long long)(o->seed + t->hi));
	if (o->shard_n > 1)
		printf(", shard %llu/%llu", (unsigned long long)o->shard_k,
		       (unsigned long long)o->shard_n);
	puts(")");
	printf("failures: %llu", (unsigned long long)t->failures);
	const char *sep = " (";
	for (int v = HUNT_OK + 1; v < HUNT_NVERDICTS; v++) {
		if (!t->by_verdict[v])
			continue;
		printf("%s%llu %s", sep, (unsigned long long)t->by_verdict[v], hunt_verdict_name(v));
		sep = ", ";
	}
	puts(t->failures ? ")" : "");
	for (size_t i = 0; i < t->nfailed && i < HUNT_LIST_MAX; i++) {
		fputs("failed: run ", stdout);
		one_run(o, &t->failed[i]);
	}
	if (t->nfailed > HUNT_LIST_MAX)
		printf("failed: ... and %zu more\n", t->nfailed - HUNT_LIST_MAX);
	if (t->interrupted)
		puts("interrupted: the runs in flight were stopped and are not counted");
	if (!t->nfailed)
		return;
	fputs("first failing run: ", stdout);
	one_run(o, &t->failed[0]);
	commands(o, &t->failed[0]);
	printf("kept: the %zu failing run%s in ", t->nfailed, t->nfailed == 1 ? "" : "s");
	/* each directory once (--merge: the shards' own, in the order of their runs) */
	for (size_t i = 0; i < t->nfailed; i++) {
		const char *dir = t->failed[i].keep ? t->failed[i].keep : o->keep;
		size_t j = 0;
		while (j < i && strcmp(t->failed[j].keep ? t->failed[j].keep : o->keep, dir))
			j++;
		if (j == i)
			printf("%s%s/", i ? ", " : "", dir);
	}
	puts(" (run-N.bin, .out, .err)");
}

/* The runs this shard starts: first+K, first+K+N, ... below runs (0: no limit). */
uint64_t hunt_shard_runs(const struct hunt_opts *o)
{
	if (!o->runs)
		return 0;
	uint64_t from = o->first + o->shard_k;
	return from >= o->runs ? 0 : (o->runs - from + o->shard_n - 1) / o->shard_n;
}
