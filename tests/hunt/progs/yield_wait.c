/* Waiting by yielding: two threads spin on sched_yield until a flag the last thread
 * created sets; one more takes a spin lock that a third holds while it works, and a
 * try-lock loop yields between its tries. Under --hunt's priorities, a yield that
 * hands over to the highest other thread let the two spinners pass the turn to each
 * other for ever while the setter, lower, never ran (seeds 4 and 8 of 16 hung). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready;
static pthread_spinlock_t spin;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long work;

static void *spinner(void *arg)
{
	while (!atomic_load(&ready))
		sched_yield();
	return arg;
}

static void *setter(void *arg)
{
	for (int i = 0; i < 1000; i++)
		work += i;
	atomic_store(&ready, 1);
	return arg;
}

static void *spin_holder(void *arg)
{
	pthread_spin_lock(&spin);
	for (int i = 0; i < 1000; i++)
		work += 1;
	pthread_spin_unlock(&spin);
	return arg;
}

static void *try_locker(void *arg)
{
	while (pthread_mutex_trylock(&mu))
		sched_yield();
	pthread_mutex_unlock(&mu);
	return arg;
}

int main(void)
{
	pthread_t t[6];
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_lock(&mu);
	pthread_create(&t[0], NULL, spinner, NULL);
	pthread_create(&t[1], NULL, spinner, NULL);
	pthread_create(&t[2], NULL, try_locker, NULL);
	pthread_create(&t[3], NULL, setter, NULL);
	pthread_create(&t[4], NULL, spin_holder, NULL);
	while (!atomic_load(&ready))
		sched_yield();
	pthread_mutex_unlock(&mu);
	pthread_spin_lock(&spin);
	pthread_spin_unlock(&spin);
	pthread_create(&t[5], NULL, spinner, NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	printf("done: work %ld\n", work);
	return 0;
}
