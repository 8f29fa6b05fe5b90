/*
 * sicstep: check the counting invariant of an instrumented program by single-stepping it.
 *
 *   sicstep [--max-steps N] PROGRAM [ARGS...]
 *
 * The program runs under ptrace, one instruction at a time. Whenever the stopped PC
 * lies in instrumented code (the sic_ranges table) and is a PC where a preemption may
 * land (not in sic_nopreempt), the pair (%r15, PC) goes into a set. %r15 only counts
 * down while instrumented code runs, so no pair may ever be seen twice: a repeat
 * means a cycle of the control-flow graph that passes no counting point, and a replay
 * could not tell two moments of the run apart.
 *
 * Exit status: 0 if no pair repeated, the program exited 0 and at least one step was
 * in instrumented code; 1 otherwise (each failure says why); 2 for usage errors.
 *
 * Limits: single-threaded programs (threads the program creates are not traced), and
 * only the main executable's tables are read (instrumented shared libraries are
 * ignored). LIBREPLAY_SIC_STRESS is removed from the program's environment: in stress
 * runs the counter restarts on purpose, and pairs legitimately repeat.
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
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REPORTS 20 /* repeats printed one per line; the rest are only counted */

static const char *prog_name; /* as given on the command line, for messages */

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

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fail("out of memory");
	return p;
}

/* ---- the executable's tables ------------------------------------------------ */

struct range {
	uint64_t lo, hi; /* [lo, hi), link-time addresses until relocated */
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
	struct func *funcs; /* from .symtab, sorted by address, for reports */
	size_t nfuncs;
};

static const Elf64_Shdr *shdr_at(const struct image *im, const Elf64_Ehdr *eh, size_t k)
{
	return (const Elf64_Shdr *)(im->data + eh->e_shoff + k * eh->e_shentsize);
}

/* A section's contents, checked to lie inside the file. */
static const unsigned char *section_bytes(const struct image *im, const Elf64_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > im->size || sh->sh_size > im->size - sh->sh_offset)
		fail("%s: section extends past the end of the file", prog_name);
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

/* Each entry is an int32 holding (target - address of the entry itself). */
static uint64_t pcrel(const Elf64_Shdr *sh, const unsigned char *bytes, size_t index)
{
	int32_t v;
	memcpy(&v, bytes + 4 * index, 4);
	return sh->sh_addr + 4 * index + (int64_t)v;
}

static void load_symbols(struct image *im, const Elf64_Ehdr *eh, const Elf64_Shdr *symtab)
{
	if (symtab->sh_link >= eh->e_shnum || symtab->sh_entsize != sizeof(Elf64_Sym))
		return;
	const Elf64_Shdr *strtab = shdr_at(im, eh, symtab->sh_link);
	const unsigned char *syms = section_bytes(im, symtab);
	const char *strs = (const char *)section_bytes(im, strtab);
	size_t n = symtab->sh_size / sizeof(Elf64_Sym);
	im->funcs = xmalloc(n * sizeof *im->funcs);
	for (size_t k = 0; k < n; k++) {
		Elf64_Sym s;
		memcpy(&s, syms + k * sizeof s, sizeof s);
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0 || s.st_name >= strtab->sh_size)
			continue;
		im->funcs[im->nfuncs++] = (struct func){s.st_value, s.st_size, strs + s.st_name};
	}
	qsort(im->funcs, im->nfuncs, sizeof *im->funcs, cmp_func);
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

	/* The lowest loadable segment: it is what the mapping at file offset 0 holds. */
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

	if (eh->e_shoff == 0 || eh->e_shoff > im->size ||
	    (uint64_t)eh->e_shnum * eh->e_shentsize > im->size - eh->e_shoff || eh->e_shentsize < sizeof(Elf64_Shdr))
		fail("%s: no usable section headers", path);
	size_t shnum = eh->e_shnum, shstrndx = eh->e_shstrndx;
	if (shnum == 0) /* more than SHN_LORESERVE sections: the count is in section 0 */
		shnum = shdr_at(im, eh, 0)->sh_size;
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
	if (!rs || rs->sh_size == 0)
		fail("%s: no sic_ranges section: the program is not instrumented (build it with sicc)", path);

	const unsigned char *b = section_bytes(im, rs);
	im->nranges = rs->sh_size / 8;
	im->ranges = xmalloc(im->nranges * sizeof *im->ranges);
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
		im->nopre = xmalloc(im->nnopre * sizeof *im->nopre);
		for (size_t k = 0; k < im->nnopre; k++)
			im->nopre[k] = pcrel(np, b, k);
		qsort(im->nopre, im->nnopre, sizeof *im->nopre, cmp_u64);
	}
	if (symtab)
		load_symbols(im, eh, symtab);
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
	while (lo < hi) { /* the last function starting at or before addr */
		size_t mid = lo + (hi - lo) / 2;
		if (im->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - im->funcs[lo - 1].addr >= (im->funcs[lo - 1].size ? im->funcs[lo - 1].size : 1)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s+0x%" PRIx64, im->funcs[lo - 1].name, addr - im->funcs[lo - 1].addr);
}

/* ---- the set of (count, pc) pairs ------------------------------------------- */

struct slot {
	uint64_t r15, pc; /* pc == 0: empty (no instrumented code lives at address 0) */
	uint64_t step;    /* when the pair was first seen */
};

static struct slot *table;
static size_t table_cap, table_used; /* cap: a power of two */

static size_t hash_pair(uint64_t r15, uint64_t pc)
{
	uint64_t h = r15 * 0x9e3779b97f4a7c15u ^ (pc + 0x632be59bd9b4e019u) * 0xbf58476d1ce4e5b9u;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebu;
	h ^= h >> 29;
	return (size_t)h;
}

static struct slot *find_slot(struct slot *t, size_t cap, uint64_t r15, uint64_t pc)
{
	for (size_t i = hash_pair(r15, pc) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (t[i].pc == 0 || (t[i].pc == pc && t[i].r15 == r15))
			return &t[i];
}

static void grow(void)
{
	size_t cap = table_cap ? 2 * table_cap : 1 << 16;
	struct slot *t = calloc(cap, sizeof *t);
	if (!t)
		fail("out of memory (%zu pairs)", table_used);
	for (size_t k = 0; k < table_cap; k++)
		if (table[k].pc)
			*find_slot(t, cap, table[k].r15, table[k].pc) = table[k];
	free(table);
	table = t;
	table_cap = cap;
}

/* 0 if the pair is new; otherwise the step it was first seen at (steps count from 1). */
static uint64_t insert_pair(uint64_t r15, uint64_t pc, uint64_t step)
{
	if (2 * (table_used + 1) > table_cap)
		grow();
	struct slot *s = find_slot(table, table_cap, r15, pc);
	if (s->pc)
		return s->step;
	*s = (struct slot){r15, pc, step};
	table_used++;
	return 0;
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
		int n = snprintf(buf, sizeof buf, "%.*s/%s", (int)(end - path), end == path ? "." : path, prog);
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
	uint64_t found = 0;
	bool ok = false;
	while (fgets(line, sizeof line, f)) {
		unsigned long long start, end, off, inode;
		unsigned dev_major, dev_minor;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &off, &dev_major,
			   &dev_minor, &inode) != 7)
			continue;
		if (off == 0 && inode == (unsigned long long)st.st_ino && inode != 0) {
			found = start;
			ok = true;
			break;
		}
	}
	fclose(f);
	if (!ok)
		fail("%s: cannot find the executable's mapping in %s", path, mp);
	return found;
}

static pid_t child;

static void kill_child(void)
{
	if (child > 0)
		kill(child, SIGKILL);
}

static pid_t start(char *path, char **argv)
{
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
	/* If we die, so does the tracee: it must not run on stopped forever. */
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	return pid;
}

static void usage(FILE *o)
{
	fputs("usage: sicstep [--max-steps N] PROGRAM [ARGS...]\n"
	      "Single-step an instrumented PROGRAM and check that no (%r15, PC) pair repeats\n"
	      "among the instructions it executes in instrumented code.\n",
	      o);
}

int main(int argc, char **argv)
{
	uint64_t max_steps = 50000000;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--max-steps") && i + 1 < argc) {
			char *end;
			errno = 0;
			max_steps = strtoull(argv[++i], &end, 0);
			if (errno || *end || !*argv[i] || max_steps == 0) {
				fprintf(stderr, "sicstep: --max-steps wants a positive number\n");
				return 2;
			}
		} else if (!strncmp(argv[i], "--max-steps=", 12)) {
			char *end;
			errno = 0;
			max_steps = strtoull(argv[i] + 12, &end, 0);
			if (errno || *end || !argv[i][12] || max_steps == 0) {
				fprintf(stderr, "sicstep: --max-steps wants a positive number\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--")) {
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

	/* The child's output and ours interleave in order on a shared terminal or file. */
	fflush(NULL);
	child = start(path, argv + i);
	atexit(kill_child);
	uint64_t bias = 0;
	if (im.type == ET_DYN)
		bias = find_load_address(child, path) - im.first_vaddr;
	relocate(&im, bias);

	uint64_t steps = 0, in_code = 0, repeats = 0;
	int status = 0;
	int sig = 0; /* a signal to pass on at the next resume */
	for (;;) {
		if (steps >= max_steps) {
			fprintf(stderr, "sicstep: %s: stopped after the step limit (%" PRIu64 " steps)\n",
				prog_name, max_steps);
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			child = 0;
			return 1;
		}
		if (ptrace(PTRACE_SINGLESTEP, child, NULL, (void *)(long)sig) < 0)
			fail("PTRACE_SINGLESTEP: %s", strerror(errno));
		sig = 0;
		if (waitpid(child, &status, 0) < 0)
			fail("waitpid: %s", strerror(errno));
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) != SIGTRAP) {
			sig = WSTOPSIG(status); /* the program's own signal: deliver it */
			continue;
		}
		steps++;
		struct user_regs_struct regs;
		if (ptrace(PTRACE_GETREGS, child, NULL, &regs) < 0)
			fail("PTRACE_GETREGS: %s", strerror(errno));
		uint64_t pc = regs.rip;
		if (!in_ranges(&im, pc) || is_nopreempt(&im, pc))
			continue;
		in_code++;
		uint64_t first = insert_pair(regs.r15, pc, steps);
		if (first) {
			if (++repeats <= MAX_REPORTS) {
				char sym[256];
				symbolize(&im, pc - bias, sym, sizeof sym);
				fprintf(stderr,
					"sicstep: (count, pc) repeats: r15=0x%" PRIx64 " pc=0x%" PRIx64
					" (offset 0x%" PRIx64 " in %s) step %" PRIu64 " [%s, first seen at step %" PRIu64 "]\n",
					(uint64_t)regs.r15, pc, pc - bias, prog_name, steps, sym, first);
			} else if (repeats == MAX_REPORTS + 1) {
				fprintf(stderr, "sicstep: more repeats: counted, not shown\n");
			}
		}
	}
	child = 0;

	int rc = 0;
	char how[128];
	if (WIFEXITED(status)) {
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
		if (WEXITSTATUS(status) != 0)
			rc = 1;
	} else {
		snprintf(how, sizeof how, "was killed by signal %d (%s)%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
		rc = 1;
	}
	fprintf(stderr,
		"sicstep: %s %s; %" PRIu64 " steps, %" PRIu64 " in instrumented code, %zu distinct (count, pc) pairs, %" PRIu64
		" repeats\n",
		prog_name, how, steps, in_code, table_used, repeats);
	if (repeats) {
		fprintf(stderr, "sicstep: FAIL: %" PRIu64 " (count, pc) pairs repeated\n", repeats);
		rc = 1;
	}
	if (in_code == 0) {
		fprintf(stderr, "sicstep: FAIL: no step landed in instrumented code\n");
		rc = 1;
	}
	if (rc && !repeats && in_code)
		fprintf(stderr, "sicstep: FAIL: %s %s\n", prog_name, how);
	return rc;
}
