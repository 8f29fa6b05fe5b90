/*
 * logdir.c: where a recording goes when no --record FILE is given, as rr keeps its
 * traces: the recording directory (--record-dir DIR, else LIBREPLAY_DIR, else
 * $XDG_DATA_HOME/libreplay, else ~/.local/share/libreplay, made 0700 where missing),
 * one new file per run named after the program and a sequence number (PROG-N.bin,
 * created O_EXCL, so two runs at once never pick one name), PROG-latest a symbolic
 * link to the newest (replaced by rename(2), never half there), and the oldest beyond
 * LIBREPLAY_KEEP (default 20) of the program's removed. Only what is ours goes: a
 * PROG-N.bin that is a libreplay log and that no recorder holds (its lock).
 * docs/replay.md, "Where recordings go".
 *
 * Every name is taken relative to the directory's descriptor, by system calls (the
 * program's open, readlink and readdir are the inputs layer's wrappers).
 */
#include "engine/core.h"
#include "base/rp_alloc.h"
#include "log/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEEP_DEFAULT 20
#define NAME_MAX_PROG 64 /* the program's part of a recording's name, at most */

static char dir[PATH_MAX];
static char prog[NAME_MAX_PROG + 1];

static _Noreturn __attribute__((format(printf, 1, 2))) void refuse(const char *fmt, ...)
{
	char line[PATH_MAX + 512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	rp_say("%s", line);
	rp_exit(RP_EXIT_USAGE);
}

/* The recording directory's name, into dir. */
static void dir_name(void)
{
	const char *d = rp_opts.log_dir, *home;
	int n;
	if (!d || !*d)
		d = getenv("LIBREPLAY_DIR");
	if (d && *d) {
		n = snprintf(dir, sizeof dir, "%s", d);
	} else if ((d = getenv("XDG_DATA_HOME")) && *d == '/') { /* relative: ignored (XDG) */
		n = snprintf(dir, sizeof dir, "%s/libreplay", d);
	} else if ((home = getenv("HOME")) && *home == '/') {
		size_t h = strlen(home);
		while (h > 1 && home[h - 1] == '/')
			h--;
		n = snprintf(dir, sizeof dir, "%.*s/.local/share/libreplay", h > 1 ? (int)h : 0, home);
	} else {
		refuse("no directory to keep recordings in: HOME is %s; set LIBREPLAY_DIR (or "
		       "--record-dir DIR), or --record FILE", home ? "not a full path" : "not set");
	}
	if (n < 0 || (size_t)n >= sizeof dir)
		refuse("the recording directory's name is too long: %.200s...", dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = 0;
}

/* This program's name as recordings carry it: the executable's file name (the same
 * however it was started: ./prog, a full path, gdb), letters, digits and ._+- kept,
 * anything else '_'. */
static void prog_name(void)
{
	char exe[PATH_MAX];
	long n = rp_raw_syscall(SYS_readlink, (long)"/proc/self/exe", (long)exe, sizeof exe - 1, 0, 0, 0);
	const char *base = "program";
	if (n > 0) {
		exe[n] = 0;
		size_t len = (size_t)n;
		if (len > 10 && !strcmp(exe + len - 10, " (deleted)"))
			exe[len - 10] = 0;
		base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	}
	size_t i = 0;
	for (; base[i] && i < NAME_MAX_PROG; i++) {
		char c = base[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '+' || c == '-' || (c == '.' && i > 0);
		prog[i] = ok ? c : '_';
	}
	prog[i] = 0;
	if (!i)
		strcpy(prog, "program");
}

/* The directory's descriptor; with make, its missing parts made first (0700, as the
 * XDG spec asks: recordings hold the program's inputs). Exits on failure, naming the
 * way out. */
static int dir_open(bool make)
{
	dir_name();
	int fd = (int)rp_raw_syscall(SYS_openat, AT_FDCWD, (long)dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (fd >= 0 || !make)
		return fd;
	if (fd == -ENOENT) { /* made once, then only opened */
		char part[PATH_MAX];
		strcpy(part, dir);
		for (char *s = part + 1;; s++) {
			if (*s && *s != '/')
				continue;
			char was = *s;
			*s = 0;
			long r = rp_raw_syscall(SYS_mkdir, (long)part, 0700, 0, 0, 0, 0);
			if (r < 0 && r != -EEXIST)
				refuse("cannot make the recording directory %s: %s; set LIBREPLAY_DIR (or "
				       "--record-dir DIR) to one you may write, or --record FILE", dir,
				       strerrordesc_np((int)-r));
			if (!was)
				break;
			*s = was;
		}
		fd = (int)rp_raw_syscall(SYS_openat, AT_FDCWD, (long)dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	}
	if (fd < 0)
		refuse("the recording directory %s: %s; set LIBREPLAY_DIR (or --record-dir DIR) "
		       "to one you may write, or --record FILE", dir, strerrordesc_np(-fd));
	return fd;
}

/* name is PROG-N.bin: N, else 0 (a recording's number starts at 1). */
static uint64_t number_of(const char *name)
{
	size_t p = strlen(prog);
	if (strncmp(name, prog, p) || name[p] != '-')
		return 0;
	const char *s = name + p + 1;
	uint64_t n = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > UINT64_MAX / 10 - 1)
			return 0;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	return s > name + p + 1 && !strcmp(s, ".bin") ? n : 0;
}

/* The numbers of this program's recordings in the directory, ascending: how many
 * (*out: rp_malloc'd, or NULL). */
static size_t recordings(int dfd, uint64_t **out)
{
	char buf[8192];
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	rp_raw_syscall(SYS_lseek, dfd, 0, SEEK_SET, 0, 0, 0);
	for (;;) {
		long got = rp_raw_syscall(SYS_getdents64, dfd, (long)buf, sizeof buf, 0, 0, 0);
		if (got <= 0)
			break;
		for (long at = 0; at < got;) {
			/* struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name */
			unsigned short reclen;
			memcpy(&reclen, buf + at + 16, 2);
			uint64_t k = number_of(buf + at + 19);
			at += reclen;
			if (!k)
				continue;
			if (n == cap) {
				uint64_t *w = rp_realloc(v, (cap = cap ? 2 * cap : 32) * sizeof *v);
				if (!w)
					rp_fatal_memory("the list of recordings");
				v = w;
			}
			v[n++] = k;
		}
	}
	for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen, kept sorted */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*out = v;
	return n;
}

/* LIBREPLAY_KEEP: recordings of a program kept (0: all). */
static uint64_t keep_limit(void)
{
	const char *s = getenv("LIBREPLAY_KEEP");
	if (!s || !*s)
		return KEEP_DEFAULT;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno || *s == '-' || *s == '+' || *s == ' ')
		refuse("LIBREPLAY_KEEP=%.64s: want how many recordings of a program to keep (0: "
		       "all)", s);
	return v;
}

/* Remove name if it is one of ours and no recorder holds it. */
static void remove_old(int dfd, const char *name)
{
	int fd = (int)rp_raw_syscall(SYS_openat, dfd, (long)name,
				     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0, 0, 0);
	struct stat st;
	if (fd < 0)
		return;
	if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISREG(st.st_mode) &&
	    rp_log_is_log(fd) && rp_raw_syscall(SYS_flock, fd, LOCK_EX | LOCK_NB, 0, 0, 0, 0) == 0)
		rp_raw_syscall(SYS_unlinkat, dfd, (long)name, 0, 0, 0, 0);
	rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* PROG-latest names name: a new link renamed over the old one. A PROG-latest that is
 * not a symbolic link is not ours: left alone. */
static void point_latest(int dfd, const char *name)
{
	char latest[NAME_MAX_PROG + 16], tmp[NAME_MAX_PROG + 40];
	struct stat st;
	snprintf(latest, sizeof latest, "%s-latest", prog);
	snprintf(tmp, sizeof tmp, ".%s-latest.%d", prog,
		 (int)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0));
	if (rp_raw_syscall(SYS_newfstatat, dfd, (long)latest, (long)&st, AT_SYMLINK_NOFOLLOW, 0, 0) == 0 &&
	    !S_ISLNK(st.st_mode))
		return;
	rp_raw_syscall(SYS_unlinkat, dfd, (long)tmp, 0, 0, 0, 0);
	if (rp_raw_syscall(SYS_symlinkat, (long)name, dfd, (long)tmp, 0, 0, 0) == 0 &&
	    rp_raw_syscall(SYS_renameat, dfd, (long)tmp, dfd, (long)latest, 0, 0) != 0)
		rp_raw_syscall(SYS_unlinkat, dfd, (long)tmp, 0, 0, 0, 0);
}

static char *join(const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = rp_malloc(len);
	if (!p)
		rp_fatal_memory("the log's name");
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

int rp_logdir_new(const char **path)
{
	uint64_t keep = keep_limit();
	prog_name();
	int dfd = dir_open(true);
	uint64_t *old;
	size_t n = recordings(dfd, &old);
	uint64_t seq = n ? old[n - 1] + 1 : 1;
	char name[NAME_MAX_PROG + 32], err[RP_LOG_ERRLEN];
	int fd;
	/* Another run may take a number between the listing and the create: the next. */
	for (int tries = 0;; tries++, seq++) {
		snprintf(name, sizeof name, "%s-%llu.bin", prog, (unsigned long long)seq);
		fd = rp_log_open_target(dfd, name, true, err, sizeof err);
		if (fd >= 0 || errno != EEXIST || tries == 1000)
			break;
	}
	if (fd < 0)
		refuse("%s/%s", dir, err);
	point_latest(dfd, name);
	/* The oldest beyond the limit, this one counted; never this one. */
	for (size_t i = 0; keep && n + 1 > keep && i < n + 1 - keep; i++) {
		char o[NAME_MAX_PROG + 32];
		snprintf(o, sizeof o, "%s-%llu.bin", prog, (unsigned long long)old[i]);
		remove_old(dfd, o);
	}
	rp_free(old);
	rp_raw_syscall(SYS_close, dfd, 0, 0, 0, 0, 0);
	*path = join(name);
	return fd;
}

const char *rp_logdir_latest(void)
{
	prog_name();
	int dfd = dir_open(false);
	char target[NAME_MAX_PROG + 32], latest[NAME_MAX_PROG + 16];
	snprintf(latest, sizeof latest, "%s-latest", prog);
	long n = dfd < 0 ? -ENOENT
			 : rp_raw_syscall(SYS_readlinkat, dfd, (long)latest, (long)target, sizeof target - 1, 0, 0);
	if (dfd >= 0)
		rp_raw_syscall(SYS_close, dfd, 0, 0, 0, 0, 0);
	if (n == -ENOENT)
		refuse("no recording of %s to replay in %s: record one first, or --replay FILE",
		       prog, dir);
	if (n < 0)
		refuse("%s/%s-latest: cannot read the link to the latest recording", dir, prog);
	target[n] = 0;
	if (!number_of(target)) /* only a name of ours, in the directory */
		refuse("%s/%s-latest: names something else than a recording of this program",
		       dir, prog);
	return join(target);
}
