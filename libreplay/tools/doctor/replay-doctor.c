/* replay-doctor: what this machine allows libreplay, what it takes, what it costs.
 *
 *   replay-doctor [--json] [--help]
 *
 * One line per feature, each measured here by running it: the TLS probes and a
 * switch between two green threads, the replay's breakpoint (hardware, and the
 * software trap made to fire), ASLR control (a re-exec whose addresses are
 * compared), ptrace as gdb uses it, perf_event_paranoid. Exit 0 when a recording
 * can be replayed here (fallbacks or not), 1 with one line when it cannot.
 *
 * It links the runtime's objects (not libreplay.a through sicc: that one's main()
 * would record the doctor itself) and calls the runtime's own probes, sched's
 * sched_tls_probe and the engine's rp_bp_open, so that what it says is what a
 * program built with sicc meets here; only what main.c does inline (personality
 * and the re-exec) and what gdb does (ptrace) it does itself, as they do. A tool on
 * top of the layers (libreplay/README.md): it may use all of them. */
#include "engine/core.h"
#include "green.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USAGE "usage: replay-doctor [--json] [--help]"
#define LAYOUT_PROBE "--layout-probe" /* internal: print this image's addresses */
#define SWITCHES 400000

/* One line: the feature, what this machine does, what libreplay takes. */
struct line {
	const char *key;   /* the JSON name */
	const char *label; /* the text's first column */
	const char *state; /* works, absent, refused, faults, never-fires, off, value */
	char found[160];
	char takes[160];
};

static struct line lines[8];
static int nlines;
static char impossible[200]; /* why a replay cannot run here, or "" */
static double switch_ns;

static struct line *add(const char *key, const char *label)
{
	struct line *l = &lines[nlines++];
	l->key = key;
	l->label = label;
	return l;
}

static const char *errname(int err)
{
	const char *n = strerrorname_np(err);
	return n ? n : "?";
}

/* The errno whose strerror text is s, by name ("EPERM"); s if none. */
static const char *errname_of(const char *s)
{
	for (int e = 1; e < 134; e++)
		if (!strcmp(strerror(e), s) && strerrorname_np(e))
			return strerrorname_np(e);
	return s;
}

/* ---- TLS ---------------------------------------------------------------------------- */

static void feature(struct line *l, const struct sched_feature *f)
{
	switch (f->state) {
	case SCHED_FEATURE_WORKS:
		l->state = "works";
		snprintf(l->found, sizeof l->found, "works");
		break;
	case SCHED_FEATURE_ABSENT:
		l->state = "absent";
		snprintf(l->found, sizeof l->found, "absent (not in AT_HWCAP2)");
		break;
	case SCHED_FEATURE_REFUSED:
		l->state = "refused";
		snprintf(l->found, sizeof l->found, "refused (%s: %s)", f->call, errname(f->err));
		break;
	case SCHED_FEATURE_FAULTS:
		l->state = "faults";
		if (f->sig && sigabbrev_np(f->sig))
			snprintf(l->found, sizeof l->found, "fault (SIG%s in a child)", sigabbrev_np(f->sig));
		else
			snprintf(l->found, sizeof l->found, "fault (a child saw a wrong base)");
		break;
	}
}

static volatile int token;

/* Two green threads hand the turn back and forth: each yield is one switch. */
static void *handoff(void *arg)
{
	int me = (int)(long)arg;
	for (int k = 0; k < SWITCHES / 2; k++) {
		while (token != me)
			sched_thread_yield();
		token = 1 - me;
	}
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Thread 1's TLS is glibc's (sched/README.md): threads 2 and 3 take the path. */
static int time_switches(int argc, char **argv, char **envp)
{
	struct sched_thread *a, *b;
	if (sched_create(&a, NULL, handoff, (void *)0L) || sched_create(&b, NULL, handoff, (void *)1L))
		return 1;
	uint64_t start = now_ns();
	sched_join(a, NULL);
	sched_join(b, NULL);
	double ns = (double)(now_ns() - start) / SWITCHES;
	if (switch_ns == 0 || ns < switch_ns)
		switch_ns = ns;
	return 0;
}

static void tls(void)
{
	static const char *const how[] = {"auto", "LDT selectors", "wrfsbase", "arch_prctl"};
	struct sched_tls_report r;
	sched_tls_probe(&r);
	struct line *ldt = add("ldt", "LDT selectors");
	struct line *fsgs = add("fsgsbase", "FSGSBASE");
	feature(ldt, &r.ldt);
	feature(fsgs, &r.fsgsbase);
	if (r.path == SCHED_TLS_SYSCALL && r.syscall.state != SCHED_FEATURE_WORKS) {
		snprintf(impossible, sizeof impossible, "no way to load a thread's TLS: "
			 "arch_prctl refused (%s)", errname(r.syscall.err));
		snprintf(ldt->takes, sizeof ldt->takes, "no TLS path: green threads cannot run");
		return;
	}
	/* the least of 3 runs: a machine shared with other work */
	char *argv[] = {"replay-doctor", NULL};
	int status = 0;
	for (int run = 0; run < 3 && status == 0; run++)
		status = sched_run_main(time_switches, 1, argv, environ);
	if (status != 0) {
		snprintf(impossible, sizeof impossible, "two green threads could not run (%s)",
			 status == SCHED_RUN_ABORTED ? strerror(errno) : "no thread");
		snprintf(ldt->takes, sizeof ldt->takes, "TLS path: %s, green threads fail", how[r.path]);
		return;
	}
	snprintf(ldt->takes, sizeof ldt->takes, "TLS path: %s, %.0f ns a switch", how[r.path], switch_ns);
}

/* ---- the replay's breakpoint -------------------------------------------------------- */

__attribute__((noinline)) static int trap_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* In a child: the software trap armed at trap_target, SIGILL left to kill, how it
 * writes the byte said on fd; exit 3 if it could not be armed, 0 if the call ran
 * through it. */
static void trap_child(int fd)
{
	rp_opts.breakpoints = RP_BP_WANT_SOFTWARE;
	rp_bp_open();
	(void)!write(fd, rp_bp_how(), strlen(rp_bp_how()));
	close(fd);
	if (rp_bp_try_arm((uintptr_t)&trap_target) != 0)
		_exit(3);
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	rp_raw_syscall(SYS_rt_sigaction, SIGILL, (long)&dfl, 0, 8, 0, 0);
	int (*volatile f)(int) = trap_target;
	f(0);
	_exit(0);
}

static void breakpoints(void)
{
	struct line *hw = add("hardware_breakpoint", "hardware breakpoints");
	struct line *sw = add("software_trap", "software trap");
	/* the software trap first, in a child: rp_bp_open is once a process */
	int status = 0, fds[2];
	char how[32] = "";
	pid_t pid = pipe(fds) ? -1 : fork();
	if (pid == 0) {
		close(fds[0]);
		trap_child(fds[1]);
	}
	bool trap_works = false;
	if (pid > 0) {
		close(fds[1]);
		ssize_t n = read(fds[0], how, sizeof how - 1);
		how[n > 0 ? n : 0] = '\0';
		close(fds[0]);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		sw->state = "refused";
		snprintf(sw->found, sizeof sw->found, "could not try (fork: %s)", errname(errno));
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL) {
		sw->state = "works";
		snprintf(sw->found, sizeof sw->found, "fires (trap byte written through %s)", how);
		trap_works = true;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		sw->state = "refused";
		snprintf(sw->found, sizeof sw->found, "cannot write the trap byte (%s)", how);
	} else {
		sw->state = "never-fires";
		snprintf(sw->found, sizeof sw->found, "written through %s, never fires", how);
	}
	rp_opts.breakpoints = RP_BP_WANT_AUTO;
	rp_bp_open();
	const char *why = rp_bp_why();
	if (rp_bp_kind() == RP_BP_HARDWARE) {
		hw->state = "works";
		snprintf(hw->found, sizeof hw->found, "fire (3 of 3 hits)");
		snprintf(hw->takes, sizeof hw->takes, "replay stops: hardware breakpoint");
	} else {
		const char *paren = strrchr(why, '(');
		if (!strncmp(why, "perf_event_open refuses", 23)) {
			char text[80] = "?";
			if (paren)
				snprintf(text, sizeof text, "%.*s", (int)strcspn(paren + 1, ")"), paren + 1);
			hw->state = "refused";
			snprintf(hw->found, sizeof hw->found, "refused (perf_event_open: %s)", errname_of(text));
		} else {
			hw->state = "never-fires";
			unsigned long long hits = 0;
			const char *saw = strstr(why, " saw ");
			if (saw)
				hits = strtoull(saw + 5, NULL, 10);
			snprintf(hw->found, sizeof hw->found, "open, never fire (%llu of 3 hits)", hits);
		}
		if (trap_works)
			snprintf(hw->takes, sizeof hw->takes, "replay stops: software trap byte (%s)",
				 rp_bp_how());
		else
			snprintf(hw->takes, sizeof hw->takes, "replay cannot stop between counting points");
	}
	if (rp_bp_kind() != RP_BP_HARDWARE && !trap_works)
		snprintf(impossible, sizeof impossible, "the replay cannot stop between counting "
			 "points: no hardware breakpoint, and the software trap %s", sw->found);
}

/* ---- ASLR ------------------------------------------------------------------------------ */

/* The re-exec's side: the addresses layout.c records, or near them. */
static int layout_probe(void)
{
	int stack;
	void *map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("%p %p %p %p\n", (void *)&layout_probe, sbrk(0), map, (void *)&stack);
	return 0;
}

/* As main.c: personality(ADDR_NO_RANDOMIZE), then exec this program; its addresses
 * into out. 0, or the errno of personality (-1: the run failed). */
static int run_fixed(char *out, size_t cap)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		int p = personality(0xffffffff);
		if (p == -1 || personality(p | ADDR_NO_RANDOMIZE) == -1)
			_exit(100 + errno);
		char *argv[] = {"replay-doctor", LAYOUT_PROBE, NULL};
		execv("/proc/self/exe", argv);
		_exit(99);
	}
	close(fds[1]);
	ssize_t got = 0, n;
	while (pid > 0 && got < (ssize_t)cap - 1 && (n = read(fds[0], out + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	out[got < 0 ? 0 : got] = '\0';
	close(fds[0]);
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (WEXITSTATUS(status) > 100)
		return WEXITSTATUS(status) - 100;
	return WEXITSTATUS(status) == 0 && got > 0 ? 0 : -1;
}

static void aslr(void)
{
	struct line *l = add("aslr_control", "ASLR control");
	char one[200], two[200];
	int err = run_fixed(one, sizeof one);
	if (err == 0)
		err = run_fixed(two, sizeof two);
	if (err > 0) {
		l->state = "refused";
		snprintf(l->found, sizeof l->found, "refused (personality: %s)", errname(err));
		snprintf(l->takes, sizeof l->takes, "a replay refuses where the layout differs (--any-layout)");
	} else if (err < 0) {
		l->state = "refused";
		snprintf(l->found, sizeof l->found, "could not re-exec /proc/self/exe");
		snprintf(l->takes, sizeof l->takes, "a replay refuses where the layout differs (--any-layout)");
	} else if (strcmp(one, two)) {
		l->state = "no-effect";
		snprintf(l->found, sizeof l->found, "allowed, no effect (2 runs, other addresses)");
		snprintf(l->takes, sizeof l->takes, "a replay refuses where the layout differs (--any-layout)");
	} else {
		l->state = "works";
		snprintf(l->found, sizeof l->found, "works (2 re-execs, the same addresses)");
		snprintf(l->takes, sizeof l->takes, "a replay gets the recording's addresses");
	}
}

/* ---- ptrace, perf ------------------------------------------------------------------------ */

/* gdb starting the program: a child asks to be traced, stops, and its registers are
 * read. 0, or an errno. */
static int traceme(void)
{
	int fds[2], err = 0, status;
	if (pipe(fds) != 0)
		return errno;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) {
			err = errno;
			(void)!write(fds[1], &err, sizeof err);
			_exit(1);
		}
		close(fds[1]); /* the parent reads the end of the pipe */
		raise(SIGSTOP);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0)
		return close(fds[0]), errno;
	if (read(fds[0], &err, sizeof err) == sizeof err) {
		close(fds[0]);
		waitpid(pid, &status, 0);
		return err;
	}
	close(fds[0]);
	struct user_regs_struct regs;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		err = ECHILD;
	else if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0)
		err = errno;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return err;
}

/* gdb -p: attach to a running child. 0, or an errno. */
static int attach(void)
{
	int status, err = 0;
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0)
		return errno;
	if (ptrace(PTRACE_ATTACH, pid, 0, 0) != 0)
		err = errno;
	else if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		err = ECHILD;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return err;
}

/* A /proc/sys value, or -1000 when it is not there. */
static int sysctl_int(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1000;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1000;
}

static void ptrace_line(void)
{
	struct line *l = add("ptrace", "ptrace (for gdb)");
	int me = traceme(), at = attach();
	int yama = sysctl_int("/proc/sys/kernel/yama/ptrace_scope");
	char scope[64] = "no Yama";
	if (yama != -1000)
		snprintf(scope, sizeof scope, "yama ptrace_scope %d", yama);
	if (me == 0 && at == 0) {
		l->state = "works";
		snprintf(l->found, sizeof l->found, "works (%s)", scope);
	} else if (me == 0) {
		l->state = "works";
		snprintf(l->found, sizeof l->found, "works, attach refused (%s; %s)", errname(at), scope);
		snprintf(l->takes, sizeof l->takes, "gdb must start the program");
	} else {
		l->state = "refused";
		snprintf(l->found, sizeof l->found, "refused (PTRACE_TRACEME: %s; %s)", errname(me), scope);
		snprintf(l->takes, sizeof l->takes, "no gdb here: replays run without a debugger");
	}
}

static void perf_line(void)
{
	struct line *l = add("perf_event_paranoid", "perf_event_paranoid");
	int v = sysctl_int("/proc/sys/kernel/perf_event_paranoid");
	l->state = "value";
	if (v == -1000)
		snprintf(l->found, sizeof l->found, "not there (no perf events)");
	else
		snprintf(l->found, sizeof l->found, "%d", v);
}

/* ---- output ------------------------------------------------------------------------------ */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json(void)
{
	printf("{\"replay_possible\": %s, \"why_not\": ", *impossible ? "false" : "true");
	json_string(impossible);
	printf(", \"tls_path\": \"%s\", \"switch_ns\": %.1f, \"breakpoint\": \"%s\", "
	       "\"breakpoint_how\": \"%s\"", sched_tls_path(), switch_ns,
	       rp_bp_kind() == RP_BP_HARDWARE ? "hardware" : "software", rp_bp_how());
	for (int i = 0; i < nlines; i++) {
		printf(", \"%s\": {\"state\": \"%s\", \"found\": ", lines[i].key, lines[i].state);
		json_string(lines[i].found);
		printf(", \"libreplay\": ");
		json_string(lines[i].takes);
		putchar('}');
	}
	printf("}\n");
}

static void print_text(void)
{
	for (int i = 0; i < nlines; i++) {
		if (*lines[i].takes)
			printf("%-20s %-38s -> %s\n", lines[i].label, lines[i].found, lines[i].takes);
		else
			printf("%-20s %s\n", lines[i].label, lines[i].found);
	}
}

int main(int argc, char **argv)
{
	bool json = false;
	if (argc == 2 && !strcmp(argv[1], LAYOUT_PROBE))
		return layout_probe();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help")) {
			printf(USAGE "\n"
			       "Checks what this machine allows libreplay, each feature tried here:\n"
			       "LDT selectors and FSGSBASE (the TLS path a switch takes, and its cost),\n"
			       "hardware breakpoints and the software trap (how a replay stops), ASLR\n"
			       "control (a replay at the recording's addresses), ptrace (gdb) and\n"
			       "perf_event_paranoid. Exit 0 when recordings can be replayed here,\n"
			       "1 (and one line) when not.\n"
			       "  --json   one JSON object\n");
			return 0;
		} else {
			fprintf(stderr, "replay-doctor: unknown flag '%s'; " USAGE "\n", argv[i]);
			return 2;
		}
	}
	fflush(stdout);
	tls();
	breakpoints();
	aslr();
	ptrace_line();
	perf_line();
	if (json)
		print_json();
	else
		print_text();
	if (*impossible) {
		fflush(stdout);
		fprintf(stderr, "replay-doctor: a replay cannot run here: %s\n", impossible);
		return 1;
	}
	return 0;
}
