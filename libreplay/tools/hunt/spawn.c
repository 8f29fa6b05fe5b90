/* spawn.c: starting runs. Each run is a process in its own process group (so a
 * hang is killed with everything it started), stdin from /dev/null (or --stdin's
 * file, opened anew for each run, so each reads it from the start), stdout and
 * stderr into DIR/run-I.out and .err, the mode's flags before the program's
 * arguments. Also the probe: what the program's runtime accepts. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hunt.h"

/* The command line of run `run`: argv is malloc'd, its strings are owned by o or
 * by the slots of a static buffer per run (used before the next call). */
void hunt_child_argv(const struct hunt_opts *o, uint64_t run, char ***argvp, int *argcp)
{
	static char seed[64], timeout[64], strategy[64];
	char **argv = hunt_xmalloc((size_t)(o->ncmd + o->npass + 10) * sizeof *argv);
	int n = 0;
	argv[n++] = o->cmd[0];
	if (o->mode != HUNT_MODE_NATIVE) {
		argv[n++] = "--record";
		argv[n++] = hunt_path(o, run, "bin");
		if (o->mode == HUNT_MODE_HUNT || o->mode == HUNT_MODE_CHAOS) {
			snprintf(seed, sizeof seed, "--%s=%llu",
				 o->mode == HUNT_MODE_HUNT ? "hunt" : "chaos",
				 (unsigned long long)(o->seed + run));
			argv[n++] = seed;
			if (o->strategy) {
				snprintf(strategy, sizeof strategy, "--hunt-strategy=%s", o->strategy);
				argv[n++] = strategy;
			}
		} else if (o->mode == HUNT_MODE_QUANTUM) {
			argv[n++] = "--quantum";
			argv[n++] = (char *)o->quantum;
		}
		if (o->rt_timeout) {
			char t[32];
			hunt_format_duration(t, sizeof t, o->timeout_ns);
			snprintf(timeout, sizeof timeout, "--timeout%s=%s", o->rt_timeout_own ? "-own" : "", t);
			argv[n++] = timeout;
		}
		for (int i = 0; i < o->npass; i++)
			argv[n++] = (char *)o->pass[i];
		if (o->ncmd > 1)
			argv[n++] = "--";
	}
	for (int i = 1; i < o->ncmd; i++)
		argv[n++] = o->cmd[i];
	argv[n] = NULL;
	*argvp = argv;
	*argcp = n;
}

/* In the child: fd becomes `target`, or the parent hears why not (3: stdin's file
 * could not be read; 1: an output file could not be written). */
static void child_fd(int target, const char *path, int flags, int report)
{
	int fd = open(path, flags, 0644);
	if (fd < 0 || dup2(fd, target) < 0) {
		int e[2] = {target == 0 ? 3 : 1, errno};
		if (write(report, e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	if (fd != target)
		close(fd);
}

static void child_exec(char **argv, int report)
{
	sigset_t none;
	sigemptyset(&none);
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
	int e[2] = {2, errno};
	if (write(report, e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* fork + exec, stdin from the file in (or /dev/null), stdout into the file out (or, when out is
 * NULL, the pipe end pipe_w), stderr into the file err (or /dev/null). Dies with
 * one line if the program cannot be started. */
static pid_t spawn(char **argv, const char *in, const char *out, const char *err, int pipe_w)
{
	int rep[2];
	if (pipe2(rep, O_CLOEXEC) < 0)
		hunt_die(2, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		hunt_die(2, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(rep[0]);
		setpgid(0, 0);
		child_fd(0, in ? in : "/dev/null", O_RDONLY, rep[1]);
		if (out)
			child_fd(1, out, O_WRONLY | O_CREAT | O_TRUNC, rep[1]);
		else
			dup2(pipe_w, 1);
		child_fd(2, err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, rep[1]);
		child_exec(argv, rep[1]);
	}
	setpgid(pid, pid); /* either of us may get there first */
	close(rep[1]);
	int e[2];
	ssize_t got;
	while ((got = read(rep[0], e, sizeof e)) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (got == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		if (e[0] == 3)
			hunt_die(2, "--stdin %s: %s", in, strerror(e[1]));
		if (e[0] == 1)
			hunt_die(2, "cannot write %s: %s", out ? out : err, strerror(e[1]));
		hunt_die(2, "%s: %s", argv[0], strerror(e[1]));
	}
	return pid;
}

pid_t hunt_spawn(const struct hunt_opts *o, uint64_t run)
{
	char **argv;
	int argc;
	hunt_child_argv(o, run, &argv, &argc);
	char *out = hunt_path(o, run, "out"), *err = hunt_path(o, run, "err");
	pid_t pid = spawn(argv, o->stdin_path, out, err, -1);
	if (o->mode != HUNT_MODE_NATIVE)
		free(argv[2]);
	free(argv);
	free(out);
	free(err);
	return pid;
}

/* ---- the probe -------------------------------------------------------------------- */

/* The file execvp would run for name, or NULL. */
static char *which(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");
		char *f = hunt_xmalloc(len + strlen(name) + 3);
		sprintf(f, "%.*s/%s", (int)len, len ? p : ".", name);
		struct stat sb;
		if (!stat(f, &sb) && S_ISREG(sb.st_mode) && !access(f, X_OK))
			return f;
		free(f);
		p += len + (p[len] == ':');
	}
	return NULL;
}

/* Whether file holds the bytes s: -1 when it is not an ELF file we can read. */
static int elf_holds(const char *file, const char *s)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) || sb.st_size < 4) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	int r = memcmp(m, "\177ELF", 4) ? -1 : memmem(m, (size_t)sb.st_size, s, strlen(s)) != NULL;
	munmap(m, (size_t)sb.st_size);
	return r;
}

/* prog --replay-help's stdout (at most len - 1 bytes, 10 s), NUL-terminated. */
static void help_text(const char *prog, char *buf, size_t len)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		hunt_die(2, "pipe: %s", strerror(errno));
	char *argv[] = {(char *)prog, "--replay-help", NULL};
	pid_t pid = spawn(argv, NULL, NULL, NULL, p[1]);
	close(p[1]);
	size_t n = 0;
	uint64_t until = hunt_now_ns() + 10000000000ull;
	while (n + 1 < len) {
		uint64_t now = hunt_now_ns();
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		if (now >= until || poll(&pf, 1, (int)((until - now) / 1000000u) + 1) <= 0)
			break;
		ssize_t got = read(p[0], buf + n, len - 1 - n);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = 0;
	close(p[0]);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Refuse a program that is not built with sicc (unless --mode native), or whose
 * runtime lacks the mode; learn whether it takes --timeout. */
void hunt_probe(struct hunt_opts *o)
{
	const char *prog = o->cmd[0];
	if (o->mode == HUNT_MODE_NATIVE)
		return;
	char *file = which(prog);
	if (!file)
		hunt_die(2, "%s: no such program", prog);
	if (elf_holds(file, "libreplay flags") == 0)
		hunt_die(2, "%s: not built with sicc (--mode native runs other programs)", prog);
	free(file);
	static char help[16384];
	help_text(prog, help, sizeof help);
	if (!strstr(help, "libreplay flags"))
		hunt_die(2, "%s: not built with sicc: --replay-help does not list libreplay's flags"
			    " (--mode native runs other programs)", prog);
	if (o->mode == HUNT_MODE_HUNT && !strstr(help, "--hunt"))
		hunt_die(2, "%s: its libreplay has no --hunt (rebuild it, or use --mode chaos"
			    " or --mode quantum=50us)", prog);
	if (o->strategy && !strstr(help, "--hunt-strategy"))
		hunt_die(2, "%s: its libreplay has no --hunt-strategy (rebuild it, or use --mode hunt)", prog);
	o->rt_timeout = strstr(help, "--timeout") != NULL;
	o->rt_timeout_own = strstr(help, "--timeout-own") != NULL;
}
