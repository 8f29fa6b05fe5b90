/* test_sched_prio.c: priorities (the hunting scheduler's), the mutexes each thread
 * holds, and what sched_thread_info says a blocked thread waits for. */
#include "sched_test.h"

static void *traces_and_yields(void *arg)
{
	TRACE("%d", self_id());
	sched_thread_yield();
	TRACE("%d", self_id());
	return NULL;
}

/* Threads 2, 3, 4 with priorities 5, 9, 7: the highest runs first, and a yield lets the
 * next highest run once (then the highest comes back). */
TEST_MAIN(prio_order_main)
{
	static const int prio[] = { 5, 9, 7 };
	struct sched_thread *t[3];
	sched_set_priority(sched_current(), 1);
	for (int i = 0; i < 3; i++) {
		t[i] = spawn(traces_and_yields, NULL);
		sched_set_priority(t[i], prio[i]);
		CHECK_EQ(sched_priority(t[i]), prio[i]);
	}
	CHECK(sched_preempt_wanted());
	for (int i = 0; i < 3; i++)
		join(t[i]);
	TRACE("main");
	return 0;
}

static void priorities_pick_the_highest_and_yields_give_one_turn(void **state)
{
	assert_int_equal(run(prio_order_main, NULL), 0);
	/* 3 (9) runs, yields: 4 (7) runs once, yields: 3 again (highest) ends, then 4
	 * ends; 2 (5) runs, yields with nobody else (main blocked in join): runs on. */
	assert_trace("3 4 3 4 2 2 main");
}

static void *traces_and_spins(void *arg)
{
	TRACE("%d", self_id());
	sched_thread_yield_fifo();
	TRACE("%d", self_id());
	return NULL;
}

/* The same threads, yielding as a spin-wait does: the thread that waited longest runs,
 * whatever its priority. */
TEST_MAIN(spin_yield_main)
{
	static const int prio[] = { 5, 9, 7 };
	struct sched_thread *t[3];
	sched_set_priority(sched_current(), 1);
	for (int i = 0; i < 3; i++) {
		t[i] = spawn(traces_and_spins, NULL);
		sched_set_priority(t[i], prio[i]);
	}
	for (int i = 0; i < 3; i++)
		join(t[i]);
	TRACE("main");
	return 0;
}

static void a_spin_yield_lets_the_longest_waiting_run(void **state)
{
	assert_int_equal(run(spin_yield_main, NULL), 0);
	/* 3 (9) runs, yields: 2 (5), queued first, runs, yields: 4 (7), yields: 3 ends;
	 * then by priority 4 ends, 2 ends, and main, woken from its join of 2. */
	assert_trace("3 2 4 3 4 2 main");
}

/* Without priorities the order stays FIFO, and nothing ever wants a preemption. */
TEST_MAIN(fifo_main)
{
	struct sched_thread *t[3];
	for (int i = 0; i < 3; i++)
		t[i] = spawn(traces_and_yields, NULL);
	CHECK(!sched_preempt_wanted());
	for (int i = 0; i < 3; i++)
		join(t[i]);
	return 0;
}

static void without_priorities_the_run_queue_is_fifo(void **state)
{
	assert_int_equal(run(fifo_main, NULL), 0);
	assert_trace("2 3 4 2 3 4");
}

static void *traces_and_preempts(void *arg)
{
	TRACE("%d%c%c", self_id(), sched_preempt_useful() ? 'u' : 'n',
	      sched_others_runnable() ? 'o' : '-');
	sched_preempt();
	TRACE("%d", self_id());
	return NULL;
}

/* Threads 2, 3, 4 with priorities 9, 5, 9: a preempted thread goes to the tail of its
 * priority, so 2 and 4 take turns; 3 is not switched out: main (1), woken from its join
 * of 2, is runnable, but below it, so a preemption is of no use there. */
TEST_MAIN(preempt_prio_main)
{
	static const int prio[] = { 9, 5, 9 };
	struct sched_thread *t[3];
	sched_set_priority(sched_current(), 1);
	for (int i = 0; i < 3; i++) {
		t[i] = spawn(traces_and_preempts, NULL);
		sched_set_priority(t[i], prio[i]);
	}
	for (int i = 0; i < 3; i++)
		join(t[i]);
	return 0;
}

static void a_preemption_goes_to_the_tail_of_its_priority(void **state)
{
	assert_int_equal(run(preempt_prio_main, NULL), 0);
	assert_trace("2uo 4uo 2 4 3no 3");
}

static struct sched_mutex m1, m2;
static struct sched_sem go;

static void *waits_for_m1(void *arg)
{
	sched_mutex_lock(&m1);
	TRACE("got");
	sched_mutex_unlock(&m1);
	return NULL;
}

/* A wake-up of a thread of higher priority makes sched_preempt_wanted true; of a
 * lower one, not. */
TEST_MAIN(wake_main)
{
	memset(&m1, 0, sizeof m1);
	sched_set_priority(sched_current(), 5);
	sched_mutex_lock(&m1);
	struct sched_thread *lo = spawn(waits_for_m1, NULL);
	sched_set_priority(lo, 3);
	CHECK(!sched_preempt_wanted());
	sched_thread_yield(); /* lo blocks on m1 */
	CHECK_EQ(sched_thread_state(lo), SCHED_BLOCKED);
	sched_set_priority(lo, 8);
	CHECK(!sched_preempt_wanted()); /* blocked: not runnable */
	sched_mutex_unlock(&m1); /* handed over to lo, now runnable */
	CHECK(sched_preempt_wanted());
	TRACE("unlocked");
	join(lo);
	return 0;
}

static void waking_a_higher_priority_thread_wants_a_preemption(void **state)
{
	assert_int_equal(run(wake_main, NULL), 0);
	assert_trace("unlocked got");
}

/* The mutexes a thread holds, in sched_thread_info, and who holds what it waits for. */
static void *takes_m2_waits_m1(void *arg)
{
	sched_mutex_lock(&m2);
	sched_sem_post(&go);
	sched_mutex_lock(&m1);
	sched_mutex_unlock(&m1);
	sched_mutex_unlock(&m2);
	return NULL;
}

TEST_MAIN(held_main)
{
	struct sched_thread_info in;
	memset(&m1, 0, sizeof m1);
	memset(&m2, 0, sizeof m2);
	memset(&go, 0, sizeof go);
	sched_mutex_lock(&m1);
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, 1);
	CHECK(in.held[0] == &m1);
	struct sched_thread *t = spawn(takes_m2_waits_m1, NULL);
	sched_sem_wait(&go);
	sched_thread_yield(); /* t blocks on m1 */
	sched_thread_info(t, &in);
	CHECK_EQ(in.state, SCHED_BLOCKED);
	CHECK_EQ(in.wait_kind, SCHED_WAIT_MUTEX);
	CHECK(in.wait_obj == &m1);
	CHECK_EQ(in.wait_owner, 1);
	CHECK_EQ(in.nheld, 1);
	CHECK(in.held[0] == &m2);
	sched_mutex_unlock(&m1); /* handed to t */
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, 0);
	sched_thread_info(t, &in);
	CHECK_EQ(in.nheld, 2);
	CHECK(in.held[1] == &m1);
	CHECK_EQ(in.wait_owner, 0);
	join(t);
	/* More than SCHED_HELD_MAX: counted, the first listed. */
	static struct sched_mutex many[SCHED_HELD_MAX + 3];
	memset(many, 0, sizeof many);
	for (int i = 0; i < SCHED_HELD_MAX + 3; i++)
		sched_mutex_lock(&many[i]);
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, SCHED_HELD_MAX + 3);
	CHECK(in.held[SCHED_HELD_MAX - 1] == &many[SCHED_HELD_MAX - 1]);
	for (int i = SCHED_HELD_MAX + 3; i-- > 0;)
		sched_mutex_unlock(&many[i]);
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, 0);
	/* Recursive relocks count once; a condvar wait lets go and takes back. */
	static struct sched_mutex rec;
	sched_mutex_init(&rec, SCHED_MUTEX_RECURSIVE);
	sched_mutex_lock(&rec);
	sched_mutex_lock(&rec);
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, 1);
	sched_mutex_unlock(&rec);
	sched_mutex_unlock(&rec);
	sched_thread_info(sched_current(), &in);
	CHECK_EQ(in.nheld, 0);
	return 0;
}

static void held_mutexes_and_wait_owner(void **state)
{
	assert_int_equal(run(held_main, NULL), 0);
}

/* Issue 15: the deadlock report counted threads that exited but were not joined among
 * the blocked ones. */
static char *report;

static void capture_report(void)
{
	size_t len = 0;
	FILE *f = open_memstream(&report, &len);
	sched_report_deadlock(f);
	fclose(f);
}

static void *exits_at_once(void *arg)
{
	return NULL;
}

static void *waits_forever(void *arg)
{
	sched_mutex_lock(&m1);
	return NULL;
}

TEST_MAIN(exited_main)
{
	memset(&m1, 0, sizeof m1);
	sched_mutex_lock(&m1);
	spawn(exits_at_once, NULL);
	struct sched_thread *t = spawn(waits_forever, NULL);
	sched_thread_yield();
	join(t); /* never returns */
	return 0;
}

static void deadlock_report_counts_live_threads(void **state)
{
	const struct sched_hooks hooks = { .deadlock = capture_report };
	assert_int_equal(run(exited_main, &hooks), SCHED_RUN_ABORTED);
	char want[512];
	snprintf(want, sizeof want,
		 "sched: deadlock: all 2 live threads are blocked (1 more exited, not joined)\n"
		 "sched:   thread 1: blocked on joining thread 3; holds mutex %p\n"
		 "sched:   thread 2: exited, not joined\n"
		 "sched:   thread 3: blocked on mutex %p held by thread 1\n",
		 (void *)&m1, (void *)&m1);
	assert_string_equal(report, want);
	free(report);
}

/* ---- a sleeper's turn (the sleeper_turn hook) ---------------------------------- */
static bool sleeper_yes;
static int asked_next, asked_sleeper;

static bool sleeper_turn(struct sched_thread *next, struct sched_thread *sleeper)
{
	asked_next = sched_thread_id(next);
	asked_sleeper = sched_thread_id(sleeper);
	return sleeper_yes;
}

static void *sleeps_10ms(void *arg)
{
	struct timespec d = duration(SEC / 100);
	sched_sleep(&d);
	TRACE("woke");
	return NULL;
}

static void *preempts_once(void *arg)
{
	TRACE("w1");
	sched_preempt();
	TRACE("w2");
	return NULL;
}

/* A sleeper (thread 2; priority 9 with_prio) and a worker (3; priority 5) that is the
 * only runnable thread when it is preempted (main joins); without priorities, round
 * robin. */
static bool with_prio;

TEST_MAIN(sleeper_turn_main)
{
	if (with_prio)
		sched_set_priority(sched_current(), 1);
	struct sched_thread *s = spawn(sleeps_10ms, NULL);
	if (with_prio)
		sched_set_priority(s, 9);
	sched_thread_yield(); /* the sleeper sleeps */
	struct sched_thread *w = spawn(preempts_once, NULL);
	if (with_prio)
		sched_set_priority(w, 5);
	join(s);
	join(w);
	return 0;
}

static void a_preemption_may_wait_for_a_sleeper(void **state)
{
	struct sched_hooks hooks = virtual_hooks;
	hooks.sleeper_turn = sleeper_turn;
	for (int p = 0; p < 2; p++) {
		with_prio = p;
		/* yes: time passes until the sleeper's deadline, which runs before the worker
		 * goes on; no: the worker, alone runnable, runs on */
		sleeper_yes = true;
		asked_next = asked_sleeper = 0;
		assert_int_equal(run(sleeper_turn_main, &hooks), 0);
		assert_trace("w1 woke w2");
		assert_int_equal(asked_next, 3);
		assert_int_equal(asked_sleeper, 2);
		assert_int_equal(vclock[0], SEC / 100);
		sleeper_yes = false;
		assert_int_equal(run(sleeper_turn_main, &hooks), 0);
		assert_trace("w1 w2 woke");
	}
	/* without the hook, as before */
	with_prio = true;
	assert_int_equal(run(sleeper_turn_main, &virtual_hooks), 0);
	assert_trace("w1 w2 woke");
}

/* A sleeper below the thread that would run is no reason to wait: not asked. */
TEST_MAIN(low_sleeper_main)
{
	sched_set_priority(sched_current(), 1);
	struct sched_thread *s = spawn(sleeps_10ms, NULL);
	sched_set_priority(s, 9);
	sched_thread_yield(); /* the sleeper sleeps */
	sched_set_priority(s, 2);
	struct sched_thread *w = spawn(preempts_once, NULL);
	sched_set_priority(w, 5);
	join(s);
	join(w);
	return 0;
}

static void a_lower_sleeper_is_not_waited_for(void **state)
{
	struct sched_hooks hooks = virtual_hooks;
	hooks.sleeper_turn = sleeper_turn;
	sleeper_yes = true;
	asked_next = 0;
	assert_int_equal(run(low_sleeper_main, &hooks), 0);
	assert_trace("w1 w2 woke");
	assert_int_equal(asked_next, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(priorities_pick_the_highest_and_yields_give_one_turn),
		cmocka_unit_test(a_spin_yield_lets_the_longest_waiting_run),
		cmocka_unit_test(without_priorities_the_run_queue_is_fifo),
		cmocka_unit_test(a_preemption_goes_to_the_tail_of_its_priority),
		cmocka_unit_test(waking_a_higher_priority_thread_wants_a_preemption),
		cmocka_unit_test(held_mutexes_and_wait_owner),
		cmocka_unit_test(deadlock_report_counts_live_threads),
		cmocka_unit_test(a_preemption_may_wait_for_a_sleeper),
		cmocka_unit_test(a_lower_sleeper_is_not_waited_for),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
