/* io_waitpid.c: wait, waitpid, wait3, wait4 and waitid block only the calling green
 * thread while the child runs (io_park.c); all are cancellation points, and a
 * signal's handler ends them with EINTR or, with SA_RESTART, lets them go on, as the
 * kernel's wait4 does.
 *
 * The call is made with WNOHANG; while no child has changed state the thread parks on
 * a pidfd of the child (readable once it has exited) when it waits for one child's
 * exit, else it asks again after 1, 2, 4, 8 then every 16 ms (any child, process
 * groups, stops and continues: no descriptor tells of those). When it went on is an
 * input of the replay like any blocking call's; the replay runs the same children
 * again and waits for them in the kernel where the recording did not wait.
 * glibc's own waits (system, pclose) still block the whole process. */
#include "io/io.h"

#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

struct wait4_args {
	pid_t pid;
	int *status;
	int options;
	struct rusage *ru;
};

static long try_wait4(void *arg)
{
	const struct wait4_args *a = arg;
	long r = rp_raw_syscall(SYS_wait4, a->pid, (long)a->status, a->options | WNOHANG, (long)a->ru,
				0, 0);
	return r == 0 ? -EAGAIN : r;
}

struct waitid_args {
	idtype_t type;
	id_t id;
	siginfo_t *info;
	int options;
};

static long try_waitid(void *arg)
{
	const struct waitid_args *a = arg;
	siginfo_t si;
	si.si_pid = 0;
	long r = rp_raw_syscall(SYS_waitid, a->type, a->id, (long)&si, a->options | WNOHANG, 0, 0);
	if (r == 0 && si.si_pid == 0)
		return -EAGAIN; /* nothing yet: the caller's info is left for the real answer */
	if (r == 0 && a->info)
		*a->info = si;
	return r;
}

/* Park until try goes through. fd: a descriptor readable once it can (a pidfd), or
 * -1 to ask again later; nbfd: fd if it is the program's own (its O_NONBLOCK then
 * means EAGAIN, as the kernel's waitid answers), else -1. */
static long wait_green(long (*try)(void *), void *arg, int fd, int nbfd)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (fd >= 0)
		return io_call(&p, 1, NULL, IO_RESTART, nbfd, try, arg, NULL);
	for (long ms = 1;; ms = ms < 16 ? 2 * ms : 16) {
		struct timespec dl;
		pt_deadline_in(0, ms * 1000000, &dl);
		long r = io_call(NULL, 0, &dl, IO_RESTART, -1, try, arg, NULL);
		if (r != -ETIMEDOUT)
			return r;
	}
}

/* A pidfd of pid for a wait on its exit alone (not on stops, WUNTRACED being waitid's
 * WSTOPPED, nor continues), or -1. */
static int exit_fd(long pid, int options)
{
	if (pid <= 0 || (options & (WUNTRACED | WCONTINUED)))
		return -1;
	long fd = rp_raw_syscall(SYS_pidfd_open, pid, 0, 0, 0, 0, 0);
	return fd < 0 ? -1 : (int)fd;
}

static void close_fd(void *fd)
{
	rp_raw_syscall(SYS_close, (long)(intptr_t)fd, 0, 0, 0, 0, 0);
}

/* wait_green with our own pidfd fd (or -1), closed after, also by a cancellation. */
static long wait_own_fd(long (*try)(void *), void *arg, int fd)
{
	if (fd < 0)
		return wait_green(try, arg, -1, -1);
	struct _pthread_cleanup_buffer cb;
	_pthread_cleanup_push(&cb, close_fd, (void *)(intptr_t)fd);
	long r = wait_green(try, arg, fd, -1);
	_pthread_cleanup_pop(&cb, 1);
	return r;
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	struct wait4_args a = {pid, status, options, ru};
	if (!io_green() || (options & WNOHANG))
		return (pid_t)io_ret(rp_raw_syscall(SYS_wait4, pid, (long)status, options, (long)ru, 0, 0));
	pt_testcancel(pt_self());
	return (pid_t)io_ret(wait_own_fd(try_wait4, &a, exit_fd(pid, options)));
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}

int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	struct waitid_args a = {type, id, info, options};
	if (!io_green() || (options & WNOHANG))
		return (int)io_ret(rp_raw_syscall(SYS_waitid, type, id, (long)info, options, 0, 0));
	pt_testcancel(pt_self());
	long r;
	if ((int)type == P_PIDFD && !(options & (WSTOPPED | WCONTINUED)))
		r = wait_green(try_waitid, &a, (int)id, (int)id); /* the program's own pidfd */
	else
		r = wait_own_fd(try_waitid, &a, type == P_PID ? exit_fd((long)id, options) : -1);
	return (int)io_ret(r);
}
