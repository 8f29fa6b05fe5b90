/* sym.c: symbolize the log's PCs with libbfd: the nearest function symbol at or
 * below the PC gives name+offset (the program's main is `main`, not the __sic_main
 * sicpp renamed it to), the DWARF line table gives file:line (lines.c, as gdb reads
 * it), and bfd_find_nearest_line with bfd_find_inliner_info the inlined function the
 * PC is in and where it was called. The executable's PCs, and those of the shared
 * objects the log's OBJECTS notes name (an instrumented library's, the C library's),
 * each in its own file, opened when a PC first falls in it. */
#define PACKAGE "replay-dump" /* bfd.h insists on a config.h-style package name */
#include <bfd.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "sym.h"

struct func {
	uint64_t addr;
	const char *name;
};

/* A shared object an OBJECTS note names: where it was loaded, its path and build-id,
 * its file once opened (state 1; -1: not here as recorded). */
struct object {
	uint64_t base;
	char *path, *id; /* id: the build-id in hex, or "-" */
	int state;
	struct rp_sym *sym;
};

struct rp_sym {
	bfd *abfd;
	uint64_t end;       /* past its highest allocated section */
	uint64_t exe_base;  /* the executable's load address, from the OBJECTS notes */
	struct object *objs;
	size_t nobjs;
	asymbol **syms; /* for bfd_find_nearest_line */
	struct func *funcs; /* code symbols by address */
	size_t nfuncs;
	char **owned;       /* names made here (a moved body's: f for f.sic_direct) */
	size_t nowned;
	struct rp_lines *lines;
};

static int by_addr(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static long read_symbols(bfd *abfd, asymbol ***out, bool dynamic)
{
	long n = dynamic ? bfd_get_dynamic_symtab_upper_bound(abfd) : bfd_get_symtab_upper_bound(abfd);
	if (n <= 0)
		return 0;
	asymbol **s = malloc((size_t)n);
	if (!s)
		return 0;
	long k = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, s) : bfd_canonicalize_symtab(abfd, s);
	if (k <= 0) {
		free(s);
		return 0;
	}
	*out = s;
	return k;
}

/* f.sic_direct: f's direct entry, inside f, after its entry check (docs/sic.md): the
 * PCs after it are f's. (A caller's shim of that name only jumps: no PC of it is ever a
 * return address, nor where a thread stops.) In -g code whose check moved in front of
 * .text (sicpp/dwarf.c) it is a function of its own, f's body: its PCs are named f. */
static bool is_direct_entry(const char *name)
{
	size_t n = strlen(name), k = strlen(".sic_direct");
	return n > k && !strcmp(name + n - k, ".sic_direct");
}

int rp_sym_open(const char *path, struct rp_sym **out, char *err, size_t errlen)
{
	static bool inited;
	if (!inited) {
		bfd_init();
		inited = true;
	}
	/* Only a regular file: opening a FIFO would wait for a writer for ever. */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path, S_ISFIFO(sb.st_mode) ? "a FIFO" :
			 S_ISDIR(sb.st_mode) ? "a directory" : S_ISCHR(sb.st_mode) ? "a character device" :
			 S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
		return -1;
	}
	bfd *abfd = bfd_openr(path, NULL);
	if (!abfd) {
		snprintf(err, errlen, "%s: cannot open: %s", path, bfd_errmsg(bfd_get_error()));
		return -1;
	}
	if (!bfd_check_format(abfd, bfd_object)) {
		snprintf(err, errlen, "%s: not an executable (%s)", path, bfd_errmsg(bfd_get_error()));
		bfd_close(abfd);
		return -1;
	}
	struct rp_sym *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "%s: out of memory", path);
		bfd_close(abfd);
		return -1;
	}
	s->abfd = abfd;
	long n = read_symbols(abfd, &s->syms, false);
	if (n == 0) /* stripped: the dynamic symbols are better than nothing */
		n = read_symbols(abfd, &s->syms, true);
	s->funcs = calloc((size_t)n + 1, sizeof *s->funcs);
	for (long i = 0; s->funcs && i < n; i++) {
		asymbol *y = s->syms[i];
		if (!y->section || !(bfd_section_flags(y->section) & SEC_CODE) || !y->name[0] ||
		    (y->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING)))
			continue;
		const char *name = y->name;
		if (is_direct_entry(name)) {
			char **o = (y->flags & BSF_FUNCTION) ? realloc(s->owned, (s->nowned + 1) * sizeof *o) : NULL;
			if (!o)
				continue;
			s->owned = o;
			if (!(o[s->nowned] = strndup(name, strlen(name) - strlen(".sic_direct"))))
				continue;
			name = o[s->nowned++];
		}
		s->funcs[s->nfuncs++] = (struct func){bfd_asymbol_value(y), name};
	}
	if (s->funcs)
		qsort(s->funcs, s->nfuncs, sizeof *s->funcs, by_addr);
	s->lines = rp_lines_open(abfd);
	for (asection *sec = abfd->sections; sec; sec = sec->next)
		if ((bfd_section_flags(sec) & SEC_ALLOC) && bfd_section_vma(sec) + bfd_section_size(sec) > s->end)
			s->end = bfd_section_vma(sec) + bfd_section_size(sec);
	*out = s;
	return 0;
}

void rp_sym_objects(struct rp_sym *s, const char *note, size_t len)
{
	for (const char *line = note, *stop = note + len; line < stop;) {
		const char *nl = memchr(line, '\n', (size_t)(stop - line));
		const char *eol = nl ? nl : stop;
		char role[16], addr[24], id[2 * 64 + 2];
		int at = 0;
		/* role, address and build-id, tab-separated; the path is the rest */
		if (sscanf(line, "%15[^\t\n]\t%23[^\t\n]\t%129[^\t\n]\t%n", role, addr, id, &at) == 3 &&
		    at > 0 && line + at < eol) {
			uint64_t base = strtoull(addr, NULL, 16);
			struct object *o = !strcmp(role, "exe") || !strcmp(role, "cache") ? NULL :
					   realloc(s->objs, (s->nobjs + 1) * sizeof *o);
			if (!strcmp(role, "exe"))
				s->exe_base = base;
			if (o) {
				s->objs = o;
				o += s->nobjs;
				*o = (struct object){base, strndup(line + at, (size_t)(eol - line - at)),
						     strdup(id), 0, NULL};
				if (o->path && o->id)
					s->nobjs++;
			}
		}
		line = eol + 1;
	}
}

/* Is the object's file the one the recording ran: at its path, with its build-id? */
static bool object_open(struct object *o)
{
	char err[512], hex[2 * 64 + 1];
	uint8_t id[64];
	if (o->state)
		return o->state > 0;
	o->state = -1;
	if (rp_sym_open(o->path, &o->sym, err, sizeof err) != 0)
		return false;
	size_t n = rp_sym_build_id(o->sym, id, sizeof id);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * n] = '\0';
	if (n && !strcmp(hex, o->id))
		o->state = 1;
	return o->state > 0;
}

/* A PC past the executable's sections: in the object loaded nearest below it, if it
 * lies in that one's sections (unread: below the next object's address). */
static void object_lookup(struct rp_sym *s, uint64_t pc, struct rp_sym_loc *loc)
{
	uint64_t at = pc + s->exe_base, next = UINT64_MAX;
	struct object *in = NULL;
	for (size_t i = 0; i < s->nobjs; i++) {
		struct object *o = &s->objs[i];
		if (o->base <= at && (!in || o->base > in->base))
			in = o;
		else if (o->base > at && o->base < next)
			next = o->base;
	}
	memset(loc, 0, sizeof *loc);
	loc->nowhere = true;
	if (!in)
		return;
	uint64_t off = at - in->base;
	bool read = object_open(in);
	if (read ? off >= in->sym->end : at >= next)
		return;
	if (read) {
		rp_sym_lookup(in->sym, off, loc);
	} else {
		loc->nowhere = false;
		loc->off = off;
	}
	const char *slash = strrchr(in->path, '/');
	loc->object = slash ? slash + 1 : in->path;
	loc->unread = !read;
}

size_t rp_sym_build_id(struct rp_sym *s, uint8_t *buf, size_t max)
{
	asection *sec = bfd_get_section_by_name(s->abfd, ".note.gnu.build-id");
	if (!sec)
		return 0;
	size_t size = bfd_section_size(sec);
	uint8_t note[512];
	if (size < 16 || size > sizeof note || !bfd_get_section_contents(s->abfd, sec, note, 0, size))
		return 0;
	/* One ELF note: namesz, descsz, type (3 = NT_GNU_BUILD_ID), "GNU\0", desc. */
	uint32_t namesz, descsz, type;
	memcpy(&namesz, note, 4);
	memcpy(&descsz, note + 4, 4);
	memcpy(&type, note + 8, 4);
	size_t desc = 12 + ((namesz + 3) & ~3u);
	if (type != 3 || namesz != 4 || memcmp(note + 12, "GNU", 4) || desc + descsz > size ||
	    descsz > max)
		return 0;
	memcpy(buf, note + desc, descsz);
	return descsz;
}

/* The name users know: sicpp renames the program's main. */
static const char *user_name(const char *name)
{
	return name && !strcmp(name, "__sic_main") ? "main" : name;
}

void rp_sym_lookup(struct rp_sym *s, uint64_t pc, struct rp_sym_loc *loc)
{
	if (s->nobjs && pc >= s->end) {
		object_lookup(s, pc, loc);
		return;
	}
	memset(loc, 0, sizeof *loc);
	/* The last symbol at or below pc. Several at one address: any is fine. */
	size_t lo = 0, hi = s->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->funcs[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		loc->func = user_name(s->funcs[lo - 1].name);
		loc->off = pc - s->funcs[lo - 1].addr;
	}
	for (asection *sec = s->abfd->sections; sec; sec = sec->next) {
		uint64_t vma = bfd_section_vma(sec);
		if (!(bfd_section_flags(sec) & SEC_CODE) || pc < vma || pc >= vma + bfd_section_size(sec))
			continue;
		const char *file = NULL, *func = NULL;
		unsigned line = 0;
		if (bfd_find_nearest_line(s->abfd, sec, s->syms, pc - vma, &file, &func, &line) &&
		    file && line) {
			loc->file = file;
			loc->line = line;
		}
		if (!loc->func && func)
			loc->func = user_name(func);
		/* Inside inlined code, func is the inlined function; its callers follow,
		 * each with the line of its call: the last is in the real function. */
		const char *cfile, *cfunc;
		unsigned cline;
		const char *inl = func;
		while (bfd_find_inliner_info(s->abfd, &cfile, &cfunc, &cline)) {
			loc->inlined = inl;
			loc->call_file = cfile;
			loc->call_line = cline;
			inl = NULL; /* the innermost is the first */
		}
		break;
	}
	rp_lines_find(s->lines, pc, &loc->file, &loc->line);
}

static const char *base_name(const char *f, bool base)
{
	const char *b = strrchr(f, '/');
	return base && b ? b + 1 : f;
}

void rp_sym_format(const struct rp_sym_loc *loc, bool base, char *buf, size_t len)
{
	if (loc->nowhere || loc->unread) {
		if (loc->nowhere)
			snprintf(buf, len, "(in no object the log names)");
		else
			snprintf(buf, len, "(%s+0x%llx)", loc->object, (unsigned long long)loc->off);
		return;
	}
	int n = snprintf(buf, len, "%s%s%s+0x%llx", loc->object ? loc->object : "", loc->object ? "!" : "",
			 loc->func ? loc->func : "??", (unsigned long long)loc->off);
	if (!loc->file || n < 0 || (size_t)n >= len)
		return;
	if (loc->inlined && loc->call_file)
		snprintf(buf + n, len - (size_t)n, " (%s:%u in %s, inlined at %s:%u)",
			 base_name(loc->file, base), loc->line, loc->inlined,
			 base_name(loc->call_file, base), loc->call_line);
	else
		snprintf(buf + n, len - (size_t)n, " (%s:%u)", base_name(loc->file, base), loc->line);
}

void rp_sym_close(struct rp_sym *s)
{
	if (!s)
		return;
	rp_lines_close(s->lines);
	bfd_close(s->abfd);
	free(s->syms);
	free(s->funcs);
	for (size_t k = 0; k < s->nowned; k++)
		free(s->owned[k]);
	free(s->owned);
	for (size_t k = 0; k < s->nobjs; k++) {
		rp_sym_close(s->objs[k].sym);
		free(s->objs[k].path);
		free(s->objs[k].id);
	}
	free(s->objs);
	free(s);
}
