/*
 * context.c: what a replay needs to match that the log does not replay: the
 * environment (a variable the program reads can change its path: a thread that
 * blocks, a different call), the working directory (relative paths) and the kinds of
 * the standard descriptors (a terminal, a pipe, a file: stdio buffers differently,
 * and reads from stdin are outside data). Recording notes them in a CONTEXT input at
 * the start of the log; the replay compares, warns in one line at start when one
 * differs, and a divergence names the difference as its likely cause.
 *
 * The note is text, one item a line: "cwd\t<path>", "fd<N>\t<kind>", "envkey\t<id>"
 * and "env\t<name>\t<value's hash>". A log is shared more widely than the
 * environment it ran in, and a hash of a short value is no secret when anyone can
 * compute it: logs of format 4 held an unsalted 32-bit hash of each value, and
 * DB_PASSWORD=739214 came back from one in 5 s. So the hash is keyed: SipHash-2-4 of
 * "name=value" under a random 128-bit key of the user's own, kept outside the log
 * in a file of mode 0600 (env_key_path: $XDG_DATA_HOME/libreplay/env-key, or
 * ~/.local/share/libreplay/env-key), made by the first recording that finds none
 * (and the directories below XDG_DATA_HOME or HOME, mode 0700: never a missing home).
 * The log holds only the key's id (a hash of the key, which tells nothing of a
 * value). A replay by the same user, whose file has that key, compares the values;
 * elsewhere (another user, another machine, no file) it compares the names alone.
 * Where no key can be had (no home, a read-only one), the note holds "-" for the id
 * and for every value: names only. Logs of format 4 (no envkey line, 8 hex digits)
 * are compared as before.
 *
 * Variables that differ between a run and its replay by design are left out:
 * libreplay's own (LIBREPLAY_OPTS, LIBREPLAY_SIC_STRESS ...), _ (the shell's last
 * command), gdb's LINES and COLUMNS, and the shell's PWD, OLDPWD and SHLVL.
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <errno.h>
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

/* ---- the environment's key ----------------------------------------------------------------- */

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

/* SipHash-2-4 (Aumasson and Bernstein, 2012) of len bytes under a 128-bit key: a
 * pseudo-random function, so without the key its output says nothing of its input. */
static uint64_t siphash(const uint8_t key[16], const void *data, size_t len)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			 k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
	const uint8_t *p = data;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t m = le64(p + i);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	uint64_t last = (uint64_t)len << 56;
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)p[i + j] << (8 * j);
	v[3] ^= last;
	sip_round(v);
	sip_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The key file's path, and in *base the length of its part that must exist already
 * (XDG_DATA_HOME or HOME: what is below it is made if missing): false where neither
 * names an absolute directory. */
static bool env_key_path(char *path, size_t cap, size_t *base)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	const char *top = xdg && xdg[0] == '/' ? xdg : home && home[0] == '/' ? home : NULL;
	if (!top)
		return false;
	int n = snprintf(path, cap, "%s%s/libreplay/env-key", top, top == xdg ? "" : "/.local/share");
	*base = strlen(top);
	return n > 0 && (size_t)n < cap;
}

/* The key in the file at path, if it is one the user alone can read: a regular file
 * of 16 bytes, the user's own, mode 0600 or less (not followed if a link). */
static bool env_key_read(const char *path, uint8_t key[16])
{
	int fd = rp_sys_open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISREG(st.st_mode) &&
		  st.st_uid == (uid_t)rp_raw_syscall(SYS_geteuid, 0, 0, 0, 0, 0, 0) &&
		  !(st.st_mode & 077) && st.st_size == 16 && rp_sys_read(fd, key, 16) == 16;
	rp_sys_close(fd);
	return ok;
}

/* A new key at path: written whole under another name, then linked there, so that
 * no recorder reads half a key; where another recorder linked its own first, that
 * one is used. Missing directories below path's first base bytes are made, mode
 * 0700 (a home that is not there is not made). */
static bool env_key_create(char *path, size_t base, uint8_t key[16])
{
	struct stat st;
	char keep = path[base];
	path[base] = '\0';
	bool there = rp_raw_syscall(SYS_stat, (long)path, (long)&st, 0, 0, 0, 0) == 0 && S_ISDIR(st.st_mode);
	path[base] = keep;
	if (!there)
		return false;
	for (char *slash = strchr(path + base + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		long r = rp_raw_syscall(SYS_mkdir, (long)path, 0700, 0, 0, 0, 0);
		*slash = '/';
		if (r < 0 && r != -EEXIST)
			return false;
	}
	uint8_t fresh[16];
	if (rp_raw_syscall(SYS_getrandom, (long)fresh, sizeof fresh, 0, 0, 0, 0) != sizeof fresh)
		return false;
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.%ld", path, rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0));
	int fd = rp_sys_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	bool written = rp_sys_write(fd, fresh, sizeof fresh) == sizeof fresh;
	rp_sys_close(fd);
	if (written)
		rp_raw_syscall(SYS_link, (long)tmp, (long)path, 0, 0, 0, 0);
	rp_raw_syscall(SYS_unlink, (long)tmp, 0, 0, 0, 0, 0);
	return env_key_read(path, key);
}

/* The user's key (made if there is none and create), or false. */
static bool env_key(uint8_t key[16], bool create)
{
	char path[4096];
	size_t base;
	if (!env_key_path(path, sizeof path, &base))
		return false;
	return env_key_read(path, key) || (create && env_key_create(path, base, key));
}

/* How a note gives the environment's values. */
enum env_values {
	ENV_KEYED, /* SipHash under the user's key, 16 hex digits */
	ENV_NAMES, /* "-": names alone */
	ENV_FNV32, /* format 4's unsalted 32-bit hash (only to compare with an old log) */
};

static uint64_t key_id(const uint8_t key[16])
{
	static const char what[] = "libreplay env-key id";
	return siphash(key, what, sizeof what - 1);
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

/* The note, at most cap bytes (variables past it are left out): its length. Values as
 * how says (the key for ENV_KEYED). */
static size_t note(char *buf, size_t cap, enum env_values how, const uint8_t key[16])
{
	size_t n = 0;
	char cwd[4096];
	/* The system call: getcwd is the program's, a recorded input (inputs/in_paths.c). */
	if (rp_raw_syscall(SYS_getcwd, (long)cwd, sizeof cwd, 0, 0, 0, 0) <= 0)
		snprintf(cwd, sizeof cwd, "?");
	n += (size_t)snprintf(buf + n, cap - n, "cwd\t%s\n", cwd);
	for (int fd = 0; fd < 3 && n < cap; fd++)
		n += (size_t)snprintf(buf + n, cap - n, "fd%d\t%s\n", fd, fd_kind(fd));
	if (how == ENV_KEYED && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "envkey\t%016llx\n",
				      (unsigned long long)key_id(key));
	else if (how == ENV_NAMES && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "envkey\t-\n");
	for (char **e = environ; e && *e && n < cap; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || ignored_name(*e, (size_t)(eq - *e)))
			continue;
		char value[20] = "-";
		if (how == ENV_KEYED)
			snprintf(value, sizeof value, "%016llx",
				 (unsigned long long)siphash(key, *e, strlen(*e)));
		else if (how == ENV_FNV32)
			snprintf(value, sizeof value, "%08llx",
				 (unsigned long long)(fnv1a(eq + 1) >> 32));
		int k = snprintf(buf + n, cap - n, "env\t%.*s\t%s\n", (int)(eq - *e), *e, value);
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
	uint8_t key[16];
	bool keyed = env_key(key, true);
	size_t n = note(buf, cap, keyed ? ENV_KEYED : ENV_NAMES, key);
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

/* A value the note does not give (names only). */
static bool unknown(const char *v, size_t len)
{
	return len == 1 && v[0] == '-';
}

/* How the replay's note must give the values to compare with the recording's: as
 * the log did, if this user's key is the log's (*key filled), else names alone. */
static enum env_values values_like(const char *rec, size_t len, uint8_t key[16])
{
	size_t vlen;
	const char *id = find(rec, len, "envkey", &vlen);
	if (!id)
		return ENV_FNV32; /* a log of format 4 */
	char mine[20];
	if (unknown(id, vlen) || !env_key(key, false))
		return ENV_NAMES;
	snprintf(mine, sizeof mine, "%016llx", (unsigned long long)key_id(key));
	return vlen == strlen(mine) && !memcmp(id, mine, vlen) ? ENV_KEYED : ENV_NAMES;
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
			else if (changes && !unknown(v, vlen) && !unknown(tab + 1, (size_t)(nl - tab - 1)) &&
				 (vlen != (size_t)(nl - tab - 1) || memcmp(v, tab + 1, vlen)))
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
	const char *rec = recorded;
	uint8_t key[16];
	enum env_values how = values_like(rec, len, key);
	size_t nlen = note(now, cap, how, key);
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
