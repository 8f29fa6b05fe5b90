/* sic_quick.c: the counter's overflow when nothing but the counter changes (sic_rt.S
 * calls it first, without saving the vector registers, which cost ~300 ns of the
 * ~350 ns an overflow took): the stress mode's reload, and a hunting thread looking
 * on, counting point by counting point, for where to decide (engine/schedule/record.c's seek).
 * Compiled with -mgeneral-regs-only, and calls nothing that is not: anything else
 * returns 0 and takes the full path (rp_sic_overflow_c). */
#include "engine/engine.h"

#include <string.h>

struct rp_sic_quick rp_sic_quick;

uintptr_t rp_call_dest(uintptr_t ret)
{
	const unsigned char *r = (const unsigned char *)ret;
	int32_t rel;
	memcpy(&rel, r - 4, sizeof rel);
	if (r[-5] == 0xe8)
		return (uintptr_t)(r + rel);
	if (r[-6] == 0xff && r[-5] == 0x15) {
		uintptr_t slot;
		memcpy(&slot, r + rel, sizeof slot);
		return slot;
	}
	return 0;
}

/* Where a counting point's stub resumes the program (sicpp/rewrite.c), from the
 * return address of its call: __sic_overflow_far (_near) found it in the stubs' table
 * and passes it with the top bit set (sic_rt.S); a stub calling __sic_overflow and
 * returning to itself is followed by `leaq 128(%rsp), %rsp; jmp back` (resume: back).
 * 0 for another form: the flag-preserving form's stub (an xchgq before its jmp: no
 * preemption there) and __sic_foreign_entry's call. (A stub of an older sicpp's,
 * `call __sic_overflow_far; .long resume - .`, comes here through the same routine.) */
uintptr_t rp_stub_resume_pc(uintptr_t ret)
{
	static const unsigned char leaq[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	const unsigned char *p = (const unsigned char *)ret;
	int32_t rel;
	if (!ret)
		return 0;
	if (ret >> 63) /* no user-space address has it */
		return ret & ~(1ULL << 63);
	for (size_t i = 0; i < sizeof leaq; i++)
		if (p[i] != leaq[i])
			return 0;
	p += sizeof leaq;
	if (p[0] == 0xe9) {
		memcpy(&rel, p + 1, sizeof rel);
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
		return rp_replaying || rp_counting || t->preempt_soon || rp_hang_due || rp_async_due ||
		       t->async_soon ? 0 :
		       (t->offset += q->reload, q->reload);
	if (!q->seeking || !rp_counting || rp_replaying || rp_hang_due || t->soon || t->soon_pc ||
	    t->seek == 0 || t->seek_left <= 1 || rp_async_due || t->async_soon)
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
