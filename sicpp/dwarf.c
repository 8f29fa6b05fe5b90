/*
 * dwarf.c: direct entries in -g code, by rewriting the DWARF gcc wrote into the .s.
 *
 * gdb puts `break f` at f's DWARF entry, after the prologue. When that entry is the
 * entry check, a direct call (to the body after it) skips the breakpoint, so -g code
 * had no direct entries. The layout gdb 13 accepts (docs/sic.md, "Direct entries"):
 * the ELF symbol f and its entry check at the start of .text, where no line row points
 * (gas starts a section's line rows at its first .loc), ending in a jump to the body;
 * f's DIE describes f by DW_AT_ranges, the body first (gdb's entry pc is the first
 * range's start), then the check. gdb maps the symbol's address (no line, inside f's
 * ranges) to the body's entry too, so `break f` has one location, which calls through
 * the symbol and direct calls both reach; bt, finish and the frame are f's in both.
 *
 * gcc writes DIE offsets and the unit's length as numbers, so no DIE may change size.
 * A subprogram's DW_AT_low_pc (DW_FORM_addr, 8 bytes) and DW_AT_high_pc (DW_FORM_data8,
 * 8) become DW_AT_ranges (DW_FORM_sec_offset, 4) and a padding attribute of ours
 * (DW_FORM_block1, 12), in the abbreviation itself: every DIE of that abbreviation
 * gets a range list, of one range where its function stays as it was. The lists are
 * a .debug_rnglists contribution of our own; a function split into hot and cold parts
 * has a list of gcc's already, which gets the check's range before its end. Anything
 * this does not understand (DWARF before 5, a form it does not know, sizes that do not
 * add up to the unit's length) leaves the file as it was: no direct entries, the check
 * at the start of the body.
 *
 * Only functions whose address this file does not take move: gdb steps over a call
 * that lands where no line row points (a call through a pointer would come to the
 * check), so those keep their check in the body, where `step` goes into them.
 */
#include "analyze_int.h"
#include "dwarf.h"

#include <stdlib.h>
#include <string.h>

#define DW_TAG_subprogram 0x2e
#define DW_AT_low_pc 0x11
#define DW_AT_high_pc 0x12
#define DW_AT_ranges 0x55
#define DW_FORM_addr 0x01
#define DW_FORM_data8 0x07
#define DW_FORM_block1 0x0a
#define DW_FORM_sec_offset 0x17
#define DW_FORM_implicit_const 0x21
#define DW_RLE_start_length 0x07

struct abbrev {
	int tag;
	int nattr;
	int *attr_st, *form_st; /* statement index of each attribute's name and form */
	int *attr, *form;
	int lowpair;            /* index of a low_pc(addr) followed by high_pc(data8), -1 */
	int ranges;             /* (subprograms) index of a ranges(sec_offset): split into hot
				 * and cold parts, -1 */
};

struct reader {
	struct analysis *an;
	int *v;                 /* the section's data statements, in order */
	int n, pos;
	bool bad;
};

static bool is_dir(const struct stmt *s, const char *n)
{
	return s->kind == ST_DIRECTIVE && !strcmp(s->name, n);
}

static int count_args(const char *a)
{
	int n = 1;
	bool q = false;
	for (; *a; a++) {
		if (*a == '"' && (a[-1] != '\\'))
			q = !q;
		else if (*a == ',' && !q)
			n++;
	}
	return n;
}

/* Bytes of a quoted string as gas reads it; -1 if not one. */
static long string_bytes(const char *a)
{
	while (*a == ' ' || *a == '\t')
		a++;
	if (*a++ != '"')
		return -1;
	long n = 0;
	while (*a && *a != '"') {
		if (*a == '\\') {
			a++;
			if (*a >= '0' && *a <= '7') {
				for (int k = 0; k < 3 && *a >= '0' && *a <= '7'; k++)
					a++;
			} else if (*a == 'x') {
				a++;
				while (strchr("0123456789abcdefABCDEF", *a) && *a)
					a++;
			} else if (*a) {
				a++;
			}
		} else {
			a++;
		}
		n++;
	}
	return *a == '"' ? n : -1;
}

static bool number(const char *a, long *v)
{
	char *end;
	while (*a == ' ' || *a == '\t')
		a++;
	if (!*a)
		return false;
	*v = strtol(a, &end, 0);
	while (*end == ' ' || *end == '\t')
		end++;
	return !*end;
}

/* The bytes of a .uleb128 of a constant (gcc writes 0x8000000000000000 in location
 * expressions: no long holds it); -1 if not a constant. */
static long uleb_bytes(const char *a)
{
	char *end;
	while (*a == ' ' || *a == '\t')
		a++;
	if (!*a || *a == '-')
		return -1;
	unsigned long long u = strtoull(a, &end, 0);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		return -1;
	long n = 1;
	while (u >>= 7)
		n++;
	return n;
}

static long leb_bytes(long v, bool sign)
{
	long n = 0;
	unsigned long u = (unsigned long)v;
	for (;;) {
		n++;
		if (!sign) {
			u >>= 7;
			if (!u)
				return n;
		} else {
			long b = v & 0x7f;
			v >>= 7;
			if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)))
				return n;
		}
	}
}

/* The bytes a data statement of a debug section assembles to; -1 if unknown. */
static long stmt_bytes(const struct stmt *s)
{
	long v;
	if (s->kind != ST_DIRECTIVE)
		return -1;
	if (is_dir(s, ".byte"))
		return count_args(s->args);
	if (is_dir(s, ".value") || is_dir(s, ".2byte") || is_dir(s, ".short"))
		return 2L * count_args(s->args);
	if (is_dir(s, ".long") || is_dir(s, ".4byte") || is_dir(s, ".int"))
		return 4L * count_args(s->args);
	if (is_dir(s, ".quad") || is_dir(s, ".8byte"))
		return 8L * count_args(s->args);
	if (is_dir(s, ".uleb128"))
		return uleb_bytes(s->args);
	if (is_dir(s, ".sleb128"))
		return number(s->args, &v) ? leb_bytes(v, true) : -1;
	if (is_dir(s, ".string") || is_dir(s, ".asciz"))
		return (v = string_bytes(s->args)) < 0 ? -1 : v + 1;
	if (is_dir(s, ".ascii"))
		return string_bytes(s->args);
	if (is_dir(s, ".zero") || is_dir(s, ".skip"))
		return number(s->args, &v) ? v : -1;
	return -1;
}

/* The data statements of the one section called name; false if it is entered twice or
 * holds anything but data and labels. */
static bool section_stmts(struct analysis *an, const char *name, struct reader *r)
{
	int sid = -1;
	r->an = an;
	for (int k = 0; k < an->nsect; k++)
		if (!strcmp(an->sect_name[k], name))
			sid = k;
	if (sid < 0)
		return false;
	r->v = xcalloc(an->f->n + 1, sizeof *r->v);
	for (int i = 0; i < an->f->n; i++) {
		const struct stmt *s = &an->f->st[i];
		if (an->sect[i] != sid || s->kind == ST_BLANK || s->kind == ST_LABEL)
			continue;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".section"))
			continue; /* the switch into it */
		if (s->foreign || stmt_bytes(s) < 0)
			return false;
		r->v[r->n++] = i;
	}
	return true;
}

static const struct stmt *next(struct reader *r)
{
	if (r->pos >= r->n) {
		r->bad = true;
		return NULL;
	}
	return &r->an->f->st[r->v[r->pos++]];
}

static long next_num(struct reader *r)
{
	const struct stmt *s = next(r);
	long v;
	if (!s || !number(s->args, &v) || count_args(s->args) != 1) {
		r->bad = true;
		return -1;
	}
	return v;
}

/* Consume statements worth exactly n bytes; their total is added to *bytes. */
static void skip_bytes(struct reader *r, long n, long *bytes)
{
	while (n > 0 && !r->bad) {
		const struct stmt *s = next(r);
		long b = s ? stmt_bytes(s) : -1;
		if (b < 0 || b > n) {
			r->bad = true;
			return;
		}
		n -= b;
		*bytes += b;
	}
}

static long fixed_size(int form)
{
	switch (form) {
	case 0x01: case 0x07: case 0x14: case 0x20: return 8; /* addr data8 ref8 ref_sig8 */
	case 0x05: case 0x12: case 0x26: case 0x2a: return 2; /* data2 ref2 strx2 addrx2 */
	case 0x06: case 0x0e: case 0x10: case 0x13: case 0x17: case 0x1c: case 0x1d:
	case 0x1f: case 0x28: case 0x2c: return 4;
	case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: return 1;
	case 0x27: case 0x2b: return 3;
	case 0x1e: return 16;
	default: return -1;
	}
}

/* Consume one attribute value of form, its bytes added to *bytes. */
static void read_value(struct reader *r, int form, long *bytes)
{
	long n = fixed_size(form);
	if (n > 0) {
		skip_bytes(r, n, bytes);
		return;
	}
	const struct stmt *s;
	switch (form) {
	case 0x19: case 0x21: /* flag_present, implicit_const: nothing in the DIE */
		return;
	case 0x0d: case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23:
		/* sdata udata ref_udata strx addrx loclistx rnglistx: one leb */
		s = next(r);
		if (!s || (!is_dir(s, ".uleb128") && !is_dir(s, ".sleb128")) || stmt_bytes(s) < 0)
			r->bad = true;
		else
			*bytes += stmt_bytes(s);
		return;
	case 0x08: /* string: .ascii pieces, then the .string */
		while ((s = next(r))) {
			*bytes += stmt_bytes(s);
			if (is_dir(s, ".string") || is_dir(s, ".asciz"))
				return;
			if (!is_dir(s, ".ascii")) {
				r->bad = true;
				return;
			}
		}
		return;
	case 0x0a: case 0x03: case 0x04: case 0x09: case 0x18: { /* blocks, exprloc */
		s = &r->an->f->st[r->pos < r->n ? r->v[r->pos] : 0];
		long len = next_num(r);
		if (r->bad || len < 0)
			return;
		long lb = form == 0x0a ? 1 : form == 0x03 ? 2 : form == 0x04 ? 4 : stmt_bytes(s);
		if (stmt_bytes(s) != lb) {
			r->bad = true;
			return;
		}
		*bytes += lb;
		skip_bytes(r, len, bytes);
		return;
	}
	default:
		r->bad = true;
	}
}

static void put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (k < 0) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
		if (*buf && *len + k < *cap) {
			*len += k;
			return;
		}
		*cap = (*cap + k + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	return d;
}

static int label_index(struct analysis *an, const char *name)
{
	struct sym *y = sym_find(an, name);
	return y ? y->def : -1;
}

/* The function whose body begins at label lfb (gcc's .LFBn, after f's own label and
 * maybe a .LVL label), if it can move its check: it would get a direct entry, this
 * file does not take its address, and it lies in .text after .Ltext0. */
static struct sym *movable(struct analysis *an, const char *lfb, int text0)
{
	int d = label_index(an, lfb);
	if (d < 0 || an->fn[d] < 0)
		return NULL;
	struct sym *fn = &an->syms[an->fn[d]];
	if (fn->def < 0 || fn->def > d || fn->def < text0 || fn->addr_taken || fn->moved)
		return NULL;
	for (int k = fn->def + 1; k < d; k++)
		if (an->f->st[k].kind != ST_LABEL && an->f->st[k].kind != ST_BLANK)
			return NULL;
	if (an->sect[fn->def] != an->sect[text0] || !gets_direct_entry(an, fn))
		return NULL;
	return fn;
}

int dwarf_entry_loc(const struct analysis *an, const struct sym *fn)
{
	/* gdb takes the last statement row at an address (gcc writes several at a
	 * function's entry, views, and then one that is no statement): is_stmt stays as
	 * the last .loc that named it set it (gcc names it at a function's first). */
	int loc = -1, any = -1;
	bool stmt = true;
	for (int k = fn->def + 1; k < an->f->n; k++) {
		const struct stmt *s = &an->f->st[k];
		if (s->kind == ST_INSN || s->foreign)
			break;
		if (!is_dir(s, ".loc") || !s->args)
			continue;
		const char *o = strstr(s->args, "is_stmt");
		if (o)
			stmt = atoi(o + 7) != 0;
		any = k;
		if (stmt)
			loc = k;
	}
	return loc >= 0 ? loc : any;
}

/* fn's check moves: its direct entry, and the ranges of its check and, for a cross-file
 * entry whose count a link may keep, of its thunk with a line row (rewrite.c,
 * emit_line_thunks), added to its range list. */
static void move(struct analysis *an, struct sym *fn, int text0, int etext, char **buf, size_t *len, size_t *cap)
{
	fn->moved = fn->direct = true;
	an->n_direct_entries++;
	an->n_moved_checks++;
	put(buf, len, cap, "\t.byte\t0x7\n\t.quad\t.Lsic_cs.%s\n\t.uleb128 .Lsic_ce.%s - .Lsic_cs.%s\n", fn->name,
	    fn->name, fn->name);
	fn->xline = etext >= 0 && an->sect[etext] == an->sect[text0] && xcall_skippable(fn) &&
		    dwarf_entry_loc(an, fn) >= 0;
	if (fn->xline)
		put(buf, len, cap, "\t.byte\t0x7\n\t.quad\t.Lsic_xs.%s\n\t.uleb128 .Lsic_xe.%s - .Lsic_xs.%s\n",
		    fn->name, fn->name, fn->name);
}

/* gcc's range list named by label (in .debug_rnglists) when it is a function's parts,
 * DW_RLE_start_length entries only: the first one's start (the hot part's .LFBn), and
 * in *end the statement of its end-of-list byte; NULL for any other list. */
static const char *hot_range(struct analysis *an, const char *label, int *end)
{
	int d = label_index(an, label);
	const char *first = NULL;
	if (d < 0 || an->sect[d] < 0 || strcmp(an->sect_name[an->sect[d]], ".debug_rnglists"))
		return NULL;
	for (int k = d + 1, n = 0; k < an->f->n && an->sect[k] == an->sect[d]; k++) {
		const struct stmt *s = &an->f->st[k];
		long v;
		if (s->kind == ST_BLANK)
			continue;
		if (!is_dir(s, ".byte") || !number(s->args, &v) || (v != 0 && v != DW_RLE_start_length))
			return NULL;
		if (v == 0) {
			*end = k;
			return n >= 2 ? first : NULL;
		}
		if (k + 2 >= an->f->n || !is_dir(&an->f->st[k + 1], ".quad") || !is_dir(&an->f->st[k + 2], ".uleb128"))
			return NULL;
		if (!n++)
			first = an->f->st[k + 1].args;
		k += 2;
	}
	return NULL;
}

void dwarf_plan(struct analysis *an)
{
	struct asm_file *f = an->f;
	struct reader ab = {0}, in = {0};
	int text0 = label_index(an, ".Ltext0"), etext = label_index(an, ".Letext0");
	bool ok = text0 >= 0 && an->sect[text0] >= 0 && !strcmp(an->sect_name[an->sect[text0]], ".text");
	ok = ok && section_stmts(an, ".debug_abbrev", &ab) && section_stmts(an, ".debug_info", &in);
	if (!ok)
		goto out;

	/* The abbreviations: code, tag, children, (attribute, form[, constant])*, 0, 0. */
	int cap = 64;
	struct abbrev *abv = xcalloc(cap, sizeof *abv);
	bool *valid = xcalloc(cap, sizeof *valid);
	for (;;) {
		long code = next_num(&ab);
		if (ab.bad || code == 0)
			break;
		if (code < 0 || code > 1 << 16) {
			ab.bad = true;
			break;
		}
		if (code >= cap) {
			int nc = code * 2;
			abv = realloc(abv, nc * sizeof *abv);
			valid = realloc(valid, nc * sizeof *valid);
			if (!abv || !valid) {
				fputs("sicpp: out of memory\n", stderr);
				exit(2);
			}
			memset(abv + cap, 0, (nc - cap) * sizeof *abv);
			memset(valid + cap, 0, (nc - cap) * sizeof *valid);
			cap = nc;
		}
		struct abbrev *a = &abv[code];
		if (valid[code]) {
			ab.bad = true;
			break;
		}
		valid[code] = true;
		a->tag = next_num(&ab);
		next_num(&ab); /* children */
		a->lowpair = a->ranges = -1;
		int acap = 0;
		for (;;) {
			int ast = ab.pos < ab.n ? ab.v[ab.pos] : -1;
			long at = next_num(&ab);
			int fst = ab.pos < ab.n ? ab.v[ab.pos] : -1;
			long fo = next_num(&ab);
			if (ab.bad || (at == 0 && fo == 0))
				break;
			if (fo == DW_FORM_implicit_const)
				next_num(&ab);
			if (a->nattr == acap) {
				acap = acap ? 2 * acap : 16;
				a->attr = realloc(a->attr, acap * sizeof(int));
				a->form = realloc(a->form, acap * sizeof(int));
				a->attr_st = realloc(a->attr_st, acap * sizeof(int));
				a->form_st = realloc(a->form_st, acap * sizeof(int));
				if (!a->attr || !a->form || !a->attr_st || !a->form_st) {
					fputs("sicpp: out of memory\n", stderr);
					exit(2);
				}
			}
			a->attr[a->nattr] = at;
			a->form[a->nattr] = fo;
			a->attr_st[a->nattr] = ast;
			a->form_st[a->nattr] = fst;
			a->nattr++;
		}
		for (int k = 0; k + 1 < a->nattr; k++)
			if (a->tag == DW_TAG_subprogram && a->attr[k] == DW_AT_low_pc && a->form[k] == DW_FORM_addr &&
			    a->attr[k + 1] == DW_AT_high_pc && a->form[k + 1] == DW_FORM_data8)
				a->lowpair = k;
		for (int k = 0; k < a->nattr; k++)
			if (a->tag == DW_TAG_subprogram && a->attr[k] == DW_AT_ranges && a->form[k] == DW_FORM_sec_offset)
				a->ranges = k;
	}

	/* The unit: DWARF 5's header, then DIEs whose sizes must add up to its length. */
	long unit_len = next_num(&in), bytes = 0;
	long version = next_num(&in), unit_type = next_num(&in), addr_size = next_num(&in);
	const struct stmt *abbrev_off = next(&in);
	ok = !ab.bad && !in.bad && version == 5 && unit_type == 1 && addr_size == 8 && abbrev_off &&
	     is_dir(abbrev_off, ".long");
	bytes = 2 + 1 + 1 + 4;
	int *lows = xcalloc(in.n + 1, sizeof *lows), *highs = xcalloc(in.n + 1, sizeof *highs), nlows = 0;
	int *rngs = xcalloc(in.n + 1, sizeof *rngs), nrngs = 0;
	while (ok && in.pos < in.n && !in.bad) {
		const struct stmt *s = &f->st[in.v[in.pos]];
		long code = next_num(&in);
		bytes += stmt_bytes(s);
		if (in.bad || code == 0)
			continue;
		if (code < 0 || code >= cap || !valid[code]) {
			ok = false;
			break;
		}
		struct abbrev *a = &abv[code];
		for (int k = 0; k < a->nattr && !in.bad; k++) {
			if (k == a->lowpair) {
				/* its two statements must be one .quad each */
				int lo = in.pos < in.n ? in.v[in.pos] : -1;
				int hi = in.pos + 1 < in.n ? in.v[in.pos + 1] : -1;
				if (lo < 0 || hi < 0 || !is_dir(&f->st[lo], ".quad") || !is_dir(&f->st[hi], ".quad") ||
				    count_args(f->st[lo].args) != 1 || count_args(f->st[hi].args) != 1) {
					ok = false;
					break;
				}
				lows[nlows] = lo;
				highs[nlows++] = hi;
			}
			if (k == a->ranges && in.pos < in.n && is_dir(&f->st[in.v[in.pos]], ".long"))
				rngs[nrngs++] = in.v[in.pos];
			read_value(&in, a->form[k], &bytes);
		}
	}
	ok = ok && !in.bad && bytes == unit_len;
	if (ok) {
		/* Which functions move: one DIE each. */
		char *tail = NULL;
		size_t tlen = 0, tcap = 0;
		an->dw_repl = xcalloc(f->n, sizeof *an->dw_repl);
		for (int c = 1; c < cap; c++) {
			if (!valid[c] || abv[c].lowpair < 0)
				continue;
			int k = abv[c].lowpair;
			an->dw_repl[abv[c].attr_st[k]] = xstrdup("\t.uleb128 0x55\n");
			an->dw_repl[abv[c].form_st[k]] = xstrdup("\t.uleb128 0x17\n");
			an->dw_repl[abv[c].attr_st[k + 1]] = xstrdup("\t.uleb128 " SIC_DW_AT_PAD "\n");
			an->dw_repl[abv[c].form_st[k + 1]] = xstrdup("\t.uleb128 0xa\n");
		}
		put(&tail, &tlen, &tcap, "\t.section\t.debug_rnglists,\"\",@progbits\n"
					 "\t.long\t.Lsic_rnglists_end - .Lsic_rnglists_start\n"
					 ".Lsic_rnglists_start:\n\t.value\t0x5\n\t.byte\t0x8\n\t.byte\t0\n\t.long\t0\n");
		for (int k = 0; k < nlows; k++) {
			const struct stmt *lo = &f->st[lows[k]];
			int hi = highs[k];
			char line[128];
			snprintf(line, sizeof line, "\t.long\t.Lsic_rl_%d\n\t.byte\t0xb\n\t.zero\t11\n", k);
			an->dw_repl[lows[k]] = xstrdup(line);
			an->dw_repl[hi] = xstrdup("");
			put(&tail, &tlen, &tcap, ".Lsic_rl_%d:\n\t.byte\t0x7\n\t.quad\t%s\n\t.uleb128 %s\n", k, lo->args,
			    f->st[hi].args);
			struct sym *fn = movable(an, lo->args, text0);
			if (fn)
				move(an, fn, text0, etext, &tail, &tlen, &tcap);
			put(&tail, &tlen, &tcap, "\t.byte\t0\n");
		}
		/* A function split into hot and cold parts has gcc's own range list, the hot
		 * part first: the check's range (and the thunk's) go before its end. */
		for (int k = 0; k < nrngs; k++) {
			int end;
			const char *first = hot_range(an, f->st[rngs[k]].args, &end);
			struct sym *fn = first ? movable(an, first, text0) : NULL;
			if (!fn)
				continue;
			char *extra = NULL;
			size_t elen = 0, ecap = 0;
			move(an, fn, text0, etext, &extra, &elen, &ecap);
			put(&extra, &elen, &ecap, "\t.byte\t0\n");
			an->dw_repl[end] = extra;
		}
		put(&tail, &tlen, &tcap, ".Lsic_rnglists_end:\n");
		an->dw_tail = tail;
		an->dw_text0 = text0;
		an->dw_etext = etext;
	}
	for (int c = 0; c < cap; c++) {
		free(abv[c].attr);
		free(abv[c].form);
		free(abv[c].attr_st);
		free(abv[c].form_st);
	}
	free(abv);
	free(valid);
	free(lows);
	free(highs);
	free(rngs);
out:
	free(ab.v);
	free(in.v);
}
