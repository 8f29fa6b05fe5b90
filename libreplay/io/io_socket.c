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

/* ---- sockets of the world ---------------------------------------------------------------- */

/* A socket the program makes is the world's (inputs/in_world.c): what it receives,
 * whom it reaches and what it is told are inputs; in the replay it is a real socket
 * that is never connected, bound or sent on. A socketpair stays the program's own. */

struct msg_plain {
	int fd;
	struct msghdr *m;
	int flags;
	bool sending;
};

static long plain_msg(void *arg)
{
	const struct msg_plain *c = arg;
	return rp_raw_syscall(c->sending ? SYS_sendmsg : SYS_recvmsg, c->fd, (long)c->m, c->flags, 0, 0, 0);
}

/* What a receive on the world tells besides its bytes: the sender's address, the
 * flags, the ancillary data (its descriptors would be numbers of the recording's). */
static void msg_meta(struct msghdr *m, int fd)
{
	struct {
		uint32_t namelen, flags, controllen, pad;
	} meta = {m->msg_namelen, (uint32_t)m->msg_flags, (uint32_t)m->msg_controllen, 0};
	struct iovec out[3] = {{&meta, sizeof meta}, {m->msg_name, m->msg_name ? m->msg_namelen : 0},
			       {m->msg_control, m->msg_control ? m->msg_controllen : 0}};
	long r;
	if (in_world_replayed(IN_WC_RECV, fd, out, 3, &r)) {
		m->msg_namelen = meta.namelen;
		m->msg_flags = (int)meta.flags;
		m->msg_controllen = meta.controllen;
		return;
	}
	if (m->msg_control && m->msg_controllen) {
		static bool told;
		struct cmsghdr *cm = CMSG_FIRSTHDR(m);
		if (cm && cm->cmsg_type == SCM_RIGHTS && !told) {
			told = true;
			rp_say("recvmsg on descriptor %d received descriptors (SCM_RIGHTS) from outside: "
			       "the replay gives their numbers, not the files", fd);
		}
	}
	in_world_record(IN_WC_RECV, fd, 0, out, 3, IN_OUT_WHOLE);
}

struct sock_call {
	int fd;
	long a, b, c, d;
	long nr;
};

static long plain_sock(void *arg)
{
	const struct sock_call *c = arg;
	return rp_raw_syscall(c->nr, c->fd, c->a, c->b, c->c, c->d, 0);
}

int socket(int domain, int type, int protocol)
{
	struct sock_call c = {domain, type, protocol, 0, 0, SYS_socket};
	if (!in_world_on())
		return (int)io_ret(plain_sock(&c));
	long r;
	if (in_world_replayed(IN_WC_SOCKET, -1, NULL, 0, &r)) {
		if (r < 0)
			return (int)io_ret(r);
		/* A socket of its own, never connected: where the replay cannot make
		 * one of that domain (a container without IPv6), a stand-in. */
		long fd = plain_sock(&c);
		int nb = type & SOCK_NONBLOCK ? O_NONBLOCK : 0, ce = type & SOCK_CLOEXEC ? O_CLOEXEC : 0;
		if (fd != r) {
			if (fd >= 0)
				rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
			return in_world_standin((int)r, IN_W_SOCKET, nb | ce | O_RDWR);
		}
		in_world_set((int)fd, IN_W_SOCKET, false);
		return (int)fd;
	}
	r = plain_sock(&c);
	in_world_record(IN_WC_SOCKET, -1, r, NULL, 0, IN_OUT_NONE);
	if (r >= 0)
		in_world_set((int)r, IN_W_SOCKET, false);
	return (int)io_ret(r);
}

static int sock_effect(enum in_world_call call, long nr, int fd, long a, long b)
{
	struct sock_call c = {fd, a, b, 0, 0, nr};
	if (!in_world_fd(fd))
		return (int)io_ret(plain_sock(&c));
	return (int)io_ret(in_world_write(call, fd, plain_sock, &c));
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return sock_effect(IN_WC_BIND, SYS_bind, fd, (long)addr, len);
}

int listen(int fd, int backlog)
{
	return sock_effect(IN_WC_LISTEN, SYS_listen, fd, backlog, 0);
}

int shutdown(int fd, int how)
{
	return sock_effect(IN_WC_SHUTDOWN, SYS_shutdown, fd, how, 0);
}

/* A call that fills an address or an option and its length. */
static int sock_ask(enum in_world_call call, long nr, int fd, long a, long b, void *buf,
		    socklen_t *len)
{
	struct sock_call c = {fd, a, b, (long)buf, (long)len, nr};
	if (nr != SYS_getsockopt)
		c.a = (long)buf, c.b = (long)len;
	if (!in_world_fd(fd))
		return (int)io_ret(plain_sock(&c));
	struct iovec out[2] = {{len, len ? sizeof *len : 0}, {buf, buf && len ? *len : 0}};
	return (int)io_ret(in_world_call(call, fd, plain_sock, &c, out, 2, IN_OUT_WHOLE));
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sock_ask(IN_WC_SOCKNAME, SYS_getsockname, fd, 0, 0, addr, len);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sock_ask(IN_WC_PEERNAME, SYS_getpeername, fd, 0, 0, addr, len);
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	return sock_ask(IN_WC_SOCKOPT, SYS_getsockopt, fd, level, name, val, len);
}

/* setsockopt is made in both runs (a timeout set on the stand-in is how the replay
 * waits alike); the program gets the recorded result. */
int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct sock_call c = {fd, level, name, (long)val, len, SYS_setsockopt};
	long real = plain_sock(&c), r;
	if (!in_world_fd(fd))
		return (int)io_ret(real);
	if (!in_world_replayed(IN_WC_SOCKOPT, fd, NULL, 0, &r))
		in_world_record(IN_WC_SOCKOPT, fd, r = real, NULL, 0, IN_OUT_NONE);
	return (int)io_ret(r);
}

/* One recvmsg or sendmsg as a blocking call makes it. */
static ssize_t msg_call(int fd, const struct msghdr *m, int flags, bool sending)
{
	long nr = sending ? SYS_sendmsg : SYS_recvmsg;
	bool world = in_world_fd(fd);
	if (!io_green() && world) {
		struct msg_plain c = {fd, (struct msghdr *)m, flags, sending};
		long r = sending ? in_world_write(IN_WC_SEND, fd, plain_msg, &c)
				 : in_world_call(IN_WC_RECV, fd, plain_msg, &c, m->msg_iov, m->msg_iovlen,
						 IN_OUT_RESULT);
		if (!sending && r >= 0)
			msg_meta((struct msghdr *)m, fd);
		return io_ret(r);
	}
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
	int count = world ? (sending ? IO_WORLD | IO_WORLD_CALL(IN_WC_SEND)
				     : IO_WORLD_READ | IO_WORLD_CALL(IN_WC_RECV)) :
		rp_inputs_logged() && io_fd_chunked(fd) ?
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
			if (world)
				msg_meta(&mm, fd);
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

static long plain_accept(void *arg)
{
	const struct acc *a = arg;
	return rp_raw_syscall(SYS_accept4, a->fd, (long)a->addr, (long)a->len, a->flags, 0, 0);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct acc a = {fd, addr, len, flags};
	bool world = in_world_fd(fd);
	long r;
	/* On the world: the connection and the peer's address are inputs. */
	struct iovec out[2] = {{len, len ? sizeof *len : 0}, {addr, addr && len ? *len : 0}};
	struct io_span span = {out, 2};
	if (!io_green()) {
		r = world ? in_world_call(IN_WC_ACCEPT, fd, plain_accept, &a, out, 2, IN_OUT_WHOLE)
			  : plain_accept(&a);
	} else {
		pt_testcancel(pt_self());
		struct pollfd p = {fd, POLLIN, 0};
		r = io_call(&p, 1, NULL, IO_RESTART | (world ? IO_WORLD_ALL | IO_WORLD_CALL(IN_WC_ACCEPT) : 0),
			    fd, try_accept, &a, world ? &span : NULL);
	}
	if (world && r >= 0) {
		if (rp_replay_decides())
			in_world_standin((int)r, IN_W_SOCKET, O_RDWR | (flags & SOCK_NONBLOCK ? O_NONBLOCK : 0) |
					 (flags & SOCK_CLOEXEC ? O_CLOEXEC : 0));
		else
			in_world_set((int)r, IN_W_SOCKET, false);
	}
	return (int)io_ret(r);
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

struct conn_first {
	int fd;
	const struct sockaddr *addr;
	socklen_t len;
	long fl;
};

/* connect's one system call, made non-blocking (the flags put back at once). */
static long connect_first(void *arg)
{
	const struct conn_first *c = arg;
	if (c->fl < 0 || (c->fl & O_NONBLOCK))
		return rp_raw_syscall(SYS_connect, c->fd, (long)c->addr, c->len, 0, 0, 0);
	long r;
	do {
		rp_raw_syscall(SYS_fcntl, c->fd, F_SETFL, c->fl | O_NONBLOCK, 0, 0, 0);
		r = rp_raw_syscall(SYS_connect, c->fd, (long)c->addr, c->len, 0, 0, 0);
		rp_raw_syscall(SYS_fcntl, c->fd, F_SETFL, c->fl, 0, 0, 0);
		if (r == -EAGAIN) { /* a Unix listener's backlog is full: a little later */
			struct timespec ms = {0, 1000000};
			rp_raw_syscall(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
		}
	} while (r == -EAGAIN);
	return r;
}

static long blocking_connect(void *arg)
{
	const struct conn_first *c = arg;
	return rp_raw_syscall(SYS_connect, c->fd, (long)c->addr, c->len, 0, 0, 0);
}

/* connect on a socket of the world: the connection's result is an input, and the
 * replay connects nowhere. The wait for a connection in progress is one try, as below. */
static int world_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	struct conn_first f = {fd, addr, len, fl};
	if (!io_green())
		return (int)io_ret(in_world_call(IN_WC_CONNECT, fd, blocking_connect, &f, NULL, 0, IN_OUT_NONE));
	pt_testcancel(pt_self());
	long r = in_world_call(IN_WC_CONNECT, fd, connect_first, &f, NULL, 0, IN_OUT_NONE);
	if ((r != 0 && r != -EINPROGRESS) || fl < 0 || (fl & O_NONBLOCK))
		return (int)io_ret(r);
	struct conn c = {fd, r == 0};
	struct pollfd p = {fd, POLLOUT, 0};
	return (int)io_ret(io_call(&p, 1, NULL, IO_RESTART | IO_WORLD | IO_WORLD_CALL(IN_WC_CONNECT), -1,
				   try_connected, &c, NULL));
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	if (in_world_fd(fd))
		return world_connect(fd, addr, len);
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
