/* aligned_calls.c: four CPU-bound threads that call through function pointers in a
 * tight loop, for the recorder's aligned preemptions (docs/replay.md: at the default
 * quantum a tick sets the counter to run out at the next multiple of 4096). A tick
 * often strikes between the `movq %r15, __sic_home` that publishes the count for a
 * call and the call itself: the counter it moves must move in __sic_home too, or the
 * count jumps when the call returns and the replay's final counts differ (exit 86).
 * The order in which the threads progress is hashed without a lock: the schedule
 * decides it, the replay must repeat it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static volatile uint64_t order;
static uint64_t sums[4];

static uint64_t __attribute__((noinline)) step(uint64_t x)
{
	return x * 6364136223846793005ull + 1442695040888963407ull;
}

static uint64_t (*volatile step_p)(uint64_t) = step;

static void *work(void *arg)
{
	long id = (long)arg;
	uint64_t x = (uint64_t)id + 1;
	for (long i = 0; i < 40000000; i++) {
		x = step_p(x);
		if (!(i & 0xfffff))
			order = order * 31 + (uint64_t)id;
	}
	sums[id] = x;
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("sums %llx %llx %llx %llx order %llx\n", (unsigned long long)sums[0],
	       (unsigned long long)sums[1], (unsigned long long)sums[2], (unsigned long long)sums[3],
	       (unsigned long long)order);
	return 0;
}
