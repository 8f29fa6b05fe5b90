/* hunt.h: the hunting scheduler's decisions (hunt.c), a function of the seed alone. */
#ifndef RP_HUNT_H
#define RP_HUNT_H

#include <stdbool.h>
#include <stdint.h>

#define RP_HUNT_DEFAULT_DEPTH 3 /* PCT's d: d-1 change points */
#define RP_HUNT_MAX_DEPTH 16
/* --chaos: slices log-uniform between these powers of two, in counts. */
#define RP_CHAOS_SLICE_MIN_LOG2 10
#define RP_CHAOS_SLICE_MAX_LOG2 20

struct rp_hunt_params {
	uint64_t seed;
	int depth; /* 0: the default */
	bool chaos; /* count slices alone: FIFO, no priorities, no synchronization steps */
};

void rp_hunt_init(const struct rp_hunt_params *p);
bool rp_hunt_on(void);
bool rp_hunt_pct(void); /* priorities and synchronization steps (--hunt, not --chaos) */

/* A new thread's priority (--hunt). */
int rp_hunt_priority(void);
/* Counts until the running thread's slice ends. */
uint64_t rp_hunt_slice(void);

/* A step: a synchronization call is about to act (BEFORE) or has acted (AFTER), or a
 * slice ended (SLICE). wake_wanted: a thread of higher priority is runnable. */
enum rp_hunt_step { RP_HUNT_BEFORE, RP_HUNT_AFTER, RP_HUNT_SLICE };
struct rp_hunt_decision {
	bool preempt;     /* preempt the running thread here */
	bool at_memop;    /* ... rather at a memory access a few instructions on */
	int new_priority; /* a change point: its new priority (0: unchanged) */
};
struct rp_hunt_decision rp_hunt_step(enum rp_hunt_step where, bool wake_wanted);
/* One of n candidates (memory accesses), uniformly. */
unsigned rp_hunt_choose(unsigned n);

#endif
