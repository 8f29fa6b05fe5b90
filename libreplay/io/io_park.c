/* io_park.c: how a blocking system call blocks only its green thread.
 *
 * The call is first made without blocking (RWF_NOWAIT, MSG_DONTWAIT, or a zero-timeout
 * poll before a call that then cannot block); the user's file status flags are never
 * changed. If it would block on a descriptor opened blocking, the thread parks in the
 * scheduler (sched_wait_event) waiting for the descriptor; other threads run, and when
 * all wait the runtime polls the union of their descriptors (io_ready.c).
 *
 * Determinism. Both time-dependent answers are inputs of the replay:
 *   - "this try would block": logged as RP_INPUT_IO_BLOCK holding the thread's try
 *     number (io_seq); replaying, a logged block parks the thread without trying, and
 *     an unlogged one makes the call, waiting in the kernel if its data (which came
 *     from outside the process) is not there yet;
 *   - "the parked thread's descriptor is ready now": io_ready.c;
 *   - on a socket whose chunking is the kernel's timing (io_fd_chunked: TCP) or
 *     another process's (an AF_UNIX stream to another process), and on pipes from
 *     outside, FIFOs and terminals (io_rw.c), how many
 *     bytes a try moved, when not all it was given (or its error, or EAGAIN returned
 *     to a non-blocking caller): RP_INPUT_IO_COUNT, keyed by the try number like a
 *     block; replaying, the try moves exactly that count (all it was given when none
 *     is logged), waiting in the kernel for the rest.
 * Data passed between green threads is produced by the replayed program itself, so
 * the real calls return the same bytes (on TCP, given the same counts); data from
 * outside must be the same again (docs/io.md).
 *
 * Signals. A signal sent to a parked thread ends the park when the sender runs
 * (sig_deliver.c: a deterministic point); after its handler the call fails with
 * EINTR or, for a call on a "slow" device (IO_RESTART) without a socket timeout
 * whose handler has SA_RESTART, tries again, as signal(7) says. Nothing but the
 * program's own sigaction table decides. */
#include "io/io.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "engine/session.h"

/* The process the program started as: a checkpoint gdb restores is a fork of it
 * (engine/schedule/debug.c) that runs on with the sockets it made. */
static pid_t first_pid;

__attribute__((constructor)) static void note_pid(void)
{
	first_pid = (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/* A child of fork() runs unrecorded and without time slice (pt_fork.c): its calls go
 * to the kernel, as an uninstrumented program's would. */
bool io_green(void)
{
	return !pt_forked && sched_thread_id(sched_current()) != 0 && !pt_in_scheduler();
}

long io_ret(long r)
{
	return in_ret(r);
}

enum io_fd_kind io_fd_kind(int fd)
{
	return io_fd_kind_ino(fd, NULL);
}

enum io_fd_kind io_fd_kind_ino(int fd, unsigned long *ino)
{
	struct stat st;
	if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0)
		return IO_FD_OTHER;
	if (ino)
		*ino = st.st_ino;
	if (S_ISSOCK(st.st_mode))
		return IO_FD_SOCKET;
	if (S_ISFIFO(st.st_mode))
		return IO_FD_STREAM;
	return S_ISCHR(st.st_mode) ? IO_FD_CHAR : IO_FD_OTHER;
}

static int sockopt(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof v;
	if (rp_raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, opt, (long)&v, (long)&len, 0) != 0)
		return -1;
	return v;
}

/* Is the other end of the AF_UNIX socket fd (maybe) another process's? Its peer's
 * credentials name the process that connected it, or that made the socketpair: a
 * pid not ours is another process (a server, a client, a parent that gave us one
 * end). Once the program has forked, a socketpair made before may have its other end
 * in the child: every one then is (pipes the same, io_rw.c). */
static bool unix_outside(int fd)
{
	struct ucred peer;
	socklen_t len = sizeof peer;
	if (rp_raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, (long)&peer, (long)&len, 0) != 0 ||
	    peer.pid <= 0)
		return false; /* not connected */
	if (pt_forks)
		return true;
	return peer.pid != first_pid && peer.pid != (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

bool io_fd_chunked(int fd)
{
	/* The domain first: AF_UNIX stream sockets between green threads, the common
	 * case, are answered with two getsockopt calls. */
	int domain = sockopt(fd, SO_DOMAIN);
	if (domain < 0 || (domain == AF_UNIX && !unix_outside(fd)))
		return false;
	return sockopt(fd, SO_TYPE) == SOCK_STREAM;
}

bool io_fd_nonblocking(int fd)
{
	long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* Park until any of fds is ready (0), deadline passes (ETIMEDOUT), pthread_cancel or
 * a signal. A signal whose handler ran: EINTR, or 0 (try again) if restart and the
 * handler has SA_RESTART; one that ran no handler (a stop): 0, as the kernel restarts. */
static int park(struct pt_thread *self, struct pollfd *fds, unsigned long nfds,
		const struct timespec *deadline, bool restart)
{
	struct io_wait w = {fds, nfds};
	pt_wait_begin(self, PT_WAIT_IO);
	int err = sched_wait_event(&w, deadline, CLOCK_MONOTONIC);
	enum pt_handled h = pt_wait_end(self, err == PT_EINTERRUPTED);
	if (err == ETIMEDOUT)
		return ETIMEDOUT;
	/* A handler that ran after a wake for readiness was for a signal that came
	 * once the call could go on: the call goes on. */
	if (err == PT_ESIGNALED &&
	    (h == PT_HANDLED_NORESTART || (h == PT_HANDLED_RESTART && !restart)))
		return EINTR;
	return 0;
}

/* Replaying a call that did not block when recorded, whose data has not come yet: it
 * comes from outside the process, so wait for it in the kernel. Say so once if that
 * takes long (a replay that diverged could wait here for ever). */
static void kernel_wait(struct pollfd *fds, unsigned long nfds)
{
	static bool told;
	if (nfds == 0) { /* nothing to poll (a wait for any child): ask again soon */
		struct timespec ms = {0, 1000000};
		rp_raw_syscall(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
		return;
	}
	struct timespec ten = {10, 0};
	while (rp_raw_syscall(SYS_ppoll, (long)fds, (long)nfds, (long)&ten, 0, 8, 0) == 0 && !told) {
		told = true;
		rp_say("replay: thread %d has waited 10 s for descriptor %d, "
				"ready when recorded (its data comes from outside the process)",
			sched_thread_id(sched_current()), fds[0].fd);
	}
}

/* A socket's SO_RCVTIMEO (waiting for POLLIN) or SO_SNDTIMEO: false if none (or not
 * a socket), else the deadline it sets from now, on the recorded clock. */
static bool socket_timeout(int fd, short events, struct timespec *dl)
{
	struct timeval tv = {0, 0};
	socklen_t len = sizeof tv;
	int opt = events & POLLOUT ? SO_SNDTIMEO : SO_RCVTIMEO;
	if (rp_raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, opt, (long)&tv, (long)&len, 0) != 0 ||
	    (tv.tv_sec == 0 && tv.tv_usec == 0))
		return false;
	pt_deadline_in(tv.tv_sec, tv.tv_usec * 1000, dl);
	return true;
}

/* ---- transfers whose chunking is an input (IO_COUNTED) -------------------------------- */

struct io_count {
	uint64_t seq; /* the try (pt_thread.io_seq) */
	int64_t r;    /* what it returned: a count short of the span, 0, or -errno */
};

static size_t span_bytes(const struct iovec *iov, unsigned long cnt)
{
	size_t n = 0;
	for (unsigned long k = 0; k < cnt; k++)
		n += iov[k].iov_len;
	return n;
}

unsigned long io_span_cut(const struct iovec *iov, unsigned long cnt, size_t from, size_t to,
			      struct iovec *out)
{
	unsigned long n = 0;
	size_t at = 0;
	for (unsigned long k = 0; k < cnt && at < to; k++) {
		size_t lo = from > at ? from - at : 0, end = at + iov[k].iov_len;
		size_t hi = (end < to ? end : to) - at;
		if (lo < hi)
			out[n++] = (struct iovec){(char *)iov[k].iov_base + lo, hi - lo};
		at = end;
	}
	return n;
}

/* Recording: a try that transferred less than all of span (or failed, or found the
 * end) is logged; one that transferred all of it, the usual case, is not. */
static void counted_record(uint64_t seq, long r, const struct io_span *span)
{
	if (r >= 0 && (size_t)r == span_bytes(span->iov, span->cnt))
		return;
	struct io_count c = {seq, r};
	rp_input_record(RP_INPUT_IO_COUNT, &c, sizeof c);
}

/* Replaying try seq on a descriptor that io_fd_chunked: transfer exactly what it did
 * when recorded. Its bytes (or its room) were there then, and the replayed program has
 * sent and read the same bytes by now, so what is missing is on its way: narrow span
 * to the count, and wait in the kernel for each part until all of it has gone. A
 * peek (the bytes stay) waits until it sees them all at once. */
static long counted_replay(uint64_t seq, struct pollfd *fds, unsigned long nfds, bool peek,
			   long (*try)(void *), void *arg, struct io_span *span)
{
	struct iovec *iov = span->iov;
	unsigned long cnt = span->cnt;
	int64_t want;
	if (!rp_input_replay_try(RP_INPUT_IO_COUNT, seq, "moved part of its bytes", &want,
				 sizeof want))
		want = (int64_t)span_bytes(iov, cnt);
	else if (want == -EAGAIN) /* a non-blocking call's answer: nothing moved */
		return -EAGAIN;
	else if (want <= 0) {
		/* The end of the stream, or an error: make the call, as recorded. */
		while (try(arg) == -EAGAIN)
			kernel_wait(fds, nfds);
		return (long)want;
	}
	struct iovec part[cnt ? cnt : 1];
	size_t done = 0;
	long r = 0;
	while (done < (size_t)want) {
		span->cnt = io_span_cut(iov, cnt, peek ? 0 : done, (size_t)want, part);
		span->iov = part;
		r = try(arg);
		span->iov = iov;
		span->cnt = cnt;
		if (r == -EAGAIN) {
			kernel_wait(fds, nfds);
			continue;
		}
		if (r <= 0)
			break;
		if (!peek)
			done += (size_t)r;
		else if ((size_t)r == (size_t)want)
			done = (size_t)r;
		else { /* readable already, but not all there: look again soon */
			struct timespec ms = {0, 1000000};
			rp_raw_syscall(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
		}
	}
	return done ? (long)done : r;
}

/* ---- tries on the world (IO_WORLD) ----------------------------------------------------- */

static unsigned long world_out(int flags, const struct io_span *span, const struct iovec **out)
{
	if (!span || !(flags & (IO_WORLD_READ | IO_WORLD_ALL))) {
		*out = NULL;
		return 0;
	}
	*out = span->iov;
	return span->cnt;
}

static bool world_replayed(int flags, const struct pollfd *fds, unsigned long nfds,
			   const struct io_span *span, long *r)
{
	const struct iovec *out;
	unsigned long nout = world_out(flags, span, &out);
	return in_world_replayed((enum in_world_call)(flags >> 8), nfds ? fds[0].fd : -1, out, nout, r);
}

static void world_record(int flags, const struct pollfd *fds, unsigned long nfds,
			 const struct io_span *span, long r)
{
	const struct iovec *out;
	unsigned long nout = world_out(flags, span, &out);
	in_world_record((enum in_world_call)(flags >> 8), nfds ? fds[0].fd : -1, r, out, nout,
			flags & IO_WORLD_ALL ? IN_OUT_WHOLE : flags & IO_WORLD_READ ? IN_OUT_RESULT
						: IN_OUT_NONE);
}

long io_call(struct pollfd *fds, unsigned long nfds, const struct timespec *deadline,
		int flags, int nbfd, long (*try)(void *), void *arg, struct io_span *span)
{
	bool world = flags & (IO_WORLD | IO_WORLD_READ | IO_WORLD_ALL);
	bool counted = (flags & IO_COUNTED) && span && !world;
	bool dontwait = flags & IO_DONTWAIT;
	struct pt_thread *self = pt_self();
	/* A socket's own timeout starts at the first park: the replay parks at the same
	 * points (a logged block), so it reads the recorded clock at the same moment. */
	bool asked = deadline || nbfd < 0, sock_timeout = false;
	struct timespec sockdl;
	for (;;) {
		uint64_t seq = ++self->io_seq;
		bool block = rp_input_replay_try(RP_INPUT_IO_BLOCK, seq, "parked in a blocking call",
						 NULL, 0);
		if (!block && world) {
			long r;
			if (world_replayed(flags, fds, nfds, span, &r))
				return r;
			r = try(arg);
			if (r != -EAGAIN || dontwait || (nbfd >= 0 && io_fd_nonblocking(nbfd))) {
				world_record(flags, fds, nfds, span, r);
				return r;
			}
			rp_input_record(RP_INPUT_IO_BLOCK, &seq, sizeof seq);
		} else if (!block) {
			if (counted && rp_replay_decides())
				return counted_replay(seq, fds, nfds, flags & IO_PEEK, try, arg, span);
			long r = try(arg);
			if (r != -EAGAIN || dontwait || (nbfd >= 0 && io_fd_nonblocking(nbfd))) {
				if (counted)
					counted_record(seq, r, span);
				return r;
			}
			if (rp_replay_decides()) {
				/* Not blocked when recorded: the same try number, until it goes
				 * through. */
				do {
					kernel_wait(fds, nfds);
					r = try(arg);
				} while (r == -EAGAIN);
				return r;
			}
			rp_input_record(RP_INPUT_IO_BLOCK, &seq, sizeof seq);
		}
		if (!asked) {
			asked = true;
			if ((sock_timeout = socket_timeout(nbfd, fds[0].events, &sockdl)))
				deadline = &sockdl;
		}
		/* The kernel's answer to a socket timeout is EAGAIN; a socket call with a
		 * timeout is never restarted. */
		int err = park(self, fds, nfds, deadline, (flags & IO_RESTART) && !sock_timeout);
		if (err == EINTR)
			return -EINTR;
		if (err)
			return sock_timeout ? -EAGAIN : -ETIMEDOUT;
	}
}
