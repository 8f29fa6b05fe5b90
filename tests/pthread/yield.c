/* yield: sched_yield (and pthread_yield) let the other threads run: two threads
 * take 2,000 turns through a shared variable, each spinning on sched_yield until
 * it is its turn; with green threads each yield must hand over at once (a spin
 * without it would wait for a whole time slice per turn). */
#include "pt_test.h"

#include <sched.h>

#define TURNS 2000

static int turn; /* whose turn: 0 or 1 */
static long moves[2];

static void *player(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < TURNS / 2; i++) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
			if (sched_yield())
				die("sched_yield");
		moves[me]++;
		__atomic_store_n(&turn, 1 - me, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, player, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("moves: %ld and %ld, last turn %d\n", moves[0], moves[1], turn);
	SHOW(sched_yield());
	return 0;
}
