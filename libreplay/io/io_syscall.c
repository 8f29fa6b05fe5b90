/* io_syscall.c: syscall(), so that a program's raw system calls reach the green-thread
 * versions: SYS_futex goes to io_futex.c; the blocking calls of io_rw.c, io_socket.c,
 * io_poll.c and io_epoll.c and the sleeps to those functions; the recorded inputs
 * (getrandom, getpid, getppid, gettid, clock_gettime, gettimeofday, time, times,
 * uname) to theirs; SYS_exit_group and SYS_exit to pt_end.c, which ends the log
 * first; everything else to the kernel.
 * The runtime's own syscall() calls pass through here too, to the kernel, and so does
 * every call made outside a running green thread. */
#include "io/io.h"

#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int k = 0; k < 6; k++)
		a[k] = va_arg(ap, long);
	va_end(ap);
	void *p0 = (void *)a[0], *p1 = (void *)a[1], *p2 = (void *)a[2], *p3 = (void *)a[3];
	int fd = (int)a[0];
	/* The scheduler idling and the runtime (pt_sleep.c's kernel_sleep) come here for
	 * the kernel itself. */
	if (!io_green())
		return io_ret(rp_raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
	switch (nr) {
	case SYS_futex:
		return io_ret(io_futex(p0, (int)a[1], (uint32_t)a[2], p3, (void *)a[4],
					  (uint32_t)a[5]));
	case SYS_read:
		return read(fd, p1, (size_t)a[2]);
	case SYS_write:
		return write(fd, p1, (size_t)a[2]);
	case SYS_readv:
		return readv(fd, p1, (int)a[2]);
	case SYS_writev:
		return writev(fd, p1, (int)a[2]);
	case SYS_recvfrom:
		return recvfrom(fd, p1, (size_t)a[2], (int)a[3], (void *)a[4], (void *)a[5]);
	case SYS_sendto:
		return sendto(fd, p1, (size_t)a[2], (int)a[3], (void *)a[4], (socklen_t)a[5]);
	case SYS_recvmsg:
		return recvmsg(fd, p1, (int)a[2]);
	case SYS_sendmsg:
		return sendmsg(fd, p1, (int)a[2]);
	case SYS_accept:
		return accept(fd, p1, p2);
	case SYS_accept4:
		return accept4(fd, p1, p2, (int)a[3]);
	case SYS_connect:
		return connect(fd, p1, (socklen_t)a[2]);
	case SYS_poll:
		return poll(p0, (nfds_t)a[1], (int)a[2]);
	case SYS_ppoll:
		return ppoll(p0, (nfds_t)a[1], p2, p3);
	case SYS_select:
		return select(fd, p1, p2, p3, (void *)a[4]);
	case SYS_pselect6: {
		const struct {
			const sigset_t *ss;
			size_t len;
		} *data = (void *)a[5];
		return pselect(fd, p1, p2, p3, (void *)a[4], data ? data->ss : NULL);
	}
	case SYS_epoll_wait:
		return epoll_wait(fd, p1, (int)a[2], (int)a[3]);
	case SYS_epoll_pwait:
		return epoll_pwait(fd, p1, (int)a[2], (int)a[3], (void *)a[4]);
	case SYS_nanosleep:
		return nanosleep(p0, p1);
	case SYS_clock_nanosleep: {
		int err = clock_nanosleep((clockid_t)a[0], (int)a[1], p2, p3);
		return err ? (errno = err, -1) : 0;
	}
	case SYS_sched_yield:
		return sched_yield();
	/* Recorded inputs (docs/inputs.md): the replay returns what the recording got. */
	case SYS_getrandom:
		return getrandom(p0, (size_t)a[1], (unsigned)a[2]);
	case SYS_getpid:
		return getpid();
	case SYS_getppid:
		return getppid();
	case SYS_gettid:
		return gettid();
	case SYS_clock_gettime:
		return clock_gettime((clockid_t)a[0], p1);
	case SYS_gettimeofday:
		return gettimeofday(p0, p1);
	case SYS_time:
		return time(p0);
	case SYS_times:
		return times(p0);
	case SYS_uname:
		return uname(p0);
	case SYS_pidfd_open:
		return pidfd_open((pid_t)a[0], (unsigned)a[1]);
	case SYS_exit_group: /* the log's END first (pt_end.c) */
		_exit((int)a[0]); /* pt_end.c's */
	case SYS_exit:
		pt_exit_thread_raw((int)a[0]);
	default:
		return io_ret(rp_raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
	}
}
