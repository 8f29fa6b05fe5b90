/* io.h: the io layer's interface (docs/io.md): blocking system calls that park only
 * their green thread. A call is first tried without blocking; if it would block, the
 * thread waits in the scheduler (sched_wait_event on a struct io_wait) while others
 * run, and when every thread waits the runtime polls their descriptors (io_ready.c).
 * Whether a try would block and when a park ends are inputs of the replay. The top
 * layer: it uses the pthread layer (cancellation points), the signals layer (EINTR,
 * SA_RESTART), the recorded inputs (reads of the random devices) and the engine. */
#ifndef IO_IO_H
#define IO_IO_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include "inputs/inputs.h"
#include "pthread/pt_impl.h"
#include "signals/signals.h"

/* What a thread blocked on descriptors waits for (sched_wait_event's obj): any of
 * fds ready. It lives on the waiting thread's stack. */
struct io_wait {
	struct pollfd *fds;
	unsigned long nfds;
};

/* ---- io_park.c ------------------------------------------------------------------------ */

/* Is the caller a running green thread (not the host before or after the run, not
 * the scheduler idling)? Only then may a call park; otherwise it goes to the kernel. */
bool io_green(void) PT_HIDDEN;
/* A raw system call's result as the C library returns it: -1 with errno, or r. */
long io_ret(long r) PT_HIDDEN;
/* What a descriptor is: calls on IO_FD_OTHER (regular files, directories, block
 * devices, bad descriptors) go straight to the kernel. */
enum io_fd_kind { IO_FD_OTHER, IO_FD_STREAM /* pipe, FIFO */, IO_FD_SOCKET, IO_FD_CHAR };
enum io_fd_kind io_fd_kind(int fd) PT_HIDDEN;
/* The same, and the descriptor's inode (a pipe's names the pipe, whichever end). */
enum io_fd_kind io_fd_kind_ino(int fd, unsigned long *ino) PT_HIDDEN;
bool io_fd_nonblocking(int fd) PT_HIDDEN;
/* Does a socket split its bytes by time: a stream socket of any domain but AF_UNIX
 * (TCP, even on loopback: segments, acknowledgements and buffer sizes are the
 * kernel's asynchronous work)? Then how much each try transfers is an input (IO_COUNTED
 * below); false for pipes, AF_UNIX sockets, datagrams and non-sockets. */
bool io_fd_chunked(int fd) PT_HIDDEN;
/* The buffers a transferring try reads or fills: the try takes them from here, so that
 * a replay can narrow them (io_call's IO_COUNTED). */
struct io_span {
	struct iovec *iov;
	unsigned long cnt;
};
/* The core of every blocking call. try(arg) makes the call without blocking and
 * returns its result or -errno (-EAGAIN: it would block). Until it does something
 * else, the green thread parks waiting for any of fds (other threads run), unless
 * IO_DONTWAIT or nbfd (>= 0) is a descriptor opened O_NONBLOCK: then -EAGAIN is the
 * answer. deadline (CLOCK_MONOTONIC, or NULL): -ETIMEDOUT once it passes; with none,
 * nbfd's SO_RCVTIMEO/SO_SNDTIMEO (by fds[0]'s events) gives -EAGAIN when it passes. A
 * cancellation point: pthread_cancel ends the park. A signal sent to the thread whose
 * handler runs ends it with -EINTR, unless the call is IO_RESTART, has no socket
 * timeout and the handler has SA_RESTART: then it parks again (signal(7)). Whether a
 * try would block is recorded (RP_INPUT_IO_BLOCK) and replayed; so is the park's end
 * (io_ready.c). With IO_COUNTED (span: what try transfers), the result of a try that
 * did not transfer all of span is recorded too (RP_INPUT_IO_COUNT), and the replay
 * transfers exactly the recorded count (all of span when none is), waiting in the
 * kernel for the rest. */
#define IO_DONTWAIT 1 /* never park: -EAGAIN */
#define IO_RESTART  2 /* a call on a "slow" device, which SA_RESTART restarts */
#define IO_COUNTED  4 /* a transfer on TCP (io_fd_chunked), a pipe from outside, a FIFO, a terminal */
#define IO_PEEK     8 /* ... that leaves the bytes where they are (MSG_PEEK) */
/* A try on the world (inputs/in_world.c): its result is logged, and replayed without
 * making it, with IO_WORLD_CALL naming the call and fds[0] the descriptor; with
 * IO_WORLD_READ the first bytes of span it returned (a read) or with IO_WORLD_ALL all
 * of span (poll's array) are its output, logged with it. */
#define IO_WORLD      16
#define IO_WORLD_READ 32
#define IO_WORLD_ALL  64
#define IO_WORLD_CALL(call) ((call) << 8)
long io_call(struct pollfd *fds, unsigned long nfds, const struct timespec *deadline,
		int flags, int nbfd, long (*try)(void *), void *arg, struct io_span *span) PT_HIDDEN;
/* Bytes [from, to) of iov[0..cnt) as an iovec of their own, in out: its length. */
unsigned long io_span_cut(const struct iovec *iov, unsigned long cnt, size_t from, size_t to,
			  struct iovec *out) PT_HIDDEN;
/* io_rw.c: read and write on a pipe to or from another process, whose pace is its own
 * (popen's child): as read and write, and how much each try moves is an input, as on
 * TCP (IO_COUNTED), so a replay reads the bytes in the recording's pieces. */
ssize_t io_read_outside(int fd, void *buf, size_t count) PT_HIDDEN;
ssize_t io_write_outside(int fd, const void *buf, size_t count) PT_HIDDEN;
/* io_poll.c: poll's core (select uses it): rel NULL waits for ever. left, if not
 * NULL (with rel), gets the time left of rel when it returns (select's timeout). */
int io_poll(struct pollfd *fds, unsigned long nfds, const struct timespec *rel,
	    struct timespec *left) PT_HIDDEN;
/* io_futex.c: the futex system call between green threads: result or -errno. */
long io_futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
	      uint32_t *uaddr2, uint32_t val3) PT_HIDDEN;

/* ---- io_ready.c, io_stdio.c --------------------------------------------------------------- */

/* The scheduler hooks for threads waiting on descriptors (struct io_wait); main.c
 * installs them. */
bool io_event_ready(struct sched_thread *t, const void *obj);
void io_idle(uint64_t deadline_ns, clockid_t clk);
/* io_stdio.c: stdin becomes a stream whose reads park (main.c, before constructors). */
void io_stdio_start(void);

#endif
