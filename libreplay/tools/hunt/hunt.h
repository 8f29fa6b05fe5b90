/* hunt.h: what replay-hunt's files share (the runner: docs/tools.md). */
#ifndef HUNT_H
#define HUNT_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit statuses a program built with sicc may end with (docs/replay.md). */
#define HUNT_EXIT_USAGE 2
#define HUNT_EXIT_DIVERGED 86
#define HUNT_EXIT_DEADLOCK 87
#define HUNT_EXIT_HANG 88

/* How the runs are scheduled; the mode's flags go before the program's arguments. */
enum hunt_mode {
	HUNT_MODE_HUNT,    /* --hunt=SEED: the count-based hunting scheduler */
	HUNT_MODE_DEFAULT, /* the runtime's default time slices */
	HUNT_MODE_QUANTUM, /* --quantum Q */
	HUNT_MODE_CHAOS,   /* --chaos=SEED: random time slices (time-based) */
	HUNT_MODE_NATIVE,  /* no flags, no log: a program not built with sicc */
};

struct hunt_opts {
	uint64_t runs;        /* the campaign's runs are first .. runs-1; 0: no limit (--time
			       * alone) */
	uint64_t first;       /* --seeds A-B: A - seed (else 0) */
	uint64_t shard_k, shard_n; /* --shard K/N: this shard's runs are first+K, first+K+N,
				    * ... (N = 1: every run) */
	const char *json;     /* --json FILE: a line per run, for --merge */
	uint64_t time_ns;     /* start no run after this much time; 0: no limit */
	unsigned jobs;        /* runs at once */
	uint64_t seed;        /* run i uses seed + i */
	uint64_t timeout_ns;  /* --timeout for the runtime; the runner's own kill after */
	bool stop;            /* stop starting runs once one has failed */
	const char *keep;     /* the directory for run-I.bin, .out, .err */
	enum hunt_mode mode;
	const char *mode_name; /* as given, for the report */
	const char *quantum;   /* HUNT_MODE_QUANTUM's value */
	const char *strategy;  /* hunt:NAME's NAME (--hunt-strategy), else NULL */
	const char **pass;     /* extra runtime flags (--pass), npass of them */
	int npass;
	regex_t *fail_if;      /* a failure when a line of output matches */
	regex_t *expect;       /* a failure when no line of output matches */
	const char *fail_if_src, *expect_src;
	bool exit_ok[256];     /* --exit-ok N: exit status N is a pass */
	const char *stdin_path; /* each run's stdin (--stdin), else /dev/null */
	const char *seeds_src, *shard_src; /* as given, for the report */
	char **cmd;            /* the program and its arguments */
	int ncmd;
	/* what the program's runtime accepts (probe.c) */
	bool rt_timeout;
	bool rt_timeout_own;   /* ... and --timeout-own (waits for a CPU not counted) */
};

/* What became of one run. */
enum hunt_verdict {
	HUNT_OK,
	HUNT_EXIT,      /* a non-zero exit status of the program's own */
	HUNT_SIGNAL,    /* death by a signal */
	HUNT_DEADLOCK,  /* 87 */
	HUNT_HANG,      /* 88: the runtime's --timeout */
	HUNT_KILLED,    /* still running past the runner's own limit: killed */
	HUNT_DIVERGED,  /* 86 (a recording should never say it) */
	HUNT_FAIL_IF,   /* exit 0, but a line matched --fail-if */
	HUNT_EXPECT,    /* exit 0, but no line matched --expect */
	HUNT_NVERDICTS
};

struct hunt_result {
	uint64_t run;
	enum hunt_verdict verdict;
	int code; /* the exit status or the signal */
	uint64_t ns; /* wall time of the run */
	const char *keep; /* --merge: the directory its shard kept it in (else NULL: o->keep) */
};

/* A run in flight. */
struct hunt_slot {
	pid_t pid; /* 0: free */
	uint64_t run;
	uint64_t start_ns, kill_ns;
	bool killed;
};

/* util.c */
void hunt_die(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void *hunt_xmalloc(size_t n);
uint64_t hunt_now_ns(void);
bool hunt_parse_duration(const char *s, uint64_t *ns);
void hunt_format_duration(char *buf, size_t len, uint64_t ns);
char *hunt_path(const struct hunt_opts *o, uint64_t run, const char *ext);
void hunt_print_quoted(FILE *f, const char *s);

/* replay-hunt.c */
void hunt_parse_mode(struct hunt_opts *o, const char *v);

/* spawn.c */
pid_t hunt_spawn(const struct hunt_opts *o, uint64_t run);
void hunt_child_argv(const struct hunt_opts *o, uint64_t run, char ***argv, int *argc);
void hunt_probe(struct hunt_opts *o);

/* verdict.c */
enum hunt_verdict hunt_judge(const struct hunt_opts *o, uint64_t run, int status, bool killed,
			     int *code);
const char *hunt_verdict_name(enum hunt_verdict v);
void hunt_describe(FILE *f, const struct hunt_result *r);
void hunt_discard(const struct hunt_opts *o, uint64_t run);
void hunt_check_shared_keep(const struct hunt_opts *o);

/* loop.c */
struct hunt_tally {
	uint64_t runs, failures, started;
	uint64_t lo, hi; /* the lowest and highest run started (when started) */
	uint64_t by_verdict[HUNT_NVERDICTS];
	struct hunt_result *failed; /* every failing run, in the order they ended */
	size_t nfailed, capfailed;
	uint64_t elapsed_ns;
	bool interrupted;
};
void hunt_loop(const struct hunt_opts *o, struct hunt_tally *t);
void hunt_tally_add(struct hunt_tally *t, const struct hunt_result *r);

/* report.c */
void hunt_report(const struct hunt_opts *o, struct hunt_tally *t);
uint64_t hunt_shard_runs(const struct hunt_opts *o);

/* json.c: --json's lines (docs/tools.md) and --merge */
void hunt_json_open(const struct hunt_opts *o);
void hunt_json_run(const struct hunt_opts *o, const struct hunt_result *r);
void hunt_json_end(const struct hunt_opts *o, const struct hunt_tally *t);
int hunt_merge(int nfiles, char **files);

/* strategy.c: what a run of seed `seed` runs under: hunt:windows ... for --mode hunt
 * (the runtime's draw), else the mode as given */
const char *hunt_seed_strategy(const struct hunt_opts *o, uint64_t seed);

#endif
