/* rp_fd.c: the runtime's own descriptors, kept out of the program's way (rp_fd.h). */
#include "base/rp_fd.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <fcntl.h>

static int owned[RP_FD_SLOTS]; /* 0: free (never one of ours: ours are >= RP_FD_MIN) */
static int kept_stderr = -1;

bool rp_fd_owned(int fd)
{
	if (fd < RP_FD_MIN)
		return false;
	for (int i = 0; i < RP_FD_SLOTS; i++)
		if (__atomic_load_n(&owned[i], __ATOMIC_RELAXED) == fd)
			return true;
	return false;
}

unsigned long rp_fd_list(int *out, unsigned long max)
{
	unsigned long n = 0;
	for (int i = 0; i < RP_FD_SLOTS; i++) {
		int fd = __atomic_load_n(&owned[i], __ATOMIC_RELAXED);
		if (fd == 0 || n == max)
			continue;
		unsigned long j = n++; /* insertion: ascending */
		for (; j > 0 && out[j - 1] > fd; j--)
			out[j] = out[j - 1];
		out[j] = fd;
	}
	return n;
}

static void note(int fd)
{
	for (int i = 0; i < RP_FD_SLOTS; i++)
		if (owned[i] == 0) {
			__atomic_store_n(&owned[i], fd, __ATOMIC_RELAXED);
			return;
		}
	/* Full: the descriptor still works, the program may just close it. */
}

int rp_fd_own(int fd)
{
	if (fd < 0)
		return fd;
	if (fd < RP_FD_MIN) {
		long high = rp_raw_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, RP_FD_MIN, 0, 0, 0);
		if (high < 0)
			return fd;
		rp_sys_close(fd);
		fd = (int)high;
	}
	note(fd);
	return fd;
}

int rp_fd_close(int fd)
{
	for (int i = 0; i < RP_FD_SLOTS; i++)
		if (owned[i] == fd && fd >= RP_FD_MIN)
			__atomic_store_n(&owned[i], 0, __ATOMIC_RELAXED);
	if (fd == kept_stderr)
		kept_stderr = -1;
	return rp_sys_close(fd);
}

void rp_fd_keep_stderr(void)
{
	if (kept_stderr >= 0)
		return;
	long fd = rp_raw_syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, RP_FD_MIN, 0, 0, 0);
	if (fd >= 0)
		kept_stderr = rp_fd_own((int)fd);
}

int rp_fd_stderr(void)
{
	return kept_stderr >= 0 ? kept_stderr : 2;
}

long rp_fd_say(const char *buf, unsigned long len)
{
	int fd = rp_fd_stderr();
	unsigned long off = 0;
	while (off < len) {
		long n = rp_raw_syscall(SYS_write, fd, (long)(buf + off), (long)(len - off), 0, 0, 0);
		if (n == -EINTR)
			continue;
		if (n == -EBADF && fd != 2) { /* gone behind our back (a raw close): stderr */
			fd = 2;
			continue;
		}
		if (n <= 0)
			return off ? (long)off : -1;
		off += (unsigned long)n;
	}
	return (long)off;
}
