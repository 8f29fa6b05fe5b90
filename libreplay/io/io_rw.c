/* io_rw.c: read, write, readv, writev on pipes, FIFOs, sockets and character devices
 * block only the calling green thread (io_park.c). Pipes and sockets are tried with
 * RWF_NOWAIT (or, where the kernel refuses it, as terminals are: poll first). Regular
 * files and the like go straight to the kernel; a read of /dev/random or /dev/urandom
 * is a recorded input (in_random_dev.c). All four are cancellation points. pipe and
 * pipe2 note the pipes the program makes, whose pieces are its own (counted() below).
 *
 * A blocking write writes everything, as the kernel's does: the rest of a partial
 * write (RWF_NOWAIT stops when the pipe is full) waits for room. A write of at most
 * PIPE_BUF bytes to a pipe stays atomic: RWF_NOWAIT never splits it. */
#include "io/io.h"

#include <limits.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/session.h"

struct rw {
	int fd;
	struct io_span span; /* the buffers */
	enum io_fd_kind kind;
};

static long try_read(void *arg)
{
	const struct rw *a = arg;
	long r = -EOPNOTSUPP;
	if (a->kind != IO_FD_CHAR)
		r = rp_raw_syscall(SYS_preadv2, a->fd, (long)a->span.iov, (long)a->span.cnt, -1, -1,
				   RWF_NOWAIT);
	if (r == -EOPNOTSUPP) {
		/* No RWF_NOWAIT on a terminal: ready first, then the read cannot block. */
		struct pollfd p = {a->fd, POLLIN, 0};
		struct timespec zero = {0, 0};
		long n = rp_raw_syscall(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 8, 0);
		if (n <= 0)
			return n ? n : -EAGAIN;
		return rp_raw_syscall(SYS_readv, a->fd, (long)a->span.iov, (long)a->span.cnt, 0, 0, 0);
	}
	return r;
}

static long try_write(void *arg)
{
	const struct rw *a = arg;
	long r = rp_raw_syscall(SYS_pwritev2, a->fd, (long)a->span.iov, (long)a->span.cnt, -1, -1,
				RWF_NOWAIT);
	if (r != -EOPNOTSUPP)
		return r;
	/* A kernel without RWF_NOWAIT for pipes: when poll says writable, a pipe has a
	 * free page and a socket room for PIPE_BUF bytes, so that much cannot block. */
	struct pollfd p = {a->fd, POLLOUT, 0};
	struct timespec zero = {0, 0};
	long n = rp_raw_syscall(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 8, 0);
	if (n <= 0)
		return n ? n : -EAGAIN;
	if (a->span.cnt == 0)
		return 0;
	struct iovec first = a->span.iov[0];
	if (first.iov_len > PIPE_BUF)
		first.iov_len = PIPE_BUF;
	return rp_raw_syscall(SYS_writev, a->fd, (long)&first, 1, 0, 0, 0);
}

/* Pipes the program made (pipe, pipe2), known by inode (dup, dup2 and close leave it
 * alone), with the number of forks before: while no child has been forked since, both
 * ends are the program's own. The last 64 made; an older one is taken for a pipe from
 * outside (counted: a record per short transfer, no more). */
#define MADE_KEPT 64
static struct made_pipe {
	unsigned long ino;
	unsigned forks;
} made[MADE_KEPT];
static unsigned made_next;

static struct made_pipe *made_find(unsigned long ino)
{
	for (unsigned k = 0; k < MADE_KEPT && k < made_next; k++)
		if (made[k].ino == ino)
			return &made[k];
	return NULL;
}

/* A checkpoint under gdb moved the live process's pipe to a new one (debug.c): the
 * same pipe to the program, so the same answer (a pipe counted after a checkpoint
 * but not when recorded waited in the kernel for bytes its writer, never run, would
 * write: a replay hung under tests/gdb/reverse.sh). */
static void pipe_moved(unsigned long from, unsigned long to)
{
	struct made_pipe *m = made_find(from);
	if (m)
		m->ino = to;
}

static void pipe_made(int fd)
{
	unsigned long ino;
	if (io_fd_kind_ino(fd, &ino) != IO_FD_STREAM)
		return;
	rp_debug_pipe_moved = pipe_moved;
	made[made_next % MADE_KEPT] = (struct made_pipe){ino, pt_forks};
	made_next++;
}

static bool made_here(unsigned long ino)
{
	const struct made_pipe *m = made_find(ino);
	return m && m->forks == pt_forks;
}

int pipe2(int fds[2], int flags)
{
	long r = rp_raw_syscall(SYS_pipe2, (long)fds, flags, 0, 0, 0, 0);
	if (r == 0) {
		pipe_made(fds[0]);
		/* new descriptors are the program's own (a number the C library closed
		 * behind the wrappers, as pclose does, may still be marked the world's) */
		in_fd_closed(fds[0]);
		in_fd_closed(fds[1]);
	}
	return (int)io_ret(r);
}

int pipe(int fds[2])
{
	return pipe2(fds, 0);
}

/* A descriptor whose chunking is an input, while it is logged (io_park.c): a socket
 * whose chunking is the kernel's timing; a pipe to or from another process (outside:
 * popen's, io_stdio.c); and every pipe the program did not make itself, FIFO and
 * terminal: their other end may be another process (a shell's pipe on stdin, a FIFO's
 * writer, a user typing, a forked child), which cuts the bytes in pieces of its own
 * pace. Between green threads the pieces are the program's own: not counted. */
static int counted(enum io_fd_kind kind, int fd, unsigned long ino, bool outside)
{
	if (!rp_inputs_logged())
		return 0;
	if ((outside && kind != IO_FD_OTHER) || kind == IO_FD_CHAR ||
	    (kind == IO_FD_STREAM && !made_here(ino)))
		return IO_COUNTED;
	return kind == IO_FD_SOCKET && io_fd_chunked(fd) ? IO_COUNTED : 0;
}

/* The io layer's kind of a descriptor of the world: the kind it had when recorded
 * (in the replay it is a stand-in), so that both runs wait alike. */
static enum io_fd_kind world_io_kind(enum in_world_kind wk)
{
	static const enum io_fd_kind kinds[] = {[IN_W_FILE] = IO_FD_OTHER, [IN_W_STREAM] = IO_FD_STREAM,
						[IN_W_SOCKET] = IO_FD_SOCKET, [IN_W_CHAR] = IO_FD_CHAR};
	return kinds[wk];
}

struct plain {
	int fd;
	const struct iovec *iov;
	int cnt;
	bool writing;
};

static long plain_rw(void *arg)
{
	const struct plain *p = arg;
	return rp_raw_syscall(p->writing ? SYS_writev : SYS_readv, p->fd, (long)p->iov, p->cnt, 0, 0, 0);
}

static ssize_t rw_readv(int fd, const struct iovec *iov, int iovcnt, bool outside)
{
	struct rw a = {fd, {(struct iovec *)iov, iovcnt > 0 ? (unsigned long)iovcnt : 0}, IO_FD_OTHER};
	unsigned long ino = 0;
	enum in_world_kind wk = in_world_fd(fd) ? in_world_kind(fd) : IN_W_NONE;
	bool green = io_green();
	if (green) {
		pt_testcancel(pt_self());
		a.kind = wk ? world_io_kind(wk) : io_fd_kind_ino(fd, &ino);
	}
	if (wk && (a.kind == IO_FD_OTHER || iovcnt <= 0 || iovcnt > IOV_MAX)) {
		/* A file of the world, or a call outside a green thread: its result is the
		 * input, made whole (it may block the process, as before main). */
		struct plain p = {fd, iov, iovcnt, false};
		return io_ret(in_world_call(IN_WC_READ, fd, plain_rw, &p, iov,
					    iovcnt > 0 ? (unsigned long)iovcnt : 0, IN_OUT_RESULT));
	}
	if (a.kind == IO_FD_OTHER || iovcnt <= 0 || iovcnt > IOV_MAX)
		return io_ret(rp_raw_syscall(SYS_readv, fd, (long)iov, iovcnt, 0, 0, 0));
	struct pollfd p = {fd, POLLIN, 0};
	int how = wk ? IO_WORLD_READ | IO_WORLD_CALL(IN_WC_READ) : counted(a.kind, fd, ino, outside);
	return io_ret(io_call(&p, 1, NULL, IO_RESTART | how, fd, try_read, &a, &a.span));
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	return rw_readv(fd, iov, iovcnt, false);
}

ssize_t io_read_outside(int fd, void *buf, size_t count)
{
	struct iovec v = {buf, count};
	return rw_readv(fd, &v, 1, true);
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t r;
	if (in_fd_read(fd, buf, count, &r)) /* /dev/urandom: a recorded input */
		return r;
	struct iovec v = {buf, count};
	return readv(fd, &v, 1);
}

/* _FORTIFY_SOURCE's checked read: the same, after the buffer check glibc makes
 * (glibc's own would read without us). */
extern void __chk_fail(void) __attribute__((noreturn));

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	if (count > buflen)
		__chk_fail();
	return read(fd, buf, count);
}

/* Drop the first n bytes from iov[0..*cnt), in place. */
static struct iovec *advance(struct iovec *iov, unsigned long *cnt, size_t n)
{
	while (*cnt > 0 && n >= iov->iov_len) {
		n -= iov->iov_len;
		iov++;
		(*cnt)--;
	}
	if (*cnt > 0) {
		iov->iov_base = (char *)iov->iov_base + n;
		iov->iov_len -= n;
	}
	return iov;
}

static ssize_t rw_writev(int fd, const struct iovec *iov, int iovcnt, bool outside)
{
	enum io_fd_kind kind = IO_FD_OTHER;
	unsigned long ino = 0;
	enum in_world_kind wk = in_world_fd(fd) ? in_world_kind(fd) : IN_W_NONE;
	if (io_green()) {
		pt_testcancel(pt_self());
		kind = wk ? world_io_kind(wk) : io_fd_kind_ino(fd, &ino);
	}
	/* A terminal drains by itself: its writes may wait a little in the kernel. */
	if ((kind != IO_FD_STREAM && kind != IO_FD_SOCKET) || iovcnt <= 0 || iovcnt > IOV_MAX) {
		struct plain p = {fd, iov, iovcnt, true};
		if (wk) /* not made again in the replay, but on the standard outputs */
			return io_ret(in_world_write(IN_WC_WRITE, fd, plain_rw, &p));
		return io_ret(plain_rw(&p));
	}
	struct iovec left[iovcnt];
	size_t total = 0, done = 0;
	for (int k = 0; k < iovcnt; k++) {
		left[k] = iov[k];
		total += iov[k].iov_len;
	}
	struct rw a = {fd, {left, (unsigned long)iovcnt}, kind};
	struct pollfd p = {fd, POLLOUT, 0};
	int count = wk ? IO_WORLD | IO_WORLD_CALL(IN_WC_WRITE) : counted(kind, fd, ino, outside);
	bool echo = wk && in_world_echo(fd) && rp_replay_decides();
	for (;;) {
		/* Interrupted after some progress, the kernel returns the count so far,
		 * with or without SA_RESTART. */
		long r = io_call(&p, 1, NULL, (done ? 0 : IO_RESTART) | count, fd, try_write, &a,
				 &a.span);
		if (r < 0)
			return done ? (ssize_t)done : io_ret(r);
		if (echo && r > 0) {
			/* A replayed write to the standard output: shown, whatever it does. */
			struct iovec part[a.span.cnt ? a.span.cnt : 1];
			struct plain e = {fd, part, (int)io_span_cut(a.span.iov, a.span.cnt, 0, (size_t)r, part), true};
			plain_rw(&e);
		}
		done += (size_t)r;
		/* Done, or a descriptor opened non-blocking: one write's worth. */
		if (done >= total || io_fd_nonblocking(fd))
			return (ssize_t)done;
		a.span.iov = advance(a.span.iov, &a.span.cnt, (size_t)r);
	}
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	return rw_writev(fd, iov, iovcnt, false);
}

ssize_t io_write_outside(int fd, const void *buf, size_t count)
{
	struct iovec v = {(void *)buf, count};
	return rw_writev(fd, &v, 1, true);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	struct iovec v = {(void *)buf, count};
	return writev(fd, &v, 1);
}
