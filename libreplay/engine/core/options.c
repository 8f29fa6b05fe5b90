/* options.c: libreplay's flags, taken off the front of the program's arguments.
 *
 *   ./app [our flags] [--] [the program's own arguments]
 *
 * LIBREPLAY_OPTS holds the same flags for when the command line is not ours to
 * change. Help: --replay-help. */
#include "base/rp_alloc.h"
#include "engine/core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rp_options rp_opts = {.quantum_ns = RP_DEFAULT_QUANTUM_NS};

static void usage_exit(const char *fmt, const char *arg)
{
	char what[512];
	snprintf(what, sizeof what, fmt, arg);
	/* one line, whatever the argument holds (a newline in LIBREPLAY_OPTS or a flag) */
	for (char *c = what; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			*c = '?';
	rp_say("%s (see --replay-help)", what);
	rp_exit(RP_EXIT_USAGE);
}

static void help(const char *prog)
{
	printf("usage: %s [libreplay flags] [--] [program arguments]\n"
	       "A program built with sicc records its thread schedule by default.\n"
	       "  --record FILE     record into FILE (default: a new PROGRAM-N.bin in the\n"
	       "                    recording directory; LIBREPLAY_KEEP=N of them are kept,\n"
	       "                    default 20)\n"
	       "  --record-dir DIR  the recording directory (also LIBREPLAY_DIR; default\n"
	       "                    $XDG_DATA_HOME/libreplay or ~/.local/share/libreplay)\n"
	       "  --replay [FILE]   replay FILE: the same interleaving, the same output;\n"
	       "                    without FILE, this program's latest recording\n"
	       "  --no-record       run without recording; the threads are still preempted\n"
	       "                    (time slices, or --hunt and --chaos by counts): only the\n"
	       "                    log is left out\n"
	       "  --quantum TIME    time slice, e.g. 10ms (default), 500us; at least 50us\n"
	       "  --hunt[=SEED]     the hunting scheduler: preemptions by instruction count\n"
	       "                    (PCT priorities, around locks, inside windows), drawn from\n"
	       "                    SEED alone: the same seed, the same schedule\n"
	       "  --hunt-depth=D    PCT's bug depth for --hunt: D-1 change points (default: 1\n"
	       "                    to 5, drawn from the seed; at most 16)\n"
	       "  --hunt-strategy=S --hunt's strategy: windows, accesses, pct, quick or delays\n"
	       "                    (default: each seed draws one)\n"
	       "  --chaos[=SEED]    slices of random instruction counts, round robin (the same\n"
	       "                    seed, the same schedule)\n"
	       "  --timeout=TIME    stop a run still going after TIME (e.g. 10s): a hang, exit 88\n"
	       "  --timeout-own=TIME  the same, after TIME of the run's own time: wall time\n"
	       "                    less its waits for a CPU (a loaded machine makes no hang)\n"
	       "  --trace-schedule FILE  write every thread switch to FILE (replay-dump\n"
	       "                    --timeline draws it); with --replay: the recording's schedule\n"
	       "  --breakpoints=HOW how a replay (and --hunt) stops between counting points:\n"
	       "                    hardware (a debug register), software (a trap byte in the\n"
	       "                    code), or auto (default: hardware where it is seen to fire)\n"
	       "  --tls=PATH        how a switch loads a thread's TLS: auto (default: the first\n"
	       "                    that works here), ldt, fsgsbase or syscall (arch_prctl); one\n"
	       "                    this machine lacks falls back to the next, with a warning\n"
	       "  --any-layout      replay even where the recording's addresses cannot be had\n"
	       "                    again (ASLR on, valgrind): only for a program whose work\n"
	       "                    does not depend on addresses\n"
	       "  --any-libraries   replay even with other shared libraries or another dynamic\n"
	       "                    loader than the recording's (told apart by build-id)\n"
	       "  --syscall-audit   while recording, name once each system call made outside\n"
	       "                    the program's code (glibc's own: stdio, mkstemp...) that\n"
	       "                    reads an input or changes the world: what the recording\n"
	       "                    misses (Linux 5.11+; each such call costs some us)\n"
	       "  --races[=EXE]     with --replay, run by the race build of the program (sicc\n"
	       "                    --races): report the data races of the recorded run; EXE\n"
	       "                    the recorded executable (default: the one the log names)\n"
	       "  --replay-help     this text\n"
	       "  --                end of libreplay's flags\n"
	       "The same flags can come from the environment: LIBREPLAY_OPTS=\"--hunt=7\".\n"
	       "Exit status: the program's; 87 deadlock, 88 hang (--timeout), 86 a replay that\n"
	       "diverged, 2 a bad flag or log.\n",
	       prog);
	rp_exit(0);
}

static uint64_t parse_duration(const char *s, const char *flag, uint64_t min_ns)
{
	char *end;
	double v = strtod(s, &end);
	double unit = 1e6; /* milliseconds when no unit is given */
	if (!strcmp(end, "ns"))
		unit = 1;
	else if (!strcmp(end, "us"))
		unit = 1e3;
	else if (!strcmp(end, "ms") || !*end)
		unit = 1e6;
	else if (!strcmp(end, "s"))
		unit = 1e9;
	else
		usage_exit(flag[2] == 'q' ? "bad --quantum '%s': want e.g. 10ms, 500us"
					  : "bad --timeout '%s': want e.g. 500ms, 10s", s);
	if (end == s || v * unit < min_ns || v * unit > (flag[2] == 'q' ? 60e9 : 1e15))
		usage_exit(flag[2] == 'q' ? "--quantum '%s' out of range (50us to 60s)"
					  : "--timeout '%s' out of range (1ms or more)", s);
	return (uint64_t)(v * unit);
}

/* A seed after "--hunt=" or "--chaos=": any 64-bit number. */
static uint64_t parse_seed(const char *s, const char *flag)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(s, &end, 0);
	if (*end || end == s || errno || *s == '-') {
		char what[64];
		snprintf(what, sizeof what, "bad %s seed '%%s'", flag);
		usage_exit(what, s);
	}
	return v;
}

/* One flag at argv[i]; returns how many arguments it took (0: not ours). */
static int one_flag(int argc, char **argv, int i, const char *prog)
{
	const char *a = argv[i];
	const char *val = NULL;
	int took = 1;
#define VALUE(name)                                                                        \
	(!strncmp(a, name "=", sizeof name) ? (val = a + sizeof name, true)                 \
	 : !strcmp(a, name) ? (i + 1 < argc ? (val = argv[i + 1], took = 2, true)           \
				: (usage_exit("%s needs a value", name), false))           \
			   : false)
	if (!strcmp(a, "--replay") && (i + 1 >= argc || argv[i + 1][0] == '-')) {
		/* no file: the log a plain run records into (the latest in the directory,
		 * or LIBREPLAY_OPTS's --record FILE) */
		rp_opts.mode = RP_MODE_REPLAY;
	} else if (VALUE("--record")) {
		rp_opts.mode = RP_MODE_RECORD;
		rp_opts.log_path = val;
		rp_opts.log_in_dir = false;
	} else if (VALUE("--replay")) {
		rp_opts.mode = RP_MODE_REPLAY;
		rp_opts.log_path = val;
		rp_opts.log_in_dir = false;
	} else if (VALUE("--record-dir")) {
		rp_opts.log_dir = val;
	} else if (VALUE("--trace-schedule")) {
		rp_opts.trace_path = val;
	} else if (VALUE("--quantum")) {
		rp_opts.quantum_ns = parse_duration(val, "--quantum", RP_MIN_QUANTUM_NS);
	} else if (VALUE("--timeout")) {
		rp_opts.timeout_ns = parse_duration(val, "--timeout", 1000000);
		rp_opts.timeout_own = false;
	} else if (VALUE("--timeout-own")) {
		rp_opts.timeout_ns = parse_duration(val, "--timeout", 1000000);
		rp_opts.timeout_own = true;
	} else if (VALUE("--breakpoints")) {
		if (!strcmp(val, "auto"))
			rp_opts.breakpoints = RP_BP_WANT_AUTO;
		else if (!strcmp(val, "hardware"))
			rp_opts.breakpoints = RP_BP_WANT_HARDWARE;
		else if (!strcmp(val, "software"))
			rp_opts.breakpoints = RP_BP_WANT_SOFTWARE;
		else
			usage_exit("bad --breakpoints '%s': want auto, hardware or software", val);
	} else if (VALUE("--hunt-depth")) {
		char *end;
		long d = strtol(val, &end, 10);
		if (*end || end == val || d < 1 || d > RP_HUNT_MAX_DEPTH)
			usage_exit("bad --hunt-depth '%s': want 1 to 16", val);
		rp_opts.hunt_depth = (int)d;
	} else if (VALUE("--hunt-strategy")) {
		static const char *const names[] = RP_HUNT_STRATEGY_NAMES;
		int s = RP_HUNT_DRAWN + 1;
		while (s < RP_HUNT_STRATEGIES && strcmp(names[s], val))
			s++;
		if (s == RP_HUNT_STRATEGIES)
			usage_exit("bad --hunt-strategy '%s': want windows, accesses, pct, quick or delays", val);
		rp_opts.hunt_strategy = s;
	} else if (VALUE("--tls")) {
		int p = SCHED_TLS_AUTO;
		while (sched_tls_path_name(p) && strcmp(sched_tls_path_name(p), val))
			p++;
		if (!sched_tls_path_name(p))
			usage_exit("bad --tls '%s': want auto, ldt, fsgsbase or syscall", val);
		rp_opts.tls_path = p;
	} else if (!strcmp(a, "--any-layout")) {
		rp_opts.any_layout = true;
	} else if (!strcmp(a, "--any-libraries")) {
		rp_opts.any_libraries = true;
	} else if (!strcmp(a, "--syscall-audit")) {
		rp_opts.syscall_audit = true;
	} else if (!strcmp(a, "--races")) {
		rp_opts.races = true;
	} else if (!strncmp(a, "--races=", 8)) {
		rp_opts.races = true;
		rp_opts.races_of = a + 8;
		if (!*rp_opts.races_of)
			usage_exit("--races= needs the recorded executable%s", "");
	} else if (!strcmp(a, "--no-record")) {
		rp_opts.mode = RP_MODE_OFF;
	} else if (!strcmp(a, "--chaos") || !strcmp(a, "--hunt")) {
		rp_opts.chaos = a[2] == 'c';
		rp_opts.hunt = a[2] == 'h';
		rp_opts.seed_given = false;
	} else if (!strncmp(a, "--chaos=", 8) || !strncmp(a, "--hunt=", 7)) {
		rp_opts.chaos = a[2] == 'c';
		rp_opts.hunt = a[2] == 'h';
		rp_opts.seed = parse_seed(strchr(a, '=') + 1, rp_opts.chaos ? "--chaos" : "--hunt");
		rp_opts.seed_given = true;
	} else if (!strcmp(a, "--replay-help")) {
		help(prog);
	} else {
		return 0;
	}
#undef VALUE
	if (val && !*val)
		usage_exit("%s needs a value", a);
	return took;
}

void rp_options_parse(int *argc, char **argv)
{
	rp_opts.mode = RP_MODE_RECORD;
	/* a new file in the recording directory, made when the recording starts */
	rp_opts.log_path = "(the recording directory)";
	rp_opts.log_in_dir = true;
	const char *prog = *argc > 0 ? argv[0] : "program";

	/* The environment first, so the command line wins. */
	const char *env = getenv("LIBREPLAY_OPTS");
	if (env && *env) {
		/* in the runtime's memory: the program's heap is the same whether the flags
		 * come from here or from the command line (a replay given them one way of a
		 * recording made the other had its heap moved, and a deadlock's objects) */
		char *copy = rp_strdup(env);
		if (!copy)
			rp_fatal_memory("LIBREPLAY_OPTS");
		/* Words split at any white space (a newline too: a variable set from a
		 * file or a here-document), as many as there are. */
		static const char space[] = " \t\n\r\v\f";
		size_t cap = strlen(copy) / 2 + 2; /* words are at least one byte and a space */
		char **words = rp_malloc(cap * sizeof *words);
		if (!words)
			rp_fatal_memory("LIBREPLAY_OPTS");
		int n = 0;
		for (char *w = strtok(copy, space); w; w = strtok(NULL, space))
			words[n++] = w;
		words[n] = NULL;
		for (int i = 0; i < n;) {
			int took = one_flag(n, words, i, prog);
			if (!took)
				usage_exit("LIBREPLAY_OPTS: unknown flag '%s'", words[i]);
			i += took;
		}
		rp_free(words);
		/* the strings stay: rp_opts may point into them */
	}

	int i = 1;
	while (i < *argc) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strncmp(argv[i], "--", 2) && (!strncmp(argv[i], "--replay", 8) ||
		    !strncmp(argv[i], "--record", 8) || !strncmp(argv[i], "--no-record", 11) ||
		    !strncmp(argv[i], "--quantum", 9) || !strncmp(argv[i], "--chaos", 7) ||
		    !strncmp(argv[i], "--hunt", 6) || !strncmp(argv[i], "--timeout", 9) ||
		    !strncmp(argv[i], "--trace-schedule", 16) || !strncmp(argv[i], "--breakpoints", 13) ||
		    !strncmp(argv[i], "--tls", 5) || !strcmp(argv[i], "--any-layout") ||
		    !strcmp(argv[i], "--any-libraries") ||
		    !strcmp(argv[i], "--syscall-audit") || !strncmp(argv[i], "--races", 7))) {
			int took = one_flag(*argc, argv, i, prog);
			if (!took)
				usage_exit("unknown flag '%s'", argv[i]);
			i += took;
			continue;
		}
		break;
	}
	if (rp_opts.mode == RP_MODE_REPLAY && rp_opts.log_in_dir) {
		rp_opts.log_path = rp_logdir_latest();
		rp_opts.log_in_dir = false;
	}
	if ((rp_opts.chaos || rp_opts.hunt) && !rp_opts.seed_given) {
		/* System calls: the program's time and getpid are recorded inputs. */
		rp_opts.seed = ((uint64_t)rp_raw_syscall(SYS_time, 0, 0, 0, 0, 0, 0) << 20) ^
			       (uint64_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
		if (rp_opts.hunt && rp_opts.mode != RP_MODE_REPLAY)
			rp_say("hunting with seed %llu",
				(unsigned long long)rp_opts.seed);
	}
	if (rp_opts.races && rp_opts.mode != RP_MODE_REPLAY)
		usage_exit("--races goes with --replay FILE: a recording by the ordinary build, "
			   "replayed by the race build (docs/races.md)%s", "");
	/* Take what we used off argv. */
	int k = 1;
	for (int j = i; j < *argc; j++)
		argv[k++] = argv[j];
	argv[k] = NULL;
	*argc = k;
}
