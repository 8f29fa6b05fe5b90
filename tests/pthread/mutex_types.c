/* mutex_types: normal, recursive and error-checking mutexes (from attributes and from
 * the static initializers), trylock, timedlock, destroy while locked, mutual
 * exclusion under contention, and robust mutexes whose owner exits. */
#include "pt_test.h"

static pthread_mutex_t normal_static = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive_static = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t errorcheck_static = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

static void init_type(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;
	int got = -1;
	pthread_mutexattr_init(&a);
	if (pthread_mutexattr_settype(&a, type))
		die("settype");
	pthread_mutexattr_gettype(&a, &got);
	if (got != type)
		die("gettype");
	if (pthread_mutex_init(m, &a))
		die("mutex_init");
	pthread_mutexattr_destroy(&a);
}

static pthread_mutex_t *other_target;
static int other_result;

static void *unlock_other(void *arg)
{
	other_result = pthread_mutex_unlock(other_target);
	return NULL;
}

static int unlock_from_other_thread(pthread_mutex_t *m)
{
	pthread_t t;
	other_target = m;
	pthread_create(&t, NULL, unlock_other, NULL);
	pthread_join(t, NULL);
	return other_result;
}

static void *trylock_other(void *arg)
{
	other_result = pthread_mutex_trylock(other_target);
	if (other_result == 0)
		pthread_mutex_unlock(other_target);
	return NULL;
}

static int trylock_from_other_thread(pthread_mutex_t *m)
{
	pthread_t t;
	other_target = m;
	pthread_create(&t, NULL, trylock_other, NULL);
	pthread_join(t, NULL);
	return other_result;
}

static void recursive(const char *name, pthread_mutex_t *m)
{
	printf("-- %s\n", name);
	SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_trylock(m));
	SHOW(trylock_from_other_thread(m));
	SHOW(pthread_mutex_unlock(m));
	SHOW(pthread_mutex_unlock(m));
	SHOW(unlock_from_other_thread(m));
	SHOW(pthread_mutex_unlock(m));
	SHOW(pthread_mutex_unlock(m));
	SHOW(trylock_from_other_thread(m));
}

static void errorcheck(const char *name, pthread_mutex_t *m)
{
	printf("-- %s\n", name);
	SHOW(pthread_mutex_unlock(m));
	SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_trylock(m));
	SHOW(unlock_from_other_thread(m));
	SHOW(pthread_mutex_unlock(m));
}

static void normal(const char *name, pthread_mutex_t *m)
{
	printf("-- %s\n", name);
	SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_trylock(m));
	SHOW(trylock_from_other_thread(m));
	SHOW(pthread_mutex_destroy(m));
	SHOW(pthread_mutex_unlock(m));
	SHOW(trylock_from_other_thread(m));
}

/* ---- timed locking ------------------------------------------------------------ */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t holding, release;

static void *holder(void *arg)
{
	pthread_mutex_lock(&held);
	sem_post(&holding);
	sem_wait(&release);
	pthread_mutex_unlock(&held);
	return NULL;
}

static void timed(void)
{
	pthread_t t;
	printf("-- timedlock\n");
	sem_init(&holding, 0, 0);
	sem_init(&release, 0, 0);
	pthread_create(&t, NULL, holder, NULL);
	sem_wait(&holding);
	struct timespec past = {0, 0}, bad = {0, 2000000000L};
	struct timespec soon = in_ms(CLOCK_REALTIME, 20);
	SHOW(pthread_mutex_timedlock(&held, &past));
	SHOW(pthread_mutex_timedlock(&held, &soon));
	soon = in_ms(CLOCK_MONOTONIC, 20);
	SHOW(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &soon));
	SHOW(pthread_mutex_timedlock(&held, &bad));
	sem_post(&release);
	soon = in_ms(CLOCK_REALTIME, 10000);
	SHOW(pthread_mutex_timedlock(&held, &soon));
	SHOW(pthread_mutex_unlock(&held));
	pthread_join(t, NULL);
	/* free: the deadline is not even looked at */
	SHOW(pthread_mutex_timedlock(&held, &bad));
	SHOW(pthread_mutex_unlock(&held));
}

/* ---- contention ---------------------------------------------------------------- */
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *add(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&counter_lock);
		long v = counter;
		if (i % 1000 == 0)
			sched_yield(); /* holding it: the others must wait */
		counter = v + 1;
		pthread_mutex_unlock(&counter_lock);
	}
	return NULL;
}

static void contention(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("-- contention: counter %ld (want 80000)\n", counter);
}

/* ---- robust -------------------------------------------------------------------- */
static pthread_mutex_t robust_m;

static void *lock_and_exit(void *arg)
{
	pthread_mutex_lock(&robust_m);
	return NULL; /* exits holding it */
}

static void robust(void)
{
	pthread_mutexattr_t a;
	pthread_t t;
	int r = -1;
	printf("-- robust\n");
	pthread_mutexattr_init(&a);
	SHOW(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
	pthread_mutexattr_getrobust(&a, &r);
	CHECK("getrobust says robust", r == PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&robust_m, &a);

	pthread_create(&t, NULL, lock_and_exit, NULL);
	pthread_join(t, NULL);
	SHOW(pthread_mutex_lock(&robust_m));
	SHOW(pthread_mutex_consistent(&robust_m));
	SHOW(pthread_mutex_unlock(&robust_m));
	SHOW(pthread_mutex_lock(&robust_m));
	SHOW(pthread_mutex_unlock(&robust_m));

	/* owner dies again; this time nobody makes it consistent */
	pthread_create(&t, NULL, lock_and_exit, NULL);
	pthread_join(t, NULL);
	SHOW(pthread_mutex_trylock(&robust_m));
	SHOW(pthread_mutex_unlock(&robust_m));
	SHOW(pthread_mutex_lock(&robust_m));
	SHOW(pthread_mutex_trylock(&robust_m));
	pthread_mutexattr_destroy(&a);
}

int main(void)
{
	pthread_mutex_t m;
	pthread_mutexattr_t a;

	normal("normal, static", &normal_static);
	init_type(&m, PTHREAD_MUTEX_NORMAL);
	normal("normal, attr", &m);
	pthread_mutex_destroy(&m);
	pthread_mutex_init(&m, NULL);
	normal("default, no attr", &m);
	pthread_mutex_destroy(&m);

	recursive("recursive, static", &recursive_static);
	init_type(&m, PTHREAD_MUTEX_RECURSIVE);
	recursive("recursive, attr", &m);
	SHOW(pthread_mutex_destroy(&m));

	errorcheck("errorcheck, static", &errorcheck_static);
	init_type(&m, PTHREAD_MUTEX_ERRORCHECK);
	errorcheck("errorcheck, attr", &m);
	SHOW(pthread_mutex_destroy(&m));

	printf("-- attributes\n");
	pthread_mutexattr_init(&a);
	SHOW(pthread_mutexattr_settype(&a, 42));
	SHOW(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_PRIVATE));
	int v = -1;
	pthread_mutexattr_getpshared(&a, &v);
	CHECK("getpshared says private", v == PTHREAD_PROCESS_PRIVATE);
	pthread_mutexattr_gettype(&a, &v);
	CHECK("default type is PTHREAD_MUTEX_DEFAULT", v == PTHREAD_MUTEX_DEFAULT);
	pthread_mutexattr_getrobust(&a, &v);
	CHECK("default robustness is stalled", v == PTHREAD_MUTEX_STALLED);
	pthread_mutexattr_destroy(&a);

	timed();
	contention();
	robust();
	return 0;
}
