/* test_cfi: the call-frame state followed through .cfi_* directives (sicpp/cfi.c),
 * and the directives that rebuild it at the head of a stub's FDE. */
#include "sicpp_test.h"

/* Feed "name args" lines, one directive each, e.g. ".cfi_offset 6, -16". */
static void feed(struct cfi_tracker *t, const char *const *lines)
{
	for (; *lines; lines++) {
		const char *sp = strchr(*lines, ' ');
		char name[64];
		size_t n = sp ? (size_t)(sp - *lines) : strlen(*lines);
		assert_true(n < sizeof name);
		memcpy(name, *lines, n);
		name[n] = '\0';
		assert_true(cfi_feed(t, name, sp ? sp + 1 : ""));
	}
}

static char *emitted(const struct cfi_state *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	cfi_emit(out, s);
	fclose(out);
	return buf;
}

static void release_all(struct cfi_tracker *t)
{
	cfi_release(&t->cur);
	while (t->depth > 0)
		cfi_release(&t->stack[--t->depth]);
}

#define FEED(t, ...) feed(t, (const char *const[]){__VA_ARGS__, NULL})

/* ---- the state ------------------------------------------------------------------ */

static void initial_state_is_the_cie(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	assert_true(t.cur.known);
	assert_false(t.cur.in_proc);
	assert_string_equal(t.cur.cfa_reg, "7");
	assert_int_equal(t.cur.cfa_off, 8);
	assert_null(t.cur.cfa_escape);
	assert_true(cfi_cfa_is_rsp(&t.cur));
	for (int r = 0; r < CFI_NREGS; r++)
		assert_int_equal(t.cur.reg[r].rule, CR_SAME);
	assert_int_equal(t.depth, 0);
	release_all(&t);
}

static void startproc_and_endproc(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc");
	assert_true(t.cur.in_proc);
	assert_true(t.cur.known);
	FEED(&t, ".cfi_endproc");
	assert_false(t.cur.in_proc);
	release_all(&t);
}

static void push_frame(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 6, -16",
	     ".cfi_def_cfa_offset 24", ".cfi_offset 3, -24");
	assert_int_equal(t.cur.cfa_off, 24);
	assert_string_equal(t.cur.cfa_reg, "7");
	assert_true(cfi_cfa_is_rsp(&t.cur));
	assert_int_equal(t.cur.reg[6].rule, CR_OFFSET);
	assert_int_equal(t.cur.reg[6].off, -16);
	assert_int_equal(t.cur.reg[3].rule, CR_OFFSET);
	assert_int_equal(t.cur.reg[3].off, -24);
	assert_int_equal(t.cur.reg[12].rule, CR_SAME);
	release_all(&t);
}

static void register_names_and_numbers(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_offset %rbp, -16", ".cfi_offset %r12, -24",
	     ".cfi_offset %r14, -32", ".cfi_offset 13, -40", ".cfi_offset %rbx, -48");
	assert_int_equal(t.cur.reg[6].off, -16);
	assert_int_equal(t.cur.reg[12].off, -24);
	assert_int_equal(t.cur.reg[14].off, -32);
	assert_int_equal(t.cur.reg[13].off, -40);
	assert_int_equal(t.cur.reg[3].off, -48);
	assert_int_equal(t.cur.reg[1].rule, CR_SAME); /* %r1 does not exist: nothing else moved */
	release_all(&t);
}

static void frame_pointer(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 6, -16",
	     ".cfi_def_cfa_register 6");
	assert_string_equal(t.cur.cfa_reg, "6");
	assert_int_equal(t.cur.cfa_off, 16);
	assert_false(cfi_cfa_is_rsp(&t.cur));
	/* leave; .cfi_def_cfa 7, 8 */
	FEED(&t, ".cfi_def_cfa 7, 8");
	assert_true(cfi_cfa_is_rsp(&t.cur));
	assert_int_equal(t.cur.cfa_off, 8);
	FEED(&t, ".cfi_def_cfa_register %rbp");
	assert_false(cfi_cfa_is_rsp(&t.cur));
	FEED(&t, ".cfi_def_cfa %rsp, 16");
	assert_true(cfi_cfa_is_rsp(&t.cur));
	assert_int_equal(t.cur.cfa_off, 16);
	release_all(&t);
}

static void adjust_cfa_offset(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_adjust_cfa_offset 8", ".cfi_adjust_cfa_offset 24");
	assert_int_equal(t.cur.cfa_off, 40);
	FEED(&t, ".cfi_adjust_cfa_offset -32");
	assert_int_equal(t.cur.cfa_off, 8);
	release_all(&t);
}

static void rel_offset_is_from_the_cfa_register(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	/* CFA = rsp + 16; rbp saved at rsp + 0, which is CFA - 16 */
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_rel_offset 6, 0");
	assert_int_equal(t.cur.reg[6].rule, CR_OFFSET);
	assert_int_equal(t.cur.reg[6].off, -16);
	release_all(&t);
}

static void register_rule(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_register 16, 10");
	assert_int_equal(t.cur.reg[16].rule, CR_REGISTER);
	assert_int_equal(t.cur.reg[16].off, 10);
	FEED(&t, ".cfi_register %rbx, %r11");
	assert_int_equal(t.cur.reg[3].rule, CR_REGISTER);
	assert_int_equal(t.cur.reg[3].off, 11);
	release_all(&t);
}

static void restore_and_same_value(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 6, -16",
	     ".cfi_offset 3, -24", ".cfi_restore 6");
	assert_int_equal(t.cur.reg[6].rule, CR_SAME);
	assert_int_equal(t.cur.reg[3].rule, CR_OFFSET);
	FEED(&t, ".cfi_same_value %rbx");
	assert_int_equal(t.cur.reg[3].rule, CR_SAME);
	assert_true(t.cur.known);
	release_all(&t);
}

/* gcc around an early return in the middle of a function:
 *	.cfi_remember_state / .cfi_def_cfa_offset 8 / ret / .cfi_restore_state */
static void remember_and_restore_state(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 3, -16",
	     ".cfi_remember_state", ".cfi_def_cfa_offset 8", ".cfi_restore 3");
	assert_int_equal(t.depth, 1);
	assert_int_equal(t.cur.cfa_off, 8);
	assert_int_equal(t.cur.reg[3].rule, CR_SAME);
	FEED(&t, ".cfi_restore_state");
	assert_int_equal(t.depth, 0);
	assert_int_equal(t.cur.cfa_off, 16);
	assert_int_equal(t.cur.reg[3].rule, CR_OFFSET);
	assert_int_equal(t.cur.reg[3].off, -16);
	assert_true(t.cur.in_proc);
	assert_true(t.cur.known);
	release_all(&t);
}

static void nested_remember_state(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_remember_state",
	     ".cfi_def_cfa_offset 24", ".cfi_remember_state", ".cfi_def_cfa_offset 32");
	assert_int_equal(t.depth, 2);
	FEED(&t, ".cfi_restore_state");
	assert_int_equal(t.cur.cfa_off, 24);
	FEED(&t, ".cfi_restore_state");
	assert_int_equal(t.cur.cfa_off, 16);
	assert_int_equal(t.depth, 0);
	release_all(&t);
}

static void restore_state_without_remember_is_unknown(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_restore_state");
	assert_false(t.cur.known);
	/* the next function starts afresh */
	FEED(&t, ".cfi_endproc", ".cfi_startproc");
	assert_true(t.cur.known);
	assert_int_equal(t.cur.cfa_off, 8);
	release_all(&t);
}

static void endproc_drops_remembered_states(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_escape 0x10,0x6,0x2,0x76,0", ".cfi_remember_state",
	     ".cfi_remember_state", ".cfi_endproc");
	assert_int_equal(t.depth, 0);
	release_all(&t);
}

/* gcc's stack realignment with a DRAP register (main with -mavx, alloca of big
 * alignment): the CFA becomes an expression. */
static void escape_cfa_expression(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa 10, 0", ".cfi_escape 0x10,0x6,0x2,0x76,0",
	     ".cfi_escape 0xf,0x3,0x76,0x78,0x6");
	assert_true(t.cur.known);
	assert_non_null(t.cur.cfa_escape);
	assert_string_equal(t.cur.cfa_escape, "0xf,0x3,0x76,0x78,0x6");
	assert_false(cfi_cfa_is_rsp(&t.cur));
	assert_int_equal(t.cur.reg[6].rule, CR_ESCAPE);
	assert_string_equal(t.cur.reg[6].escape, "0x10,0x6,0x2,0x76,0");
	/* leaq -8(%r10), %rsp; .cfi_def_cfa 7, 8: a plain CFA again */
	FEED(&t, ".cfi_def_cfa 7, 8");
	assert_null(t.cur.cfa_escape);
	assert_true(cfi_cfa_is_rsp(&t.cur));
	FEED(&t, ".cfi_restore 6");
	assert_int_equal(t.cur.reg[6].rule, CR_SAME);
	assert_null(t.cur.reg[6].escape);
	release_all(&t);
}

static void escape_val_expression(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_escape 0x16,0x3,0x2,0x77,0x8");
	assert_true(t.cur.known);
	assert_int_equal(t.cur.reg[3].rule, CR_ESCAPE);
	release_all(&t);
}

static void unknown_escape_makes_state_unknown(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_escape 0x2e,0x10"); /* DW_CFA_GNU_args_size */
	assert_false(t.cur.known);
	release_all(&t);
}

static void unknown_cfi_directive_makes_state_unknown(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_val_offset 3, -8");
	assert_false(t.cur.known);
	release_all(&t);
}

static void directives_without_effect_on_the_rows(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_sections .debug_frame", ".cfi_startproc",
	     ".cfi_personality 0x9b,DW.ref.__gxx_personality_v0", ".cfi_lsda 0x1b,.LLSDA0",
	     ".cfi_signal_frame", ".cfi_undefined 16");
	assert_true(t.cur.known);
	assert_true(t.cur.in_proc);
	assert_int_equal(t.cur.cfa_off, 8);
	release_all(&t);
}

static void other_directives_are_not_cfi(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	assert_false(cfi_feed(&t, ".p2align", "4"));
	assert_false(cfi_feed(&t, ".cfi", ""));
	assert_false(cfi_feed(&t, ".section", ".text"));
	assert_true(t.cur.known);
	assert_false(t.cur.in_proc);
	release_all(&t);
}

static void copy_is_deep(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_escape 0x10,0x6,0x2,0x76,0",
	     ".cfi_escape 0xf,0x3,0x76,0x78,0x6");
	struct cfi_state copy;
	cfi_copy(&copy, &t.cur);
	assert_ptr_not_equal(copy.cfa_escape, t.cur.cfa_escape);
	assert_ptr_not_equal(copy.reg[6].escape, t.cur.reg[6].escape);
	release_all(&t); /* the copy outlives the original */
	assert_string_equal(copy.cfa_escape, "0xf,0x3,0x76,0x78,0x6");
	assert_string_equal(copy.reg[6].escape, "0x10,0x6,0x2,0x76,0");
	cfi_release(&copy);
	assert_null(copy.cfa_escape);
}

/* ---- cfi_emit ------------------------------------------------------------------------- */

static void emit_cie_state(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc");
	char *text = emitted(&t.cur); /* nothing to add to what the CIE says */
	assert_string_equal(text, "");
	free(text);
	release_all(&t);
}

static void emit_frame_pointer_state(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 6, -16",
	     ".cfi_def_cfa_register 6", ".cfi_offset 3, -24", ".cfi_offset %r12, -32");
	char *text = emitted(&t.cur);
	assert_string_equal(text, "\t.cfi_def_cfa 6, 16\n"
				  "\t.cfi_offset 3, -24\n"
				  "\t.cfi_offset 6, -16\n"
				  "\t.cfi_offset 12, -32\n");
	free(text);
	release_all(&t);
}

static void emit_escapes_and_register(void **state)
{
	struct cfi_tracker t;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa 10, 0", ".cfi_escape 0x10,0x6,0x2,0x76,0",
	     ".cfi_escape 0xf,0x3,0x76,0x78,0x6", ".cfi_register 16, 11");
	char *text = emitted(&t.cur);
	assert_string_equal(text, "\t.cfi_escape 0xf,0x3,0x76,0x78,0x6\n"
				  "\t.cfi_escape 0x10,0x6,0x2,0x76,0\n"
				  "\t.cfi_register 16, 11\n");
	assert_null(strstr(text, ".cfi_def_cfa "));
	free(text);
	release_all(&t);
}

/* The emitted state, fed back after a .cfi_startproc, is the same state. */
static void emit_round_trip(void **state)
{
	struct cfi_tracker t, back;
	cfi_init(&t);
	FEED(&t, ".cfi_startproc", ".cfi_def_cfa_offset 48", ".cfi_offset 3, -16",
	     ".cfi_offset 6, -24", ".cfi_offset 14, -32", ".cfi_escape 0x10,0xc,0x2,0x76,0x8");
	char *text = emitted(&t.cur);
	cfi_init(&back);
	FEED(&back, ".cfi_startproc");
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		while (*line == '\t')
			line++;
		char *sp = strchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_true(cfi_feed(&back, line, sp + 1));
	}
	assert_true(back.cur.known);
	assert_int_equal(back.cur.cfa_off, t.cur.cfa_off);
	assert_true(cfi_cfa_is_rsp(&back.cur));
	for (int r = 0; r < CFI_NREGS; r++) {
		assert_int_equal(back.cur.reg[r].rule, t.cur.reg[r].rule);
		assert_int_equal(back.cur.reg[r].off, t.cur.reg[r].off);
	}
	assert_string_equal(back.cur.reg[12].escape, "0x10,0xc,0x2,0x76,0x8");
	free(text);
	release_all(&t);
	release_all(&back);
}

static char *delta(const struct cfi_state *from, const struct cfi_state *to)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	cfi_emit_delta(out, from, to);
	fclose(out);
	return buf;
}

/* Feed text (directive lines) to t. */
static void feed_text(struct cfi_tracker *t, char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		while (*line == '\t')
			line++;
		char *sp = strchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_true(cfi_feed(t, line, sp + 1));
	}
}

/* The rows between two stubs of one FDE: only what changed, and fed after the first
 * state they give the second. */
static void delta_between_states(void **state)
{
	struct cfi_tracker a, b;
	cfi_init(&a);
	cfi_init(&b);
	FEED(&a, ".cfi_startproc", ".cfi_def_cfa_offset 24", ".cfi_offset 3, -16",
	     ".cfi_offset 6, -24", ".cfi_escape 0x10,0xc,0x2,0x76,0x8");
	FEED(&b, ".cfi_startproc", ".cfi_def_cfa_offset 16", ".cfi_offset 6, -16",
	     ".cfi_def_cfa_register 6", ".cfi_offset 3, -24", ".cfi_offset %r13, -32");
	char *same = delta(&a.cur, &a.cur);
	assert_string_equal(same, "");
	free(same);
	char *text = delta(&a.cur, &b.cur);
	assert_string_equal(text, "\t.cfi_def_cfa 6, 16\n"
				  "\t.cfi_offset 3, -24\n"
				  "\t.cfi_offset 6, -16\n"
				  "\t.cfi_restore 12\n"
				  "\t.cfi_offset 13, -32\n");
	feed_text(&a, text);
	assert_true(a.cur.known);
	assert_string_equal(a.cur.cfa_reg, "6");
	assert_int_equal(a.cur.cfa_off, 16);
	for (int r = 0; r < CFI_NREGS; r++) {
		assert_int_equal(a.cur.reg[r].rule, b.cur.reg[r].rule);
		assert_int_equal(a.cur.reg[r].off, b.cur.reg[r].off);
	}
	free(text);
	/* only the offset: one row */
	struct cfi_state moved;
	cfi_copy(&moved, &b.cur);
	moved.cfa_off += 128;
	text = delta(&moved, &b.cur);
	assert_string_equal(text, "\t.cfi_def_cfa_offset 16\n");
	free(text);
	cfi_release(&moved);
	release_all(&a);
	release_all(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(initial_state_is_the_cie),
		cmocka_unit_test(startproc_and_endproc),
		cmocka_unit_test(push_frame),
		cmocka_unit_test(register_names_and_numbers),
		cmocka_unit_test(frame_pointer),
		cmocka_unit_test(adjust_cfa_offset),
		cmocka_unit_test(rel_offset_is_from_the_cfa_register),
		cmocka_unit_test(register_rule),
		cmocka_unit_test(restore_and_same_value),
		cmocka_unit_test(remember_and_restore_state),
		cmocka_unit_test(nested_remember_state),
		cmocka_unit_test(restore_state_without_remember_is_unknown),
		cmocka_unit_test(endproc_drops_remembered_states),
		cmocka_unit_test(escape_cfa_expression),
		cmocka_unit_test(escape_val_expression),
		cmocka_unit_test(unknown_escape_makes_state_unknown),
		cmocka_unit_test(unknown_cfi_directive_makes_state_unknown),
		cmocka_unit_test(directives_without_effect_on_the_rows),
		cmocka_unit_test(other_directives_are_not_cfi),
		cmocka_unit_test(copy_is_deep),
		cmocka_unit_test(emit_cie_state),
		cmocka_unit_test(emit_frame_pointer_state),
		cmocka_unit_test(emit_escapes_and_register),
		cmocka_unit_test(emit_round_trip),
		cmocka_unit_test(delta_between_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
