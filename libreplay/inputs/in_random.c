/* in_random.c: getrandom, getentropy and the arc4random family give the replay the
 * bytes they gave the recording, so a program seeding from them replays exactly. */
#include "inputs/inputs.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

static int (*real_getentropy)(void *, size_t);
static uint32_t (*real_arc4random)(void);
static void (*real_arc4random_buf)(void *, size_t);
static uint32_t (*real_arc4random_uniform)(uint32_t);

/* Before the program's constructors (as in_clock.c). */
__attribute__((constructor(103))) static void find_real(void)
{
	real_getentropy = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "getentropy");
	real_arc4random = (uint32_t(*)(void))dlsym(RTLD_NEXT, "arc4random");
	real_arc4random_buf = (void (*)(void *, size_t))dlsym(RTLD_NEXT, "arc4random_buf");
	real_arc4random_uniform = (uint32_t(*)(uint32_t))dlsym(RTLD_NEXT, "arc4random_uniform");
	if (!real_getentropy || !real_arc4random || !real_arc4random_buf || !real_arc4random_uniform)
		rp_fatal("cannot find the C library's random functions");
}

static ssize_t sys_getrandom(void *flags, void *buf, size_t n)
{
	return rp_syscall(SYS_getrandom, buf, n, (unsigned)(uintptr_t)flags);
}

/* Every byte asked for, in pieces the log can hold: a short result only where the
 * kernel gave one (a signal, GRND_NONBLOCK). */
ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	return in_fill(IN_CALL_GETRANDOM, sys_getrandom, (void *)(uintptr_t)flags, buf, n,
			     true);
}

static ssize_t do_getentropy(void *ctx, void *buf, size_t n)
{
	if (!real_getentropy)
		find_real();
	char held = rp_audit_hold(); /* the bytes are recorded: not an escape (audit.c) */
	int rc = real_getentropy(buf, n);
	rp_audit_release(held);
	return rc == 0 ? (ssize_t)n : -1;
}

int getentropy(void *buf, size_t n)
{
	if (n > 256) { /* its limit: fails before any input is read */
		errno = EIO;
		return -1;
	}
	return in_fill(IN_CALL_GETENTROPY, do_getentropy, NULL, buf, n, true) < 0 ? -1 : 0;
}

static ssize_t do_arc4random_buf(void *ctx, void *buf, size_t n)
{
	if (!real_arc4random_buf)
		find_real();
	real_arc4random_buf(buf, n);
	return (ssize_t)n;
}

void arc4random_buf(void *buf, size_t n)
{
	in_fill(IN_CALL_ARC4RANDOM_BUF, do_arc4random_buf, NULL, buf, n, true);
}

uint32_t arc4random(void)
{
	uint32_t v;
	if (!rp_input_replay(RP_INPUT_ARC4RANDOM, &v, sizeof v)) {
		if (!real_arc4random)
			find_real();
		v = real_arc4random();
		rp_input_record(RP_INPUT_ARC4RANDOM, &v, sizeof v);
	}
	return v;
}

uint32_t arc4random_uniform(uint32_t bound)
{
	uint32_t v;
	if (!rp_input_replay(RP_INPUT_ARC4RANDOM, &v, sizeof v)) {
		if (!real_arc4random_uniform)
			find_real();
		v = real_arc4random_uniform(bound);
		rp_input_record(RP_INPUT_ARC4RANDOM, &v, sizeof v);
	} else if (bound > 1 && v >= bound) {
		rp_diverge("thread %d: arc4random_uniform(%u) replayed %u", rp_cur->tid, bound, v);
	}
	return v;
}
