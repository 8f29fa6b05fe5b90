/* sched_state.c: the scheduler's one global state. */
#include "sched_impl.h"

unsigned long sched_runnable_gen;

/* The host (id 0) is current until sched_run_main switches to thread 1. */
struct sched_globals sched_g = {
	.cur = &sched_g.host,
	.host = { .state = SCHED_RUNNING, .tm_slot = -1 },
	.hooks = {
		.now_ns = sched_default_now_ns,
		.timeout_expired = sched_default_timeout_expired,
		.idle = sched_default_idle,
		.deadlock = sched_default_deadlock,
		.event_ready = sched_default_event_ready,
		.idle_events = sched_default_idle_events,
	},
	.next_id = 1,
};
