/* io_socket.c: recv, recvfrom, recvmsg, send, sendto, sendmsg, accept, accept4 and
 * connect block only the calling green thread (io_park.c); all are cancellation
 * points. The tries add MSG_DONTWAIT to the caller's flags; accept and accept4 poll
 * first (a queued connection cannot be taken by another green thread in between);
 * connect makes its one system call with O_NONBLOCK set on the socket and puts the
 * flags back at once, then waits for the result like a non-blocking connect.
 *
 * As a blocking send does, send, sendto and sendmsg on a stream socket send
 * everything before returning; recv and recvfrom with MSG_WAITALL read everything. */
#include "io/io.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "engine/session.h"

struct msg {
	int fd;
	struct msghdr *m;
	int flags;
	struct io_span span; /* the buffers: m's, once the try puts them there */
};

static long try_recvmsg(void *arg)
{
	const struct msg *a = arg;
	a->m->msg_iov = a->span.iov;
	a->m->msg_iovlen = a->span.cnt;
	return rp_raw_syscall(SYS_recvmsg, a->fd, (long)a->m, a->flags | MSG_DONTWAIT, 0, 0, 0);
}

static long try_sendmsg(void *arg)
{
	const struct msg *a = arg;
	a->m->msg_iov = a->span.iov;
	a->m->msg_iovlen = a->span.cnt;
	return rp_raw_syscall(SYS_sendmsg, a->fd, (long)a->m, a->flags | MSG_DONTWAIT, 0, 0, 0);
}

/* Stream sockets loop until iov is done (sending always, receiving with MSG_WAITALL). */
static bool is_stream(int fd)
{
	int type = 0;
	socklen_t len = sizeof type;
	return rp_raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, (long)&type, (long)&len, 0) ==
		       0 && type == SOCK_STREAM;
}

/* One recvmsg or sendmsg as a blocking call makes it. */
static ssize_t msg_call(int fd, const struct msghdr *m, int flags, bool sending)
{
	long nr = sending ? SYS_sendmsg : SYS_recvmsg;
	if (!io_green())
		return io_ret(rp_raw_syscall(nr, fd, (long)m, flags, 0, 0, 0));
	pt_testcancel(pt_self());
	if (m->msg_iovlen > IOV_MAX)
		return io_ret(rp_raw_syscall(nr, fd, (long)m, flags, 0, 0, 0));
	struct msghdr mm = *m;
	struct iovec left[mm.msg_iovlen ? mm.msg_iovlen : 1];
	size_t total = 0, done = 0;
	for (size_t k = 0; k < mm.msg_iovlen; k++) {
		left[k] = m->msg_iov[k];
		total += left[k].iov_len;
	}
	struct msg a = {fd, &mm, flags & ~MSG_WAITALL, {left, mm.msg_iovlen}};
	struct pollfd p = {fd, sending ? POLLOUT : POLLIN, 0};
	bool all = sending || (flags & MSG_WAITALL);
	/* A TCP-like socket: how much each try moves is logged (io_park.c). */
	int count = rp_inputs_logged() && io_fd_chunked(fd) ?
		IO_COUNTED | (flags & MSG_PEEK ? IO_PEEK : 0) : 0;
	for (;;) {
		/* After some progress an interrupted call returns the count so far. */
		int how = (flags & MSG_DONTWAIT ? IO_DONTWAIT : 0) | (done ? 0 : IO_RESTART) | count;
		long r = io_call(&p, 1, NULL, how, fd, sending ? try_sendmsg : try_recvmsg, &a,
				 &a.span);
		if (r < 0)
			return done ? (ssize_t)done : io_ret(r);
		done += (size_t)r;
		if (!sending) {
			struct msghdr *um = (struct msghdr *)m; /* what the kernel sets */
			um->msg_flags = mm.msg_flags;
			um->msg_namelen = mm.msg_namelen;
			um->msg_controllen = mm.msg_controllen;
		}
		/* The end of a stream (r == 0) or of the data; non-blocking, or not a stream
		 * (a datagram goes in one piece): one call. */
		if (!all || r == 0 || done >= total || (flags & MSG_DONTWAIT) ||
		    io_fd_nonblocking(fd) || !is_stream(fd))
			return (ssize_t)done;
		unsigned long cnt = a.span.cnt;
		struct iovec *v = a.span.iov;
		size_t n = (size_t)r;
		while (cnt > 0 && n >= v->iov_len) {
			n -= v->iov_len;
			v++;
			cnt--;
		}
		if (cnt > 0) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= n;
		}
		a.span.iov = v;
		a.span.cnt = cnt;
		/* Only the first piece carries ancillary data and the address. */
		mm.msg_control = NULL;
		mm.msg_controllen = 0;
		if (sending) {
			mm.msg_name = NULL;
			mm.msg_namelen = 0;
		}
	}
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	return msg_call(fd, m, flags, false);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	return msg_call(fd, m, flags, true);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
		 socklen_t *addrlen)
{
	struct iovec v = {buf, len};
	struct msghdr m = {.msg_name = addr, .msg_namelen = addr && addrlen ? *addrlen : 0,
			   .msg_iov = &v, .msg_iovlen = 1};
	ssize_t r = msg_call(fd, &m, flags, false);
	if (r >= 0 && addr && addrlen)
		*addrlen = m.msg_namelen;
	return r;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t addrlen)
{
	struct iovec v = {(void *)buf, len};
	struct msghdr m = {.msg_name = (void *)addr, .msg_namelen = addr ? addrlen : 0,
			   .msg_iov = &v, .msg_iovlen = 1};
	return msg_call(fd, &m, flags, true);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

struct acc {
	int fd;
	struct sockaddr *addr;
	socklen_t *len;
	int flags;
};

static long try_accept(void *arg)
{
	const struct acc *a = arg;
	struct pollfd p = {a->fd, POLLIN, 0};
	struct timespec zero = {0, 0};
	long n = rp_raw_syscall(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 8, 0);
	if (n <= 0)
		return n ? n : -EAGAIN;
	return rp_raw_syscall(SYS_accept4, a->fd, (long)a->addr, (long)a->len, a->flags, 0, 0);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct acc a = {fd, addr, len, flags};
	if (!io_green())
		return (int)io_ret(rp_raw_syscall(SYS_accept4, fd, (long)addr, (long)len, flags, 0, 0));
	pt_testcancel(pt_self());
	struct pollfd p = {fd, POLLIN, 0};
	return (int)io_ret(io_call(&p, 1, NULL, IO_RESTART, fd, try_accept, &a, NULL));
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

struct conn {
	int fd;
	bool done; /* the connect itself succeeded */
};

/* After a connect in progress: -EAGAIN until it is done, then its result. */
static long try_connected(void *arg)
{
	const struct conn *c = arg;
	if (c->done)
		return 0;
	int fd = c->fd;
	struct pollfd p = {fd, POLLOUT, 0};
	struct timespec zero = {0, 0};
	long n = rp_raw_syscall(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 8, 0);
	if (n <= 0)
		return n ? n : -EAGAIN;
	int err = 0;
	socklen_t len = sizeof err;
	long r = rp_raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_ERROR, (long)&err, (long)&len, 0);
	return r ? r : -err;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	if (!io_green())
		return (int)io_ret(rp_raw_syscall(SYS_connect, fd, (long)addr, len, 0, 0, 0));
	pt_testcancel(pt_self());
	long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0 || (fl & O_NONBLOCK))
		return (int)io_ret(rp_raw_syscall(SYS_connect, fd, (long)addr, len, 0, 0, 0));
	/* Only for this one system call: nothing else runs before the flags are back. */
	rp_raw_syscall(SYS_fcntl, fd, F_SETFL, fl | O_NONBLOCK, 0, 0, 0);
	long r = rp_raw_syscall(SYS_connect, fd, (long)addr, len, 0, 0, 0);
	rp_raw_syscall(SYS_fcntl, fd, F_SETFL, fl, 0, 0, 0);
	/* A Unix socket whose listener's backlog is full: try again a little later. */
	while (r == -EAGAIN) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		rp_raw_syscall(SYS_fcntl, fd, F_SETFL, fl | O_NONBLOCK, 0, 0, 0);
		r = rp_raw_syscall(SYS_connect, fd, (long)addr, len, 0, 0, 0);
		rp_raw_syscall(SYS_fcntl, fd, F_SETFL, fl, 0, 0, 0);
	}
	if (r != 0 && r != -EINPROGRESS)
		return (int)io_ret(r);
	/* Whether the handshake finished within the call depends on time: either way the
	 * wait below is one try, so the replay counts the same tries (io_park.c). */
	struct conn c = {fd, r == 0};
	struct pollfd p = {fd, POLLOUT, 0};
	/* Interrupted without SA_RESTART: EINTR, and the connection goes on by itself. */
	return (int)io_ret(io_call(&p, 1, NULL, IO_RESTART, -1, try_connected, &c, NULL));
}
