/* cfi.c: follow .cfi_* directives in layout order, which is the order in which they
 * take effect, so the state before any instruction is known exactly. */
#include "cfi.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void state_reset(struct cfi_state *s)
{
	cfi_release(s);
	memset(s, 0, sizeof *s);
	s->known = true;
	strcpy(s->cfa_reg, "7"); /* the CIE gcc emits: CFA = rsp + 8, return address at CFA-8 */
	s->cfa_off = 8;
}

void cfi_init(struct cfi_tracker *t)
{
	memset(t, 0, sizeof *t);
	state_reset(&t->cur);
}

void cfi_release(struct cfi_state *s)
{
	free(s->cfa_escape);
	s->cfa_escape = NULL;
	for (int r = 0; r < CFI_NREGS; r++) {
		free(s->reg[r].escape);
		s->reg[r].escape = NULL;
	}
}

void cfi_copy(struct cfi_state *dst, const struct cfi_state *src)
{
	*dst = *src;
	dst->cfa_escape = src->cfa_escape ? strdup(src->cfa_escape) : NULL;
	for (int r = 0; r < CFI_NREGS; r++)
		dst->reg[r].escape = src->reg[r].escape ? strdup(src->reg[r].escape) : NULL;
}

static const char *const reg_names[CFI_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

static int reg_number(const char *s)
{
	while (*s == ' ' || *s == '%')
		s++;
	if (isdigit((unsigned char)*s)) {
		int n = atoi(s);
		return n >= 0 && n < CFI_NREGS ? n : -1;
	}
	for (int r = 0; r < CFI_NREGS; r++)
		if (!strncmp(s, reg_names[r], strlen(reg_names[r])) &&
		    !isalnum((unsigned char)s[strlen(reg_names[r])]))
			return r;
	return -1;
}

bool cfi_cfa_is_rsp(const struct cfi_state *s)
{
	return !s->cfa_escape && reg_number(s->cfa_reg) == 7;
}

/* "a, b" -> two strings (trimmed) */
static int split2(const char *args, char *a, char *b, size_t len)
{
	const char *c = strchr(args, ',');
	size_t n = c ? (size_t)(c - args) : strlen(args);
	if (n >= len)
		return 0;
	memcpy(a, args, n);
	a[n] = '\0';
	while (n && isspace((unsigned char)a[n - 1]))
		a[--n] = '\0';
	if (!c)
		return 1;
	c++;
	while (isspace((unsigned char)*c))
		c++;
	snprintf(b, len, "%s", c);
	return 2;
}

static void feed_escape(struct cfi_state *s, const char *args)
{
	/* DW_CFA_def_cfa_expression (0x0f), DW_CFA_expression (0x10 reg ...),
	 * DW_CFA_val_expression (0x16 reg ...): the only escapes gcc writes. */
	unsigned long op = strtoul(args, NULL, 0);
	if (op == 0x0f) {
		free(s->cfa_escape);
		s->cfa_escape = strdup(args);
		return;
	}
	if (op == 0x10 || op == 0x16) {
		const char *c = strchr(args, ',');
		int r = c ? (int)strtoul(c + 1, NULL, 0) : -1;
		if (r >= 0 && r < CFI_NREGS) {
			free(s->reg[r].escape);
			s->reg[r].rule = CR_ESCAPE;
			s->reg[r].escape = strdup(args);
			return;
		}
	}
	s->known = false;
}

bool cfi_feed(struct cfi_tracker *t, const char *name, const char *args)
{
	if (strncmp(name, ".cfi_", 5) != 0)
		return false;
	struct cfi_state *s = &t->cur;
	const char *d = name + 5;
	char a[64], b[64];
	int n = split2(args, a, b, sizeof a);
	int r = n >= 1 ? reg_number(a) : -1;

	if (!strcmp(d, "startproc")) {
		state_reset(s);
		s->in_proc = true;
		t->depth = 0;
	} else if (!strcmp(d, "endproc")) {
		s->in_proc = false;
		while (t->depth > 0)
			cfi_release(&t->stack[--t->depth]);
	} else if (!strcmp(d, "def_cfa") && n == 2) {
		free(s->cfa_escape);
		s->cfa_escape = NULL;
		snprintf(s->cfa_reg, sizeof s->cfa_reg, "%s", a);
		s->cfa_off = strtol(b, NULL, 0);
	} else if (!strcmp(d, "def_cfa_register") && n >= 1) {
		free(s->cfa_escape);
		s->cfa_escape = NULL;
		snprintf(s->cfa_reg, sizeof s->cfa_reg, "%s", a);
	} else if (!strcmp(d, "def_cfa_offset") && n >= 1) {
		s->cfa_off = strtol(a, NULL, 0);
	} else if (!strcmp(d, "adjust_cfa_offset") && n >= 1) {
		s->cfa_off += strtol(a, NULL, 0);
	} else if (!strcmp(d, "offset") && n == 2 && r >= 0) {
		free(s->reg[r].escape);
		s->reg[r] = (struct cfi_reg){CR_OFFSET, strtol(b, NULL, 0), NULL};
	} else if (!strcmp(d, "rel_offset") && n == 2 && r >= 0) {
		/* relative to the CFA register's value: CFA - cfa_off + off */
		free(s->reg[r].escape);
		s->reg[r] = (struct cfi_reg){CR_OFFSET, strtol(b, NULL, 0) - s->cfa_off, NULL};
	} else if (!strcmp(d, "register") && n == 2 && r >= 0 && reg_number(b) >= 0) {
		free(s->reg[r].escape);
		s->reg[r] = (struct cfi_reg){CR_REGISTER, reg_number(b), NULL};
	} else if ((!strcmp(d, "restore") || !strcmp(d, "same_value")) && r >= 0) {
		free(s->reg[r].escape);
		s->reg[r] = (struct cfi_reg){CR_SAME, 0, NULL};
	} else if (!strcmp(d, "remember_state")) {
		if (t->depth < 16)
			cfi_copy(&t->stack[t->depth++], s);
		else
			s->known = false;
	} else if (!strcmp(d, "restore_state")) {
		if (t->depth > 0) {
			bool in_proc = s->in_proc;
			cfi_release(s);
			*s = t->stack[--t->depth];
			s->in_proc = in_proc;
		} else {
			s->known = false;
		}
	} else if (!strcmp(d, "escape")) {
		feed_escape(s, args);
	} else if (!strcmp(d, "sections") || !strcmp(d, "personality") || !strcmp(d, "lsda") ||
		   !strcmp(d, "signal_frame") || !strcmp(d, "return_column") ||
		   !strcmp(d, "window_save") || !strcmp(d, "undefined")) {
		/* no effect on the rows the stubs need (undefined: a register we do not restore) */
	} else {
		s->known = false;
	}
	return true;
}

static void emit_reg(FILE *out, int r, const struct cfi_reg *g)
{
	if (g->rule == CR_OFFSET)
		fprintf(out, "\t.cfi_offset %d, %ld\n", r, g->off);
	else if (g->rule == CR_ESCAPE)
		fprintf(out, "\t.cfi_escape %s\n", g->escape);
	else if (g->rule == CR_REGISTER)
		fprintf(out, "\t.cfi_register %d, %ld\n", r, g->off);
	else
		fprintf(out, "\t.cfi_restore %d\n", r); /* the rule at .cfi_startproc */
}

static bool same_reg(const struct cfi_reg *a, const struct cfi_reg *b)
{
	if (a->rule != b->rule)
		return false;
	if (a->rule == CR_ESCAPE)
		return !strcmp(a->escape, b->escape);
	return a->rule == CR_SAME || a->off == b->off;
}

bool cfi_equal(const struct cfi_state *a, const struct cfi_state *b)
{
	if (!a->cfa_escape != !b->cfa_escape || (a->cfa_escape && strcmp(a->cfa_escape, b->cfa_escape)))
		return false;
	if (!a->cfa_escape && (reg_number(a->cfa_reg) != reg_number(b->cfa_reg) || a->cfa_off != b->cfa_off))
		return false;
	for (int r = 0; r < CFI_NREGS; r++)
		if (!same_reg(&a->reg[r], &b->reg[r]))
			return false;
	return true;
}

void cfi_emit_delta(FILE *out, const struct cfi_state *from, const struct cfi_state *to)
{
	if (to->cfa_escape) {
		if (!from->cfa_escape || strcmp(from->cfa_escape, to->cfa_escape))
			fprintf(out, "\t.cfi_escape %s\n", to->cfa_escape);
	} else if (from->cfa_escape || reg_number(from->cfa_reg) != reg_number(to->cfa_reg)) {
		fprintf(out, "\t.cfi_def_cfa %s, %ld\n", to->cfa_reg, to->cfa_off);
	} else if (from->cfa_off != to->cfa_off) {
		fprintf(out, "\t.cfi_def_cfa_offset %ld\n", to->cfa_off);
	}
	for (int r = 0; r < CFI_NREGS; r++)
		if (!same_reg(&from->reg[r], &to->reg[r]))
			emit_reg(out, r, &to->reg[r]);
}

void cfi_emit(FILE *out, const struct cfi_state *s)
{
	struct cfi_state cie = {.known = true, .cfa_reg = "7", .cfa_off = 8};
	cfi_emit_delta(out, &cie, s);
}
