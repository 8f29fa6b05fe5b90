/* io_waitpid.c: wait, waitpid, wait3, wait4 and waitid block only the calling green
 * thread while the child runs (io_park.c); all are cancellation points, and a
 * signal's handler ends them with EINTR or, with SA_RESTART, lets them go on, as the
 * kernel's wait4 does.
 *
 * The call is made with WNOHANG; while no child has changed state the thread parks on
 * a pidfd of the child (readable once it has exited) when it waits for one child's
 * exit, else it asks again after 1, 2, 4, 8 then every 16 ms (any child, process
 * groups, stops and continues: no descriptor tells of those). When it went on is an
 * input of the replay like any blocking call's.
 *
 * The replay makes no child (pt_fork.c), so what a wait returned is an input too:
 * recording, every answer (a pid, 0 under WNOHANG, an error) is logged with the
 * status and rusage, or the siginfo fields, it filled (INPUT WAIT, WAITID); replaying,
 * the thread parks and wakes where the log says and gets the logged answer, and no
 * descriptor is looked at. A wait that could not open a pidfd and polls logs that
 * (WAIT_POLL), so that its replay polls the same. glibc's own waits (pclose, and
 * system's, pt_fork.c) still block the whole process. */
#include "io/io.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* wait4's answer, from the log or the kernel. trying: WNOHANG is ours (a try of a
 * blocking wait), so "nothing yet" is -EAGAIN, not an answer, and not logged. */
struct wait4_log {
	int64_t result;
	int32_t status, unused;
	struct rusage ru;
};

static long wait4_call(const struct wait4_args *a, bool trying)
{
	struct wait4_log w;
	size_t len = offsetof(struct wait4_log, ru) + (a->ru ? sizeof w.ru : 0);
	if (rp_input_replay(RP_INPUT_WAIT, &w, len)) {
		if (w.result > 0 && a->status)
			*a->status = w.status;
		if (w.result > 0 && a->ru)
			*a->ru = w.ru;
		return (long)w.result;
	}
	long r = rp_raw_syscall(SYS_wait4, a->pid, (long)a->status, a->options | (trying ? WNOHANG : 0),
				(long)a->ru, 0, 0);
	if (trying && r == 0)
		return -EAGAIN;
	memset(&w, 0, sizeof w);
	w.result = r;
	if (r > 0 && a->status)
		w.status = *a->status;
	if (r > 0 && a->ru)
		w.ru = *a->ru;
	rp_input_record(RP_INPUT_WAIT, &w, len);
	return r;
}

static long try_wait4(void *arg)
{
	return wait4_call(arg, true);
}

struct waitid_args {
	idtype_t type;
	id_t id;
	siginfo_t *info;
	int options;
};

/* The fields of siginfo_t the kernel's waitid fills. */
struct waitid_log {
	int64_t result;
	int32_t signo, err, code, pid, uid, status;
};

static long waitid_call(const struct waitid_args *a, bool trying)
{
	struct waitid_log w;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (rp_input_replay(RP_INPUT_WAITID, &w, sizeof w)) {
		if (w.result == 0 && a->info) {
			si.si_signo = w.signo;
			si.si_errno = w.err;
			si.si_code = w.code;
			si.si_pid = w.pid;
			si.si_uid = (uid_t)w.uid;
			si.si_status = w.status;
			*a->info = si;
		}
		return (long)w.result;
	}
	long r = rp_raw_syscall(SYS_waitid, a->type, a->id, (long)&si, a->options | (trying ? WNOHANG : 0),
				0, 0);
	if (trying && r == 0 && si.si_pid == 0)
		return -EAGAIN; /* nothing yet: the caller's info is left for the real answer */
	if (r == 0 && a->info)
		*a->info = si;
	w = (struct waitid_log){r, si.si_signo, si.si_errno, si.si_code, si.si_pid, (int32_t)si.si_uid,
				si.si_status};
	rp_input_record(RP_INPUT_WAITID, &w, sizeof w);
	return r;
}

static long try_waitid(void *arg)
{
	return waitid_call(arg, true);
}

/* Park until try goes through. on_fd: park on fd, readable once it can (-1 in a
 * replay, where the log says when); else ask again later. nbfd: fd if it is the
 * program's own (its O_NONBLOCK then means EAGAIN, as the kernel's waitid answers),
 * else -1. */
static long wait_green(long (*try)(void *), void *arg, bool on_fd, int fd, int nbfd)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (on_fd)
		return io_call(&p, 1, NULL, IO_RESTART, nbfd, try, arg, NULL);
	for (long ms = 1;; ms = ms < 16 ? 2 * ms : 16) {
		struct timespec dl;
		pt_deadline_in(0, ms * 1000000, &dl);
		long r = io_call(NULL, 0, &dl, IO_RESTART, -1, try, arg, NULL);
		if (r != -ETIMEDOUT)
			return r;
	}
}

static void close_fd(void *fd)
{
	rp_raw_syscall(SYS_close, (long)(intptr_t)fd, 0, 0, 0, 0, 0);
}

/* A blocking wait for pid (or any child, a group: pid <= 0): on a pidfd of pid when
 * it waits for its exit alone (not for stops, WUNTRACED being waitid's WSTOPPED, nor
 * continues), else by asking again; the pidfd closed after, also by a cancellation.
 * Replaying there is no child: the recording says which way it waited. */
static long wait_child(long (*try)(void *), void *arg, long pid, int options)
{
	if (pid <= 0 || (options & (WUNTRACED | WCONTINUED)))
		return wait_green(try, arg, false, -1, -1);
	uint64_t first = pt_self()->io_seq + 1;
	if (rp_replay_decides()) {
		bool polled = rp_input_replay_try(RP_INPUT_WAIT_POLL, first,
						  "waited for a child without a pidfd", NULL, 0);
		return wait_green(try, arg, !polled, -1, -1);
	}
	long fd = rp_raw_syscall(SYS_pidfd_open, pid, 0, 0, 0, 0, 0);
	if (fd < 0) {
		rp_input_record(RP_INPUT_WAIT_POLL, &first, sizeof first);
		return wait_green(try, arg, false, -1, -1);
	}
	struct _pthread_cleanup_buffer cb;
	_pthread_cleanup_push(&cb, close_fd, (void *)(intptr_t)fd);
	long r = wait_green(try, arg, true, (int)fd, -1);
	_pthread_cleanup_pop(&cb, 1);
	return r;
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	struct wait4_args a = {pid, status, options, ru};
	/* gdb reaps a checkpoint it deletes by calling waitpid in the replay: the bare
	 * call, neither logged nor taken from the log (engine/schedule/debug.c). */
	if (rp_debug.checkpointing)
		return (pid_t)io_ret(rp_raw_syscall(SYS_wait4, pid, (long)status, options, (long)ru, 0, 0));
	if (!io_green() || (options & WNOHANG))
		return (pid_t)io_ret(wait4_call(&a, false));
	pt_testcancel(pt_self());
	return (pid_t)io_ret(wait_child(try_wait4, &a, pid, options));
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
	if (rp_debug.checkpointing)
		return (int)io_ret(rp_raw_syscall(SYS_waitid, type, id, (long)info, options, 0, 0));
	/* A non-blocking pidfd answers at once (EAGAIN while the child runs), as WNOHANG. */
	if (!io_green() || (options & WNOHANG) || ((int)type == P_PIDFD && io_fd_nonblocking((int)id)))
		return (int)io_ret(waitid_call(&a, false));
	pt_testcancel(pt_self());
	long r;
	if ((int)type == P_PIDFD && !(options & (WSTOPPED | WCONTINUED)))
		r = wait_green(try_waitid, &a, true, (int)id, (int)id); /* the program's own pidfd */
	else
		r = wait_child(try_waitid, &a, type == P_PID ? (long)id : -1, options);
	return (int)io_ret(r);
}
