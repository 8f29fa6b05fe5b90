/* test_sched_event.c: waiting for events outside the scheduler (sched_wait_event): the
 * event_ready hook is asked at scheduling points in waiting order, idle_events lets
 * time pass when everyone waits, deadlines and sched_interrupt end the wait. */
#include "sched_test.h"

/* An event is an int: non-zero once it happened. */
static int questions, idle_ev_calls;
static int *arrives_in_idle; /* set to 1 by the next idle_events */

static bool ready(struct sched_thread *t, const void *obj)
{
	questions++;
	return *(const int *)obj != 0;
}

static void idle_events(uint64_t deadline_ns, clockid_t clk)
{
	idle_ev_calls++;
	if (arrives_in_idle) {
		*arrives_in_idle = 1;
		arrives_in_idle = NULL;
	} else if (deadline_ns != UINT64_MAX && vclock[clk == CLOCK_REALTIME] < deadline_ns) {
		vclock[clk == CLOCK_REALTIME] = deadline_ns;
	}
}

static const struct sched_hooks event_hooks = {
	.now_ns = virtual_now,
	.idle = virtual_idle,
	.event_ready = ready,
	.idle_events = idle_events,
};

static int ev[3];

static void *waits_for_event(void *arg)
{
	CHECK_EQ(sched_wait_event(arg, NULL, CLOCK_MONOTONIC), 0);
	TRACE("e%d", self_id());
	return NULL;
}

TEST_MAIN(order_main)
{
	struct sched_thread *t[3];
	memset(ev, 0, sizeof ev);
	for (int i = 0; i < 3; i++)
		t[i] = spawn(waits_for_event, &ev[i]);
	sched_thread_yield(); /* all three wait now */
	ev[2] = ev[0] = 1;
	TRACE("m");
	sched_thread_yield(); /* both are asked about and woken, in waiting order */
	TRACE("m");
	arrives_in_idle = &ev[1]; /* main joins: everyone waits, idle brings the last one */
	for (int i = 0; i < 3; i++)
		join(t[i]);
	return 0;
}

static void events_wake_in_waiting_order_and_idle_waits_for_them(void **state)
{
	idle_ev_calls = questions = 0;
	assert_int_equal(run(order_main, &event_hooks), 0);
	assert_trace("m e2 e4 m e3");
	assert_int_equal(idle_ev_calls, 1);
}

static void *waits_with_deadline(void *arg)
{
	struct timespec dl = deadline_in(2 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_wait_event(arg, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	TRACE("timeout at %llus", (unsigned long long)(vclock[0] / SEC));
	return NULL;
}

static void *waits_to_be_interrupted(void *arg)
{
	CHECK_EQ(sched_wait_event(arg, NULL, CLOCK_MONOTONIC), ECANCELED);
	TRACE("interrupted");
	return NULL;
}

TEST_MAIN(deadline_main)
{
	static int never;
	struct sched_thread *a = spawn(waits_with_deadline, &never);
	struct sched_thread *b = spawn(waits_to_be_interrupted, &never);
	sched_thread_yield();
	struct sched_thread_info info;
	sched_thread_info(b, &info);
	CHECK_EQ(info.wait_kind, SCHED_WAIT_EVENT);
	CHECK(info.wait_obj == &never);
	join(a); /* idle_events moves the clock to a's deadline */
	CHECK_EQ(sched_interrupt(b, ECANCELED), 0);
	join(b);
	struct timespec bad = {0, -1};
	CHECK_EQ(sched_wait_event(&never, &bad, CLOCK_MONOTONIC), EINVAL);
	return 0;
}

static void event_waits_end_by_deadline_or_interrupt(void **state)
{
	idle_ev_calls = questions = 0;
	assert_int_equal(run(deadline_main, &event_hooks), 0);
	assert_trace("timeout at 2s interrupted");
	assert_true(idle_ev_calls >= 1);
	assert_true(questions >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_wake_in_waiting_order_and_idle_waits_for_them),
		cmocka_unit_test(event_waits_end_by_deadline_or_interrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
