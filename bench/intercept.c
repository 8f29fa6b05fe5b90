/* intercept.c: what seeing a system call costs, four ways (bench/intercept.sh).
 *
 *   build/bench/intercept/intercept FILE [N]
 *
 * For getppid and for a 4 KiB pread of FILE at offset 0, N times each (default 200000),
 * prints one line per way, `intercept WAY CALL ns-per-call`:
 *   raw      the syscall instruction, inline;
 *   wrapper  a function standing for the libc name that makes the call and appends
 *            (number, result) to an in-memory log, as libreplay's wrappers do;
 *   sud      the call made from code outside an allowed range while Syscall User
 *            Dispatch blocks it: SIGSYS, a handler that makes it from the range and logs;
 *   seccomp  the same trapped by a seccomp filter (SECCOMP_RET_TRAP) that allows only
 *            calls whose instruction pointer is inside the range.
 * seccomp cannot be undone, so it is measured last. Not linked with libreplay: plain
 * gcc (it measures the mechanisms, not the runtime). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#endif
#define SUD_ALLOW 0
#define SUD_BLOCK 1

/* The allowed range: a syscall-and-return the handlers make their calls through, and
 * the signal return (rt_sigreturn must come from inside the range too, or it would trap
 * in its turn: glibc's restorer is in libc, so the handler is installed with this one). */
__asm__(".text\n"
	".globl gate_start, gate_syscall, gate_restorer, gate_end\n"
	"gate_start:\n"
	"gate_syscall:\n" /* nr in rax, args in rdi rsi rdx r10 r8 r9 */
	"	syscall\n"
	"	ret\n"
	"	nop\n"
	"gate_restorer:\n"
	"	movq $15, %rax\n"
	"	syscall\n"
	"	ud2\n" /* the kernel tests the address after the syscall instruction: */
	"gate_end:\n");     /* the range must reach past the last one */
extern char gate_start[], gate_end[], gate_restorer[];

static inline long raw6(long nr, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Through the gate: a call from inline asm must step over the red zone. */
static inline long gate6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\tcall gate_syscall\n\tlea 128(%%rsp), %%rsp"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The in-memory log every interceptor appends to: (number, result), wrapping. */
static long logbuf[1 << 16];
static unsigned logpos;
static inline void log_call(long nr, long r)
{
	logbuf[logpos++ & 0xffff] = nr;
	logbuf[logpos++ & 0xffff] = r;
}

static char buf[4096];
static int fd;

/* The libreplay-style wrappers (noinline: a program calls them through the PLT or
 * directly, never inlined). */
__attribute__((noinline)) static long w_getppid(void)
{
	long r = raw6(SYS_getppid, 0, 0, 0, 0);
	log_call(SYS_getppid, r);
	return r;
}
__attribute__((noinline)) static long w_pread(int f, void *b, size_t n, long off)
{
	long r = raw6(SYS_pread64, f, (long)b, (long)n, off);
	log_call(SYS_pread64, r);
	return r;
}

/* SIGSYS: make the trapped call from the gate, log it, return its result in rax. */
static void on_sigsys(int sig __attribute__((unused)), siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	long nr = si->si_syscall;
	long r = gate6(nr, g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9]);
	log_call(nr, r);
	g[REG_RAX] = r;
}

struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};

static void install_sigsys(void)
{
	struct k_sigaction k = {(void *)on_sigsys, SA_SIGINFO | 0x04000000 /* SA_RESTORER */,
				gate_restorer, 0};
	if (gate6(SYS_rt_sigaction, SIGSYS, (long)&k, 0, 8, 0, 0) != 0) {
		fprintf(stderr, "intercept: rt_sigaction failed\n");
		exit(1);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no system call, never trapped */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long n_calls = 200000;

/* ns per call of the two calls, made the raw way (trapped or not, by the mode). */
static void time_raw(const char *way)
{
	long sum = 0;
	double t0 = now();
	for (long i = 0; i < n_calls; i++)
		sum += raw6(SYS_getppid, 0, 0, 0, 0);
	double t1 = now();
	for (long i = 0; i < n_calls; i++)
		sum += raw6(SYS_pread64, fd, (long)buf, sizeof buf, 0);
	double t2 = now();
	if (sum != (long)n_calls * (getppid() + (long)sizeof buf)) {
		fprintf(stderr, "intercept: %s: wrong results\n", way);
		exit(1);
	}
	printf("intercept %s getppid %.1f\n", way, (t1 - t0) / n_calls);
	printf("intercept %s pread4k %.1f\n", way, (t2 - t1) / n_calls);
}

static void time_wrapper(void)
{
	long sum = 0;
	double t0 = now();
	for (long i = 0; i < n_calls; i++)
		sum += w_getppid();
	double t1 = now();
	for (long i = 0; i < n_calls; i++)
		sum += w_pread(fd, buf, sizeof buf, 0);
	double t2 = now();
	if (sum != (long)n_calls * (getppid() + (long)sizeof buf)) {
		fprintf(stderr, "intercept: wrapper: wrong results\n");
		exit(1);
	}
	printf("intercept wrapper getppid %.1f\n", (t1 - t0) / n_calls);
	printf("intercept wrapper pread4k %.1f\n", (t2 - t1) / n_calls);
}

static volatile char selector = SUD_ALLOW;

static int sud_on(void)
{
	/* Everything outside [gate_start, gate_end) traps while the selector says BLOCK. */
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, (unsigned long)gate_start,
		     (unsigned long)(gate_end - gate_start), &selector);
}

static int seccomp_on(void)
{
	/* Allow when the instruction pointer is inside the gate, else SECCOMP_RET_TRAP.
	 * seccomp_data.instruction_pointer is 64 bits: both halves compared. */
	uint64_t lo = (uintptr_t)gate_start, hi = (uintptr_t)gate_end;
	uint32_t ip_lo = offsetof(struct seccomp_data, instruction_pointer);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_lo + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(lo >> 32), 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_lo),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)lo, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)hi, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	/* (the range must not cross a 4 GiB line: the high halves of start and end equal) */
	if ((lo >> 32) != (hi >> 32))
		return -1;
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: intercept FILE [N]\n");
		return 2;
	}
	if (argc > 2)
		n_calls = atol(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
		fprintf(stderr, "intercept: %s: need a readable file of 4 KiB or more\n", argv[1]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	time_raw("raw");
	time_wrapper();

	install_sigsys();
	if (sud_on() == 0) {
		selector = SUD_BLOCK;
		time_raw("sud"); /* (printf's write traps too, outside the clock) */
		selector = SUD_ALLOW;
		prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);
	} else {
		printf("intercept sud unavailable %s\n", strerror(errno));
	}
	if (seccomp_on() == 0)
		time_raw("seccomp");
	else
		printf("intercept seccomp unavailable %s\n", strerror(errno));
	return 0;
}
