/* once_keys: pthread_once runs its routine once however many threads race for it,
 * and the others wait for it to finish; thread-specific data is per thread, its
 * destructors run at thread exit (also after pthread_exit), again while they set new
 * values, and a recreated key does not see the old values. */
#include "pt_test.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_calls, initialized;

static void init(void)
{
	init_calls++;
	sched_yield(); /* let the others find it running */
	initialized = 42;
}

static void *use_once(void *arg)
{
	pthread_once(&once, init);
	return (void *)(long)initialized;
}

static pthread_key_t key, rearm_key;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long destroyed_sum;
static int destroyed, rearm_calls;

static void destroy(void *v)
{
	pthread_mutex_lock(&lock);
	destroyed_sum += *(long *)v;
	destroyed++;
	pthread_mutex_unlock(&lock);
	free(v);
}

static void rearm(void *v)
{
	pthread_mutex_lock(&lock);
	rearm_calls++;
	pthread_mutex_unlock(&lock);
	if ((long)v < 3)
		pthread_setspecific(rearm_key, (void *)((long)v + 1));
}

static void *use_keys(void *arg)
{
	long i = (long)arg;
	long *v = malloc(sizeof *v);
	*v = i * 10;
	if (pthread_getspecific(key) != NULL)
		printf("thread %ld: fresh key not NULL\n", i);
	pthread_setspecific(key, v);
	sched_yield(); /* others set theirs meanwhile */
	long got = *(long *)pthread_getspecific(key);
	if (i == 0)
		pthread_setspecific(rearm_key, (void *)1L);
	if (i == 1)
		pthread_exit((void *)got);
	return (void *)got;
}

int main(void)
{
	pthread_t t[6];
	void *r;
	long sum = 0;

	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, use_once, NULL);
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	pthread_once(&once, init);
	printf("once: routine ran %d time(s), threads saw %ld (want %d)\n", init_calls, sum,
	       6 * 42);

	SHOW(pthread_key_create(&key, destroy));
	SHOW(pthread_key_create(&rearm_key, rearm));
	sum = 0;
	for (long i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, use_keys, (void *)i);
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("keys: values read back %ld, destructor ran %d times summing %ld (want 6, %ld)\n",
	       sum, destroyed, destroyed_sum, sum);
	printf("re-arming destructor ran %d times (want 3)\n", rearm_calls);

	/* main's own values; a deleted and recreated key reads NULL */
	pthread_key_t k1, k2;
	pthread_key_create(&k1, NULL);
	SHOW(pthread_setspecific(k1, (void *)5L));
	printf("main reads %ld\n", (long)pthread_getspecific(k1));
	SHOW(pthread_key_delete(k1));
	pthread_key_create(&k2, NULL);
	printf("recreated key reads %s\n", pthread_getspecific(k2) ? "a stale value" : "NULL");
	SHOW(pthread_key_delete(k2));
	SHOW(pthread_setspecific(1000, (void *)1L));
	SHOW(pthread_setspecific(5000, (void *)1L));
	SHOW(pthread_key_delete(k2));
	return 0;
}
