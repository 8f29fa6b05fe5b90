/* log_target.c: the file a recording writes its log into, opened with the care a
 * user's files need (log.h, rp_log_open_target). A log.bin in the working directory
 * used to be opened O_TRUNC, mode 0644, through whatever was at the path: a user's
 * own file of that name was overwritten, a symbolic link planted there was followed,
 * a FIFO hung the program before main, and two recorders wrote one file into a
 * corrupt log. Here: no link is followed, only a regular file is opened, a file is
 * emptied only when it holds a libreplay log (or nothing), a new one is 0600, and a
 * lock (flock, on the open file description) is held for as long as the descriptor
 * is open, so a second recorder is refused and told which process holds it. */
#include "log/log_impl.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int fstat_at(int dirfd, const char *path, struct stat *st, int flags)
{
	long r = rp_raw_syscall(SYS_newfstatat, dirfd, (long)path, (long)st, flags, 0, 0);
	return r < 0 ? (errno = (int)-r, -1) : 0;
}

static void not_regular(const char *path, mode_t m, char *err, size_t errlen)
{
	const char *kind = S_ISFIFO(m) ? "a FIFO, " : S_ISDIR(m) ? "a directory, "
			   : S_ISSOCK(m) ? "a socket, " : S_ISCHR(m) || S_ISBLK(m) ? "a device, " : "";
	log_say(err, errlen, "%s: %snot a regular file; not recording into it", path, kind);
}

/* The process holding a flock on the file st names, from /proc/locks ("1: FLOCK
 * ADVISORY WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->"), or 0. */
static int lock_holder(const struct stat *st)
{
	int fd = rp_sys_open("/proc/locks", O_RDONLY | O_CLOEXEC, 0);
	char buf[4096 + 256];
	size_t have = 0;
	int pid = 0;
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = rp_sys_read(fd, buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while (!pid && (nl = strchr(line, '\n'))) {
			*nl = 0;
			char type[16];
			unsigned maj, min;
			unsigned long ino;
			int who;
			if (!strstr(line, "->") &&
			    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &who, &maj, &min, &ino) == 5 &&
			    !strcmp(type, "FLOCK") && maj == major(st->st_dev) && min == minor(st->st_dev) &&
			    ino == st->st_ino)
				pid = who;
			line = nl + 1;
		}
		if (pid)
			break;
		have = strlen(line); /* the partial line, to the front */
		memmove(buf, line, have);
		if (have >= sizeof buf - 1)
			have = 0; /* a line longer than any /proc/locks line: skipped */
	}
	rp_sys_close(fd);
	return pid;
}

/* "process 1234 (prog)", or "another process" where /proc does not say. */
static void holder_name(const struct stat *st, char *out, size_t len)
{
	int pid = lock_holder(st);
	char path[40], comm[64] = "";
	if (!pid) {
		snprintf(out, len, "another process");
		return;
	}
	/* its argv[0]'s file name: the command name of a recording is "exe" (it runs
	 * again from /proc/self/exe for its address layout) */
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	int fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) { /* it has ended: a descriptor it passed on holds the lock */
		snprintf(out, len, "another process");
		return;
	}
	ssize_t n = rp_sys_read(fd, comm, sizeof comm - 1);
	comm[n > 0 ? n : 0] = 0;
	rp_sys_close(fd);
	const char *name = strrchr(comm, '/') ? strrchr(comm, '/') + 1 : comm;
	snprintf(out, len, *name ? "process %d (%s)" : "process %d", pid, name);
}

int rp_log_open_target(int dirfd, const char *path, bool excl, char *err, size_t errlen)
{
	struct stat st;
	int e, fd;
	/* Before opening: open(2) of a device or a FIFO is already an action (a tape
	 * rewinds, a FIFO waits for a reader). */
	if (!excl && fstat_at(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			e = ELOOP;
			goto symlink;
		}
		if (!S_ISREG(st.st_mode)) {
			not_regular(path, st.st_mode, err, errlen);
			errno = EINVAL;
			return -1;
		}
	}
	/* O_NOFOLLOW: a link swapped in since is refused by the kernel; O_NONBLOCK: a FIFO
	 * swapped in does not wait for a reader (fstat below refuses it). */
	int flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (excl ? O_EXCL : 0);
	fd = (int)rp_raw_syscall(SYS_openat, dirfd, (long)path, flags, 0600, 0, 0);
	if (fd == -EACCES && !excl) /* a file we may write but not read */
		fd = (int)rp_raw_syscall(SYS_openat, dirfd, (long)path, (flags & ~O_RDWR) | O_WRONLY,
					 0600, 0, 0);
	if (fd < 0) {
		e = -fd;
		if (e == ELOOP)
			goto symlink;
		log_say(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	long r = rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	if (r < 0) {
		e = (int)-r;
		log_say(err, errlen, "%s: %s", path, strerror(e));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		not_regular(path, st.st_mode, err, errlen);
		goto fail;
	}
	r = rp_raw_syscall(SYS_flock, fd, LOCK_EX | LOCK_NB, 0, 0, 0, 0);
	if (r == -EWOULDBLOCK) {
		char who[96];
		holder_name(&st, who, sizeof who);
		e = EBUSY;
		log_say(err, errlen, "%s: %s is recording into it; not recording into it too "
			"(--record another file)", path, who);
		goto fail;
	}
	/* (another error: a file system without locks; the file is ours all the same) */
	if (st.st_size > 0) {
		uint8_t magic[sizeof log_file_magic];
		ssize_t n = rp_sys_pread(fd, magic, sizeof magic, 0);
		if (n < 0) {
			e = errno;
			log_say(err, errlen, "%s: cannot read it to check that it is a libreplay log "
				"(%s); not overwriting", path, strerror(e));
			goto fail;
		}
		if (n != (ssize_t)sizeof magic || memcmp(magic, log_file_magic, sizeof magic)) {
			e = EPERM; /* (not EEXIST: rp_logdir_new takes that for a name taken) */
			log_say(err, errlen, "%s: not a libreplay log, not overwriting", path);
			goto fail;
		}
		if ((r = rp_raw_syscall(SYS_ftruncate, fd, 0, 0, 0, 0, 0)) < 0) {
			e = (int)-r;
			log_say(err, errlen, "%s: cannot empty it: %s", path, strerror(e));
			goto fail;
		}
	}
	/* A log rewritten is as private as a new one: a log holds the program's inputs. */
	if ((st.st_mode & 077) && st.st_uid == (uid_t)rp_raw_syscall(SYS_geteuid, 0, 0, 0, 0, 0, 0))
		rp_raw_syscall(SYS_fchmod, fd, st.st_mode & 0700, 0, 0, 0, 0);
	return fd;
symlink:
	log_say(err, errlen, "%s: a symbolic link; not recording through it (--record the file "
		"it names)", path);
	errno = e;
	return -1;
fail:
	rp_sys_close(fd);
	errno = e;
	return -1;
}

bool rp_log_is_log(int fd)
{
	uint8_t magic[sizeof log_file_magic];
	return rp_sys_pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
	       !memcmp(magic, log_file_magic, sizeof magic);
}
