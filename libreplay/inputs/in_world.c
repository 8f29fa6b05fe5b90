/* in_world.c: the world outside the process, as the replay sees it (docs/inputs.md).
 *
 * A call on the world (a file, a directory, a path, a socket, a pipe or terminal
 * whose other end is another process) is an input: while recording it is made and
 * its result is logged with the bytes it gave (a WORLD record, then BYTES records);
 * the replay takes both from the log and does not make the call. So a replay reads
 * what the recording read even where the files changed, went or never were, and
 * changes nothing: no write to a file, no unlink, no connection. Only writes to the
 * standard output and error the program was started with are made again (echo), so
 * the user sees the program's output, as rr does.
 *
 * Descriptors. Which descriptors are the world is kept here, with the kind each had
 * when recorded (a file, a pipe, a socket, a terminal: the io layer chooses how to
 * wait by kind, and must choose alike in the replay). In the replay a descriptor
 * the program opened on the world is a stand-in with the recorded number: /dev/null,
 * one end of a pipe of its own, or a socket, so that the kernel still allocates the
 * numbers the recording got, poll and epoll accept it, and fcntl's flags hold.
 * Descriptors the program made itself (pipe, socketpair) stay its own while no child
 * has been forked: between green threads the replay makes the same bytes itself.
 *
 * Only the program's calls are the world's: the runtime's own go straight to the
 * kernel (rp_raw_syscall), and a forked child runs unrecorded. */
#include "inputs/inputs.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* The table: for descriptors below IN_WORLD_FDS, 0 (not the world) or the kind the
 * descriptor had when recorded (enum in_world_kind), with IN_WORLD_ECHO. */
#define IN_WORLD_FDS 65536
static uint8_t world[IN_WORLD_FDS];
/* LIBREPLAY_BENCH_NO_WORLD=1, a measuring aid (bench/world.sh): record and replay as
 * before recordings were self-contained, the world's calls made for real in both runs. */
static bool no_world;

__attribute__((constructor)) static void watch_checkpoints(void)
{
	rp_debug_fd_logged = in_world_fd;
}

bool in_world_on(void)
{
	return !no_world && rp_inputs_kept(); /* (a fork child has no log: not kept) */
}

enum in_world_kind in_world_kind(int fd)
{
	return fd >= 0 && fd < IN_WORLD_FDS ? (enum in_world_kind)(world[fd] & 0x0f) : IN_W_NONE;
}

bool in_world_fd(int fd)
{
	return in_world_kind(fd) != IN_W_NONE && in_world_on();
}

bool in_world_echo(int fd)
{
	return fd >= 0 && fd < IN_WORLD_FDS && (world[fd] & IN_WORLD_ECHO);
}

void in_world_set(int fd, enum in_world_kind kind, bool echo)
{
	if (fd >= 0 && fd < IN_WORLD_FDS)
		world[fd] = (uint8_t)(kind | (echo && kind ? IN_WORLD_ECHO : 0));
}

void in_world_copied(int from, int to)
{
	if (to >= 0 && to < IN_WORLD_FDS)
		world[to] = from >= 0 && from < IN_WORLD_FDS ? world[from] : 0;
}

enum in_world_kind in_world_kind_of(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return IN_W_STREAM;
	case S_IFSOCK: return IN_W_SOCKET;
	case S_IFCHR: return IN_W_CHAR;
	default: return IN_W_FILE;
	}
}

void in_world_forked(void)
{
	/* The child may hold the other end of any pipe or socket the program made: from
	 * now on their bytes may be another process's. */
	for (int fd = 0; fd < IN_WORLD_FDS; fd++) {
		if (world[fd] || rp_fd_owned(fd))
			continue;
		struct stat st;
		if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0) {
			if (fd > 1024)
				break; /* the program's descriptors are low; a gap this far is the end */
			continue;
		}
		enum in_world_kind k = in_world_kind_of(st.st_mode);
		if (k == IN_W_STREAM || k == IN_W_SOCKET)
			world[fd] = (uint8_t)k;
	}
}

/* ---- the log ----------------------------------------------------------------------- */

struct w_head {
	int32_t call, fd;
	int64_t ret;
	uint64_t nbytes;
};

static const char *const call_names[] = {
#define NAME(name, num, text) [num] = text,
	IN_WORLD_CALLS(NAME)
#undef NAME
};

const char *in_world_call_name(enum in_world_call call)
{
	if (call > 0 && call < sizeof call_names / sizeof call_names[0] && call_names[call])
		return call_names[call];
	return "?";
}

static size_t iov_total(const struct iovec *out, unsigned long nout)
{
	size_t n = 0;
	for (unsigned long k = 0; k < nout; k++)
		n += out[k].iov_len;
	return n;
}

/* The bytes a call gave: the first n of out, logged or taken from the log in pieces
 * cut where a buffer ends and every RP_LOG_INPUT_MAX bytes (the same in both runs:
 * the program passes the same buffers). False where the log ends before the last
 * piece (a replay of a log cut between a call's result and its bytes). */
static bool bytes(const struct iovec *out, unsigned long nout, uint64_t n, bool replay)
{
	for (unsigned long k = 0; k < nout && n; k++) {
		size_t len = out[k].iov_len < n ? out[k].iov_len : (size_t)n;
		for (size_t at = 0; at < len; at += RP_LOG_INPUT_MAX) {
			size_t piece = len - at < RP_LOG_INPUT_MAX ? len - at : RP_LOG_INPUT_MAX;
			char *p = (char *)out[k].iov_base + at;
			if (!replay)
				rp_input_record(RP_INPUT_BYTES, p, piece);
			else if (!rp_input_replay(RP_INPUT_BYTES, p, piece))
				return false;
		}
		n -= len;
	}
	return true;
}

static uint64_t out_len(long r, const struct iovec *out, unsigned long nout, enum in_world_out mode)
{
	if (mode == IN_OUT_STRING && nout) {
		size_t len = strnlen(out[0].iov_base, out[0].iov_len);
		return len < out[0].iov_len ? len + 1 : len; /* with its NUL */
	}
	if (r < 0 || mode == IN_OUT_NONE)
		return 0;
	size_t all = iov_total(out, nout);
	if (mode == IN_OUT_WHOLE)
		return all;
	return (uint64_t)r < all ? (uint64_t)r : all;
}

bool in_world_replayed(enum in_world_call call, int fd, const struct iovec *out,
		       unsigned long nout, long *ret)
{
	struct w_head h;
	if (!rp_input_replay(RP_INPUT_WORLD, &h, sizeof h))
		return false;
	if (h.call != (int32_t)call || h.fd != fd)
		rp_diverge("thread %d called %s on descriptor %d, where the recording called %s on %d",
			   rp_cur->tid, in_world_call_name(call), fd,
			   in_world_call_name((enum in_world_call)h.call), h.fd);
	if (h.nbytes > iov_total(out, nout))
		rp_diverge("thread %d: %s on descriptor %d was given %llu bytes when recorded, "
			   "more than its %zu bytes of buffer here", rp_cur->tid,
			   in_world_call_name(call), fd, (unsigned long long)h.nbytes,
			   iov_total(out, nout));
	/* A log cut between the result and its bytes ends before this call: the caller
	 * makes it, as past the end of a log, rather than give the program a result whose
	 * bytes are another call's, left in its buffer. */
	if (!bytes(out, nout, h.nbytes, true))
		return false;
	*ret = (long)h.ret;
	return true;
}

/* The real call, under --syscall-audit's ALLOW: what the C library does inside a
 * call whose result the world records (glibc's mkstemp under ours) is recorded. */
static long real_call(long (*real)(void *), void *ctx)
{
	char audit = rp_audit_hold();
	long r = real(ctx);
	rp_audit_release(audit);
	return r;
}

void in_world_record(enum in_world_call call, int fd, long r, const struct iovec *out,
		     unsigned long nout, enum in_world_out mode)
{
	struct w_head h = {(int32_t)call, fd, r, out_len(r, out, nout, mode)};
	rp_input_record(RP_INPUT_WORLD, &h, sizeof h);
	bytes(out, nout, h.nbytes, false);
}

long in_world_write(enum in_world_call call, int fd, long (*real)(void *), void *ctx)
{
	long r;
	if (in_world_replayed(call, fd, NULL, 0, &r)) {
		if (in_world_echo(fd))
			real(ctx);
		return r;
	}
	r = real_call(real, ctx);
	in_world_record(call, fd, r, NULL, 0, IN_OUT_NONE);
	return r;
}

long in_world_call(enum in_world_call call, int fd, long (*real)(void *ctx), void *ctx,
		   const struct iovec *out, unsigned long nout, enum in_world_out mode)
{
	if (!in_world_on())
		return real(ctx);
	long r;
	if (in_world_replayed(call, fd, out, nout, &r))
		return r;
	r = real_call(real, ctx);
	in_world_record(call, fd, r, out, nout, mode);
	return r;
}

/* ---- helpers of the wrappers ------------------------------------------------------------ */

long in_ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

void *in_libc(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p)
		rp_fatal("cannot find the C library's %s", name);
	return p;
}

long in_keep_name(char *buf, char *p)
{
	buf[0] = '\0';
	if (!p)
		return -errno;
	size_t n = strlen(p);
	if (n >= PATH_MAX) {
		free(p);
		return -ENAMETOOLONG;
	}
	memcpy(buf, p, n + 1);
	free(p);
	return 0;
}

/* ---- stand-ins ----------------------------------------------------------------------- */

int in_world_standin(int want, enum in_world_kind kind, int oflags)
{
	int cloexec = oflags & O_CLOEXEC;
	long fd;
	if (kind == IN_W_SOCKET) {
		fd = rp_raw_syscall(SYS_socket, AF_UNIX, SOCK_STREAM | (oflags & O_NONBLOCK ? SOCK_NONBLOCK : 0) |
				    (cloexec ? SOCK_CLOEXEC : 0), 0, 0, 0, 0);
	} else if (kind == IN_W_STREAM) {
		int p[2];
		fd = rp_raw_syscall(SYS_pipe2, (long)p, (oflags & O_NONBLOCK) | cloexec, 0, 0, 0, 0);
		if (fd == 0) {
			bool writes = (oflags & O_ACCMODE) == O_WRONLY;
			rp_raw_syscall(SYS_close, p[writes ? 0 : 1], 0, 0, 0, 0, 0);
			fd = p[writes ? 1 : 0];
		}
	} else {
		fd = rp_raw_syscall(SYS_openat, AT_FDCWD, (long)"/dev/null",
				    O_RDWR | (oflags & (O_NONBLOCK | O_APPEND | O_CLOEXEC)), 0, 0, 0);
	}
	if (fd < 0)
		rp_diverge("thread %d: no stand-in for descriptor %d of the recording (%s)",
			   rp_cur->tid, want, strerror((int)-fd));
	if (fd != want && want >= 0) {
		/* The kernel numbered it otherwise (the replay started with other
		 * descriptors open): move it where the recording had it, if that is free. */
		if (rp_raw_syscall(SYS_fcntl, want, F_GETFD, 0, 0, 0, 0) >= 0)
			rp_diverge("thread %d: descriptor %d, which the recording opened, is "
				   "already open in the replay", rp_cur->tid, want);
		rp_raw_syscall(SYS_dup3, fd, want, cloexec, 0, 0, 0);
		rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = want;
	}
	in_world_set((int)fd, kind, false);
	return (int)fd;
}

/* ---- the descriptors the program started with ---------------------------------------- */

#define INHERITED_MAX 64

void in_world_start(void)
{
	const char *off = getenv("LIBREPLAY_BENCH_NO_WORLD");
	no_world = off && *off == '1';
	if (!in_world_on())
		return;
	/* Recording: which of the first descriptors are open, and what each is. */
	uint8_t kinds[INHERITED_MAX];
	memset(kinds, 0, sizeof kinds);
	struct iovec out = {kinds, sizeof kinds};
	long r;
	bool replay = in_world_replayed(IN_WC_INHERITED, 0, &out, 1, &r);
	for (int fd = 0; fd < INHERITED_MAX && !replay; fd++) {
		struct stat st;
		if (!rp_fd_owned(fd) && rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0)
			kinds[fd] = (uint8_t)in_world_kind_of(st.st_mode);
	}
	if (!replay)
		in_world_record(IN_WC_INHERITED, 0, 0, &out, 1, IN_OUT_WHOLE);
	for (int fd = 0; fd < INHERITED_MAX; fd++) {
		if (!kinds[fd])
			continue;
		/* Replaying, a descriptor the recording had and this run has not gets a
		 * stand-in: the program may read it, poll it, close it. */
		if (replay && rp_raw_syscall(SYS_fcntl, fd, F_GETFD, 0, 0, 0, 0) < 0)
			in_world_standin(fd, (enum in_world_kind)kinds[fd], O_RDWR);
		in_world_set(fd, (enum in_world_kind)kinds[fd], fd == 1 || fd == 2);
	}
}
