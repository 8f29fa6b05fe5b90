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
 * are count.c's; the replay asks nothing here: the log holds every decision.
 */
#include "engine/hunt/hunt.h"

#include <string.h>

static struct {
	bool on;
	bool pct;          /* --hunt (priorities, change points, synchronization) */
	bool strict;       /* priorities (PCT); else round robin, a preemption a turn */
	uint64_t s[4];     /* xoshiro256** state */
	int depth;         /* d: d-1 change points */
	uint64_t change[RP_HUNT_MAX_DEPTH]; /* the steps where they fall, ascending */
	int nchange, next_change;
	uint64_t steps;    /* steps so far */
	unsigned sync_shift;   /* a call site's first step demotes with probability 2^-shift */
	unsigned window_shift; /* a slice's end with a window ahead demotes: 2^-shift */
	unsigned start_shift;  /* a new thread's first turn ends at an access: 2^-shift */
	bool any_access;       /* decisions land at any shared access, not only windows */
	int strategy;          /* the seed's (RP_HUNT_WINDOWS ...) */
	bool quick;            /* a switch at every slice's end, nothing else */
	bool bounded;          /* change points (and fairness) alone: pct, delays */
	unsigned slice_log2;   /* slices are log-uniform up to 2^slice_log2 counts */
	uint64_t fair;         /* counts a thread runs before a demotion lets the others */
	unsigned slice_lo, slice_hi; /* chaos: log2 bounds of a slice */
	unsigned quick_slices; /* quick: slices drawn so far, up to RP_QUICK_EARLY_SLICES */
	bool fine;             /* a thread's first 2^13 counts in fine slices (rp_hunt_slice) */
	unsigned turn_min_log2; /* fair_now's least turn while a demoted thread waits */
	int demoted;           /* the last priority a demotion gave (-1, -2 ...) */
	int cooldown;          /* the thread demoted last, until it runs again (0: none) */
	uint64_t cooldown_ran; /* counts it ran in the turn that ended so */
	uint64_t site_salt;    /* the seed's draw of each call site's visit and probability */
	bool use_sites;        /* windows, accesses: call sites preempt (rp_hunt_site_visit) */
	bool sync_counts;      /* synchronization steps count toward the change points */
	uint32_t *quiet;       /* the fast path's steps to pass (rp_hunt_params.sync_quiet) */
	uint32_t quiet_given;  /* ... as last set: the steps it passed are the difference */
	uint32_t *sites;       /* each slot's visits to pass (rp_hunt_params.sync_sites) */
	uint32_t site_next[RP_HUNT_SITES];  /* each slot's next preempting visit */
	uint16_t site_at[RP_HUNT_SITES];    /* ... its visit that preempts for sure */
	uint8_t site_level[RP_HUNT_SITES];  /* ... and one in 2^level of the others */
	uint32_t place_visits[RP_HUNT_PLACES]; /* preemptions placed at each place (hashed) */
	uint64_t exit_draw;    /* main's return: the others' turn or not (rp_hunt_exit_turn) */
	uint64_t sleeper_x;    /* rp_hunt_sleeper_turn's own stream (splitmix) */
	unsigned sleeper_shift; /* ... its rate, 2^-shift, for the first 16 */
	uint64_t sleeper_asks; /* ... asked so far */
	bool exiting;          /* main's exit turn was taken (rp_hunt_exit_turn) */
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

/* The d-1 change points: steps among the first K, K a power of two from 2^3 to
 * 2^max_log2, drawn. */
static void draw_changes(unsigned max_log2)
{
	uint64_t k = UINT64_C(1) << (3 + below(max_log2 - 2));
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

/* A seed's strategy, when --hunt-strategy gives none: each finds bugs the others miss
 * (bench/hunt.sh part 4), so a campaign runs them all, seed by seed, in these shares
 * (of 8). */
static int draw_strategy(void)
{
	static const int share[8] = {RP_HUNT_WINDOWS, RP_HUNT_WINDOWS, RP_HUNT_ACCESSES,
				     RP_HUNT_ACCESSES, RP_HUNT_PCT, RP_HUNT_QUICK, RP_HUNT_QUICK,
				     RP_HUNT_DELAYS};
	return share[below(8)];
}

/* The synchronization steps the fast path passed since it was last set are taken as
 * steps here (each eligible, none a change point: the fast path stops before one). */
static void sync_flush(void)
{
	uint32_t passed = h.quiet_given - *h.quiet;
	h.quiet_given = *h.quiet;
	if (h.sync_counts)
		h.steps += passed;
}

/* The eligible steps that may pass before the next change point's. */
static void sync_arm(void)
{
	uint32_t q = UINT32_MAX;
	if (h.sync_counts && h.next_change < h.nchange) {
		uint64_t c = h.change[h.next_change];
		if (c <= h.steps + 1)
			q = 0; /* the next step is its */
		else if (c - h.steps - 1 < UINT32_MAX)
			q = (uint32_t)(c - h.steps - 1);
	}
	*h.quiet = h.quiet_given = q;
}

void rp_hunt_sync_ask(void)
{
	sync_flush();
	*h.quiet = h.quiet_given = 0;
}

/* A call site slot's first preempting visit from visit `from` on: its visit drawn for
 * sure (site_at: the first, or any up to the 1024th, as a window may open at one late
 * iteration of a loop), or one drawn at a rate of 1 in 2^level, level 2 .. 5 for its
 * first 2^10 visits and one more each time the visits double after that, so a site
 * preempts 2^(9-level) times per doubling (128 .. 16): a number that grows with the
 * logarithm of its visits, and a hot lock loop costs little. The gaps are uniform, of
 * mean 2^level. */
static uint32_t site_next_hit(unsigned i, uint32_t from)
{
	unsigned level = h.site_level[i];
	if (from >> RP_HUNT_SITE_VISITS_LOG2)
		level += (unsigned)(31 - __builtin_clz(from)) - (RP_HUNT_SITE_VISITS_LOG2 - 1);
	uint64_t hit = from + below((UINT64_C(2) << level) - 1);
	if (h.site_at[i] >= from && h.site_at[i] < hit)
		hit = h.site_at[i];
	return hit < UINT32_MAX ? (uint32_t)hit : UINT32_MAX - 1;
}

static void sites_init(void)
{
	for (unsigned i = 0; i < RP_HUNT_SITES; i++) {
		h.sites[i] = UINT32_MAX;
		if (!h.use_sites)
			continue;
		uint64_t x = h.site_salt ^ i;
		uint64_t r = splitmix(&x);
		unsigned e = (unsigned)(r % (RP_HUNT_SITE_VISITS_LOG2 + 1));
		h.site_at[i] = (uint16_t)((r >> 8) & ((UINT64_C(1) << e) - 1));
		h.site_level[i] = (uint8_t)(2 + (r >> 40) % (RP_HUNT_SITE_LEVELS - 1));
		h.site_next[i] = site_next_hit(i, 0);
		h.sites[i] = h.site_next[i]; /* the visits before it */
	}
}

bool rp_hunt_site_visit(unsigned slot)
{
	uint32_t *left = &h.sites[slot % RP_HUNT_SITES];
	if (!h.use_sites) {
		*left = UINT32_MAX;
		return false;
	}
	if (*left) {
		(*left)--;
		return false;
	}
	uint32_t v = h.site_next[slot % RP_HUNT_SITES];
	h.site_next[slot % RP_HUNT_SITES] = site_next_hit(slot % RP_HUNT_SITES, v + 1);
	*left = h.site_next[slot % RP_HUNT_SITES] - (v + 1);
	return true;
}

void rp_hunt_init(const struct rp_hunt_params *p)
{
	static uint32_t own_quiet, own_sites[RP_HUNT_SITES];
	memset(&h, 0, sizeof h);
	h.quiet = p->sync_quiet ? p->sync_quiet : &own_quiet;
	h.sites = p->sync_sites ? p->sync_sites : own_sites;
	*h.quiet = h.quiet_given = UINT32_MAX;
	for (unsigned i = 0; i < RP_HUNT_SITES; i++)
		h.sites[i] = UINT32_MAX;
	uint64_t x = p->seed;
	for (int i = 0; i < 4; i++)
		h.s[i] = splitmix(&x);
	h.on = true;
	h.pct = !p->chaos;
	/* Drawn from the seed aside, not from the stream every other draw takes, so a run
	 * in which main never returns with threads runnable keeps its schedule. */
	x = p->seed ^ UINT64_C(0x6d61696e65786974);
	h.exit_draw = splitmix(&x);
	h.sleeper_x = p->seed ^ UINT64_C(0x736c656570657273);
	h.sleeper_shift = (unsigned)(splitmix(&h.sleeper_x) & 1);
	/* Others' least turn while a thread demoted at a window waits (fair_now): drawn
	 * aside too, so a run with no such wait keeps its schedule. */
	x = p->seed ^ UINT64_C(0x7475726e6d696e21);
	h.turn_min_log2 = RP_HUNT_TURN_MIN_LO_LOG2 +
			  (unsigned)(splitmix(&x) % (RP_HUNT_TURN_MIN_HI_LOG2 - RP_HUNT_TURN_MIN_LO_LOG2 + 1));
	if (p->chaos) {
		h.slice_lo = RP_CHAOS_SLICE_MIN_LOG2;
		h.slice_hi = RP_CHAOS_SLICE_MAX_LOG2;
		return;
	}
	/* What differs from seed to seed, beyond the draws themselves: how often a call
	 * site or a window demotes, how long slices are, how long a thread may run while
	 * others wait, how many steps the change points spread over. */
	h.strict = below(2);
	h.site_salt = next();
	h.sync_shift = (unsigned)below(4);                  /* 1 .. 1/8 */
	h.window_shift = (unsigned)below(3);                /* 1 .. 1/4 */
	h.slice_log2 = 8 + (unsigned)below(9);               /* slices up to 2^8 .. 2^16 */
	h.fair = UINT64_C(1) << (12 + below(9));             /* 2^12 .. 2^20 counts */
	/* Without --hunt-depth, each seed its own d (1 .. 5), as iterative-deepening PCT. */
	h.depth = p->depth < 1 ? 1 + (int)below(5) :
		  p->depth > RP_HUNT_MAX_DEPTH ? RP_HUNT_MAX_DEPTH : p->depth;
	draw_changes(14);
	h.start_shift = (unsigned)below(3); /* a new thread's first turn: 1 .. 1/4 */
	h.strategy = p->strategy > RP_HUNT_DRAWN && p->strategy < RP_HUNT_STRATEGIES ?
		     p->strategy : draw_strategy();
	switch (h.strategy) {
	case RP_HUNT_WINDOWS: /* the above: decisions at windows (repeated, atomic accesses) */
		break;
	case RP_HUNT_ACCESSES: /* ... at any shared access ahead: a = 1; b = -1; split */
		h.any_access = true;
		break;
	case RP_HUNT_PCT:
		/* PCT as published: priorities, d-1 change points among the steps (d 1 .. 3),
		 * each landing at a shared access ahead; no other demotion but fairness's. */
		h.strict = h.any_access = h.bounded = true;
		h.depth = p->depth < 1 ? 1 + (int)below(3) : h.depth;
		draw_changes(RP_BOUNDED_STEPS_MAX_LOG2);
		break;
	case RP_HUNT_QUICK:
		/* Frequent random switches (what a 50 us time slice finds): round robin, a
		 * switch at every slice's end, slices 2^8 .. 2^14 counts, one time in two
		 * at a shared access ahead. A window that recurs thousands of times is hit. */
		h.strict = false;
		h.quick = h.any_access = true;
		h.slice_lo = RP_QUICK_SLICE_MIN_LOG2;
		h.slice_hi = RP_QUICK_SLICE_MAX_LOG2;
		break;
	case RP_HUNT_DELAYS:
		/* Delay bounding (Emmi, Qadeer, Lal, POPL 2011): round robin, each thread runs
		 * until it blocks (or, for fairness, 2^14 .. 2^20 counts); d-1 delays (d 1 .. 3)
		 * among the steps, each the next thread's turn, at a shared access ahead. */
		h.strict = false;
		h.any_access = h.bounded = true;
		h.depth = p->depth < 1 ? 1 + (int)below(3) : h.depth;
		h.fair = UINT64_C(1) << (14 + below(7));
		draw_changes(RP_BOUNDED_STEPS_MAX_LOG2);
		break;
	}
	h.use_sites = h.strategy == RP_HUNT_WINDOWS || h.strategy == RP_HUNT_ACCESSES;
	/* Fine slices at each thread's beginning: windows, accesses (pct and delays bound
	 * their steps, quick has its own early slices: theirs stay as they were). */
	h.fine = h.use_sites;
	h.sync_counts = h.strict || h.bounded; /* (rp_hunt_step's steps++) */
	sites_init();
	sync_arm();
}

/* Is count `at` of a thread among its first 2^13, its beginning (fine slices, and
 * decisions taken where a slice ended: rp_hunt_decide_here)? */
static bool beginning(uint64_t at)
{
	return at < (UINT64_C(1) << RP_HUNT_FINE_COUNTS_LOG2);
}

bool rp_hunt_on(void)
{
	return h.on;
}

bool rp_hunt_pct(void)
{
	return h.on && h.pct;
}

bool rp_hunt_strict(void)
{
	return h.on && h.pct && h.strict;
}

int rp_hunt_priority(int creator)
{
	if (!h.strict)
		return 0;
	/* Above every change point's level (1 .. d-1); distinct with high probability
	 * (ties run FIFO, which is no harm). */
	int lo = h.depth + 1, span = 1 << 30;
	int p = lo + (int)below((uint64_t)span);
	/* Order violations live at thread creation (the new thread reads what its creator
	 * sets up after starting it): a new thread outranks its creator, so it runs as
	 * soon as the create returns, in 3 creations of 4, not 1 of 2. */
	if (p < creator && creator < lo + span - 1 && (next() & 1))
		p = creator + 1 + (int)below((uint64_t)(lo + span - 1 - creator));
	return p;
}

uint64_t rp_hunt_slice(uint64_t at)
{
	if (h.fine && beginning(at)) {
		/* A thread's beginning, where a short program lives whole: a slice from count
		 * `at` is log-uniform from 1 count up to 4 to 8 times at (at least 2^6, at
		 * most the seed's longest), so a check and the act it guards a few counts
		 * apart, in code that makes no synchronization call (atomics alone), are
		 * split about as often wherever in the thread's first counts they lie: the
		 * counting points there are nearly steps, as every shared access is one of
		 * PCT's. */
		unsigned top = at ? 64 - (unsigned)__builtin_clzll(at) + 1 : 1;
		if (top < RP_HUNT_FINE_MAX_LOG2)
			top = RP_HUNT_FINE_MAX_LOG2;
		if (top > h.slice_log2)
			top = h.slice_log2;
		unsigned e = (unsigned)below(top + 1);
		uint64_t base = UINT64_C(1) << e;
		return base + below(base);
	}
	if (!h.pct || h.quick) {
		/* chaos: log-uniform between 2^lo and 2^hi counts; quick: from 2^2 for the
		 * run's first slices, where a short program lives whole */
		unsigned lo = h.slice_lo;
		if (h.quick && h.quick_slices < RP_QUICK_EARLY_SLICES) {
			h.quick_slices++;
			lo = RP_QUICK_EARLY_MIN_LOG2;
		}
		unsigned e = lo + (unsigned)below(h.slice_hi - lo);
		uint64_t base = UINT64_C(1) << e;
		return base + below(base);
	}
	/* log-uniform up to the seed's scale: every run samples short and long ones */
	unsigned e = RP_HUNT_SLICE_MIN_LOG2 + (unsigned)below(h.slice_log2 - RP_HUNT_SLICE_MIN_LOG2 + 1);
	uint64_t base = UINT64_C(1) << e;
	return base + below(base);
}

void rp_hunt_resumed(int tid)
{
	if (h.cooldown == tid)
		h.cooldown = 0;
}

/* A demotion below every other thread; at a window or a call site (cooldown), the
 * others then run until they block with no demotion breaking in, so the window spans
 * all they do. */
static void demote(struct rp_hunt_decision *d, int tid, int prio, bool cooldown, uint64_t ran)
{
	d->preempt = true;
	d->new_priority = prio;
	if (cooldown) {
		h.cooldown = tid;
		h.cooldown_ran = ran;
	}
}

/* The counts a thread may run before fairness demotes it. While a thread demoted at a
 * window or call site waits for its turn, the others' turns are at most 2^2 times the
 * turn it had, not the seed's 2^12 .. 2^20: a thread that works meets windows and is
 * demoted at one after a slice, a spinning thread meets none and ran to its fairness
 * point, so the worker got one slice a round and the spinners 2^20 counts each (a
 * work-stealing loop waiting on a counter only the worker lowers, as SPLASH-2
 * VOLREND's, ran 150x to 1,000x longer than natively, past 20 s). At least 2^4 to 2^12
 * counts, as the seed drew: with 2^12 alone, a short thread ran whole while the one
 * demoted in its window waited, and a bug that needs the demoted thread back while
 * the other is still inside its work was missed (SCTBench's State harness: a thread
 * stopped between its check of a shared vector's size and its resize must shrink it
 * while the other still uses its own slot). */
static uint64_t fair_now(void)
{
	if (!h.cooldown)
		return h.fair;
	uint64_t f = h.cooldown_ran << RP_HUNT_TURN_RATIO_LOG2;
	if (f < (UINT64_C(1) << h.turn_min_log2))
		f = UINT64_C(1) << h.turn_min_log2;
	return f < h.fair ? f : h.fair;
}

/* A slice's end while the thread demoted last waits for its turn (a cooldown), with
 * no change point, wake-up or fairness due: it would find nothing (no demotion breaks
 * in), and so would the running thread's next slices' ends, as long as it runs on,
 * until the next change point's step or its fairness point. They are taken here at
 * once, as steps, and the counts until the first that may find something returned,
 * at most 2^16 on (0: ask there). A spin program's threads ran a million such slices
 * a second, each an overflow that saves the vector state, a seek and a trap. */
static uint64_t quiet_of(bool wake_wanted, uint64_t ran, uint64_t at)
{
	uint64_t fair = fair_now();
	if (!h.on || !h.pct || !h.strict || !h.cooldown || wake_wanted || ran >= fair)
		return 0;
	if (h.next_change < h.nchange && h.steps + 1 >= h.change[h.next_change])
		return 0; /* this step is a change point */
	uint64_t cap = UINT64_C(1) << RP_HUNT_QUIET_MAX_LOG2;
	if (fair - ran < cap)
		cap = fair - ran;
	h.steps++;
	uint64_t q = rp_hunt_slice(at);
	while (q < cap && (h.next_change >= h.nchange || h.steps + 1 < h.change[h.next_change])) {
		h.steps++;
		q += rp_hunt_slice(at + q);
	}
	return q;
}

uint64_t rp_hunt_quiet(bool wake_wanted, uint64_t ran, uint64_t at)
{
	sync_flush();
	uint64_t q = quiet_of(wake_wanted, ran, at);
	sync_arm();
	return q;
}

static bool window_of(const struct rp_hunt_question *q)
{
	return q->ahead ? q->ahead(q->ahead_arg) : q->window;
}

static struct rp_hunt_decision step_of(const struct rp_hunt_question *q)
{
	struct rp_hunt_decision d = {0};
	if (!h.on)
		return d;
	if (!h.pct || h.quick) { /* chaos, quick: slices only, round robin; where they
				  * end, or at an access ahead (a window, for chaos) */
		d.preempt = q->where == RP_HUNT_SLICE;
		d.at_memop = d.preempt && window_of(q) && (next() & 1);
		return d;
	}
	if (h.bounded && !h.strict) {
		/* delays: the change points, and fairness for spinning threads, alone; each
		 * the next thread's turn */
		h.steps++;
		if (h.next_change < h.nchange && h.steps >= h.change[h.next_change]) {
			h.next_change++;
			d.preempt = true;
		} else {
			d.preempt = q->where == RP_HUNT_SLICE && q->ran >= h.fair;
		}
		d.at_memop = d.preempt && window_of(q) && (q->where == RP_HUNT_SLICE || (next() & 1));
		return d;
	}
	if (!h.strict) {
		/* Round robin: a preemption gives the next thread a turn, until its own. A
		 * new thread gets its turn right after its creation one time in two (as a
		 * priority above its creator's does, rp_hunt_priority). */
		d.preempt = q->where == RP_HUNT_SLICE || q->site_hit;
		if (!d.preempt && q->created)
			d.preempt = next() & 1;
		d.at_memop = d.preempt && window_of(q) && (next() & 1);
		return d;
	}
	/* A fine slice's end (a thread's first counts, cut small) is a place to demote
	 * at a window, not a step toward the change points: they keep where they fell. */
	bool counted = !(h.fine && q->where == RP_HUNT_SLICE && beginning(q->at));
	h.steps += counted;
	if (counted && h.next_change < h.nchange && h.steps >= h.change[h.next_change]) {
		/* a change point: PCT gives the i-th priority d - i, below every thread's */
		h.next_change++;
		demote(&d, q->tid, h.depth - h.next_change, false, q->ran);
	} else if (q->wake_wanted) {
		d.preempt = true; /* a thread that outranks it runs first, at once */
		return d;
	} else if (q->where == RP_HUNT_SLICE && q->ran >= fair_now()) {
		demote(&d, q->tid, --h.demoted, false, q->ran); /* fairness: it ran long, the others wait */
		return d;
	} else if (h.cooldown || h.bounded) {
		/* The thread demoted last has not run since: the others run on until they
		 * block, so its window spans all they do (no demotion breaks in). (pct:
		 * change points and fairness alone.) */
		return d;
	} else if (q->where == RP_HUNT_SLICE ? window_of(q) && one_in_pow2(h.window_shift)
					       : q->site_hit) {
		demote(&d, q->tid, --h.demoted, true, q->ran);
	}
	/* Where: at a slice's end, in the window ahead; after a call, one time in two in
	 * the window after it, else right after the call returns. */
	if (d.preempt && window_of(q) && (q->where == RP_HUNT_SLICE || (next() & 1)))
		d.at_memop = true;
	return d;
}

struct rp_hunt_decision rp_hunt_step(const struct rp_hunt_question *q)
{
	sync_flush();
	struct rp_hunt_decision d = step_of(q);
	sync_arm();
	return d;
}

bool rp_hunt_take_window(void)
{
	return next() & 1;
}

/* A slice's end looks on for its place (count.c's seek: a window a few counting points
 * on, or where its loop ends), which suits a slice that ended inside a loop. Among a
 * thread's first counts, where the fine slices (and quick's early ones) cut code that
 * runs once, looking on carried the decision far past the few counts where the slice
 * ended (a vector's resize: from count 20 to 276, past a check and the act it guards);
 * there, outside a loop, one time in two the decision is taken where the slice ended. */
bool rp_hunt_decide_here(uint64_t at)
{
	return (h.fine || h.quick) && beginning(at) && (next() & 1);
}

/* A preemption placed with care costs: a trap of the breakpoint ~20 us, a seek up to
 * 512 overflows; at the same place again and again it finds little new. Each place
 * (hashed) gets the care its first 2^10 times, then at its 2^k-th time one in
 * 2^(k-5), 32 per doubling, a number that grows with the logarithm of its visits; the
 * other times the preemption comes at a counting point, for the price of a switch. */
bool rp_hunt_place_worth(uintptr_t pc)
{
	uint64_t x = h.site_salt ^ pc;
	uint32_t *visits = &h.place_visits[(splitmix(&x) >> 20) % RP_HUNT_PLACES];
	uint32_t v = *visits;
	if (v < UINT32_MAX)
		(*visits)++;
	if (!(v >> RP_HUNT_PLACE_VISITS_LOG2))
		return true;
	return one_in_pow2((unsigned)(31 - __builtin_clz(v)) - RP_HUNT_PLACE_DOUBLING_LOG2);
}

bool rp_hunt_thread_start(void)
{
	return h.on && h.pct && one_in_pow2(h.start_shift);
}

/* Not quick's (its synchronization hooks do not call), nor pct's (PCT as published: its
 * change points alone). */
bool rp_hunt_thread_first_call(void)
{
	return h.on && h.pct && !h.quick && h.strategy != RP_HUNT_PCT;
}

bool rp_hunt_first_call_end(int tid, int *prio)
{
	*prio = 0;
	if (h.exiting)
		return false; /* below main, it would end the process there */
	if (h.strict) { /* below every other thread (its step was counted already) */
		struct rp_hunt_decision d = {0};
		demote(&d, tid, --h.demoted, true, 0);
		*prio = d.new_priority;
	}
	return true;
}

int rp_hunt_start_demote(int tid)
{
	struct rp_hunt_decision d = {0};
	if (!h.strict)
		return 0; /* round robin: the next thread's turn */
	sync_flush();
	h.steps++;
	sync_arm();
	demote(&d, tid, --h.demoted, true, 0);
	return d.new_priority;
}

bool rp_hunt_any_access(void)
{
	return h.on && h.pct && h.any_access;
}

bool rp_hunt_sync_steps(void)
{
	if (!h.on || !h.pct || h.quick)
		return false; /* rp_hunt_step: a preemption only at a slice's end */
	/* delays: nothing but its change points (fairness is a slice's) */
	return !(h.bounded && !h.strict && h.next_change >= h.nchange);
}

/* One run in two: the others run before the process ends (priorities: main below every
 * thread, so they run until they block or a demotion lets main end it; round robin:
 * each its turn, then main's); else it ends at once, as when main is the last to run. */
bool rp_hunt_exit_turn(int *prio)
{
	*prio = 0;
	if (!h.on || !h.pct || !(h.exit_draw & 1))
		return false;
	if (h.strict)
		*prio = --h.demoted;
	h.exiting = true;
	return true;
}

bool rp_hunt_sleeper_turn(void)
{
	if (!h.on || !h.pct)
		return false;
	uint64_t v = h.sleeper_asks++;
	unsigned shift = h.sleeper_shift;
	if (v >> 4)
		shift += (unsigned)(63 - __builtin_clzll(v)) - 3;
	return shift < 64 && (splitmix(&h.sleeper_x) & ((UINT64_C(1) << shift) - 1)) == 0;
}

unsigned rp_hunt_choose(unsigned n)
{
	return n ? (unsigned)below(n) : 0;
}

int rp_hunt_strategy(void)
{
	return h.strategy;
}
