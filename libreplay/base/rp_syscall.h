/* rp_syscall.h: system calls the runtime makes itself, straight to the kernel.
 *
 * The pthread layer defines read, write, poll, syscall... (they park a green thread);
 * the runtime's own I/O (the log, diagnostics, the schedule trace, crash reports) must
 * not go through them: it may run in a signal handler, with the scheduler busy, or in a
 * thread with a cancellation pending. */
#ifndef RP_SYSCALL_H
#define RP_SYSCALL_H

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "sched_sys.h"

/* A system call made directly, whatever wrapper the program's symbols lead to (the
 * pthread layer defines read, poll, syscall...): returns the result or -errno, and
 * leaves errno alone. Async-signal-safe. */
static inline long rp_raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	return sched_raw_syscall(nr, a, b, c, d, e, f); /* sched/sched_sys.h: the layer below */
}

/* The process ends now, with status: _exit made directly. The pthread layer's _exit
 * ends the log first (pt_end.c); the runtime's own ends (a divergence, a usage error,
 * no memory) have done what they mean to. */
_Noreturn static inline void rp_exit_group(int status)
{
	for (;;)
		rp_raw_syscall(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

/* The process ends by the C library's exit (its handlers run, the streams are flushed,
 * the log gets its END from session.c's on_exit handler), not through the pthread
 * layer's exit, whose --hunt turn (pt_end.c) is a decision of the program's: the
 * runtime's own ends (a usage error, --help) are none, and may come before the
 * scheduler runs. */
_Noreturn void rp_exit(int status);

/* write(2) and read(2) made directly: the result, or -1 with errno set. */
static inline ssize_t rp_sys_write(int fd, const void *buf, size_t n)
{
	long r = rp_raw_syscall(SYS_write, fd, (long)buf, (long)n, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static inline ssize_t rp_sys_read(int fd, void *buf, size_t n)
{
	long r = rp_raw_syscall(SYS_read, fd, (long)buf, (long)n, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* pread(2) and pwrite(2) made directly: the result, or -1 with errno set. */
static inline ssize_t rp_sys_pread(int fd, void *buf, size_t n, uint64_t off)
{
	long r = rp_raw_syscall(SYS_pread64, fd, (long)buf, (long)n, (long)off, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static inline ssize_t rp_sys_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	long r = rp_raw_syscall(SYS_pwrite64, fd, (long)buf, (long)n, (long)off, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* open(2) and close(2) made directly (the recorded-input layer wraps open and close to
 * follow descriptors of the random devices): a descriptor or 0, or -1 with errno set. */
static inline int rp_sys_open(const char *path, int flags, int mode)
{
	long r = rp_raw_syscall(SYS_openat, -100 /* AT_FDCWD */, (long)path, flags, mode, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

static inline int rp_sys_close(int fd)
{
	long r = rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* syscall(2) made directly (the program's syscall() is the pthread layer's
 * dispatcher): the result, or -1 with errno set. Up to six arguments. */
long rp_syscall(long nr, ...);

/* sigaction(2) with the runtime's own signal return (rp_sigaction_restorer, in the
 * executable) instead of glibc's __restore_rt in libc. Between a handler's end and
 * the sigreturn a thread's count is in the signal frame, not in __sic_home, and a
 * time slice ending there must not take it for foreign code whose count is
 * published (engine/schedule/record.c, preempt_at_next_count): code in the executable it leaves
 * alone. gdb and libunwind know the restorer as a signal trampoline by its bytes
 * (and gdb by the "sigaction" in its name). 0, or -1 with errno. */
struct sigaction;
int rp_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* sigprocmask(2) made directly (the program's sigprocmask is the signals layer's, a
 * green thread's mask): 0, or -1 with errno set. */
static inline int rp_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	long r = rp_raw_syscall(SYS_rt_sigprocmask, how, (long)set, (long)old, _NSIG / 8, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* --syscall-audit (engine/ending/audit.c): the Syscall User Dispatch selector. While
 * it says RP_AUDIT_BLOCK, every system call made outside the executable's code (glibc's
 * own, a shared library's) traps to the audit; the runtime's own calls, made here, are
 * inside it and never do. The runtime sets RP_AUDIT_ALLOW around its calls of C library
 * functions that make system calls (rp_audit_hold), or they would be named as the
 * program's. 0 when the audit is off: then nothing reads it but the kernel, never. */
#define RP_AUDIT_ALLOW 0
#define RP_AUDIT_BLOCK 1
extern volatile char rp_audit_selector;
/* The audit is on: SIGSYS is never blocked (the signals layer keeps it out of the
 * kernel's mask; a blocked SIGSYS the kernel forces kills the process). */
extern bool rp_audit_on;
/* The audit let a clone sharing the memory run natively (audit.c), leaving the selector
 * at ALLOW: it says BLOCK again at the next time slice (engine/schedule/record.c) or
 * after the next hold. */
extern bool rp_audit_lapsed;

/* ALLOW until rp_audit_release(what it returns). */
static inline char rp_audit_hold(void)
{
	char s = rp_audit_lapsed ? RP_AUDIT_BLOCK : rp_audit_selector;
	rp_audit_lapsed = false;
	rp_audit_selector = RP_AUDIT_ALLOW;
	return s;
}

static inline void rp_audit_release(char s)
{
	rp_audit_selector = s;
}

#endif
