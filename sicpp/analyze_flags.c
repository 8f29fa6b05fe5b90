/*
 * analyze_flags.c: which status flags may be read after a point (flags_live; docs/sic.md,
 * "Where it counts", Flags): a forward scan that follows jumps, both ways of a jcc,
 * and an indirect jump to the labels of its function whose address is taken; calls and
 * returns kill the flags, what it cannot follow (the end of the section or of the
 * function, code it does not know) reads them all. A counting point's form follows:
 * incq where what it writes is dead, the flag-preserving sequence elsewhere.
 */
#include "analyze_int.h"

#include <string.h>

static uint8_t live_from(struct analysis *an, int i, uint8_t mask);

static uint8_t live_at_label(struct analysis *an, const char *name, uint8_t mask)
{
	struct sym *t = sym_find(an, name);
	/* A symbol the file does not define is another file's: gcc jumps there only to
	 * tail-call a function (jmp f, jne f@PLT), whose entry reads no flag (the ABI);
	 * a local label (.L, numeric) it does not define, it cannot follow. */
	if (!t || t->def < 0)
		return name[0] == '.' || (name[0] >= '0' && name[0] <= '9') ? mask : 0;
	if (t->is_func)
		return 0; /* a function: the ABI kills the flags */
	return live_from(an, t->def, mask);
}

/* Flags that an indirect jump at statement from may carry to one of its possible
 * targets: the labels of its function whose address is taken (jump tables,
 * computed goto). Outside a function: every such label of the file. */
static uint8_t live_at_indirect_targets(struct analysis *an, int from, uint8_t mask)
{
	const struct sym *fn = owner_at(an, from);
	uint8_t live = 0;
	for (int k = 0; k < an->nsyms && live != mask; k++) {
		struct sym *t = &an->syms[k];
		if (!t->addr_taken || t->is_func || t->def < 0 || an->sect[t->def] < 0 ||
		    !an->sect_exec[an->sect[t->def]])
			continue; /* a jump table itself, or data */
		if (fn && owner_at(an, t->def) != fn)
			continue;
		live |= live_from(an, t->def, mask);
	}
	return live;
}

static uint8_t live_from(struct analysis *an, int i, uint8_t mask)
{
	struct asm_file *f = an->f;
	int sect = i < f->n ? an->sect[i] : -1;
	uint8_t live = 0;
	for (; i < f->n && mask; i++) {
		/* visit_mask: the flags already followed from here in this query; a
		 * second way in only needs to follow the others. */
		if (an->visit[i] != an->visit_gen) {
			an->visit[i] = an->visit_gen;
			an->visit_mask[i] = 0;
		}
		mask &= (uint8_t)~an->visit_mask[i];
		if (!mask)
			return live;
		an->visit_mask[i] |= mask;
		if (--an->budget < 0)
			return live | mask;
		struct stmt *s = &f->st[i];
		if (s->foreign) /* gcc treats x86 inline asm as clobbering the flags */
			return s->in_app ? live : live | mask;
		if (an->sect[i] != sect)
			return live | mask;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".size"))
			return live | mask;
		if (s->kind != ST_INSN)
			continue;
		const struct insn_info *in = &s->info;
		uint8_t read = in->reads & mask;
		live |= read;
		mask &= (uint8_t)~read;
		char buf[256];
		const char *t;
		switch (in->cls) {
		case IC_CALL:
		case IC_RET:
		case IC_STOP:
			return live;
		case IC_JMP:
			t = branch_target(s, buf, sizeof buf);
			if (!t)
				return live | live_at_indirect_targets(an, i, mask);
			return live | live_at_label(an, t, mask);
		case IC_JCC:
			t = branch_target(s, buf, sizeof buf);
			live |= t ? live_at_label(an, t, mask) : mask;
			mask &= (uint8_t)~live;
			break;
		case IC_BAD:
			return live | mask;
		case IC_OTHER:
			break;
		}
		mask &= (uint8_t)~in->writes;
	}
	return i < f->n ? live : live | mask;
}

uint8_t flags_live(struct analysis *an, int i, uint8_t mask)
{
	an->visit_gen++;
	an->budget = 4000;
	return live_from(an, i, mask);
}

/* A counting point at statement i itself, in the form the flags there allow. */
void plan_site_count(struct analysis *an, int i)
{
	if (an->plan[i].count)
		return;
	an->plan[i].count = flags_live(an, i, FL_INC) ? CNT_SAFE : CNT_FAST;
}
