/* sched_sys.h: system calls made straight to the kernel. A program linked with
 * libreplay resolves syscall, clock_gettime, nanosleep, sysconf... to libreplay's
 * recording and parking wrappers; sched sits below all of that and must reach the
 * kernel itself (so does libreplay's own runtime, base/rp_syscall.h). */
#ifndef SCHED_SYS_H
#define SCHED_SYS_H

#include <errno.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>

/* The result, or -errno; errno is left alone. Async-signal-safe. */
static inline long sched_raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* clock_gettime(2) (the system call: the vDSO's fast path is the C library's, and the
 * library's name is the recording wrapper's). */
static inline int sched_sys_clock_gettime(clockid_t clk, struct timespec *ts)
{
	return (int)sched_raw_syscall(SYS_clock_gettime, clk, (long)ts, 0, 0, 0, 0);
}

/* clock_nanosleep(2): 0, or -errno (-EINTR: interrupted). */
static inline int sched_sys_clock_nanosleep(clockid_t clk, int flags, const struct timespec *ts)
{
	return (int)sched_raw_syscall(SYS_clock_nanosleep, clk, flags, (long)ts, 0, 0, 0);
}

/* getauxval under glibc's other name: libreplay wraps getauxval (its pointers). */
extern unsigned long __getauxval(unsigned long type);

static inline size_t sched_page_size(void)
{
	return (size_t)__getauxval(AT_PAGESZ);
}

/* mmap(2) made directly (libreplay wraps the program's mmap: a mapping of a file
 * may be an input): the address, or MAP_FAILED ((void *)-1) with errno set. */
static inline void *sched_sys_mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off)
{
	long r = sched_raw_syscall(9 /* SYS_mmap */, (long)addr, (long)len, prot, flags, fd, off);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return (void *)-1;
	}
	return (void *)r;
}

#endif
