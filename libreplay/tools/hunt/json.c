/* json.c: a campaign on many machines (docs/tools.md, "Hunting on many machines").
 * --json FILE writes one JSON object a line: the campaign's (what ran, where its logs
 * are), one per run as it ends (seed, outcome, exit status, signal, log, time), and
 * an end line; each line is flushed, so a shard stopped half-way leaves the runs it
 * finished. --merge reads the files of a campaign's shards and prints the summary one
 * replay-hunt running every run would have printed (report.c). The reader takes the
 * flat objects the writer writes, not JSON at large (an array's strings are skipped). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hunt.h"

static FILE *out;

/* The outcomes' names in the lines: one word each, by enum hunt_verdict. */
static const char *const outcome[HUNT_NVERDICTS] = {
	[HUNT_OK] = "ok",
	[HUNT_EXIT] = "exit",
	[HUNT_SIGNAL] = "signal",
	[HUNT_DEADLOCK] = "deadlock",
	[HUNT_HANG] = "hang",
	[HUNT_KILLED] = "killed",
	[HUNT_DIVERGED] = "diverged",
	[HUNT_FAIL_IF] = "fail-if",
	[HUNT_EXPECT] = "expect",
};

static void str(const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void line_end(const struct hunt_opts *o)
{
	fputs("}\n", out);
	if (fflush(out))
		hunt_die(2, "--json %s: %s", o->json, strerror(errno));
}

static bool seeded(const struct hunt_opts *o)
{
	return o->mode == HUNT_MODE_HUNT || o->mode == HUNT_MODE_CHAOS;
}

void hunt_json_open(const struct hunt_opts *o)
{
	if (!o->json)
		return;
	out = fopen(o->json, "w");
	if (!out)
		hunt_die(2, "--json %s: %s", o->json, strerror(errno));
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	fputs("{\"replay_hunt\":\"campaign\",\"program\":", out);
	str(o->cmd[0]);
	fputs(",\"args\":[", out);
	for (int i = 1; i < o->ncmd; i++) {
		if (i > 1)
			fputc(',', out);
		str(o->cmd[i]);
	}
	fputs("],\"mode\":", out);
	str(o->mode_name);
	fprintf(out, ",\"seed\":%llu,\"first\":%llu,", (unsigned long long)o->seed,
		(unsigned long long)o->first);
	if (o->runs)
		fprintf(out, "\"runs\":%llu", (unsigned long long)o->runs);
	else
		fputs("\"runs\":null", out);
	fprintf(out, ",\"shard\":\"%llu/%llu\",\"jobs\":%u,\"keep\":", (unsigned long long)o->shard_k,
		(unsigned long long)o->shard_n, o->jobs);
	str(o->keep);
	fputs(",\"stdin\":", out);
	str(o->stdin_path);
	fputs(",\"host\":", out);
	str(host);
	line_end(o);
}

void hunt_json_run(const struct hunt_opts *o, const struct hunt_result *r)
{
	if (!out)
		return;
	fprintf(out, "{\"run\":%llu,\"seed\":", (unsigned long long)r->run);
	if (seeded(o))
		fprintf(out, "%llu", (unsigned long long)(o->seed + r->run));
	else
		fputs("null", out);
	fputs(",\"strategy\":", out);
	str(seeded(o) ? hunt_seed_strategy(o, o->seed + r->run) : o->mode_name);
	fputs(",\"outcome\":", out);
	str(outcome[r->verdict]);
	fputs(",\"description\":\"", out);
	hunt_describe(out, r); /* plain words, no quote or backslash */
	fputs("\",\"exit_status\":", out);
	bool exited = r->verdict != HUNT_SIGNAL && r->verdict != HUNT_KILLED;
	if (exited)
		fprintf(out, "%d", r->code);
	else
		fputs("null", out);
	fputs(",\"signal\":", out);
	if (exited) {
		fputs("null", out);
	} else {
		int sig = r->verdict == HUNT_KILLED ? SIGKILL : r->code;
		const char *name = sigabbrev_np(sig);
		fprintf(out, "\"SIG%s\"", name ? name : "?");
	}
	fputs(",\"log\":", out);
	char *log = r->verdict != HUNT_OK && o->mode != HUNT_MODE_NATIVE ? hunt_path(o, r->run, "bin") : NULL;
	str(log);
	free(log);
	fprintf(out, ",\"time_s\":%.6f", (double)r->ns / 1e9);
	line_end(o);
}

void hunt_json_end(const struct hunt_opts *o, const struct hunt_tally *t)
{
	if (!out)
		return;
	fprintf(out, "{\"replay_hunt\":\"end\",\"runs\":%llu,\"failures\":%llu,\"elapsed_s\":%.6f,"
		     "\"interrupted\":%s",
		(unsigned long long)t->runs, (unsigned long long)t->failures,
		(double)t->elapsed_ns / 1e9, t->interrupted ? "true" : "false");
	line_end(o);
	fclose(out);
	out = NULL;
}

/* ---- --merge: reading the lines back ------------------------------------------------ */

#define FIELDS 24

struct field {
	char key[32];
	char *s;     /* a string's value (unescaped), or NULL */
	double num;  /* a number's */
	bool null, boolean, truth, number;
};

struct line {
	struct field f[FIELDS];
	int n;
};

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n')
		(*p)++;
}

/* A string at *p (after its opening quote): unescaped into a malloc'd copy, or NULL
 * if it is not one. */
static char *parse_str(const char **p)
{
	size_t cap = strlen(*p) + 1, n = 0;
	char *s = hunt_xmalloc(cap);
	const char *q = *p;
	for (; *q && *q != '"'; q++) {
		if (*q != '\\') {
			s[n++] = *q;
			continue;
		}
		q++;
		const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
		const char *e = *q ? strchr(from, *q) : NULL;
		if (e) {
			s[n++] = to[e - from];
		} else if (*q == 'u' && strspn(q + 1, "0123456789abcdefABCDEF") >= 4) {
			char hex[5] = {q[1], q[2], q[3], q[4], 0};
			unsigned long c = strtoul(hex, NULL, 16);
			if (c == 0 || c > 0x7f)
				break; /* the writer writes control characters alone */
			s[n++] = (char)c;
			q += 4;
		} else {
			break;
		}
	}
	if (*q != '"') {
		free(s);
		return NULL;
	}
	s[n] = 0;
	*p = q + 1;
	return s;
}

/* One value at *p into f (an array: its strings skipped); false if it is not one. */
static bool parse_value(const char **p, struct field *f)
{
	skip_ws(p);
	if (**p == '"') {
		(*p)++;
		return (f->s = parse_str(p)) != NULL;
	}
	if (**p == '[') {
		(*p)++;
		skip_ws(p);
		while (**p != ']') {
			struct field x = {0};
			if (!parse_value(p, &x))
				return false;
			free(x.s);
			skip_ws(p);
			if (**p == ',')
				(*p)++;
			else if (**p != ']')
				return false;
			skip_ws(p);
		}
		(*p)++;
		f->null = true;
		return true;
	}
	static const char *const words[] = {"null", "true", "false"};
	for (int i = 0; i < 3; i++)
		if (!strncmp(*p, words[i], strlen(words[i]))) {
			*p += strlen(words[i]);
			f->null = i == 0;
			f->boolean = i > 0;
			f->truth = i == 1;
			return true;
		}
	char *end;
	errno = 0;
	f->num = strtod(*p, &end);
	if (end == *p || errno)
		return false;
	f->number = true;
	*p = end;
	return true;
}

static bool parse_line(const char *p, struct line *l)
{
	memset(l, 0, sizeof *l);
	skip_ws(&p);
	if (*p++ != '{')
		return false;
	skip_ws(&p);
	while (*p != '}') {
		if (l->n == FIELDS || *p++ != '"')
			return false;
		struct field *f = &l->f[l->n++];
		char *key = parse_str(&p);
		if (!key || strlen(key) >= sizeof f->key) {
			free(key);
			return false;
		}
		strcpy(f->key, key);
		free(key);
		skip_ws(&p);
		if (*p++ != ':' || !parse_value(&p, f))
			return false;
		skip_ws(&p);
		if (*p == ',')
			p++;
		else if (*p != '}')
			return false;
		skip_ws(&p);
	}
	p++;
	skip_ws(&p);
	return *p == 0;
}

static void free_line(struct line *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->f[i].s);
}

static const struct field *get(const struct line *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].key, key))
			return &l->f[i];
	return NULL;
}

/* A string field's value (NULL when null or absent). */
static const char *get_s(const struct line *l, const char *key)
{
	const struct field *f = get(l, key);
	return f ? f->s : NULL;
}

/* A whole number field, or false. */
static bool get_u(const struct line *l, const char *key, uint64_t *v)
{
	const struct field *f = get(l, key);
	if (!f || !f->number || f->num < 0 || f->num > 1e18 || f->num != (double)(uint64_t)f->num)
		return false;
	*v = (uint64_t)f->num;
	return true;
}

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		hunt_die(2, "out of memory");
	return d;
}

struct merge {
	struct hunt_opts o;
	struct hunt_tally t;
	const char *first_file;
	char *first_program;
	uint64_t shards; /* N of K/N: every file's */
	bool *shard_seen;
	uint64_t *runs; /* every run merged, to find one given twice */
	size_t nruns, capruns;
};

static void merge_header(struct merge *m, const char *file, const struct line *l)
{
	const char *mode = get_s(l, "mode"), *program = get_s(l, "program"), *keep = get_s(l, "keep"),
		   *shard = get_s(l, "shard");
	uint64_t seed, jobs, k, n;
	char *slash;
	if (!mode || !program || !keep || !shard || !get_u(l, "seed", &seed) || !get_u(l, "jobs", &jobs) ||
	    !(slash = strchr(shard, '/')))
		hunt_die(2, "--merge %s: line 1 is not a replay-hunt --json header", file);
	k = strtoull(shard, NULL, 10);
	n = strtoull(slash + 1, NULL, 10);
	if (n < 1 || k >= n || n > 1000000)
		hunt_die(2, "--merge %s: shard '%s': want K/N, K < N", file, shard);
	if (!m->first_file) {
		m->first_file = file;
		m->o.mode_name = xstrdup(mode);
		hunt_parse_mode(&m->o, m->o.mode_name);
		m->o.seed = seed;
		m->first_program = xstrdup(program);
		m->o.cmd = hunt_xmalloc(2 * sizeof *m->o.cmd);
		m->o.cmd[0] = m->first_program;
		m->o.cmd[1] = NULL;
		m->o.ncmd = 1;
		m->o.keep = xstrdup(keep);
		m->o.stdin_path = xstrdup(get_s(l, "stdin"));
		m->shards = n;
		m->shard_seen = calloc(n, sizeof *m->shard_seen);
		if (!m->shard_seen)
			hunt_die(2, "out of memory");
	} else if (strcmp(mode, m->o.mode_name) || seed != m->o.seed) {
		hunt_die(2, "--merge %s: mode %s, seed %llu; %s: mode %s, seed %llu: not one campaign",
			 m->first_file, m->o.mode_name, (unsigned long long)m->o.seed, file, mode,
			 (unsigned long long)seed);
	} else if (n != m->shards) {
		hunt_die(2, "--merge %s: shard %s, but %s is a shard of %llu: not one campaign", file,
			 shard, m->first_file, (unsigned long long)m->shards);
	}
	if (m->shard_seen[k] && n > 1)
		hunt_die(2, "--merge %s: shard %s is given twice", file, shard);
	m->shard_seen[k] = true;
	m->o.jobs += (unsigned)jobs;
}

static enum hunt_verdict verdict_of(const char *name)
{
	for (int v = 0; v < HUNT_NVERDICTS; v++)
		if (name && !strcmp(name, outcome[v]))
			return v;
	return HUNT_NVERDICTS;
}

static int signal_of(const char *name)
{
	for (int s = 1; name && s < 65; s++) {
		const char *a = sigabbrev_np(s);
		if (a && !strncmp(name, "SIG", 3) && !strcmp(name + 3, a))
			return s;
	}
	return 0;
}

static void merge_run(struct merge *m, const char *file, unsigned long lineno, const struct line *l,
		      const char *keep)
{
	struct hunt_result r = {.keep = keep};
	uint64_t code;
	double secs = 0;
	const struct field *t = get(l, "time_s");
	if (t && t->number)
		secs = t->num;
	r.verdict = verdict_of(get_s(l, "outcome"));
	if (!get_u(l, "run", &r.run) || r.verdict == HUNT_NVERDICTS)
		hunt_die(2, "--merge %s:%lu: not a run's line", file, lineno);
	if (get_u(l, "exit_status", &code))
		r.code = (int)code;
	else if (r.verdict == HUNT_SIGNAL)
		r.code = signal_of(get_s(l, "signal"));
	r.ns = (uint64_t)(secs * 1e9);
	if (m->nruns == m->capruns) {
		m->capruns = m->capruns ? 2 * m->capruns : 256;
		m->runs = realloc(m->runs, m->capruns * sizeof *m->runs);
		if (!m->runs)
			hunt_die(2, "out of memory");
	}
	m->runs[m->nruns++] = r.run;
	if (!m->t.started++ || r.run < m->t.lo)
		m->t.lo = r.run;
	if (m->t.started == 1 || r.run > m->t.hi)
		m->t.hi = r.run;
	hunt_tally_add(&m->t, &r);
}

static void merge_file(struct merge *m, const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		hunt_die(2, "--merge %s: %s", file, strerror(errno));
	char *buf = NULL, *keep = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	bool ended = false;
	uint64_t runs = 0;
	while (getline(&buf, &cap, f) >= 0) {
		struct line l;
		lineno++;
		if (!parse_line(buf, &l))
			hunt_die(2, "--merge %s:%lu: not a replay-hunt --json line", file, lineno);
		const char *what = get_s(&l, "replay_hunt");
		if (lineno == 1) {
			if (!what || strcmp(what, "campaign"))
				hunt_die(2, "--merge %s: line 1 is not a replay-hunt --json header", file);
			merge_header(m, file, &l);
			keep = xstrdup(get_s(&l, "keep"));
		} else if (what && !strcmp(what, "end")) {
			const struct field *e = get(&l, "elapsed_s"), *i = get(&l, "interrupted");
			uint64_t ns = e && e->number && e->num > 0 ? (uint64_t)(e->num * 1e9) : 0;
			if (ns > m->t.elapsed_ns)
				m->t.elapsed_ns = ns; /* shards run side by side: the longest */
			m->t.interrupted |= i && i->truth;
			ended = true;
		} else if (what || ended) {
			hunt_die(2, "--merge %s:%lu: not a run's line", file, lineno);
		} else {
			merge_run(m, file, lineno, &l, keep);
			runs++;
		}
		free_line(&l);
	}
	free(buf);
	fclose(f);
	if (!lineno)
		hunt_die(2, "--merge %s: empty (not a replay-hunt --json file)", file);
	if (!ended)
		fprintf(stderr, "replay-hunt: --merge %s: no end line (a shard stopped or still running):"
				" its %llu finished runs are counted\n", file, (unsigned long long)runs);
}

static int by_number(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int hunt_merge(int nfiles, char **files)
{
	if (nfiles < 1)
		hunt_die(2, "--merge needs the --json files of a campaign's shards");
	static struct merge m;
	m.o.shard_n = 1;
	for (int i = 0; i < nfiles; i++)
		merge_file(&m, files[i]);
	qsort(m.runs, m.nruns, sizeof *m.runs, by_number);
	for (size_t i = 1; i < m.nruns; i++)
		if (m.runs[i] == m.runs[i - 1])
			hunt_die(2, "--merge: run %llu is in two files: one shard given twice, or shards"
				    " of two campaigns", (unsigned long long)m.runs[i]);
	for (uint64_t k = 0; k < m.shards; k++)
		if (!m.shard_seen[k])
			fprintf(stderr, "replay-hunt: --merge: shard %llu/%llu is missing: its runs are"
					" not counted\n", (unsigned long long)k, (unsigned long long)m.shards);
	setvbuf(stdout, NULL, _IOLBF, 0);
	hunt_report(&m.o, &m.t);
	if (m.t.failures)
		return 1;
	return m.t.interrupted ? 130 : 0;
}
