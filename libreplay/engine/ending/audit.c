/* audit.c: --syscall-audit, which system calls escape the recording.
 *
 * The recording sees the calls a program makes through the names libreplay defines
 * (read, getpid, clock_gettime...). glibc's own calls (stdio reading a FILE from its own
 * fopen, mkstemp, getpwnam reading /etc/passwd) go to the kernel without them. Under
 * --syscall-audit, while recording, Syscall User Dispatch (Linux 5.11+, unprivileged)
 * makes every system call from outside the executable's code trap with SIGSYS; here
 * one that reads an input or acts on the world is named once per (call, function
 * that made it), then made, from here, with its result handed back. The executable's
 * code is the runtime's and the program's own (the runtime's calls go through
 * base/rp_syscall.h and its signal return rp_restorer.S, all inside it), so the range
 * the kernel lets through is [__executable_start, etext).
 *
 * The kernel's rules, seen on 6.18 (bench/intercept.c measured the cost: about 4.5 us a
 * trap): the range is tested against the address after the syscall instruction, which
 * is also what si_call_addr says (named below as the call's place); an
 * rt_sigreturn outside it traps too (glibc's restorer: a handler installed around
 * libreplay's sigaction); dispatch is cleared in a fork child and by execve (a child
 * is not audited, and dies of nothing). A clone that shares the memory (a thread,
 * posix_spawn's vfork) cannot be made from a handler, whose frame the child would
 * return through: it is let run natively, the selector left at ALLOW until the next
 * time slice (rp_audit_lapsed). */
#include "engine/core.h"
#include "engine/engine.h"
#include "engine/session.h"
#include "engine/ending/crash_sym.h"

#include <dlfcn.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <ucontext.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2 /* si_code of a dispatch's SIGSYS */
#endif

extern char __executable_start[], etext[];
void rp_sigaction_restorer(void); /* base/rp_restorer.S: a signal frame's, not a call's */
_Noreturn void rp_audit_sigreturn(uintptr_t sp); /* audit_sigreturn.S */

/* The calls the audit names: an input, or an effect on the world. A write counts only
 * to a regular file (the terminal's output appears in a replay too); mmap only of a
 * file. */
static const struct {
	short nr;
	const char *name;
} audited[] = {
	{SYS_open, "open"}, {SYS_openat, "openat"}, {SYS_creat, "creat"},
	{SYS_read, "read"}, {SYS_pread64, "pread64"}, {SYS_readv, "readv"},
	{SYS_preadv, "preadv"}, {SYS_preadv2, "preadv2"},
	{SYS_getdents, "getdents"}, {SYS_getdents64, "getdents64"},
	{SYS_stat, "stat"}, {SYS_lstat, "lstat"}, {SYS_fstat, "fstat"},
	{SYS_newfstatat, "newfstatat"}, {SYS_statx, "statx"}, {SYS_statfs, "statfs"},
	{SYS_fstatfs, "fstatfs"}, {SYS_access, "access"}, {SYS_faccessat, "faccessat"},
	{SYS_faccessat2, "faccessat2"}, {SYS_readlink, "readlink"},
	{SYS_readlinkat, "readlinkat"}, {SYS_getcwd, "getcwd"},
	{SYS_write, "write"}, {SYS_pwrite64, "pwrite64"}, {SYS_writev, "writev"},
	{SYS_pwritev, "pwritev"}, {SYS_pwritev2, "pwritev2"},
	{SYS_truncate, "truncate"}, {SYS_ftruncate, "ftruncate"},
	{SYS_fallocate, "fallocate"},
	{SYS_unlink, "unlink"}, {SYS_unlinkat, "unlinkat"}, {SYS_rmdir, "rmdir"},
	{SYS_rename, "rename"}, {SYS_renameat, "renameat"}, {SYS_renameat2, "renameat2"},
	{SYS_mkdir, "mkdir"}, {SYS_mkdirat, "mkdirat"}, {SYS_link, "link"},
	{SYS_linkat, "linkat"}, {SYS_symlink, "symlink"}, {SYS_symlinkat, "symlinkat"},
	{SYS_chmod, "chmod"}, {SYS_fchmod, "fchmod"}, {SYS_fchmodat, "fchmodat"},
	{SYS_chown, "chown"}, {SYS_fchown, "fchown"}, {SYS_fchownat, "fchownat"},
	{SYS_utimensat, "utimensat"},
	{SYS_socket, "socket"}, {SYS_socketpair, "socketpair"}, {SYS_connect, "connect"},
	{SYS_accept, "accept"}, {SYS_accept4, "accept4"}, {SYS_bind, "bind"},
	{SYS_listen, "listen"}, {SYS_sendto, "sendto"}, {SYS_recvfrom, "recvfrom"},
	{SYS_sendmsg, "sendmsg"}, {SYS_recvmsg, "recvmsg"}, {SYS_sendmmsg, "sendmmsg"},
	{SYS_recvmmsg, "recvmmsg"}, {SYS_getsockname, "getsockname"},
	{SYS_getpeername, "getpeername"}, {SYS_getsockopt, "getsockopt"},
	{SYS_setsockopt, "setsockopt"}, {SYS_shutdown, "shutdown"},
	{SYS_mmap, "mmap"}, {SYS_ioctl, "ioctl"}, {SYS_getrandom, "getrandom"},
	{SYS_uname, "uname"}, {SYS_sysinfo, "sysinfo"},
};

static const char *audited_name(long nr)
{
	for (size_t i = 0; i < sizeof audited / sizeof audited[0]; i++)
		if (audited[i].nr == nr)
			return audited[i].name;
	return NULL;
}

/* Whether this call, with these arguments, is one the audit names. */
static const char *worth_naming(long nr, const greg_t *g)
{
	const char *name = audited_name(nr);
	if (!name)
		return NULL;
	if (nr == SYS_mmap)
		return (g[REG_R10] & MAP_ANONYMOUS) || (int)g[REG_R8] < 0 ? NULL : name;
	if (nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_writev || nr == SYS_pwritev ||
	    nr == SYS_pwritev2) {
		struct stat st;
		if (rp_raw_syscall(SYS_fstat, g[REG_RDI], (long)&st, 0, 0, 0, 0) != 0 ||
		    !S_ISREG(st.st_mode))
			return NULL;
	}
	return name;
}

/* The (call, call site) pairs seen, and the (call, function) pairs named: a call site
 * is looked up once; a function is named once however many of its sites call. */
#define SEEN_SLOTS 1024
static struct {
	long nr;
	uintptr_t at;
} seen_site[SEEN_SLOTS], seen_fn[SEEN_SLOTS];
static unsigned named; /* how many lines: at most SEEN_SLOTS, then one more saying so */

/* true if (nr, at) was in the table; else puts it there (a full table: true). */
static bool seen(typeof(seen_site[0]) *tab, long nr, uintptr_t at)
{
	unsigned h = (unsigned)((at * 0x9e3779b97f4a7c15ull) >> 40 ^ (uint64_t)nr) % SEEN_SLOTS;
	for (unsigned i = 0; i < SEEN_SLOTS; i++, h = (h + 1) % SEEN_SLOTS) {
		if (tab[h].at == at && tab[h].nr == nr)
			return true;
		if (!tab[h].at) {
			tab[h].nr = nr;
			tab[h].at = at;
			return false;
		}
	}
	return true;
}

static bool in_exe(uintptr_t a)
{
	return a >= (uintptr_t)__executable_start && a < (uintptr_t)etext;
}

/* Whether the bytes before `ret` in the executable's code are a call (e8 rel32, or ff /2:
 * call *%reg, *(%reg), *disp8(%reg), *disp32(%rip) ...), so `ret` is a return address. */
static bool after_call(uintptr_t ret)
{
	const unsigned char *p = (const unsigned char *)ret;
	if (ret - 5 >= (uintptr_t)__executable_start && p[-5] == 0xe8)
		return true;
	for (int len = 2; len <= 7; len++)
		if (ret - len >= (uintptr_t)__executable_start && p[-len] == 0xff &&
		    ((p[-len + 1] >> 3) & 7) == 2)
			return true;
	return false;
}

/* The innermost function of the executable below the call: by libunwind (the crash
 * report's, crash.c) where it is; else the first word above the trapped stack pointer
 * that is a return address into the executable's code (the C library's frames have no
 * frame pointers to walk), which a stale word can mislead. */
static uintptr_t exe_caller(ucontext_t *uc)
{
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t unwound =
		rp_crash_first_frame_in(uc, (uintptr_t)__executable_start, (uintptr_t)etext);
	if (unwound)
		return unwound;
	struct sched_thread_info in;
	struct sched_thread *t = sched_current();
	if (!t)
		return 0;
	sched_thread_info(t, &in);
	uintptr_t hi = (uintptr_t)in.stack_hi;
	if (sp < (uintptr_t)in.stack_lo || sp >= hi)
		return 0; /* another stack (a signal stack): not walked */
	const uintptr_t *w = (const uintptr_t *)sp, *end = w + 4096;
	for (; (uintptr_t)(w + 1) <= hi && w < end; w++)
		if (in_exe(*w) && after_call(*w) && *w != (uintptr_t)rp_sigaction_restorer)
			return *w;
	return 0;
}

/* fn and its start for pc, in the object dladdr finds it in (*obj, *base). */
static void symbolize(uintptr_t pc, char *fn, size_t len, uintptr_t *start, const char **obj,
		      uintptr_t *base)
{
	Dl_info di;
	fn[0] = 0;
	*start = pc;
	*obj = "?";
	*base = 0;
	if (!dladdr((void *)pc, &di) || !di.dli_fname)
		return;
	const char *path = in_exe(pc) ? "/proc/self/exe" : di.dli_fname;
	*obj = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
	*base = (uintptr_t)di.dli_fbase;
	uintptr_t s;
	if (rp_crash_sym_file(path, pc - *base, fn, len, &s) == 1) {
		*start = *base + s;
	} else if (di.dli_sname && di.dli_saddr) {
		snprintf(fn, len, "%s", di.dli_sname);
		*start = (uintptr_t)di.dli_saddr;
	}
	if (!strcmp(fn, "__sic_main")) /* sicpp's name for the program's main */
		snprintf(fn, len, "main");
}

/* One line naming the call and the function that made it: its symbol from the object's
 * own tables or debug file (crash_sym.c), else the exported one dladdr knows; and the
 * executable's function that called into the library, when the stack shows one. */
static void name_call(long nr, const char *call, uintptr_t pc, ucontext_t *uc)
{
	uintptr_t from = exe_caller(uc);
	if (seen(seen_site, nr, pc ^ from * 0x9e3779b97f4a7c15ull))
		return;
	char fn[128], caller[128] = "";
	uintptr_t start, base, cstart = 0, cbase;
	const char *obj, *cobj;
	symbolize(pc, fn, sizeof fn, &start, &obj, &base);
	if (from)
		symbolize(from, caller, sizeof caller, &cstart, &cobj, &cbase);
	if (seen(seen_fn, nr, start ^ cstart * 0x9e3779b97f4a7c15ull))
		return;
	if (named++ == SEEN_SLOTS) {
		rp_say("syscall audit: more than %d calls named; no more", SEEN_SLOTS);
		return;
	}
	if (named > SEEN_SLOTS)
		return;
	rp_say("syscall audit: %s in %s (%s+%#lx), called from %s: not recorded", call,
	       fn[0] ? fn : "?", obj, (unsigned long)(pc - base), caller[0] ? caller : "?");
}

/* A clone whose child shares this memory: made natively (see the top). */
static bool shares_memory(long nr, const greg_t *g)
{
	if (nr == SYS_vfork)
		return true;
	if (nr == SYS_clone)
		return g[REG_RDI] & CLONE_VM;
	if (nr == SYS_clone3) {
		const struct clone_args *a = (const struct clone_args *)g[REG_RDI];
		return !a || (a->flags & CLONE_VM);
	}
	return false;
}

/* rt_sigprocmask from the C library (posix_spawn, system, abort...) made in this handler
 * would act on the handler's mask, which the signal return then replaces: it acts on
 * the mask that return restores, uc_sigmask, instead. SIGSYS stays unblocked there:
 * a blocked SIGSYS that the kernel forces kills the process. */
static long sigprocmask_for(ucontext_t *uc, int how, const sigset_t *set, sigset_t *old,
			    size_t size)
{
	if (size != 8)
		return -EINVAL;
	sigset_t now = uc->uc_sigmask, in;
	if (set)
		memcpy(&in, set, 8); /* (a bad pointer faults here, not -EFAULT: ours) */
	if (old)
		memcpy(old, &now, 8);
	if (!set)
		return 0;
	uint64_t *m = (uint64_t *)&now, bits;
	memcpy(&bits, &in, 8);
	if (how == SIG_BLOCK)
		*m |= bits;
	else if (how == SIG_UNBLOCK)
		*m &= ~bits;
	else if (how == SIG_SETMASK)
		*m = bits;
	else
		return -EINVAL;
	*m &= ~(1ull << (SIGSYS - 1) | 1ull << (SIGKILL - 1) | 1ull << (SIGSTOP - 1));
	memcpy(&uc->uc_sigmask, &now, 8);
	return 0;
}

static void on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	if (si->si_code != SYS_USER_DISPATCH) {
		/* another's SIGSYS (a seccomp filter's): its default action, as without us */
		rp_session_die_of(sig);
	}
	char sel = rp_audit_hold(); /* what this handler calls must not trap in its turn */
	long nr = si->si_syscall;
	uintptr_t pc = (uintptr_t)si->si_call_addr;
	if (nr == SYS_rt_sigreturn) {
		/* glibc's restorer ending a handler: return from that frame, where its stack
		 * pointer stood (this handler's frame below it is dropped) */
		rp_audit_release(sel);
		rp_audit_sigreturn((uintptr_t)g[REG_RSP]);
	}
	if (shares_memory(nr, g)) {
		/* the syscall instruction again (si_call_addr is the address after it, as
		 * is the saved rip), allowed this time */
		g[REG_RIP] = (greg_t)(pc - 2);
		g[REG_RAX] = nr;
		rp_audit_lapsed = true;
		return; /* the selector stays ALLOW */
	}
	if (nr == SYS_rt_sigprocmask) {
		g[REG_RAX] = sigprocmask_for(uc, (int)g[REG_RDI], (const sigset_t *)g[REG_RSI],
					     (sigset_t *)g[REG_RDX], (size_t)g[REG_R10]);
		rp_audit_release(sel);
		return;
	}
	const char *call = worth_naming(nr, g);
	if (call)
		name_call(nr, call, pc, uc);
	g[REG_RAX] = rp_raw_syscall(nr, g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8],
				    g[REG_R9]);
	rp_audit_release(sel);
}

void rp_audit_start(void)
{
	if (!rp_opts.syscall_audit || rp_opts.mode != RP_MODE_RECORD)
		return;
	rp_install_handler(SIGSYS, on_sigsys, SA_NODEFER); /* a trap in the handler: nested */
	uintptr_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	rp_audit_selector = RP_AUDIT_ALLOW;
	if (rp_raw_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, lo,
			   hi - lo, (long)&rp_audit_selector, 0) != 0) {
		rp_say("--syscall-audit: this kernel has no Syscall User Dispatch (Linux 5.11 or "
		       "later); recording without the audit");
		return;
	}
	rp_audit_on = true;
	sigset_t sys;
	sigemptyset(&sys);
	sigaddset(&sys, SIGSYS);
	rp_sigprocmask(SIG_UNBLOCK, &sys, NULL);
	rp_audit_selector = RP_AUDIT_BLOCK;
}
