/* in_fill.c: recording and replaying calls that fill a buffer (getrandom,
 * arc4random_buf, reads of the random devices). */
#include "inputs/inputs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct chunk {
	int32_t call, err;
	int64_t ret;
};

pid_t in_real_pid(void)
{
	return (pid_t)rp_syscall(SYS_getpid);
}

static const char *call_name(int call)
{
	static const char *const names[] = {"?", "getrandom", "getentropy", "arc4random_buf",
					    "a read of a random device"};
	return call > 0 && call <= IN_CALL_RANDOM_READ ? names[call] : names[0];
}

ssize_t in_fill(enum in_chunk_call call, ssize_t (*get)(void *ctx, void *buf, size_t n),
		      void *ctx, void *buf, size_t n, bool whole)
{
	size_t done = 0;
	for (;;) {
		size_t want = n - done < RP_LOG_INPUT_MAX ? n - done : RP_LOG_INPUT_MAX;
		uint8_t *at = (uint8_t *)buf + done;
		struct chunk c;
		memset(&c, 0, sizeof c);
		bool replayed = rp_input_replay(RP_INPUT_CHUNK, &c, sizeof c);
		if (replayed) {
			if (c.call != (int32_t)call || c.ret > (int64_t)want)
				rp_diverge("thread %d: %s of %zu bytes, where the recording made %s "
						  "giving %lld", rp_cur->tid, call_name(call), want,
						  call_name(c.call), (long long)c.ret);
			/* The bytes follow their CHUNK: a mismatch there is caught by kind. A
			 * log that ends between the two (cut by a file size limit) ends
			 * before this call: it is made now, as past the end of a log (the
			 * buffer held another read's bytes, which the program was given). */
			if (c.ret > 0 && !rp_input_replay(RP_INPUT_BYTES, at, (size_t)c.ret))
				replayed = false;
		}
		if (!replayed) {
			c.call = (int32_t)call;
			c.ret = get(ctx, at, want);
			c.err = c.ret < 0 ? errno : 0;
			rp_input_record(RP_INPUT_CHUNK, &c, sizeof c);
			if (c.ret > 0)
				rp_input_record(RP_INPUT_BYTES, at, (size_t)c.ret);
		}
		if (c.ret < 0) {
			if (done)
				return (ssize_t)done;
			errno = c.err;
			return -1;
		}
		done += (size_t)c.ret;
		if (!whole || done == n || c.ret == 0 || (size_t)c.ret < want)
			return (ssize_t)done;
	}
}
