/* c11: C11 <threads.h>: threads with int results, plain/recursive/timed mutexes,
 * condition variables, call_once, thread-specific storage with destructors. */
#include <threads.h>

#include "pt_test.h"

static mtx_t lock;
static cnd_t cond;
static int ready, counter, once_calls, dtor_calls;
static once_flag flag = ONCE_FLAG_INIT;
static tss_t key;

static void init(void)
{
	once_calls++;
}

static void dtor(void *v)
{
	mtx_lock(&lock);
	dtor_calls++;
	mtx_unlock(&lock);
}

static int worker(void *arg)
{
	call_once(&flag, init);
	tss_set(key, arg);
	for (int i = 0; i < 1000; i++) {
		mtx_lock(&lock);
		counter++;
		mtx_unlock(&lock);
	}
	mtx_lock(&lock);
	while (!ready)
		cnd_wait(&cond, &lock);
	mtx_unlock(&lock);
	if ((long)tss_get(key) == 3)
		thrd_exit(300);
	return (int)(long)tss_get(key) * 10;
}

int main(void)
{
	thrd_t t[4];
	int res, sum = 0;
	printf("mtx_init plain: %d\n", mtx_init(&lock, mtx_plain));
	printf("cnd_init: %d\n", cnd_init(&cond));
	printf("tss_create: %d\n", tss_create(&key, dtor));
	for (long i = 0; i < 4; i++)
		if (thrd_create(&t[i], worker, (void *)(i + 1)) != thrd_success)
			die("thrd_create");
	struct timespec ts = {0, 5000000};
	printf("thrd_sleep: %d\n", thrd_sleep(&ts, NULL));
	mtx_lock(&lock);
	ready = 1;
	cnd_broadcast(&cond);
	mtx_unlock(&lock);
	for (int i = 0; i < 4; i++) {
		thrd_join(t[i], &res);
		printf("thread %d returned %d\n", i, res);
		sum += res;
	}
	printf("counter %d, once %d, destructors %d\n", counter, once_calls, dtor_calls);
	printf("thrd_equal(current, current): %d\n",
	       thrd_equal(thrd_current(), thrd_current()) != 0);

	mtx_t r, tm;
	printf("mtx_init recursive: %d\n", mtx_init(&r, mtx_plain | mtx_recursive));
	printf("lock, lock, trylock: %d %d %d\n", mtx_lock(&r), mtx_lock(&r), mtx_trylock(&r));
	printf("unlock x3: %d %d %d\n", mtx_unlock(&r), mtx_unlock(&r), mtx_unlock(&r));
	mtx_destroy(&r);
	printf("mtx_init timed: %d\n", mtx_init(&tm, mtx_timed));
	mtx_lock(&tm);
	printf("trylock held: %s\n", mtx_trylock(&tm) == thrd_busy ? "thrd_busy" : "other");
	mtx_unlock(&tm);
	struct timespec past = {0, 0};
	printf("timedlock free: %d\n", mtx_timedlock(&tm, &past));
	mtx_unlock(&tm);
	mtx_lock(&lock);
	printf("cnd_timedwait past: %s\n",
	       cnd_timedwait(&cond, &lock, &past) == thrd_timedout ? "thrd_timedout" : "other");
	mtx_unlock(&lock);
	tss_delete(key);
	cnd_destroy(&cond);
	mtx_destroy(&lock);
	return 0;
}
