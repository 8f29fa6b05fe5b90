/*
 * context.c: what a replay needs to match that the log does not replay: the
 * environment (a variable the program reads can change its path: a thread that
 * blocks, a different call), the working directory (relative paths) and the kinds of
 * the standard descriptors (a terminal, a pipe, a file: stdio buffers differently,
 * and reads from stdin are outside data). Recording notes them in a CONTEXT input at
 * the start of the log; the replay compares, warns in one line at start when one
 * differs, and a divergence names the difference as its likely cause.
 *
 * The note is text, one item a line: "cwd\t<path>", "fd<N>\t<kind>", and
 * "env\t<name>\t<32-bit hash of the value>" (values are hashed: a log is shared more widely
 * than the environment it ran in). Variables that differ between a run and its
 * replay by design are left out: libreplay's own (LIBREPLAY_OPTS, LIBREPLAY_SIC_STRESS
 * ...), _ (the shell's last command), gdb's LINES and COLUMNS, and the shell's PWD,
 * OLDPWD and SHLVL.
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

extern char **environ;

static const char *const ignored[] = {"_", "LINES", "COLUMNS", "PWD", "OLDPWD", "SHLVL", NULL};

static bool ignored_name(const char *name, size_t len)
{
	if (len > 10 && !strncmp(name, "LIBREPLAY_", 10))
		return true; /* the runtime's own knobs (--replay's flags, a test mode...) */
	for (const char *const *p = ignored; *p; p++)
		if (strlen(*p) == len && !strncmp(*p, name, len))
			return true;
	return false;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static const char *fd_kind(int fd)
{
	struct stat st;
	if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0)
		return "closed";
	switch (st.st_mode & S_IFMT) {
	case S_IFREG: return "a file";
	case S_IFIFO: return "a pipe";
	case S_IFSOCK: return "a socket";
	case S_IFDIR: return "a directory";
	case S_IFCHR:
		if (major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
			return "/dev/null";
		return isatty(fd) ? "a terminal" : "a character device";
	default: return "a device";
	}
}

/* The note, at most cap bytes (variables past it are left out): its length. */
static size_t note(char *buf, size_t cap)
{
	size_t n = 0;
	char cwd[4096];
	/* The system call: getcwd is the program's, a recorded input (inputs/in_paths.c). */
	if (rp_raw_syscall(SYS_getcwd, (long)cwd, sizeof cwd, 0, 0, 0, 0) <= 0)
		snprintf(cwd, sizeof cwd, "?");
	n += (size_t)snprintf(buf + n, cap - n, "cwd\t%s\n", cwd);
	for (int fd = 0; fd < 3 && n < cap; fd++)
		n += (size_t)snprintf(buf + n, cap - n, "fd%d\t%s\n", fd, fd_kind(fd));
	for (char **e = environ; e && *e && n < cap; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || ignored_name(*e, (size_t)(eq - *e)))
			continue;
		int k = snprintf(buf + n, cap - n, "env\t%.*s\t%08llx\n", (int)(eq - *e), *e,
				 (unsigned long long)(fnv1a(eq + 1) >> 32));
		if (k < 0 || (size_t)k >= cap - n)
			break;
		n += (size_t)k;
	}
	return n < cap ? n : cap;
}

void rp_context_record(void)
{
	size_t cap = RP_LOG_INPUT_MAX;
	char *buf = rp_malloc(cap);
	if (!buf)
		return;
	size_t n = note(buf, cap);
	rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_CONTEXT, buf, n);
	rp_free(buf);
}

/* ---- replay: the comparison --------------------------------------------------------------- */

/* What differs, one phrase, or "": set by rp_context_check. */
static char differences[480];

const char *rp_context_differences(void)
{
	return differences;
}

/* What a program can tell apart in a standard descriptor's kind: a terminal (isatty,
 * line-buffered stdio, input that waits for a person), nothing there, or the rest (a
 * file, a pipe, a socket: fully buffered, the same bytes read from either); for
 * stdin (fd 0) also /dev/null, which has no data to read. Only a change of class is
 * warned about. */
static int fd_class(int fd, const char *kind, size_t len)
{
	static const char *const classes[] = {"a terminal", "closed", "/dev/null"};
	for (int i = 0; i < (fd == 0 ? 3 : 2); i++)
		if (strlen(classes[i]) == len && !memcmp(kind, classes[i], len))
			return i;
	return 3;
}

/* The line of note a (len bytes) that starts with key and a tab: its value (up to the
 * newline) and its length, or NULL. */
static const char *find(const char *a, size_t len, const char *key, size_t *vlen)
{
	size_t k = strlen(key);
	for (const char *p = a, *end = a + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > k && !memcmp(p, key, k) && p[k] == '\t') {
			*vlen = (size_t)(nl - p) - k - 1;
			return p + k + 1;
		}
		p = nl + 1;
	}
	return NULL;
}

struct diff {
	char text[400];
	size_t n;
	int env_names, env_more;
};

static void cat(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cat(struct diff *d, const char *fmt, ...)
{
	va_list ap;
	if (d->n >= sizeof d->text - 1)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(d->text + d->n, sizeof d->text - d->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		d->n += (size_t)k;
	if (d->n >= sizeof d->text)
		d->n = sizeof d->text - 1;
}

/* A variable that differs: the first five named. */
static void env_diff(struct diff *d, const char *name, int nlen, const char *how)
{
	if (d->env_names == 5) {
		d->env_more++;
		return;
	}
	cat(d, "%s%.*s %s", d->env_names ? ", " : d->n ? "; the environment (" : "the environment (",
	    nlen, name, how);
	d->env_names++;
}

/* Each variable of note a that note b lacks, or holds with another value (changes). */
static void env_walk(struct diff *d, const char *a, size_t alen, const char *b, size_t blen,
		     const char *missing, bool changes)
{
	for (const char *p = a, *end = a + alen; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		const char *tab = nl - p > 4 && !memcmp(p, "env\t", 4) ?
				  memchr(p + 4, '\t', (size_t)(nl - p - 4)) : NULL;
		if (tab) {
			char key[300];
			size_t vlen;
			snprintf(key, sizeof key, "%.*s", (int)(tab - p), p);
			const char *v = find(b, blen, key, &vlen);
			if (!v)
				env_diff(d, p + 4, (int)(tab - p - 4), missing);
			else if (changes && (vlen != (size_t)(nl - tab - 1) || memcmp(v, tab + 1, vlen)))
				env_diff(d, p + 4, (int)(tab - p - 4), "changed");
		}
		p = nl + 1;
	}
}

void rp_context_check(const void *recorded, size_t len)
{
	size_t cap = RP_LOG_INPUT_MAX;
	char *now = rp_malloc(cap);
	if (!now)
		return;
	size_t nlen = note(now, cap);
	const char *rec = recorded;
	struct diff d = {.n = 0};
	size_t la, lb;
	const char *a, *b;
	/* The working directory is noted but not compared: what the program reads and
	 * writes through it comes from the log (docs/inputs.md, "The world"), so a replay
	 * anywhere else is the same run. */
	static const char *const names[] = {"stdin", "stdout", "stderr"};
	for (int i = 0; i < 3; i++) {
		char key[8];
		snprintf(key, sizeof key, "fd%d", i);
		a = find(rec, len, key, &la);
		b = find(now, nlen, key, &lb);
		if (a && b && fd_class(i, a, la) != fd_class(i, b, lb))
			cat(&d, "%s%s (%.*s, recorded %.*s)", d.n ? "; " : "", names[i], (int)lb, b,
			    (int)la, a);
	}
	env_walk(&d, rec, len, now, nlen, "unset", true);
	env_walk(&d, now, nlen, rec, len, "set", false);
	if (d.env_more)
		cat(&d, " and %d more", d.env_more);
	if (d.env_names)
		cat(&d, ")");
	rp_free(now);
	if (!d.n)
		return;
	snprintf(differences, sizeof differences, "the replay's context differs from the "
		 "recording's: %s", d.text);
	rp_say("warning: %s", differences);
}
