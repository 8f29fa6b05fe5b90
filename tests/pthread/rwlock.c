/* rwlock: readers share the lock, a writer excludes everyone, try/timed variants
 * fail the right way, a writer relocking is EDEADLK, recursive read locks, and
 * readers always see a consistent state while writers update it. */
#include "pt_test.h"

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t all_reading;

static void *reader_holds(void *arg)
{
	pthread_rwlock_rdlock(&lock);
	/* every reader gets here while the others hold it too */
	pthread_barrier_wait(&all_reading);
	pthread_rwlock_unlock(&lock);
	return NULL;
}

static void shared_readers(void)
{
	pthread_t t[3];
	pthread_barrier_init(&all_reading, NULL, 4);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, reader_holds, NULL);
	pthread_rwlock_rdlock(&lock);
	pthread_barrier_wait(&all_reading);
	printf("4 readers held the lock at once\n");
	pthread_rwlock_unlock(&lock);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&all_reading);
}

static int results[4];

static void *try_all(void *arg)
{
	struct timespec past = {0, 0};
	results[0] = pthread_rwlock_tryrdlock(&lock);
	results[1] = pthread_rwlock_trywrlock(&lock);
	results[2] = pthread_rwlock_timedwrlock(&lock, &past);
	results[3] = pthread_rwlock_timedrdlock(&lock, &past);
	for (int i = 0; i < 4; i++)
		if (results[i] == 0)
			pthread_rwlock_unlock(&lock);
	return NULL;
}

static void from_other_thread(const char *what)
{
	pthread_t t;
	pthread_create(&t, NULL, try_all, NULL);
	pthread_join(t, NULL);
	printf("%s: tryrdlock %s, trywrlock %s, timedwrlock %s, timedrdlock %s\n", what,
	       ename(results[0]), ename(results[1]), ename(results[2]), ename(results[3]));
}

static void exclusion(void)
{
	from_other_thread("unlocked");
	pthread_rwlock_rdlock(&lock);
	from_other_thread("read-locked");
	SHOW(pthread_rwlock_rdlock(&lock)); /* recursive read lock */
	SHOW(pthread_rwlock_unlock(&lock));
	SHOW(pthread_rwlock_unlock(&lock));
	pthread_rwlock_wrlock(&lock);
	from_other_thread("write-locked");
	SHOW(pthread_rwlock_wrlock(&lock));
	SHOW(pthread_rwlock_rdlock(&lock));
	SHOW(pthread_rwlock_trywrlock(&lock));
	SHOW(pthread_rwlock_unlock(&lock));

	struct timespec soon = in_ms(CLOCK_MONOTONIC, 10);
	SHOW(pthread_rwlock_clockwrlock(&lock, CLOCK_MONOTONIC, &soon));
	SHOW(pthread_rwlock_unlock(&lock));
	SHOW(pthread_rwlock_clockrdlock(&lock, CLOCK_MONOTONIC, &soon));
	SHOW(pthread_rwlock_unlock(&lock));
	SHOW(pthread_rwlock_clockrdlock(&lock, CLOCK_PROCESS_CPUTIME_ID, &soon));
}

/* ---- consistency under writers --------------------------------------------------- */
static pthread_rwlock_t data_lock;
static long a, b; /* writers keep a == b */
static long bad_reads, reads;

static void *writer(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_wrlock(&data_lock);
		a++;
		if (i % 100 == 0)
			sched_yield();
		b++;
		pthread_rwlock_unlock(&data_lock);
	}
	return NULL;
}

static void *reader(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_rdlock(&data_lock);
		long x = a;
		if (i % 100 == 0)
			sched_yield();
		long y = b;
		pthread_rwlock_unlock(&data_lock);
		pthread_rwlock_wrlock(&data_lock); /* count under the lock */
		reads++;
		bad_reads += x != y;
		pthread_rwlock_unlock(&data_lock);
	}
	return NULL;
}

static void consistency(void)
{
	pthread_rwlockattr_t at;
	pthread_t t[6];
	int kind = -1;
	pthread_rwlockattr_init(&at);
	SHOW(pthread_rwlockattr_setkind_np(&at, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP));
	pthread_rwlockattr_getkind_np(&at, &kind);
	CHECK("getkind_np", kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	SHOW(pthread_rwlockattr_setkind_np(&at, 99));
	SHOW(pthread_rwlockattr_setpshared(&at, PTHREAD_PROCESS_PRIVATE));
	pthread_rwlock_init(&data_lock, &at);
	pthread_rwlockattr_destroy(&at);
	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, i % 2 ? reader : writer, NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	printf("writers: a %ld b %ld; readers: %ld reads, %ld inconsistent\n", a, b, reads,
	       bad_reads);
	SHOW(pthread_rwlock_destroy(&data_lock));
}

int main(void)
{
	shared_readers();
	exclusion();
	consistency();
	return 0;
}
