/* switch.c: voluntary switches. Two threads hand a token back and forth N times:
 *
 *   switch yield [N]   spin on the token with sched_yield() until it is ours
 *   switch cond  [N]   wait for it on a condition variable under a mutex
 *
 * Each handoff makes the other thread run once, so on one CPU it costs at least one
 * context switch: wall time / N is the time of a switch (with green threads, exactly
 * one sched_yield or one cond_wait + cond_signal per handoff). Built with sicc it
 * runs on libreplay's green threads; built with gcc -pthread, on the kernel's (run it
 * under taskset -c 0 to compare like with like: one CPU).
 *
 * stdout: "switch MODE handoffs N yields Y" (Y: sched_yield calls, >= N when a yield
 * did not switch); stderr: the timing line of replay_bench.h. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "replay_bench.h"

static long handoffs;
static int token; /* whose turn it is: 0 or 1 */
static long yields[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;

/* Thread `me` takes the token when it is its turn and passes it on: every other
 * handoff of the N is its. */
static void *by_yield(void *arg)
{
	int me = (int)(long)arg;
	long n = 0;
	for (long k = me; k < handoffs; k += 2) {
		while (__atomic_load_n(&token, __ATOMIC_ACQUIRE) != me) {
			sched_yield();
			n++;
		}
		__atomic_store_n(&token, 1 - me, __ATOMIC_RELEASE);
	}
	yields[me] = n;
	return NULL;
}

static void *by_cond(void *arg)
{
	int me = (int)(long)arg;
	pthread_mutex_lock(&lock);
	for (long k = me; k < handoffs; k += 2) {
		while (token != me)
			pthread_cond_wait(&turn_changed, &lock);
		token = 1 - me;
		pthread_cond_signal(&turn_changed);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "yield";
	void *(*fn)(void *);
	if (!strcmp(mode, "yield"))
		fn = by_yield;
	else if (!strcmp(mode, "cond"))
		fn = by_cond;
	else {
		fprintf(stderr, "usage: %s yield|cond [HANDOFFS]\n", argv[0]);
		return 2;
	}
	handoffs = rb_arg(argc, argv, 2, 1000000, 1000000000);

	pthread_t t[2];
	struct rb_clock c = rb_start();
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)i)) {
			fprintf(stderr, "switch: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	rb_stop(c);
	printf("switch %s handoffs %ld yields %ld\n", mode, handoffs, yields[0] + yields[1]);
	return 0;
}
