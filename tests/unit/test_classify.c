/* test_classify: the mnemonic table (sicpp/classify.c): control-flow class and the
 * status flags each instruction reads and writes. */
#include "sicpp_test.h"

/* Classify one instruction written as gcc would write it. */
static struct insn_info cls(const char *line)
{
	struct asm_file f;
	memset(&f, 0, sizeof f);
	assert_int_equal(asm_parse_line(&f, line, 1, false), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.st[0].kind, ST_INSN);
	struct insn_info in = classify(f.st[0].name, f.st[0].prefix, f.st[0].nops, f.st[0].ops);
	asm_free(&f);
	return in;
}

#define assert_info(line, c, r, w)                                                        \
	do {                                                                              \
		struct insn_info in_ = cls(line);                                         \
		if (in_.cls != (c) || in_.reads != (r) || in_.writes != (w) || !in_.known) \
			fail_msg("'%s': class %d reads %#x writes %#x known %d; want %d %#x %#x", \
				 line, in_.cls, in_.reads, in_.writes, in_.known, c, r, w); \
	} while (0)

/* The 16 conditions in every spelling gas accepts, with what they read. */
static const struct {
	const char *cc;
	uint8_t reads;
} conds[] = {
	{"o", FL_OF}, {"no", FL_OF},
	{"b", FL_CF}, {"c", FL_CF}, {"nae", FL_CF},
	{"ae", FL_CF}, {"nb", FL_CF}, {"nc", FL_CF},
	{"e", FL_ZF}, {"z", FL_ZF},
	{"ne", FL_ZF}, {"nz", FL_ZF},
	{"be", FL_CF | FL_ZF}, {"na", FL_CF | FL_ZF},
	{"a", FL_CF | FL_ZF}, {"nbe", FL_CF | FL_ZF},
	{"s", FL_SF}, {"ns", FL_SF},
	{"p", FL_PF}, {"pe", FL_PF},
	{"np", FL_PF}, {"po", FL_PF},
	{"l", FL_SF | FL_OF}, {"nge", FL_SF | FL_OF},
	{"ge", FL_SF | FL_OF}, {"nl", FL_SF | FL_OF},
	{"le", FL_ZF | FL_SF | FL_OF}, {"ng", FL_ZF | FL_SF | FL_OF},
	{"g", FL_ZF | FL_SF | FL_OF}, {"nle", FL_ZF | FL_SF | FL_OF},
};
#define NCONDS (sizeof conds / sizeof conds[0])

/* ---- arithmetic and size suffixes ------------------------------------------------- */

static void size_suffix_stripped(void **state)
{
	const char *full[] = {
		"addl $1, %eax", "addq %rsi, %rdi", "addw $2, (%rdi)", "addb %al, %bl",
		"subq $8, %rsp", "cmpb $0, (%rdi)", "cmpl %esi, %edi", "cmpq $-1, %rax",
		"testl %eax, %eax", "xorl %eax, %eax", "andw $15, %ax", "orb $1, %al",
		"negq %rax", "imulq %rsi, %rax", "idivl %ecx", "shrl $3, %eax",
		"sarq $63, %rdx", "sall $2, %ecx", "bsfq %rdi, %rax", "popcntl %edi, %eax",
		"lock cmpxchgq %rdx, (%rdi)", "lock xaddl %eax, (%rdi)",
	};
	for (size_t k = 0; k < sizeof full / sizeof full[0]; k++)
		assert_info(full[k], IC_OTHER, 0, FL_ALL);
}

static void neutral_moves_with_suffix(void **state)
{
	const char *none[] = {
		"movl $1, %eax", "movq %rax, %rbx", "movb %al, (%rdi)", "movzbl %al, %eax",
		"movslq %edi, %rdi", "movsbl (%rdi), %eax", "leaq 8(%rsp), %rdi",
		"pushq %rbp", "popq %rbx", "xchgq %rax, %rbx", "notl %eax", "bswapq %rax",
		"movabsq $123456789012, %rax", "cltq", "cqto", "nop", "endbr64", "leave",
		"shlxq %rcx, %rax, %rdx", "sarxl %ecx, %eax, %edx", "mulxq %rcx, %rax, %rdx",
	};
	for (size_t k = 0; k < sizeof none / sizeof none[0]; k++)
		assert_info(none[k], IC_OTHER, 0, 0);
}

static void carry_readers(void **state)
{
	assert_info("adcq %rdx, %rax", IC_OTHER, FL_CF, FL_ALL);
	assert_info("sbbl %eax, %eax", IC_OTHER, FL_CF, FL_ALL);
	assert_info("rcll $1, %eax", IC_OTHER, FL_CF, 0);
	assert_info("rcrq %rax", IC_OTHER, FL_CF, 0);
	assert_info("adcxq %rdx, %rax", IC_OTHER, FL_CF, FL_CF);
	assert_info("adoxq %rdx, %rax", IC_OTHER, FL_OF, FL_OF);
	assert_info("cmc", IC_OTHER, FL_CF, FL_CF);
}

static void inc_dec_leave_carry(void **state)
{
	const char *ops[] = {"incl %eax", "incq (%rdi)", "incb %al", "decl %ecx",
			     "decq %r14", "lock incl (%rdi)", "decw %ax"};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		struct insn_info in = cls(ops[k]);
		assert_true(in.known);
		assert_int_equal(in.writes, FL_INC);
		assert_false(in.writes & FL_CF);
		assert_int_equal(in.reads, 0);
	}
}

static void partial_flag_writers(void **state)
{
	assert_info("btl $3, %eax", IC_OTHER, 0, FL_ALL & ~FL_ZF);
	assert_info("btsq %rsi, (%rdi)", IC_OTHER, 0, FL_ALL & ~FL_ZF);
	assert_info("clc", IC_OTHER, 0, FL_CF);
	assert_info("stc", IC_OTHER, 0, FL_CF);
	assert_info("sahf", IC_OTHER, 0, FL_ALL & ~FL_OF);
	assert_info("lahf", IC_OTHER, FL_ALL & ~FL_OF, 0);
	assert_info("pushfq", IC_OTHER, FL_ALL, 0);
	assert_info("popfq", IC_OTHER, 0, FL_ALL);
	assert_info("lock cmpxchg16b (%rdi)", IC_OTHER, 0, FL_ZF);
}

/* ---- conditions -------------------------------------------------------------------- */

static void cc_reads_every_spelling(void **state)
{
	for (size_t k = 0; k < NCONDS; k++)
		assert_int_equal(cc_reads(conds[k].cc), conds[k].reads);
	assert_int_equal(cc_reads("x"), -1);
	assert_int_equal(cc_reads(""), -1);
	assert_int_equal(cc_reads("mp"), -1);
	assert_int_equal(cc_reads("ee"), -1);
}

static void jcc_every_condition(void **state)
{
	for (size_t k = 0; k < NCONDS; k++) {
		char m[32];
		snprintf(m, sizeof m, "j%s\t.L2", conds[k].cc);
		assert_info(m, IC_JCC, conds[k].reads, 0);
	}
}

static void setcc_every_condition(void **state)
{
	for (size_t k = 0; k < NCONDS; k++) {
		char m[32];
		snprintf(m, sizeof m, "set%s\t%%al", conds[k].cc);
		assert_info(m, IC_OTHER, conds[k].reads, 0);
	}
}

/* cmovcc with and without a size suffix: "cmovll" is cmovl with an l suffix. */
static void cmovcc_every_condition(void **state)
{
	const char *suffix[] = {"", "w", "l", "q"};
	for (size_t k = 0; k < NCONDS; k++) {
		for (size_t s = 0; s < 4; s++) {
			char m[48];
			snprintf(m, sizeof m, "cmov%s%s\t%%edx, %%eax", conds[k].cc, suffix[s]);
			assert_info(m, IC_OTHER, conds[k].reads, 0);
		}
	}
}

/* ---- shifts ---------------------------------------------------------------------------- */

static void shifts_by_count(void **state)
{
	/* an immediate other than 0, or the implicit 1, defines the flags */
	assert_info("shrl $3, %eax", IC_OTHER, 0, FL_ALL);
	assert_info("shlq $1, %rax", IC_OTHER, 0, FL_ALL);
	assert_info("sarl %eax", IC_OTHER, 0, FL_ALL);
	assert_info("salb $7, %al", IC_OTHER, 0, FL_ALL);
	assert_info("shldq $4, %rdx, %rax", IC_OTHER, 0, FL_ALL);
	/* a count in %cl may be zero: every flag may survive */
	assert_info("shrl %cl, %eax", IC_OTHER, 0, 0);
	assert_info("sarq %cl, %rdx", IC_OTHER, 0, 0);
	assert_info("shrdq %cl, %rdx, %rax", IC_OTHER, 0, 0);
	/* a zero count leaves every flag alone */
	assert_info("shll $0, %eax", IC_OTHER, 0, 0);
	assert_info("shrq $0x0, %rax", IC_OTHER, 0, 0);
	/* rotates are not counted as writers at all (a zero count writes nothing) */
	assert_info("roll $3, %eax", IC_OTHER, 0, 0);
	assert_info("rorq %cl, %rax", IC_OTHER, 0, 0);
}

/* ---- string instructions ----------------------------------------------------------------- */

static void string_ops(void **state)
{
	const char *moves[] = {"stosq", "stosb", "movsb", "movsl", "movsq", "lodsb", "insb", "outsb"};
	for (size_t k = 0; k < sizeof moves / sizeof moves[0]; k++) {
		struct insn_info in = cls(moves[k]);
		if (!in.string_op || in.writes != 0 || in.reads != 0 || in.cls != IC_OTHER)
			fail_msg("%s: string_op %d writes %#x reads %#x", moves[k], in.string_op,
				 in.writes, in.reads);
		char rep[32];
		snprintf(rep, sizeof rep, "rep %s", moves[k]);
		in = cls(rep);
		if (!in.string_op || in.writes != 0 || in.reads != 0)
			fail_msg("%s: string_op %d writes %#x reads %#x", rep, in.string_op,
				 in.writes, in.reads);
	}
	/* rep; movsb on one line is the same instruction */
	assert_true(cls("rep; movsb").string_op);
}

static void compare_string_ops(void **state)
{
	struct insn_info in = cls("cmpsb");
	assert_true(in.string_op);
	assert_int_equal(in.writes, FL_ALL);
	in = cls("scasq");
	assert_true(in.string_op);
	assert_int_equal(in.writes, FL_ALL);
	/* with a rep prefix the count may be zero: nothing is surely written */
	in = cls("repe cmpsb");
	assert_true(in.string_op);
	assert_int_equal(in.writes, 0);
	in = cls("repnz scasb");
	assert_true(in.string_op);
	assert_int_equal(in.writes, 0);
}

/* movs with two operands is sign extension, not the string move. */
static void sign_extension_is_not_a_string_op(void **state)
{
	const char *ext[] = {"movsbl %al, %eax", "movslq %edi, %rax", "movswl (%rdi), %eax",
			     "movsbq %dil, %rax", "movsbw %al, %ax", "movswq %ax, %rax"};
	for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
		struct insn_info in = cls(ext[k]);
		assert_true(in.known);
		assert_false(in.string_op);
		assert_int_equal(in.writes, 0);
		assert_int_equal(in.reads, 0);
	}
}

/* ---- control transfers --------------------------------------------------------------------- */

static void control_classes(void **state)
{
	assert_info("call foo", IC_CALL, 0, FL_ALL);
	assert_info("call foo@PLT", IC_CALL, 0, FL_ALL);
	assert_info("callq *%rax", IC_CALL, 0, FL_ALL);
	assert_info("call *8(%rax)", IC_CALL, 0, FL_ALL);
	assert_info("ret", IC_RET, 0, 0);
	assert_info("retq", IC_RET, 0, 0);
	assert_info("jmp .L3", IC_JMP, 0, 0);
	assert_info("jmp foo@PLT", IC_JMP, 0, 0);
	assert_info("jmp *%rax", IC_JMP, 0, 0);
	assert_info("jmpq *.L4(,%rax,8)", IC_JMP, 0, 0);
	assert_info("notrack jmp *%rax", IC_JMP, 0, 0);
	assert_info("jrcxz .L5", IC_JCC, 0, 0);
	assert_info("jecxz .L5", IC_JCC, 0, 0);
	assert_info("loop .L5", IC_JCC, 0, 0);
	assert_info("loope .L5", IC_JCC, FL_ZF, 0);
	assert_info("loopz .L5", IC_JCC, FL_ZF, 0);
	assert_info("loopne .L5", IC_JCC, FL_ZF, 0);
	assert_info("loopnz .L5", IC_JCC, FL_ZF, 0);
	assert_info("ud2", IC_STOP, 0, 0);
	assert_info("hlt", IC_STOP, 0, 0);
	assert_info("int3", IC_STOP, 0, 0);
}

static void far_transfers_are_bad(void **state)
{
	const char *bad[] = {"ljmp *(%rax)", "ljmpq *(%rax)", "lcall *(%rdi)", "lret", "lretq",
			     "retf", "iret", "iretq", "sysret", "sysretq", "sysexit",
			     "xbegin .L9"};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct insn_info in = cls(bad[k]);
		if (in.cls != IC_BAD)
			fail_msg("%s: class %d, want IC_BAD", bad[k], in.cls);
	}
}

/* ---- SIMD and x87 -------------------------------------------------------------------------- */

static void simd_and_x87_neutral(void **state)
{
	const char *neutral[] = {
		"addps %xmm1, %xmm0", "addsd (%rdi), %xmm0", "mulsd %xmm2, %xmm1",
		"pxor %xmm0, %xmm0", "paddb %xmm1, %xmm0", "pcmpeqb %xmm1, %xmm0",
		"psubq %xmm1, %xmm0", "pshufb %xmm1, %xmm0", "movaps %xmm0, (%rsp)",
		"movd %xmm0, %eax", "movsd %xmm0, 8(%rsp)", "cmpsd $1, %xmm1, %xmm0",
		"cvtsi2sdl %eax, %xmm0", "cvttsd2si %xmm0, %eax", "pmovmskb %xmm0, %eax",
		"andnps %xmm1, %xmm0", "orpd %xmm1, %xmm0",
		"vaddpd %ymm0, %ymm1, %ymm2", "vpxor %ymm0, %ymm0, %ymm0",
		"vpcmpeqq %ymm1, %ymm2, %ymm3", "vmovdqu (%rdi), %ymm0", "vzeroupper",
		"kmovw %k1, %eax",
		"fldl (%rax)", "faddp %st, %st(1)", "fstpt 16(%rsp)", "fxch %st(1)",
		"fildq (%rdi)", "fnstcw 6(%rsp)", "fldcw 4(%rsp)",
	};
	for (size_t k = 0; k < sizeof neutral / sizeof neutral[0]; k++)
		assert_info(neutral[k], IC_OTHER, 0, 0);
}

static void simd_and_x87_compares_write_flags(void **state)
{
	const char *cmp[] = {"comiss %xmm1, %xmm0", "ucomisd %xmm1, %xmm0", "vcomisd %xmm1, %xmm0",
			     "vucomiss (%rdi), %xmm0", "ptest %xmm1, %xmm0", "vptest %ymm1, %ymm0",
			     "pcmpistri $12, %xmm1, %xmm0", "fcomi %st(1), %st",
			     "fucomip %st(1), %st", "kortestw %k1, %k1"};
	for (size_t k = 0; k < sizeof cmp / sizeof cmp[0]; k++)
		assert_info(cmp[k], IC_OTHER, 0, FL_ALL);
}

static void fcmov_reads(void **state)
{
	assert_info("fcmovb %st(1), %st", IC_OTHER, FL_CF, 0);
	assert_info("fcmove %st(1), %st", IC_OTHER, FL_ZF, 0);
	assert_info("fcmovnbe %st(1), %st", IC_OTHER, FL_CF | FL_ZF, 0);
	assert_info("fcmovu %st(1), %st", IC_OTHER, FL_PF, 0);
}

/* ---- the unknown ------------------------------------------------------------------------------ */

static void unknown_reads_everything(void **state)
{
	const char *unknown[] = {"xyzzy %eax, %ebx", "int $0x80", "rdpid %rax", "quux"};
	for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++) {
		struct insn_info in = cls(unknown[k]);
		if (in.known || in.reads != FL_ALL || in.writes != 0 || in.cls != IC_OTHER)
			fail_msg("%s: known %d reads %#x writes %#x class %d", unknown[k], in.known,
				 in.reads, in.writes, in.cls);
	}
	struct insn_info in = classify("", "", 0, NULL);
	assert_false(in.known);
	assert_int_equal(in.reads, FL_ALL);
}

/* ---- %r15 ----------------------------------------------------------------------------------------- */

static void mentions_r15_all_widths(void **state)
{
	const char *yes[] = {"%r15", "%r15d", "%r15w", "%r15b", "(%r15)", "8(%rax,%r15,4)",
			     "%r15, %rax", "movq %rax, %r15", "movl %r15d, %eax", "%fs:(%r15)",
			     "movq\t%r15\t, %rax", "-8(%r15,%rax)"};
	for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++)
		if (!mentions_r15(yes[k]))
			fail_msg("mentions_r15(\"%s\") is false", yes[k]);
}

static void mentions_r15_not_others(void **state)
{
	const char *no[] = {"%r1", "%r14", "%r150", "%r10d", "%rax", "", "r15", "foo_r15",
			    "movq %r14, %r13", "%r15x", ".Lr15:"};
	for (size_t k = 0; k < sizeof no / sizeof no[0]; k++)
		if (mentions_r15(no[k]))
			fail_msg("mentions_r15(\"%s\") is true", no[k]);
}

/* KNOWN BUG (classify.c, mentions_r15): inline assembly is checked on its raw line,
 * where "%r15" may be followed by ';' (several instructions on one line) or '#' (a
 * comment). Those are not among the accepted terminators, so
 *	asm volatile("movq $1, %%r15; nop");
 * passes the check and clobbers the counter. */
static void mentions_r15_before_semicolon_or_comment(void **state)
{
	assert_true(mentions_r15("movq $1, %r15; nop"));
	assert_true(mentions_r15("movq $1, %r15;"));
	assert_true(mentions_r15("incq %r15# bump"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size_suffix_stripped),
		cmocka_unit_test(neutral_moves_with_suffix),
		cmocka_unit_test(carry_readers),
		cmocka_unit_test(inc_dec_leave_carry),
		cmocka_unit_test(partial_flag_writers),
		cmocka_unit_test(cc_reads_every_spelling),
		cmocka_unit_test(jcc_every_condition),
		cmocka_unit_test(setcc_every_condition),
		cmocka_unit_test(cmovcc_every_condition),
		cmocka_unit_test(shifts_by_count),
		cmocka_unit_test(string_ops),
		cmocka_unit_test(compare_string_ops),
		cmocka_unit_test(sign_extension_is_not_a_string_op),
		cmocka_unit_test(control_classes),
		cmocka_unit_test(far_transfers_are_bad),
		cmocka_unit_test(simd_and_x87_neutral),
		cmocka_unit_test(simd_and_x87_compares_write_flags),
		cmocka_unit_test(fcmov_reads),
		cmocka_unit_test(unknown_reads_everything),
		cmocka_unit_test(mentions_r15_all_widths),
		cmocka_unit_test(mentions_r15_not_others),
		cmocka_unit_test(mentions_r15_before_semicolon_or_comment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
