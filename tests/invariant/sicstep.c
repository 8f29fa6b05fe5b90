/*
 * sicstep: check the counting invariant of an instrumented program by single-stepping it.
 *
 *   sicstep [--max-steps N] [--step-all] PROGRAM [ARGS...]
 *
 * The program runs under ptrace. Every instruction it executes in instrumented code
 * (the sic_ranges table of the executable) is single-stepped; at each such stop whose
 * PC may take a preemption (it is not listed in sic_nopreempt) the pair (%r15, PC) goes
 * into a set. %r15 only counts down while instrumented code runs, so no pair may be
 * seen twice: a repeat is a cycle of the control-flow graph that passes no counting
 * point, two moments of the run that a replay could not tell apart.
 *
 * Single steps are slow (tens of microseconds each in a VM), and the dynamic loader
 * and libc execute far more instructions than a small test does. So by default the
 * code outside the ranges runs at full speed, and int3 breakpoints catch its way back
 * in. Foreign code can only enter instrumented code at
 *   - a function's first instruction (callbacks, main, constructors, PLT stubs): every
 *     function symbol inside the ranges carries a breakpoint from the start;
 *   - a return address (return from a foreign callee, longjmp to a setjmp call): when
 *     the stepped code leaves the ranges by a call, or by a jump with a return address
 *     of an instrumented call on top of the stack (a tail call), that address gets a
 *     breakpoint;
 *   - the instruction a signal interrupted (sigreturn comes back there): it gets a
 *     breakpoint when the signal is delivered (a signal delivered at a single-step
 *     comes before the instruction observed last, which is not observed twice: the
 *     runtime's time slice raises SIGPROF in every run, --no-record too);
 *   - wherever an out-of-line stub jumps back to (sicpp's foreign-entry and overflow
 *     stubs live outside the ranges): the first time the code leaves by a jump from a
 *     given PC, the foreign code is single-stepped until it comes back (or for at most
 *     PROBE_BUDGET instructions), and the PC where it came back gets a breakpoint.
 * Breakpoints stay in place; stepping over one puts the original byte back for that
 * step. --step-all single-steps everything instead, to cross-check the fast mode: both
 * must see the same instrumented steps (run.sh compares them).
 *
 * Exit status: 0 if no pair repeated, the program exited 0 and at least one step was
 * in instrumented code; 1 otherwise (each failure says why); 2 for usage errors.
 *
 * Limits: single-threaded programs (threads the program creates are not traced); only
 * the executable's own tables are read (instrumented shared libraries are ignored);
 * the fast mode plants int3 instructions in the program's text, so a program that
 * forks or execs needs --step-all; the fast mode needs the symbol table (a stripped
 * program is stepped whole). LIBREPLAY_SIC_STRESS is removed from the
 * program's environment: in stress runs the counter restarts on purpose.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAX_REPORTS
#define MAX_REPORTS 20 /* repeats printed one per line; the rest are only counted */
#endif

static const char *prog_name; /* as given on the command line, for messages */
static pid_t child;           /* killed if we exit early */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sicstep: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		fail("out of memory");
	return p;
}

/* ---- sets and maps keyed by addresses ----------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u) * 0xbf58476d1ce4e5b9u;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebu;
	h ^= h >> 29;
	return h;
}

/* Open addressing, linear probing, at most half full. Key pc == 0 marks an empty slot:
 * no code of ours lives at address 0. */
struct entry {
	uint64_t r15, pc; /* the key; r15 is 0 in the address-only tables */
	uint64_t val;     /* the pair table: the step of the first sighting; breakpoints:
			     the original byte */
};

struct table {
	struct entry *e;
	size_t cap, used;
};

static struct entry *probe(struct entry *e, size_t cap, uint64_t r15, uint64_t pc)
{
	for (size_t i = mix(r15, pc) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (e[i].pc == 0 || (e[i].pc == pc && e[i].r15 == r15))
			return &e[i];
}

static struct entry *lookup(const struct table *t, uint64_t r15, uint64_t pc)
{
	if (!t->cap)
		return NULL;
	struct entry *e = probe(t->e, t->cap, r15, pc);
	return e->pc ? e : NULL;
}

/* The entry for the key, created (val 0) if new; *fresh says which. */
static struct entry *insert(struct table *t, uint64_t r15, uint64_t pc, bool *fresh)
{
	if (2 * (t->used + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct entry *e = xcalloc(cap, sizeof *e);
		for (size_t k = 0; k < t->cap; k++)
			if (t->e[k].pc)
				*probe(e, cap, t->e[k].r15, t->e[k].pc) = t->e[k];
		free(t->e);
		t->e = e;
		t->cap = cap;
	}
	struct entry *e = probe(t->e, t->cap, r15, pc);
	*fresh = e->pc == 0;
	if (*fresh) {
		*e = (struct entry){r15, pc, 0};
		t->used++;
	}
	return e;
}

/* ---- the executable's tables ------------------------------------------------ */

struct range {
	uint64_t lo, hi; /* [lo, hi): link-time addresses until relocate() */
};

struct func {
	uint64_t addr, size;
	const char *name;
};

struct image {
	const unsigned char *data;
	size_t size;
	uint16_t type;        /* ET_EXEC or ET_DYN */
	uint64_t first_vaddr; /* page-aligned p_vaddr of the lowest PT_LOAD */
	struct range *ranges;
	size_t nranges;
	uint64_t *nopre;
	size_t nnopre;
	struct func *funcs; /* from .symtab, sorted by address */
	size_t nfuncs;
	bool has_symtab;
};

static const Elf64_Shdr *shdr_at(const struct image *im, const Elf64_Ehdr *eh, size_t k)
{
	return (const Elf64_Shdr *)(im->data + eh->e_shoff + k * eh->e_shentsize);
}

/* A section's contents, checked to lie inside the file. */
static const unsigned char *section_bytes(const struct image *im, const Elf64_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > im->size || sh->sh_size > im->size - sh->sh_offset)
		fail("%s: a section extends past the end of the file", prog_name);
	return im->data + sh->sh_offset;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Entry `index` of a table of int32s that each hold (target - own address). */
static uint64_t pcrel(const Elf64_Shdr *sh, const unsigned char *bytes, size_t index)
{
	int32_t v;
	memcpy(&v, bytes + 4 * index, 4);
	return sh->sh_addr + 4 * index + (int64_t)v;
}

static void load_symbols(struct image *im, const Elf64_Ehdr *eh, size_t shnum, const Elf64_Shdr *symtab)
{
	if (symtab->sh_link >= shnum || symtab->sh_entsize != sizeof(Elf64_Sym))
		return;
	const Elf64_Shdr *strtab = shdr_at(im, eh, symtab->sh_link);
	const unsigned char *syms = section_bytes(im, symtab);
	const char *strs = (const char *)section_bytes(im, strtab);
	size_t n = symtab->sh_size / sizeof(Elf64_Sym);
	im->funcs = xcalloc(n, sizeof *im->funcs);
	for (size_t k = 0; k < n; k++) {
		Elf64_Sym s;
		memcpy(&s, syms + k * sizeof s, sizeof s);
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF || s.st_value == 0 ||
		    s.st_name >= strtab->sh_size)
			continue;
		im->funcs[im->nfuncs++] = (struct func){s.st_value, s.st_size, strs + s.st_name};
	}
	qsort(im->funcs, im->nfuncs, sizeof *im->funcs, cmp_func);
	im->has_symtab = true;
}

static void load_image(struct image *im, const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0)
		fail("%s: %s", path, strerror(errno));
	if ((size_t)st.st_size < sizeof(Elf64_Ehdr))
		fail("%s: not an ELF file", path);
	void *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		fail("%s: mmap: %s", path, strerror(errno));
	close(fd);
	memset(im, 0, sizeof *im);
	im->data = p;
	im->size = st.st_size;

	const Elf64_Ehdr *eh = p;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != EM_X86_64)
		fail("%s: not an x86-64 ELF64 file", path);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		fail("%s: not an executable", path);
	im->type = eh->e_type;

	/* The lowest loadable segment: the mapping at file offset 0 holds it. */
	if (eh->e_phoff > im->size || (uint64_t)eh->e_phnum * eh->e_phentsize > im->size - eh->e_phoff)
		fail("%s: bad program headers", path);
	bool any_load = false;
	for (size_t k = 0; k < eh->e_phnum; k++) {
		Elf64_Phdr ph;
		memcpy(&ph, im->data + eh->e_phoff + k * eh->e_phentsize, sizeof ph);
		if (ph.p_type != PT_LOAD)
			continue;
		uint64_t v = ph.p_vaddr & ~(uint64_t)(ph.p_align > 1 ? ph.p_align - 1 : 0xfff);
		if (!any_load || v < im->first_vaddr)
			im->first_vaddr = v;
		any_load = true;
	}
	if (!any_load)
		fail("%s: no loadable segment", path);

	if (eh->e_shoff == 0 || eh->e_shoff > im->size || eh->e_shentsize < sizeof(Elf64_Shdr))
		fail("%s: no usable section headers", path);
	size_t shnum = eh->e_shnum, shstrndx = eh->e_shstrndx;
	if (shnum == 0) /* SHN_LORESERVE sections or more: the count is in section 0 */
		shnum = shdr_at(im, eh, 0)->sh_size;
	if ((uint64_t)shnum * eh->e_shentsize > im->size - eh->e_shoff)
		fail("%s: section headers extend past the end of the file", path);
	if (shstrndx == SHN_XINDEX)
		shstrndx = shdr_at(im, eh, 0)->sh_link;
	if (shstrndx >= shnum)
		fail("%s: no section name table", path);
	const Elf64_Shdr *names = shdr_at(im, eh, shstrndx);
	const char *strs = (const char *)section_bytes(im, names);

	const Elf64_Shdr *rs = NULL, *np = NULL, *symtab = NULL;
	for (size_t k = 0; k < shnum; k++) {
		const Elf64_Shdr *sh = shdr_at(im, eh, k);
		if (sh->sh_name >= names->sh_size)
			continue;
		const char *name = strs + sh->sh_name;
		if (!strcmp(name, "sic_ranges"))
			rs = sh;
		else if (!strcmp(name, "sic_nopreempt"))
			np = sh;
		else if (sh->sh_type == SHT_SYMTAB)
			symtab = sh;
	}
	if (!rs || rs->sh_size < 8)
		fail("%s: no sic_ranges section: the program is not instrumented (build it with sicc)", path);

	const unsigned char *b = section_bytes(im, rs);
	im->nranges = rs->sh_size / 8;
	im->ranges = xcalloc(im->nranges, sizeof *im->ranges);
	for (size_t k = 0; k < im->nranges; k++) {
		im->ranges[k].lo = pcrel(rs, b, 2 * k);
		im->ranges[k].hi = pcrel(rs, b, 2 * k + 1);
		if (im->ranges[k].hi < im->ranges[k].lo)
			fail("%s: sic_ranges entry %zu is reversed", path, k);
	}
	qsort(im->ranges, im->nranges, sizeof *im->ranges, cmp_range);
	if (np) {
		b = section_bytes(im, np);
		im->nnopre = np->sh_size / 4;
		im->nopre = xcalloc(im->nnopre, sizeof *im->nopre);
		for (size_t k = 0; k < im->nnopre; k++)
			im->nopre[k] = pcrel(np, b, k);
		qsort(im->nopre, im->nnopre, sizeof *im->nopre, cmp_u64);
	}
	if (symtab)
		load_symbols(im, eh, shnum, symtab);
}

static void relocate(struct image *im, uint64_t bias)
{
	for (size_t k = 0; k < im->nranges; k++) {
		im->ranges[k].lo += bias;
		im->ranges[k].hi += bias;
	}
	for (size_t k = 0; k < im->nnopre; k++)
		im->nopre[k] += bias;
}

static bool in_ranges(const struct image *im, uint64_t pc)
{
	static size_t last; /* consecutive steps mostly stay in one range */
	if (last < im->nranges && pc >= im->ranges[last].lo && pc < im->ranges[last].hi)
		return true;
	size_t lo = 0, hi = im->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pc < im->ranges[mid].lo)
			hi = mid;
		else if (pc >= im->ranges[mid].hi)
			lo = mid + 1;
		else {
			last = mid;
			return true;
		}
	}
	return false;
}

static bool is_nopreempt(const struct image *im, uint64_t pc)
{
	return bsearch(&pc, im->nopre, im->nnopre, sizeof *im->nopre, cmp_u64) != NULL;
}

/* "name+0xoff" for a link-time address, or "?" */
static void symbolize(const struct image *im, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = im->nfuncs;
	while (lo < hi) { /* past the last function that starts at or before addr */
		size_t mid = lo + (hi - lo) / 2;
		if (im->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct func *f = lo ? &im->funcs[lo - 1] : NULL;
	if (!f || addr - f->addr >= (f->size ? f->size : 1))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s+0x%" PRIx64, f->name, addr - f->addr);
}

/* ---- the tracee --------------------------------------------------------------- */

/* The file execvp would run: PROGRAM itself if it names a path, else a PATH search. */
static char *resolve_program(const char *prog)
{
	if (strchr(prog, '/'))
		return strdup(prog);
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		char buf[PATH_MAX];
		int n = end == path ? snprintf(buf, sizeof buf, "./%s", prog)
				    : snprintf(buf, sizeof buf, "%.*s/%s", (int)(end - path), path, prog);
		if (n > 0 && (size_t)n < sizeof buf && access(buf, X_OK) == 0)
			return strdup(buf);
		path = *end ? end + 1 : end;
	}
	fail("%s: not found in PATH", prog);
}

/* Where the kernel mapped the executable: the start of its mapping at file offset 0. */
static uint64_t find_load_address(pid_t pid, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		fail("%s: %s", path, strerror(errno));
	char mp[64];
	snprintf(mp, sizeof mp, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(mp, "r");
	if (!f)
		fail("%s: %s", mp, strerror(errno));
	char line[PATH_MAX + 256];
	unsigned long long found = 0;
	bool ok = false;
	while (!ok && fgets(line, sizeof line, f)) {
		unsigned long long start, end, off, inode;
		unsigned dev_major, dev_minor;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &off, &dev_major,
			   &dev_minor, &inode) == 7 &&
		    off == 0 && inode == (unsigned long long)st.st_ino &&
		    makedev(dev_major, dev_minor) == st.st_dev) {
			found = start;
			ok = true;
		}
	}
	fclose(f);
	if (!ok)
		fail("%s: cannot find the executable's mapping in %s", path, mp);
	return found;
}

static void kill_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

static pid_t start(char *path, char **argv)
{
	fflush(NULL); /* nothing of ours buffered twice */
	pid_t pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		unsetenv("LIBREPLAY_SIC_STRESS");
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			fprintf(stderr, "sicstep: PTRACE_TRACEME: %s\n", strerror(errno));
			_exit(127);
		}
		/* The same addresses every run: reports can be compared across runs. */
		personality(ADDR_NO_RANDOMIZE);
		execv(path, argv);
		fprintf(stderr, "sicstep: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		fail("waitpid: %s", strerror(errno));
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		if (WIFEXITED(st))
			fail("%s did not start (exit status %d)", prog_name, WEXITSTATUS(st));
		fail("%s did not stop after exec", prog_name);
	}
	/* If we die, so does the tracee: it must not linger stopped forever. */
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL) < 0)
		fail("PTRACE_SETOPTIONS: %s", strerror(errno));
	return pid;
}

static int memfd; /* /proc/PID/mem: reads the stack, writes breakpoints into text */

static uint64_t read_u64(uint64_t addr, bool *ok)
{
	uint64_t v = 0;
	*ok = pread(memfd, &v, sizeof v, (off_t)addr) == (ssize_t)sizeof v;
	return v;
}

static void write_byte(uint64_t addr, uint8_t b)
{
	if (pwrite(memfd, &b, 1, (off_t)addr) != 1)
		fail("cannot write the tracee's memory at 0x%" PRIx64 ": %s", addr, strerror(errno));
}

static uint8_t read_byte(uint64_t addr)
{
	uint8_t b;
	if (pread(memfd, &b, 1, (off_t)addr) != 1)
		fail("cannot read the tracee's memory at 0x%" PRIx64 ": %s", addr, strerror(errno));
	return b;
}

/* ---- breakpoints ------------------------------------------------------------------ */

static struct table bps;     /* address -> original byte */
static struct table returns; /* return addresses pushed by calls in instrumented code */

static void add_breakpoint(uint64_t addr)
{
	bool fresh;
	struct entry *e = insert(&bps, 0, addr, &fresh);
	if (!fresh)
		return;
	e->val = read_byte(addr);
	write_byte(addr, 0xcc);
}

/* ---- the run -------------------------------------------------------------------- */

struct run {
	struct image *im;
	uint64_t bias;
	bool step_all;
	uint64_t stops, singles, in_code, repeats;
	struct table pairs;
	uint64_t digest; /* of the set of pairs, whatever their order: for cross-checks */
};

/* A stop at a PC in instrumented code. */
static void observe(struct run *r, const struct user_regs_struct *regs)
{
	uint64_t pc = regs->rip;
	if (is_nopreempt(r->im, pc))
		return;
	r->in_code++;
	bool fresh;
	struct entry *e = insert(&r->pairs, regs->r15, pc, &fresh);
	if (fresh) {
		e->val = r->stops;
		r->digest += mix(regs->r15 ^ 0x5bd1e995u, pc);
		return;
	}
	if (++r->repeats <= MAX_REPORTS) {
		char sym[256];
		symbolize(r->im, pc - r->bias, sym, sizeof sym);
		fprintf(stderr,
			"sicstep: (count, pc) repeats: r15=0x%" PRIx64 " pc=0x%" PRIx64 " (offset 0x%" PRIx64
			" in %s) step %" PRIu64 " [%s; first seen at step %" PRIu64 "]\n",
			(uint64_t)regs->r15, pc, pc - r->bias, prog_name, r->stops, sym, e->val);
	} else if (r->repeats == MAX_REPORTS + 1) {
		fprintf(stderr, "sicstep: more repeats: counted, not shown\n");
	}
}

enum leave { STAYED, LEFT_BY_CALL, LEFT_BY_JUMP, LEFT_OTHERWISE };

/* One step from `prev` (in instrumented code) went to `cur`. Note the return addresses
 * that calls push, and if the step left the ranges, say how and plant breakpoints
 * where control may come back. */
static enum leave after_step(struct run *r, const struct user_regs_struct *prev,
			     const struct user_regs_struct *cur, bool left)
{
	bool ok = false, fresh;
	bool pushed = cur->rsp == prev->rsp - 8, jumped = left && cur->rsp == prev->rsp;
	uint64_t top = pushed || jumped ? read_u64(cur->rsp, &ok) : 0;
	bool call = ok && pushed && top > prev->rip && top <= prev->rip + 15 && in_ranges(r->im, top);
	if (call)
		insert(&returns, 0, top, &fresh);
	if (!left)
		return STAYED;
	if (call) {
		if (!r->step_all)
			add_breakpoint(top);
		return LEFT_BY_CALL;
	}
	if (!jumped)
		return LEFT_OTHERWISE;
	/* A tail call returns to our caller's caller: if that is instrumented code, it
	 * called with this return address on top. */
	if (ok && !r->step_all && lookup(&returns, 0, top))
		add_breakpoint(top);
	return LEFT_BY_JUMP;
}

static int wait_child(void)
{
	int st;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			fail("waitpid: %s", strerror(errno));
	return st;
}

static void get_regs(struct user_regs_struct *regs)
{
	if (ptrace(PTRACE_GETREGS, child, NULL, regs) < 0)
		fail("PTRACE_GETREGS: %s", strerror(errno));
}

/* After a jump out of the ranges from a PC never left from before, foreign code is
 * single-stepped (at most this many instructions) to learn where it comes back. */
#define PROBE_BUDGET 500

/* Run the tracee to its end; its wait status. */
static int trace(struct run *r, uint64_t max_stops)
{
	enum { RUN, STEP, PROBE } mode = r->step_all ? STEP : RUN;
	struct user_regs_struct regs, prev = {0};
	bool have_prev = false;  /* prev: the last stop, when it was in instrumented code */
	struct table probed = {0}; /* PCs of jumps out whose way back has a breakpoint */
	uint64_t probe_from = 0, probe_left = 0;
	int sig = 0; /* the program's own signal, passed on at the next resume */
	/* A signal delivered at a single-step runs its handler before the instruction
	 * observed last: that one comes back (sigreturn) with the same count, once. */
	bool again = false;
	struct user_regs_struct again_regs = {0};
	if (!r->step_all)
		for (size_t k = 0; k < r->im->nfuncs; k++) {
			uint64_t a = r->im->funcs[k].addr + r->bias;
			if (in_ranges(r->im, a))
				add_breakpoint(a);
		}
	for (;;) {
		if (r->stops >= max_stops) {
			fprintf(stderr, "sicstep: %s: stopped at the step limit (%" PRIu64 " steps)\n", prog_name,
				max_stops);
			exit(1);
		}
		struct entry *bp = NULL;
		if (mode == RUN) {
			if (ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig) < 0)
				fail("PTRACE_CONT: %s", strerror(errno));
		} else {
			/* A signal delivered here returns (sigreturn) to this instruction,
			 * maybe from foreign code. */
			if (sig && have_prev && !r->step_all)
				add_breakpoint(prev.rip);
			if (sig && have_prev) {
				again = true;
				again_regs = prev;
			}
			/* Step the original instruction under a breakpoint. */
			if (have_prev && (bp = lookup(&bps, 0, prev.rip)))
				write_byte(bp->pc, (uint8_t)bp->val);
			if (ptrace(PTRACE_SINGLESTEP, child, NULL, (void *)(long)sig) < 0)
				fail("PTRACE_SINGLESTEP: %s", strerror(errno));
		}
		sig = 0;
		int st = wait_child();
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			free(probed.e);
			return st;
		}
		if (bp)
			write_byte(bp->pc, 0xcc);
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);
			continue;
		}
		get_regs(&regs);
		if (mode == RUN) {
			if (!lookup(&bps, 0, regs.rip - 1)) {
				if (regs.eflags & 0x100) {
					/* A trap flag a stepped pushf saved and a popf restored:
					 * ours, not the program's. */
					regs.eflags &= ~0x100ULL;
					if (ptrace(PTRACE_SETREGS, child, NULL, &regs) < 0)
						fail("PTRACE_SETREGS: %s", strerror(errno));
				} else {
					sig = SIGTRAP; /* an int3 of the program's own */
				}
				continue;
			}
			regs.rip--;
			if (ptrace(PTRACE_SETREGS, child, NULL, &regs) < 0)
				fail("PTRACE_SETREGS: %s", strerror(errno));
		} else {
			r->singles++;
		}
		r->stops++;
		bool in = in_ranges(r->im, regs.rip);
		enum leave how = have_prev ? after_step(r, &prev, &regs, !in) : STAYED;
		if (in) {
			if (mode == PROBE) { /* found the way back */
				bool fresh;
				insert(&probed, 0, probe_from, &fresh);
				add_breakpoint(regs.rip);
			}
			mode = STEP;
			if (again && regs.rip == again_regs.rip && regs.r15 == again_regs.r15)
				again = false; /* seen before the signal */
			else
				observe(r, &regs);
			prev = regs;
			have_prev = true;
			continue;
		}
		if (r->step_all) {
			/* stay in STEP */
		} else if (how == LEFT_BY_JUMP && !lookup(&probed, 0, prev.rip)) {
			mode = PROBE;
			probe_from = prev.rip;
			probe_left = PROBE_BUDGET;
		} else if (how != STAYED || mode != PROBE) {
			mode = RUN;
		} else if (--probe_left == 0) {
			/* Not a stub: a tail call into foreign code, which comes back, if
			 * at all, to a return address or a function entry. */
			bool fresh;
			insert(&probed, 0, probe_from, &fresh);
			mode = RUN;
		}
		have_prev = false;
	}
}

static void usage(FILE *o)
{
	fputs("usage: sicstep [--max-steps N] [--step-all] PROGRAM [ARGS...]\n"
	      "Single-step the instrumented code of PROGRAM and check that no (%r15, PC) pair\n"
	      "repeats among the instructions it executes there.\n"
	      "  --max-steps N   give up (and fail) after N steps (default 50000000)\n"
	      "  --step-all      single-step foreign code too, instead of running it free\n",
	      o);
}

static bool parse_count(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || !*s || *s == '-' || v == 0)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	uint64_t max_stops = 50000000;
	bool step_all = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--max-steps") && i + 1 < argc) {
			if (!parse_count(argv[++i], &max_stops)) {
				fprintf(stderr, "sicstep: --max-steps wants a positive number\n");
				return 2;
			}
		} else if (!strncmp(a, "--max-steps=", 12)) {
			if (!parse_count(a + 12, &max_stops)) {
				fprintf(stderr, "sicstep: --max-steps wants a positive number\n");
				return 2;
			}
		} else if (!strcmp(a, "--step-all")) {
			step_all = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	prog_name = argv[i];
	char *path = resolve_program(argv[i]);
	struct image im;
	load_image(&im, path);
	if (!step_all && !im.has_symtab) {
		fprintf(stderr, "sicstep: %s has no symbol table: stepping every instruction\n", prog_name);
		step_all = true;
	}

	child = start(path, argv + i);
	atexit(kill_child);
	char mp[64];
	snprintf(mp, sizeof mp, "/proc/%d/mem", (int)child);
	if ((memfd = open(mp, O_RDWR)) < 0)
		fail("%s: %s", mp, strerror(errno));
	struct run r = {.im = &im, .step_all = step_all};
	if (im.type == ET_DYN)
		r.bias = find_load_address(child, path) - im.first_vaddr;
	relocate(&im, r.bias);

	int status = trace(&r, max_stops);
	child = 0;

	int rc = 0;
	char how[128];
	if (WIFEXITED(status)) {
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
		rc = WEXITSTATUS(status) != 0;
	} else {
		snprintf(how, sizeof how, "was killed by signal %d (%s)%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
		rc = 1;
	}
	fprintf(stderr,
		"sicstep: %s %s; %" PRIu64 " steps (%" PRIu64 " single-stepped, %" PRIu64 " at breakpoints), %" PRIu64
		" in instrumented code, %zu distinct (count, pc) pairs (digest %016" PRIx64 "), %" PRIu64 " repeats\n",
		prog_name, how, r.stops, r.singles, r.stops - r.singles, r.in_code, r.pairs.used, r.digest, r.repeats);
	if (r.repeats)
		fprintf(stderr, "sicstep: FAIL: %" PRIu64 " (count, pc) pairs repeated\n", r.repeats);
	if (rc)
		fprintf(stderr, "sicstep: FAIL: %s %s\n", prog_name, how);
	if (r.in_code == 0)
		fprintf(stderr, "sicstep: FAIL: no step landed in instrumented code\n");
	if (r.repeats || r.in_code == 0)
		rc = 1;
	free(r.pairs.e);
	free(bps.e);
	free(returns.e);
	free(im.ranges);
	free(im.nopre);
	free(im.funcs);
	free(path);
	return rc;
}
