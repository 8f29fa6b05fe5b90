/* in_dirs.c: directory streams whose entries come from the world (in_world.c).
 *
 * The C library's readdir fills its buffer with its internal getdents64, which no
 * wrapper sees, so the DIR family is ours: the DIR is our own struct (the type is
 * opaque to programs), its descriptor is opened with our open (through the world:
 * a stand-in in the replay), and its buffer is filled by getdents64 on it, logged as
 * an input with the bytes it gave (IN_WC_GETDENTS). rewinddir and seekdir are our
 * lseek, telldir the position of the entry last read, as the C library keeps them.
 * scandir is built on these; alphasort and versionsort stay the C library's.
 *
 * Every DIR is ours, also without a log (where getdents64 goes straight to the
 * kernel): a stream opened before a fork is read by the child too. A DIR is read
 * inside one wrapper call, which no other green thread can enter in the middle (no
 * preemption outside the program's code), so it needs no lock. */
#include "inputs/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The C library's buffer size (32 KiB, st_blksize permitting): the same in both runs,
 * so the recorded fills fit the replay's buffer. */
#define DIR_BUF 32768

struct __dirstream {
	int fd;
	size_t at, len;	  /* the next entry in buf, and the bytes there */
	long pos;	  /* telldir: the d_off of the entry last returned; 0 at the start */
	char buf[DIR_BUF] __attribute__((aligned(8)));
};

struct dents_call {
	int fd;
	void *buf;
	size_t n;
};

static long real_getdents(void *ctx)
{
	struct dents_call *c = ctx;
	return rp_raw_syscall(SYS_getdents64, c->fd, (long)c->buf, (long)c->n, 0, 0, 0);
}

/* getdents64 on fd: an input on a descriptor of the world. -errno on failure. */
static long dents(int fd, void *buf, size_t n)
{
	struct dents_call c = {fd, buf, n};
	struct iovec v = {buf, n};
	if (!in_world_fd(fd))
		return real_getdents(&c);
	return in_world_call(IN_WC_GETDENTS, fd, real_getdents, &c, &v, 1, IN_OUT_RESULT);
}

ssize_t getdents64(int fd, void *buf, size_t n)
{
	long r = dents(fd, buf, n);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* A stream on fd, which is open on a directory; NULL with ENOMEM. */
static DIR *dir_on(int fd)
{
	DIR *d = malloc(sizeof *d);
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->fd = fd;
	d->at = d->len = 0;
	d->pos = 0;
	return d;
}

/* opendir's open: the C library's flags (O_NONBLOCK: a FIFO given by mistake does not
 * block; O_DIRECTORY: anything else is ENOTDIR). */
static DIR *open_dir(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return NULL;
	DIR *d = dir_on(fd);
	if (!d)
		close(fd);
	return d;
}

DIR *opendir(const char *path)
{
	return open_dir(AT_FDCWD, path);
}

DIR *fdopendir(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0) /* through the world: the replay's fd is a stand-in */
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0) {
		errno = (int)-fl;
		return NULL;
	}
	if ((fl & O_ACCMODE) == O_WRONLY) {
		errno = EINVAL;
		return NULL;
	}
	/* The C library's fdopendir sets close-on-exec on the descriptor. */
	rp_raw_syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC, 0, 0, 0);
	return dir_on(fd);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int closedir(DIR *d)
{
	if (!d) { /* the C library's answer, although the header says non-null */
		errno = EINVAL;
		return -1;
	}
	int fd = d->fd;
	free(d);
	return close(fd);
}
#pragma GCC diagnostic pop

int dirfd(DIR *d)
{
	return d->fd;
}

/* The next entry, skipping deleted ones (inode 0), as the C library does; NULL at
 * the end (errno unchanged) or on an error (errno set). */
struct dirent64 *readdir64(DIR *d)
{
	for (;;) {
		if (d->at >= d->len) {
			long n = dents(d->fd, d->buf, sizeof d->buf);
			/* ENOENT: the directory was removed while open; the C library
			 * calls that the end, not an error. */
			if (n < 0 && n != -ENOENT) {
				errno = (int)-n;
				return NULL;
			}
			if (n <= 0)
				return NULL;
			d->at = 0;
			d->len = (size_t)n;
		}
		struct dirent64 *e = (struct dirent64 *)(d->buf + d->at);
		if (e->d_reclen == 0 || e->d_reclen > d->len - d->at) {
			errno = EIO; /* not an entry the kernel wrote */
			d->at = d->len;
			return NULL;
		}
		d->at += e->d_reclen;
		d->pos = e->d_off;
		if (e->d_ino)
			return e;
	}
}

/* x86-64: struct dirent is struct dirent64. */
struct dirent *readdir(DIR *d)
{
	return (struct dirent *)readdir64(d);
}

/* readdir_r: the entry copied into the caller's; 0, or the error number. */
static int read_into(DIR *d, struct dirent64 *entry, struct dirent64 **result)
{
	int saved = errno;
	errno = 0;
	struct dirent64 *e = readdir64(d);
	int err = errno;
	errno = saved;
	*result = NULL;
	if (!e)
		return err;
	size_t n = offsetof(struct dirent64, d_name) + strlen(e->d_name) + 1;
	memcpy(entry, e, n < sizeof *entry ? n : sizeof *entry);
	entry->d_reclen = (unsigned short)(n < sizeof *entry ? n : sizeof *entry);
	*result = entry;
	return 0;
}

int readdir64_r(DIR *d, struct dirent64 *entry, struct dirent64 **result)
{
	return read_into(d, entry, result);
}

int readdir_r(DIR *d, struct dirent *entry, struct dirent **result)
{
	return read_into(d, (struct dirent64 *)entry, (struct dirent64 **)result);
}

void rewinddir(DIR *d)
{
	int saved = errno;
	lseek(d->fd, 0, SEEK_SET);
	errno = saved;
	d->at = d->len = 0;
	d->pos = 0;
}

long telldir(DIR *d)
{
	return d->pos;
}

void seekdir(DIR *d, long pos)
{
	int saved = errno;
	lseek(d->fd, pos, SEEK_SET);
	errno = saved;
	d->at = d->len = 0;
	d->pos = pos;
}

/* ---- scandir -------------------------------------------------------------------------- */

typedef int (*filter_fn)(const struct dirent *);
typedef int (*compare_fn)(const struct dirent **, const struct dirent **);

/* The C library's scandir, on our streams: the entries filter keeps, each copied
 * into its own allocation, sorted by compare; -1 with errno on an error (nothing is
 * returned then). d is closed. */
static int scan(DIR *d, struct dirent ***list, filter_fn filter, compare_fn compare)
{
	int saved = errno, err = 0;
	struct dirent **v = NULL, *e;
	size_t n = 0, cap = 0;
	errno = 0;
	while ((e = readdir(d))) {
		if (filter) {
			int keep = filter(e);
			errno = 0; /* the filter may set it and still succeed */
			if (!keep)
				continue;
		}
		if (n == cap) {
			size_t more = cap ? 2 * cap : 16;
			struct dirent **w = realloc(v, more * sizeof *w);
			if (!w) {
				err = ENOMEM;
				break;
			}
			v = w;
			cap = more;
		}
		size_t size = offsetof(struct dirent, d_name) + strlen(e->d_name) + 1;
		struct dirent *copy = malloc(size);
		if (!copy) {
			err = ENOMEM;
			break;
		}
		memcpy(copy, e, size);
		v[n++] = copy;
	}
	if (!err)
		err = errno;
	closedir(d);
	if (err) {
		while (n)
			free(v[--n]);
		free(v);
		errno = err;
		return -1;
	}
	if (compare && n > 1)
		qsort(v, n, sizeof *v, (int (*)(const void *, const void *))compare);
	*list = v;
	errno = saved;
	return (int)n;
}

int scandirat(int dirfd, const char *path, struct dirent ***list, filter_fn filter,
	      compare_fn compare)
{
	DIR *d = open_dir(dirfd, path);
	return d ? scan(d, list, filter, compare) : -1;
}

int scandir(const char *path, struct dirent ***list, filter_fn filter, compare_fn compare)
{
	return scandirat(AT_FDCWD, path, list, filter, compare);
}

/* x86-64: struct dirent64 is struct dirent. */
int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
	      int (*compare)(const struct dirent64 **, const struct dirent64 **))
{
	return scandirat(AT_FDCWD, path, (struct dirent ***)list, (filter_fn)filter,
			 (compare_fn)compare);
}

int scandirat64(int dirfd, const char *path, struct dirent64 ***list,
		int (*filter)(const struct dirent64 *),
		int (*compare)(const struct dirent64 **, const struct dirent64 **))
{
	return scandirat(dirfd, path, (struct dirent ***)list, (filter_fn)filter,
			 (compare_fn)compare);
}
