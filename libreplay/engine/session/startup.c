/* startup.c: what the program sees of its start, at the same addresses in a
 * recording and in its replay. The kernel lays argv, the environment and the
 * auxiliary vector out at the top of the process stack, below the command line's
 * strings: a recording's command line has libreplay's flags and a replay's has other
 * ones, so everything there moves, and a program that hashes or caches by a
 * string's address (an interpreter interning argv) would diverge. Before the
 * program's main, a session copies them into a block of its own at a fixed address,
 * laid out from the data the two runs share:
 *
 *   page 0...: argv[] (argc + 1 pointers), the strings of argv[1..], argv[0]'s last
 *   next page: envp[] (environ, main's envp), the auxiliary vector (as the kernel
 *              puts it after envp's NULL), AT_RANDOM's 16 bytes, AT_PLATFORM's and
 *              AT_BASE_PLATFORM's strings
 *   next page: the environment's strings, then AT_EXECFN's
 *
 * so the argument strings do not move with the environment, nor the environment
 * with a longer argv[0]. environ, program_invocation_name and getauxval's pointers
 * (inputs/in_auxv.c) point there too. Constructors, which run before main, still see
 * the kernel's copies. */
#include "engine/core.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_HINT ((void *)0x5fff00000000ull) /* just below the arena (rp_alloc.c) */
#define BLOCK_PAGE 4096u
#define AUXV_MAX 64

extern char **environ;
extern char *program_invocation_name, *program_invocation_short_name;

static Elf64_auxv_t *block_auxv;

/* The kernel's auxiliary vector, from /proc/self/auxv (the copy after envp may be
 * out of reach: a constructor's setenv replaces environ). Entries, AT_NULL included. */
static size_t read_auxv(Elf64_auxv_t *v, size_t max)
{
	int fd = rp_sys_open("/proc/self/auxv", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	size_t got = 0, want = (max - 1) * sizeof *v;
	ssize_t n;
	while (got < want && (n = rp_sys_read(fd, (char *)v + got, want - got)) > 0)
		got += (size_t)n;
	rp_sys_close(fd);
	size_t k = got / sizeof *v;
	size_t i = 0;
	while (i < k && v[i].a_type != AT_NULL)
		i++;
	v[i].a_type = AT_NULL;
	v[i].a_un.a_val = 0;
	return i + 1;
}

static bool auxv_string(uint64_t type)
{
	return type == AT_PLATFORM || type == AT_BASE_PLATFORM || type == AT_EXECFN;
}

static size_t round_page(size_t n)
{
	return (n + BLOCK_PAGE - 1) & ~(size_t)(BLOCK_PAGE - 1);
}

static char *put(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = memcpy(*at, s, n);
	*at += n;
	return p;
}

static char *map_block(size_t len)
{
	char *p = sched_sys_mmap(BLOCK_HINT, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) /* taken: anywhere, the same in both runs as far as it goes */
		p = sched_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void rp_startup_place(int *argc, char ***argv, char ***envp)
{
	char **av = *argv, **ev = environ ? environ : *envp;
	int ac = *argc, ec = 0;
	Elf64_auxv_t aux[AUXV_MAX];
	size_t na = read_auxv(aux, AUXV_MAX);

	size_t r1 = ((size_t)ac + 1) * sizeof(char *), r2, r3 = 0;
	for (int i = 0; i < ac; i++)
		r1 += strlen(av[i]) + 1;
	while (ev && ev[ec])
		r3 += strlen(ev[ec++]) + 1;
	r2 = ((size_t)ec + 1) * sizeof(char *) + na * sizeof *aux + 16;
	for (size_t i = 0; i < na; i++)
		if (auxv_string(aux[i].a_type) && aux[i].a_un.a_val)
			*(aux[i].a_type == AT_EXECFN ? &r3 : &r2) +=
				strlen((const char *)aux[i].a_un.a_val) + 1;
	r1 = round_page(r1);
	r2 = round_page(r2);
	char *b = map_block(r1 + r2 + round_page(r3 + 1));
	if (!b)
		rp_fatal("cannot map the program's arguments: %s", strerror(errno));

	char **nav = (char **)b, *s = b + (ac + 1) * sizeof(char *);
	for (int i = 1; i < ac; i++)
		nav[i] = put(&s, av[i]);
	if (ac > 0)
		nav[0] = put(&s, av[0]);
	nav[ac] = NULL;

	char **nev = (char **)(b + r1);
	block_auxv = (Elf64_auxv_t *)(nev + ec + 1);
	char *s2 = (char *)(block_auxv + na), *s3 = b + r1 + r2;
	for (int i = 0; i < ec; i++)
		nev[i] = put(&s3, ev[i]);
	nev[ec] = NULL;
	for (size_t i = 0; i < na; i++) {
		block_auxv[i] = aux[i];
		const char *from = (const char *)aux[i].a_un.a_val;
		if (aux[i].a_type == AT_RANDOM && from) {
			block_auxv[i].a_un.a_val = (uint64_t)(uintptr_t)memcpy(s2, from, 16);
			s2 += 16;
		} else if (auxv_string(aux[i].a_type) && from) {
			char **to = aux[i].a_type == AT_EXECFN ? &s3 : &s2;
			block_auxv[i].a_un.a_val = (uint64_t)(uintptr_t)put(to, from);
		}
	}

	*argv = nav;
	*envp = environ = nev;
	if (ac > 0) {
		program_invocation_name = nav[0];
		char *slash = strrchr(nav[0], '/');
		program_invocation_short_name = slash ? slash + 1 : nav[0];
	}
}

bool rp_startup_auxv(unsigned long type, unsigned long *val)
{
	if (!block_auxv)
		return false;
	for (Elf64_auxv_t *a = block_auxv; a->a_type != AT_NULL; a++)
		if (a->a_type == type) {
			*val = a->a_un.a_val;
			return true;
		}
	return false;
}
