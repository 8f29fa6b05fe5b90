/* test_sched_sync.c: mutexes, condition variables, semaphores, barriers, rwlocks,
 * sleeping, timeouts (on a virtual clock) and deadlock detection. */
#include "sched_test.h"

#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

/* ---- mutexes -------------------------------------------------------------------- */
static struct sched_mutex m;

static void *locks_and_traces(void *arg)
{
	CHECK_EQ(sched_mutex_trylock(&m), EBUSY);
	CHECK_EQ(sched_mutex_lock(&m), 0);
	TRACE("%d", self_id());
	sched_thread_yield(); /* still holds it: nobody else gets in */
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	return NULL;
}

TEST_MAIN(mutex_fifo_main)
{
	struct sched_thread *t[3];
	memset(&m, 0, sizeof m); /* all-zero: a normal unlocked mutex */
	CHECK_EQ(sched_mutex_lock(&m), 0);
	for (int i = 0; i < 3; i++)
		t[i] = spawn(locks_and_traces, NULL);
	sched_thread_yield(); /* all three queue up, in order */
	TRACE("m");
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	/* handed over: main cannot take it back before the waiters had it */
	CHECK_EQ(sched_mutex_trylock(&m), EBUSY);
	CHECK_EQ(sched_mutex_lock(&m), 0);
	TRACE("m");
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	for (int i = 0; i < 3; i++)
		join(t[i]);
	CHECK_EQ(sched_mutex_destroy(&m), 0);
	return 0;
}

static void mutex_is_handed_over_in_fifo_order(void **state)
{
	assert_int_equal(run(mutex_fifo_main, NULL), 0);
	assert_trace("m 2 3 4 m");
}

static void *tries_foreign_unlock(void *arg)
{
	struct sched_mutex *mx = arg;
	CHECK_EQ(sched_mutex_trylock(mx), EBUSY);
	CHECK_EQ(sched_mutex_unlock(mx), EPERM);
	return NULL;
}

TEST_MAIN(mutex_types_main)
{
	struct sched_mutex r, e, n;
	CHECK_EQ(sched_mutex_init(&r, SCHED_MUTEX_RECURSIVE), 0);
	CHECK_EQ(sched_mutex_init(&e, SCHED_MUTEX_ERRORCHECK), 0);
	CHECK_EQ(sched_mutex_init(&n, SCHED_MUTEX_NORMAL), 0);
	CHECK_EQ(sched_mutex_init(&n, 7), EINVAL);

	/* recursive: counts, and only the owner unlocks */
	CHECK_EQ(sched_mutex_lock(&r), 0);
	CHECK_EQ(sched_mutex_lock(&r), 0);
	CHECK_EQ(sched_mutex_trylock(&r), 0);
	join(spawn(tries_foreign_unlock, &r));
	CHECK_EQ(sched_mutex_destroy(&r), EBUSY);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(sched_mutex_unlock(&r), 0);
	CHECK_EQ(sched_mutex_unlock(&r), EPERM);
	CHECK_EQ(sched_mutex_destroy(&r), 0);

	/* error-checking: EDEADLK on relock, EPERM on unlock by a non-owner */
	CHECK_EQ(sched_mutex_lock(&e), 0);
	CHECK_EQ(sched_mutex_lock(&e), EDEADLK);
	CHECK_EQ(sched_mutex_trylock(&e), EBUSY);
	join(spawn(tries_foreign_unlock, &e));
	CHECK_EQ(sched_mutex_unlock(&e), 0);
	CHECK_EQ(sched_mutex_unlock(&e), EPERM);

	/* normal: no checks, as in glibc */
	CHECK_EQ(sched_mutex_lock(&n), 0);
	CHECK_EQ(sched_mutex_trylock(&n), EBUSY);
	CHECK_EQ(sched_mutex_unlock(&n), 0);
	CHECK_EQ(sched_mutex_unlock(&n), 0);
	return 0;
}

static void mutex_types_and_error_codes(void **state)
{
	assert_int_equal(run(mutex_types_main, NULL), 0);
}

/* glibc's static initializers work on our mutex stored inside pthread_mutex_t */
TEST_MAIN(glibc_initializers_main)
{
	static pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
	static pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	static pthread_mutex_t chk = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	static pthread_mutex_t adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
	static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
	struct sched_mutex *mp = (void *)&plain, *mr = (void *)&rec, *mc = (void *)&chk;
	struct sched_mutex *ma = (void *)&adaptive;
	CHECK_EQ(sched_mutex_lock(mp), 0);
	CHECK_EQ(sched_mutex_trylock(mp), EBUSY);
	CHECK_EQ(sched_mutex_unlock(mp), 0);
	CHECK_EQ(sched_mutex_lock(mr), 0);
	CHECK_EQ(sched_mutex_lock(mr), 0);
	CHECK_EQ(sched_mutex_unlock(mr), 0);
	CHECK_EQ(sched_mutex_unlock(mr), 0);
	CHECK_EQ(sched_mutex_unlock(mr), EPERM);
	CHECK_EQ(sched_mutex_lock(mc), 0);
	CHECK_EQ(sched_mutex_lock(mc), EDEADLK);
	CHECK_EQ(sched_mutex_unlock(mc), 0);
	CHECK_EQ(sched_mutex_lock(ma), 0);
	CHECK_EQ(sched_mutex_trylock(ma), EBUSY);
	CHECK_EQ(sched_mutex_unlock(ma), 0);
	CHECK_EQ(sched_cond_signal((void *)&cond), 0);
	CHECK_EQ(sched_cond_destroy((void *)&cond), 0);
	CHECK_EQ(sched_rwlock_rdlock((void *)&rw), 0);
	CHECK_EQ(sched_rwlock_unlock((void *)&rw), 0);
	return 0;
}

static void glibc_static_initializers(void **state)
{
	assert_int_equal(run(glibc_initializers_main, NULL), 0);
}

static void *holds_m_for(void *arg)
{
	struct timespec d = duration((uint64_t)(intptr_t)arg);
	CHECK_EQ(sched_mutex_lock(&m), 0);
	sched_sleep(&d);
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	return NULL;
}

TEST_MAIN(timedlock_main)
{
	memset(&m, 0, sizeof m);
	/* free: the deadline is not even looked at */
	struct timespec bad = { .tv_sec = 0, .tv_nsec = 2000000000L };
	CHECK_EQ(sched_mutex_timedlock(&m, &bad, CLOCK_MONOTONIC), 0);
	CHECK_EQ(sched_mutex_unlock(&m), 0);

	struct sched_thread *t = spawn(holds_m_for, (void *)(intptr_t)(10 * SEC));
	sched_thread_yield(); /* t holds m and sleeps until 10 s */
	CHECK_EQ(sched_mutex_timedlock(&m, &bad, CLOCK_MONOTONIC), EINVAL);
	CHECK_EQ(sched_mutex_timedlock(&m, &bad, CLOCK_PROCESS_CPUTIME_ID), EINVAL);
	struct timespec dl = deadline_in(3 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_mutex_timedlock(&m, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(vclock[0], 3 * SEC);
	/* a deadline already past still lets the scheduler decide: it expires */
	dl = deadline_in(0, CLOCK_MONOTONIC);
	CHECK_EQ(sched_mutex_timedlock(&m, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(vclock[0], 3 * SEC);
	/* this one is handed the mutex at 10 s, before its deadline at 13 s */
	dl = deadline_in(10 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_mutex_timedlock(&m, &dl, CLOCK_MONOTONIC), 0);
	CHECK_EQ(vclock[0], 10 * SEC);
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	join(t);
	return 0;
}

static void mutex_timedlock_expires_or_not(void **state)
{
	assert_int_equal(run(timedlock_main, &virtual_hooks), 0);
}

/* ---- condition variables ---------------------------------------------------------- */
#define QSIZE 4
#define ITEMS 1000
static struct {
	struct sched_mutex lock;
	struct sched_cond not_full, not_empty;
	int buf[QSIZE];
	int head, count;
	long sum;
	int taken;
} q;

static void *producer(void *arg)
{
	int base = (int)(intptr_t)arg;
	for (int i = 1; i <= ITEMS; i++) {
		sched_mutex_lock(&q.lock);
		while (q.count == QSIZE)
			sched_cond_wait(&q.not_full, &q.lock);
		q.buf[(q.head + q.count++) % QSIZE] = base + i;
		sched_cond_signal(&q.not_empty);
		sched_mutex_unlock(&q.lock);
		if (i % 7 == 0)
			sched_thread_yield();
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long n = 0;
	for (;;) {
		sched_mutex_lock(&q.lock);
		while (q.count == 0 && q.taken < 2 * ITEMS)
			sched_cond_wait(&q.not_empty, &q.lock);
		if (q.count == 0) {
			sched_mutex_unlock(&q.lock);
			return (void *)n;
		}
		q.sum += q.buf[q.head];
		q.head = (q.head + 1) % QSIZE;
		q.count--;
		if (++q.taken == 2 * ITEMS)
			sched_cond_broadcast(&q.not_empty); /* wake the other consumer to quit */
		sched_cond_signal(&q.not_full);
		sched_mutex_unlock(&q.lock);
		n++;
		sched_thread_yield(); /* let the other consumer have some */
	}
}

TEST_MAIN(prodcons_main)
{
	memset(&q, 0, sizeof q);
	struct sched_thread *p1 = spawn(producer, (void *)0);
	struct sched_thread *p2 = spawn(producer, (void *)100000);
	struct sched_thread *c1 = spawn(consumer, NULL);
	struct sched_thread *c2 = spawn(consumer, NULL);
	join(p1);
	join(p2);
	long n1 = join(c1), n2 = join(c2);
	CHECK_EQ(n1 + n2, 2 * ITEMS);
	CHECK(n1 > 0 && n2 > 0);
	/* 1..ITEMS twice, plus 100000 per item of the second producer */
	CHECK_EQ(q.sum, (long)ITEMS * (ITEMS + 1) + 100000L * ITEMS);
	CHECK_EQ(q.count, 0);
	return 0;
}

static void producer_consumer_with_condvars(void **state)
{
	assert_int_equal(run(prodcons_main, NULL), 0);
}

static struct sched_cond cv;

static void *waits_on_cv(void *arg)
{
	CHECK_EQ(sched_mutex_lock(&m), 0);
	CHECK_EQ(sched_cond_wait(&cv, &m), 0);
	TRACE("w%d", self_id());
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	return NULL;
}

TEST_MAIN(cond_order_main)
{
	struct sched_thread *t[6];
	memset(&m, 0, sizeof m);
	memset(&cv, 0, sizeof cv);
	for (int i = 0; i < 6; i++)
		t[i] = spawn(waits_on_cv, NULL);
	sched_thread_yield(); /* all wait, in creation order */
	CHECK_EQ(sched_cond_destroy(&cv), EBUSY);
	sched_cond_signal(&cv);
	sched_cond_signal(&cv);
	sched_thread_yield();
	TRACE("m");
	sched_cond_broadcast(&cv);
	for (int i = 0; i < 6; i++)
		join(t[i]);
	CHECK_EQ(sched_cond_signal(&cv), 0); /* nobody waits: nothing happens */
	return 0;
}

static void condvar_wakes_in_fifo_order(void **state)
{
	assert_int_equal(run(cond_order_main, NULL), 0);
	assert_trace("w2 w3 m w4 w5 w6 w7");
}

/* sched_cond_wait_unlocked: the wait releases every level of a recursive mutex and
 * returns without it, signalled, timed out or interrupted; EPERM leaves it alone. */
static struct sched_mutex rm;
static struct sched_thread *unlocked_waiter;

static void *waits_unlocked(void *arg)
{
	CHECK_EQ(sched_mutex_lock(&rm), 0);
	CHECK_EQ(sched_mutex_lock(&rm), 0);
	int r = sched_cond_wait_unlocked(&cv, &rm, NULL, CLOCK_MONOTONIC);
	TRACE("w%d", r);
	CHECK(rm.count == 0 || rm.owner != self_id()); /* not taken back */
	return NULL;
}

TEST_MAIN(cond_unlocked_main)
{
	memset(&cv, 0, sizeof cv);
	sched_mutex_init(&rm, SCHED_MUTEX_RECURSIVE);
	CHECK_EQ(sched_cond_wait_unlocked(&cv, &rm, NULL, CLOCK_MONOTONIC), EPERM);
	struct sched_thread *t = spawn(waits_unlocked, NULL);
	sched_thread_yield();
	CHECK_EQ(rm.count, 0u); /* both levels released while it waits */
	sched_mutex_lock(&rm);
	sched_cond_signal(&cv);
	join(t); /* it returns at once, not waiting for rm */
	sched_mutex_unlock(&rm);
	unlocked_waiter = spawn(waits_unlocked, NULL);
	sched_thread_yield();
	CHECK_EQ(sched_interrupt(unlocked_waiter, EINTR), 0);
	join(unlocked_waiter);
	return 0;
}

static void condvar_wait_unlocked_leaves_the_mutex(void **state)
{
	assert_int_equal(run(cond_unlocked_main, NULL), 0);
	assert_trace("w0 w4");
}

static void *signals_after(void *arg)
{
	struct timespec d = duration((uint64_t)(intptr_t)arg);
	sched_sleep(&d);
	sched_mutex_lock(&m);
	sched_cond_signal(&cv);
	sched_mutex_unlock(&m);
	return NULL;
}

TEST_MAIN(cond_timed_main)
{
	struct sched_mutex e;
	sched_mutex_init(&e, SCHED_MUTEX_ERRORCHECK);
	memset(&cv, 0, sizeof cv);
	memset(&m, 0, sizeof m);

	/* expires, on either clock, and returns with the mutex held */
	CHECK_EQ(sched_mutex_lock(&e), 0);
	struct timespec dl = deadline_in(2 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_cond_timedwait(&cv, &e, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(vclock[0], 2 * SEC);
	vclock[1] = 1000 * SEC;
	dl = deadline_in(5 * SEC, CLOCK_REALTIME);
	CHECK_EQ(sched_cond_timedwait(&cv, &e, &dl, CLOCK_REALTIME), ETIMEDOUT);
	CHECK_EQ(vclock[1], 1005 * SEC);
	CHECK_EQ(vclock[0], 2 * SEC);
	CHECK_EQ(sched_mutex_unlock(&e), 0); /* still ours */
	CHECK_EQ(sched_cond_timedwait(&cv, &e, &dl, CLOCK_REALTIME), EPERM);

	/* signalled at 2+4 s, before the deadline at 2+9 s */
	CHECK_EQ(sched_mutex_lock(&m), 0);
	struct sched_thread *t = spawn(signals_after, (void *)(intptr_t)(4 * SEC));
	dl = deadline_in(9 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_cond_timedwait(&cv, &m, &dl, CLOCK_MONOTONIC), 0);
	CHECK_EQ(vclock[0], 6 * SEC);
	CHECK_EQ(sched_mutex_unlock(&m), 0);
	join(t);

	/* a recursive mutex comes back with all its levels */
	struct sched_mutex r;
	sched_mutex_init(&r, SCHED_MUTEX_RECURSIVE);
	sched_mutex_lock(&r);
	sched_mutex_lock(&r);
	dl = deadline_in(SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_cond_timedwait(&cv, &r, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(sched_mutex_unlock(&r), 0);
	CHECK_EQ(sched_mutex_unlock(&r), 0);
	CHECK_EQ(sched_mutex_unlock(&r), EPERM);
	return 0;
}

static void condvar_timed_wait_expires_or_not(void **state)
{
	assert_int_equal(run(cond_timed_main, &virtual_hooks), 0);
}

/* The real clock, as the default hooks have it. */
static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

TEST_MAIN(real_clock_main)
{
	memset(&m, 0, sizeof m);
	memset(&cv, 0, sizeof cv);
	uint64_t start = real_ns();
	sched_mutex_lock(&m);
	struct timespec dl = deadline_in(20000000, CLOCK_MONOTONIC);
	CHECK_EQ(sched_cond_timedwait(&cv, &m, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	sched_mutex_unlock(&m);
	CHECK(real_ns() - start >= 20000000);
	start = real_ns();
	struct timespec d = duration(10000000);
	CHECK_EQ(sched_sleep(&d), 0);
	CHECK(real_ns() - start >= 10000000);
	return 0;
}

static void default_hooks_use_the_real_clock(void **state)
{
	assert_int_equal(run(real_clock_main, NULL), 0);
}

/* ---- semaphores ------------------------------------------------------------------- */
static struct sched_sem sem;

static void *sem_taker(void *arg)
{
	CHECK_EQ(sched_sem_wait(&sem), 0);
	TRACE("t%d", self_id());
	return NULL;
}

TEST_MAIN(sem_main)
{
	int v;
	struct sched_thread *t[3];
	CHECK_EQ(sched_sem_init(&sem, (unsigned)SCHED_SEM_VALUE_MAX + 1), EINVAL);
	CHECK_EQ(sched_sem_init(&sem, 2), 0);
	CHECK_EQ(sched_sem_trywait(&sem), 0);
	CHECK_EQ(sched_sem_trywait(&sem), 0);
	CHECK_EQ(sched_sem_trywait(&sem), EAGAIN);
	for (int i = 0; i < 3; i++)
		t[i] = spawn(sem_taker, NULL);
	sched_thread_yield();
	CHECK_EQ(sched_sem_destroy(&sem), EBUSY);
	CHECK_EQ(sched_sem_getvalue(&sem, &v), 0);
	CHECK_EQ(v, 0);
	TRACE("post");
	CHECK_EQ(sched_sem_post(&sem), 0); /* straight to thread 2 */
	CHECK_EQ(sched_sem_trywait(&sem), EAGAIN);
	CHECK_EQ(sched_sem_post(&sem), 0);
	CHECK_EQ(sched_sem_post(&sem), 0);
	CHECK_EQ(sched_sem_post(&sem), 0); /* nobody waits: value 1 */
	for (int i = 0; i < 3; i++)
		join(t[i]);
	CHECK_EQ(sched_sem_getvalue(&sem, &v), 0);
	CHECK_EQ(v, 1);

	struct timespec dl = deadline_in(4 * SEC, CLOCK_REALTIME);
	CHECK_EQ(sched_sem_timedwait(&sem, &dl, CLOCK_REALTIME), 0); /* available */
	CHECK_EQ(sched_sem_timedwait(&sem, &dl, CLOCK_REALTIME), ETIMEDOUT);
	CHECK_EQ(vclock[1], 4 * SEC);
	CHECK_EQ(sched_sem_destroy(&sem), 0);

	CHECK_EQ(sched_sem_init(&sem, SCHED_SEM_VALUE_MAX), 0);
	CHECK_EQ(sched_sem_post(&sem), EOVERFLOW);
	return 0;
}

static void semaphores(void **state)
{
	assert_int_equal(run(sem_main, &virtual_hooks), 0);
	assert_trace("post t2 t3 t4");
}

/* ---- barriers ------------------------------------------------------------------- */
#define BTHREADS 5
#define BROUNDS 10
static struct sched_barrier bar;
static int serial_per_round[BROUNDS], arrived_per_round[BROUNDS];

static void *barrier_worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int r = 0; r < BROUNDS; r++) {
		arrived_per_round[r]++;
		for (int i = 0; i < (me + r) % 3; i++) /* arrive in varying orders */
			sched_thread_yield();
		int ret = sched_barrier_wait(&bar);
		CHECK(ret == 0 || ret == SCHED_BARRIER_SERIAL_THREAD);
		if (ret == SCHED_BARRIER_SERIAL_THREAD)
			serial_per_round[r]++;
		/* nobody gets past before everyone arrived */
		CHECK_EQ(arrived_per_round[r], BTHREADS);
	}
	return NULL;
}

TEST_MAIN(barrier_main)
{
	struct sched_thread *t[BTHREADS];
	memset(serial_per_round, 0, sizeof serial_per_round);
	memset(arrived_per_round, 0, sizeof arrived_per_round);
	CHECK_EQ(sched_barrier_init(&bar, 0), EINVAL);
	CHECK_EQ(sched_barrier_init(&bar, BTHREADS), 0);
	for (int i = 0; i < BTHREADS; i++)
		t[i] = spawn(barrier_worker, (void *)(intptr_t)i);
	for (int i = 0; i < BTHREADS; i++)
		join(t[i]);
	for (int r = 0; r < BROUNDS; r++)
		CHECK_EQ(serial_per_round[r], 1);
	CHECK_EQ(sched_barrier_destroy(&bar), 0);
	struct sched_barrier one;
	sched_barrier_init(&one, 1);
	CHECK_EQ(sched_barrier_wait(&one), SCHED_BARRIER_SERIAL_THREAD);
	struct sched_barrier zero = { 0 };
	CHECK_EQ(sched_barrier_wait(&zero), EINVAL);
	return 0;
}

static void barrier_has_one_serial_thread_per_round(void **state)
{
	assert_int_equal(run(barrier_main, NULL), 0);
}

/* ---- rwlocks ------------------------------------------------------------------- */
static struct sched_rwlock rw;

static void *reader(void *arg)
{
	CHECK_EQ(sched_rwlock_rdlock(&rw), 0);
	TRACE("r%d+", self_id());
	sched_thread_yield();
	TRACE("r%d-", self_id());
	CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	return NULL;
}

static void *writer(void *arg)
{
	CHECK_EQ(sched_rwlock_wrlock(&rw), 0);
	TRACE("w%d+", self_id());
	CHECK_EQ(sched_rwlock_wrlock(&rw), EDEADLK);
	CHECK_EQ(sched_rwlock_rdlock(&rw), EDEADLK);
	sched_thread_yield();
	TRACE("w%d-", self_id());
	CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	return NULL;
}

static void *tries_to_unlock(void *arg)
{
	CHECK_EQ(sched_rwlock_unlock(&rw), EPERM); /* someone else writes */
	return NULL;
}

TEST_MAIN(rwlock_main)
{
	struct sched_thread *t[6];
	memset(&rw, 0, sizeof rw);
	CHECK_EQ(sched_rwlock_unlock(&rw), EPERM);
	/* readers share, a writer waits for them, later readers wait behind it */
	CHECK_EQ(sched_rwlock_rdlock(&rw), 0);
	t[0] = spawn(reader, NULL); /* 2 */
	t[1] = spawn(reader, NULL); /* 3 */
	t[2] = spawn(writer, NULL); /* 4 */
	t[3] = spawn(reader, NULL); /* 5 */
	t[4] = spawn(writer, NULL); /* 6 */
	t[5] = spawn(reader, NULL); /* 7 */
	sched_thread_yield();
	TRACE("m");
	CHECK_EQ(sched_rwlock_trywrlock(&rw), EBUSY);
	CHECK_EQ(sched_rwlock_tryrdlock(&rw), 0);   /* main already reads: no queueing */
	CHECK_EQ(sched_rwlock_rdlock(&rw), 0);      /* (recursive read locks cannot deadlock) */
	CHECK_EQ(sched_rwlock_destroy(&rw), EBUSY);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	for (int i = 0; i < 6; i++)
		join(t[i]);
	CHECK_EQ(sched_rwlock_destroy(&rw), 0);

	/* only the writer unlocks a write lock */
	CHECK_EQ(sched_rwlock_wrlock(&rw), 0);
	CHECK_EQ(sched_rwlock_tryrdlock(&rw), EBUSY);
	join(spawn(tries_to_unlock, NULL));
	CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	return 0;
}

static void rwlock_is_fifo(void **state)
{
	assert_int_equal(run(rwlock_main, NULL), 0);
	/* 2 3 read with main; 4 waits for them; 5 queues behind 4; 6 behind 5; 7 behind 6.
	 * main's unlock leaves 2 and 3; the last of them hands over to 4 alone, 4 to 5,
	 * 5 to 6, 6 to 7. */
	assert_trace("r2+ r3+ m r2- r3- w4+ w4- r5+ r5- w6+ w6- r7+ r7-");
}

static void *times_out_writing(void *arg)
{
	struct timespec dl = deadline_in(2 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_rwlock_timedwrlock(&rw, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	TRACE("w%d timeout", self_id());
	return NULL;
}

static void *reads_when_it_can(void *arg)
{
	struct timespec dl = deadline_in(60 * SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_rwlock_timedrdlock(&rw, &dl, CLOCK_MONOTONIC), 0);
	TRACE("r%d at %llus", self_id(), (unsigned long long)(vclock[0] / SEC));
	CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	return NULL;
}

TEST_MAIN(rwlock_timed_main)
{
	memset(&rw, 0, sizeof rw);
	CHECK_EQ(sched_rwlock_rdlock(&rw), 0);
	struct sched_thread *w = spawn(times_out_writing, NULL);
	sched_thread_yield();
	struct sched_thread *r = spawn(reads_when_it_can, NULL); /* queues behind w */
	sched_thread_yield();
	/* main keeps reading while w's deadline passes: then r may read too */
	struct timespec d = duration(5 * SEC);
	sched_sleep(&d);
	TRACE("m at %llus", (unsigned long long)(vclock[0] / SEC));
	join(w);
	join(r);
	CHECK_EQ(sched_rwlock_unlock(&rw), 0);
	return 0;
}

static void rwlock_timeout_lets_readers_behind_in(void **state)
{
	assert_int_equal(run(rwlock_timed_main, &virtual_hooks), 0);
	assert_trace("w2 timeout r3 at 2s m at 5s");
}

/* ---- sleeping ------------------------------------------------------------------- */
static void *sleeper(void *arg)
{
	struct timespec d = duration((uint64_t)(intptr_t)arg * SEC);
	CHECK_EQ(sched_sleep(&d), 0);
	TRACE("%d@%llu", self_id(), (unsigned long long)(vclock[0] / SEC));
	return NULL;
}

TEST_MAIN(sleep_main)
{
	static const int secs[] = { 3, 1, 2, 1, 0, 2 };
	struct sched_thread *t[6];
	for (int i = 0; i < 6; i++)
		t[i] = spawn(sleeper, (void *)(intptr_t)secs[i]);
	for (int i = 0; i < 6; i++)
		join(t[i]);
	struct timespec bad = { .tv_sec = -1 };
	CHECK_EQ(sched_sleep(&bad), EINVAL);
	CHECK_EQ(sched_sleep_until(NULL, CLOCK_MONOTONIC), EINVAL);
	struct timespec until = { .tv_sec = 10 };
	CHECK_EQ(sched_sleep_until(&until, CLOCK_MONOTONIC), 0);
	CHECK_EQ(vclock[0], 10 * SEC);
	return 0;
}

static void sleepers_wake_by_deadline_then_id(void **state)
{
	assert_int_equal(run(sleep_main, &virtual_hooks), 0);
	assert_trace("6@0 3@1 5@1 4@2 7@2 2@3");
	assert_int_equal(idle_calls, 4); /* 0 s is due at once; then 1, 2, 3 and 10 */
}

static void *sleeps_until(void *arg)
{
	clockid_t clk = arg ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	struct timespec until = { .tv_sec = arg ? 1003 : 5 };
	CHECK_EQ(sched_sleep_until(&until, clk), 0);
	TRACE("%s@%llu/%llu", arg ? "rt" : "mono", (unsigned long long)(vclock[0] / SEC),
	      (unsigned long long)(vclock[1] / SEC));
	return NULL;
}

TEST_MAIN(two_clocks_main)
{
	vclock[1] = 1000 * SEC;
	struct sched_thread *mono = spawn(sleeps_until, NULL);
	struct sched_thread *rt = spawn(sleeps_until, (void *)1);
	join(mono);
	join(rt);
	return 0;
}

/* Monotonic 5 s away, realtime 3 s away: idle is asked for the realtime one first. The
 * virtual clocks do not move together, so the monotonic one then needs its own idle. */
static void idle_picks_the_nearer_deadline_of_two_clocks(void **state)
{
	assert_int_equal(run(two_clocks_main, &virtual_hooks), 0);
	assert_trace("rt@0/1003 mono@5/1003");
	assert_int_equal(idle_calls, 2);
}

/* ---- generic wait queues ---------------------------------------------------------- */
static struct sched_waitq wq;

static void *blocks_on_wq(void *arg)
{
	CHECK_EQ(sched_block(&wq, NULL, 0), 0);
	TRACE("b%d", self_id());
	return NULL;
}

TEST_MAIN(waitq_main)
{
	struct sched_thread *t[4];
	memset(&wq, 0, sizeof wq);
	for (int i = 0; i < 4; i++)
		t[i] = spawn(blocks_on_wq, NULL);
	sched_thread_yield();
	CHECK(sched_wake_one(&wq) == t[0]);
	CHECK_EQ(sched_wake_all(&wq), 3);
	CHECK(sched_wake_one(&wq) == NULL);
	for (int i = 0; i < 4; i++)
		join(t[i]);
	struct timespec dl = deadline_in(SEC, CLOCK_MONOTONIC);
	CHECK_EQ(sched_block(&wq, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(sched_block(NULL, &dl, CLOCK_MONOTONIC), ETIMEDOUT);
	CHECK_EQ(sched_block(&wq, &dl, CLOCK_THREAD_CPUTIME_ID), EINVAL);
	CHECK(wq.head == NULL && wq.tail == NULL);
	return 0;
}

static void generic_block_and_wake(void **state)
{
	assert_int_equal(run(waitq_main, &virtual_hooks), 0);
	assert_trace("b2 b3 b4 b5");
}

/* ---- deadlocks ------------------------------------------------------------------ */
static struct sched_mutex ma, mb;
static char *report;
static int deadlocks;

static void record_deadlock(void)
{
	size_t len;
	FILE *f = open_memstream(&report, &len);
	sched_report_deadlock(f);
	fclose(f);
	deadlocks++;
}

static void *locks_b_then_a(void *arg)
{
	sched_mutex_lock(&mb);
	sched_thread_yield();
	sched_mutex_lock(&ma);
	return NULL;
}

static struct sched_cond stuck_cv;
static struct sched_mutex stuck_m;

static void *waits_on_stuck_cv(void *arg)
{
	sched_mutex_lock(&stuck_m);
	CHECK_EQ(sched_cond_wait(&stuck_cv, &stuck_m), 0);
	sched_mutex_unlock(&stuck_m);
	return NULL;
}

TEST_MAIN(deadlock_main)
{
	memset(&ma, 0, sizeof ma);
	memset(&mb, 0, sizeof mb);
	memset(&stuck_cv, 0, sizeof stuck_cv);
	memset(&stuck_m, 0, sizeof stuck_m);
	sched_mutex_lock(&ma);
	struct sched_thread *t = spawn(locks_b_then_a, NULL);
	spawn(waits_on_stuck_cv, NULL);
	sched_thread_yield();
	sched_mutex_lock(&mb); /* never returns */
	join(t);
	CHECK(!"the deadlock was not detected");
	return 0;
}

TEST_MAIN(reuse_stuck_cv_main)
{
	struct sched_thread *t = spawn(waits_on_stuck_cv, NULL);
	sched_thread_yield();
	CHECK_EQ(sched_cond_destroy(&stuck_cv), EBUSY);
	sched_cond_signal(&stuck_cv);
	join(t);
	return 0;
}

static void deadlock_reaches_the_hook(void **state)
{
	const struct sched_hooks hooks = { .deadlock = record_deadlock };
	deadlocks = 0;
	assert_int_equal(run(deadlock_main, &hooks), SCHED_RUN_ABORTED);
	assert_int_equal(deadlocks, 1);
	char want[512];
	snprintf(want, sizeof want,
		 "sched: deadlock: all 3 live threads are blocked\n"
		 "sched:   thread 1: blocked on mutex %p held by thread 2; holds mutex %p\n"
		 "sched:   thread 2: blocked on mutex %p held by thread 1; holds mutex %p\n",
		 (void *)&mb, (void *)&ma, (void *)&ma, (void *)&mb);
	assert_memory_equal(report, want, strlen(want));
	assert_non_null(strstr(report, "sched:   thread 3: blocked on condvar "));
	free(report);
	/* Thread 3 was left on stuck_cv's queue: a later run that signals stuck_cv wakes
	 * its own waiter, not the abandoned one (whose stack is gone). */
	assert_int_equal(run(reuse_stuck_cv_main, NULL), 0);
	assert_int_equal(sched_cond_destroy(&stuck_cv), 0);
}

TEST_MAIN(joins_blocked_main)
{
	sched_mutex_lock(&ma);
	struct sched_thread *t = spawn(locks_b_then_a, NULL);
	join(t);
	return 0;
}

/* The default: a report on stderr and exit(1). In a child, to survive it. */
static void default_deadlock_report_and_exit(void **state)
{
	char buf[1024];
	memset(&ma, 0, sizeof ma);
	memset(&mb, 0, sizeof mb);
	int status = run_in_child(joins_blocked_main, buf, sizeof buf);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_non_null(strstr(buf, "sched: deadlock: all 2 live threads are blocked\n"));
	assert_non_null(strstr(buf, "sched:   thread 1: blocked on joining thread 2; holds mutex "));
	assert_non_null(strstr(buf, "sched:   thread 2: blocked on mutex "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mutex_is_handed_over_in_fifo_order),
		cmocka_unit_test(mutex_types_and_error_codes),
		cmocka_unit_test(glibc_static_initializers),
		cmocka_unit_test(mutex_timedlock_expires_or_not),
		cmocka_unit_test(producer_consumer_with_condvars),
		cmocka_unit_test(condvar_wakes_in_fifo_order),
		cmocka_unit_test(condvar_timed_wait_expires_or_not),
		cmocka_unit_test(condvar_wait_unlocked_leaves_the_mutex),
		cmocka_unit_test(default_hooks_use_the_real_clock),
		cmocka_unit_test(semaphores),
		cmocka_unit_test(barrier_has_one_serial_thread_per_round),
		cmocka_unit_test(rwlock_is_fifo),
		cmocka_unit_test(rwlock_timeout_lets_readers_behind_in),
		cmocka_unit_test(sleepers_wake_by_deadline_then_id),
		cmocka_unit_test(idle_picks_the_nearer_deadline_of_two_clocks),
		cmocka_unit_test(generic_block_and_wake),
		cmocka_unit_test(deadlock_reaches_the_hook),
		cmocka_unit_test(default_deadlock_report_and_exit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
