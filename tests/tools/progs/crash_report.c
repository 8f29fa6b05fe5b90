/* A crash with every kind of thread around it: one blocked on a mutex, one waiting on
 * a condition variable, one computing (preempted), one joining; then a thread faults
 * (a NULL store, abort() with the argument "abort", or a stack overflow with
 * "overflow") at a fixed point of its own work, so every recording crashes, in the
 * same function. With "deferred", a thread that spends its time in the C library
 * takes the place of the computing one: the ticks that land in memset are deferred
 * to its next counting point, where it is preempted, and the fault waits for that. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER, m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile long sink;
static int *volatile nowhere;
static int use_abort, use_overflow, use_deferred;
static char big[8 << 20];
static char *volatile bigp = big;
static volatile int phase;

static void *waits_on_mutex(void *arg)
{
	pthread_mutex_lock(&held); /* main holds it for ever */
	return NULL;
}

static void *waits_on_cond(void *arg)
{
	pthread_mutex_lock(&m);
	pthread_cond_wait(&never, &m);
	return NULL;
}

static void *spins(void *arg)
{
	for (;;)
		sink++;
	return NULL;
}

static void nothing(void)
{
}
static void (*volatile nothing_p)(void) = nothing;

static void *in_library(void *arg)
{
	for (long i = 0;; i++) {
		phase = 1;
		memset(bigp, (int)i, sizeof big); /* a tick in here waits for a counting point */
		phase = 2;                        /* ... which comes after this store: */
		nothing_p();                      /* an indirect call counts (docs/sic.md) */
	}
	return NULL;
}

static long __attribute__((noinline)) recurse(long n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	return sink < 0 ? n : recurse(n + 1) + pad[0]; /* sink never goes below 0 */
}

static void __attribute__((noinline)) fault_here(void)
{
	if (use_overflow)
		sink += recurse(0);
	if (use_abort)
		abort();
	*nowhere = 1;
}

static void *faults(void *arg)
{
	while (use_deferred && phase != 2)
		; /* runs while in_library is switched out after its memset */
	for (long i = 0; !use_deferred && i < 20000000; i++)
		sink += i;
	fault_here();
	return NULL;
}

int main(int argc, char **argv)
{
	use_abort = argc > 1 && !strcmp(argv[1], "abort");
	use_overflow = argc > 1 && !strcmp(argv[1], "overflow");
	use_deferred = argc > 1 && !strcmp(argv[1], "deferred");
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("start\n");
	pthread_mutex_lock(&held);
	pthread_t t[4];
	pthread_create(&t[0], NULL, waits_on_mutex, NULL);
	pthread_create(&t[1], NULL, waits_on_cond, NULL);
	pthread_create(&t[2], NULL, use_deferred ? in_library : spins, NULL);
	pthread_create(&t[3], NULL, faults, NULL);
	pthread_join(t[3], NULL);
	printf("not reached\n");
	return 0;
}
