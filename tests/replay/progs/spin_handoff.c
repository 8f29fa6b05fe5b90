/* Two threads hand a token back and forth 2,000 times through flags, each spinning
 * until the other answers: one with _mm_pause (gcc's rep nop), one with a loop that
 * only re-reads the flag. On one kernel thread each spin can only end when the other
 * thread runs: sicpp makes both spins yield (docs/sic.md), so this takes no time
 * slice at all, and the yields, decided by the program itself, replay without a log
 * record. */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2000

static volatile int ping, pong;
static long work;

static void *answerer(void *arg)
{
	for (int r = 1; r <= ROUNDS; r++) {
		while (ping != r)
			; /* re-reads only: a spin-wait */
		for (int i = 0; i < 100; i++)
			work += i & 3;
		pong = r;
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, answerer, NULL);
	for (int r = 1; r <= ROUNDS; r++) {
		ping = r;
		while (pong != r)
			_mm_pause();
	}
	pthread_join(t, NULL);
	printf("%d handoffs, work %ld\n", ROUNDS, work);
	return 0;
}
