/* spin_flag: two threads hand a token back and forth through one flag, each
 * busy-waiting (with pause) for its turn. ROUNDS handoffs each way.
 *   spin_flag [ROUNDS]   (default 50) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int turn;
static int rounds = 50;

static void *player(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < rounds; i++) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
			__builtin_ia32_pause();
		__atomic_store_n(&turn, !me, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, player, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("spin_flag: %d rounds, turn %d\n", rounds, turn);
	return 0;
}
