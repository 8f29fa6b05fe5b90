/* in_temp.c: temporary files and names, through the world (in_world.c).
 *
 * The C library picks a temporary name from random bits of its own (its internal
 * getrandom, which no wrapper sees) and tries names until one is free: neither the
 * bits nor the tries are the program's. So the whole call is the input: recording,
 * the C library's function is called and the name it chose is logged with its result
 * (the template, whether or not it succeeded: the program may print it); replaying,
 * the recorded name is written into the template and nothing is created: mkstemp's
 * descriptor is a stand-in with the recorded number (in_world_standin), mkdtemp makes
 * no directory. A loop of os.tmpname/os.remove in Lua replays so.
 *
 * tmpfile is the io layer's (a stream: io_stdio.c) on in_tmpfile_fd below. */
#include "inputs/inputs.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- mkstemp and its kin ----------------------------------------------------------------- */

struct mkstemp_call {
	char *tmpl;
	int suffix, flags;
};

static long real_mkostemps(void *ctx)
{
	static int (*glibc)(char *, int, int);
	struct mkstemp_call *c = ctx;
	if (!glibc)
		glibc = in_libc("mkostemps");
	char audit = rp_audit_hold(); /* --syscall-audit: its open is recorded here */
	int fd = glibc(c->tmpl, c->suffix, c->flags);
	rp_audit_release(audit);
	return fd >= 0 ? fd : -errno;
}

int mkostemps(char *tmpl, int suffix, int flags)
{
	struct mkstemp_call c = {tmpl, suffix, flags};
	long fd;
	if (!in_world_on()) {
		fd = real_mkostemps(&c);
		if (fd < 0) {
			errno = (int)-fd;
			return -1;
		}
		return in_fd_opened((int)fd);
	}
	struct iovec v = {tmpl, strlen(tmpl) + 1};
	if (in_world_replayed(IN_WC_MKSTEMP, -1, &v, 1, &fd)) {
		if (fd < 0) {
			errno = (int)-fd;
			return -1;
		}
		in_fd_closed((int)fd);
		return in_world_standin((int)fd, IN_W_FILE, O_RDWR | flags);
	}
	fd = real_mkostemps(&c);
	in_world_record(IN_WC_MKSTEMP, -1, fd, &v, 1, IN_OUT_STRING);
	if (fd < 0) {
		errno = (int)-fd;
		return -1;
	}
	in_world_set((int)fd, IN_W_FILE, false);
	return in_fd_opened((int)fd);
}

int mkstemp(char *tmpl)
{
	return mkostemps(tmpl, 0, 0);
}

int mkostemp(char *tmpl, int flags)
{
	return mkostemps(tmpl, 0, flags);
}

int mkstemps(char *tmpl, int suffix)
{
	return mkostemps(tmpl, suffix, 0);
}

/* x86-64: O_LARGEFILE is implied, the 64 variants are the same calls. */
int mkstemp64(char *tmpl) __attribute__((alias("mkstemp")));
int mkostemp64(char *tmpl, int flags) __attribute__((alias("mkostemp")));
int mkstemps64(char *tmpl, int suffix) __attribute__((alias("mkstemps")));
int mkostemps64(char *tmpl, int suffix, int flags) __attribute__((alias("mkostemps")));

/* ---- names only: mkdtemp, mktemp, tmpnam, tempnam ----------------------------------------- */

struct name_call {
	int which;	 /* MKDTEMP, MKTEMP, TMPNAM, TEMPNAM */
	char *buf;	 /* the template, or where the name goes */
	const char *dir, *pfx;
};

enum { MKDTEMP, MKTEMP, TMPNAM, TEMPNAM };

/* The C library's function; 0, or -errno when it found no name. */
static long real_name(void *ctx)
{
	static char *(*mkdtemp_)(char *), *(*mktemp_)(char *), *(*tmpnam_r_)(char *);
	static char *(*tempnam_)(const char *, const char *);
	struct name_call *c = ctx;
	if (!tempnam_) {
		mkdtemp_ = in_libc("mkdtemp");
		mktemp_ = in_libc("mktemp");
		tmpnam_r_ = in_libc("tmpnam_r");
		tempnam_ = in_libc("tempnam");
	}
	switch (c->which) {
	case MKDTEMP:
		return mkdtemp_(c->buf) ? 0 : -errno;
	case MKTEMP:
		mktemp_(c->buf); /* "" when it failed */
		return c->buf[0] ? 0 : -errno;
	case TMPNAM:
		c->buf[0] = '\0';
		return tmpnam_r_(c->buf) ? 0 : -errno;
	default:
		return in_keep_name(c->buf, tempnam_(c->dir, c->pfx));
	}
}

/* The name in c->buf (n bytes), chosen by the C library or from the log. */
static long name(enum in_world_call call, struct name_call *c, size_t n)
{
	struct iovec v = {c->buf, n};
	long r = in_world_call(call, -1, real_name, c, &v, 1, IN_OUT_STRING);
	if (r < 0)
		errno = (int)-r;
	return r;
}

char *mkdtemp(char *tmpl)
{
	struct name_call c = {MKDTEMP, tmpl, NULL, NULL};
	return name(IN_WC_MKDTEMP, &c, strlen(tmpl) + 1) == 0 ? tmpl : NULL;
}

char *mktemp(char *tmpl)
{
	struct name_call c = {MKTEMP, tmpl, NULL, NULL};
	name(IN_WC_TMPNAM, &c, strlen(tmpl) + 1);
	return tmpl;
}

char *tmpnam_r(char s[L_tmpnam])
{
	struct name_call c = {TMPNAM, s, NULL, NULL};
	if (!s)
		return NULL; /* the C library's: no buffer, no name */
	return name(IN_WC_TMPNAM, &c, L_tmpnam) == 0 ? s : NULL;
}

char *tmpnam(char s[L_tmpnam])
{
	static char own[L_tmpnam];
	return tmpnam_r(s ? s : own);
}

char *tempnam(const char *dir, const char *pfx)
{
	char buf[PATH_MAX];
	struct name_call c = {TEMPNAM, buf, dir, pfx};
	if (name(IN_WC_TMPNAM, &c, sizeof buf) < 0)
		return NULL;
	char *p = strdup(buf);
	if (!p)
		errno = ENOMEM;
	return p;
}

/* ---- tmpfile's descriptor ------------------------------------------------------------------- */

/* As the C library's tmpfile: an unnamed file in P_tmpdir (O_TMPFILE), or else a
 * named one, unlinked at once; each call through the world. */
int in_tmpfile_fd(void)
{
	int fd = in_open(AT_FDCWD, P_tmpdir, O_RDWR | O_TMPFILE | O_EXCL, 0600);
	if (fd >= 0)
		return fd;
	char tmpl[] = P_tmpdir "/tmpfXXXXXX";
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		int saved = errno;
		unlink(tmpl);
		errno = saved;
	}
	return fd;
}
