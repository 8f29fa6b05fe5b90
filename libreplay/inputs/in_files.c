/* in_files.c: calls on a descriptor of the world that are not the io layer's blocking
 * ones (in_world.c): open and friends, pread, pwrite and their vector forms, lseek,
 * fstat, ftruncate, fsync. Recording, each is made and its result (and what it read)
 * logged; the replay takes both from the log, writes nothing and gives each
 * descriptor the program opened a stand-in with the recorded number. A random device
 * is opened for real in the replay too: its reads are recorded as random bytes
 * (in_random_dev.c). */
#include "inputs/inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- open -------------------------------------------------------------------------- */

/* What the replay needs to know of an opened descriptor: its type (the stand-in's
 * kind) and whether it is a random device (then it is opened for real). */
struct opened {
	uint32_t mode;
	uint32_t random;
};

struct open_call {
	int dirfd;
	const char *path;
	int flags;
	mode_t mode;
	struct opened o;
};

static bool is_random_dev(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       (minor(st->st_rdev) == 8 || minor(st->st_rdev) == 9);
}

static long real_open(void *ctx)
{
	struct open_call *c = ctx;
	long fd = rp_raw_syscall(SYS_openat, c->dirfd, (long)c->path, c->flags, c->mode, 0, 0);
	struct stat st;
	if (fd >= 0 && rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0) {
		c->o.mode = st.st_mode;
		c->o.random = is_random_dev(&st);
	}
	return fd;
}

int in_open(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_call c = {dirfd, path, flags, mode, {0, 0}};
	if (!in_world_on())
		return in_fd_opened((int)in_ret(real_open(&c)));
	struct iovec out = {&c.o, sizeof c.o};
	long fd;
	if (in_world_replayed(IN_WC_OPEN, -1, &out, 1, &fd)) {
		if (fd < 0)
			return (int)in_ret(fd);
		if (c.o.random || S_ISCHR(c.o.mode)) {
			/* A device is no file of the world: a random one is opened for real so
			 * that its reads are known as random ones; a terminal (a pty the
			 * program talks to itself through, /dev/tty) is the program's own. */
			long real = rp_raw_syscall(SYS_openat, dirfd, (long)(c.o.random ? "/dev/urandom" : path),
						   c.o.random ? O_RDONLY | (flags & O_CLOEXEC) : flags, mode, 0, 0);
			if (real < 0)
				rp_diverge("thread %d: the replay cannot open the device %s the recording "
					   "opened (%s)", rp_cur->tid, path, strerror((int)-real));
			if (real >= 0 && real != fd) {
				rp_raw_syscall(SYS_dup3, real, fd, flags & O_CLOEXEC, 0, 0, 0);
				rp_raw_syscall(SYS_close, real, 0, 0, 0, 0, 0);
			}
			in_world_set((int)fd, IN_W_NONE, false);
			return in_fd_opened((int)fd);
		}
		in_fd_closed((int)fd);
		return in_world_standin((int)fd, in_world_kind_of(c.o.mode), flags);
	}
	fd = real_open(&c);
	in_world_record(IN_WC_OPEN, -1, fd, &out, 1, IN_OUT_WHOLE);
	if (fd >= 0)
		in_world_set((int)fd, c.o.random || S_ISCHR(c.o.mode) ? IN_W_NONE : in_world_kind_of(c.o.mode),
			      false);
	return in_fd_opened((int)in_ret(fd));
}

/* ---- reading and writing at an offset ----------------------------------------------- */

struct rw_call {
	int fd;
	const struct iovec *iov;
	int cnt;
	off_t off;
	int flags;
	bool writing;
};

static long real_prw(void *ctx)
{
	struct rw_call *c = ctx;
	return rp_raw_syscall(c->writing ? SYS_pwritev2 : SYS_preadv2, c->fd, (long)c->iov, c->cnt,
			      (long)c->off, (long)((unsigned long long)c->off >> 32), c->flags);
}

static ssize_t prw(int fd, const struct iovec *iov, int cnt, off_t off, int flags, bool writing)
{
	struct rw_call c = {fd, iov, cnt, off, flags, writing};
	if (!in_world_fd(fd) || cnt < 0)
		return in_ret(real_prw(&c));
	enum in_world_call call = writing ? IN_WC_PWRITE : IN_WC_PREAD;
	if (writing)
		return in_ret(in_world_write(call, fd, real_prw, &c));
	return in_ret(in_world_call(call, fd, real_prw, &c, iov, (unsigned long)cnt, IN_OUT_RESULT));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	struct iovec v = {buf, n};
	return prw(fd, &v, 1, off, 0, false);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct iovec v = {(void *)buf, n};
	return prw(fd, &v, 1, off, 0, true);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return prw(fd, iov, cnt, off, 0, false);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return prw(fd, iov, cnt, off, 0, true);
}

ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return prw(fd, iov, cnt, off, flags, false);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return prw(fd, iov, cnt, off, flags, true);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));
ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off) __attribute__((alias("preadv")));
ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) __attribute__((alias("pwritev")));

extern void __chk_fail(void) __attribute__((noreturn));

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return pread(fd, buf, n, off);
}
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
	__attribute__((alias("__pread_chk")));

/* ---- lseek, fstat, ftruncate, fsync ---------------------------------------------------- */

struct fd_call {
	int fd;
	long a, b;
};

static long real_lseek(void *ctx)
{
	struct fd_call *c = ctx;
	return rp_raw_syscall(SYS_lseek, c->fd, c->a, c->b, 0, 0, 0);
}

/* gdb's checkpoint and restart save and put back every descriptor's file offset by
 * calling lseek in the program (checkpointing is set in both then): those calls are
 * the debugger's, on the real descriptors. Not for one open only for writing: output
 * (stdout in a file, which gdb itself may be writing to) goes on where it is, or
 * gdb's own lines would be written over. */
off_t lseek(int fd, off_t offset, int whence)
{
	struct fd_call c = {fd, offset, whence};
	if (rp_debug.checkpointing) {
		long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
		if (whence == SEEK_SET && fl >= 0 && (fl & O_ACCMODE) == O_WRONLY)
			c.a = 0, c.b = SEEK_CUR;
		return in_ret(real_lseek(&c));
	}
	if (!in_world_fd(fd))
		return in_ret(real_lseek(&c));
	return in_ret(in_world_call(IN_WC_LSEEK, fd, real_lseek, &c, NULL, 0, IN_OUT_NONE));
}
off_t lseek64(int fd, off_t offset, int whence) __attribute__((alias("lseek")));

static long real_fstat(void *ctx)
{
	struct fd_call *c = ctx;
	return rp_raw_syscall(SYS_fstat, c->fd, c->a, 0, 0, 0, 0);
}

int fstat(int fd, struct stat *st)
{
	struct fd_call c = {fd, (long)st, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_fstat(&c));
	struct iovec out = {st, sizeof *st};
	return (int)in_ret(in_world_call(IN_WC_FSTAT, fd, real_fstat, &c, &out, 1, IN_OUT_WHOLE));
}
int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

static long real_ftruncate(void *ctx)
{
	struct fd_call *c = ctx;
	return rp_raw_syscall(SYS_ftruncate, c->fd, c->a, 0, 0, 0, 0);
}

int ftruncate(int fd, off_t len)
{
	struct fd_call c = {fd, len, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_ftruncate(&c));
	return (int)in_ret(in_world_write(IN_WC_TRUNCATE, fd, real_ftruncate, &c));
}
int ftruncate64(int fd, off_t len) __attribute__((alias("ftruncate")));

static long real_fsync(void *ctx)
{
	struct fd_call *c = ctx;
	return rp_raw_syscall(c->a ? SYS_fdatasync : SYS_fsync, c->fd, 0, 0, 0, 0, 0);
}

int fsync(int fd)
{
	struct fd_call c = {fd, 0, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_fsync(&c));
	return (int)in_ret(in_world_write(IN_WC_SYNC, fd, real_fsync, &c));
}

int fdatasync(int fd)
{
	struct fd_call c = {fd, 1, 0};
	if (!in_world_fd(fd))
		return (int)in_ret(real_fsync(&c));
	return (int)in_ret(in_world_write(IN_WC_SYNC, fd, real_fsync, &c));
}

/* ---- mmap of a file of the world ------------------------------------------------------- */

struct map_call {
	void *addr;
	size_t len;
	int prot, flags, fd;
	off_t off;
};

static long real_mmap(void *ctx)
{
	struct map_call *c = ctx;
	return rp_raw_syscall(SYS_mmap, (long)c->addr, (long)c->len, c->prot, c->flags, c->fd, c->off);
}

/* A file mapped from the world: its pages are an input. Recording, the mapping is
 * made and the bytes it shows from the file (up to the file's end) are logged; the
 * replay maps anonymous memory at the recorded address and fills it. A shared
 * writable mapping would carry the program's writes to the file: in the replay they
 * stay in memory (said once when recording). */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct map_call c = {addr, len, prot, flags, fd, off};
	if ((flags & MAP_ANONYMOUS) || !in_world_fd(fd))
		return (void *)in_ret(real_mmap(&c));
	long r;
	struct w_size {
		uint64_t shown; /* bytes of the file in the mapping */
	} sz = {0};
	struct iovec head = {&sz, sizeof sz};
	if (in_world_replayed(IN_WC_MMAP, fd, &head, 1, &r)) {
		if (r < 0 && r > -4096)
			return (void *)in_ret(r);
		struct map_call a = {(void *)r, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0};
		long got = real_mmap(&a);
		if (got != r)
			rp_diverge("thread %d: mmap of descriptor %d: the recording's address %#lx "
				   "is taken in the replay", rp_cur->tid, fd, (unsigned long)r);
		struct iovec data = {(void *)r, (size_t)sz.shown};
		long ignored;
		in_world_replayed(IN_WC_MMAP, fd, &data, 1, &ignored);
		rp_raw_syscall(SYS_mprotect, r, (long)len, prot, 0, 0, 0);
		return (void *)r;
	}
	r = real_mmap(&c);
	if (r >= 0 || r <= -4096) {
		struct stat st;
		if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && st.st_size > off)
			sz.shown = (uint64_t)st.st_size - (uint64_t)off < len ? (uint64_t)st.st_size - (uint64_t)off : len;
		if (!(prot & PROT_READ))
			sz.shown = 0; /* nothing the program can read */
		static bool told;
		if ((flags & MAP_SHARED) && (prot & PROT_WRITE) && !told) {
			told = true;
			rp_say("mmap(MAP_SHARED, PROT_WRITE) of descriptor %d: the replay's writes "
			       "to it stay in memory", fd);
		}
	}
	in_world_record(IN_WC_MMAP, fd, r, &head, 1, IN_OUT_WHOLE);
	if (r >= 0 || r <= -4096) {
		struct iovec data = {(void *)r, (size_t)sz.shown};
		in_world_record(IN_WC_MMAP, fd, 0, &data, 1, IN_OUT_WHOLE);
	}
	return (void *)in_ret(r);
}
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __attribute__((alias("mmap")));
