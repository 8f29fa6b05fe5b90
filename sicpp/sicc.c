/*
 * sicc: a drop-in gcc that builds instrumented programs (CC=sicc make).
 *
 * Like afl-gcc, it stands in for the assembler rather than for the compiler: it runs
 * gcc with -ffixed-r15 and -B <libexec>/libreplay, where this same program, named
 * "as", runs sicpp on each assembly file gcc generated from C and hands the result to
 * the real assembler. Links get libreplay.a. `sicc -S` writes instrumented assembly.
 * Named sic++, it drives g++ instead.
 *
 * Environment: SICC_CC (the compiler, default gcc), SICC_CXX (sic++'s, default g++),
 * SICC_AS (the assembler, default as), SICC_KEEP=DIR (keep each instrumented .s
 * there, for debugging).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sicc_link.h"

static char self_dir[PATH_MAX - 64]; /* the directory sicc lives in */

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sicc: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static void find_self(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n < 0)
		die("cannot find myself: %s", strerror(errno));
	buf[n] = '\0';
	snprintf(self_dir, sizeof self_dir, "%s", dirname(buf));
}

static int run(char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "sicc: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- the assembler stand-in ------------------------------------------------ */

/* Instrument assembly that gcc generated from C; leave hand-written assembly alone
 * (it is foreign code, like a library). */
static bool generated_from_c(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[4096];
	bool yes = false;
	for (int n = 0; fgets(line, sizeof line, f); n++) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, ".ident", 6) && strstr(p, "\"GCC:"))
			yes = true;
		if (n < 8 && !strncmp(p, ".file", 5)) {
			char *q = strrchr(p, '"');
			if (q && q - p > 3 && (!strncmp(q - 2, ".c", 2) || !strncmp(q - 2, ".i", 2)))
				yes = true;
		}
		if (yes)
			break;
	}
	fclose(f);
	return yes;
}

static char *copy_stdin(void)
{
	char path[] = "/tmp/sicc-stdin-XXXXXX.s";
	int fd = mkstemps(path, 2);
	if (fd < 0)
		die("temporary file: %s", strerror(errno));
	char buf[65536];
	ssize_t n;
	while ((n = read(0, buf, sizeof buf)) > 0)
		if (write(fd, buf, n) != n)
			die("temporary file: %s", strerror(errno));
	close(fd);
	return strdup(path);
}

/* Code for a shared object (-fPIC, -shared): sicpp --pic. The driver tells the
 * assembler stand-in with -Wa,--sicpp-pic, which it takes off before running as. */
#define SICPP_PIC_FLAG "--sicpp-pic"
static bool pic;
/* The race build (sicc --races): sicpp --races, told the same way. */
#define SICPP_RACES_FLAG "--sicpp-races"
static bool races;

/* sicpp in -o out; its exit status. */
static int run_sicpp(const char *in, const char *out)
{
	char sicpp[PATH_MAX];
	snprintf(sicpp, sizeof sicpp, "%s/sicpp", self_dir);
	char *sargv[6] = {sicpp, (char *)in, "-o", (char *)out};
	int n = 4;
	if (pic)
		sargv[n++] = "--pic";
	if (races)
		sargv[n++] = "--races";
	return run(sargv);
}

/* What to assemble in place of `in`: an instrumented copy (a temporary the caller
 * removes) of assembly gcc generated from C, `in` itself otherwise; NULL if sicpp
 * refused it (it said why). */
static char *prepare(char *in, bool *temporary)
{
	*temporary = false;
	if (!generated_from_c(in))
		return in;
	char out[] = "/tmp/sicc-XXXXXX.s";
	int fd = mkstemps(out, 2);
	if (fd < 0)
		die("temporary file: %s", strerror(errno));
	close(fd);
	if (run_sicpp(in, out) != 0) {
		unlink(out);
		return NULL;
	}
	const char *keep = getenv("SICC_KEEP");
	if (keep && *keep) {
		char dst[PATH_MAX], base[PATH_MAX];
		snprintf(base, sizeof base, "%s", in);
		snprintf(dst, sizeof dst, "%s/%s", keep, basename(base));
		char *cp[] = {"cp", out, dst, NULL};
		run(cp);
	}
	*temporary = true;
	return strdup(out);
}

static int as_main(int argc, char **argv)
{
	const char *real_as = getenv("SICC_AS");
	if (!real_as || !*real_as)
		real_as = "as";
	char **args = calloc(argc + 2, sizeof *args);
	char **temps = calloc(argc + 2, sizeof *temps);
	if (!args || !temps)
		die("%s", "out of memory");
	int ntemps = 0, ninputs = 0, rc = 1;
	bool query = false;
	args[0] = (char *)real_as;
	int nargs = 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], SICPP_PIC_FLAG))
			pic = true;
		else if (!strcmp(argv[i], SICPP_RACES_FLAG))
			races = true;
		else
			argv[nargs++] = argv[i];
	argc = nargs;
	argv[argc] = NULL;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		args[i] = a;
		if (a[0] == '-' && a[1]) {
			if ((!strcmp(a, "-o") || !strcmp(a, "-I") || !strcmp(a, "--defsym") ||
			     !strcmp(a, "-MD")) && i + 1 < argc) {
				args[i + 1] = argv[i + 1];
				i++;
			}
			query |= !strcmp(a, "--version") || !strcmp(a, "-v") || !strcmp(a, "--help");
			continue;
		}
		if (!strcmp(a, "-"))
			a = temps[ntemps++] = copy_stdin();
		ninputs++;
		bool temporary;
		if (!(args[i] = prepare(a, &temporary)))
			goto out;
		if (temporary)
			temps[ntemps++] = args[i];
	}
	if (ninputs == 0 && !query) { /* gcc -pipe: the assembly comes on stdin */
		char *in = temps[ntemps++] = copy_stdin();
		bool temporary;
		if (!(args[argc] = prepare(in, &temporary)))
			goto out;
		if (temporary)
			temps[ntemps++] = args[argc];
	}
	rc = run(args);
out:
	for (int k = 0; k < ntemps; k++)
		unlink(temps[k]);
	return rc;
}

/* ---- the compiler driver ------------------------------------------------------ */

static void die2(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "sicc: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

/* gcc flags a recorded program cannot be built with, and why (docs/sic.md), or NULL.
 * The rest work, --coverage and -fprofile-arcs among them. */
static const char *unsupported_flag(const char *a)
{
	if (!strncmp(a, "-fsanitize=", 11)) {
		const char *p = a + 11;
		if (strstr(p, "address") || strstr(p, "thread") || strstr(p, "memory") ||
		    strstr(p, "hwaddress") || strstr(p, "leak"))
			return "the sanitizer keeps per-thread state of its own and watches the "
			       "stacks, and libreplay runs every thread on one kernel thread, "
			       "switching stacks under it (-fsanitize=undefined works)";
		return NULL;
	}
	if (!strcmp(a, "-fsplit-stack"))
		return "split stacks grow by a limit kept in the kernel thread's TCB, and "
		       "libreplay's green threads have stacks of their own";
	if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
		return "libreplay replaces C library functions (pthread_create, read, "
		       "clock_gettime...), which only dynamic linking lets it interpose";
	if (!strcmp(a, "-flto") || !strncmp(a, "-flto=", 6))
		return "sicc instruments the assembly gcc writes for each file, and with "
		       "-flto the code is generated at link time, past it";
	return NULL;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* Sources whose assembly `sicc -S` names after them (gcc's own rule: foo.c -> foo.s). */
static bool is_source(const char *a)
{
	static const char *const suffixes[] = {".c", ".i", ".cc", ".cp", ".cxx", ".cpp", ".CPP",
					       ".c++", ".C", ".ii", NULL};
	for (const char *const *s = suffixes; *s; s++)
		if (has_suffix(a, *s))
			return true;
	return false;
}

/* Does the relocatable object at path define main? (One compiled by sicc defines
 * __sic_main instead: sicpp renames it.) Not an ELF object: no. */
static bool defines_main(const char *path)
{
	bool yes = false;
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	if (!f)
		return false;
	if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_REL ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 65000) {
		fclose(f);
		return false;
	}
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
	if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) || fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum && !yes; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		char *names = malloc(st->sh_size + 1);
		Elf64_Sym *syms = malloc(sh[i].sh_size);
		if (names && syms && !fseek(f, (long)st->sh_offset, SEEK_SET) &&
		    fread(names, 1, st->sh_size, f) == st->sh_size &&
		    !fseek(f, (long)sh[i].sh_offset, SEEK_SET) &&
		    fread(syms, 1, sh[i].sh_size, f) == sh[i].sh_size) {
			names[st->sh_size] = '\0';
			for (size_t k = 0; k < sh[i].sh_size / sizeof *syms; k++)
				if (syms[k].st_name < st->sh_size && syms[k].st_shndx != SHN_UNDEF &&
				    ELF64_ST_BIND(syms[k].st_info) != STB_LOCAL &&
				    !strcmp(names + syms[k].st_name, "main"))
					yes = true;
		}
		free(names);
		free(syms);
	}
out:
	free(sh);
	fclose(f);
	return yes;
}

static int driver_main(int argc, char **argv, bool cxx)
{
	const char *cc = getenv(cxx ? "SICC_CXX" : "SICC_CC");
	if (!cc || !*cc)
		cc = cxx ? "g++" : "gcc";
	bool compile_only = false, asm_only = false, preprocess = false, no_link_lib = false;
	bool query = argc == 1;
	const char *output = NULL;
	/* --races: the race build (docs/races.md); ours, gcc never sees it. */
	int kept = 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--races"))
			races = true;
		else
			argv[kept++] = argv[i];
	argc = kept;
	argv[argc] = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c"))
			compile_only = true;
		else if (!strcmp(a, "-S"))
			asm_only = true;
		else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM"))
			preprocess = true;
		else if (!strcmp(a, "-shared") || !strcmp(a, "-r") || !strcmp(a, "-nostdlib") ||
			 !strcmp(a, "-nostartfiles"))
			no_link_lib = true;
		else if (!strcmp(a, "--version") || !strcmp(a, "-dumpversion") || !strcmp(a, "-dumpmachine") ||
			 !strncmp(a, "-print-", 7) || !strcmp(a, "--help") || !strcmp(a, "-dumpfullversion"))
			query = true;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			output = argv[++i];
		else if (!strcmp(a, "-x") || !strcmp(a, "-include") || !strcmp(a, "-MF") ||
			 !strcmp(a, "-MT") || !strcmp(a, "-MQ") || !strcmp(a, "-I") || !strcmp(a, "-L") ||
			 !strcmp(a, "-isystem") || !strcmp(a, "-D") || !strcmp(a, "-U") || !strcmp(a, "-l") ||
			 !strcmp(a, "-Xlinker") || !strcmp(a, "-T"))
			i++;
	}

	/* The large code model's PIC calls keep the GOT pointer in r15, -ffixed-r15 or not.
	 * Code for a shared object (-fpic, -fPIC, -shared) reaches the runtime through the
	 * GOT. */
	bool large = false, nopic = false, shared = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-mcmodel=large"))
			large = true;
		else if (!strncmp(argv[i], "-mcmodel=", 9))
			large = false;
		else if (!strcmp(argv[i], "-fno-pie") || !strcmp(argv[i], "-fno-PIE") ||
			 !strcmp(argv[i], "-fno-pic") || !strcmp(argv[i], "-fno-PIC"))
			nopic = true, pic = false;
		else if (!strcmp(argv[i], "-fpie") || !strcmp(argv[i], "-fPIE"))
			nopic = false, pic = false;
		else if (!strcmp(argv[i], "-fpic") || !strcmp(argv[i], "-fPIC"))
			nopic = false, pic = true;
		else if (!strcmp(argv[i], "-shared"))
			shared = true;
	}
	pic |= shared;
	if (large && !nopic && !query && !preprocess)
		die("%s", "-mcmodel=large with PIC/PIE is not supported (gcc keeps the GOT pointer "
			  "in %r15, our counter): add -fno-pie -no-pie");
	for (int i = 1; i < argc && !query; i++) {
		const char *why = unsupported_flag(argv[i]);
		if (why)
			die2("%s is not supported: %s", argv[i], why);
	}

	char bdir[PATH_MAX], inc[PATH_MAX], lib[PATH_MAX], ext[PATH_MAX], dyn[PATH_MAX + 32];
	snprintf(bdir, sizeof bdir, "-B%s/../libexec/libreplay/", self_dir);
	snprintf(inc, sizeof inc, "-I%s/../include", self_dir);
	snprintf(lib, sizeof lib, "%s/../lib/libreplay.a", self_dir);
	snprintf(ext, sizeof ext, "%s/../lib/libreplay.ld", self_dir);
	snprintf(dyn, sizeof dyn, "-Wl,--dynamic-list=%s/../lib/libreplay.dynlist", self_dir);

	char **args = calloc(argc + 16, sizeof *args);
	int n = 0;
	args[n++] = (char *)cc;
	if (!query) {
		args[n++] = bdir;
		args[n++] = "-ffixed-r15";
		args[n++] = "-D__SICC__=1";
		args[n++] = inc;
		if (pic)
			args[n++] = "-Wa," SICPP_PIC_FLAG;
		if (races)
			args[n++] = "-Wa," SICPP_RACES_FLAG;
	}
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	bool links = !query && !compile_only && !asm_only && !preprocess;
	/* An object gcc compiled alone may be linked in (its code is foreign, like a
	 * library's), but not with main: main must be the instrumented __sic_main that
	 * libreplay's main() runs as green thread 1. */
	for (int i = 1; links && !no_link_lib && i < argc; i++)
		if (argv[i][0] != '-' && has_suffix(argv[i], ".o") && defines_main(argv[i]))
			die2("%s defines main but was not compiled by sicc%s: compile it with sicc "
			     "(main runs as libreplay's first green thread)", argv[i], "");
	if (links && !no_link_lib) {
		args[n++] = "-x"; /* an earlier -x c must not make the library a C source */
		args[n++] = "none";
		/* Every C library function the runtime replaces, linked in and exported:
		 * uninstrumented libraries call them too (libstdc++'s std::thread). */
		args[n++] = ext;
		args[n++] = lib;
		args[n++] = dyn;
		/* instrumented code loaded with dlopen finds the runtime in the executable */
		args[n++] = "-Wl,--export-dynamic-symbol=__sic_*";
	}
	args[n] = NULL;
	/* The link's output, for the link step below: -o FILE, -oFILE, else a.out. */
	const char *linked = output ? output : "a.out";
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			linked = argv[i] + 2;
	struct timespec before;
	clock_gettime(CLOCK_REALTIME, &before);
	int rc = run(args);
	bool sources = false; /* compiled here too: a second link would compile again */
	for (int i = 1; i < argc; i++)
		sources |= (argv[i][0] != '-' && is_source(argv[i]) && strcmp(argv[i - 1], "-o")) || !strcmp(argv[i], "-");
	if (rc == 0 && links && !no_link_lib && !sources) {
		/* Calls between files: the cross-file entries the whole program lets go
		 * straight to their direct entries, then the same link with them
		 * (sicc_link.c). Not where this command compiles too, which would
		 * compile everything twice: make's links take objects. */
		int nd = 0;
		struct stat st;
		char **defs = NULL;
		/* only a file this link wrote (not an older a.out) */
		if (!stat(linked, &st) && S_ISREG(st.st_mode) &&
		    (st.st_mtim.tv_sec > before.tv_sec ||
		     (st.st_mtim.tv_sec == before.tv_sec && st.st_mtim.tv_nsec >= before.tv_nsec)))
			defs = sicc_link_defsyms(linked, &nd);
		if (nd) {
			char **again = calloc(n + nd + 1, sizeof *again);
			if (!again)
				die("%s", "out of memory");
			memcpy(again, args, n * sizeof *args);
			memcpy(again + n, defs, nd * sizeof *defs);
			/* should the second link fail, the first one's program stands: the
			 * cross-file entries as the objects define them */
			if (run(again) != 0)
				rc = run(args);
			free(again);
		}
		for (int k = 0; k < nd; k++)
			free(defs[k]);
		free(defs);
	}
	if (rc != 0 || !asm_only || preprocess)
		return rc;

	/* -S: instrument each assembly file gcc wrote. */
	if (output && strcmp(output, "-"))
		return run_sicpp(output, output);
	if (output) /* -o -: already on stdout, uninstrumented; refuse rather than mislead */
		die("%s", "-S -o - is not supported: name an output file");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' || !is_source(a))
			continue;
		char base[PATH_MAX], out[PATH_MAX];
		snprintf(base, sizeof base, "%s", a);
		snprintf(out, sizeof out, "%s", basename(base));
		strcpy(strrchr(out, '.'), ".s");
		if ((rc = run_sicpp(out, out)) != 0)
			return rc;
	}
	return 0;
}

int main(int argc, char **argv)
{
	find_self();
	char name[PATH_MAX];
	snprintf(name, sizeof name, "%s", argv[0]);
	if (!strcmp(basename(name), "as"))
		return as_main(argc, argv);
	return driver_main(argc, argv, !strcmp(basename(name), "sic++"));
}
