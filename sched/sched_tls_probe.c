/* sched_tls_probe.c: how switches load a thread's TLS, and the probes that choose.
 *
 * A feature the kernel offers may still fault when used: on a KVM guest (kernel
 * 6.18, AMD EPYC) modify_ldt succeeds but loading the new selector raises a general
 * protection fault. So each feature is tried in a child process, whose death tells
 * us and harms nothing: a raw clone with SIGCHLD only (glibc's fork would run the
 * program's atfork handlers), crash handlers reset, core dumps off. The child shares
 * nothing but copies of the address space and the LDT. Each probe runs once per
 * process, at the first thread creation that needs it (sched_tls_choose). */
#include "sched_impl.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

static struct {
	bool ldt_done, fsgsbase_done, syscall_done;
	struct sched_feature ldt, fsgsbase, syscall;
	uint64_t ns; /* what the probes took */
} pr;

/* rt_sigaction's struct as the kernel reads it */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static struct sched_feature refused(const char *call, long err)
{
	return (struct sched_feature){.state = SCHED_FEATURE_REFUSED, .call = call, .err = (int)-err};
}

/* In the child: die of the signal a fault raises, quietly. */
static void child_setup(void)
{
	static const int deadly[] = {SIGSEGV, SIGBUS, SIGILL};
	struct kernel_sigaction dfl = {.handler = SIG_DFL};
	for (unsigned i = 0; i < sizeof deadly / sizeof *deadly; i++)
		sched_raw_syscall(SYS_rt_sigaction, deadly[i], (long)&dfl, 0, 8, 0, 0);
	sched_raw_syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0); /* no core file */
}

/* The SIGCHLD pending now, if the probe's child sent it: gone. One of another child
 * (a SIGCHLD already pending, which the probe's then joined) is sent again. */
static void take_back_sigchld(long pid)
{
	uint64_t chld = 1ull << (SIGCHLD - 1);
	struct timespec zero = {0, 0};
	siginfo_t si;
	if (sched_raw_syscall(SYS_rt_sigtimedwait, (long)&chld, (long)&si, (long)&zero, 8, 0, 0) != SIGCHLD ||
	    si.si_pid == (pid_t)pid)
		return;
	long self = sched_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long tid = sched_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	sched_raw_syscall(SYS_rt_tgsigqueueinfo, self, tid, SIGCHLD, (long)&si, 0, 0);
}

/* Run test(arg) in a child process: WORKS if it returned true, FAULTS if it returned
 * false or a signal ended it. */
static struct sched_feature in_child(bool (*test)(void *), void *arg)
{
	/* A SIGCHLD set to SIG_IGN (or SA_NOCLDWAIT) would reap the child before we saw
	 * how it ended: the default for the probe's time, which discards it too. */
	struct kernel_sigaction old, probe;
	bool swapped = false;
	if (sched_raw_syscall(SYS_rt_sigaction, SIGCHLD, 0, (long)&old, 8, 0, 0) == 0 &&
	    (old.handler == SIG_IGN || (old.flags & SA_NOCLDWAIT))) {
		probe = old;
		probe.flags &= ~(unsigned long)SA_NOCLDWAIT;
		if (probe.handler == SIG_IGN)
			probe.handler = SIG_DFL;
		swapped = sched_raw_syscall(SYS_rt_sigaction, SIGCHLD, (long)&probe, 0, 8, 0, 0) == 0;
	}
	/* The child's SIGCHLD is the probe's, not the program's: a handler of the
	 * program's would run for a child it never made (and a recording would log it as
	 * a signal from outside). Blocked meanwhile, and taken back below. */
	uint64_t chld = 1ull << (SIGCHLD - 1), mask;
	sched_raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&chld, (long)&mask, 8, 0, 0);
	struct sched_feature f = {.state = SCHED_FEATURE_WORKS};
	long pid = sched_raw_syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (pid == 0) {
		child_setup();
		sched_raw_syscall(SYS_exit_group, test(arg) ? 0 : 1, 0, 0, 0, 0, 0);
	}
	int status = 0;
	long got = pid;
	if (pid > 0)
		do
			got = sched_raw_syscall(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
		while (got == -EINTR);
	if (pid > 0 && !(mask & chld))
		take_back_sigchld(pid);
	sched_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, 8, 0, 0);
	if (swapped)
		sched_raw_syscall(SYS_rt_sigaction, SIGCHLD, (long)&old, 0, 8, 0, 0);
	if (pid < 0)
		return refused("clone", pid);
	if (got < 0)
		return refused("wait4", got);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		f.state = SCHED_FEATURE_FAULTS;
		f.sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	return f;
}

struct ldt_probe {
	uint16_t sel;
	void *base;
};

/* %gs, not %fs: whatever the selector gives, the child's TLS stays its own. */
static bool ldt_loads(void *arg)
{
	const struct ldt_probe *p = arg;
	void *seen;
	__asm__ volatile("mov %1, %%gs\n\tmovq %%gs:0, %0"
			 : "=r"(seen)
			 : "r"((uint32_t)p->sel)
			 : "memory");
	return seen == p->base;
}

/* A page below 4 GiB holding its own address, as a TCB does; an LDT entry whose
 * base it is; a child that loads the selector and reads the word at its base. */
static struct sched_feature probe_ldt(void)
{
	size_t page = sched_page_size();
	void **base = sched_sys_mmap(NULL, page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (base == MAP_FAILED)
		return refused("mmap", -ENOMEM);
	*base = base;
	struct ldt_probe p = {.base = base};
	int err = sched_ldt_set(base, &p.sel);
	struct sched_feature f = err ? refused("modify_ldt", err) : in_child(ldt_loads, &p);
	sched_ldt_release(p.sel);
	munmap(base, page);
	return f;
}

static bool gsbase_round_trip(void *arg)
{
	void *seen;
	__asm__ volatile("wrgsbase %1\n\trdgsbase %0" : "=r"(seen) : "r"(arg) : "memory");
	return seen == arg;
}

/* AT_HWCAP2 says the kernel enabled FSGSBASE; the child checks that it did. */
static struct sched_feature probe_fsgsbase(void)
{
	if (!(__getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE))
		return (struct sched_feature){.state = SCHED_FEATURE_ABSENT};
	return in_child(gsbase_round_trip, &pr);
}

static struct sched_feature probe_syscall(void)
{
	unsigned long base;
	long err = sched_raw_syscall(SYS_arch_prctl, ARCH_GET_FS, (long)&base, 0, 0, 0, 0);
	return err ? refused("arch_prctl", err) : (struct sched_feature){.state = SCHED_FEATURE_WORKS};
}

static uint64_t now_ns(void)
{
	struct timespec ts = {0};
	sched_sys_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The probes of the paths from `from` on that have not run yet. */
static void probe_from(enum sched_tls_path from)
{
	uint64_t start = now_ns();
	bool ran = false;
	if (from <= SCHED_TLS_LDT && !pr.ldt_done) {
		pr.ldt = probe_ldt();
		pr.ldt_done = ran = true;
		if (pr.ldt.state != SCHED_FEATURE_WORKS)
			sched_g.no_ldt = true;
	}
	if (from <= SCHED_TLS_FSGSBASE && !pr.fsgsbase_done) {
		pr.fsgsbase = probe_fsgsbase();
		pr.fsgsbase_done = ran = true;
	}
	if (!pr.syscall_done) {
		pr.syscall = probe_syscall();
		pr.syscall_done = true;
	}
	if (ran)
		pr.ns += now_ns() - start;
}

void sched_tls_choose(void)
{
	enum sched_tls_path asked = sched_g.tls_asked;
	probe_from(asked);
	sched_g.fsgsbase = asked <= SCHED_TLS_FSGSBASE && pr.fsgsbase.state == SCHED_FEATURE_WORKS;
	if (asked <= SCHED_TLS_LDT && pr.ldt.state == SCHED_FEATURE_WORKS && !sched_g.no_ldt)
		sched_g.tls_path = SCHED_TLS_LDT;
	else
		sched_g.tls_path = sched_g.fsgsbase ? SCHED_TLS_FSGSBASE : SCHED_TLS_SYSCALL;
}

void sched_set_tls_path(enum sched_tls_path path)
{
	if (path > SCHED_TLS_SYSCALL)
		path = SCHED_TLS_AUTO;
	sched_g.tls_asked = path;
	sched_g.tls_path = SCHED_TLS_AUTO; /* chosen again at the next thread creation */
}

const char *sched_tls_path_name(enum sched_tls_path path)
{
	static const char *const names[] = {"auto", "ldt", "fsgsbase", "syscall"};
	return path <= SCHED_TLS_SYSCALL ? names[path] : NULL;
}

const char *sched_tls_path(void)
{
	if (sched_g.tls_path == SCHED_TLS_AUTO)
		sched_tls_choose();
	return sched_tls_path_name(sched_g.tls_path);
}

/* Why the path asked for is not the one used. */
static const char *why_not(enum sched_tls_path asked)
{
	static char why[128];
	const struct sched_feature *f = asked == SCHED_TLS_LDT ? &pr.ldt : &pr.fsgsbase;
	const char *what = asked == SCHED_TLS_LDT ? "LDT selectors" : "wrgsbase";
	if (f->state == SCHED_FEATURE_ABSENT)
		return "this CPU or kernel does not offer FSGSBASE (AT_HWCAP2)";
	if (f->state == SCHED_FEATURE_FAULTS)
		snprintf(why, sizeof why, "this machine's %s fault%s", what,
			 asked == SCHED_TLS_LDT ? "" : "s");
	else if (f->state == SCHED_FEATURE_REFUSED)
		snprintf(why, sizeof why, "%s %s (%s)",
			 strcmp(f->call, "modify_ldt") ? "its probe could not run:" : "the kernel refuses",
			 f->call, strerrorname_np(f->err) ? strerrorname_np(f->err) : "?");
	else
		return "modify_ldt failed for a thread";
	return why;
}

void sched_tls_probe(struct sched_tls_report *r)
{
	probe_from(SCHED_TLS_AUTO);
	if (sched_g.tls_path == SCHED_TLS_AUTO)
		sched_tls_choose();
	*r = (struct sched_tls_report){
		.ldt = pr.ldt,
		.fsgsbase = pr.fsgsbase,
		.syscall = pr.syscall,
		.asked = sched_g.tls_asked,
		.path = sched_g.tls_path,
		.probe_ns = pr.ns,
	};
	if (r->asked != SCHED_TLS_AUTO && r->path != r->asked)
		r->why = why_not(r->asked);
}
