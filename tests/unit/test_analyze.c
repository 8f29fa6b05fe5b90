/* test_analyze: sections, symbols, branch directions, flag liveness and the plan of
 * what sicpp inserts where (sicpp/analyze.c, docs/sic.md "Where it counts"). */
#include "sicpp_test.h"

/* ---- counting at loop heads ------------------------------------------------------ */

static const char loop_flags_dead[] =
	"\t.text\n"
	"\t.type\tf, @function\n"
	"f:\n"
	"\t.cfi_startproc\n"
	"\txorl\t%eax, %eax\n"
	".L2:\n"
	"\taddl\t$1, %eax\n"
	"\tcmpl\t%edi, %eax\n"
	"\tjne\t.L2\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size\tf, .-f\n";

static void backward_jcc_counts_at_target(void **state)
{
	struct unit u;
	unit_load(&u, loop_flags_dead);
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "addl $1, %eax")->count, CNT_FAST);
	/* nowhere else: f is a leaf, whose return does not count (its callers do) */
	assert_int_equal(counts_between(&u, 0, u.f.n), 1);
	assert_int_equal(plan_of(&u, "ret")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "jne .L2")->count, CNT_NONE);
	assert_int_equal(u.an.n_fast, 1);
	assert_int_equal(u.an.n_safe, 0);
	struct sym *l = sym_find(&u.an, ".L2");
	assert_non_null(l);
	assert_true(l->count_target);
	assert_true(l->branch_ref);
	assert_false(l->is_func);
	unit_free(&u);
}

static void backward_jmp_counts_at_target(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".L3:\n"
		      "\tmovl\t(%rdi), %eax\n"
		      "\tjmp\t.L3\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "movl (%rdi), %eax")->count, CNT_FAST);
	assert_int_equal(plan_of(&u, "jmp .L3")->count, CNT_NONE);
	unit_free(&u);
}

/* gcc -O3: "cmp; jne .L2" ... ".L2: setl %al". The flags are live at the label, and
 * stay live to the next jcc, which reads them: only the flag-preserving form fits. */
static void loop_head_reads_flags_safe(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tcmpl\t%esi, %edi\n"
		      ".L2:\n"
		      "\tsetl\t%al\n"
		      "\tjge\t.L9\n"
		      "\taddb\t%al, %cl\n"
		      "\tcmpl\t%esi, %edi\n"
		      "\tjne\t.L2\n"
		      ".L9:\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "setl %al")->count, CNT_SAFE);
	assert_int_equal(counts_between(&u, 0, u.f.n), 1); /* a leaf's return: none */
	assert_int_equal(u.an.n_safe, 1);
	assert_int_equal(u.an.n_fast, 0);
	unit_free(&u);
}

/* The same head, but a cmp follows the setcc: the count moves down to it, where the
 * flags are dead, and stays the fast form. */
static void loop_head_count_moves_past_setcc(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tcmpl\t%esi, %edi\n"
		      ".L2:\n"
		      "\tsetl\t%al\n"
		      "\tmovzbl\t%al, %eax\n"
		      "\taddl\t%eax, %ecx\n"
		      "\tcmpl\t%esi, %ecx\n"
		      "\tjne\t.L2\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "setl %al")->count, CNT_NONE);
	/* the first boundary after the setcc where nothing reads the flags */
	assert_int_equal(plan_of(&u, "movzbl %al, %eax")->count, CNT_FAST);
	assert_int_equal(counts_between(&u, 0, u.f.n), 1); /* a leaf's return: none */
	unit_free(&u);
}

static void loop_head_count_moves_down_to_cmp(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tcmpl\t%esi, %edi\n"
		      ".L2:\n"
		      "\tsetl\t%al\n"
		      "\tcmovlel\t%edx, %ecx\n"
		      "\tcmpl\t%esi, %ecx\n"
		      "\tjne\t.L2\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "setl %al")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "cmovlel %edx, %ecx")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "cmpl %esi, %ecx")->count, CNT_FAST);
	assert_int_equal(counts_between(&u, 0, u.f.n), 1); /* a leaf's return: none */
	unit_free(&u);
}

/* inc does not write CF: a loop head "adcq" after an inc still needs CF, but decq
 * leaves CF alone too, so the fast form is right there. */
static void carry_only_live_is_fast(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\taddq\t%rsi, %rdi\n"
		      ".L2:\n"
		      "\tadcq\t$0, %rax\n"
		      "\tdecq\t%rcx\n"
		      "\tjne\t.L2\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "adcq $0, %rax")->count, CNT_FAST);
	unit_free(&u);
}

static void forward_branches_get_nothing(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\ttestl\t%edi, %edi\n"
		      "\tje\t.L5\n"
		      "\tmovl\t$1, %eax\n"
		      "\tjmp\t.L6\n"
		      ".L5:\n"
		      "\txorl\t%eax, %eax\n"
		      ".L6:\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(counts_between(&u, 0, u.f.n), 0); /* a leaf's return: none */
	assert_int_equal(plan_of(&u, "ret")->count, CNT_NONE);
	assert_false(sym_find(&u.an, ".L5")->count_target);
	assert_false(sym_find(&u.an, ".L6")->count_target);
	assert_true(sym_find(&u.an, ".L5")->branch_ref);
	assert_false(plan_of(&u, "je .L5")->home_store);
	assert_false(plan_of(&u, "jmp .L6")->home_store);
	unit_free(&u);
}

/* A loop through foo.cold in another section and back: both targets are counting
 * targets; one count on the cycle is enough, and it stays. */
static void cross_section_targets_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".L8:\n"
		      "\ttestl\t%edi, %edi\n"
		      "\tjne\t.L7\n"
		      "\tret\n"
		      "\t.section\t.text.unlikely\n"
		      "f.cold:\n"
		      ".L7:\n"
		      "\tmovl\t$1, %eax\n"
		      "\tjmp\t.L8\n"
		      "\t.text\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_true(sym_find(&u.an, ".L7")->count_target);
	assert_true(sym_find(&u.an, ".L8")->count_target);
	/* .L8's count went first (in layout order), as .L7's covers the cycle */
	assert_int_equal(plan_of(&u, "testl %edi, %edi")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "movl $1, %eax")->count, CNT_FAST);
	assert_int_equal(plan_of(&u, "ret")->count, CNT_NONE); /* f is a leaf */
	assert_int_equal(u.an.n_pruned, 1);
	/* the sections were told apart */
	int a = stmt_at(&u.f, "jne .L7"), b = stmt_at(&u.f, "movl $1, %eax");
	assert_int_not_equal(u.an.sect[a], u.an.sect[b]);
	assert_true(u.an.sect_exec[u.an.sect[a]]);
	assert_true(u.an.sect_exec[u.an.sect[b]]);
	unit_free(&u);
}

/* A jump back to a label on no cycle (gcc's -O0 layout can do it: a forward jump
 * over the code that then jumps back) needs no count; the loop's own label keeps
 * its count; a loop with two back edges to two labels keeps one of them. */
static void counts_only_on_cycles(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tjmp\t.L2\n"
		      ".L1:\n"                       /* reached once, from behind */
		      "\tmovl\t$1, %eax\n"
		      "\tjmp\t.L3\n"
		      ".L2:\n"
		      "\tmovl\t$2, %eax\n"
		      "\tjmp\t.L1\n"
		      ".L3:\n"                       /* a loop with two heads */
		      "\taddl\t$1, %eax\n"
		      ".L4:\n"
		      "\taddl\t$2, %eax\n"
		      "\tcmpl\t$100, %eax\n"
		      "\tjl\t.L4\n"
		      "\tcmpl\t$200, %eax\n"
		      "\tjl\t.L3\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_true(sym_find(&u.an, ".L1")->count_target);
	assert_int_equal(plan_of(&u, "movl $1, %eax")->count, CNT_NONE);
	/* .L3 -> .L4 -> jl .L3 and .L4 -> jl .L4: only .L4's count is on both */
	assert_int_equal(plan_of(&u, "addl $1, %eax")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "addl $2, %eax")->count, CNT_FAST);
	assert_int_equal(u.an.n_pruned, 2);
	assert_int_equal(counts_between(&u, 0, u.f.n), 1); /* .L4 (a leaf's return: none) */
	unit_free(&u);
}

/* The two-headed loop of counts_only_on_cycles: .L3's count goes either way (.L4's is
 * on every cycle through it). Its block storing to a global, the jump back to it is
 * listed in sic_repeats instead (a place for the hunting scheduler between a read at the
 * loop's bottom and the write at its top); storing to the stack, it is not. */
static const char *two_heads(const char *store)
{
	static char text[1024];
	snprintf(text, sizeof text,
		 "\t.text\n"
		 "\t.type\tf, @function\n"
		 "f:\n"
		 ".L3:\n"
		 "\tmovl\t%%eax, %s\n"
		 ".L4:\n"
		 "\taddl\t$2, %%eax\n"
		 "\tcmpl\t$100, %%eax\n"
		 "\tjl\t.L4\n"
		 "\tmovl\tcounter(%%rip), %%eax\n"
		 "\tcmpl\t$200, %%eax\n"
		 "\tjl\t.L3\n"
		 "\tret\n"
		 "\t.size\tf, .-f\n",
		 store);
	return text;
}

static void loop_head_that_writes_memory_lists_its_back_jump(void **state)
{
	struct unit u;
	unit_load(&u, two_heads("counter(%rip)"));
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "movl %eax, counter(%rip)")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "addl $2, %eax")->count, CNT_FAST);
	assert_int_equal(u.an.n_pruned, 1);
	assert_int_equal(plan_of(&u, "jl .L3")->memop, MEMOP_REPEAT);
	assert_int_equal(plan_of(&u, "jl .L4")->memop, 0); /* .L4 kept its count */
	unit_free(&u);
	unit_load(&u, two_heads("-4(%rsp)"));
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "movl %eax, -4(%rsp)")->count, CNT_NONE);
	assert_int_equal(plan_of(&u, "addl $2, %eax")->count, CNT_FAST);
	assert_int_equal(u.an.n_pruned, 1);
	assert_int_equal(plan_of(&u, "jl .L3")->memop, 0);
	unit_free(&u);
}

/* Regression (analyze.c, place_target_count): when the block at a loop head starts with
 * inline assembly, the scan stops at the first foreign statement before it found any
 * instruction, and no count is placed at all. gcc -O2 puts the head of
 *	while (!flag) __asm__ volatile("pause");
 * exactly there (".L3:" then "#APP"), so a spin loop runs without a counting point,
 * against the invariant of docs/sic.md. This is gcc 12's output for it. */
static void loop_starting_with_inline_asm_counts(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tspin\n"
		      "\t.type\tspin, @function\n"
		      "spin:\n"
		      ".LFB0:\n"
		      "\t.cfi_startproc\n"
		      "\tjmp\t.L6\n"
		      "\t.p2align 4,,10\n"
		      "\t.p2align 3\n"
		      ".L3:\n"
		      "#APP\n"
		      "# 2 \"spin.c\" 1\n"
		      "\tpause\n"
		      "# 0 \"\" 2\n"
		      "#NO_APP\n"
		      ".L6:\n"
		      "\tmovl\tflag(%rip), %eax\n"
		      "\ttestl\t%eax, %eax\n"
		      "\tje\t.L3\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      ".LFE0:\n"
		      "\t.size\tspin, .-spin\n");
	assert_int_equal(u.rc, 0);
	assert_true(sym_find(&u.an, ".L3")->count_target);
	/* the cycle .L3 -> pause -> .L6 -> je .L3 must pass a counting point */
	int head = stmt_at(&u.f, ".L3:"), back = stmt_at(&u.f, "je .L3");
	assert_int_not_equal(counts_between(&u, head, back + 1), 0);
	unit_free(&u);
}

/* ---- calls ----------------------------------------------------------------------------- */

/* helper has inline asm (no leaf: its calls count where they may recur, its returns
 * always); taken is a leaf (every call to it counts, its return does not). */
static const char calls[] =
	"\t.text\n"
	"\t.type\thelper, @function\n"
	"helper:\n"
	"#APP\n"
	"\tnop\n"
	"#NO_APP\n"
	"\tmovl\t$1, %eax\n"
	"\tret\n"
	"\t.size\thelper, .-helper\n"
	"\t.type\ttailer, @function\n"
	"tailer:\n"
	"\tjmp\text@PLT\n"
	"\t.size\ttailer, .-tailer\n"
	"\t.type\ttaken, @function\n"
	"taken:\n"
	"\tret\n"
	"\t.size\ttaken, .-taken\n"
	"\t.globl\tg\n"
	"\t.type\tg, @function\n"
	"g:\n"
	"\tcall\thelper\n"
	"\tcall\text@PLT\n"
	"\tcall\tg\n"
	"\tcall\t*%rax\n"
	"\tcall\ttailer\n"
	"\tcall\ttaken\n"
	"\tleaq\ttaken(%rip), %rdi\n"
	"\tret\n"
	"\t.size\tg, .-g\n";

static void call_to_static_function_stays_local(void **state)
{
	struct unit u;
	unit_load(&u, calls);
	assert_int_equal(u.rc, 0);
	const struct stmt_plan *p = plan_of(&u, "call helper");
	/* helper cannot call g back: no cycle of calls passes this one */
	assert_int_equal(p->count, CNT_NONE);
	assert_false(p->home_store);
	assert_false(p->home_reload);
	assert_false(p->token);
	/* helper's return does not publish the count either */
	int ret = stmt_from(&u.f, stmt_at(&u.f, "helper:"), "ret");
	assert_false(u.an.plan[ret].ret_store);
	unit_free(&u);
}

/* Is the plan at statement text a call or jump to the callee's direct entry (the count
 * stays in r15; reloaded after a call unless the callee surely returns it there:
 * expect_reload), or does it publish the count, pass the token and reload it? */
static void expect_direct(const struct unit *u, const char *text, bool direct)
{
	const struct stmt_plan *p = plan_of(u, text);
	bool call = !strncmp(text, "call", 4);
	if (direct ? (!p->direct || p->home_store || p->token || (!call && p->home_reload))
		   : (p->direct || !p->home_store || p->home_reload != call || (call && !p->token)))
		fail_msg("%s: direct %d home_store %d home_reload %d token %d (expected %s)", text,
			 p->direct, p->home_store, p->home_reload, p->token, direct ? "direct" : "token");
}

static void expect_reload(const struct unit *u, const char *text, bool reload)
{
	if (plan_of(u, text)->home_reload != reload)
		fail_msg("%s: home_reload %d, expected %d", text, !reload, reload);
}

static void calls_that_may_reach_foreign_code(void **state)
{
	const char *foreign[] = {"call ext@PLT", "call g", "call *%rax", "call tailer",
				 "call taken"};
	/* Counted: where a cycle of calls may pass (g calls itself; the others may
	 * come back to g through code we cannot see), and calls to a leaf (taken, whose
	 * return does not count). tailer is this file's and calls nothing that reaches
	 * g. */
	const bool counted[] = {true, true, true, false, true};
	/* Only the call through a pointer passes the token: the others go to the callee's
	 * direct entry (this file's g, tailer, taken; ext's, or its shim). */
	const bool direct[] = {true, true, false, true, true};
	struct unit u;
	unit_load(&u, calls);
	assert_int_equal(u.rc, 0);
	for (size_t k = 0; k < sizeof foreign / sizeof foreign[0]; k++) {
		const struct stmt_plan *p = plan_of(&u, foreign[k]);
		/* ext's call counts at ext's cross-file entry, not here (xcall.c) */
		if ((p->count != CNT_NONE || p->xcall) != counted[k] || p->xcall != !strcmp(foreign[k], "call ext@PLT"))
			fail_msg("%s: count %d xcall %d", foreign[k], p->count, p->xcall);
		expect_direct(&u, foreign[k], direct[k]);
	}
	/* A direct call reloads the count after it, but from g to g: a function of this
	 * file that is no leaf and makes no tail jump returns with the count in r15
	 * (tailer's callee may return in its place, taken is a leaf, whose return passes the
	 * token back, ext may be foreign). */
	expect_reload(&u, "call g", false);
	expect_reload(&u, "call tailer", true);
	expect_reload(&u, "call taken", true);
	expect_reload(&u, "call ext@PLT", true);
	assert_true(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "g:"), "ret")].ret_store);
	assert_false(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "g:"), "ret")].ret_token);
	assert_int_equal(u.an.n_calls_local, 1);
	assert_int_equal(u.an.n_calls_foreign, 1);
	assert_int_equal(u.an.n_calls_direct, 4);
	assert_int_equal(u.an.n_calls_uncounted, 2);
	assert_int_equal(u.an.n_leaf_calls, 1);
	/* direct entries: g, tailer and taken (helper has no entry check) */
	assert_int_equal(u.an.n_direct_entries, 3);
	assert_true(sym_find(&u.an, "ext")->shim);
	assert_false(sym_find(&u.an, "g")->shim);
	unit_free(&u);
}

/* In a shared object's code a global function may be interposed: calls to one (this
 * file's g, another's ext) keep the token; static ones (tailer, taken) go direct. */
static void pic_calls_to_globals_keep_the_token(void **state)
{
	struct unit u;
	unit_load_as(&u, calls, true);
	assert_int_equal(u.rc, 0);
	expect_direct(&u, "call ext@PLT", false);
	expect_direct(&u, "call g", false);
	expect_direct(&u, "call tailer", true);
	expect_direct(&u, "call taken", true);
	expect_direct(&u, "jmp ext@PLT", false);
	assert_false(sym_find(&u.an, "g")->direct);
	assert_false(sym_find(&u.an, "ext")->shim);
	unit_free(&u);
}

/* Code compiled with -g whose DWARF sicpp cannot rewrite (sicpp/dwarf.c: here a unit
 * that is no DWARF 5 unit) keeps its entry checks in place, and its own functions get
 * no direct entries: gdb puts `break f` on f's first instruction, the entry check, which
 * a direct call would skip. Its calls to other files' functions go to their direct
 * entries (a -g callee's is in front of its body, or the shim passes the token). */
static void debug_info_keeps_the_token(void **state)
{
	char *text = malloc(strlen(calls) + 64);
	assert_non_null(text);
	strcpy(text, calls);
	strcat(text, "\t.section\t.debug_info,\"\",@progbits\n\t.long\t0\n");
	struct unit u;
	unit_load(&u, text);
	assert_int_equal(u.rc, 0);
	assert_true(u.an.debug_info);
	assert_null(u.an.dw_tail);
	const char *calls_of_g[] = {"call g", "call tailer", "call taken"};
	for (size_t k = 0; k < sizeof calls_of_g / sizeof calls_of_g[0]; k++)
		expect_direct(&u, calls_of_g[k], false);
	expect_direct(&u, "call ext@PLT", true);
	assert_int_equal(u.an.n_direct_entries, 0);
	unit_free(&u);
	free(text);
}

/* A weak callee may be absent (a weak reference) or replaced by a definition elsewhere
 * (a weak definition), an alias names another symbol: their callers keep the token; so
 * do calls to synchronization functions (pthread_*, sem_*) and to the C library's string
 * and allocation functions (foreign: no shim in between). */
static void weak_and_aliased_callees_keep_the_token(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.weak\tmaybe\n"
		      "\t.weak\tw\n"
		      "\t.type\tw, @function\n"
		      "w:\n"
		      "\tret\n"
		      "\t.size\tw, .-w\n"
		      "\t.globl\tg\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      "\tcall\tmaybe@PLT\n"
		      "\tcall\tw\n"
		      "\tcall\talias\n"
		      "\tcall\tother\n"
		      "\tcall\tother+4\n"
		      "\tcall\tpthread_mutex_lock@PLT\n"
		      "\tcall\tsem_post@PLT\n"
		      "\tcall\tmalloc@PLT\n"
		      "\tret\n"
		      "\t.size\tg, .-g\n"
		      "\t.set\talias, g\n");
	assert_int_equal(u.rc, 0);
	expect_direct(&u, "call maybe@PLT", false);
	expect_direct(&u, "call w", false);
	expect_direct(&u, "call alias", false);
	expect_direct(&u, "call other", true);
	expect_direct(&u, "call other+4", false);
	/* the hunting scheduler knows a synchronization call by the token's bytes */
	expect_direct(&u, "call pthread_mutex_lock@PLT", false);
	expect_direct(&u, "call sem_post@PLT", false);
	/* malloc is foreign: the token is passed at the call, not by a shim */
	expect_direct(&u, "call malloc@PLT", false);
	assert_false(sym_find(&u.an, "w")->direct);
	assert_true(sym_find(&u.an, "g")->direct);
	unit_free(&u);
}

/* Static functions calling each other in a cycle count at those calls; a call out
 * of the cycle to a leaf does not. */
static void recursive_calls_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tleaf, @function\n"
		      "leaf:\n"
		      "\tret\n"
		      "\t.size\tleaf, .-leaf\n"
		      "\t.type\teven, @function\n"
		      "even:\n"
		      "\tcall\tleaf\n"
		      "\tcall\todd\n"
		      "\tret\n"
		      "\t.size\teven, .-even\n"
		      "\t.type\todd, @function\n"
		      "odd:\n"
		      "\tcall\teven\n"
		      "\tret\n"
		      "\t.size\todd, .-odd\n"
		      "\t.weak\tw\n"
		      "\t.type\tw, @function\n"
		      "w:\n"
		      "\tcall\tleaf\n"
		      "\tret\n"
		      "\t.size\tw, .-w\n"
		      "\t.type\tuser, @function\n"
		      "user:\n"
		      "\tcall\tw\n"
		      "\tret\n"
		      "\t.size\tuser, .-user\n");
	assert_int_equal(u.rc, 0);
	/* leaf is in a component of its own, but a leaf: its callers count for it */
	assert_int_not_equal(plan_of(&u, "call leaf")->count, CNT_NONE);
	assert_int_not_equal(plan_of(&u, "call odd")->count, CNT_NONE);
	assert_int_not_equal(plan_of(&u, "call even")->count, CNT_NONE);
	/* a weak function may be another's at link time: its calls count */
	assert_int_not_equal(plan_of(&u, "call w")->count, CNT_NONE);
	assert_int_equal(sym_find(&u.an, "even")->scc, sym_find(&u.an, "odd")->scc);
	assert_int_not_equal(sym_find(&u.an, "even")->scc, sym_find(&u.an, "leaf")->scc);
	unit_free(&u);
}

/* Leaves (docs/sic.md, "Where it counts"): no call (a TLS access's included), no tail
 * jump nor indirect jump that may leave, no inline asm, in any part (foo.cold is foo's).
 * Their returns do not count; every call to one does, and a global one's entry check
 * counts on its fast path (foreign callers that left the token in r15). */
static const char leaves[] =
	"\t.text\n"
	"\t.type\tplain, @function\n"
	"plain:\n"
	"\tret\n"
	"\t.size\tplain, .-plain\n"
	"\t.globl\tgl\n"
	"\t.type\tgl, @function\n"
	"gl:\n"
	"\t.cfi_startproc\n"
	"\tendbr64\n"
	"\tmovl\t$1, %eax\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size\tgl, .-gl\n"
	"\t.type\tsw, @function\n"           /* a switch stays in its function */
	"sw:\n"
	"\tnotrack jmp\t*.L4(,%rdi,8)\n"
	".L1:\n"
	"\tmovl\t$1, %eax\n"
	"\tret\n"
	".L2:\n"
	"\tmovl\t$2, %eax\n"
	"\tret\n"
	"\t.size\tsw, .-sw\n"
	"\t.type\tcaller, @function\n"
	"caller:\n"
	"\tcall\tplain\n"
	"\tcall\tplain\n"
	"\tcall\tgl\n"
	"\tcall\tsw\n"
	"\tcall\tmid\n"
	"\tret\n"
	"\t.size\tcaller, .-caller\n"
	"\t.type\tmid, @function\n"          /* calls: no leaf */
	"mid:\n"
	"\tcall\tplain\n"
	"\tret\n"
	"\t.size\tmid, .-mid\n"
	"\t.type\ttail, @function\n"
	"tail:\n"
	"\tjmp\tgl\n"
	"\t.size\ttail, .-tail\n"
	"\t.type\tind, @function\n"          /* may leave: a tail call through a pointer */
	"ind:\n"
	"\tjmp\t*%rax\n"
	"\t.size\tind, .-ind\n"
	"\t.type\tinl, @function\n"
	"inl:\n"
	"#APP\n"
	"\tnop\n"
	"#NO_APP\n"
	"\tret\n"
	"\t.size\tinl, .-inl\n"
	"\t.type\ttls, @function\n"
	"tls:\n"
	"\tdata16\tleaq\tx@tlsgd(%rip), %rdi\n"
	"\t.value\t0x6666\n"
	"\trex64\n"
	"\tcall\t__tls_get_addr@PLT\n"
	"\tret\n"
	"\t.size\ttls, .-tls\n"
	"\t.type\thot, @function\n"          /* its cold part calls */
	"hot:\n"
	"\ttestl\t%edi, %edi\n"
	"\tjne\t.L7\n"
	"\tret\n"
	"\t.section\t.text.unlikely\n"
	"\t.type\thot.cold, @function\n"
	"hot.cold:\n"
	".L7:\n"
	"\tcall\tabort@PLT\n"
	"\t.text\n"
	"\t.size\thot, .-hot\n"
	"\t.section\t.text.unlikely\n"
	"\t.size\thot.cold, .-hot.cold\n"
	"\t.text\n"
	"\t.type\tcool, @function\n"         /* its cold part does not */
	"cool:\n"
	"\ttestl\t%edi, %edi\n"
	"\tjne\t.L8\n"
	"\tret\n"
	"\t.section\t.text.unlikely\n"
	"\t.type\tcool.cold, @function\n"
	"cool.cold:\n"
	".L8:\n"
	"\tmovl\t$3, %eax\n"
	"\tret\n"
	"\t.text\n"
	"\t.size\tcool, .-cool\n"
	"\t.section\t.text.unlikely\n"
	"\t.size\tcool.cold, .-cool.cold\n"
	"\t.section\t.rodata\n"
	".L4:\n"
	"\t.quad\t.L1\n"
	"\t.quad\t.L2\n";

static void leaf_functions(void **state)
{
	struct unit u;
	unit_load(&u, leaves);
	assert_int_equal(u.rc, 0);
	const char *leaf[] = {"plain", "gl", "sw", "cool"};
	const char *not_leaf[] = {"caller", "mid", "tail", "ind", "inl", "tls", "hot"};
	for (size_t k = 0; k < sizeof leaf / sizeof leaf[0]; k++)
		if (!sym_find(&u.an, leaf[k])->leaf)
			fail_msg("%s: not a leaf", leaf[k]);
	for (size_t k = 0; k < sizeof not_leaf / sizeof not_leaf[0]; k++)
		if (sym_find(&u.an, not_leaf[k])->leaf)
			fail_msg("%s: a leaf", not_leaf[k]);
	assert_false(sym_find(&u.an, "cool.cold")->leaf); /* a part, not a function */
	assert_int_equal(u.an.n_leaves, 4);
	/* returns: a leaf's (its cold part's too) do not count, the others' do */
	for (int i = 0; i < u.f.n; i++) {
		if (!is_code(&u.an, i) || u.f.st[i].info.cls != IC_RET)
			continue;
		const struct sym *fn = &u.an.syms[u.an.fn[i]];
		bool in_leaf = fn->leaf || !strcmp(fn->name, "cool.cold");
		if ((u.an.plan[i].count == CNT_NONE) != in_leaf)
			fail_msg("return %d of %s: count %d", i, fn->name, u.an.plan[i].count);
	}
	/* gl is global: its return still publishes the count, and its entry check counts */
	int gl = stmt_at(&u.f, "gl:");
	assert_true(u.an.plan[stmt_from(&u.f, gl, "ret")].ret_store);
	const struct stmt_plan *check = plan_of(&u, "endbr64");
	assert_true(check->entry_check);
	assert_true(check->entry_count);
	assert_int_equal(u.an.n_leaf_entries, 1);
	/* tail is no leaf, reached by nothing: no entry check. A tail jump counts. */
	assert_int_not_equal(plan_of(&u, "jmp gl")->count, CNT_NONE);
	/* calls to leaves count, one after the other too; the call to mid (no leaf,
	 * which cannot call caller back) does not, nor mid's call (plain's callers
	 * counted: every one) */
	int c = stmt_at(&u.f, "caller:");
	const char *counted[] = {"call plain", "call plain", "call gl", "call sw"};
	int at = c;
	for (size_t k = 0; k < sizeof counted / sizeof counted[0]; k++) {
		at = stmt_from(&u.f, at + 1, counted[k]);
		if (u.an.plan[at].count == CNT_NONE)
			fail_msg("%s (statement %d): no count", counted[k], at);
	}
	assert_int_equal(u.an.plan[stmt_from(&u.f, c, "call mid")].count, CNT_NONE);
	assert_int_not_equal(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "mid:"), "call plain")].count, CNT_NONE);
	assert_int_equal(u.an.n_leaf_calls, 5);
	unit_free(&u);
	/* with -g (no direct entries: calls to gl pass the token and its entry check) and
	 * in a shared object's code, the same leaves; gl's fast path still counts, for the
	 * calls from this file too under -g (one count a call), not in a shared object
	 * (another module's gl may win: the call counts) */
	char *text = malloc(strlen(leaves) + 64);
	assert_non_null(text);
	strcpy(text, leaves);
	strcat(text, "\t.section\t.debug_info,\"\",@progbits\n\t.long\t0\n");
	unit_load(&u, text);
	assert_true(u.an.debug_info);
	assert_int_equal(u.an.n_leaves, 4);
	assert_true(plan_of(&u, "endbr64")->entry_count);
	assert_int_equal(plan_of(&u, "call gl")->count, CNT_NONE);
	assert_true(plan_of(&u, "call gl")->token);
	assert_int_not_equal(plan_of(&u, "call plain")->count, CNT_NONE); /* no entry check */
	assert_int_equal(u.an.n_leaf_calls, 4);
	unit_free(&u);
	free(text);
	unit_load_as(&u, leaves, true);
	assert_int_equal(u.an.n_leaves, 4);
	assert_true(plan_of(&u, "endbr64")->entry_count);
	assert_int_not_equal(plan_of(&u, "call gl")->count, CNT_NONE); /* interposable */
	assert_int_not_equal(plan_of(&u, "call plain")->count, CNT_NONE);
	unit_free(&u);
}

/* Calls to C library functions that call nothing of the program (memcpy, strlen, the
 * ctype tables): no count, the count published and reloaded but kept in r15 (no token),
 * and a function whose only calls go to them is a leaf. A definition of one of them
 * here counts on its entry check's fast path too (such calls from other files come to
 * its slow entry, which counts). */
static const char pure_calls[] =
	"\t.text\n"
	"\t.type\tcopy, @function\n"
	"copy:\n"
	"\tcall\tmemcpy@PLT\n"
	"\tcall\t__ctype_b_loc@PLT\n"
	"\tret\n"
	"\t.size\tcopy, .-copy\n"
	"\t.type\toff, @function\n"         /* not the function's own address: counts */
	"off:\n"
	"\tcall\tmemcpy+8\n"
	"\tret\n"
	"\t.size\toff, .-off\n"
	"\t.type\tother, @function\n"
	"other:\n"
	"\tcall\tqsort@PLT\n"
	"\tret\n"
	"\t.size\tother, .-other\n"
	"\t.globl\tstrspn\n"
	"\t.type\tstrspn, @function\n"       /* the program's own */
	"strspn:\n"
	"\t.cfi_startproc\n"
	"\tmovl\t$1, %eax\n"
	"\tcall\tother\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size\tstrspn, .-strspn\n";

static void pure_library_calls_do_not_count(void **state)
{
	struct unit u;
	unit_load(&u, pure_calls);
	assert_int_equal(u.rc, 0);
	const struct stmt_plan *m = plan_of(&u, "call memcpy@PLT");
	assert_int_equal(m->count, CNT_NONE);
	assert_true(!m->token && m->home_store && m->home_reload);
	assert_int_equal(plan_of(&u, "call __ctype_b_loc@PLT")->count, CNT_NONE);
	assert_true(sym_find(&u.an, "copy")->leaf);
	assert_int_equal(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "copy:"), "ret")].count, CNT_NONE);
	assert_int_not_equal(plan_of(&u, "call memcpy+8")->count, CNT_NONE);
	assert_false(sym_find(&u.an, "off")->leaf);
	assert_int_equal(plan_of(&u, "call qsort@PLT")->count, CNT_NONE); /* at qsort.sic_xcall's shim */
	assert_true(plan_of(&u, "call qsort@PLT")->xcall);
	assert_false(sym_find(&u.an, "other")->leaf);
	assert_int_equal(u.an.n_calls_pure, 2);
	/* strspn of the program's own: no leaf, yet its entry check counts */
	assert_false(sym_find(&u.an, "strspn")->leaf);
	int e = stmt_at(&u.f, "strspn:");
	bool counted = false;
	for (int i = e; i < stmt_from(&u.f, e, "movl $1, %eax") + 1; i++)
		counted |= u.an.plan[i].entry_check && u.an.plan[i].entry_count;
	assert_true(counted);
	unit_free(&u);
}

static void symbols_learned(void **state)
{
	struct unit u;
	unit_load(&u, calls);
	assert_int_equal(u.rc, 0);
	struct sym *helper = sym_find(&u.an, "helper"), *tailer = sym_find(&u.an, "tailer"),
		   *taken = sym_find(&u.an, "taken"), *g = sym_find(&u.an, "g");
	assert_true(helper->is_func && !helper->global && !helper->addr_taken && !helper->has_tail);
	assert_true(tailer->is_func && tailer->has_tail);
	assert_true(taken->is_func && taken->addr_taken);
	assert_true(g->is_func && g->global);
	assert_int_equal(helper->def, stmt_at(&u.f, "helper:"));
	struct sym *ext = sym_find(&u.an, "ext");
	assert_non_null(ext);
	assert_int_equal(ext->def, -1);
	assert_null(sym_find(&u.an, "nowhere"));
	/* each statement knows its function */
	assert_int_equal(u.an.fn[stmt_at(&u.f, "call helper")], g - u.an.syms);
	assert_int_equal(u.an.fn[stmt_at(&u.f, "jmp ext@PLT")], tailer - u.an.syms);
	assert_int_equal(u.an.fn[0], -1);
	unit_free(&u);
}

/* ---- tail and indirect jumps --------------------------------------------------------------- */

static void tail_jump_counts_and_publishes(void **state)
{
	struct unit u;
	unit_load(&u, calls);
	assert_int_equal(u.rc, 0);
	/* to the callee's direct entry (or its shim), the count in r15 */
	const struct stmt_plan *p = plan_of(&u, "jmp ext@PLT");
	assert_int_not_equal(p->count, CNT_NONE);
	assert_true(p->direct);
	assert_false(p->home_store);
	assert_false(p->token);
	assert_false(p->home_reload);
	unit_free(&u);
	/* in a shared object's code, through the token */
	unit_load_as(&u, calls, true);
	p = plan_of(&u, "jmp ext@PLT");
	assert_int_not_equal(p->count, CNT_NONE);
	assert_false(p->direct);
	assert_true(p->home_store);
	assert_true(p->token);
	assert_false(p->home_reload);
	unit_free(&u);
}

static void tail_jump_to_local_function(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\th, @function\n"
		      "h:\n"
		      "\tret\n"
		      "\t.size\th, .-h\n"
		      "\t.type\tk, @function\n"
		      "k:\n"
		      "\tjmp\th\n"
		      "\t.size\tk, .-k\n");
	assert_int_equal(u.rc, 0);
	const struct stmt_plan *p = plan_of(&u, "jmp h");
	assert_int_not_equal(p->count, CNT_NONE);
	assert_true(p->direct); /* to h's direct entry, a local label */
	assert_false(p->home_store);
	assert_true(sym_find(&u.an, "h")->direct);
	assert_true(sym_find(&u.an, "h")->tail_target);
	assert_true(sym_find(&u.an, "k")->has_tail);
	/* h is reached by a tail jump: its return publishes the count */
	assert_true(plan_of(&u, "ret")->ret_store);
	unit_free(&u);
}

static void indirect_jumps_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".L1:\n"                      /* address taken, behind the jumps */
		      "\tmovl\t$1, %eax\n"
		      ".L3:\n"                      /* behind, but nobody takes its address */
		      "\tmovl\t$3, %eax\n"
		      "\tjmp\t*%rax\n"
		      "\tnotrack jmp\t*.L4(,%rdi,8)\n"
		      ".L2:\n"                      /* address taken, ahead of the jumps */
		      "\tmovl\t$2, %eax\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.rodata\n"
		      ".L4:\n"
		      "\t.quad\t.L1\n"
		      "\t.quad\t.L2\n");
	assert_int_equal(u.rc, 0);
	const char *jumps[] = {"jmp *%rax", "notrack jmp *.L4(,%rdi,8)"};
	for (int k = 0; k < 2; k++) {
		const struct stmt_plan *p = plan_of(&u, jumps[k]);
		/* the switch counts at the targets behind it; the other may also leave
		 * for a function of ours, which counts on entry only for foreign
		 * callers: it counts itself */
		assert_int_equal(p->count, k == 0 ? CNT_FAST : CNT_NONE);
		/* the plain one may be a tail call; notrack is a switch */
		assert_int_equal(p->home_store, k == 0);
		assert_false(p->token);     /* may be a switch: r15 must keep the count */
	}
	assert_true(sym_find(&u.an, ".L1")->count_target);
	/* every cycle through .L1 passes the counted jmp *%rax */
	assert_int_equal(plan_of(&u, "movl $1, %eax")->count, CNT_NONE);
	assert_false(sym_find(&u.an, ".L2")->count_target);
	assert_false(sym_find(&u.an, ".L3")->count_target);
	assert_false(sym_find(&u.an, ".L4")->count_target); /* the table is data */
	assert_true(sym_find(&u.an, "f")->has_tail);
	unit_free(&u);
}

static void switch_dispatch_stays_in_function(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tleaq\t.L4(%rip), %rcx\n"     /* hoisted out of the loop */
		      ".L2:\n"
		      "\tmovzbl\t(%rdi), %eax\n"
		      "\tmovslq\t(%rcx,%rax,4), %rax\n"
		      "\taddq\t%rcx, %rax\n"
		      "\tjmp\t*%rax\n"                 /* PIC jump table */
		      ".L5:\n"
		      "\tjmp\t*.L6(,%rax,8)\n"         /* non-PIC jump table */
		      ".L7:\n"
		      "\tnotrack jmp\t*%rdx\n"        /* -fcf-protection: never a tail call */
		      ".L8:\n"
		      "\tjmp\t.L2\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.rodata\n"
		      ".L4:\n"
		      "\t.long\t.L5-.L4\n"
		      "\t.long\t.L7-.L4\n"
		      ".L6:\n"
		      "\t.quad\t.L8\n");
	assert_int_equal(u.rc, 0);
	assert_false(plan_of(&u, "jmp *%rax")->home_store);
	assert_false(plan_of(&u, "jmp *.L6(,%rax,8)")->home_store);
	assert_false(plan_of(&u, "notrack jmp *%rdx")->home_store);
	assert_false(sym_find(&u.an, "f")->has_tail);
	unit_free(&u);
}

/* An interpreter's computed goto (Lua's luaV_execute): the table of &&labels hoisted
 * into a callee-saved register at the top, restored by an epilogue's popq on the
 * way out, each dispatch `movq (%r12,%rax,8), %rax; ...; jmp *%rax`: it stays. A
 * write to rax between the load and the jump, or a call, and it is not known. */
static void computed_goto_through_hoisted_table(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tpushq\t%r12\n"
		      "\tleaq\tdisptab(%rip), %r12\n"
		      "\tjmp\t.L2\n"
		      ".L9:\n"
		      "\tpopq\t%r12\n"                 /* the epilogue */
		      "\tret\n"
		      ".L2:\n"
		      "\tmovzbl\t(%rdi), %eax\n"
		      "\tmovq\t(%r12,%rax,8), %rax\n"
		      "\taddq\t$1, %rdi\n"
		      "\tjmp\t*%rax\n"
		      ".L3:\n"
		      "\tmovq\t(%r12,%rax,8), %rax\n"
		      "\tmovl\t$1, %eax\n"             /* part of rax written after */
		      "\tjmp\t*%rax\n"
		      ".L5:\n"
		      "\tmovq\t(%r12,%rax,8), %rdx\n"
		      "\tcall\tg\n"
		      "\tjmp\t*%rdx\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.data.rel.ro.local\n"
		      "disptab:\n"
		      "\t.quad\t.L2\n"
		      "\t.quad\t.L3\n"
		      "\t.quad\t.L5\n"
		      "\t.quad\t.L9\n");
	assert_int_equal(u.rc, 0);
	int a = stmt_at(&u.f, "addq $1, %rdi");
	int j = stmt_from(&u.f, a, "jmp *%rax");
	assert_false(u.an.plan[j].home_store);
	assert_int_equal(u.an.plan[j].count, CNT_NONE);
	int b = stmt_at(&u.f, "movl $1, %eax");
	j = stmt_from(&u.f, b, "jmp *%rax");
	assert_true(u.an.plan[j].home_store);            /* may be a tail call */
	assert_true(plan_of(&u, "jmp *%rdx")->home_store);
	unit_free(&u);
}

/* -g: gcc's DWARF labels (.LVL: a variable's location changes) between the table load
 * and the jump name nothing code jumps to, and do not end the straight line: the
 * dispatch stays in its function, as without -g (Lua's interpreter at -O2 -g). A label
 * a jump names does end it. */
static void computed_goto_past_debug_labels(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tpushq\t%r12\n"
		      "\tleaq\tdisptab(%rip), %r12\n"
		      "\tjmp\t.L2\n"
		      ".L9:\n"
		      "\tpopq\t%r12\n"
		      "\tret\n"
		      ".L2:\n"
		      "\tmovzbl\t(%rdi), %eax\n"
		      "\tmovq\t(%r12,%rax,8), %rax\n"
		      ".LVL4:\n"
		      "\t.loc 1 12 3 view .LVU9\n"
		      "\taddq\t$1, %rdi\n"
		      ".LVL5:\n"
		      "\tjmp\t*%rax\n"
		      ".L3:\n"
		      "\tmovq\t(%r12,%rax,8), %rax\n"
		      ".L6:\n"
		      "\taddq\t$2, %rdi\n"
		      "\tjmp\t*%rax\n"
		      ".L5:\n"
		      "\tjmp\t.L6\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.data.rel.ro.local\n"
		      "disptab:\n"
		      "\t.quad\t.L2\n"
		      "\t.quad\t.L3\n"
		      "\t.quad\t.L5\n"
		      "\t.quad\t.L9\n"
		      "\t.section\t.debug_loclists,\"\",@progbits\n"
		      "\t.quad\t.LVL4\n"
		      "\t.quad\t.LVL5\n");
	assert_int_equal(u.rc, 0);
	int a = stmt_at(&u.f, "addq $1, %rdi");
	int j = stmt_from(&u.f, a, "jmp *%rax");
	assert_false(u.an.plan[j].home_store);
	assert_int_equal(u.an.plan[j].count, CNT_NONE);
	a = stmt_at(&u.f, "addq $2, %rdi");
	j = stmt_from(&u.f, a, "jmp *%rax");
	assert_true(u.an.plan[j].home_store); /* after .L6, which a jump names */
	unit_free(&u);
}

static void pointer_jumps_may_be_tail_calls(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tleaq\tg(%rip), %rcx\n"      /* a function, not a table */
		      "\tmovslq\t(%rcx,%rax,4), %rax\n"
		      "\taddq\t%rcx, %rax\n"
		      "\tjmp\t*%rax\n"
		      "\t.size\tf, .-f\n"
		      "\t.type\th, @function\n"
		      "h:\n"
		      "\tmovq\t8(%rdi), %rax\n"
		      "\tjmp\t*%rax\n"
		      "\t.size\th, .-h\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      "\tret\n");
	assert_int_equal(u.rc, 0);
	int f_jmp = stmt_at(&u.f, "jmp *%rax");
	int h_jmp = stmt_from(&u.f, f_jmp + 1, "jmp *%rax");
	assert_true(u.an.plan[f_jmp].home_store);
	assert_true(u.an.plan[h_jmp].home_store);
	/* neither function takes a label's address: the jumps surely leave, with the
	 * token, as direct tail jumps do (issue 11: a callee took the slow path) */
	assert_true(u.an.plan[f_jmp].token);
	assert_true(u.an.plan[h_jmp].token);
	assert_true(sym_find(&u.an, "f")->has_tail);
	assert_true(sym_find(&u.an, "h")->has_tail);
	unit_free(&u);
}

/* Jumps through memory that are not switch tables (issue 11): a pointer variable in
 * .data (`jmp *fp(%rip)`, once taken for a table), an indexed table of function
 * pointers (non-PIC and PIE forms). And the PIE form of a real jump table is a switch. */
static void memory_jumps_through_pointers_are_tail_calls(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      "\tret\n"
		      "\t.size\tg, .-g\n"
		      "\t.type\ta, @function\n"
		      "a:\n"
		      "\tjmp\t*fp(%rip)\n"
		      "\t.size\ta, .-a\n"
		      "\t.type\tb, @function\n"
		      "b:\n"
		      "\tjmp\t*tab(,%rdi,8)\n"
		      "\t.size\tb, .-b\n"
		      "\t.type\tc, @function\n"
		      "c:\n"
		      "\tleaq\ttab(%rip), %rdx\n"
		      "\tjmp\t*(%rdx,%rdi,8)\n"
		      "\t.size\tc, .-c\n"
		      "\t.type\td, @function\n"
		      "d:\n"
		      "\tleaq\t.L4(%rip), %rdx\n"
		      "\tjmp\t*(%rdx,%rdi,8)\n"
		      ".L5:\n"
		      "\tret\n"
		      ".L6:\n"
		      "\tret\n"
		      "\t.size\td, .-d\n"
		      "\t.type\te, @function\n"
		      "e:\n"
		      "\tleaq\t.L4(%rip), %rdx\n"
		      "\tmovl\t$0, %edx\n"            /* the base is no longer the table */
		      "\tjmp\t*(%rdx,%rsi,8)\n"
		      "\t.size\te, .-e\n"
		      "\t.data\n"
		      "fp:\n"
		      "\t.quad\tg\n"
		      "\t.section\t.rodata\n"
		      "tab:\n"
		      "\t.quad\tg\n"
		      "\t.quad\tg\n"
		      ".L4:\n"
		      "\t.quad\t.L5\n"
		      "\t.quad\t.L6\n");
	assert_int_equal(u.rc, 0);
	const char *tails[] = {"jmp *fp(%rip)", "jmp *tab(,%rdi,8)", "jmp *(%rdx,%rdi,8)"};
	for (int k = 0; k < 3; k++) {
		const struct stmt_plan *p = plan_of(&u, tails[k]);
		assert_true(p->home_store);
		assert_true(p->token);
	}
	assert_true(sym_find(&u.an, "a")->has_tail);
	assert_true(sym_find(&u.an, "b")->has_tail);
	assert_true(sym_find(&u.an, "c")->has_tail);
	int d_jmp = stmt_from(&u.f, stmt_at(&u.f, "d:"), "jmp *(%rdx,%rdi,8)");
	assert_false(u.an.plan[d_jmp].home_store);
	assert_false(sym_find(&u.an, "d")->has_tail);
	/* e's base register was overwritten after the table's address: not a switch */
	assert_true(plan_of(&u, "jmp *(%rdx,%rsi,8)")->home_store);
	unit_free(&u);
}

/* A function with a computed goto and a jump through a pointer: sicpp cannot tell
 * the pointer jump from the goto's, so it publishes the count and keeps it in r15
 * (no token); the runtime's slow entry knows a body's tail call (sic_rt.S). */
static void jump_that_may_stay_keeps_the_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tleaq\t.L2(%rip), %rax\n"
		      "\tmovq\t%rax, next(%rip)\n"
		      "\tjmp\t*next(%rip)\n"
		      ".L2:\n"
		      "\tjmp\t*fp(%rip)\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	const char *jumps[] = {"jmp *next(%rip)", "jmp *fp(%rip)"};
	for (int k = 0; k < 2; k++) {
		const struct stmt_plan *p = plan_of(&u, jumps[k]);
		assert_true(p->home_store);
		assert_false(p->token);
	}
	assert_true(sym_find(&u.an, "f")->has_tail);
	unit_free(&u);
}

/* Landing pads (C++ exceptions): the third field of each call-site record. The
 * unwinder lands there with the token in r15: the label gets the reload. The
 * table's labels take no address a jump could use. */
static void landing_pads_reload_the_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".LFB1:\n"
		      ".LEHB0:\n"
		      "\tcall\tg@PLT\n"
		      ".LEHE0:\n"
		      "\tret\n"
		      ".L5:\n"
		      "\tmovq\t%rax, %rdi\n"
		      "\tcall\t_Unwind_Resume@PLT\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.gcc_except_table,\"a\",@progbits\n"
		      ".LLSDA1:\n"
		      "\t.byte\t0xff\n"
		      "\t.byte\t0xff\n"
		      "\t.byte\t0x1\n"
		      "\t.uleb128 .LLSDACSE1-.LLSDACSB1\n"
		      ".LLSDACSB1:\n"
		      "\t.uleb128 .LEHB0-.LFB1\n"
		      "\t.uleb128 .LEHE0-.LEHB0\n"
		      "\t.uleb128 .L5-.LFB1\n"
		      "\t.uleb128 0\n"
		      "\t.uleb128 .LEHE0-.LFB1\n"
		      "\t.uleb128 .L6-.LEHE0\n"
		      "\t.uleb128 0\n"            /* no landing pad */
		      "\t.uleb128 0\n"
		      ".LLSDACSE1:\n");
	assert_int_equal(u.rc, 0);
	assert_true(sym_find(&u.an, ".L5")->landing_pad);
	assert_true(plan_of(&u, ".L5:")->landing_reload);
	assert_false(sym_find(&u.an, ".LEHB0")->landing_pad);
	assert_false(sym_find(&u.an, ".LEHE0")->landing_pad);
	assert_false(sym_find(&u.an, ".LFB1")->landing_pad);
	assert_false(sym_find(&u.an, ".L5")->addr_taken);
	assert_false(sym_find(&u.an, ".LEHB0")->addr_taken);
	assert_false(plan_of(&u, "ret")->landing_reload);
	unit_free(&u);
}

/* A loop head right before a TLS access (gcc -fPIC, C++ thread_local): the count
 * goes before the sequence, never between its lea and its call (the linker rewrites
 * it by its bytes). A lone `rex64` is a prefix, not an unknown flag reader. */
static void count_never_inside_tls_sequence(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".L2:\n"
		      "\tdata16\tleaq\tx@tlsgd(%rip), %rdi\n"
		      "\t.value\t0x6666\n"
		      "\trex64\n"
		      "\tcall\t__tls_get_addr@PLT\n"
		      "\tjmp\t.L2\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(plan_of(&u, "data16 leaq x@tlsgd(%rip), %rdi")->count, CNT_FAST);
	assert_int_equal(plan_of(&u, "rex64")->count, CNT_NONE);
	const struct stmt_plan *call = plan_of(&u, "call __tls_get_addr@PLT");
	assert_int_equal(call->count, CNT_NONE);
	assert_false(call->home_store);
	assert_false(call->token);
	unit_free(&u);
}

/* ---- entry checks -------------------------------------------------------------------------- */

static void global_function_entry_check_after_endbr64(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".LFB0:\n"
		      "\t.cfi_startproc\n"
		      "\tendbr64\n"
		      ".L2:\n"
		      "\taddl\t$1, %eax\n"
		      "\tcmpl\t%edi, %eax\n"
		      "\tjne\t.L2\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	int endbr = stmt_at(&u.f, "endbr64");
	for (int i = 0; i < u.f.n; i++)
		assert_int_equal(u.an.plan[i].entry_check, i == endbr);
	assert_true(u.an.plan[endbr].nopreempt);
	assert_int_equal(u.an.n_entry, 1);
	assert_true(plan_of(&u, "ret")->ret_store);
	unit_free(&u);
}

/* A loop to the function's first instruction must not run the check again: it goes
 * before the loop label (here after .cfi_startproc, as there is no endbr64). */
static void entry_check_before_loop_at_function_start(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\t.cfi_startproc\n"
		      ".L2:\n"
		      "\taddl\t$1, %eax\n"
		      "\tcmpl\t%edi, %eax\n"
		      "\tjne\t.L2\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	int cfi = stmt_at(&u.f, ".cfi_startproc");
	for (int i = 0; i < u.f.n; i++)
		assert_int_equal(u.an.plan[i].entry_check, i == cfi);
	assert_true(cfi < stmt_at(&u.f, ".L2:"));
	assert_int_equal(plan_of(&u, "addl $1, %eax")->count, CNT_FAST);
	unit_free(&u);
}

static void entry_check_without_cfi_goes_after_label(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_true(u.an.plan[stmt_at(&u.f, "f:")].entry_check);
	assert_int_equal(u.an.n_entry, 1);
	unit_free(&u);
}

/* gcc -g labels the function's start for DWARF (.LVL0, .LFB0, named in .debug_info):
 * those are no jump targets, so the check still goes inside the function's DWARF
 * range, after .cfi_startproc (gdb steps into the function and unwinds there). */
static void entry_check_passes_debug_labels(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\tf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      ".LVL0:\n"
		      ".LFB0:\n"
		      "\t.loc 1 3 1 view -0\n"
		      "\t.cfi_startproc\n"
		      "\taddl\t$1, %edi\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      "\t.size\tf, .-f\n"
		      "\t.section\t.debug_info,\"\",@progbits\n"
		      "\t.quad\t.LFB0\n"
		      "\t.quad\t.LVL0\n");
	assert_int_equal(u.rc, 0);
	int cfi = stmt_at(&u.f, ".cfi_startproc");
	for (int i = 0; i < u.f.n; i++)
		assert_int_equal(u.an.plan[i].entry_check, i == cfi);
	unit_free(&u);
}

static void address_taken_static_gets_entry_check(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tcmp, @function\n"
		      "cmp:\n"
		      "\t.cfi_startproc\n"
		      "\tendbr64\n"
		      "\tmovl\t(%rdi), %eax\n"
		      "\tsubl\t(%rsi), %eax\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      "\t.size\tcmp, .-cmp\n"
		      "\t.type\tcb, @function\n"
		      "cb:\n"
		      "\tret\n"
		      "\t.size\tcb, .-cb\n"
		      "\t.type\tquiet, @function\n"
		      "quiet:\n"
		      "\tret\n"
		      "\t.size\tquiet, .-quiet\n"
		      "\t.globl\tsort\n"
		      "\t.type\tsort, @function\n"
		      "sort:\n"
		      "\tleaq\tcmp(%rip), %rcx\n"
		      "\tcall\tqsort@PLT\n"
		      "\tcall\tquiet\n"
		      "\tret\n"
		      "\t.size\tsort, .-sort\n"
		      "\t.section\t.data.rel.local,\"aw\"\n"
		      "table:\n"
		      "\t.quad\tcb\n");
	assert_int_equal(u.rc, 0);
	assert_true(u.an.plan[stmt_at(&u.f, "endbr64")].entry_check);
	assert_true(u.an.plan[stmt_at(&u.f, "cb:")].entry_check);
	assert_false(u.an.plan[stmt_at(&u.f, "quiet:")].entry_check);
	assert_true(u.an.plan[stmt_at(&u.f, "sort:")].entry_check);
	assert_int_equal(u.an.n_entry, 3);
	assert_true(sym_find(&u.an, "cmp")->addr_taken);
	assert_true(sym_find(&u.an, "cb")->addr_taken);
	assert_false(sym_find(&u.an, "quiet")->addr_taken);
	/* returns: the address-taken ones publish, the quiet one does not */
	assert_true(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "cmp:"), "ret")].ret_store);
	assert_true(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "cb:"), "ret")].ret_store);
	assert_false(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "quiet:"), "ret")].ret_store);
	/* the call to the quiet function is local */
	assert_false(plan_of(&u, "call quiet")->home_store);
	unit_free(&u);
}

/* KNOWN BUG (analyze.c, plan_entry_check): a foreign-callable function whose body
 * starts with inline asm gets no entry check ("leave it alone"), yet its return still
 * publishes r15 and loads the token (ret_store). Called from qsort, it stores qsort's
 * r15 in __sic_home as the count and hands qsort back the token instead of its
 * callee-saved r15; called from instrumented code, it counts from the token and
 * publishes that. gcc 12 -O2 (no -fcf-protection) output for
 *	int cb(const void *a, const void *b)
 *	{ __asm__ volatile("lfence" ::: "memory"); return *(int *)a - *(int *)b; }
 */
static void entry_check_when_body_starts_with_inline_asm(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.p2align 4\n"
		      "\t.globl\tcb\n"
		      "\t.type\tcb, @function\n"
		      "cb:\n"
		      ".LFB0:\n"
		      "\t.cfi_startproc\n"
		      "#APP\n"
		      "# 1 \"cb.c\" 1\n"
		      "\tlfence\n"
		      "# 0 \"\" 2\n"
		      "#NO_APP\n"
		      "\tmovl\t(%rdi), %eax\n"
		      "\tsubl\t(%rsi), %eax\n"
		      "\tret\n"
		      "\t.cfi_endproc\n"
		      ".LFE0:\n"
		      "\t.size\tcb, .-cb\n");
	assert_int_equal(u.rc, 0);
	assert_true(plan_of(&u, "ret")->ret_store);
	/* a return that publishes needs an entry that took the count */
	assert_int_equal(u.an.n_entry, 1);
	int body = stmt_at(&u.f, "movl (%rdi), %eax");
	bool checked = false;
	for (int i = stmt_at(&u.f, "cb:"); i < body; i++)
		checked |= u.an.plan[i].entry_check;
	assert_true(checked);
	unit_free(&u);
}

static void static_function_no_entry_check(void **state)
{
	struct unit u;
	unit_load(&u, loop_flags_dead);
	assert_int_equal(u.rc, 0);
	for (int i = 0; i < u.f.n; i++)
		assert_false(u.an.plan[i].entry_check);
	assert_int_equal(u.an.n_entry, 0);
	assert_false(plan_of(&u, "ret")->ret_store);
	unit_free(&u);
}

/* A global symbol in a data section is not a function to check. */
static void global_data_no_entry_check(void **state)
{
	struct unit u;
	unit_load(&u, "\t.globl\tcounter\n"
		      "\t.data\n"
		      "\t.type\tcounter, @object\n"
		      "counter:\n"
		      "\t.long\t3\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(u.an.n_entry, 0);
	assert_false(is_code(&u.an, stmt_at(&u.f, ".long 3")));
	unit_free(&u);
}

/* ---- returns, string instructions ---------------------------------------------------------- */

static void rets_of_global_functions_publish(void **state)
{
	struct unit u;
	unit_load(&u, calls);
	assert_int_equal(u.rc, 0);
	int g = stmt_at(&u.f, "g:");
	assert_true(u.an.plan[stmt_from(&u.f, g, "ret")].ret_store);
	assert_true(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "taken:"), "ret")].ret_store);
	/* g's leaves the count in r15 too; taken's, a leaf's, passes the token back */
	assert_false(u.an.plan[stmt_from(&u.f, g, "ret")].ret_token);
	assert_true(u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "taken:"), "ret")].ret_token);
	unit_free(&u);
}

/* Which returns leave the count in r15 and which pass the token back (a leaf's: a
 * foreign loop may call one back with r15 untouched), and which direct calls then need
 * no reload: g to h (this file's, no leaf, no tail jump) and g to cb (its address is
 * taken, but it is no leaf: its callers are mostly ours, through a pointer), not g to
 * t (it tail-jumps to ext, whose return comes back in t's place). */
static void returns_that_keep_the_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.globl\th\n"
		      "\t.type\th, @function\n"
		      "h:\n"
		      "\tcall\text@PLT\n"
		      "\tret\n"
		      "\t.size\th, .-h\n"
		      "\t.type\tcb, @function\n"
		      "cb:\n"
		      "\tcall\text@PLT\n"
		      "\tret\n"
		      "\t.size\tcb, .-cb\n"
		      "\t.globl\tt\n"
		      "\t.type\tt, @function\n"
		      "t:\n"
		      "\ttestl\t%edi, %edi\n"
		      "\tjne\t.L1\n"
		      "\tret\n"
		      ".L1:\n"
		      "\tjmp\text@PLT\n"
		      "\t.size\tt, .-t\n"
		      "\t.globl\tg\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      "\tleaq\tcb(%rip), %rdi\n"
		      "\tcall\th\n"
		      "\tcall\tcb\n"
		      "\tcall\tt\n"
		      "\tret\n"
		      "\t.size\tg, .-g\n");
	assert_int_equal(u.rc, 0);
	const struct stmt_plan *h = &u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "h:"), "ret")];
	const struct stmt_plan *cb = &u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "cb:"), "ret")];
	const struct stmt_plan *t = &u.an.plan[stmt_from(&u.f, stmt_at(&u.f, "t:"), "ret")];
	assert_true(h->ret_store && !h->ret_token);
	assert_true(cb->ret_store && !cb->ret_token);
	assert_true(t->ret_store && !t->ret_token);
	expect_direct(&u, "call h", true);
	expect_reload(&u, "call h", false);
	expect_direct(&u, "call cb", true);
	expect_reload(&u, "call cb", false);
	expect_direct(&u, "call t", true);
	expect_reload(&u, "call t", true);
	unit_free(&u);
}

/* A direct call to a function that ends in tail jumps needs no reload when every one
 * goes to a function of this file whose returns keep the count, and whose own tail
 * jumps do (mark_tails_keep): a to b, b to c (a cycle of tail jumps is fine); not d,
 * whose tail jump goes through a pointer, nor e, which jumps to d, nor f, which jumps
 * to a leaf whose address g takes (its return passes the token back), nor w, which
 * jumps to a weak one. */
static void tail_jumps_that_keep_the_count(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tc, @function\n"
		      "c:\n"
		      "\tcall\text@PLT\n"
		      "\ttestl\t%eax, %eax\n"
		      "\tjne\tb\n"
		      "\tret\n"
		      "\t.size\tc, .-c\n"
		      "\t.type\tb, @function\n"
		      "b:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\tc\n"
		      "\t.size\tb, .-b\n"
		      "\t.type\ta, @function\n"
		      "a:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\tb\n"
		      "\t.size\ta, .-a\n"
		      "\t.type\td, @function\n"
		      "d:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\t*%rax\n"
		      "\t.size\td, .-d\n"
		      "\t.type\te, @function\n"
		      "e:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\td\n"
		      "\t.size\te, .-e\n"
		      "\t.type\tleaf, @function\n"
		      "leaf:\n"
		      "\tmovl\t$1, %eax\n"
		      "\tret\n"
		      "\t.size\tleaf, .-leaf\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\tleaf\n"
		      "\t.size\tf, .-f\n"
		      "\t.weak\tvw\n"
		      "\t.type\tvw, @function\n"
		      "vw:\n"
		      "\tcall\text@PLT\n"
		      "\tret\n"
		      "\t.size\tvw, .-vw\n"
		      "\t.type\tw, @function\n"
		      "w:\n"
		      "\tcall\text@PLT\n"
		      "\tjmp\tvw\n"
		      "\t.size\tw, .-w\n"
		      "\t.globl\tg\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      "\tleaq\tleaf(%rip), %rax\n"
		      "\tcall\ta\n"
		      "\tcall\td\n"
		      "\tcall\te\n"
		      "\tcall\tf\n"
		      "\tcall\tw\n"
		      "\tret\n"
		      "\t.size\tg, .-g\n");
	assert_int_equal(u.rc, 0);
	assert_true(sym_find(&u.an, "a")->tails_keep);
	assert_true(sym_find(&u.an, "b")->tails_keep);
	assert_true(sym_find(&u.an, "c")->tails_keep);
	assert_false(sym_find(&u.an, "d")->tails_keep);
	assert_false(sym_find(&u.an, "e")->tails_keep);
	assert_false(sym_find(&u.an, "f")->tails_keep);
	assert_false(sym_find(&u.an, "w")->tails_keep);
	expect_direct(&u, "call a", true);
	expect_reload(&u, "call a", false);
	expect_reload(&u, "call d", true);
	expect_reload(&u, "call e", true);
	expect_reload(&u, "call f", true);
	expect_reload(&u, "call w", true);
	unit_free(&u);
}

static void rep_string_op_is_nopreempt(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\trep stosq\n"
		      "\trep; movsb\n"
		      "\tstosq\n"
		      "\tmovl\t$0, %eax\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	assert_true(plan_of(&u, "rep stosq")->nopreempt);
	assert_true(plan_of(&u, "rep movsb")->nopreempt);
	assert_false(plan_of(&u, "stosq")->nopreempt);
	assert_false(plan_of(&u, "movl $0, %eax")->nopreempt);
	assert_int_equal(counts_between(&u, 0, u.f.n), 0); /* a leaf's return: none */
	unit_free(&u);
}

/* Code in inline asm is not ours: nothing is planned for it, and is_code says so. */
static void inline_asm_is_not_code(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "#APP\n"
		      "\tcall\tsomewhere\n"
		      "\tjmp\t*%rax\n"
		      "#NO_APP\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n");
	assert_int_equal(u.rc, 0);
	for (int i = 0; i < u.f.n; i++) {
		if (u.f.st[i].foreign) {
			assert_false(is_code(&u.an, i));
			assert_int_equal(u.an.plan[i].count, CNT_NONE);
			assert_false(u.an.plan[i].home_store);
		}
	}
	assert_true(is_code(&u.an, stmt_at(&u.f, "ret")));
	/* a symbol named in inline asm counts as address-taken */
	assert_true(sym_find(&u.an, "somewhere")->addr_taken);
	unit_free(&u);
}

static void branch_target_names(void **state)
{
	struct asm_file f;
	char buf[64];
	memset(&f, 0, sizeof f);
	asm_parse_line(&f, "\tjmp\tfoo@PLT", 1, false);
	asm_parse_line(&f, "\tjne\t.L2", 2, false);
	asm_parse_line(&f, "\tjmp\t*%rax", 3, false);
	asm_parse_line(&f, "\tcall\tbar+8", 4, false);
	asm_parse_line(&f, "\tret", 5, false);
	assert_string_equal(branch_target(&f.st[0], buf, sizeof buf), "foo");
	assert_string_equal(branch_target(&f.st[1], buf, sizeof buf), ".L2");
	assert_null(branch_target(&f.st[2], buf, sizeof buf));
	assert_string_equal(branch_target(&f.st[3], buf, sizeof buf), "bar");
	assert_null(branch_target(&f.st[4], buf, sizeof buf));
	asm_free(&f);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void assert_refused(const char *text, const char *why, const char *where)
{
	struct unit u;
	unit_load(&u, text);
	if (u.rc != -1)
		fail_msg("accepted, expected a refusal containing '%s'", why);
	if (!strstr(u.errors, why) || !strstr(u.errors, where))
		fail_msg("error '%s' lacks '%s' or '%s'", u.errors, why, where);
	unit_free(&u);
}

static void refuses_r15_in_instruction(void **state)
{
	assert_refused("\t.text\n\tmovq\t%r15, %rax\n", "%r15", "<test>:2:");
	assert_refused("\t.text\n\tmovl\t8(%r15), %eax\n", "-ffixed-r15", "<test>:2:");
	assert_refused("\t.text\n\tmovb\t$1, %r15b\n", "%r15", "<test>:2:");
}

static void refuses_r15_in_inline_asm(void **state)
{
	assert_refused("\t.text\n"
		       "#APP\n"
		       "# 3 \"t.c\" 1\n"
		       "\tmovq %rax, %r15\n"
		       "# 0 \"\" 2\n"
		       "#NO_APP\n",
		       "inline assembly uses %r15", "<test>:4:");
}

/* KNOWN BUG (classify.c mentions_r15, reached from analyze.c check_input): inline asm
 * is checked on its raw line, where "%r15;" is not recognised; this one is accepted. */
static void refuses_r15_in_inline_asm_before_semicolon(void **state)
{
	assert_refused("\t.text\n"
		       "#APP\n"
		       "\tmovq $1, %r15; nop\n"
		       "#NO_APP\n",
		       "inline assembly uses %r15", "<test>:3:");
}

static void refuses_saved_r15(void **state)
{
	assert_refused("\t.text\n\t.cfi_startproc\n\tpushq\t%rbx\n\t.cfi_offset 15, -16\n",
		       "-ffixed-r15", "<test>:4:");
	assert_refused("\t.text\n\t.cfi_startproc\n\t.cfi_offset %r15, -24\n", "-ffixed-r15",
		       "<test>:3:");
	assert_refused("\t.text\n\t.cfi_startproc\n\t.cfi_rel_offset 15, 0\n", "-ffixed-r15",
		       "<test>:3:");
}

static void refuses_intel_syntax(void **state)
{
	assert_refused("\t.text\n\tmov\teax, DWORD PTR [rbx]\n", "not AT&T", "<test>:2:");
	assert_refused("\t.text\n\tlea\trax, [rip+foo]\n", "not AT&T", "<test>:2:");
}

/* gcc -masm=intel: the whole file is in a foreign region; a function there would go
 * uninstrumented without a word. */
static void refuses_function_in_intel_region(void **state)
{
	assert_refused("\t.intel_syntax noprefix\n"
		       "\t.text\n"
		       "\t.globl\tf\n"
		       "\t.type\tf, @function\n"
		       "f:\n"
		       "\t.cfi_startproc\n"
		       "\tmov\teax, 1\n"
		       "\tret\n"
		       "\t.cfi_endproc\n",
		       "outside AT&T", "<test>:");
}

static void refuses_32_bit(void **state)
{
	assert_refused("\t.text\n\tpushl\t%ebp\n", "32-bit", "<test>:2:");
	assert_refused("\t.text\n\tmovl\t8(%esp), %eax\n", "32-bit", "<test>:2:");
	assert_refused("\t.text\n\tpopl\t%ebx\n", "32-bit", "<test>:2:");
}

static void refuses_far_transfers(void **state)
{
	assert_refused("\t.text\n\tnop\n\tljmp\t*(%rax)\n", "unsupported control transfer",
		       "<test>:3:");
	assert_refused("\t.text\n\tlretq\n", "unsupported control transfer", "<test>:2:");
	assert_refused("\t.text\n\tiretq\n", "unsupported control transfer", "<test>:2:");
}

/* Far transfers outside code (in a data section, or inside inline asm) are not ours. */
static void far_transfer_outside_code_accepted(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n#APP\n\tlretq\n#NO_APP\n\tret\n");
	assert_int_equal(u.rc, 0);
	unit_free(&u);
}

static void refuses_other_architectures(void **state)
{
	assert_refused("\t.arch armv8-a\n\t.text\n", "not x86-64", "<test>:1:");
	assert_refused("\t.text\n\tldr\tx0, [x1]\n", "not AT&T", "<test>:2:");
}

static void refusal_names_c_line(void **state)
{
	assert_refused("\t.file\t\"app.c\"\n"
		       "\t.text\n"
		       "\t.file 1 \"app.c\"\n"
		       "\t.loc 1 12 5\n"
		       "\tmovq\t%r15, %rax\n",
		       "(at app.c:12)", "<test>:5:");
}

/* A string that happens to spell %r15 is data, not a use. */
static void r15_in_a_string_is_fine(void **state)
{
	struct unit u;
	unit_load(&u, "\t.section\t.rodata\n.LC0:\n\t.string\t\"%r15 is mine\"\n");
	assert_int_equal(u.rc, 0);
	assert_string_equal(u.errors, "");
	unit_free(&u);
}

static void already_instrumented_stops_early(void **state)
{
	struct unit u;
	/* would be refused (%r15) if analysed: the note says it is ours already */
	unit_load(&u, "\t.text\n"
		      "\tdecq\t%r15\n"
		      "\t.section\t.note.libreplay,\"a\",@note\n");
	assert_int_equal(u.rc, 0);
	assert_true(u.an.already_instrumented);
	unit_free(&u);
}

/* ---- flag liveness -------------------------------------------------------------------------------- */

/* flags_live from the statement whose text is at */
static uint8_t live(struct unit *u, const char *at, uint8_t mask)
{
	return flags_live(&u->an, stmt_at(&u->f, at), mask);
}

static void flags_live_straight_line(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tmovl\t$1, %eax\n"
		      "\tsete\t%al\n"
		      "\tcmpl\t%esi, %edi\n"
		      "\tsetl\t%bl\n"
		      "\tincl\t%ecx\n"
		      "\tsetb\t%dl\n"
		      "\tret\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "movl $1, %eax", FL_ALL), FL_ZF);
	assert_int_equal(live(&u, "movl $1, %eax", FL_CF), 0); /* sete then cmp */
	assert_int_equal(live(&u, "cmpl %esi, %edi", FL_ALL), 0);
	/* setl reads SF and OF; incl keeps CF, which setb reads */
	assert_int_equal(live(&u, "setl %bl", FL_ALL), FL_SF | FL_OF | FL_CF);
	/* inc writes all but CF, which setb reads */
	assert_int_equal(live(&u, "incl %ecx", FL_ALL), FL_CF);
	assert_int_equal(live(&u, "incl %ecx", FL_INC), 0);
	assert_int_equal(live(&u, "ret", FL_ALL), 0);
	unit_free(&u);
}

static void flags_live_follows_jmp(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tjmp\t.L3\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      ".L3:\n"
		      "\tsetb\t%al\n"
		      "\tret\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jmp .L3", FL_ALL), FL_CF);
	unit_free(&u);
}

static void flags_live_jcc_both_ways(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tjrcxz\t.L4\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      ".L4:\n"
		      "\tsetb\t%al\n"
		      "\tret\n"
		      "\tnop\n"
		      "\tjrcxz\t.L5\n"
		      "\txorl\t%eax, %eax\n"
		      "\tret\n"
		      ".L5:\n"
		      "\tsets\t%al\n"
		      "\tret\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jrcxz .L4", FL_ALL), FL_ZF | FL_CF);
	assert_int_equal(live(&u, "jrcxz .L4", FL_ZF), FL_ZF);
	assert_int_equal(live(&u, "jrcxz .L4", FL_SF), 0);
	/* only the taken way reads */
	assert_int_equal(live(&u, "jrcxz .L5", FL_ALL), FL_SF);
	unit_free(&u);
}

static void flags_live_call_and_ret_kill(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tcall\tfoo\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      "\tnop\n"
		      "\tret\n"
		      "\tsete\t%al\n"
		      "\tud2\n"
		      "\tsete\t%al\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "call foo", FL_ALL), 0);
	assert_int_equal(live(&u, "nop", FL_ALL), 0);
	assert_int_equal(live(&u, "ud2", FL_ALL), 0);
	unit_free(&u);
}

static void flags_live_tail_jump_to_function_kills(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\th, @function\n"
		      "h:\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      "\t.size\th, .-h\n"
		      "\tjmp\th\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jmp h", FL_ALL), 0);
	unit_free(&u);
}

static void flags_live_conservative_cases(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\txyzzy\t%eax\n"    /* unknown: reads everything */
		      "\tnop\n"            /* then the end of the function */
		      "\t.size\tf, .-f\n"
		      "\tjmp\t.Lundefined\n" /* a label we do not know */
		      "\tjmp\tundefined\n" /* another file's: a tail call (the ABI) */
		      "\tmovl\t$1, %eax\n"
		      "\t.section\t.text.other,\"ax\",@progbits\n"
		      "\tsete\t%al\n"
		      "\t.text\n"
		      "\tnop\n"
		      "#APP\n"
		      "\tsete\t%al\n"
		      "#NO_APP\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "xyzzy %eax", FL_ALL), FL_ALL);
	assert_int_equal(live(&u, "nop", FL_ALL), FL_ALL);          /* .size: leaves f */
	assert_int_equal(live(&u, "jmp .Lundefined", FL_ZF), FL_ZF);
	assert_int_equal(live(&u, "jmp undefined", FL_ZF), 0);
	assert_int_equal(live(&u, "movl $1, %eax", FL_ZF), FL_ZF);  /* section switch */
	int nop2 = stmt_from(&u.f, stmt_at(&u.f, "sete %al"), "nop");
	/* gcc treats every x86 asm statement as clobbering the flags */
	assert_int_equal(flags_live(&u.an, nop2, FL_CF), 0);
	unit_free(&u);
}

static void flags_live_indirect_jump_targets(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tjmp\t*%rax\n"
		      ".L5:\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      ".L6:\n"
		      "\tsetb\t%al\n"
		      "\tret\n"
		      "\t.section\t.rodata\n"
		      "\t.quad\t.L5\n");
	assert_int_equal(u.rc, 0);
	/* only .L5's address is taken: the jump may reach it, not .L6 */
	assert_int_equal(live(&u, "jmp *%rax", FL_ALL), FL_ZF);
	unit_free(&u);
}

/* Two labels in a row (".L9:" ".L2:", common in gcc's switch code): the first is still
 * a target, although the next statement is not an instruction. */
static void flags_live_indirect_target_before_another_label(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tjmp\t*%rax\n"
		      ".L9:\n"
		      ".L2:\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      "\t.section\t.rodata\n"
		      "\t.quad\t.L9\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jmp *%rax", FL_ALL), FL_ZF);
	unit_free(&u);
}

/* Inside a function, an indirect jump reaches only that function's labels. */
static void flags_live_indirect_targets_of_own_function(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\t.type\tf, @function\n"
		      "f:\n"
		      "\tjmp\t*%rax\n"
		      ".L5:\n"
		      "\tsetb\t%al\n"
		      "\tret\n"
		      "\t.size\tf, .-f\n"
		      "\t.type\tg, @function\n"
		      "g:\n"
		      ".L6:\n"
		      "\tsete\t%al\n"
		      "\tret\n"
		      "\t.size\tg, .-g\n"
		      "\t.section\t.rodata\n"
		      "\t.quad\t.L5\n"
		      "\t.quad\t.L6\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jmp *%rax", FL_ALL), FL_CF);
	unit_free(&u);
}

/* KNOWN BUG (analyze.c, live_from): a statement already visited in this query counts
 * as "nothing live" whatever mask the earlier visit carried. Here the taken way of the
 * jrcxz reaches .LX through btl, which kills SF, and marks .LX visited; the other way
 * reaches .LX with SF live, finds it visited, and SF is reported dead although
 * "sets" reads it. A decq there would corrupt the result. */
static void flags_live_join_with_different_masks(void **state)
{
	static const char text[] =
		"\t.text\n"
		"\t.type\tf, @function\n"
		"f:\n"
		"\tcmpl\t%esi, %edi\n"
		".L2:\n"
		"\tjrcxz\t.LA\n"
		"\tjmp\t.LX\n"
		".LA:\n"
		"\tbtl\t$3, %eax\n"
		".LX:\n"
		"\tsets\t%al\n"
		"\tmovzbl\t%al, %eax\n"
		"\tcmpl\t%esi, %edi\n"
		"\tjne\t.L2\n"
		"\tret\n"
		"\t.size\tf, .-f\n";
	struct unit u;
	unit_load(&u, text);
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "jrcxz .LA", FL_INC) & FL_SF, FL_SF);
	/* so the loop head must not take the fast form right there */
	assert_int_not_equal(plan_of(&u, "jrcxz .LA")->count, CNT_FAST);
	unit_free(&u);
}

/* KNOWN BUG (analyze.c, live_from): the scan returns at the first reader with only what
 * that reader reads, so flags read further on are left out. The header promises "flags
 * of mask that may be read"; every caller today only tests for zero, so nothing is
 * miscompiled yet. */
static void flags_live_reports_every_flag_read(void **state)
{
	struct unit u;
	unit_load(&u, "\t.text\n"
		      "\tsete\t%al\n"
		      "\tsetl\t%bl\n"
		      "\tret\n");
	assert_int_equal(u.rc, 0);
	assert_int_equal(live(&u, "sete %al", FL_ALL), FL_ZF | FL_SF | FL_OF);
	unit_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(backward_jcc_counts_at_target),
		cmocka_unit_test(backward_jmp_counts_at_target),
		cmocka_unit_test(loop_head_reads_flags_safe),
		cmocka_unit_test(loop_head_count_moves_past_setcc),
		cmocka_unit_test(loop_head_count_moves_down_to_cmp),
		cmocka_unit_test(carry_only_live_is_fast),
		cmocka_unit_test(forward_branches_get_nothing),
		cmocka_unit_test(cross_section_targets_count),
		cmocka_unit_test(counts_only_on_cycles),
		cmocka_unit_test(loop_head_that_writes_memory_lists_its_back_jump),
		cmocka_unit_test(recursive_calls_count),
		cmocka_unit_test(leaf_functions),
		cmocka_unit_test(pure_library_calls_do_not_count),
		cmocka_unit_test(loop_starting_with_inline_asm_counts),
		cmocka_unit_test(call_to_static_function_stays_local),
		cmocka_unit_test(calls_that_may_reach_foreign_code),
		cmocka_unit_test(pic_calls_to_globals_keep_the_token),
		cmocka_unit_test(debug_info_keeps_the_token),
		cmocka_unit_test(weak_and_aliased_callees_keep_the_token),
		cmocka_unit_test(symbols_learned),
		cmocka_unit_test(tail_jump_counts_and_publishes),
		cmocka_unit_test(tail_jump_to_local_function),
		cmocka_unit_test(indirect_jumps_count),
		cmocka_unit_test(switch_dispatch_stays_in_function),
		cmocka_unit_test(computed_goto_through_hoisted_table),
		cmocka_unit_test(computed_goto_past_debug_labels),
		cmocka_unit_test(pointer_jumps_may_be_tail_calls),
		cmocka_unit_test(memory_jumps_through_pointers_are_tail_calls),
		cmocka_unit_test(jump_that_may_stay_keeps_the_count),
		cmocka_unit_test(landing_pads_reload_the_count),
		cmocka_unit_test(count_never_inside_tls_sequence),
		cmocka_unit_test(global_function_entry_check_after_endbr64),
		cmocka_unit_test(entry_check_before_loop_at_function_start),
		cmocka_unit_test(entry_check_without_cfi_goes_after_label),
		cmocka_unit_test(entry_check_passes_debug_labels),
		cmocka_unit_test(address_taken_static_gets_entry_check),
		cmocka_unit_test(entry_check_when_body_starts_with_inline_asm),
		cmocka_unit_test(static_function_no_entry_check),
		cmocka_unit_test(global_data_no_entry_check),
		cmocka_unit_test(rets_of_global_functions_publish),
		cmocka_unit_test(returns_that_keep_the_count),
		cmocka_unit_test(tail_jumps_that_keep_the_count),
		cmocka_unit_test(rep_string_op_is_nopreempt),
		cmocka_unit_test(inline_asm_is_not_code),
		cmocka_unit_test(branch_target_names),
		cmocka_unit_test(refuses_r15_in_instruction),
		cmocka_unit_test(refuses_r15_in_inline_asm),
		cmocka_unit_test(refuses_r15_in_inline_asm_before_semicolon),
		cmocka_unit_test(refuses_saved_r15),
		cmocka_unit_test(refuses_intel_syntax),
		cmocka_unit_test(refuses_function_in_intel_region),
		cmocka_unit_test(refuses_32_bit),
		cmocka_unit_test(refuses_far_transfers),
		cmocka_unit_test(far_transfer_outside_code_accepted),
		cmocka_unit_test(refuses_other_architectures),
		cmocka_unit_test(refusal_names_c_line),
		cmocka_unit_test(r15_in_a_string_is_fine),
		cmocka_unit_test(already_instrumented_stops_early),
		cmocka_unit_test(flags_live_straight_line),
		cmocka_unit_test(flags_live_follows_jmp),
		cmocka_unit_test(flags_live_jcc_both_ways),
		cmocka_unit_test(flags_live_call_and_ret_kill),
		cmocka_unit_test(flags_live_tail_jump_to_function_kills),
		cmocka_unit_test(flags_live_conservative_cases),
		cmocka_unit_test(flags_live_indirect_jump_targets),
		cmocka_unit_test(flags_live_indirect_target_before_another_label),
		cmocka_unit_test(flags_live_indirect_targets_of_own_function),
		cmocka_unit_test(flags_live_join_with_different_masks),
		cmocka_unit_test(flags_live_reports_every_flag_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
