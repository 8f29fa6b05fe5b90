/* The pool's test program: tasks bump a shared total without a lock, so updates get
 * lost when a time slice ends between a task's load and its store; the total differs
 * between recordings and a replay must reproduce its own. */
#include <stdio.h>
#include "pool.h"

static volatile long total;

static void bump(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++)
		total = total + 1;
}

int main(void)
{
	struct pool *p = pool_create(4);
	if (!p)
		return 1;
	long want = 0;
	for (int round = 0; round < 4; round++) {
		for (long k = 0; k < 200; k++) {
			long n = 20000 + (k * 37) % 16000;
			want += n;
			pool_submit(p, bump, (void *)n, 50000 + (k % 5) * 10000);
		}
		pool_wait(p);
	}
	unsigned long sum = pool_checksum(p);
	pool_destroy(p);
	printf("total = %ld of %ld (%s), checksum %lx\n", total, want,
	       total == want ? "no update lost" : "updates lost", sum);
	return 0;
}
