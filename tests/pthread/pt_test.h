/* pt_test.h: helpers the tests/pthread programs share. Standard C and POSIX only:
 * every program must behave the same built with gcc -pthread and with sicc. */
#ifndef PT_TEST_H
#define PT_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_tryjoin_np, pthread_setname_np, ... */
#endif
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UNUSED __attribute__((unused))

UNUSED static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EAGAIN: return "EAGAIN";
	case EBUSY: return "EBUSY";
	case EDEADLK: return "EDEADLK";
	case EINTR: return "EINTR";
	case EINVAL: return "EINVAL";
	case ENOTSUP: return "ENOTSUP";
	case EOVERFLOW: return "EOVERFLOW";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case EPERM: return "EPERM";
	case ERANGE: return "ERANGE";
	case ESRCH: return "ESRCH";
	case ETIMEDOUT: return "ETIMEDOUT";
	default: return "other";
	}
}

/* SHOW(pthread_mutex_trylock(&m)) prints "pthread_mutex_trylock(&m) = EBUSY". */
#define SHOW(call) printf("%s = %s\n", #call, ename(call))
/* For functions that return -1 and set errno. */
#define SHOW_ERRNO(call)                                                          \
	do {                                                                      \
		errno = 0;                                                        \
		int r_ = (call);                                                  \
		printf("%s = %d, errno %s\n", #call, r_, r_ ? ename(errno) : "-"); \
	} while (0)

#define CHECK(what, cond) printf("%s: %s\n", what, (cond) ? "yes" : "NO")

#define die(what)                                   \
	do {                                        \
		fprintf(stderr, "%s failed\n", what); \
		exit(2);                            \
	} while (0)

/* now + ms on clk */
UNUSED static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

UNUSED static long ms_since(clockid_t clk, const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

#endif
