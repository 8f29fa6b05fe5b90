/* create_join: threads start, return values through pthread_join and pthread_exit,
 * pthread_self and pthread_equal agree with pthread_create, joining yourself is
 * EDEADLK, detached threads run, tryjoin/timedjoin see a thread still running. */
#include "pt_test.h"

#define N 8

static pthread_t seen_self[N];

static void *sum_range(void *arg)
{
	long i = (long)arg, sum = 0;
	seen_self[i] = pthread_self();
	for (long k = i * 1000; k < (i + 1) * 1000; k++)
		sum += k;
	return (void *)sum;
}

static void (*volatile exit_fn)(void *) = pthread_exit;

static int deep_exit(int depth)
{
	if (depth > 0)
		return deep_exit(depth - 1) + 1;
	exit_fn((void *)42);
	return 0;
}

static void *exits_deep(void *arg)
{
	deep_exit(10);
	return NULL; /* not reached */
}

static pthread_t main_thread;

static void *joins(void *arg)
{
	int self = pthread_join(pthread_self(), NULL);
	int equal_main = pthread_equal(pthread_self(), main_thread) != 0;
	return (void *)(long)(self == EDEADLK && !equal_main);
}

static sem_t detached_done, go;
static int detached_ran;

static void *detached(void *arg)
{
	detached_ran = 1;
	sem_post(&detached_done);
	return NULL;
}

static void *waits_for_go(void *arg)
{
	sem_wait(&go);
	return (void *)7;
}

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *bump(void *arg)
{
	pthread_mutex_lock(&counter_lock);
	counter += (long)arg;
	pthread_mutex_unlock(&counter_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	void *ret;
	main_thread = pthread_self();

	for (long i = 0; i < N; i++)
		if (pthread_create(&t[i], NULL, sum_range, (void *)i))
			die("pthread_create");
	long total = 0;
	int self_ok = 1;
	for (int i = 0; i < N; i++) {
		if (pthread_join(t[i], &ret))
			die("pthread_join");
		printf("thread %d returned %ld\n", i, (long)ret);
		total += (long)ret;
		self_ok &= pthread_equal(seen_self[i], t[i]) != 0;
		self_ok &= !pthread_equal(seen_self[i], main_thread);
	}
	printf("total %ld\n", total);
	CHECK("pthread_self in each thread equals its pthread_t", self_ok);
	CHECK("pthread_equal(self, self)", pthread_equal(pthread_self(), main_thread));

	pthread_t e;
	pthread_create(&e, NULL, exits_deep, NULL);
	pthread_join(e, &ret);
	printf("pthread_exit from 10 calls deep returned %ld\n", (long)ret);

	SHOW(pthread_join(pthread_self(), NULL));
	pthread_create(&e, NULL, joins, NULL);
	pthread_join(e, &ret);
	CHECK("a thread joining itself gets EDEADLK", ret == (void *)1);

	/* detached by pthread_detach */
	sem_init(&detached_done, 0, 0);
	pthread_create(&e, NULL, detached, NULL);
	SHOW(pthread_detach(e));
	sem_wait(&detached_done);
	CHECK("detached thread ran", detached_ran);

	/* try and timed join on a thread that waits */
	sem_init(&go, 0, 0);
	pthread_create(&e, NULL, waits_for_go, NULL);
	SHOW(pthread_tryjoin_np(e, &ret));
	struct timespec soon = in_ms(CLOCK_REALTIME, 20);
	SHOW(pthread_timedjoin_np(e, &ret, &soon));
	soon = in_ms(CLOCK_MONOTONIC, 20);
	SHOW(pthread_clockjoin_np(e, &ret, CLOCK_MONOTONIC, &soon));
	sem_post(&go);
	SHOW(pthread_join(e, &ret));
	printf("joined after go: %ld\n", (long)ret);

	/* many short threads */
	pthread_t many[200];
	for (long i = 0; i < 200; i++)
		if (pthread_create(&many[i], NULL, bump, (void *)i))
			die("pthread_create");
	for (int i = 0; i < 200; i++)
		pthread_join(many[i], NULL);
	printf("counter %ld\n", counter);
	return 0;
}
