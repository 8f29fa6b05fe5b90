/* verdict.c: the failure oracle (what became of a run), in words, and what is
 * kept of it: a failing run's log and output stay in DIR, a passing run's go. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hunt.h"

/* Whether a line of the file matches re. */
static bool file_matches(const char *path, const regex_t *re)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool hit = false;
	while (!hit && (n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = 0;
		hit = regexec(re, line, 0, NULL, 0) == 0;
	}
	free(line);
	fclose(f);
	return hit;
}

/* A line of the run's stdout or stderr matches re. */
static bool output_matches(const struct hunt_opts *o, uint64_t run, const regex_t *re)
{
	char *out = hunt_path(o, run, "out"), *err = hunt_path(o, run, "err");
	bool hit = file_matches(out, re) || file_matches(err, re);
	free(out);
	free(err);
	return hit;
}

enum hunt_verdict hunt_judge(const struct hunt_opts *o, uint64_t run, int status, bool killed,
			     int *code)
{
	*code = 0;
	if (killed)
		return HUNT_KILLED;
	if (WIFSIGNALED(status)) {
		*code = WTERMSIG(status);
		return HUNT_SIGNAL;
	}
	*code = WEXITSTATUS(status);
	if (o->mode != HUNT_MODE_NATIVE) {
		switch (*code) {
		case HUNT_EXIT_DEADLOCK:
			return HUNT_DEADLOCK;
		case HUNT_EXIT_HANG:
			return HUNT_HANG;
		case HUNT_EXIT_DIVERGED:
			return HUNT_DIVERGED;
		}
	}
	if (*code && !o->exit_ok[*code & 255])
		return HUNT_EXIT;
	if (o->fail_if && output_matches(o, run, o->fail_if))
		return HUNT_FAIL_IF;
	if (o->expect && !output_matches(o, run, o->expect))
		return HUNT_EXPECT;
	return HUNT_OK;
}

const char *hunt_verdict_name(enum hunt_verdict v)
{
	static const char *names[HUNT_NVERDICTS] = {
		[HUNT_OK] = "ok",
		[HUNT_EXIT] = "non-zero exit",
		[HUNT_SIGNAL] = "signal",
		[HUNT_DEADLOCK] = "deadlock",
		[HUNT_HANG] = "hang",
		[HUNT_KILLED] = "killed",
		[HUNT_DIVERGED] = "diverged",
		[HUNT_FAIL_IF] = "--fail-if",
		[HUNT_EXPECT] = "--expect",
	};
	return names[v];
}

/* One run's outcome in words: "deadlock (exit status 87)", "SIGSEGV", ... */
void hunt_describe(FILE *f, const struct hunt_result *r)
{
	switch (r->verdict) {
	case HUNT_OK:
		fputs("passed", f);
		break;
	case HUNT_EXIT:
		fprintf(f, "exit status %d", r->code);
		break;
	case HUNT_SIGNAL:
		fprintf(f, "killed by SIG%s", sigabbrev_np(r->code) ? sigabbrev_np(r->code) : "?");
		break;
	case HUNT_DEADLOCK:
		fprintf(f, "deadlock (exit status %d)", r->code);
		break;
	case HUNT_HANG:
		fprintf(f, "hang (exit status %d, the runtime's --timeout)", r->code);
		break;
	case HUNT_KILLED:
		fputs("hang (still running past replay-hunt's limit: killed)", f);
		break;
	case HUNT_DIVERGED:
		fprintf(f, "exit status %d (the runtime says diverged)", r->code);
		break;
	case HUNT_FAIL_IF:
		fputs("output matched --fail-if", f);
		break;
	case HUNT_EXPECT:
		fputs("output lacks --expect", f);
		break;
	default:
		break;
	}
}

void hunt_discard(const struct hunt_opts *o, uint64_t run)
{
	static const char *ext[] = {"bin", "out", "err"};
	for (size_t i = 0; i < 3; i++) {
		char *p = hunt_path(o, run, ext[i]);
		unlink(p);
		free(p);
	}
}

/* A name run-DIGITS.(bin|out|err) of one of this shard's own runs. */
static bool ours(const struct hunt_opts *o, const char *name)
{
	if (strncmp(name, "run-", 4))
		return false;
	const char *p = name + 4, *q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	if (q == p || (strcmp(q, ".bin") && strcmp(q, ".out") && strcmp(q, ".err")))
		return false;
	uint64_t run = strtoull(p, NULL, 10);
	return run >= o->first && (!o->runs || run < o->runs) &&
	       (run - o->first) % o->shard_n == o->shard_k;
}

/* A shard's --keep is its campaign's, shared by every shard (their run numbers, and so
 * their names, never collide): it may exist, but nothing in it is overwritten or
 * removed. A file named as one of this shard's runs is an earlier campaign's: refused
 * before any run, so no failure of either is lost. */
void hunt_check_shared_keep(const struct hunt_opts *o)
{
	DIR *d = opendir(o->keep);
	if (!d)
		hunt_die(2, "--keep %s: cannot read the directory", o->keep);
	struct dirent *e;
	while ((e = readdir(d)))
		if (ours(o, e->d_name)) {
			hunt_die(2, "--keep %s already holds %s, an earlier campaign's: give each "
				 "campaign a --keep of its own", o->keep, e->d_name);
		}
	closedir(d);
}
