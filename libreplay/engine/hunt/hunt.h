/* hunt.h: the hunting scheduler's decisions (hunt.c), a function of the seed alone. */
#ifndef RP_HUNT_H
#define RP_HUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/session.h" /* RP_HUNT_MAX_DEPTH */

#define RP_HUNT_SLICE_MIN_LOG2 6 /* slices of at least 2^6 counts */
#define RP_HUNT_SITE_LEVELS 5 /* a call site preempts with probability 2^-2 .. 2^-5 */
#define RP_HUNT_SITE_VISITS_LOG2 10 /* ... and at one visit up to the 2^10th */
#define RP_HUNT_QUIET_MAX_LOG2 16 /* a quiet stretch is at most 2^16 counts */
/* While a thread demoted at a window waits, the others' turns are at most 2^2 times its
 * own, and at least 2^4 .. 2^12 counts: the seed draws the bound (rp_hunt_init). */
#define RP_HUNT_TURN_RATIO_LOG2 2
#define RP_HUNT_TURN_MIN_LO_LOG2 4
#define RP_HUNT_TURN_MIN_HI_LOG2 12
#define RP_HUNT_SITES 1024    /* call sites told apart (hashed) */
#define RP_HUNT_PLACES 1024   /* places of preemptions told apart (hashed) */
#define RP_HUNT_PLACE_VISITS_LOG2 10 /* a place's first 2^10 placed with care ... */
#define RP_HUNT_PLACE_DOUBLING_LOG2 5 /* ... then 2^5 per doubling of its visits */
/* --chaos: slices log-uniform between these powers of two, in counts. */
#define RP_CHAOS_SLICE_MIN_LOG2 10
#define RP_CHAOS_SLICE_MAX_LOG2 20
/* --hunt's quick strategy: a switch at every slice's end, slices 2^8 .. 2^14 counts;
 * a run's first 2^6 slices 2^2 .. 2^14 (a program of a few thousand counts, a
 * check and the read it guards a few counts apart, is switched inside). */
#define RP_QUICK_SLICE_MIN_LOG2 8
#define RP_QUICK_SLICE_MAX_LOG2 14
#define RP_QUICK_EARLY_MIN_LOG2 2
#define RP_QUICK_EARLY_SLICES 64
/* windows, accesses: each thread's first 2^13 counts in fine slices, a slice from
 * count c log-uniform from 1 up to 4c to 8c counts, at least to 2^(5+1) (a short
 * program lives whole there: a check and the act it guards, a few counts apart in code
 * of atomics alone, are split); there, and in quick, a slice's end outside a loop may
 * be decided where it ended (rp_hunt_decide_here). */
#define RP_HUNT_FINE_COUNTS_LOG2 13
#define RP_HUNT_FINE_MAX_LOG2 5
/* pct and delays: their d-1 change points among the first 2^3 .. 2^10 steps. */
#define RP_BOUNDED_STEPS_MAX_LOG2 10

struct rp_hunt_params {
	uint64_t seed;
	int depth; /* 0: the default */
	bool chaos; /* count slices alone: FIFO, no priorities, no synchronization steps */
	int strategy; /* --hunt: RP_HUNT_DRAWN (each seed draws one), RP_HUNT_WINDOWS ... */
	/* The synchronization hooks' fast path (engine.h, rp_sync_begin), count.c's: the
	 * eligible steps that may pass unasked before the next change point (*sync_quiet),
	 * and each call site slot's visits before its next preemption (sync_sites, of
	 * RP_HUNT_SITES). NULL (replay-hunt's draw of a strategy): hunt.c's own. */
	uint32_t *sync_quiet, *sync_sites;
};

void rp_hunt_init(const struct rp_hunt_params *p);
bool rp_hunt_on(void);
bool rp_hunt_pct(void); /* priorities and synchronization steps (--hunt, not --chaos) */
bool rp_hunt_strict(void); /* ... the threads' priorities decide (else round robin) */

/* A new thread's priority (--hunt), given its creator's. */
int rp_hunt_priority(int creator);
/* Counts until the running thread's slice ends; at: its count where the slice starts. */
uint64_t rp_hunt_slice(uint64_t at);

/* A step: a synchronization call is about to act (BEFORE) or has acted (AFTER), or a
 * slice ended (SLICE), in thread tid. */
enum rp_hunt_step { RP_HUNT_BEFORE, RP_HUNT_AFTER, RP_HUNT_SLICE };
struct rp_hunt_question {
	enum rp_hunt_step where;
	int tid;
	bool site_hit;    /* BEFORE, AFTER: the call site's visit preempts (rp_hunt_site_visit) */
	bool wake_wanted; /* a thread of higher priority is runnable */
	bool window;      /* a repeated or atomic memory access lies just ahead */
	uint64_t ran;     /* counts the thread ran since it was switched in */
	bool created;     /* AFTER: the call created a thread */
	/* If set, window is not given: ahead(ahead_arg) tells it, asked only where a
	 * decision needs it (a preemption decided), so a hot call site that decides
	 * nothing does not look for places ahead. */
	bool (*ahead)(void *ahead_arg);
	void *ahead_arg;
	uint64_t at;      /* SLICE: the thread's count (in its first 2^13: a fine slice's
			   * end, no step toward the change points) */
};
struct rp_hunt_decision {
	bool preempt;     /* preempt the running thread */
	bool at_memop;    /* ... at the memory access ahead (else: here, or right after
			   * the call) */
	int new_priority; /* its new priority (0: unchanged) */
};
struct rp_hunt_decision rp_hunt_step(const struct rp_hunt_question *q);
/* An eligible synchronization step at call site slot `slot` (engine.h's rp_sync_slot)
 * that the fast path did not take: its visit, true if this visit is one the site
 * preempts at (a visit drawn from the seed, and then one in 2^level, fewer as the
 * visits double: the gaps between them are drawn when one is reached, so the visits
 * in between pass in the fast path without asking). */
bool rp_hunt_site_visit(unsigned slot);
/* The next synchronization step is to be asked (a thread was created: its creator's
 * step after the call is told so), not passed in the fast path. */
void rp_hunt_sync_ask(void);
/* Thread tid runs again (a demoted thread's turn ends the others' run). */
void rp_hunt_resumed(int tid);
/* The running thread's slice ended (ran: counts since it was switched in): if nothing
 * can be decided there nor at its next few slices' ends, the counts to the one after
 * them (else 0: look for a place, then ask rp_hunt_step). */
uint64_t rp_hunt_quiet(bool wake_wanted, uint64_t ran, uint64_t at);
/* A slice's end found a window ahead: take it (or look on)? */
bool rp_hunt_take_window(void);
/* A slice ended at count `at` of its thread, outside any loop: decided right there,
 * without looking on for a place? */
bool rp_hunt_decide_here(uint64_t at);
/* A preemption to be placed with care at pc (its offset in its object, rp_sic_pc_key:
 * by the breakpoint at a memory access or where a loop ends, or by a seek from where a
 * slice ended): worth it still, or (false) taken at a counting point as it comes? */
bool rp_hunt_place_worth(uintptr_t pc);
/* A thread is created (--hunt): does its first turn end at one of the shared memory
 * accesses its start function begins with (a switch between two plain stores, `a = 1;
 * b = -1;`, where there is no counting point and no window)? */
bool rp_hunt_thread_start(void);
/* ... if not (none drawn, or none found), does it end right after its first
 * synchronization call returns (a worker's first lock, the check of its work under it
 * still to come: the others run till they need that lock, and the check sees what they
 * did since the creation)? Every such thread, in the strategies whose synchronization
 * hooks call but pct. */
bool rp_hunt_thread_first_call(void);
/* ... it reached the access, others are runnable: its demotion's priority. */
int rp_hunt_start_demote(int tid);
/* ... it returned from its first call, others are runnable, and the step there decided
 * nothing: true to end its turn there, *prio its new priority (0: round robin's next
 * turn). Not once main's exit turn was taken: below main, it would end the process. */
bool rp_hunt_first_call_end(int tid, int *prio);
/* Does this seed place its decisions at any shared memory access ahead (sic_memops,
 * up to the function's return and past it into the caller), not only at windows? */
bool rp_hunt_any_access(void);
/* The main thread returned from main while other threads are runnable (--hunt): do
 * they run before the process ends, as an OS may run them between main's return and
 * the exit? True for a turn, *prio its new priority (below every thread's; 0 under
 * round robin: the next thread's turn). */
bool rp_hunt_exit_turn(int *prio);
/* A preemption decided at a synchronization step (or a new thread's first access) while
 * a thread whose turn comes first sleeps (its deadline soon: under priorities, one of
 * higher priority than the thread to run next; under round robin, any, the preempted
 * thread alone): does time pass until it runs? At the seed's rate (1 or 1/2) for a
 * run's first 16 such preemptions, then fewer as they double (8 per doubling): a
 * program that sleeps often pays for a number that grows with the logarithm of its
 * preemptions. Drawn aside, so runs without one keep their schedule. */
bool rp_hunt_sleeper_turn(void);
/* The seed's strategy (RP_HUNT_WINDOWS ...; what --hunt-strategy gave, or the draw):
 * also replay-hunt's, for its JSON lines (tools/hunt/strategy.c). */
int rp_hunt_strategy(void);
/* May a synchronization step (BEFORE, AFTER) still decide anything in this run? Not
 * in quick (slices alone), nor in delays once its change points are past: the
 * synchronization hooks then stop calling. */
bool rp_hunt_sync_steps(void);
/* One of n candidates (memory accesses), uniformly. */
unsigned rp_hunt_choose(unsigned n);

#endif
