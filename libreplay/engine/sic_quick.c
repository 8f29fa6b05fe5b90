/* sic_quick.c: the counter's overflow when nothing but the counter changes (sic_rt.S
 * calls it first, without saving the vector registers, which cost ~300 ns of the
 * ~350 ns an overflow took): the stress mode's reload, and a hunting thread looking
 * on, counting point by counting point, for where to decide (engine/record.c's seek).
 * Compiled with -mgeneral-regs-only, and calls nothing that is not: anything else
 * returns 0 and takes the full path (rp_sic_overflow_c). */
#include "engine.h"

struct rp_sic_quick rp_sic_quick;

/* Where a counting point's stub returns to (sicpp/rewrite.c: leaq 128(%rsp), %rsp;
 * jmp back): 0 for another form. */
uintptr_t rp_stub_resume_pc(uintptr_t ret)
{
	static const unsigned char leaq[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	const unsigned char *p = (const unsigned char *)ret;
	for (size_t i = 0; i < sizeof leaq; i++)
		if (p[i] != leaq[i])
			return 0;
	p += sizeof leaq;
	if (p[0] == 0xe9) {
		int32_t rel = (int32_t)((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 |
					(uint32_t)p[4] << 24);
		return (uintptr_t)(p + 5) + (intptr_t)rel;
	}
	if (p[0] == 0xeb)
		return (uintptr_t)(p + 2) + (intptr_t)(int8_t)p[1];
	return 0;
}

/* Is there an address of the sorted table v (n) in [from, to)? */
static bool any_in(const uintptr_t *v, size_t n, uintptr_t from, uintptr_t to)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] < to;
}

uint64_t rp_sic_overflow_quick(uintptr_t stub_ret)
{
	const struct rp_sic_quick *q = &rp_sic_quick;
	struct rp_thread *t = rp_cur;
	if (q->reload) /* the stress mode, nothing else to do */
		return rp_replaying || rp_counting || t->preempt_soon || rp_hang_due ? 0 :
		       (t->offset += q->reload, q->reload);
	if (!q->seeking || !rp_counting || rp_replaying || rp_hang_due || t->soon || t->soon_pc ||
	    t->seek == 0 || t->seek_left <= 1)
		return 0;
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	if (!pc)
		return 0;
	bool found = t->seek == RP_SEEK_EXIT ? pc != t->seek_pc :
		     any_in(q->atomics, q->natomics, pc, pc + RP_WINDOW_BYTES) ||
		     any_in(q->repeats, q->nrepeats, pc, pc + RP_WINDOW_BYTES);
	if (found)
		return 0; /* the full path decides there */
	t->seek_left--;
	t->offset += 1; /* count = offset - 0 stays; the next counting point again */
	t->slice_end = t->offset;
	return 1;
}
