/* sched_test.h: the small harness the sched unit tests share.
 *
 * Each test runs a whole scheduler: run(main, hooks) calls sched_run_main with a test
 * main (declared with TEST_MAIN) as thread 1. cmocka's assert_* leave by longjmp,
 * which must not happen on a green thread's stack, so inside the run use CHECK and
 * CHECK_EQ: they count failures and go on; run() fails the test afterwards, in the
 * host. TRACE appends to a string that tests compare with the exact expected order.
 * virtual_hooks give a virtual clock that only idle moves (to the deadline asked). */
#ifndef SCHED_TEST_H
#define SCHED_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "green.h"

#define TEST_MAIN(name) static int name(int argc, char **argv, char **envp)
#define SEC (UINT64_C(1000000000))

/* ---- checks inside the run ------------------------------------------------------ */
static int check_failures;
static char check_first[512];

static void check_failed(const char *file, int line, const char *what)
{
	print_message("%s:%d: check failed: %s\n", file, line, what);
	if (check_failures++ == 0)
		snprintf(check_first, sizeof check_first, "%s:%d: %s", file, line, what);
}

#define CHECK(cond)                                                  \
	do {                                                         \
		if (!(cond))                                         \
			check_failed(__FILE__, __LINE__, #cond);     \
	} while (0)

#define CHECK_EQ(a, b)                                                                  \
	do {                                                                            \
		long long a_ = (long long)(a), b_ = (long long)(b);                     \
		if (a_ != b_) {                                                         \
			char w_[256];                                                   \
			snprintf(w_, sizeof w_, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
			check_failed(__FILE__, __LINE__, w_);                           \
		}                                                                       \
	} while (0)

/* ---- the order of events --------------------------------------------------------- */
static char trace_buf[8192];
static size_t trace_len;

static void TRACE(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void TRACE(const char *fmt, ...)
{
	va_list ap;
	if (trace_len && trace_len < sizeof trace_buf - 1)
		trace_buf[trace_len++] = ' ';
	va_start(ap, fmt);
	int n = vsnprintf(trace_buf + trace_len, sizeof trace_buf - trace_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		trace_len += (size_t)n;
	if (trace_len >= sizeof trace_buf)
		trace_len = sizeof trace_buf - 1;
}

/* ---- a virtual clock ------------------------------------------------------------- */
static uint64_t vclock[2]; /* [0] CLOCK_MONOTONIC, [1] CLOCK_REALTIME */
static int idle_calls;

static uint64_t virtual_now(clockid_t clk)
{
	return vclock[clk == CLOCK_REALTIME];
}

static void virtual_idle(uint64_t deadline_ns, clockid_t clk)
{
	idle_calls++;
	if (vclock[clk == CLOCK_REALTIME] < deadline_ns)
		vclock[clk == CLOCK_REALTIME] = deadline_ns;
}

static const struct sched_hooks virtual_hooks = {
	.now_ns = virtual_now,
	.idle = virtual_idle,
};

/* An absolute deadline `ns` after the virtual (or real) clock's now. */
static inline struct timespec deadline_in(uint64_t ns, clockid_t clk)
{
	uint64_t at = sched_get_hooks()->now_ns(clk) + ns;
	return (struct timespec){ .tv_sec = (time_t)(at / SEC), .tv_nsec = (long)(at % SEC) };
}

static inline struct timespec duration(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / SEC), .tv_nsec = (long)(ns % SEC) };
}

/* ---- running ---------------------------------------------------------------------- */
static int run(int (*main_fn)(int, char **, char **), const struct sched_hooks *hooks)
{
	static char *argv[] = { "test", NULL };
	check_failures = 0;
	check_first[0] = 0;
	trace_len = 0;
	trace_buf[0] = 0;
	vclock[0] = vclock[1] = 0;
	idle_calls = 0;
	sched_set_hooks(hooks);
	int status = sched_run_main(main_fn, 1, argv, NULL);
	sched_set_hooks(NULL);
	if (check_failures)
		fail_msg("%d check(s) failed during the run, first: %s", check_failures,
			 check_first);
	return status;
}

/* Run main_fn as thread 1 with the default hooks in a child, for a run that ends the
 * process (a report and exit, an abort); its stderr goes to out (len bytes, ended by
 * a NUL). Returns the child's wait status. */
static inline int run_in_child(int (*main_fn)(int, char **, char **), char *out, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		sched_set_hooks(NULL);
		sched_run_main(main_fn, 0, NULL, NULL);
		_exit(99); /* not reached */
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n < len - 1 && (r = read(fds[0], out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

#define assert_trace(expected) assert_string_equal(trace_buf, expected)

/* Start a thread or fail the check. */
static inline struct sched_thread *spawn(void *(*fn)(void *), void *arg)
{
	struct sched_thread *t = NULL;
	int err = sched_create(&t, NULL, fn, arg);
	CHECK_EQ(err, 0);
	return t;
}

static inline long join(struct sched_thread *t)
{
	void *ret = NULL;
	CHECK_EQ(sched_join(t, &ret), 0);
	return (long)(intptr_t)ret;
}

static inline int self_id(void)
{
	return sched_thread_id(sched_current());
}

#endif
