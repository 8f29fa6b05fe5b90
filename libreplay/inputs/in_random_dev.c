/* in_random_dev.c: reads of /dev/random and /dev/urandom are recorded. A descriptor
 * is a random device when it is the character device 1:8 or 1:9 (so symbolic links
 * and relative paths count too); open, openat, dup and close keep a bitmap of them,
 * and in_fd_read serves the read() wrapper. A FILE opened on one reads
 * through a cookie (fopencookie), because stdio reads with the C library's internal
 * read, which no wrapper sees. In the replay the device is opened for real too, so
 * descriptor numbers stay those of the recording; only its bytes come from the log.
 *
 * The same wrappers keep the runtime's own descriptors (the log, its timers, the kept
 * stderr: base/rp_fd.h) out of the program's reach: to close, dup, dup2, dup3,
 * close_range and closefrom they are not open, so a program that closes every
 * descriptor it did not open (daemons, test harnesses) keeps its log. */
#include "inputs/inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_TRACKED 65536 /* descriptors at or above it are never random devices here */
static uint64_t random_fd[MAX_TRACKED / 64];

static bool tracked(int fd)
{
	return fd >= 0 && fd < MAX_TRACKED && (random_fd[fd / 64] >> (fd % 64) & 1);
}

static void set_tracked(int fd, bool on)
{
	if (fd < 0 || fd >= MAX_TRACKED)
		return;
	if (on)
		random_fd[fd / 64] |= UINT64_C(1) << (fd % 64);
	else
		random_fd[fd / 64] &= ~(UINT64_C(1) << (fd % 64));
}

static bool is_random_dev(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       (minor(st->st_rdev) == 8 || minor(st->st_rdev) == 9);
}

int in_fd_opened(int fd)
{
	struct stat st;
	int saved = errno;
	set_tracked(fd, fd >= 0 && rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 &&
			       is_random_dev(&st));
	errno = saved;
	return fd;
}

void in_fd_copied(int from, int to)
{
	set_tracked(to, tracked(from));
	in_world_copied(from, to);
}

void in_fd_closed(int fd)
{
	set_tracked(fd, false);
	in_world_set(fd, IN_W_NONE, false);
}

static ssize_t sys_read(void *fd, void *buf, size_t n)
{
	return rp_syscall(SYS_read, (int)(intptr_t)fd, buf, n);
}

bool in_fd_read(int fd, void *buf, size_t n, ssize_t *ret)
{
	if (!tracked(fd))
		return false;
	/* One read, at most RP_LOG_INPUT_MAX bytes: a short read, as read() may give. */
	*ret = in_fill(IN_CALL_RANDOM_READ, sys_read, (void *)(intptr_t)fd, buf, n, false);
	return true;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return in_open(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return in_open(AT_FDCWD, path, flags, mode);
}

int creat(const char *path, mode_t mode)
{
	return in_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

/* x86-64: O_LARGEFILE is implied, the 64 variants are the same calls. */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

/* _FORTIFY_SOURCE's checked forms (no mode: O_CREAT is refused at compile time). */
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

/* -1 with EBADF, as for a descriptor that is not open. */
static int not_open(void)
{
	errno = EBADF;
	return -1;
}

int close(int fd)
{
	if (rp_fd_owned(fd))
		return not_open();
	in_fd_closed(fd);
	return (int)rp_syscall(SYS_close, fd);
}

int dup(int fd)
{
	if (rp_fd_owned(fd))
		return not_open();
	int r = (int)rp_syscall(SYS_dup, fd);
	if (r >= 0)
		in_fd_copied(fd, r);
	return r;
}

int dup3(int fd, int fd2, int flags)
{
	if (rp_fd_owned(fd) || rp_fd_owned(fd2))
		return not_open();
	int r = (int)rp_syscall(SYS_dup3, fd, fd2, flags);
	if (r >= 0)
		in_fd_copied(fd, r);
	return r;
}

/* fcntl: a copy (F_DUPFD) is what its original was, random device or world. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && rp_fd_owned(fd))
		return not_open();
	long r = rp_raw_syscall(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		in_fd_copied(fd, (int)r);
	return (int)r;
}
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
int __fcntl(int fd, int cmd, ...) __attribute__((alias("fcntl")));

int dup2(int fd, int fd2)
{
	if (fd == fd2) /* dup3 refuses equal descriptors; dup2 checks fd is open */
		return rp_fd_owned(fd) ? not_open() : fcntl(fd, F_GETFD) < 0 ? -1 : fd;
	return dup3(fd, fd2, 0);
}

/* close_range(2) of one piece between the runtime's descriptors. */
static int close_piece(unsigned from, unsigned to, int flags)
{
	if (rp_syscall(SYS_close_range, from, to, flags) != 0)
		return -1;
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		for (unsigned fd = from; fd <= to && fd < MAX_TRACKED; fd++)
			in_fd_closed((int)fd);
	return 0;
}

/* close_range(2) on the runtime's descriptors' either side: they are few and high, so
 * a range is at most a few calls. */
int close_range(unsigned first, unsigned last, int flags)
{
	if (first > last) {
		errno = EINVAL;
		return -1;
	}
	int ours[RP_FD_SLOTS];
	size_t n = rp_fd_list(ours, RP_FD_SLOTS);
	unsigned from = first;
	for (size_t i = 0; i <= n; i++) {
		unsigned to = last;
		if (i < n) {
			if ((unsigned)ours[i] < from || (unsigned)ours[i] > last)
				continue;
			to = (unsigned)ours[i] - 1; /* ours are >= RP_FD_MIN: no wrap */
		}
		if (from <= to && close_piece(from, to, flags) != 0)
			return -1;
		if (i < n)
			from = (unsigned)ours[i] + 1;
	}
	return 0;
}

/* closefrom(3): close_range from low up; where the kernel has no close_range, one
 * descriptor at a time up to the limit (glibc's own fallback reads /proc/self/fd). */
void closefrom(int low)
{
	if (low < 0)
		low = 0;
	if (close_range((unsigned)low, ~0u, 0) == 0)
		return;
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = low; fd < max; fd++)
		close((int)fd);
}
