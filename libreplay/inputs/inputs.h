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

#include "engine/session.h"
#include "engine/engine.h"

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

#endif
