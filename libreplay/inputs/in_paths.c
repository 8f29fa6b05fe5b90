/* in_paths.c: calls that name a file by its path, through the world (in_world.c).
 *
 * Inputs: stat and friends, statx, access and faccessat, readlink, realpath, getcwd,
 * statfs and statvfs, the getxattr family. Recording, each is made and its result
 * and what it wrote (the struct, the link, the path) are logged; the replay takes
 * both from the log and makes no call, so it sees the files as they were.
 *
 * Effects: unlink, rename, mkdir, rmdir, link, symlink, the chmod, chown and utimes
 * families, truncate, setxattr. Recording, each is made and its result logged; the
 * replay returns that result and changes nothing. chdir and fchdir are made in both
 * runs (what the C library does on its own with a relative path, dlopen say, still
 * starts where the recording's did), but the replay may run elsewhere: its own
 * result is ignored, the recorded one returned.
 *
 * A call on a path is logged with descriptor -1, or its directory descriptor (the
 * replay's stand-in has the recording's number); a call on a descriptor goes through
 * the world only when the descriptor is the world's (a pipe the program made is its
 * own, as for fstat). Without a log (--no-record, a forked child) every call goes
 * straight to the kernel. The C library's own calls (its opendir in ftw, its stat in
 * glob) use internal names that never come here. */
#include "inputs/inputs.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

/* A system call and its arguments: the real call of most wrappers here. */
struct sys {
	long nr, a, b, c, d, e;
};

static long real_sys(void *ctx)
{
	struct sys *s = ctx;
	return rp_raw_syscall(s->nr, s->a, s->b, s->c, s->d, s->e, 0);
}

/* The descriptor a call on a path is logged with. */
static int at_fd(int dirfd)
{
	return dirfd == AT_FDCWD ? -1 : dirfd;
}

/* An input: s's result, and out (mode: which of its bytes) from the log in a replay. */
static long input(enum in_world_call call, int fd, struct sys s, void *out, size_t n,
		  enum in_world_out mode)
{
	struct iovec v = {out, n};
	return in_ret(in_world_call(call, fd, real_sys, &s, &v, out ? 1 : 0, mode));
}

/* An effect: made while recording, its recorded result in the replay (never made
 * again there, not even on a standard output: fchmod of the terminal stays undone). */
static long effect(enum in_world_call call, int fd, struct sys s)
{
	return in_ret(in_world_call(call, fd, real_sys, &s, NULL, 0, IN_OUT_NONE));
}

/* The same on a descriptor: through the world if it is the world's. */
static long fd_effect(enum in_world_call call, int fd, struct sys s)
{
	return in_world_fd(fd) ? effect(call, fd, s) : in_ret(real_sys(&s));
}

extern void __chk_fail(void) __attribute__((noreturn));

/* ---- stat ----------------------------------------------------------------------------- */

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct sys s = {SYS_newfstatat, dirfd, (long)path, (long)st, flags, 0};
	return (int)input(IN_WC_STAT, at_fd(dirfd), s, st, sizeof *st, IN_OUT_WHOLE);
}

int stat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, 0);
}

int lstat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

/* x86-64: struct stat64 is struct stat. */
int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

int stat64(const char *path, struct stat64 *st)
{
	return fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

int lstat64(const char *path, struct stat64 *st)
{
	return fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	struct sys s = {SYS_statx, dirfd, (long)path, flags, mask, (long)stx};
	return (int)input(IN_WC_STATX, at_fd(dirfd), s, stx, sizeof *stx, IN_OUT_WHOLE);
}

/* ---- access ----------------------------------------------------------------------------- */

struct faccessat_call {
	int dirfd;
	const char *path;
	int mode, flags;
};

/* With flags, the kernel's faccessat2 (Linux 5.8) does what the C library otherwise
 * works out from stat and the ids; on an older kernel, the C library's way. */
static long real_faccessat(void *ctx)
{
	static int (*glibc)(int, const char *, int, int);
	struct faccessat_call *c = ctx;
	if (!c->flags)
		return rp_raw_syscall(SYS_faccessat, c->dirfd, (long)c->path, c->mode, 0, 0, 0);
	long r = rp_raw_syscall(SYS_faccessat2, c->dirfd, (long)c->path, c->mode, c->flags, 0, 0);
	if (r != -ENOSYS)
		return r;
	if (!glibc)
		glibc = in_libc("faccessat");
	return glibc(c->dirfd, c->path, c->mode, c->flags) == 0 ? 0 : -errno;
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	struct faccessat_call c = {dirfd, path, mode, flags};
	return (int)in_ret(in_world_call(IN_WC_ACCESS, at_fd(dirfd), real_faccessat, &c, NULL, 0,
				      IN_OUT_NONE));
}

int access(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, 0);
}

int euidaccess(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS);
}

int eaccess(const char *path, int mode) __attribute__((alias("euidaccess")));

/* ---- readlink -------------------------------------------------------------------------- */

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	struct sys s = {SYS_readlinkat, dirfd, (long)path, (long)buf, (long)n, 0};
	return input(IN_WC_READLINK, at_fd(dirfd), s, buf, n, IN_OUT_RESULT);
}

ssize_t readlink(const char *path, char *buf, size_t n)
{
	return readlinkat(AT_FDCWD, path, buf, n);
}

ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return readlinkat(AT_FDCWD, path, buf, n);
}

ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return readlinkat(dirfd, path, buf, n);
}

/* ---- realpath --------------------------------------------------------------------------- */

struct realpath_call {
	const char *path;
	char *buf; /* PATH_MAX bytes */
};

/* The C library's realpath reads the links with its internal readlink: the whole of it
 * is the call. On failure it leaves the part it resolved in the buffer (the program
 * may print it), so the string is logged either way. */
static long real_realpath(void *ctx)
{
	static char *(*glibc)(const char *, char *);
	struct realpath_call *c = ctx;
	if (!glibc)
		glibc = in_libc("realpath");
	c->buf[0] = '\0';
	return glibc(c->path, c->buf) ? 0 : -errno;
}

char *realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX];
	struct realpath_call c = {path, buf};
	struct iovec v = {buf, sizeof buf};
	if (!path) { /* checked before any call, as the C library does */
		errno = EINVAL;
		return NULL;
	}
	long r = in_world_call(IN_WC_REALPATH, -1, real_realpath, &c, &v, 1, IN_OUT_STRING);
	if (resolved && (r == 0 || buf[0]))
		strcpy(resolved, buf);
	if (r < 0) {
		errno = (int)-r;
		return NULL;
	}
	if (resolved)
		return resolved;
	char *p = strdup(buf);
	if (!p)
		errno = ENOMEM;
	return p;
}

char *canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (resolvedlen < PATH_MAX)
		__chk_fail();
	return realpath(path, resolved);
}

/* ---- getcwd ----------------------------------------------------------------------------- */

char *getcwd(char *buf, size_t size)
{
	char *b = buf;
	size_t n = size;
	if (buf && size == 0) {
		errno = EINVAL;
		return NULL;
	}
	if (!buf) { /* the C library's: size bytes, or as many as it takes */
		n = size ? size : PATH_MAX;
		b = malloc(n);
		if (!b) {
			errno = ENOMEM;
			return NULL;
		}
	}
	struct sys s = {SYS_getcwd, (long)b, (long)n, 0, 0, 0};
	long r = input(IN_WC_GETCWD, -1, s, b, n, IN_OUT_RESULT);
	if (r > 0 && b[0] != '/') {
		/* "(unreachable)/...": the directory is not under the root (chroot, a
		 * lazily unmounted file system); the C library says ENOENT. */
		r = -1;
		errno = ENOENT;
	}
	if (r < 0) {
		if (!buf)
			free(b);
		return NULL;
	}
	if (!buf && !size) {
		char *fit = realloc(b, (size_t)r);
		if (fit)
			b = fit;
	}
	return b;
}

char *__getcwd_chk(char *buf, size_t size, size_t buflen)
{
	if (size > buflen)
		__chk_fail();
	return getcwd(buf, size);
}

char *getwd(char *buf)
{
	char tmp[PATH_MAX];
	if (!getcwd(tmp, sizeof tmp)) {
		/* getwd's contract: the message in buf */
		strncpy(buf, strerror(errno), PATH_MAX - 1);
		buf[PATH_MAX - 1] = '\0';
		return NULL;
	}
	return strcpy(buf, tmp);
}

/* The C library's get_current_dir_name: $PWD when it names the working directory
 * (the same device and inode as "."), else getcwd. The environment is not an input
 * (a replay elsewhere has another $PWD), so the whole call is: its string is logged. */
struct cwd_name_call {
	char *buf; /* PATH_MAX bytes */
};

static long real_cwd_name(void *ctx)
{
	static char *(*glibc)(void);
	struct cwd_name_call *c = ctx;
	if (!glibc)
		glibc = in_libc("get_current_dir_name");
	return in_keep_name(c->buf, glibc());
}

char *get_current_dir_name(void)
{
	char buf[PATH_MAX];
	struct cwd_name_call c = {buf};
	struct iovec v = {buf, sizeof buf};
	long r = in_world_call(IN_WC_GETCWD, -1, real_cwd_name, &c, &v, 1, IN_OUT_STRING);
	if (r < 0) {
		errno = (int)-r;
		return NULL;
	}
	char *p = strdup(buf);
	if (!p)
		errno = ENOMEM;
	return p;
}

/* ---- statfs, statvfs -------------------------------------------------------------------- */

int statfs(const char *path, struct statfs *sf)
{
	struct sys s = {SYS_statfs, (long)path, (long)sf, 0, 0, 0};
	return (int)input(IN_WC_STATFS, -1, s, sf, sizeof *sf, IN_OUT_WHOLE);
}

int fstatfs(int fd, struct statfs *sf)
{
	struct sys s = {SYS_fstatfs, fd, (long)sf, 0, 0, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_sys(&s));
	return (int)input(IN_WC_STATFS, fd, s, sf, sizeof *sf, IN_OUT_WHOLE);
}

/* x86-64: struct statfs64 is struct statfs. */
int statfs64(const char *path, struct statfs64 *sf)
{
	return statfs(path, (struct statfs *)sf);
}

int fstatfs64(int fd, struct statfs64 *sf)
{
	return fstatfs(fd, (struct statfs *)sf);
}

struct statvfs_call {
	const char *path;
	int fd;
	struct statvfs *sv;
};

/* The C library's statvfs: a statfs, converted. */
static long real_statvfs(void *ctx)
{
	static int (*by_path)(const char *, struct statvfs *);
	static int (*by_fd)(int, struct statvfs *);
	struct statvfs_call *c = ctx;
	if (!by_path) {
		by_fd = in_libc("fstatvfs");
		by_path = in_libc("statvfs");
	}
	return (c->path ? by_path(c->path, c->sv) : by_fd(c->fd, c->sv)) == 0 ? 0 : -errno;
}

int statvfs(const char *path, struct statvfs *sv)
{
	struct statvfs_call c = {path, -1, sv};
	struct iovec v = {sv, sizeof *sv};
	return (int)in_ret(in_world_call(IN_WC_STATFS, -1, real_statvfs, &c, &v, 1, IN_OUT_WHOLE));
}

int fstatvfs(int fd, struct statvfs *sv)
{
	struct statvfs_call c = {NULL, fd, sv};
	struct iovec v = {sv, sizeof *sv};
	if (!in_world_fd(fd))
		return (int)in_ret(real_statvfs(&c));
	return (int)in_ret(in_world_call(IN_WC_STATFS, fd, real_statvfs, &c, &v, 1, IN_OUT_WHOLE));
}

int statvfs64(const char *path, struct statvfs64 *sv)
{
	return statvfs(path, (struct statvfs *)sv);
}

int fstatvfs64(int fd, struct statvfs64 *sv)
{
	return fstatvfs(fd, (struct statvfs *)sv);
}

/* ---- extended attributes ------------------------------------------------------------------ */

static ssize_t xattr_get(long nr, long target, int fd, const char *name, void *val, size_t n)
{
	struct sys s = {nr, target, (long)name, (long)val, (long)n, 0};
	if (fd >= 0 && !in_world_fd(fd))
		return in_ret(real_sys(&s));
	return input(IN_WC_XATTR, fd, s, val, n, IN_OUT_RESULT);
}

ssize_t getxattr(const char *path, const char *name, void *val, size_t n)
{
	return xattr_get(SYS_getxattr, (long)path, -1, name, val, n);
}

ssize_t lgetxattr(const char *path, const char *name, void *val, size_t n)
{
	return xattr_get(SYS_lgetxattr, (long)path, -1, name, val, n);
}

ssize_t fgetxattr(int fd, const char *name, void *val, size_t n)
{
	return xattr_get(SYS_fgetxattr, fd, fd, name, val, n);
}

static ssize_t xattr_list(long nr, long target, int fd, char *list, size_t n)
{
	struct sys s = {nr, target, (long)list, (long)n, 0, 0};
	if (fd >= 0 && !in_world_fd(fd))
		return in_ret(real_sys(&s));
	return input(IN_WC_XATTR, fd, s, list, n, IN_OUT_RESULT);
}

ssize_t listxattr(const char *path, char *list, size_t n)
{
	return xattr_list(SYS_listxattr, (long)path, -1, list, n);
}

ssize_t llistxattr(const char *path, char *list, size_t n)
{
	return xattr_list(SYS_llistxattr, (long)path, -1, list, n);
}

ssize_t flistxattr(int fd, char *list, size_t n)
{
	return xattr_list(SYS_flistxattr, fd, fd, list, n);
}

int setxattr(const char *path, const char *name, const void *val, size_t n, int flags)
{
	struct sys s = {SYS_setxattr, (long)path, (long)name, (long)val, (long)n, flags};
	return (int)effect(IN_WC_SETXATTR, -1, s);
}

int lsetxattr(const char *path, const char *name, const void *val, size_t n, int flags)
{
	struct sys s = {SYS_lsetxattr, (long)path, (long)name, (long)val, (long)n, flags};
	return (int)effect(IN_WC_SETXATTR, -1, s);
}

int fsetxattr(int fd, const char *name, const void *val, size_t n, int flags)
{
	struct sys s = {SYS_fsetxattr, fd, (long)name, (long)val, (long)n, flags};
	return (int)fd_effect(IN_WC_SETXATTR, fd, s);
}

int removexattr(const char *path, const char *name)
{
	struct sys s = {SYS_removexattr, (long)path, (long)name, 0, 0, 0};
	return (int)effect(IN_WC_SETXATTR, -1, s);
}

int lremovexattr(const char *path, const char *name)
{
	struct sys s = {SYS_lremovexattr, (long)path, (long)name, 0, 0, 0};
	return (int)effect(IN_WC_SETXATTR, -1, s);
}

int fremovexattr(int fd, const char *name)
{
	struct sys s = {SYS_fremovexattr, fd, (long)name, 0, 0, 0};
	return (int)fd_effect(IN_WC_SETXATTR, fd, s);
}

/* ---- effects: names ------------------------------------------------------------------------ */

int unlinkat(int dirfd, const char *path, int flags)
{
	struct sys s = {SYS_unlinkat, dirfd, (long)path, flags, 0, 0};
	return (int)effect(flags & AT_REMOVEDIR ? IN_WC_RMDIR : IN_WC_UNLINK, at_fd(dirfd), s);
}

int unlink(const char *path)
{
	return unlinkat(AT_FDCWD, path, 0);
}

int rmdir(const char *path)
{
	return unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

/* The C library's: a file, or else (EISDIR) an empty directory. */
int remove(const char *path)
{
	if (unlinkat(AT_FDCWD, path, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	return unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

int renameat2(int olddirfd, const char *old, int newdirfd, const char *new, unsigned flags)
{
	/* Logged with the first directory descriptor; the second is the same in the
	 * replay whenever the first is. */
	struct sys s = {SYS_renameat2, olddirfd, (long)old, newdirfd, (long)new, flags};
	return (int)effect(IN_WC_RENAME, at_fd(olddirfd), s);
}

int renameat(int olddirfd, const char *old, int newdirfd, const char *new)
{
	return renameat2(olddirfd, old, newdirfd, new, 0);
}

int rename(const char *old, const char *new)
{
	return renameat2(AT_FDCWD, old, AT_FDCWD, new, 0);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	struct sys s = {SYS_mkdirat, dirfd, (long)path, mode, 0, 0};
	return (int)effect(IN_WC_MKDIR, at_fd(dirfd), s);
}

int mkdir(const char *path, mode_t mode)
{
	return mkdirat(AT_FDCWD, path, mode);
}

int linkat(int olddirfd, const char *old, int newdirfd, const char *new, int flags)
{
	struct sys s = {SYS_linkat, olddirfd, (long)old, newdirfd, (long)new, flags};
	return (int)effect(IN_WC_LINK, at_fd(olddirfd), s);
}

int link(const char *old, const char *new)
{
	return linkat(AT_FDCWD, old, AT_FDCWD, new, 0);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	struct sys s = {SYS_symlinkat, (long)target, dirfd, (long)path, 0, 0};
	return (int)effect(IN_WC_SYMLINK, at_fd(dirfd), s);
}

int symlink(const char *target, const char *path)
{
	return symlinkat(target, AT_FDCWD, path);
}

/* ---- effects: modes, owners, sizes, times ----------------------------------------------------- */

struct fchmodat_call {
	int dirfd;
	const char *path;
	mode_t mode;
	int flags;
};

/* AT_SYMLINK_NOFOLLOW has no system call: the C library's own way (an O_PATH
 * descriptor, then /proc/self/fd). */
static long real_fchmodat(void *ctx)
{
	static int (*glibc)(int, const char *, mode_t, int);
	struct fchmodat_call *c = ctx;
	if (!c->flags)
		return rp_raw_syscall(SYS_fchmodat, c->dirfd, (long)c->path, c->mode, 0, 0, 0);
	if (!glibc)
		glibc = in_libc("fchmodat");
	return glibc(c->dirfd, c->path, c->mode, c->flags) == 0 ? 0 : -errno;
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	struct fchmodat_call c = {dirfd, path, mode, flags};
	return (int)in_ret(in_world_call(IN_WC_CHMOD, at_fd(dirfd), real_fchmodat, &c, NULL, 0,
				      IN_OUT_NONE));
}

int chmod(const char *path, mode_t mode)
{
	return fchmodat(AT_FDCWD, path, mode, 0);
}

int fchmod(int fd, mode_t mode)
{
	struct sys s = {SYS_fchmod, fd, mode, 0, 0, 0};
	return (int)fd_effect(IN_WC_CHMOD, fd, s);
}

int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	struct sys s = {SYS_fchownat, dirfd, (long)path, (long)owner, (long)group, flags};
	return (int)effect(IN_WC_CHOWN, at_fd(dirfd), s);
}

int chown(const char *path, uid_t owner, gid_t group)
{
	return fchownat(AT_FDCWD, path, owner, group, 0);
}

int lchown(const char *path, uid_t owner, gid_t group)
{
	return fchownat(AT_FDCWD, path, owner, group, AT_SYMLINK_NOFOLLOW);
}

int fchown(int fd, uid_t owner, gid_t group)
{
	struct sys s = {SYS_fchown, fd, (long)owner, (long)group, 0, 0};
	return (int)fd_effect(IN_WC_CHOWN, fd, s);
}

int truncate(const char *path, off_t len)
{
	struct sys s = {SYS_truncate, (long)path, len, 0, 0, 0};
	return (int)effect(IN_WC_TRUNCATE, -1, s);
}

int truncate64(const char *path, off_t len) __attribute__((alias("truncate")));

/* utimensat, whose header does not let path be NULL: it is for futimens. */
static int utimens(int dirfd, const char *path, const struct timespec ts[2], int flags)
{
	struct sys s = {SYS_utimensat, dirfd, (long)path, (long)ts, flags, 0};
	/* utimensat(fd, NULL, ...) is futimens: on the descriptor, if it is the world's. */
	if (!path && !in_world_fd(dirfd))
		return (int)in_ret(real_sys(&s));
	return (int)effect(IN_WC_UTIMES, at_fd(dirfd), s);
}

int utimensat(int dirfd, const char *path, const struct timespec ts[2], int flags)
{
	return utimens(dirfd, path, ts, flags);
}

int futimens(int fd, const struct timespec ts[2])
{
	return utimens(fd, NULL, ts, 0);
}

/* The older forms, in microseconds or seconds, are utimensat, as in the C library. */
static const struct timespec *from_timeval(const struct timeval tv[2], struct timespec ts[2])
{
	if (!tv)
		return NULL;
	for (int k = 0; k < 2; k++) {
		ts[k].tv_sec = tv[k].tv_sec;
		ts[k].tv_nsec = tv[k].tv_usec * 1000;
	}
	return ts;
}

int utimes(const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	return utimensat(AT_FDCWD, path, from_timeval(tv, ts), 0);
}

int lutimes(const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	return utimensat(AT_FDCWD, path, from_timeval(tv, ts), AT_SYMLINK_NOFOLLOW);
}

int futimes(int fd, const struct timeval tv[2])
{
	struct timespec ts[2];
	return utimens(fd, NULL, from_timeval(tv, ts), 0);
}

int utime(const char *path, const struct utimbuf *times)
{
	struct timespec ts[2];
	if (times) {
		ts[0] = (struct timespec){times->actime, 0};
		ts[1] = (struct timespec){times->modtime, 0};
	}
	return utimensat(AT_FDCWD, path, times ? ts : NULL, 0);
}

/* ---- the working directory ------------------------------------------------------------------ */

/* Made in both runs; in the replay its own result is ignored (see the top). */
static int change_dir(int fd, struct sys s)
{
	long r;
	if (!in_world_on())
		return (int)in_ret(real_sys(&s));
	if (in_world_replayed(IN_WC_CHDIR, fd, NULL, 0, &r)) {
		int saved = errno;
		real_sys(&s);
		errno = saved;
		return (int)in_ret(r);
	}
	r = real_sys(&s);
	in_world_record(IN_WC_CHDIR, fd, r, NULL, 0, IN_OUT_NONE);
	return (int)in_ret(r);
}

int chdir(const char *path)
{
	struct sys s = {SYS_chdir, (long)path, 0, 0, 0, 0};
	return change_dir(-1, s);
}

int fchdir(int fd)
{
	struct sys s = {SYS_fchdir, fd, 0, 0, 0, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_sys(&s));
	return change_dir(fd, s);
}
