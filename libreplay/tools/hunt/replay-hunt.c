/* replay-hunt: run a program built with sicc many times, each run recorded, until
 * the failures show (docs/debugging.md, docs/tools.md).
 *
 *   replay-hunt [--runs N] [--time LIMIT] [--jobs J] [--seed S] [--timeout T]
 *               [--fail-if REGEX] [--expect REGEX] [--exit-ok N]... [--keep DIR] [--mode MODE]
 *               [--pass FLAG]... [--stdin FILE] [--stop]
 *               [--shard K/N] [--seeds A-B] [--json FILE] [--] PROGRAM [ARGS...]
 *   replay-hunt --merge FILE...
 *
 * Run I records into DIR/run-I.bin with --hunt=S+I (or the mode's flags), DIR a new
 * directory (hunt-logs, or hunt-logs-2 ... where it is taken). A failure
 * is a non-zero exit, a signal, a deadlock (87), a hang (88, or killed past the
 * limit), or output that fails the predicate. Failing runs keep their log and
 * output; passing runs' are removed. Exit 1 when a run failed, 0 when none did,
 * 2 on bad usage, 130 when interrupted before any failure. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hunt.h"

static void usage(void)
{
	printf("usage: replay-hunt [flags] [--] PROGRAM [ARGS...]\n"
	       "Runs PROGRAM (built with sicc) many times, each run recorded, and keeps\n"
	       "the logs of the runs that fail.\n"
	       "  --runs N         at most N runs (default 100, or no limit with --time)\n"
	       "  --time LIMIT     start no run after LIMIT, e.g. 30s, 5m\n"
	       "  --jobs J         J runs at once (default: every CPU we may use)\n"
	       "  --seed S         run I uses seed S+I (default 1)\n"
	       "  --timeout T      a run still going after T is a hang (default 10s);\n"
	       "                   passed to the program, which reports it (exit 88);\n"
	       "                   replay-hunt kills it after 2T+5s\n"
	       "  --fail-if REGEX  a run whose output has a line matching REGEX fails\n"
	       "  --expect REGEX   a run whose output has no line matching REGEX fails\n"
	       "                   (extended regular expressions; stdout and stderr)\n"
	       "  --exit-ok N      exit status N is a pass, as 0 is (repeatable): a program\n"
	       "                   whose main returns N when it works\n"
	       "  --keep DIR       where failing runs stay: DIR/run-I.bin, .out, .err, in\n"
	       "                   a new directory (default hunt-logs; DIR-2, DIR-3 ... where\n"
	       "                   DIR is taken: an earlier hunt's failures are never touched;\n"
	       "                   with --shard or --seeds, DIR itself, the campaign's, which\n"
	       "                   its shards share)\n"
	       "  --mode MODE      hunt (default: --hunt=SEED, each seed draws a strategy),\n"
	       "                   hunt:S (one strategy, --hunt-strategy=S: windows,\n"
	       "                   accesses, pct, quick or delays), chaos (--chaos=SEED),\n"
	       "                   quantum=T (--quantum T), default (the default slices),\n"
	       "                   native (a program not built with sicc: no flags, no log)\n"
	       "  --pass FLAG      one more flag for the program's runtime (repeatable)\n"
	       "  --stdin FILE     each run reads FILE on stdin (default /dev/null); the\n"
	       "                   log holds what it read, so its replay does not need FILE\n"
	       "  --stop           stop starting runs once one has failed\n"
	       "  --shard K/N      only runs K, K+N, K+2N ... (0 <= K < N): one of N machines\n"
	       "  --seeds A-B      only the runs of seeds A to B (instead of --runs)\n"
	       "  --json FILE      a line per run (seed, outcome, exit status, signal, log,\n"
	       "                   time) as JSON, for --merge\n"
	       "replay-hunt --merge FILE... prints the summary of the campaign whose shards\n"
	       "wrote these --json files, as one replay-hunt would have.\n"
	       "A failure: a non-zero exit, a signal, a deadlock (exit 87), a hang (exit 88,\n"
	       "or killed), or the output test. Exit 1 if a run failed, 0 if none did.\n");
	exit(0);
}

static uint64_t number(const char *flag, const char *v, uint64_t min)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-' || n < min)
		hunt_die(2, "%s '%s': want a whole number%s", flag, v, min ? " of at least 1" : "");
	return n;
}

static uint64_t duration(const char *flag, const char *v)
{
	uint64_t ns;
	if (!hunt_parse_duration(v, &ns))
		hunt_die(2, "%s '%s': want a duration, e.g. 500ms, 10s, 5m", flag, v);
	return ns;
}

static regex_t *regex(const char *flag, const char *v)
{
	regex_t *re = hunt_xmalloc(sizeof *re);
	int rc = regcomp(re, v, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, re, msg, sizeof msg);
		hunt_die(2, "%s '%s': %s", flag, v, msg);
	}
	return re;
}

void hunt_parse_mode(struct hunt_opts *o, const char *v)
{
	static const struct {
		const char *name;
		enum hunt_mode mode;
	} modes[] = {{"hunt", HUNT_MODE_HUNT},
		     {"chaos", HUNT_MODE_CHAOS},
		     {"default", HUNT_MODE_DEFAULT},
		     {"native", HUNT_MODE_NATIVE}};
	o->mode_name = v;
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
		if (!strcmp(v, modes[i].name)) {
			o->mode = modes[i].mode;
			return;
		}
	static const char *const strategies[] = {"windows", "accesses", "pct", "quick", "delays"};
	for (size_t i = 0; !strncmp(v, "hunt:", 5) && i < sizeof strategies / sizeof *strategies; i++)
		if (!strcmp(v + 5, strategies[i])) {
			o->mode = HUNT_MODE_HUNT;
			o->strategy = v + 5;
			return;
		}
	uint64_t ns;
	if (!strncmp(v, "quantum=", 8) && hunt_parse_duration(v + 8, &ns)) {
		o->mode = HUNT_MODE_QUANTUM;
		o->quantum = v + 8;
		return;
	}
	if (!strncmp(v, "hunt:", 5))
		hunt_die(2, "--mode '%s': want hunt:windows, hunt:accesses, hunt:pct, hunt:quick"
			    " or hunt:delays", v);
	hunt_die(2, "--mode '%s': want hunt, hunt:STRATEGY, chaos, quantum=TIME, default or native", v);
}

static unsigned cpus(void)
{
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* --stdin's file: each run opens it anew and reads it from the start, so it must be
 * a regular file we can read (a pipe would give each run another part of it). */
static void stdin_file(const char *path)
{
	struct stat sb;
	if (!*path)
		hunt_die(2, "--stdin needs a file");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		hunt_die(2, "--stdin %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		hunt_die(2, "--stdin %s: not a regular file (each run reads it from the start:"
			    " save it to a file first)", path);
	close(fd);
}

/* argv[*i] is a flag taking a value: the value (from "--flag=v" or the next word). */
static const char *value(int argc, char **argv, int *i, const char *flag)
{
	size_t n = strlen(flag);
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc)
		hunt_die(2, "%s needs a value", flag);
	return argv[++*i];
}

static bool is(const char *arg, const char *flag)
{
	size_t n = strlen(flag);
	return !strncmp(arg, flag, n) && (arg[n] == 0 || arg[n] == '=');
}

/* --shard K/N */
static void shard(struct hunt_opts *o, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long k = strtoull(v, &end, 10), n = 0;
	if (*v >= '0' && *v <= '9' && *end == '/' && end[1] >= '0' && end[1] <= '9')
		n = strtoull(end + 1, &end, 10);
	if (errno || *end || n < 1 || k >= n || n > 1000000)
		hunt_die(2, "--shard '%s': want K/N, 0 <= K < N (shard K of N)", v);
	o->shard_k = k;
	o->shard_n = n;
	o->shard_src = v;
}

/* --seeds A-B: A and B, or dies. */
static void seeds(const char *v, uint64_t *a, uint64_t *b)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10), y = 0;
	bool ok = *v >= '0' && *v <= '9' && *end == '-' && end[1] >= '0' && end[1] <= '9';
	if (ok)
		y = strtoull(end + 1, &end, 10);
	if (!ok || errno || *end || y < x)
		hunt_die(2, "--seeds '%s': want A-B, A <= B (seeds A to B)", v);
	*a = x;
	*b = y;
}

static void parse(struct hunt_opts *o, int argc, char **argv)
{
	int i = 1;
	bool runs_given = false;
	uint64_t seed_a = 0, seed_b = 0;
	o->pass = hunt_xmalloc((size_t)argc * sizeof *o->pass);
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
		} else if (is(a, "--runs")) {
			o->runs = number("--runs", value(argc, argv, &i, "--runs"), 1);
			runs_given = true;
		} else if (is(a, "--time")) {
			o->time_ns = duration("--time", value(argc, argv, &i, "--time"));
		} else if (is(a, "--jobs")) {
			o->jobs = (unsigned)number("--jobs", value(argc, argv, &i, "--jobs"), 1);
			if (o->jobs > 4096)
				hunt_die(2, "--jobs '%u': at most 4096", o->jobs);
		} else if (is(a, "--seed")) {
			o->seed = number("--seed", value(argc, argv, &i, "--seed"), 0);
		} else if (is(a, "--timeout")) {
			const char *v = value(argc, argv, &i, "--timeout");
			o->timeout_ns = duration("--timeout", v);
			if (o->timeout_ns < 1000000)
				hunt_die(2, "--timeout '%s': at least 1ms", v);
		} else if (is(a, "--fail-if")) {
			o->fail_if_src = value(argc, argv, &i, "--fail-if");
			o->fail_if = regex("--fail-if", o->fail_if_src);
		} else if (is(a, "--expect")) {
			o->expect_src = value(argc, argv, &i, "--expect");
			o->expect = regex("--expect", o->expect_src);
		} else if (is(a, "--exit-ok")) {
			const char *v = value(argc, argv, &i, "--exit-ok");
			uint64_t n = number("--exit-ok", v, 1);
			if (n > 255 || n == HUNT_EXIT_DIVERGED || n == HUNT_EXIT_DEADLOCK ||
			    n == HUNT_EXIT_HANG)
				hunt_die(2, "--exit-ok '%s': want 1-255 but 86, 87 and 88 (the runtime's)", v);
			o->exit_ok[n] = true;
		} else if (is(a, "--keep")) {
			o->keep = value(argc, argv, &i, "--keep");
			if (!*o->keep)
				hunt_die(2, "--keep needs a directory");
		} else if (is(a, "--mode")) {
			hunt_parse_mode(o, value(argc, argv, &i, "--mode"));
		} else if (is(a, "--pass")) {
			o->pass[o->npass++] = value(argc, argv, &i, "--pass");
		} else if (is(a, "--stdin")) {
			o->stdin_path = value(argc, argv, &i, "--stdin");
			stdin_file(o->stdin_path);
		} else if (!strcmp(a, "--stop")) {
			o->stop = true;
		} else if (is(a, "--shard")) {
			shard(o, value(argc, argv, &i, "--shard"));
		} else if (is(a, "--seeds")) {
			o->seeds_src = value(argc, argv, &i, "--seeds");
			seeds(o->seeds_src, &seed_a, &seed_b);
		} else if (is(a, "--json")) {
			o->json = value(argc, argv, &i, "--json");
			if (!*o->json)
				hunt_die(2, "--json needs a file");
		} else if (!strcmp(a, "--merge")) {
			hunt_die(2, "--merge comes alone: replay-hunt --merge FILE...");
		} else {
			hunt_die(2, "unknown flag '%s' (replay-hunt --help)", a);
		}
	}
	if (i >= argc)
		hunt_die(2, "no program to run (replay-hunt [flags] -- PROGRAM [ARGS...])");
	o->cmd = argv + i;
	o->ncmd = argc - i;
	if (o->seeds_src) {
		if (runs_given)
			hunt_die(2, "--seeds '%s' and --runs: give one of them", o->seeds_src);
		if (seed_a < o->seed)
			hunt_die(2, "--seeds '%s': below --seed %llu (run I has seed %llu+I)",
				 o->seeds_src, (unsigned long long)o->seed, (unsigned long long)o->seed);
		if (o->mode != HUNT_MODE_HUNT && o->mode != HUNT_MODE_CHAOS)
			hunt_die(2, "--seeds '%s': --mode %s has no seeds (--runs N and --shard K/N"
				    " split its runs)", o->seeds_src, o->mode_name);
		o->first = seed_a - o->seed;
		o->runs = seed_b - o->seed + 1;
	} else if (!runs_given && !o->time_ns) {
		o->runs = 100;
	}
	if (o->mode == HUNT_MODE_NATIVE && o->npass)
		hunt_die(2, "--pass '%s': a native program takes no runtime flags", o->pass[0]);
	for (int k = 0; k < o->npass; k++)
		if (!strncmp(o->pass[k], "--record", 8) || !strncmp(o->pass[k], "--replay", 8) ||
		    !strcmp(o->pass[k], "--no-record"))
			hunt_die(2, "--pass '%s': replay-hunt chooses where each run records",
				 o->pass[k]);
}

/* A new directory for this hunt's failures: DIR, or DIR-2, DIR-3 ... where DIR is
 * taken (an earlier hunt's failures, a file, a symbolic link: mkdir(2) neither follows
 * nor reuses one), so no hunt overwrites another's and two hunts at once never share
 * one. DIR's parents are made as mkdir -p does. The name made, malloc'd. */
static char *make_keep(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		hunt_die(2, "out of memory");
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	for (unsigned n = 1; n <= 100000; n++) {
		char *d = hunt_xmalloc(len + 16);
		if (n == 1)
			strcpy(d, p);
		else
			snprintf(d, len + 16, "%s-%u", p, n);
		if (!mkdir(d, 0700)) { /* 0700: a log holds the program's inputs */
			free(p);
			return d;
		}
		if (errno != EEXIST)
			hunt_die(2, "--keep %s: %s", d, strerror(errno));
		free(d);
	}
	hunt_die(2, "--keep %s: %s-2 to %s-100000 are taken too", p, p, p);
}

/* A shard's DIR (--shard, --seeds): its campaign's, which other shards share, so it is
 * used as it is where it exists (a directory, not a symbolic link), made (0700, parents
 * as mkdir -p) where it does not. The name, malloc'd. */
static char *shared_keep(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		hunt_die(2, "out of memory");
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if (mkdir(p, 0700) && errno != EEXIST)
		hunt_die(2, "--keep %s: %s", p, strerror(errno));
	struct stat sb;
	if (lstat(p, &sb) || !S_ISDIR(sb.st_mode))
		hunt_die(2, "--keep %s: not a directory (a symbolic link is not followed)", p);
	if (access(p, W_OK | X_OK))
		hunt_die(2, "--keep %s: %s", p, strerror(errno));
	return p;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--merge"))
		return hunt_merge(argc - 2, argv + 2);
	struct hunt_opts o = {
		.shard_n = 1,
		.seed = 1,
		.timeout_ns = 10000000000ull,
		.keep = "hunt-logs",
		.mode = HUNT_MODE_HUNT,
		.mode_name = "hunt",
	};
	parse(&o, argc, argv);
	if (!o.jobs)
		o.jobs = cpus();
	hunt_probe(&o);
	bool shard = o.shard_n > 1 || o.seeds_src;
	o.keep = shard ? shared_keep(o.keep) : make_keep(o.keep);
	if (shard)
		hunt_check_shared_keep(&o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	hunt_json_open(&o);
	struct hunt_tally t = {0};
	hunt_loop(&o, &t);
	hunt_json_end(&o, &t);
	hunt_report(&o, &t);
	if (!t.nfailed && !shard)
		rmdir(o.keep); /* nothing kept: no directory left behind (a shard's is shared) */
	if (t.failures)
		return 1;
	return t.interrupted ? 130 : 0;
}
