/* test_sched_threads.c: green threads: life cycle, order, errno, stacks, hooks. */
#include "sched_test.h"
#include "sched_impl.h" /* sched_g.fsgsbase */

#include <signal.h>
#include <sys/wait.h>

/* ---- create, join, return values ------------------------------------------------- */

static void *times_three(void *arg)
{
	sched_thread_yield();
	return (void *)((intptr_t)arg * 3);
}

#define MANY 1000
TEST_MAIN(many_at_once)
{
	static struct sched_thread *t[MANY];
	for (int i = 0; i < MANY; i++) {
		t[i] = spawn(times_three, (void *)(intptr_t)i);
		CHECK_EQ(sched_thread_id(t[i]), i + 2); /* main is 1 */
	}
	for (int i = 0; i < MANY; i++)
		CHECK_EQ(join(t[i]), 3 * i);
	CHECK(sched_thread_next(NULL) == sched_current()); /* all others freed */
	CHECK(sched_thread_next(sched_current()) == NULL);
	return 0;
}

static void create_join_1000_at_once(void **state)
{
	assert_int_equal(run(many_at_once, NULL), 0);
}

TEST_MAIN(many_one_by_one)
{
	for (int i = 0; i < MANY; i++) {
		struct sched_thread *t = spawn(times_three, (void *)(intptr_t)i);
		CHECK_EQ(sched_thread_id(t), i + 2);
		CHECK_EQ(join(t), 3 * i);
	}
	return 0;
}

static void create_join_1000_one_by_one(void **state)
{
	assert_int_equal(run(many_one_by_one, NULL), 0);
}

/* ---- exit from a nested function --------------------------------------------------- */
static int after_exit;

static void nested(int depth)
{
	if (depth > 0)
		nested(depth - 1);
	else if (depth == 0)
		sched_exit((void *)0x1234);
	after_exit = 1;
}

static void *exits_deep(void *arg)
{
	nested(5);
	after_exit = 1;
	return NULL;
}

TEST_MAIN(exit_nested_main)
{
	after_exit = 0;
	CHECK_EQ(join(spawn(exits_deep, NULL)), 0x1234);
	CHECK_EQ(after_exit, 0);
	return 0;
}

static void exit_from_nested_function(void **state)
{
	assert_int_equal(run(exit_nested_main, NULL), 0);
}

/* ---- main's status, main calling sched_exit ---------------------------------------- */
TEST_MAIN(returns_42)
{
	CHECK_EQ(self_id(), 1);
	CHECK_EQ(argc, 1);
	CHECK(strcmp(argv[0], "test") == 0);
	return 42;
}

static void *outlives_main(void *arg)
{
	for (int i = 0; i < 3; i++)
		sched_thread_yield();
	TRACE("last %d", self_id());
	return NULL;
}

TEST_MAIN(main_exits)
{
	spawn(outlives_main, NULL);
	TRACE("main exits");
	sched_exit(NULL);
}

static void *never_finishes(void *arg)
{
	while (arg == NULL)
		sched_thread_yield();
	return NULL;
}

TEST_MAIN(main_returns_early)
{
	spawn(never_finishes, NULL);
	sched_thread_yield();
	return 7;
}

static void main_status_and_exit(void **state)
{
	assert_int_equal(run(returns_42, NULL), 42);
	/* pthread_exit in main: the run goes on until the last thread exits, status 0 */
	assert_int_equal(run(main_exits, NULL), 0);
	assert_trace("main exits last 2");
	/* main returning ends the run whatever other threads do; ids restart at 1 */
	assert_int_equal(run(main_returns_early, NULL), 7);
	assert_int_equal(run(returns_42, NULL), 42);
	assert_int_equal(sched_thread_id(sched_current()), 0); /* the host */
}

/* ---- detach, join errors ---------------------------------------------------------- */
static int detached_ran;

static void *counts_and_exits(void *arg)
{
	detached_ran++;
	return NULL;
}

static void *joins_itself(void *arg)
{
	return (void *)(intptr_t)sched_join(sched_current(), NULL);
}

TEST_MAIN(detach_main)
{
	struct sched_thread_attr attr = { .detached = true };
	struct sched_thread *t;
	detached_ran = 0;
	CHECK_EQ(sched_create(&t, &attr, counts_and_exits, NULL), 0);
	CHECK_EQ(sched_join(t, NULL), EINVAL);
	CHECK_EQ(sched_detach(t), EINVAL);

	struct sched_thread *u = spawn(counts_and_exits, NULL);
	CHECK_EQ(sched_detach(u), 0);
	CHECK_EQ(sched_detach(u), EINVAL);

	struct sched_thread *v = spawn(counts_and_exits, NULL);
	sched_thread_yield(); /* all three run and exit */
	CHECK_EQ(detached_ran, 3);
	struct sched_thread_info info;
	sched_thread_info(v, &info);
	CHECK_EQ(info.state, SCHED_EXITED);
	CHECK_EQ(sched_detach(v), 0); /* exited: freed at once */

	/* only main is left: the detached ones were freed */
	CHECK(sched_thread_next(NULL) == sched_current());
	CHECK(sched_thread_next(sched_current()) == NULL);

	CHECK_EQ(sched_join(sched_current(), NULL), EDEADLK);
	CHECK_EQ(join(spawn(joins_itself, NULL)), EDEADLK);
	return 0;
}

static void detach_and_join_errors(void **state)
{
	assert_int_equal(run(detach_main, NULL), 0);
}

/* ---- yield: the exact interleaving ---------------------------------------------- */
static void *yields_three_times(void *arg)
{
	for (int i = 0; i < 3; i++) {
		TRACE("%d", self_id());
		sched_thread_yield();
	}
	return NULL;
}

TEST_MAIN(yield_main)
{
	struct sched_thread *t[3];
	for (int i = 0; i < 3; i++)
		t[i] = spawn(yields_three_times, NULL);
	TRACE("m");
	sched_thread_yield(); /* runs 2 3 4, then main again: round robin */
	TRACE("m");
	for (int i = 0; i < 3; i++)
		join(t[i]);
	TRACE("m");
	return 0;
}

static void yield_interleaving_is_exact(void **state)
{
	assert_int_equal(run(yield_main, NULL), 0);
	assert_trace("m 2 3 4 m 2 3 4 2 3 4 m");
}

/* ---- the same program, the same switches ---------------------------------------- */
static char switches[16384];
static size_t nswitches;

static void record_switch(struct sched_thread *prev, struct sched_thread *next)
{
	if (nswitches + 16 < sizeof switches)
		nswitches += (size_t)snprintf(switches + nswitches, 16, "%d>%d ", prev->id,
					      next->id);
}

static struct sched_mutex busy_lock;
static struct sched_cond busy_cond;
static int busy_turn;

static void *busy_worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int round = 0; round < 20; round++) {
		sched_mutex_lock(&busy_lock);
		while (busy_turn % 4 != me)
			sched_cond_wait(&busy_cond, &busy_lock);
		busy_turn++;
		sched_cond_broadcast(&busy_cond);
		if ((round + me) % 3 == 0)
			sched_thread_yield();
		sched_mutex_unlock(&busy_lock);
		if (round % 5 == me)
			sched_thread_yield();
	}
	return NULL;
}

TEST_MAIN(busy_main)
{
	struct sched_thread *t[4];
	busy_turn = 0;
	for (int i = 0; i < 4; i++)
		t[i] = spawn(busy_worker, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		join(t[i]);
	CHECK_EQ(busy_turn, 80);
	return 0;
}

static void same_calls_same_switches(void **state)
{
	static char first[sizeof switches];
	const struct sched_hooks hooks = { .on_switch = record_switch };
	nswitches = 0;
	assert_int_equal(run(busy_main, &hooks), 0);
	memcpy(first, switches, nswitches + 1);
	assert_true(nswitches > 100);
	nswitches = 0;
	assert_int_equal(run(busy_main, &hooks), 0);
	assert_string_equal(first, switches);
}

/* ---- errno belongs to each thread ------------------------------------------------- */
static void *keeps_errno(void *arg)
{
	int mine = (int)(intptr_t)arg;
	errno = mine;
	for (int i = 0; i < 5; i++) {
		sched_thread_yield();
		CHECK_EQ(errno, mine);
		errno = mine;
	}
	return NULL;
}

TEST_MAIN(errno_main)
{
	struct sched_thread *a = spawn(keeps_errno, (void *)(intptr_t)EINTR);
	struct sched_thread *b = spawn(keeps_errno, (void *)(intptr_t)ERANGE);
	errno = EDOM;
	sched_thread_yield();
	CHECK_EQ(errno, EDOM);
	join(a);
	CHECK_EQ(errno, EDOM);
	join(b);
	CHECK_EQ(errno, EDOM);
	return 0;
}

static void errno_per_thread(void **state)
{
	errno = ENOENT;
	assert_int_equal(run(errno_main, NULL), 0);
	assert_int_equal(errno, ENOENT); /* the host's own */
}

/* ---- __thread variables and glibc's TCB belong to each thread -------------------- */
static __thread int tls_init = 17;
static __thread long tls_zero[8];
static __thread int *tls_peer; /* a pointer to another thread's tls_init */

/* The thread pointer glibc's code sees: fs:0 (the TCB's self pointer). */
static void *tcb_self(void)
{
	void *p;
	__asm__ volatile("movq %%fs:0, %0" : "=r"(p));
	return p;
}

static uintptr_t stack_guard(void)
{
	uintptr_t g;
	__asm__ volatile("movq %%fs:0x28, %0" : "=r"(g));
	return g;
}

static uintptr_t main_guard;
static int tls_mode; /* 0: LDT selectors, 1: wrfsbase, 2: arch_prctl (sched_set_tls_path) */

/* Do this machine's LDT selectors work (the probe's word: it runs them in a child)?
 * Where they do not (a KVM guest's kernel, a seccomp filter: tests/lib/restrict.c
 * --fake-ldt, --no-ldt) the auto path is another, and the tests say which. */
static bool ldt_here(void)
{
	struct sched_tls_report r;
	sched_tls_probe(&r);
	return r.ldt.state == SCHED_FEATURE_WORKS;
}

static void *owns_tls(void *arg)
{
	int id = (int)(intptr_t)arg;
	int zero = 1;
	for (int i = 0; i < 8; i++)
		zero &= tls_zero[i] == 0;
	CHECK_EQ(tls_init, 17); /* fresh from the image, whatever the others did */
	CHECK(zero);
	CHECK(tcb_self() == __builtin_thread_pointer());
	CHECK_EQ(stack_guard(), main_guard);
	tls_init = id;
	tls_zero[id] = id;
	for (int i = 0; i < 3; i++) {
		sched_thread_yield();
		CHECK_EQ(tls_init, id);
		CHECK_EQ(tls_zero[id], id);
	}
	return &tls_init; /* its own, read by main after it exited */
}

static void *reads_peer(void *arg)
{
	tls_peer = arg;
	sched_thread_yield();
	return (void *)(intptr_t)*tls_peer;
}

/* glibc's stdio locks see one thread (THREAD_SELF is shared): a lock taken by
 * another green thread is not in the way (were it, the futex wait would hang). The
 * stream is a regular file: the pthread layer linked in here gives streams on
 * character devices (/dev/null on most machines) a green lock of its own. */
static void *locks_held_stream(void *arg)
{
	FILE *f = arg;
	int free_for_us = ftrylockfile(f) == 0;
	if (free_for_us)
		funlockfile(f);
	return (void *)(intptr_t)free_for_us;
}

TEST_MAIN(tls_main)
{
	main_guard = stack_guard();
	tls_init = 1000;
	struct sched_thread *t[4];
	for (int i = 1; i < 4; i++)
		t[i] = spawn(owns_tls, (void *)(intptr_t)i);
	sched_thread_yield();
	CHECK_EQ(tls_init, 1000);
	struct sched_thread *r = spawn(reads_peer, &tls_init);
	CHECK_EQ(join(r), 1000); /* through the pointer: main's, not its own 17 */
	for (int i = 1; i < 4; i++) {
		void *ret = NULL;
		CHECK_EQ(sched_join(t[i], &ret), 0);
		CHECK(ret != &tls_init);
	}
	/* a caller's stack is left whole; the area is below 4 GiB with an LDT entry */
	static char given[65536] __attribute__((aligned(64)));
	struct sched_thread_attr attr = {.stack_size = sizeof given, .stack_addr = given};
	struct sched_thread_info info;
	CHECK_EQ(sched_create(&t[0], &attr, owns_tls, (void *)(intptr_t)4), 0);
	sched_thread_info(t[0], &info);
	CHECK(info.stack_lo == (void *)given && info.stack_hi == (void *)(given + sizeof given));
	CHECK(info.tp == t[0]->tp);
	if (tls_mode) {
		CHECK_EQ(t[0]->fs_sel, 0);
		CHECK(!strcmp(sched_tls_path(), tls_mode == 1 ? "fsgsbase" : "syscall") ||
		      (tls_mode == 1 && !strcmp(sched_tls_path(), "syscall")));
		CHECK(tls_mode == 1 || !sched_g.fsgsbase);
	} else if (ldt_here()) {
		CHECK(!strcmp(sched_tls_path(), "ldt"));
		CHECK((uintptr_t)t[0]->tp < UINT32_MAX);
		CHECK(t[0]->fs_sel != 0);
	} else { /* a kernel that refuses LDT selectors, or whose selectors fault */
		CHECK(strcmp(sched_tls_path(), "ldt"));
		CHECK_EQ(t[0]->fs_sel, 0);
	}
	join(t[0]);
	CHECK_EQ(tls_init, 1000);

	FILE *f = tmpfile();
	CHECK(f != NULL);
	flockfile(f);
	CHECK_EQ(join(spawn(locks_held_stream, f)), 1);
	funlockfile(f);
	fclose(f);
	return 0;
}

static void tls_per_thread(void **state)
{
	tls_init = 5;
	assert_int_equal(run(tls_main, NULL), 0);
	assert_int_equal(tls_init, 1000); /* the host and thread 1 share the process's TLS */
	for (tls_mode = 1; tls_mode <= 2; tls_mode++) {
		sched_set_tls_path(tls_mode == 1 ? SCHED_TLS_FSGSBASE : SCHED_TLS_SYSCALL);
		assert_int_equal(run(tls_main, NULL), 0);
	}
	tls_mode = 0;
	sched_set_tls_path(SCHED_TLS_AUTO);
}

/* The probes' report: this machine's LDT selectors and arch_prctl work (tls_main
 * relies on the first); the path asked for is the one used when it works. */
static void tls_probe_report(void **state)
{
	struct sched_tls_report r;
	sched_set_tls_path(SCHED_TLS_LDT);
	sched_tls_probe(&r);
	bool ldt = r.ldt.state == SCHED_FEATURE_WORKS;
	assert_true(ldt || r.ldt.state == SCHED_FEATURE_FAULTS || r.ldt.state == SCHED_FEATURE_REFUSED);
	assert_int_equal(r.syscall.state, SCHED_FEATURE_WORKS);
	assert_int_equal(r.asked, SCHED_TLS_LDT);
	if (ldt) {
		assert_int_equal(r.path, SCHED_TLS_LDT);
		assert_null(r.why);
	} else { /* the next path, and why not this one */
		assert_int_not_equal(r.path, SCHED_TLS_LDT);
		assert_non_null(r.why);
	}
	const char *auto_path = ldt ? "ldt" : r.fsgsbase.state == SCHED_FEATURE_WORKS ? "fsgsbase" : "syscall";
	assert_string_equal(sched_tls_path(), ldt ? "ldt" : auto_path);
	sched_set_tls_path(SCHED_TLS_FSGSBASE);
	sched_tls_probe(&r);
	assert_int_equal(r.path, r.fsgsbase.state == SCHED_FEATURE_WORKS ? SCHED_TLS_FSGSBASE
									: SCHED_TLS_SYSCALL);
	assert_true((r.path == SCHED_TLS_FSGSBASE) == (r.why == NULL));
	sched_set_tls_path(SCHED_TLS_AUTO);
	assert_string_equal(sched_tls_path(), auto_path);
	assert_string_equal(sched_tls_path_name(SCHED_TLS_SYSCALL), "syscall");
}

/* ---- MXCSR and the x87 control word belong to each thread too --------------------- */
#define MXCSR_RC_MASK 0x6000u
#define MXCSR_RC_UP 0x4000u
#define MXCSR_RC_ZERO 0x6000u
#define X87_RC_MASK 0x0c00u
#define X87_RC_DOWN 0x0400u
#define X87_RC_ZERO 0x0c00u

static unsigned get_mxcsr(void)
{
	return __builtin_ia32_stmxcsr();
}

static void set_mxcsr_rc(unsigned rc)
{
	__builtin_ia32_ldmxcsr((get_mxcsr() & ~MXCSR_RC_MASK) | rc);
}

static unsigned get_x87cw(void)
{
	unsigned short cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	return cw;
}

static void set_x87_rc(unsigned rc)
{
	unsigned short cw = (unsigned short)((get_x87cw() & ~X87_RC_MASK) | rc);
	__asm__ volatile("fldcw %0" : : "m"(cw));
}

static void *own_rounding(void *arg)
{
	/* inherited from the creator, as POSIX says */
	CHECK_EQ(get_mxcsr() & MXCSR_RC_MASK, MXCSR_RC_UP);
	CHECK_EQ(get_x87cw() & X87_RC_MASK, X87_RC_DOWN);
	set_mxcsr_rc(MXCSR_RC_ZERO);
	set_x87_rc(X87_RC_ZERO);
	sched_thread_yield();
	CHECK_EQ(get_mxcsr() & MXCSR_RC_MASK, MXCSR_RC_ZERO);
	CHECK_EQ(get_x87cw() & X87_RC_MASK, X87_RC_ZERO);
	return NULL;
}

TEST_MAIN(fpu_main)
{
	set_mxcsr_rc(MXCSR_RC_UP);
	set_x87_rc(X87_RC_DOWN);
	struct sched_thread *t = spawn(own_rounding, NULL);
	sched_thread_yield();
	CHECK_EQ(get_mxcsr() & MXCSR_RC_MASK, MXCSR_RC_UP);
	CHECK_EQ(get_x87cw() & X87_RC_MASK, X87_RC_DOWN);
	join(t);
	CHECK_EQ(get_mxcsr() & MXCSR_RC_MASK, MXCSR_RC_UP);
	set_mxcsr_rc(0);
	set_x87_rc(0);
	return 0;
}

static void fpu_control_per_thread(void **state)
{
	unsigned mxcsr = get_mxcsr(), cw = get_x87cw();
	assert_int_equal(run(fpu_main, NULL), 0);
	assert_int_equal(get_mxcsr(), mxcsr); /* the host's own, restored */
	assert_int_equal(get_x87cw(), cw);
}

/* ---- stacks --------------------------------------------------------------------- */
/* The /proc/self/maps line for the mapping that contains addr, or ends at it. */
static bool find_mapping(uintptr_t addr, bool ending_at, uintptr_t *lo, uintptr_t *hi,
			 char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof line, f)) {
		unsigned long a, b;
		char p[5];
		if (sscanf(line, "%lx-%lx %4s", &a, &b, p) != 3)
			continue;
		if (ending_at ? b == addr : (a <= addr && addr < b)) {
			*lo = a;
			*hi = b;
			memcpy(perms, p, 5);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void *looks_at_own_stack(void *arg)
{
	struct sched_thread_info info;
	char local;
	uintptr_t lo, hi;
	char perms[5];
	long page = sysconf(_SC_PAGESIZE);
	sched_thread_info(sched_current(), &info);
	CHECK((uintptr_t)&local > (uintptr_t)info.stack_lo);
	CHECK((uintptr_t)&local < (uintptr_t)info.stack_hi);
	CHECK_EQ((char *)info.stack_hi - (char *)info.stack_lo, (intptr_t)arg);
	/* the stack itself: readable and writable */
	CHECK(find_mapping((uintptr_t)&local, false, &lo, &hi, perms));
	CHECK(strncmp(perms, "rw", 2) == 0);
	CHECK_EQ(lo, (uintptr_t)info.stack_lo);
	/* just below it: one page nobody may touch */
	CHECK(find_mapping((uintptr_t)info.stack_lo, true, &lo, &hi, perms));
	CHECK(strncmp(perms, "---", 3) == 0);
	CHECK_EQ(hi - lo, page);
	return NULL;
}

static void *uses_given_stack(void *arg)
{
	char local;
	struct sched_thread_info info;
	sched_thread_info(sched_current(), &info);
	CHECK(info.stack_lo == arg);
	CHECK((char *)&local > (char *)arg && (char *)&local < (char *)arg + 65536);
	return NULL;
}

static void *deep_recursion(void *arg)
{
	/* touch most of a 1 MiB stack */
	volatile char buf[4096];
	buf[0] = 1;
	if ((intptr_t)arg > 0)
		deep_recursion((void *)((intptr_t)arg - 1));
	return (void *)(intptr_t)buf[0];
}

TEST_MAIN(stack_main)
{
	struct sched_thread *t;
	struct sched_thread_attr attr = { 0 };
	/* default size */
	CHECK_EQ(sched_create(&t, NULL, looks_at_own_stack,
			      (void *)(intptr_t)SCHED_DEFAULT_STACK_SIZE), 0);
	join(t);
	/* a chosen size, rounded up to pages */
	attr.stack_size = 100000;
	long page = sysconf(_SC_PAGESIZE);
	intptr_t rounded = (100000 + page - 1) / page * page;
	CHECK_EQ(sched_create(&t, &attr, looks_at_own_stack, (void *)rounded), 0);
	join(t);
	attr.stack_size = 1 << 20;
	CHECK_EQ(sched_create(&t, &attr, deep_recursion, (void *)(intptr_t)200), 0);
	CHECK_EQ(join(t), 1);
	/* too small */
	attr.stack_size = SCHED_MIN_STACK_SIZE - 1;
	CHECK_EQ(sched_create(&t, &attr, looks_at_own_stack, NULL), EINVAL);
	/* the caller's own stack: no guard page, used as given */
	static char given[65536] __attribute__((aligned(16)));
	attr.stack_size = sizeof given;
	attr.stack_addr = given;
	CHECK_EQ(sched_create(&t, &attr, uses_given_stack, given), 0);
	join(t);
	attr.stack_size = 0;
	CHECK_EQ(sched_create(&t, &attr, uses_given_stack, given), EINVAL);
	/* main's own stack has its guard too */
	struct sched_thread_info info;
	uintptr_t lo, hi;
	char perms[5];
	sched_thread_info(sched_current(), &info);
	CHECK_EQ((char *)info.stack_hi - (char *)info.stack_lo, SCHED_MAIN_STACK_SIZE);
	CHECK(find_mapping((uintptr_t)info.stack_lo, true, &lo, &hi, perms));
	CHECK(strncmp(perms, "---", 3) == 0);
	return 0;
}

static void guard_page_below_each_stack(void **state)
{
	assert_int_equal(run(stack_main, NULL), 0);
}

/* A thread whose saved stack pointer is no longer what its switch saved (8 bytes
 * off: the stack a resumed thread would fault on, at its first movaps) is refused at
 * the switch, by name, instead of being resumed (issue 15). */
static void *never_runs(void *arg)
{
	return arg;
}

TEST_MAIN(misaligned_sp_main)
{
	struct sched_thread *t = spawn(never_runs, NULL);
	t->sp = (char *)t->sp + 8;
	sched_thread_yield();
	return 0;
}

static void saved_sp_is_checked_at_the_switch(void **state)
{
	char buf[512];
	int status = run_in_child(misaligned_sp_main, buf, sizeof buf);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	assert_non_null(strstr(buf, "sched: thread 2 cannot resume: its saved stack pointer "));
	assert_non_null(strstr(buf, " is not 16-byte aligned (its stack: ["));
}

/* ---- hooks about threads -------------------------------------------------------- */
static void on_create(struct sched_thread *t)
{
	static int ext_tag = 100;
	t->ext = (void *)(intptr_t)ext_tag++;
	TRACE("create%d", t->id);
}

static void on_start(struct sched_thread *t)
{
	CHECK(sched_current() == t);
	TRACE("start%d/%d", t->id, (int)(intptr_t)t->ext);
}

static void on_exit_hook(struct sched_thread *t)
{
	CHECK(sched_current() == t);
	TRACE("exit%d", t->id);
}

static void *child_body(void *arg)
{
	TRACE("body%d", self_id());
	return NULL;
}

TEST_MAIN(hooks_main)
{
	struct sched_thread *t = spawn(child_body, NULL);
	TRACE("main");
	join(t);
	return 0;
}

static void thread_hooks_in_order(void **state)
{
	const struct sched_hooks hooks = {
		.on_thread_create = on_create,
		.on_thread_start = on_start,
		.on_thread_exit = on_exit_hook,
	};
	assert_int_equal(run(hooks_main, &hooks), 0);
	assert_trace("create1 start1/100 create2 main start2/101 body2 exit2 exit1");
}

/* ---- the iterator ---------------------------------------------------------------- */
static struct sched_mutex held;

static void *blocks_on_held(void *arg)
{
	sched_mutex_lock(&held);
	sched_mutex_unlock(&held);
	return NULL;
}

TEST_MAIN(iter_main)
{
	sched_mutex_lock(&held);
	struct sched_thread *blocked = spawn(blocks_on_held, NULL);
	struct sched_thread *exited = spawn(child_body, NULL);
	sched_thread_yield();
	struct sched_thread *runnable = spawn(child_body, NULL);
	struct sched_thread_info info;
	int n = 0;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		sched_thread_info(t, &info);
		CHECK_EQ(info.id, ++n);
		switch (info.id) {
		case 1:
			CHECK_EQ(info.state, SCHED_RUNNING);
			CHECK(info.sp == NULL && info.pc == 0);
			break;
		case 2:
			CHECK(t == blocked);
			CHECK_EQ(info.state, SCHED_BLOCKED);
			CHECK_EQ(info.wait_kind, SCHED_WAIT_MUTEX);
			CHECK(info.wait_obj == &held);
			CHECK(!info.has_deadline);
			CHECK(info.pc != 0);
			CHECK((char *)info.sp > (char *)info.stack_lo &&
			      (char *)info.sp < (char *)info.stack_hi);
			break;
		case 3:
			CHECK(t == exited);
			CHECK_EQ(info.state, SCHED_EXITED);
			break;
		case 4:
			CHECK(t == runnable);
			CHECK_EQ(info.state, SCHED_RUNNABLE);
			CHECK_EQ(info.wait_kind, SCHED_WAIT_NONE);
			/* never ran: its frame is the first one, just below the top */
			CHECK_EQ((char *)info.stack_hi - (char *)info.sp, 64);
			break;
		}
	}
	CHECK_EQ(n, 4);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	sched_dump(f);
	fclose(f);
	char want[128];
	snprintf(want, sizeof want, "sched:   thread 2: blocked on mutex %p held by thread 1\n",
		 (void *)&held);
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(text, "sched:   thread 3: exited, not joined\n") != NULL);
	CHECK(strstr(text, "sched:   thread 4: runnable\n") != NULL);
	free(text);

	sched_mutex_unlock(&held);
	join(blocked);
	join(exited);
	join(runnable);
	return 0;
}

static void iterator_sees_every_thread(void **state)
{
	assert_int_equal(run(iter_main, NULL), 0);
}

/* ---- preemption, also from a signal handler -------------------------------------- */
static void preempt_handler(int sig)
{
	int saved = errno;
	TRACE("sig");
	if (!sched_preempt())
		TRACE("refused");
	errno = saved;
}

static void *preempted(void *arg)
{
	TRACE("a1");
	raise(SIGUSR1); /* handler -> sched_preempt -> b runs -> back here */
	TRACE("a2");
	sched_preempt(); /* outside a handler it works like a yield */
	TRACE("a3");
	return NULL;
}

static void *other(void *arg)
{
	TRACE("b1");
	sched_thread_yield();
	TRACE("b2");
	return NULL;
}

TEST_MAIN(preempt_main)
{
	struct sched_thread *a = spawn(preempted, NULL);
	struct sched_thread *b = spawn(other, NULL);
	join(a);
	join(b);
	return 0;
}

static void preempt_from_signal_handler(void **state)
{
	struct sigaction sa = { .sa_handler = preempt_handler, .sa_flags = SA_NODEFER };
	struct sigaction old;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(run(preempt_main, NULL), 0);
	assert_trace("a1 sig b1 a2 b2 a3");
	/* outside a run there is nothing to preempt */
	assert_false(sched_preempt());
	sigaction(SIGUSR1, &old, NULL);
}

/* A real timer signal, preempting threads that spin (and sometimes are inside the
 * scheduler, where sched_preempt must refuse). The order is not deterministic here:
 * only the invariants are checked.
 *
 * The handler bounds how deep its ticks nest, as libreplay's on_tick does: installed
 * without SA_NODEFER, it runs with SIGPROF blocked by the kernel, and unblocks it only
 * around a preemption that will switch (the next thread must be preemptible in turn),
 * blocking it again before it returns. A tick that comes in between preempts too (a
 * preemption inside another's window: preempts_nested), but a third one on the same
 * stack returns at once (blocked, so nothing nests in it): a thread's stack holds at
 * most three tick frames (tick_frames_max). The handler used SA_NODEFER and nothing
 * else: each tick that came before the previous handler had returned nested another
 * frame, and where a tick's round trip (the timer's interrupt, the signal frame,
 * sigreturn) neared the period (then 20 us), as on a loaded 2-CPU VM, the frames piled up
 * until the stack overflowed: a segfault in CI, once in 7 runs; here, at periods of
 * 12 us and less, in 10 runs of 10. */
#define SPINNERS 4
#define SPINS 2000000L
#define TICK_NS 50000 /* libreplay's shortest slice; at 10 us a tick's round trip was the period here */
static volatile long spun[SPINNERS];
static volatile int preempts_taken, preempts_refused, switches_seen, interleaved;
static volatile int preempts_nested, ticks_dropped, tick_frames_max, slow_ticks;
static __thread int tick_depth, tick_frames; /* this thread's ticks under way */
#define TICK_DEPTH_MAX 2 /* ticks that may preempt, on one stack */

static void sigprof_mask(int how)
{
	uint64_t set = UINT64_C(1) << (SIGPROF - 1); /* the kernel's sigset_t */
	sched_raw_syscall(SYS_rt_sigprocmask, how, (long)&set, 0, sizeof set, 0, 0);
}

/* Spin for ns of the monotonic clock (the system call: no wrapper, no vDSO). */
static void spin_ns(uint64_t ns)
{
	struct timespec ts;
	sched_sys_clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t end = (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec + ns;
	do
		sched_sys_clock_gettime(CLOCK_MONOTONIC, &ts);
	while ((uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec < end);
}

static void tick(int sig)
{
	int saved = errno;
	if (++tick_frames > tick_frames_max)
		tick_frames_max = tick_frames;
	if (tick_depth == TICK_DEPTH_MAX) {
		ticks_dropped++; /* between the second one's unblock and block */
		tick_frames--;
		errno = saved;
		return;
	}
	tick_depth++;
	/* Will it switch? Nothing can change that before sched_preempt: SIGPROF is
	 * blocked and nothing else runs. */
	bool switches = !sched_busy() && sched_preempt_useful();
	/* preempt_by_slow_ticks: a handler that takes longer than the period, where it
	 * will switch (a slow tick spent inside the scheduler, which spinners often are,
	 * made no window: at 50 us, none of 200 nested once in a CI run) */
	if (switches && slow_ticks > 0 && sched_thread_id(sched_current()) > 1) {
		slow_ticks--;
		spin_ns(5 * TICK_NS);
	}
	if (switches)
		sigprof_mask(SIG_UNBLOCK);
	if (sched_preempt()) {
		preempts_taken++;
		if (tick_depth > 1)
			preempts_nested++;
	} else
		preempts_refused++;
	if (switches)
		sigprof_mask(SIG_BLOCK); /* sigreturn unblocks it, atomically */
	tick_depth--;
	tick_frames--;
	errno = saved;
}

static void count_switch(struct sched_thread *prev, struct sched_thread *next)
{
	switches_seen++;
}

static void *spinner(void *arg)
{
	int me = (int)(intptr_t)arg;
	errno = me;
	for (long i = 0; i < SPINS; i++) {
		spun[me]++;
		if (i % 64 == 0)
			sched_thread_yield(); /* often inside the scheduler when the tick comes */
	}
	CHECK_EQ(errno, me);
	for (int j = 0; j < SPINNERS; j++)
		if (spun[j] > 0 && spun[j] < SPINS)
			interleaved = 1; /* another spinner ran part-way */
	return arg;
}

static size_t spinner_stack; /* 0: the default */

TEST_MAIN(timer_main)
{
	struct sched_thread *t[SPINNERS];
	struct sched_thread_attr attr = { .stack_size = spinner_stack };
	for (int i = 0; i < SPINNERS; i++)
		CHECK_EQ(sched_create(&t[i], &attr, spinner, (void *)(intptr_t)i), 0);
	for (int i = 0; i < SPINNERS; i++)
		CHECK_EQ(join(t[i]), i);
	for (int i = 0; i < SPINNERS; i++)
		CHECK_EQ(spun[i], SPINS);
	return 0;
}

/* Run timer_main under a SIGPROF every TICK_NS of the monotonic clock. */
static void run_ticking(void)
{
	struct sigaction sa = { .sa_handler = tick, .sa_flags = SA_RESTART };
	struct sigaction old;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGPROF };
	struct itimerspec every = { .it_interval = { 0, TICK_NS }, .it_value = { 0, TICK_NS } };
	struct itimerspec off = { 0 };
	const struct sched_hooks hooks = { .on_switch = count_switch };
	timer_t timer;
	memset((void *)spun, 0, sizeof spun);
	preempts_taken = preempts_refused = switches_seen = interleaved = 0;
	preempts_nested = ticks_dropped = tick_frames_max = 0;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGPROF, &sa, &old), 0);
	assert_int_equal(timer_create(CLOCK_MONOTONIC, &ev, &timer), 0);
	assert_int_equal(timer_settime(timer, 0, &every, NULL), 0);
	int status = run(timer_main, &hooks);
	timer_settime(timer, 0, &off, NULL);
	timer_delete(timer);
	sigaction(SIGPROF, &old, NULL);
	assert_int_equal(status, 0);
	print_message("    %d preemptions taken (%d nested), %d refused, %d dropped, %d switches, "
		      "at most %d tick frames on a stack\n", preempts_taken, preempts_nested,
		      preempts_refused, ticks_dropped, switches_seen, tick_frames_max);
	assert_true(preempts_taken > 0);
	assert_true(interleaved);
	assert_true(tick_frames_max <= TICK_DEPTH_MAX + 1);
}

static void preempt_by_timer_signal(void **state)
{
	run_ticking();
}

/* The first 200 ticks that strike a spinner take five periods each, on 64 KiB
 * stacks: with SA_NODEFER alone they all nested on the stack they struck, which
 * overflowed on every run. Here the tick that came meanwhile waits (blocked) until
 * the slow one unblocks it to switch, and then preempts inside its window. */
static void preempt_by_slow_ticks(void **state)
{
	spinner_stack = 64 << 10;
	slow_ticks = 200;
	run_ticking();
	assert_int_equal(slow_ticks, 0);
	assert_true(preempts_nested > 0);
	spinner_stack = 0;
}

/* ---- misuse ---------------------------------------------------------------------- */
TEST_MAIN(nested_run)
{
	CHECK_EQ(sched_run_main(returns_42, 0, NULL, NULL), SCHED_RUN_ABORTED);
	CHECK_EQ(errno, EBUSY);
	return 0;
}

static void create_outside_a_run_and_nested_runs(void **state)
{
	struct sched_thread *t;
	assert_int_equal(sched_create(&t, NULL, child_body, NULL), EPERM);
	assert_int_equal(run(nested_run, NULL), 0);
}

/* ---- timed join --------------------------------------------------------------------- */
static void *sleeps_ten_seconds(void *arg)
{
	struct timespec d = duration(10 * SEC);
	sched_sleep(&d);
	return (void *)5;
}

TEST_MAIN(timedjoin_main)
{
	struct sched_thread *t = spawn(sleeps_ten_seconds, NULL);
	struct timespec dl = deadline_in(SEC, CLOCK_MONOTONIC);
	void *ret = NULL;
	CHECK_EQ(sched_timedjoin(t, &ret, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(vclock[0], SEC);
	dl = deadline_in(20 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_timedjoin(t, &ret, &dl, CLOCK_MONOTONIC), 0);
	CHECK_EQ((intptr_t)ret, 5);
	CHECK_EQ(vclock[0], 10 * SEC);
	return 0;
}

static void timed_join(void **state)
{
	assert_int_equal(run(timedjoin_main, &virtual_hooks), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_join_1000_at_once),
		cmocka_unit_test(create_join_1000_one_by_one),
		cmocka_unit_test(exit_from_nested_function),
		cmocka_unit_test(main_status_and_exit),
		cmocka_unit_test(detach_and_join_errors),
		cmocka_unit_test(yield_interleaving_is_exact),
		cmocka_unit_test(same_calls_same_switches),
		cmocka_unit_test(errno_per_thread),
		cmocka_unit_test(tls_per_thread),
		cmocka_unit_test(tls_probe_report),
		cmocka_unit_test(fpu_control_per_thread),
		cmocka_unit_test(guard_page_below_each_stack),
		cmocka_unit_test(saved_sp_is_checked_at_the_switch),
		cmocka_unit_test(thread_hooks_in_order),
		cmocka_unit_test(iterator_sees_every_thread),
		cmocka_unit_test(preempt_from_signal_handler),
		cmocka_unit_test(preempt_by_timer_signal),
		cmocka_unit_test(preempt_by_slow_ticks),
		cmocka_unit_test(create_outside_a_run_and_nested_runs),
		cmocka_unit_test(timed_join),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
