/* ptrchase: follow a linked list for 2 million steps. The list is one random
 * cycle (Sattolo's shuffle) through 1 million 64-byte nodes, 64 MiB in all, larger
 * than the last level cache, so each step is a dependent load that usually misses
 * the caches and the TLB: latency bound, and the counting point in the loop should
 * hide behind the miss. */
#include "bench.h"

struct node {
	struct node *next;
	uint64_t payload;
	uint64_t pad[6]; /* one node per 64-byte cache line */
};

#define NODES (1L << 20)

static uint64_t __attribute__((noinline)) chase(const struct node *p, long steps)
{
	uint64_t sum = 0;
	while (steps-- > 0) {
		sum += p->payload;
		p = p->next;
	}
	return sum + (uint64_t)(uintptr_t)p % 64;
}

int main(int argc, char **argv)
{
	long steps = 2000000L * bench_scale(argc, argv) / 100;
	struct node *nodes = aligned_alloc(64, sizeof *nodes * NODES);
	long *perm = malloc(sizeof *perm * NODES);
	if (!nodes || !perm)
		return 1;
	uint64_t seed = 0x8cb92ba72f3d8dd7u;
	for (long i = 0; i < NODES; i++)
		perm[i] = i;
	/* Sattolo: a uniformly random permutation that is a single cycle */
	for (long i = NODES - 1; i > 0; i--) {
		long j = (long)(bench_rand(&seed) % (uint64_t)i);
		long t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (long i = 0; i < NODES; i++) {
		nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]];
		nodes[perm[i]].payload = (uint64_t)perm[i] * 2654435761u;
	}
	free(perm);

	double t0 = bench_begin();
	uint64_t sum = chase(&nodes[0], steps);
	double t1 = bench_end();
	bench_report("ptrchase", t1 - t0, sum);
	free(nodes);
	return 0;
}
