/* crash.c: the crash report. When the program dies of a signal while recording or
 * replaying, session.c's handler flushes the log and calls rp_crash_report, which
 * names the green thread that faulted and the fault, and prints a backtrace of every
 * green thread; then the handler re-raises, so the exit status is the same signal.
 * A replay of that log reaches the same fault with the same threads in the same
 * places, and prints the same report (docs/tools.md).
 *
 * Backtraces come from libunwind (libunwind.so.8, Debian's libunwind8), opened with
 * dlopen when the session starts, so programs need not link it and a system without
 * it still gets the rest of the report. Where each thread is:
 *   - the faulting one: the signal's ucontext;
 *   - one switched out by a preemption: the ucontext of the timer's (or the replay
 *     breakpoint's) signal, kept in its struct rp_thread, so the report starts at the
 *     program's interrupted instruction, the same in a recording and its replay;
 *   - one switched out in a blocking call: sched_thread_info's sp and resume pc,
 *     where the CFI of sched_switch_resume unwinds it.
 * libunwind gives function names and offsets in the executable (the program's main is
 * `main`, not the __sic_main sicpp renamed it to); in a shared object, only a symbol
 * that holds the address names it, from the debug file when installed (crash_sym.c);
 * each frame also gets its object and the offset in it, and a frame of the
 * executable its file:line, as gdb's bt ends its frames: the report is made twice,
 * the first time writing nothing but noting the executable's pcs, which one run of
 * addr2line (binutils; the runtime reads no DWARF) names, as races_report.c does.
 * Without addr2line, `exe+0x...` is there to resolve by hand (addr2line -e EXE, or
 * replay-dump --where).
 *
 * The process is dying, but the handler still avoids malloc and stdio: it formats
 * into a static buffer and writes with write(2); addr2line runs in a child made by
 * the clone system call (no atfork handler), its answer read through a pipe
 * (core/addr2line.c). */
#include "engine/core.h"
#include "engine/ending/crash_sym.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/* getauxval is the inputs layer's (in_auxv.c); glibc's other name for it. */
extern unsigned long __getauxval(unsigned long type);

#define MAX_FRAMES 32

static int (*u_init_local2)(unw_cursor_t *, unw_context_t *, int);
static int (*u_init_local)(unw_cursor_t *, unw_context_t *);
static int (*u_step)(unw_cursor_t *);
static int (*u_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
static int (*u_get_proc_name)(unw_cursor_t *, char *, size_t, unw_word_t *);
/* The objects loaded when the session started (the executable first), so a frame
 * can be named by object and offset without calling the loader from the handler. */
#define MAX_OBJECTS 32
static struct object {
	uintptr_t base, lo, hi;
	char name[48];
	const char *path;     /* the loader's copy of its file name (NULL: the executable) */
	unsigned char id[32]; /* its build id, which names its debug file */
	size_t idlen;
} objects[MAX_OBJECTS];
static int nobjects;
/* Where detached debug files are (LIBREPLAY_DEBUG_DIR, or Debian's). */
static char debug_dir[256] = "/usr/lib/debug";

/* The object's GNU build id, from its PT_NOTE segments (in memory). */
static void note_build_id(struct object *o, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_NOTE)
			continue;
		const char *n = (const char *)(info->dlpi_addr + p->p_vaddr), *end = n + p->p_memsz;
		while (n + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *h = (const ElfW(Nhdr) *)n;
			const char *desc = n + sizeof *h + ((h->n_namesz + 3) & ~3u);
			if (h->n_type == NT_GNU_BUILD_ID && h->n_namesz == 4 && !memcmp(n + sizeof *h, "GNU", 4) &&
			    h->n_descsz <= sizeof o->id && desc + h->n_descsz <= end) {
				memcpy(o->id, desc, h->n_descsz);
				o->idlen = h->n_descsz;
				return;
			}
			n = desc + ((h->n_descsz + 3) & ~3u);
		}
	}
}

static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
	if (nobjects == MAX_OBJECTS)
		return 1;
	struct object *o = &objects[nobjects];
	o->base = info->dlpi_addr;
	o->lo = UINTPTR_MAX;
	o->hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
		if (lo < o->lo)
			o->lo = lo;
		if (hi > o->hi)
			o->hi = hi;
	}
	/* the executable's offsets are from its load base, as the log's PCs */
	const char *name = nobjects == 0 ? "exe" : strrchr(info->dlpi_name, '/');
	name = name ? name + (name[0] == '/') : info->dlpi_name;
	if (o->hi && name[0]) {
		strncpy(o->name, name, sizeof o->name - 1);
		o->path = nobjects > 0 && info->dlpi_name[0] == '/' ? info->dlpi_name : NULL;
		note_build_id(o, info);
		nobjects++;
	}
	return 0;
}

void rp_crash_init(void)
{
	/* The same in a recording and its replay, so the address layout stays equal. */
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	dl_iterate_phdr(note_object, NULL);
	const char *dir = getenv("LIBREPLAY_DEBUG_DIR");
	if (dir && strlen(dir) < sizeof debug_dir)
		strcpy(debug_dir, dir);
	if (!h)
		return;
	u_init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, "_ULx86_64_init_local2");
	u_init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, "_ULx86_64_init_local");
	u_step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
	u_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, "_ULx86_64_get_reg");
	u_get_proc_name = (int (*)(unw_cursor_t *, char *, size_t, unw_word_t *))
		dlsym(h, "_ULx86_64_get_proc_name");
	if (!u_init_local || !u_step || !u_get_reg || !u_get_proc_name)
		u_init_local = NULL;
}

/* The first frame at or above the signal frame uc whose pc is in [lo, hi): for
 * --syscall-audit (audit.c), which executable function a library's system call came
 * from. 0 if none within MAX_FRAMES, or without libunwind. */
uintptr_t rp_crash_first_frame_in(ucontext_t *uc, uintptr_t lo, uintptr_t hi)
{
	unw_cursor_t c;
	if (!u_init_local2 || u_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0)
		return 0;
	for (int n = 0; n < MAX_FRAMES; n++) {
		unw_word_t ip = 0;
		if (u_get_reg(&c, UNW_REG_IP, &ip) == 0 && ip >= lo && ip < hi)
			return (uintptr_t)ip;
		if (u_step(&c) <= 0)
			return 0;
	}
	return 0;
}

/* ---- output without stdio --------------------------------------------------------- */

static char out[8192];
static size_t used;
/* The first pass of a report: nothing written, the executable's pcs noted. */
static bool noting;

static void flush_out(void)
{
	size_t off = 0;
	while (off < used) {
		long n = rp_fd_say(out + off, used - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	used = 0;
}

static void put(const char *s)
{
	if (noting)
		return;
	for (; *s; s++) {
		if (used == sizeof out)
			flush_out();
		out[used++] = *s;
	}
}

static void put_num(uint64_t v, unsigned base)
{
	char d[24];
	int k = sizeof d;
	d[--k] = 0;
	do
		d[--k] = "0123456789abcdef"[v % base];
	while ((v /= base));
	if (base == 16)
		put("0x");
	put(d + k);
}

/* ---- the fault ------------------------------------------------------------------- */

static const char *code_name(int sig, int code)
{
	switch (code) {
	case SI_USER: return "SI_USER";
	case SI_KERNEL: return "SI_KERNEL";
	case SI_QUEUE: return "SI_QUEUE";
	case SI_TKILL: return "SI_TKILL";
	}
	switch (sig * 100 + code) {
	case SIGSEGV * 100 + SEGV_MAPERR: return "SEGV_MAPERR: address not mapped";
	case SIGSEGV * 100 + SEGV_ACCERR: return "SEGV_ACCERR: no permission";
	case SIGBUS * 100 + BUS_ADRALN: return "BUS_ADRALN";
	case SIGBUS * 100 + BUS_ADRERR: return "BUS_ADRERR";
	case SIGBUS * 100 + BUS_OBJERR: return "BUS_OBJERR";
	case SIGFPE * 100 + FPE_INTDIV: return "FPE_INTDIV: integer divide by zero";
	case SIGFPE * 100 + FPE_INTOVF: return "FPE_INTOVF: integer overflow";
	case SIGFPE * 100 + FPE_FLTDIV: return "FPE_FLTDIV";
	case SIGFPE * 100 + FPE_FLTINV: return "FPE_FLTINV";
	case SIGILL * 100 + ILL_ILLOPC: return "ILL_ILLOPC: illegal opcode";
	case SIGILL * 100 + ILL_ILLOPN: return "ILL_ILLOPN";
	case SIGILL * 100 + ILL_PRVOPC: return "ILL_PRVOPC";
	}
	return "";
}

static bool has_address(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

/* ---- backtraces ------------------------------------------------------------------- */

/* A name of the program's: its main as users know it (sicpp renamed it). */
static void put_name(const char *name)
{
	bool sic_main = !strncmp(name, "__sic_main", 10) && (!name[10] || name[10] == '.');
	put(sic_main ? "main" : name);
	if (sic_main)
		put(name + 10);
}

/* A frame in a shared object: the name of the function whose symbol holds `at`, from
 * its debug file, else its own tables; 1 with the name and start, 0 if none holds it,
 * -1 if neither file opens (libunwind's name then: the vDSO's are all exported). */
/* ---- file:line of the executable's frames ------------------------------------------ */

#define MAX_WHERE 128
static struct where {
	uintptr_t off;  /* in the executable, of the instruction (a return address less one) */
	char at[112];   /* "file.c:LINE", or "" where addr2line cannot say */
} wheres[MAX_WHERE];
static int nwheres;

static struct where *where_of(uintptr_t off)
{
	for (int i = 0; i < nwheres; i++)
		if (wheres[i].off == off)
			return &wheres[i];
	return NULL;
}

static void note_where(uintptr_t off)
{
	if (nwheres < MAX_WHERE && !where_of(off)) {
		wheres[nwheres].off = off;
		wheres[nwheres++].at[0] = '\0';
	}
}

/* Hex text of v into buf (at least 19 bytes). */
static void hex_text(uint64_t v, char *buf)
{
	char tmp[16];
	int n = 0;
	do
		tmp[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && n < 16);
	buf[0] = '0', buf[1] = 'x';
	for (int i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	buf[2 + n] = '\0';
}

/* Every noted pc's file:line, from one run of addr2line -s (base names, as its
 * other lines name the objects). Nothing where it is not installed. */
static void name_wheres(void)
{
	static char exe[4096], addrs[MAX_WHERE][20], buf[MAX_WHERE * 128];
	static char *argv[MAX_WHERE + 5];
	if (!nwheres)
		return;
	long el = rp_raw_syscall(SYS_readlink, (long)"/proc/self/exe", (long)exe, sizeof exe - 1, 0, 0, 0);
	if (el <= 0)
		return;
	exe[el] = '\0';
	int k = 0;
	argv[k++] = "addr2line";
	argv[k++] = "-s";
	argv[k++] = "-e";
	argv[k++] = exe;
	for (int i = 0; i < nwheres; i++) {
		hex_text(wheres[i].off, addrs[i]);
		argv[k++] = addrs[i];
	}
	argv[k] = NULL;
	rp_addr2line(argv, buf, sizeof buf);
	char *line = buf;
	for (int i = 0; i < nwheres && *line; i++) {
		char *nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		char *disc = strstr(line, " (discriminator");
		if (disc)
			*disc = '\0';
		if (line[0] != '?' && strchr(line, ':') && !strstr(line, ":?") && !strstr(line, ":0")) {
			size_t n = strlen(line);
			if (n >= sizeof wheres[i].at)
				n = sizeof wheres[i].at - 1;
			memcpy(wheres[i].at, line, n);
			wheres[i].at[n] = '\0';
		}
		line = nl + 1;
	}
}

static int object_sym(const struct object *o, uintptr_t at, char *name, size_t len, uintptr_t *start)
{
	char path[sizeof debug_dir + 128];
	rp_crash_debug_path(path, sizeof path, debug_dir, o->id, o->idlen);
	int found = path[0] ? rp_crash_sym_file(path, at, name, len, start) : -1;
	if (found < 0 && o->path)
		found = rp_crash_sym_file(o->path, at, name, len, start);
	return found;
}

/* One frame's line, at ip (its cursor c names it). exact: ip is the instruction
 * itself (a signal's), not a return address, whose function is the one holding
 * ip - 1 (a call may end its function). */
static void frame_at(int n, unw_cursor_t *c, unw_word_t ip, bool exact)
{
	unw_word_t off = 0, r15 = 0;
	char name[256];
	put("  #");
	put_num((uint64_t)n, 10);
	put(n < 10 ? "  " : " ");
	int k = 0;
	while (k < nobjects && !(ip >= objects[k].lo && ip < objects[k].hi))
		k++;
	uintptr_t start = 0;
	int found = k > 0 && k < nobjects
			    ? object_sym(&objects[k], ip - objects[k].base - !exact, name, sizeof name, &start)
			    : -1;
	if (found > 0) {
		put(name);
		put("+");
		put_num(ip - objects[k].base - start, 16);
	} else if (found == 0) {
		put("??");
	} else if (rp_stub_function(ip, exact && u_get_reg(c, UNW_X86_64_R15, &r15) == 0 ? &r15 : NULL,
				    name, sizeof name)) {
		/* the function's own frame, at a counting point or a pause; in a run of
		 * stubs that several share, r15 (where it is the interrupted one's) tells
		 * whose counting point jumped in */
		put_name(name);
	} else if (u_get_proc_name(c, name, sizeof name, &off) == 0 || name[0]) {
		put_name(name);
		put("+");
		put_num(off, 16);
	} else {
		put("??");
	}
	put(" (");
	if (k < nobjects) {
		put(objects[k].name);
		put("+");
		put_num(ip - objects[k].base, 16);
	} else {
		put_num(ip, 16);
	}
	put(")");
	if (k == 0 && nobjects > 0) {
		uintptr_t at = ip - objects[0].base - !exact;
		struct where *w = where_of(at);
		if (noting)
			note_where(at);
		else if (w && w->at[0]) {
			put(" at ");
			put(w->at);
		}
	}
	put("\n");
}

static void frame(int n, unw_cursor_t *c, bool exact)
{
	unw_word_t ip = 0;
	u_get_reg(c, UNW_REG_IP, &ip);
	frame_at(n, c, ip, exact);
}

static int init_cursor(unw_cursor_t *c, ucontext_t *uc, bool signal)
{
	return u_init_local2 ? u_init_local2(c, (unw_context_t *)uc, signal ? UNW_INIT_SIGNAL_FRAME : 0)
			     : u_init_local(c, (unw_context_t *)uc);
}

/* Unwind from a context: a signal's (signal = true: its PC is the faulting or
 * interrupted instruction itself, not a return address) or a switched-out thread's;
 * skip: frames to leave out at the top, then at most count. */
static void backtrace_from(ucontext_t *uc, bool signal, int skip, int count)
{
	unw_cursor_t c;
	if (init_cursor(&c, uc, signal) != 0) {
		put("  (cannot unwind)\n");
		return;
	}
	for (int n = 0; n < skip; n++)
		if (u_step(&c) <= 0) {
			put("  (cannot unwind)\n");
			return;
		}
	for (int n = 0; n < count && n < MAX_FRAMES; n++) {
		frame(n, &c, n == 0 && skip == 0 && signal);
		if (u_step(&c) <= 0)
			return;
	}
	if (count >= MAX_FRAMES)
		put("  ...\n");
}

static void backtrace(ucontext_t *uc, bool signal)
{
	backtrace_from(uc, signal, 0, MAX_FRAMES);
}

/* The frames of the program's own: from the call it made into the runtime, which
 * stays (a blocked thread starts at pthread_mutex_lock, its caller below), to its
 * outermost code; not the runtime's above (the scheduler, the report itself) nor below
 * (how a thread starts). Everything if the program's code is not on the stack. */
static void program_frames(ucontext_t *uc, bool signal, int *skip, int *count, int *first_out)
{
	unw_cursor_t c;
	unw_word_t ip = 0;
	int first = -1, last = -1;
	*skip = 0;
	*count = MAX_FRAMES;
	*first_out = -1;
	if (init_cursor(&c, uc, signal) != 0)
		return;
	for (int n = 0; n < MAX_FRAMES; n++) {
		u_get_reg(&c, UNW_REG_IP, &ip);
		char stub[64];
		uintptr_t at = n == 0 && signal ? ip : ip - 1;
		if (rp_sic_pc_instrumented(at) || rp_stub_function(at, NULL, stub, sizeof stub)) {
			if (first < 0)
				first = n;
			last = n;
		}
		if (u_step(&c) <= 0)
			break;
	}
	if (first < 0)
		return;
	*first_out = first;
	*skip = first > 0 ? first - 1 : 0;
	*count = last - *skip + 1;
}

/* A thread switched out inside a call it made, preempted before the call (the
 * hunting scheduler: its PREEMPT names the call's counting point, stop_pc): shown at
 * that pc, as its replay, stopped there by the breakpoint, shows it; then its callers. */
static void backtrace_stopped(ucontext_t *uc, int first, int last, uintptr_t stop_pc)
{
	unw_cursor_t c, at;
	static ucontext_t pcuc;
	if (init_cursor(&c, uc, false) != 0)
		return;
	for (int n = 0; n < first; n++)
		if (u_step(&c) <= 0)
			return;
	memset(&pcuc, 0, sizeof pcuc);
	pcuc.uc_mcontext.gregs[REG_RIP] = (greg_t)stop_pc;
	pcuc.uc_mcontext.gregs[REG_RSP] = uc->uc_mcontext.gregs[REG_RSP];
	if (init_cursor(&at, &pcuc, true) != 0)
		return;
	frame_at(0, &at, stop_pc, true);
	for (int n = 1; n <= last - first && n < MAX_FRAMES; n++) {
		if (u_step(&c) <= 0)
			return;
		frame(n, &c, false);
	}
}

/* Where a stub that calls __sic_overflow goes back to the program: after the call
 * come `leaq 128(%rsp), %rsp` and a jump (sicpp/rewrite.c); 0 for another form. */
static uintptr_t stub_resume(uintptr_t ret)
{
	static const unsigned char leaq[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	const unsigned char *p = (const unsigned char *)ret;
	if (memcmp(p, leaq, sizeof leaq) != 0)
		return 0;
	p += sizeof leaq;
	int32_t rel;
	if (p[0] == 0xe9) {
		memcpy(&rel, p + 1, sizeof rel);
		return (uintptr_t)(p + 5) + (intptr_t)rel;
	}
	return p[0] == 0xeb ? (uintptr_t)(p + 2) + (intptr_t)(int8_t)p[1] : 0;
}

/* A thread the recording preempted at a counting point (a tick in foreign code made
 * it wait for one: record.c's rp_record_overflow; the hunting scheduler's
 * rp_count_overflow) was switched out inside the counter's overflow path, and so is
 * its replay (replay.c's rp_replay_overflow; one stopped by the trap where a stub
 * goes back to the program is switched out from a signal there). Both are shown as
 * preempted, from the program's instruction: uc gets the stub's registers (libunwind
 * restores the callee-saved ones through the overflow path's CFI), the stack pointer
 * it gives back and the pc it jumps to. False if the thread is not in that path. */
static bool preempted_at_count(ucontext_t *from, ucontext_t *uc)
{
	unw_cursor_t c;
	char name[64];
	unw_word_t off, v;
	bool in_record = false;
	if (!u_init_local2 || u_init_local2(&c, (unw_context_t *)from, UNW_INIT_SIGNAL_FRAME) != 0)
		return false;
	for (int n = 0; n < MAX_FRAMES; n++) {
		if (u_get_proc_name(&c, name, sizeof name, &off) != 0)
			name[0] = 0;
		in_record |= !strcmp(name, "rp_record_overflow") || !strcmp(name, "rp_count_overflow") ||
			     !strcmp(name, "rp_replay_overflow") || !strcmp(name, "preempt_at_stub");
		bool far = !strcmp(name, "__sic_overflow_far") || !strcmp(name, "__sic_overflow_near");
		bool overflow = far || !strcmp(name, "__sic_overflow");
		if (u_step(&c) <= 0)
			return false;
		if (!overflow)
			continue;
		if (!in_record)
			return false;
		static const int regs[][2] = {{UNW_X86_64_RBX, REG_RBX}, {UNW_X86_64_RBP, REG_RBP},
			{UNW_X86_64_R12, REG_R12}, {UNW_X86_64_R13, REG_R13}, {UNW_X86_64_R14, REG_R14},
			{UNW_X86_64_R15, REG_R15}};
		memset(uc, 0, sizeof *uc);
		for (size_t k = 0; k < sizeof regs / sizeof regs[0]; k++)
			if (u_get_reg(&c, regs[k][0], &v) == 0)
				uc->uc_mcontext.gregs[regs[k][1]] = (greg_t)v;
		unw_word_t ip = 0, sp = 0;
		u_get_reg(&c, UNW_REG_IP, &ip);
		u_get_reg(&c, UNW_REG_SP, &sp);
		/* __sic_overflow_far's (_near's) CFI unwinds to the counting point; a stub
		 * that calls __sic_overflow is left 128 bytes below it, then jumps back. */
		uintptr_t pc = far ? (uintptr_t)ip : stub_resume((uintptr_t)ip);
		if (!pc)
			return false;
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
		uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(far ? sp : sp + 128);
		return true;
	}
	return false;
}

static void thread_head(int tid, const char *what, const char *detail)
{
	put("libreplay: thread ");
	put_num((uint64_t)tid, 10);
	put(" (");
	put(what);
	put(detail);
	put("):\n");
}

static void other_thread(struct sched_thread *st)
{
	struct sched_thread_info in;
	struct rp_thread *t = st->ext;
	sched_thread_info(st, &in);
	if (in.state == SCHED_EXITED) {
		thread_head(st->id, "exited", "");
		return;
	}
	if (t && t->uc) {
		thread_head(st->id, "preempted", "");
		if (u_init_local)
			backtrace(t->uc, true);
		return;
	}
	/* The resume PC and stack pointer are all the CFI needs: the callee-saved
	 * registers are on that stack (sched_switch.S). */
	static ucontext_t uc, at_count;
	memset(&uc, 0, sizeof uc);
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)in.pc;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)in.sp;
	if (in.state != SCHED_BLOCKED && in.sp && t && t->stop_pc && u_init_local) {
		/* Preempted before a call it made (the hunting scheduler, at a lock's
		 * counting point): from that pc, as its replay, stopped there by the
		 * breakpoint, shows it (and as deadlock reports do: rp_report_thread). */
		int skip, count, first;
		program_frames(&uc, false, &skip, &count, &first);
		(void)skip, (void)count;
		if (first >= 0) {
			thread_head(st->id, "preempted", "");
			backtrace_stopped(&uc, first, first + MAX_FRAMES, t->stop_pc);
			return;
		}
	}
	if (in.state != SCHED_BLOCKED && in.sp && preempted_at_count(&uc, &at_count)) {
		thread_head(st->id, "preempted", "");
		backtrace(&at_count, true);
		return;
	}
	if (in.state == SCHED_BLOCKED)
		thread_head(st->id, "blocked on ", sched_wait_kind_name(in.wait_kind));
	else
		thread_head(st->id, "runnable", "");
	if (!u_init_local || !in.sp)
		return;
	backtrace(&uc, true);
}

/* ---- deadlock and hang reports (outcome.c) ------------------------------------------ */

/* "libreplay: thread N (state):" and its backtrace, the program's frames (from the
 * call it made into the runtime): from its preemption's signal context, from the
 * counting point it was preempted at, from its switch, or (the one making the report,
 * here) from the signal context that stopped it, or else from the caller's stack. */
void rp_report_thread(struct sched_thread *st, const char *state, bool here, ucontext_t *here_uc)
{
	struct sched_thread_info in;
	struct rp_thread *t = st->ext;
	static ucontext_t uc, at_count;
	bool signal = !(here && !here_uc); /* getcontext's pc is a return address */
	sched_thread_info(st, &in);
	thread_head(st->id, state, "");
	if (!u_init_local || in.state == SCHED_EXITED)
		return;
	if (here && here_uc) {
		uc = *here_uc;
	} else if (here) {
		getcontext(&uc);
	} else if (t && t->uc) {
		uc = *t->uc;
	} else if (in.sp) {
		memset(&uc, 0, sizeof uc);
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)in.pc;
		uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)in.sp;
		if (!t->stop_pc && preempted_at_count(&uc, &at_count))
			uc = at_count;
	} else {
		return;
	}
	int skip, count, first;
	program_frames(&uc, signal, &skip, &count, &first);
	if (!here && t && !t->uc && t->stop_pc && first >= 0)
		backtrace_stopped(&uc, first, skip + count - 1, t->stop_pc);
	else
		backtrace_from(&uc, signal, skip, count);
}

/* Lines of the report's own (the title, the cycle), written with the backtraces. */
void rp_report_line(const char *s)
{
	put(s);
}

void rp_report_flush(void)
{
	flush_out();
}

void rp_crash(int sig, const siginfo_t *si, ucontext_t *uc)
{
	char why[16] = "SIG";
	const char *abbrev = sigabbrev_np(sig);
	strncat(why, abbrev ? abbrev : "?", sizeof why - 4);
	rp_trace_end(why, uc);
	rp_crash_report(sig, si, uc);
}

static void crash_report(int sig, const siginfo_t *si, ucontext_t *uc);

void rp_crash_report(int sig, const siginfo_t *si, ucontext_t *uc)
{
	int saved = errno;
	if (u_init_local) {
		noting = true; /* the frames' pcs first, named all at once */
		nwheres = 0;
		crash_report(sig, si, uc);
		noting = false;
		used = 0;
		name_wheres();
	}
	crash_report(sig, si, uc);
	errno = saved;
}

static void crash_report(int sig, const siginfo_t *si, ucontext_t *uc)
{
	struct sched_thread *cur = sched_current();
	const char *abbrev = sigabbrev_np(sig);
	put("libreplay: thread ");
	put_num((uint64_t)cur->id, 10);
	put(cur->id == 0 ? " (after main returned)" : "");
	put(" died of SIG");
	put(abbrev ? abbrev : "?");
	put(" (si_code ");
	if (si->si_code < 0)
		put("-");
	put_num(si->si_code < 0 ? (uint64_t)-(int64_t)si->si_code : (uint64_t)si->si_code, 10);
	const char *cn = code_name(sig, si->si_code);
	if (*cn) {
		put(" ");
		put(cn);
	}
	if (has_address(sig) && si->si_code > 0) {
		put(", address ");
		put_num((uint64_t)(uintptr_t)si->si_addr, 16);
	}
	put(")\n");
	if (sig == SIGSEGV && cur->id != 0) {
		/* sched maps a guard page just below every stack it maps. */
		struct sched_thread_info info;
		sched_thread_info(cur, &info);
		uintptr_t a = (uintptr_t)si->si_addr, lo = (uintptr_t)info.stack_lo;
		if (a < lo && lo - a <= (uintptr_t)__getauxval(AT_PAGESZ)) {
			put("libreplay: the address is in the guard page below thread ");
			put_num((uint64_t)cur->id, 10);
			put("'s stack: a stack overflow\n");
		}
	}
	if (!u_init_local)
		put("libreplay: no backtraces: libunwind.so.8 is not installed (Debian: libunwind8)\n");
	thread_head(cur->id, "faulted", "");
	if (u_init_local)
		backtrace(uc, true);
	for (struct sched_thread *st = sched_thread_next(NULL); st; st = sched_thread_next(st))
		if (st != cur)
			other_thread(st);
	if (!noting)
		flush_out();
}
