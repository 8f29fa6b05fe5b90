/*
 * safestack_model.c: SCTBench's safestack bug1 (benchmarks/safestack/SafeStack.cpp),
 * modelled at its shared accesses, to tell how far out of reach of random schedulers
 * the bug is (bench/README.md, "safestack bug1").
 *
 * Three threads each pop a node (retrying while Pop gives -1), store their index in
 * its Value, assert it reads back, and push the node, twice. Every atomic operation
 * (count's load and updates, head's load and compare-exchange, a node's Next exchange
 * and store) and the volatile Value's store and load is one step: nothing else in the
 * program touches shared memory (the array pointer is set before the threads start),
 * so no scheduler can tell apart two schedules that order these steps alike. Pop's
 * "count <= 1" and its exchange that finds -1 are followed by sched_yield. main's
 * creations are left out: all three threads may run from the start, which only adds
 * schedules.
 *
 *   gcc -O2 -o /tmp/safestack_model bench/hunt/safestack_model.c
 *   safestack_model bfs [yieldfree [relacy]]
 *	the least preemptions (a switch away from a thread that could go on; with
 *	yieldfree, one right after a yield is free) to the failed assertion, and that
 *	schedule (relacy: SafeStackRelacy.cpp's yield between the store and the assert)
 *   safestack_model walk Q [relacy]
 *	the exact probability that a run fails when after each step the running thread
 *	goes on with probability 1-Q, else a thread drawn uniformly from the runnable
 *	ones runs (after a yield or a thread's end, always drawn); Q = 1: a random
 *	thread at every step (SCTBench's Rand, Relacy's random scheduler). 21 million
 *	(state, running thread) nodes: about 2 minutes and 3 GB
 *   safestack_model pct D K RUNS
 *	PCT (n = 3, D-1 change points among the first K steps): failures in RUNS runs
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 3
enum { P0, P1, P2, P3, P4, P5, V1, V2, U0, U1, U2, U3, DONE };

struct th { int pc, it, h1, n1, e; };
struct st { int head, count, nxt[NT], val[NT]; struct th t[NT]; };

static uint64_t pack(const struct st *s)
{
	uint64_t k = (uint64_t)(s->head + 1) | (uint64_t)(s->count + 2) << 2;
	int b = 5;
	for (int i = 0; i < NT; i++, b += 4)
		k |= (uint64_t)(s->nxt[i] + 1) << b | (uint64_t)s->val[i] << (b + 2);
	for (int i = 0; i < NT; i++, b += 11)
		k |= (uint64_t)s->t[i].pc << b | (uint64_t)s->t[i].it << (b + 4) |
		     (uint64_t)(s->t[i].h1 + 1) << (b + 5) | (uint64_t)(s->t[i].n1 + 1) << (b + 7) |
		     (uint64_t)s->t[i].e << (b + 9);
	return k;
}

static void unpack(uint64_t k, struct st *s)
{
	s->head = (int)(k & 3) - 1;
	s->count = (int)(k >> 2 & 7) - 2;
	int b = 5;
	for (int i = 0; i < NT; i++, b += 4) {
		s->nxt[i] = (int)(k >> b & 3) - 1;
		s->val[i] = (int)(k >> (b + 2) & 3);
	}
	for (int i = 0; i < NT; i++, b += 11) {
		s->t[i].pc = (int)(k >> b & 15);
		s->t[i].it = (int)(k >> (b + 4) & 1);
		s->t[i].h1 = (int)(k >> (b + 5) & 3) - 1;
		s->t[i].n1 = (int)(k >> (b + 7) & 3) - 1;
		s->t[i].e = (int)(k >> (b + 9) & 3);
	}
}

static void init(struct st *s)
{
	memset(s, 0, sizeof *s);
	s->head = 0;
	s->count = 3;
	s->nxt[0] = 1, s->nxt[1] = 2, s->nxt[2] = -1;
}

/* One step of thread i: 1 the assertion failed, 0 done, and *yielded when the step
 * ends in sched_yield. */
static int relacy; /* SafeStackRelacy.cpp: a pthread_yield between the store and the assert */

static int step(struct st *s, int i, int *yielded)
{
	struct th *t = &s->t[i];
	*yielded = 0;
	switch (t->pc) {
	case P0: /* while (count.load() > 1) ... else return -1 and yield */
		if (s->count > 1)
			t->pc = P1;
		else
			*yielded = 1;
		break;
	case P1: t->h1 = s->head; t->pc = P2; break;
	case P2: /* next1 = array[head1].Next.exchange(-1) */
		t->n1 = s->nxt[t->h1];
		s->nxt[t->h1] = -1;
		if (t->n1 >= 0) {
			t->pc = P3;
		} else {
			t->pc = P0;
			*yielded = 1;
		}
		break;
	case P3: /* head.compare_exchange_strong(head1, next1) */
		if (s->head == t->h1) {
			s->head = t->n1;
			t->pc = P4;
		} else {
			t->pc = P5;
		}
		break;
	case P4: s->count--; t->e = t->h1; t->pc = V1; break;
	case P5: s->nxt[t->h1] = t->n1; t->pc = P0; break;
	case V1: s->val[t->e] = i; t->pc = V2; *yielded = relacy; break;
	case V2:
		if (s->val[t->e] != i)
			return 1;
		t->pc = U0;
		break;
	case U0: t->h1 = s->head; t->pc = U1; break;
	case U1: s->nxt[t->e] = t->h1; t->pc = U2; break;
	case U2:
		if (s->head == t->h1) {
			s->head = t->e;
			t->pc = U3;
		} else {
			t->h1 = s->head;
			t->pc = U1;
		}
		break;
	case U3:
		s->count++;
		if (t->it) {
			t->pc = DONE;
		} else {
			t->it = 1;
			t->pc = P0;
		}
		break;
	}
	return 0;
}

/* A hash set of packed states, each with its index. */
static uint64_t *keys;
static uint32_t *ids;
static size_t cap, nstates;
static uint64_t *byid;
static size_t byid_cap;

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void grow(void);

static uint32_t intern(uint64_t k, int *fresh)
{
	if (nstates * 2 >= cap)
		grow();
	size_t m = cap - 1, j = mix(k) & m;
	while (keys[j] != UINT64_MAX) {
		if (keys[j] == k) {
			*fresh = 0;
			return ids[j];
		}
		j = (j + 1) & m;
	}
	keys[j] = k;
	ids[j] = (uint32_t)nstates;
	if (nstates == byid_cap) {
		byid_cap = byid_cap ? byid_cap * 2 : 1 << 20;
		byid = realloc(byid, byid_cap * sizeof *byid);
	}
	byid[nstates] = k;
	*fresh = 1;
	return (uint32_t)nstates++;
}

static void grow(void)
{
	size_t old = cap;
	uint64_t *ok = keys;
	uint32_t *oi = ids;
	cap = cap ? cap * 2 : 1 << 20;
	keys = malloc(cap * sizeof *keys);
	ids = malloc(cap * sizeof *ids);
	memset(keys, 0xff, cap * sizeof *keys);
	for (size_t j = 0; j < old; j++) {
		if (ok[j] == UINT64_MAX)
			continue;
		size_t m = cap - 1, x = mix(ok[j]) & m;
		while (keys[x] != UINT64_MAX)
			x = (x + 1) & m;
		keys[x] = ok[j];
		ids[x] = oi[j];
	}
	free(ok);
	free(oi);
}

static int runnable(const struct st *s, int i)
{
	return s->t[i].pc != DONE;
}

/* Least preemptions (a switch away from a thread that could go on; free after a
 * yield when yieldfree) to the failure: Dial's buckets over (state, running thread). */
#define MAXD 16
static const char *const pcname[] = {"pop: load count", "pop: load head",
	"pop: exchange Next", "pop: CAS head", "pop: count--", "pop: restore Next",
	"store Value", "assert Value", "push: load head", "push: store Next",
	"push: CAS head", "push: count++", "done"};

static int bfs(int yieldfree)
{
	struct st s0;
	init(&s0);
	uint8_t *dist = NULL;
	uint32_t *parent = NULL;
	uint8_t *how = NULL;
	size_t dcap = 0;
	uint32_t *bucket[MAXD + 1] = {0};
	size_t blen[MAXD + 1] = {0}, bcap[MAXD + 1] = {0};
#define PUSH(d, x) do { if (blen[d] == bcap[d]) { bcap[d] = bcap[d] ? bcap[d] * 2 : 1024; \
	bucket[d] = realloc(bucket[d], bcap[d] * sizeof(uint32_t)); } bucket[d][blen[d]++] = (x); } while (0)
#define ENSURE() do { if (nstates > dcap) { size_t o = dcap; dcap = byid_cap; \
	dist = realloc(dist, dcap); parent = realloc(parent, dcap * 4); how = realloc(how, dcap); \
	memset(dist + o, 0xff, dcap - o); } } while (0)
	/* a node: the state packed with the running thread in bits 62-63 */
	for (int c = 0; c < NT; c++) {
		int f;
		uint32_t id = intern(pack(&s0) | (uint64_t)c << 62, &f);
		ENSURE();
		dist[id] = 0;
		parent[id] = UINT32_MAX;
		PUSH(0, id);
	}
	for (int d = 0; d <= MAXD; d++) {
		for (size_t q = 0; q < blen[d]; q++) {
			uint32_t id = bucket[d][q];
			if (dist[id] != d)
				continue;
			uint64_t k = byid[id];
			int cur = (int)(k >> 62);
			struct st s;
			unpack(k & ~(UINT64_C(3) << 62), &s);
			for (int t = 0; t < NT; t++) {
				if (!runnable(&s, t) || (t != cur && runnable(&s, cur)))
					continue;
				struct st n = s;
				int y;
				if (step(&n, t, &y)) {
					printf("least preemptions: %d%s\n", d,
					       yieldfree ? " (a switch after a yield free)" : "");
					/* the path, from its end back to the start, printed forward */
					char line[256][64];
					int nl = 0;
					snprintf(line[nl++], sizeof line[0], "T%d %s  <- fails", t,
						 pcname[s.t[t].pc]);
					for (uint32_t x = id; parent[x] != UINT32_MAX && nl < 256;
					     x = parent[x]) {
						struct st ps;
						unpack(byid[parent[x]] & ~(UINT64_C(3) << 62), &ps);
						snprintf(line[nl++], sizeof line[0], "T%d %s%s", how[x] & 3,
							 pcname[ps.t[how[x] & 3].pc],
							 how[x] & 4 ? "  <- preempted after it" : "");
					}
					while (nl > 0)
						printf("  %s\n", line[--nl]);
					return d;
				}
				for (int u = 0; u < NT; u++) {
					if (!runnable(&n, u))
						continue;
					int cost = u != t && runnable(&n, t) && !(yieldfree && y);
					int f;
					uint32_t nid = intern(pack(&n) | (uint64_t)u << 62, &f);
					ENSURE();
					if (d + cost <= MAXD && dist[nid] > d + cost) {
						dist[nid] = (uint8_t)(d + cost);
						parent[nid] = id;
						how[nid] = (uint8_t)(t | cost << 2);
						PUSH(d + cost, nid);
					}
				}
			}
		}
	}
	printf("no failure within %d preemptions\n", MAXD);
	return -1;
}

/* Exact failure probability of the walk: value iteration over every reachable
 * (state, running thread). */
static void walk(double qsw)
{
	struct st s0;
	init(&s0);
	int f;
	for (int c = 0; c < NT; c++)
		intern(pack(&s0) | (uint64_t)c << 62, &f);
	/* successors: per node up to NT*NT (thread stepped, next running) */
	uint32_t *succ = NULL;
	float *w = NULL;
	uint8_t *nsucc = NULL;
	double *pfail = NULL; /* probability that this node's own step fails */
	size_t scap = 0;
	for (size_t id = 0; id < nstates; id++) {
		if (id >= scap) {
			scap = byid_cap;
			succ = realloc(succ, scap * NT * NT * sizeof *succ);
			w = realloc(w, scap * NT * NT * sizeof *w);
			nsucc = realloc(nsucc, scap);
			pfail = realloc(pfail, scap * sizeof *pfail);
		}
		uint64_t k = byid[id];
		int cur = (int)(k >> 62);
		struct st s;
		unpack(k & ~(UINT64_C(3) << 62), &s);
		nsucc[id] = 0;
		pfail[id] = 0;
		/* the running thread: cur if it can run, else one drawn uniformly */
		int nr = 0;
		for (int t = 0; t < NT; t++)
			nr += runnable(&s, t);
		if (!nr)
			continue;
		for (int t = 0; t < NT; t++) {
			if (!runnable(&s, t) || (runnable(&s, cur) && t != cur))
				continue;
			double pt = runnable(&s, cur) ? 1.0 : 1.0 / nr;
			struct st n = s;
			int y;
			if (step(&n, t, &y)) {
				pfail[id] += pt;
				continue;
			}
			int mr = 0;
			for (int u = 0; u < NT; u++)
				mr += runnable(&n, u);
			for (int u = 0; u < NT; u++) {
				if (!runnable(&n, u))
					continue;
				/* go on with 1-q; else (or after a yield, or when t ended) uniform */
				double pu;
				if (!runnable(&n, t) || y)
					pu = 1.0 / mr;
				else
					pu = (u == t ? 1 - qsw : 0) + qsw / mr;
				if (pu == 0)
					continue;
				uint32_t nid = intern(pack(&n) | (uint64_t)u << 62, &f);
				if (nid >= scap) { /* grown: the arrays follow */
					scap = byid_cap;
					succ = realloc(succ, scap * NT * NT * sizeof *succ);
					w = realloc(w, scap * NT * NT * sizeof *w);
					nsucc = realloc(nsucc, scap);
					pfail = realloc(pfail, scap * sizeof *pfail);
				}
				succ[id * NT * NT + nsucc[id]] = nid;
				w[id * NT * NT + nsucc[id]] = (float)(pt * pu);
				nsucc[id]++;
			}
		}
	}
	double *p = calloc(nstates, sizeof *p);
	double start = 0;
	for (int it = 0; it < 10000; it++) {
		double delta = 0;
		for (size_t id = nstates; id-- > 0;) {
			double v = pfail[id];
			for (int j = 0; j < nsucc[id]; j++)
				v += w[id * NT * NT + j] * p[succ[id * NT * NT + j]];
			double dd = v > p[id] ? v - p[id] : p[id] - v;
			if (dd > delta)
				delta = dd;
			p[id] = v;
		}
		if (delta < 1e-18)
			break;
	}
	for (int c = 0; c < NT; c++)
		start += p[c] / NT; /* the first thread: any */
	printf("walk q=%g: %zu nodes, P(fail) = %.3e (1 run in %.3g)\n", qsw, nstates, start,
	       start > 0 ? 1 / start : 0);
}

/* PCT (Burckhardt et al.): random priorities, the running thread demoted below all at
 * each of D-1 steps drawn among the first K; a thread that yields goes below all (a
 * spinning top thread would never let the others run). */
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static void pct(int dd, int kk, long runs)
{
	long fails = 0;
	for (long r = 0; r < runs; r++) {
		struct st s;
		init(&s);
		double prio[NT];
		for (int i = 0; i < NT; i++)
			prio[i] = dd + (double)(rnd() >> 11) / 9007199254740992.0;
		int ch[16], nch = dd - 1;
		for (int i = 0; i < nch; i++)
			ch[i] = 1 + (int)(rnd() % (uint64_t)kk);
		double low = 0;
		for (int n = 1; n < 100000; n++) {
			int t = -1;
			for (int i = 0; i < NT; i++)
				if (runnable(&s, i) && (t < 0 || prio[i] > prio[t]))
					t = i;
			if (t < 0)
				break;
			int y;
			if (step(&s, t, &y)) {
				fails++;
				break;
			}
			for (int i = 0; i < nch; i++)
				if (ch[i] == n)
					prio[t] = dd - 1 - i; /* the i-th change point: priority d-i */
			if (y)
				prio[t] = --low;
		}
	}
	printf("pct d=%d k=%d: %ld failures in %ld runs\n", dd, kk, fails, runs);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "bfs")) {
		relacy = argc > 3;
		return bfs(argc > 2) < 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "walk")) {
		relacy = argc == 4;
		walk(atof(argv[2]));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "pct")) {
		pct(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
		return 0;
	}
	fprintf(stderr, "usage: %s bfs [yieldfree [relacy]] | walk Q [relacy] | pct D K RUNS\n",
		argv[0]);
	return 2;
}
