/* lines.c: the DWARF line table (.debug_line, versions 2 to 5) of an executable, read
 * with libbfd's section contents, to map a PC to file:line the way gdb does: where
 * several rows share an address, an is_stmt row wins. libbfd's own lookup
 * (bfd_find_nearest_line) takes the last row, and gcc puts a non-statement row of the
 * caller's line after the inlined function's rows, so a PC inside an inlined helper
 * got its caller's line. */
#define PACKAGE "replay-dump" /* bfd.h insists on a config.h-style package name */
#include <bfd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

struct row {
	uint64_t addr;
	const char *file;
	unsigned line;
	bool stmt, end; /* end: the first address past a sequence */
	size_t order;   /* as the program emitted it: the last row at an address wins */
};

struct rp_lines {
	struct row *rows;
	size_t n;
	bfd_byte *line, *line_str, *str; /* section contents the names point into */
	size_t line_size, line_str_size, str_size;
	char **names; /* joined directory/file paths */
	size_t nnames;
};

struct cursor {
	const bfd_byte *p, *end;
	bool bad;
};

static uint64_t get(struct cursor *c, int n)
{
	uint64_t v = 0;
	if (c->end - c->p < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (int shift = 0; c->p < c->end; shift += 7) {
		bfd_byte b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return v;
}

static int64_t sleb(struct cursor *c)
{
	int64_t v = 0;
	int shift = 0;
	bfd_byte b = 0x80;
	while (c->p < c->end && (b & 0x80)) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static const char *cstr(struct cursor *c)
{
	const char *s = (const char *)c->p;
	const bfd_byte *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!z) {
		c->bad = true;
		c->p = c->end;
		return "";
	}
	c->p = z + 1;
	return s;
}

static const char *strp(bfd_byte *sec, size_t size, uint64_t off)
{
	return sec && off < size && memchr(sec + off, 0, size - off) ? (const char *)sec + off : "";
}

/* One attribute of a DWARF 5 directory or file entry: a path's string, or NULL and
 * the number in *num. */
static const char *form(struct rp_lines *l, struct cursor *c, uint64_t f, int offsz, uint64_t *num)
{
	*num = 0;
	switch (f) {
	case 0x08: return cstr(c);                                              /* string */
	case 0x1f: return strp(l->line_str, l->line_str_size, get(c, offsz)); /* line_strp */
	case 0x0e: return strp(l->str, l->str_size, get(c, offsz));           /* strp */
	case 0x0b: *num = get(c, 1); return NULL;                              /* data1 */
	case 0x05: *num = get(c, 2); return NULL;                              /* data2 */
	case 0x06: *num = get(c, 4); return NULL;                              /* data4 */
	case 0x07: *num = get(c, 8); return NULL;                              /* data8 */
	case 0x1e: get(c, 16); return NULL;                                    /* data16 */
	case 0x0f: *num = uleb(c); return NULL;                                /* udata */
	case 0x09: c->p += uleb(c); if (c->p > c->end) c->bad = true; return NULL; /* block */
	}
	c->bad = true;
	return NULL;
}

/* dir/name unless name is absolute; kept until rp_lines_close. */
static const char *path(struct rp_lines *l, const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || !dir[0])
		return name;
	char **g = realloc(l->names, (l->nnames + 1) * sizeof *g);
	if (!g)
		return name;
	l->names = g;
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = malloc(n);
	if (!s)
		return name;
	snprintf(s, n, "%s/%s", dir, name);
	return l->names[l->nnames++] = s;
}

static bool add_row(struct rp_lines *l, size_t *cap, struct row r)
{
	if (l->n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		struct row *g = realloc(l->rows, *cap * sizeof *g);
		if (!g)
			return false;
		l->rows = g;
	}
	r.order = l->n;
	l->rows[l->n++] = r;
	return true;
}

/* One unit's line program, from c (at its unit_length) to the unit's end. */
static bool unit(struct rp_lines *l, struct cursor *c, size_t *cap)
{
	int offsz = 4;
	uint64_t len = get(c, 4);
	if (len == 0xffffffff) {
		offsz = 8;
		len = get(c, 8);
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return false;
	struct cursor u = {c->p, c->p + len, false};
	c->p += len;
	unsigned version = (unsigned)get(&u, 2);
	if (version < 2 || version > 5)
		return true; /* not ours to read: skip the unit */
	if (version >= 5)
		get(&u, 2); /* address size, segment selector size */
	uint64_t hlen = get(&u, offsz);
	struct cursor prog = {u.p + hlen, u.end, false};
	unsigned min_insn = (unsigned)get(&u, 1);
	if (version >= 4)
		get(&u, 1); /* maximum operations per instruction: 1 on x86-64 */
	bool default_stmt = get(&u, 1) != 0;
	int line_base = (int8_t)get(&u, 1);
	unsigned line_range = (unsigned)get(&u, 1), opcode_base = (unsigned)get(&u, 1);
	unsigned char std_len[256] = {0};
	for (unsigned i = 1; i < opcode_base; i++)
		std_len[i] = (unsigned char)get(&u, 1);
	const char *files[1024], *dirs[256];
	unsigned nfiles = 0, ndirs = 0;
	if (version >= 5) {
		for (int pass = 0; pass < 2; pass++) { /* directories, then files */
			uint64_t fmt[2 * 16];
			unsigned nfmt = (unsigned)get(&u, 1);
			if (nfmt > 16)
				return false;
			for (unsigned i = 0; i < nfmt; i++) {
				fmt[2 * i] = uleb(&u);
				fmt[2 * i + 1] = uleb(&u);
			}
			uint64_t count = uleb(&u);
			for (uint64_t k = 0; k < count && !u.bad; k++) {
				const char *name = "";
				uint64_t dir = 0, num;
				for (unsigned i = 0; i < nfmt; i++) {
					const char *s = form(l, &u, fmt[2 * i + 1], offsz, &num);
					if (fmt[2 * i] == 1 && s) /* DW_LNCT_path */
						name = s;
					else if (fmt[2 * i] == 2) /* DW_LNCT_directory_index */
						dir = num;
				}
				if (pass == 0 && ndirs < 256)
					dirs[ndirs++] = name;
				else if (pass == 1 && nfiles < 1024)
					files[nfiles++] = path(l, dir < ndirs ? dirs[dir] : NULL, name);
			}
		}
	} else {
		dirs[ndirs++] = NULL; /* directory 0: the compilation's */
		for (const char *s; !u.bad && *(s = cstr(&u));)
			if (ndirs < 256)
				dirs[ndirs++] = s;
		files[nfiles++] = ""; /* DWARF 2-4 number files from 1 */
		for (const char *s; !u.bad && *(s = cstr(&u));) {
			uint64_t dir = uleb(&u);
			uleb(&u), uleb(&u);
			if (nfiles < 1024)
				files[nfiles++] = path(l, dir < ndirs ? dirs[dir] : NULL, s);
		}
	}
	if (u.bad || line_range == 0)
		return false;
	/* the state machine */
	uint64_t addr = 0, file = 1;
	long line = 1;
	bool stmt = default_stmt;
	while (prog.p < prog.end && !prog.bad) {
		unsigned op = (unsigned)get(&prog, 1);
		struct row r = {addr, file < nfiles ? files[file] : "", (unsigned)line, stmt, false, 0};
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			r.addr = addr += adj / line_range * min_insn;
			r.line = (unsigned)(line += line_base + (int)(adj % line_range));
			if (!add_row(l, cap, r))
				return false;
			continue;
		}
		switch (op) {
		case 0: { /* extended */
			uint64_t n = uleb(&prog);
			const bfd_byte *next = prog.p + n;
			if (n == 0 || n > (uint64_t)(prog.end - prog.p))
				return false;
			unsigned ext = (unsigned)get(&prog, 1);
			if (ext == 1) { /* end_sequence */
				r.end = true;
				if (!add_row(l, cap, r))
					return false;
				addr = 0, file = 1, line = 1, stmt = default_stmt;
			} else if (ext == 2) {
				addr = get(&prog, (int)n - 1);
			}
			prog.p = next;
			break;
		}
		case 1: if (!add_row(l, cap, r)) return false; break;          /* copy */
		case 2: addr += uleb(&prog) * min_insn; break;                  /* advance_pc */
		case 3: line += sleb(&prog); break;                             /* advance_line */
		case 4: file = uleb(&prog); break;                              /* set_file */
		case 6: stmt = !stmt; break;                                    /* negate_stmt */
		case 8: addr += (255 - opcode_base) / line_range * min_insn; break; /* const_add_pc */
		case 9: addr += get(&prog, 2); break;                           /* fixed_advance_pc */
		default:
			for (unsigned i = 0; i < std_len[op]; i++)
				uleb(&prog);
		}
	}
	return true;
}

static bfd_byte *section(bfd *abfd, const char *name, size_t *size)
{
	asection *sec = bfd_get_section_by_name(abfd, name);
	bfd_byte *buf = NULL;
	if (!sec || !bfd_malloc_and_get_section(abfd, sec, &buf))
		return NULL;
	*size = bfd_section_size(sec);
	return buf;
}

static int by_addr(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct rp_lines *rp_lines_open(void *abfd_v)
{
	bfd *abfd = abfd_v;
	struct rp_lines *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->line = section(abfd, ".debug_line", &l->line_size);
	l->line_str = section(abfd, ".debug_line_str", &l->line_str_size);
	l->str = section(abfd, ".debug_str", &l->str_size);
	size_t cap = 0;
	struct cursor c = {l->line, l->line + l->line_size, false};
	while (l->line && c.p < c.end && unit(l, &c, &cap))
		;
	qsort(l->rows, l->n, sizeof *l->rows, by_addr);
	return l;
}

bool rp_lines_find(struct rp_lines *l, uint64_t pc, const char **file, unsigned *line)
{
	if (!l || !l->n)
		return false;
	size_t lo = 0, hi = l->n; /* the first row past pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	/* the rows at the last address at or below pc: the last is_stmt one, else the
	 * last; none if only a sequence's end is there (between sequences) */
	uint64_t addr = l->rows[lo - 1].addr;
	const struct row *best = NULL;
	for (size_t k = lo; k-- > 0 && l->rows[k].addr == addr;) {
		const struct row *r = &l->rows[k];
		if (r->end)
			continue;
		if (r->stmt) {
			best = r;
			break;
		}
		if (!best)
			best = r;
	}
	if (!best || !best->line || !*best->file)
		return false;
	*file = best->file;
	*line = best->line;
	return true;
}

void rp_lines_close(struct rp_lines *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	free(l->rows);
	free(l->line);
	free(l->line_str);
	free(l->str);
	free(l);
}
