/*
 * hunt.c: the decisions of the hunting scheduler (--hunt) and of the count-based
 * chaos scheduler (--chaos): where to preempt, and the threads' priorities
 * (docs/replay.md, "Finding the bug"). After PCT (Burckhardt, Kothari, Musuvathi,
 * Nagarakatte, ASPLOS 2010): random priorities, d-1 change points that lower the
 * running thread's below every other's, plus preemptions around synchronization
 * calls and at the end of count slices.
 *
 * Pure: every answer is a function of the seed and of the questions asked so far (no
 * clock, no log), so the same seed and the same program give the same schedule, with
 * or without a log. The mechanics (loading counters, the breakpoint, the records)
 * are hunt_run.c's; the replay asks nothing here: the log holds every decision.
 */
#include "hunt.h"

#include <string.h>

static struct {
	bool on;
	bool pct;          /* --hunt (priorities, change points, synchronization) */
	uint64_t s[4];     /* xoshiro256** state */
	int depth;         /* d: d-1 change points */
	uint64_t change[RP_HUNT_MAX_DEPTH]; /* the steps where they fall, ascending */
	int nchange, next_change;
	uint64_t steps;    /* steps so far */
	unsigned sync_shift; /* a step preempts with probability 2^-sync_shift */
	uint64_t slice_scale; /* counts */
	unsigned slice_lo, slice_hi; /* chaos: log2 bounds of a slice */
} h;

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna); seeded by splitmix64, so any seed, 0 too, works. */
static uint64_t next(void)
{
	uint64_t r = rotl(h.s[1] * 5, 7) * 9, t = h.s[1] << 17;
	h.s[2] ^= h.s[0];
	h.s[3] ^= h.s[1];
	h.s[1] ^= h.s[2];
	h.s[0] ^= h.s[3];
	h.s[2] ^= t;
	h.s[3] = rotl(h.s[3], 45);
	return r;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the bias of a 64-bit modulo is negligible here). */
static uint64_t below(uint64_t n)
{
	return next() % n;
}

static bool one_in_pow2(unsigned shift)
{
	return shift == 0 || (next() & ((UINT64_C(1) << shift) - 1)) == 0;
}

void rp_hunt_init(const struct rp_hunt_params *p)
{
	memset(&h, 0, sizeof h);
	uint64_t x = p->seed;
	for (int i = 0; i < 4; i++)
		h.s[i] = splitmix(&x);
	h.on = true;
	h.pct = !p->chaos;
	if (p->chaos) {
		h.slice_lo = RP_CHAOS_SLICE_MIN_LOG2;
		h.slice_hi = RP_CHAOS_SLICE_MAX_LOG2;
		return;
	}
	/* What differs from seed to seed, beyond the draws themselves: how often a step
	 * preempts, how long slices are, how many steps the change points spread over. */
	h.sync_shift = (unsigned)below(6);                  /* 1 .. 1/32 */
	h.slice_scale = UINT64_C(1) << (6 + below(11));      /* 2^6 .. 2^16 counts */
	uint64_t k = UINT64_C(1) << (4 + below(11));         /* 2^4 .. 2^14 steps */
	h.depth = p->depth < 1 ? RP_HUNT_DEFAULT_DEPTH :
		  p->depth > RP_HUNT_MAX_DEPTH ? RP_HUNT_MAX_DEPTH : p->depth;
	h.nchange = h.depth - 1;
	for (int i = 0; i < h.nchange; i++) {
		uint64_t c = 1 + below(k);
		int j = i;
		while (j > 0 && h.change[j - 1] > c) { /* insertion: ascending */
			h.change[j] = h.change[j - 1];
			j--;
		}
		h.change[j] = c;
	}
}

bool rp_hunt_on(void)
{
	return h.on;
}

bool rp_hunt_pct(void)
{
	return h.on && h.pct;
}

int rp_hunt_priority(void)
{
	/* Above every change point's level (1 .. d-1); distinct with high probability
	 * (ties run FIFO, which is no harm). */
	return h.depth + 1 + (int)below(1u << 30);
}

uint64_t rp_hunt_slice(void)
{
	if (!h.pct) {
		/* chaos: log-uniform between 2^lo and 2^hi counts */
		unsigned e = h.slice_lo + (unsigned)below(h.slice_hi - h.slice_lo);
		uint64_t base = UINT64_C(1) << e;
		return base + below(base);
	}
	return 1 + below(2 * h.slice_scale);
}

struct rp_hunt_decision rp_hunt_step(enum rp_hunt_step where, bool wake_wanted)
{
	struct rp_hunt_decision d = {0};
	if (!h.on)
		return d;
	if (!h.pct) { /* chaos: slices only, preempted where they end */
		d.preempt = where == RP_HUNT_SLICE;
		return d;
	}
	h.steps++;
	if (h.next_change < h.nchange && h.steps >= h.change[h.next_change]) {
		/* a change point: lower than every thread's priority, and than the earlier
		 * change points' (PCT: d - i for the i-th) */
		h.next_change++;
		d.new_priority = h.depth - h.next_change;
		d.preempt = true;
	}
	if (where == RP_HUNT_SLICE || wake_wanted || one_in_pow2(h.sync_shift))
		d.preempt = true;
	/* Where: after a call or at a slice's end, one time in two a few instructions
	 * further, at a memory access (the caller knows whether there is one). */
	if (d.preempt && where != RP_HUNT_BEFORE)
		d.at_memop = (next() & 1) != 0;
	return d;
}

unsigned rp_hunt_choose(unsigned n)
{
	return n ? (unsigned)below(n) : 0;
}
