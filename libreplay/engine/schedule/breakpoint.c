/*
 * breakpoint.c: the stop at one pc between two counting points, which the replay
 * needs for every preemption that did not fall on a counting point (and --hunt's
 * windows, --timeout's stop while recording). One for the process (it has one
 * kernel thread), armed at one pc at a time; its trap reaches rp_bp_hit (replay.c)
 * with the thread stopped before the instruction at that pc.
 *
 * Two ways to stop there, chosen once (--breakpoints=auto|hardware|software):
 * - hardware: a perf_event_open execute breakpoint (a debug register), delivered as
 *   RP_BP_SIGNAL. perf may refuse it (Docker's default seccomp profile, Debian's
 *   and Ubuntu's kernels for ordinary users), and on some VMs it opens fine and
 *   never fires: auto takes it only after it has stopped a call to bp_target.
 * - software: the first byte of the instruction replaced by 0x06, an opcode invalid
 *   in 64-bit mode, so the CPU faults (SIGILL) before running it; the trap puts the
 *   byte back. int3 would raise SIGTRAP, which gdb keeps to itself; SIGILL gdb
 *   passes on (the extension says `handle SIGILL nostop noprint pass`). The byte is
 *   written through /proc/self/mem, which writes read-only text as a debugger does,
 *   or, where the kernel refuses that, between two mprotect calls. Code that reads
 *   itself (none of ours runs from the armed pc) would see the 0x06 while armed.
 *
 * LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 opens the hardware breakpoint for kernel mode
 * only, so that it opens and arms fine and never fires in the program: a machine
 * whose debug registers do nothing, for the tests.
 */
#include "engine/core.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RP_BP_SIGNAL (SIGRTMIN + 7)
#define TRAP_BYTE 0x06

/* The kind open; gdb's extension reads it (SIGILL passes to the program with software). */
enum rp_bp_kind rp_bp_mode = RP_BP_NONE;
static int bp_fd = -1;  /* hardware: the perf event */
static int mem_fd = -1; /* software: /proc/self/mem, or -1 (mprotect) */
/* Where it is armed (0: nowhere), and for the software trap what its byte replaced.
 * Under gdb a breakpoint of gdb's may sit at that pc: gdb takes a SIGILL there for its
 * own breakpoint's hit and, stepping over it, runs its copy of the byte, so the trap
 * byte cannot be there. Then no byte is written (under_debugger): gdb's extension
 * makes the trap a SIGILL it queues when the thread stops at the pc, and moves the
 * trap byte in or out of the code as gdb's breakpoints there come and go
 * (libreplay/gdb/stops.py, soft_trap_reconcile). Global, for it. */
struct rp_bp_trap rp_bp_trap;
static char why[160];            /* why this kind and not the other */
/* The program's own action for SIGILL, while the software trap needs the signal. */
static struct sigaction program_sigill = {.sa_handler = SIG_DFL};

/* A function the hardware breakpoint must stop, to be believed. */
__attribute__((noinline, used)) static int bp_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static bool dead_regs; /* LIBREPLAY_TEST_DEAD_DEBUG_REGS, read at rp_bp_open */

/* ---- hardware ----------------------------------------------------------------------- */

/* An execute breakpoint at pc that signals on every hit. */
static void hw_attr(struct perf_event_attr *a, uintptr_t pc)
{
	memset(a, 0, sizeof *a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof *a;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = pc;
	a->bp_len = sizeof(long);
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
	if (dead_regs) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
}

/* Arm at pc in one system call: the new attributes say enabled, and the kernel
 * enables the event with them (PERF_EVENT_IOC_MODIFY_ATTRIBUTES, Linux 4.17). */
static int hw_arm(uintptr_t pc)
{
	struct perf_event_attr a;
	hw_attr(&a, pc);
	return (int)rp_syscall(SYS_ioctl, bp_fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
}

/* A hardware breakpoint that has been seen to stop bp_target, disabled, its signal
 * not routed yet; or -1 with why[] said. */
static int hw_open(void)
{
	struct perf_event_attr a;
	hw_attr(&a, (uintptr_t)&bp_target);
	a.disabled = 1;
	int fd = rp_fd_own(rp_perf_event_open(&a));
	if (fd < 0) {
		snprintf(why, sizeof why, "perf_event_open refuses a hardware breakpoint (%s)",
			 strerror(errno));
		return -1;
	}
	uint64_t hits = 0;
	int x = 0;
	bp_fd = fd;
	if (hw_arm((uintptr_t)&bp_target) == 0) {
		for (int i = 0; i < 3; i++)
			x = bp_target(x);
		rp_syscall(SYS_ioctl, fd, PERF_EVENT_IOC_DISABLE, 0);
		if (rp_sys_read(fd, &hits, sizeof hits) != sizeof hits)
			hits = 0;
	}
	bp_fd = -1;
	if (hits != 3 || x != 3) {
		snprintf(why, sizeof why, "the debug registers do not fire here (a hardware "
			 "breakpoint on a function called 3 times saw %llu)", (unsigned long long)hits);
		rp_fd_close(fd);
		return -1;
	}
	return fd;
}

/* ---- software ----------------------------------------------------------------------- */

/* Write one byte of code at pc: 0, or -1 with errno. */
static int code_write(uintptr_t pc, unsigned char b)
{
	if (mem_fd >= 0)
		return rp_sys_pwrite(mem_fd, &b, 1, pc) == 1 ? 0 : -1;
	long page = (long)sched_page_size();
	void *p = (void *)(pc & ~(uintptr_t)(page - 1));
	if (mprotect(p, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
		return -1;
	*(volatile unsigned char *)pc = b;
	mprotect(p, (size_t)page, PROT_READ | PROT_EXEC);
	return 0;
}

/* Read one byte of code at pc: 0, or -1 with errno (no such address). */
static int code_read(uintptr_t pc, unsigned char *b)
{
	if (mem_fd >= 0)
		return rp_sys_pread(mem_fd, b, 1, pc) == 1 ? 0 : -1;
	long page = (long)sched_page_size();
	unsigned char vec;
	/* mincore says whether the page is mapped at all (ENOMEM if not) */
	if (rp_raw_syscall(SYS_mincore, (long)(pc & ~(uintptr_t)(page - 1)), page, (long)&vec, 0, 0, 0) != 0) {
		errno = ENOMEM;
		return -1;
	}
	*b = *(volatile unsigned char *)pc;
	return 0;
}

/* The byte each pc the trap byte has stood at held, for ever (code does not change):
 * a debugger that saved the trap byte (in a breakpoint's shadow: gdb's step-resume
 * breakpoint at a pc the trap interrupted) writes it back later, after the trap is
 * gone, and the SIGILL of that stray copy is healed here (on_sigill). Direct-mapped. */
#define SEEN 1024
static struct {
	uintptr_t pc;
	unsigned char orig;
} seen[SEEN];

static unsigned seen_slot(uintptr_t pc)
{
	return (unsigned)((pc ^ pc >> 10) & (SEEN - 1));
}

static bool recall(uintptr_t pc, unsigned char *orig)
{
	unsigned i = seen_slot(pc);
	if (seen[i].pc != pc)
		return false;
	*orig = seen[i].orig;
	return true;
}

static int sw_arm(uintptr_t pc)
{
	unsigned char b;
	if (code_read(pc, &b) != 0) {
		errno = EINVAL; /* no code there: the word perf has for it */
		return -1;
	}
	/* int3 under a debugger: gdb's breakpoint, whose shadow holds the real byte */
	rp_bp_trap.under_debugger = b == 0xcc && rp_replay_view.lookahead;
	if (rp_bp_trap.under_debugger)
		return 0;
	if (b == TRAP_BYTE && recall(pc, &rp_bp_trap.saved))
		return 0; /* a stray copy, already a trap */
	if (code_write(pc, TRAP_BYTE) != 0)
		return -1;
	rp_bp_trap.saved = b;
	unsigned i = seen_slot(pc);
	seen[i].pc = pc;
	seen[i].orig = b;
	return 0;
}

/* The trap byte out, if it is still there: a debugger's int3 may stand over it now
 * (its shadow holds the trap byte, healed when it comes back). */
static void sw_disarm(void)
{
	unsigned char b;
	rp_bp_trap.under_debugger = 0;
	if (code_read(rp_bp_trap.pc, &b) != 0 || b != TRAP_BYTE)
		return;
	if (code_write(rp_bp_trap.pc, rp_bp_trap.saved) != 0)
		rp_fatal("cannot take the replay's trap out of the code at %#lx: %s",
			 (unsigned long)rp_bp_trap.pc, strerror(errno));
}

/* /proc/self/mem of this process, or -1 (then mprotect). */
static int open_self_mem(void)
{
	int fd = rp_sys_open("/proc/self/mem", O_RDWR | O_CLOEXEC, 0);
	unsigned char b;
	/* Some kernels let no process write its own read-only text this way
	 * (proc_mem.force_override=never): rewrite a byte with itself to see. */
	if (fd >= 0 && (rp_sys_pread(fd, &b, 1, (uintptr_t)&bp_target) != 1 ||
			rp_sys_pwrite(fd, &b, 1, (uintptr_t)&bp_target) != 1)) {
		rp_sys_close(fd);
		fd = -1;
	}
	return fd < 0 ? -1 : rp_fd_own(fd);
}

/* The SIGILL of the trap byte, or another: the program's own handler, or the
 * runtime's crash report (its fatal-signal handler) and death by SIGILL. */
static void on_sigill(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t pc = rp_pc_of(uc);
	unsigned char b, orig;
	if (rp_bp_mode == RP_BP_SOFTWARE && rp_bp_trap.pc && pc == rp_bp_trap.pc) {
		sw_disarm();
		rp_bp_trap.pc = 0;
		rp_bp_hit(sig, si, uc);
		return;
	}
	if (recall(pc, &orig) && code_read(pc, &b) == 0 && b == TRAP_BYTE) {
		if (code_write(pc, orig) == 0)
			return; /* a stray copy of an old trap byte: the instruction runs now */
	}
	struct sigaction a = program_sigill;
	if (a.sa_flags & SA_RESETHAND)
		program_sigill.sa_handler = SIG_DFL, program_sigill.sa_flags &= ~SA_SIGINFO;
	if ((a.sa_flags & SA_SIGINFO) && a.sa_sigaction) {
		a.sa_sigaction(sig, si, uc);
	} else if (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN) {
		a.sa_handler(sig);
	} else {
		/* as on_fatal expects: SIG_DFL back, then END, the report, the signal again */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		rp_sigaction(SIGILL, &dfl, NULL);
		rp_session_fatal_hook(sig, si, uc);
	}
}

/* ---- the interface ---------------------------------------------------------------------- */

bool rp_bp_open(void)
{
	if (rp_bp_mode != RP_BP_NONE)
		return true;
	const char *dead = getenv("LIBREPLAY_TEST_DEAD_DEBUG_REGS");
	dead_regs = dead && *dead && strcmp(dead, "0");
	enum rp_bp_choice want = rp_opts.breakpoints;
	if (want != RP_BP_WANT_SOFTWARE) {
		int fd = hw_open();
		if (fd >= 0 && rp_route_signal(fd, RP_BP_SIGNAL) != 0) {
			snprintf(why, sizeof why, "its signal cannot be routed (%s)", strerror(errno));
			rp_fd_close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			bp_fd = fd;
			rp_bp_mode = RP_BP_HARDWARE;
			rp_install_handler(RP_BP_SIGNAL, rp_bp_hit, 0);
			return true;
		}
		if (want == RP_BP_WANT_HARDWARE) {
			rp_say("--breakpoints=hardware: %s", why);
			rp_exit(RP_EXIT_USAGE);
		}
	} else {
		snprintf(why, sizeof why, "--breakpoints=software");
	}
	mem_fd = open_self_mem();
	rp_bp_mode = RP_BP_SOFTWARE;
	rp_install_handler(SIGILL, on_sigill, SA_NODEFER);
	return true;
}

bool rp_bp_ready(void)
{
	return rp_bp_mode != RP_BP_NONE;
}

enum rp_bp_kind rp_bp_kind(void)
{
	return rp_bp_mode;
}

const char *rp_bp_why(void)
{
	return why;
}

const char *rp_bp_how(void)
{
	if (rp_bp_mode == RP_BP_HARDWARE)
		return "debug register";
	if (rp_bp_mode == RP_BP_SOFTWARE)
		return mem_fd >= 0 ? "/proc/self/mem" : "mprotect";
	return "none";
}

int rp_bp_try_arm(uintptr_t pc)
{
	if (rp_bp_trap.pc == pc)
		return 0; /* armed there already */
	if (rp_bp_mode == RP_BP_HARDWARE) {
		if (hw_arm(pc) != 0)
			return -1;
	} else if (rp_bp_mode == RP_BP_SOFTWARE) {
		rp_bp_disarm();
		if (sw_arm(pc) != 0)
			return -1;
	} else {
		errno = ENODEV;
		return -1;
	}
	rp_bp_trap.pc = pc;
	return 0;
}

void rp_bp_arm(uintptr_t pc)
{
	if (rp_bp_try_arm(pc) != 0)
		rp_fatal("cannot arm the breakpoint at %#lx: %s", (unsigned long)pc, strerror(errno));
}

void rp_bp_disarm(void)
{
	if (!rp_bp_trap.pc)
		return;
	if (rp_bp_mode == RP_BP_HARDWARE)
		rp_syscall(SYS_ioctl, bp_fd, PERF_EVENT_IOC_DISABLE, 0);
	else if (rp_bp_mode == RP_BP_SOFTWARE)
		sw_disarm();
	rp_bp_trap.pc = 0;
}

uintptr_t rp_bp_armed_pc(void)
{
	return rp_bp_trap.pc;
}

bool rp_bp_traps_sigill(void)
{
	return rp_bp_mode == RP_BP_SOFTWARE;
}

/* The program asks for its own SIGILL action: kept here while the trap needs the
 * signal (true; *old gets the previous one as the program knows it). */
bool rp_bp_sigill_action(const struct sigaction *act, struct sigaction *old)
{
	if (rp_bp_mode != RP_BP_SOFTWARE)
		return false;
	if (old)
		*old = program_sigill;
	if (act)
		program_sigill = *act;
	return true;
}

/* A checkpoint the debugger restored (a fork of the replay): the perf event, and
 * /proc/self/mem, are the process's it was forked from. This process opens its own
 * on the same descriptor, armed where the original was; 0 or -errno. */
int rp_bp_reopen(void)
{
	int fd, target;
	if (rp_bp_mode == RP_BP_HARDWARE) {
		struct perf_event_attr a;
		hw_attr(&a, rp_bp_trap.pc ? rp_bp_trap.pc : (uintptr_t)&bp_target);
		a.disabled = !rp_bp_trap.pc;
		fd = rp_perf_event_open(&a);
		if (fd < 0)
			return -errno;
		if (rp_route_signal(fd, RP_BP_SIGNAL) != 0) {
			int err = -errno;
			rp_sys_close(fd);
			return err;
		}
		target = bp_fd;
	} else if (rp_bp_mode == RP_BP_SOFTWARE && mem_fd >= 0) {
		fd = rp_sys_open("/proc/self/mem", O_RDWR | O_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		target = mem_fd;
	} else {
		return 0; /* the trap byte is in this process's copy of the code already */
	}
	long r = rp_raw_syscall(SYS_dup3, fd, target, O_CLOEXEC, 0, 0, 0);
	rp_sys_close(fd);
	return r < 0 ? (int)r : 0;
}

/* A child of fork(): it runs on unrecorded, without the breakpoint. Its copy of the
 * code loses the trap byte (through its own /proc/self/mem: the inherited one writes
 * the parent's). The perf event is the parent's: closing this descriptor leaves it
 * armed for the parent, where disabling it would take the parent's next trap away. */
void rp_bp_forget(void)
{
	if (rp_bp_mode == RP_BP_SOFTWARE) {
		if (rp_bp_reopen() != 0 && mem_fd >= 0) {
			rp_fd_close(mem_fd);
			mem_fd = -1; /* mprotect, then */
		}
		rp_bp_disarm();
	}
	rp_bp_trap.pc = 0;
	if (bp_fd >= 0)
		rp_fd_close(bp_fd);
	if (mem_fd >= 0)
		rp_fd_close(mem_fd);
	bp_fd = mem_fd = -1;
	rp_bp_mode = RP_BP_NONE;
}
