/* inputs/inputs.h: recorded inputs beyond the clock (docs/inputs.md): what a call
 * returned while recording is what it returns in the replay. Each wrapper asks
 * rp_input_replay for the logged value first; otherwise it makes the real call and
 * rp_input_record logs the result (nothing is logged outside a recording). */
#ifndef IN_INPUTS_H
#define IN_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "engine/session.h"
#include "engine/engine.h"
#include "inputs/in_world_calls.h"

/* Which call an RP_INPUT_CHUNK belongs to (checked in the replay). */
enum in_chunk_call {
	IN_CALL_GETRANDOM = 1,
	IN_CALL_GETENTROPY,
	IN_CALL_ARC4RANDOM_BUF,
	IN_CALL_RANDOM_READ, /* read() of /dev/random or /dev/urandom */
};

/* A call that fills buf with up to n bytes: recording, get(ctx, buf, n) is the real
 * call and its result is logged, as one CHUNK record (call, result, errno) and one
 * BYTES record with what it gave, in pieces of at most RP_LOG_INPUT_MAX bytes (all
 * of n if whole, else only the first piece, a short read); replaying, the log gives
 * the same. Returns the bytes given, or -1 with errno as the real call set it. */
ssize_t in_fill(enum in_chunk_call call, ssize_t (*get)(void *ctx, void *buf, size_t n),
		      void *ctx, void *buf, size_t n, bool whole);

/* The process's real id, by system call (never recorded): for kill() and signals. */
pid_t in_real_pid(void);
/* in_ids.c: the real id a recorded one (getpid, getppid, gettid) stands for. */
pid_t in_real_id(pid_t p);


/* in_random_dev.c: fd is /dev/random or /dev/urandom (opened through open, openat,
 * fopen, dup...): the read is recorded or replayed, its result in *ret (bytes, or -1
 * with errno), and true. Otherwise false: the caller reads. For read() wrappers. */
bool in_fd_read(int fd, void *buf, size_t n, ssize_t *ret);
/* The bookkeeping behind it, for other wrappers that make, copy or close descriptors
 * (fcntl F_DUPFD, accept...): fd was just made (returns fd; it is checked by fstat),
 * copied from another, or closed. */
int in_fd_opened(int fd);
void in_fd_copied(int from, int to);
void in_fd_closed(int fd);

/* ---- in_world.c: the world outside the process (docs/inputs.md) ---------------------- */

/* What a descriptor of the world was when recorded (the io layer waits by kind). */
enum in_world_kind { IN_W_NONE, IN_W_FILE /* file, directory, block device */, IN_W_STREAM /* pipe, FIFO */,
		     IN_W_SOCKET, IN_W_CHAR /* terminal, other character device */ };
#define IN_WORLD_ECHO 0x10 /* a standard output the program started with: the replay writes it too */

/* Which call a WORLD record is (checked in the replay, named in messages). */
enum in_world_call {
#define CALL(name, num, text) IN_WC_##name = num,
	IN_WORLD_CALLS(CALL)
#undef CALL
	/* the next free number follows the last in in_world_calls.h */
};
/* Which bytes of a call's buffers are its output, logged with its result. */
enum in_world_out { IN_OUT_NONE, IN_OUT_RESULT /* the first result bytes (a read) */,
		    IN_OUT_WHOLE /* all of them, when the call succeeds (a stat) */,
		    IN_OUT_STRING /* a string in out[0], up to its NUL, whether or not the call
				     succeeds (realpath's partial path, mkstemp's name) */ };

/* Are calls on the world logged or taken from the log now (recording or replaying,
 * before main too, not in a forked child)? */
bool in_world_on(void);
/* fd is a descriptor of the world (and in_world_on): its calls go through
 * in_world_call. Its recorded kind; whether the replay echoes its writes. */
bool in_world_fd(int fd);
enum in_world_kind in_world_kind(int fd);
bool in_world_echo(int fd);
enum in_world_kind in_world_kind_of(unsigned st_mode);
/* The table's bookkeeping: fd is (kind) or is not (IN_W_NONE) the world; to is a copy
 * of from (dup). */
void in_world_set(int fd, enum in_world_kind kind, bool echo);
void in_world_copied(int from, int to);
/* A child was forked or spawned: every pipe and socket open now may have its other
 * end there, so they become the world. */
void in_world_forked(void);
/* One call on the world. Recording, real(ctx) makes it (a raw result: >= 0, or
 * -errno) and its result and output (mode: which bytes of out) are logged; replaying,
 * both come from the log and real is not called (a different call or descriptor is a
 * divergence). Otherwise (--no-record, a forked child) just real(ctx). */
long in_world_call(enum in_world_call call, int fd, long (*real)(void *ctx), void *ctx,
		   const struct iovec *out, unsigned long nout, enum in_world_out mode);
/* Its two halves, for calls whose making is the io layer's (io_call's tries):
 * replaying, fill out from the log, *ret, and true; else false. Recording, log. */
bool in_world_replayed(enum in_world_call call, int fd, const struct iovec *out,
		       unsigned long nout, long *ret);
void in_world_record(enum in_world_call call, int fd, long r, const struct iovec *out,
		     unsigned long nout, enum in_world_out mode);
const char *in_world_call_name(enum in_world_call call);
/* Replaying: a descriptor numbered want standing in for one of kind the recording
 * opened (flags: the open flags that matter to fcntl, O_NONBLOCK, O_CLOEXEC...).
 * Marked as the world; returns want. */
int in_world_standin(int want, enum in_world_kind kind, int oflags);
/* in_files.c: open and openat of the program (path relative to dirfd), through the
 * world: recorded, replayed with a stand-in. */
int in_open(int dirfd, const char *path, int flags, mode_t mode);
/* A call that changes the world (a write, an unlink): made and logged while
 * recording; replaying, its recorded result, made again only on an echoed descriptor. */
long in_world_write(enum in_world_call call, int fd, long (*real)(void *), void *ctx);
/* in_temp.c: a descriptor for tmpfile (an unnamed file in /tmp), through the world:
 * recorded, replayed with a stand-in; -1 with errno. */
int in_tmpfile_fd(void);
/* A raw result as the C library returns it: -1 with errno, or r. */
long in_ret(long r);
/* The C library's own function name (dlsym RTLD_NEXT), for wrappers whose real call is
 * more than one system call; fatal where it is missing. */
void *in_libc(const char *name);
/* Keep the name a C library call returned in malloc'd memory (p, freed here; NULL:
 * the call failed with errno) in buf, PATH_MAX bytes: 0, or -errno ("" in buf). */
long in_keep_name(char *buf, char *p);
/* main.c, before constructors: the descriptors the program started with are the
 * world (logged which and what they were; the replay gives stand-ins for missing ones). */
void in_world_start(void);

#endif
