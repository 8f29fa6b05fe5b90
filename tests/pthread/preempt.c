/* preempt: threads spend long stretches computing while holding a mutex, a spinlock,
 * a write lock or a semaphore, so that time slices end inside critical sections (in
 * a sicc build) and the others must wait their turn; the totals come out exact. */
#include "pt_test.h"

#define THREADS 4
#define ROUNDS 150

static volatile unsigned long sink;

static void work(int n)
{
	unsigned long x = sink;
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long by_mutex, by_spin, by_rw, by_sem, tokens, by_cv, rw_bad;

static void *run(void *arg)
{
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&mutex);
		long v = by_mutex;
		work(200000);
		by_mutex = v + 1;
		pthread_mutex_unlock(&mutex);

		pthread_spin_lock(&spin);
		v = by_spin;
		work(50000);
		by_spin = v + 1;
		pthread_spin_unlock(&spin);

		if (r % 4 == 0) {
			pthread_rwlock_wrlock(&rw);
			v = by_rw;
			work(50000);
			by_rw = v + 1;
			pthread_rwlock_unlock(&rw);
		} else {
			pthread_rwlock_rdlock(&rw);
			v = by_rw;
			work(50000);
			if (v != by_rw)
				__atomic_add_fetch(&rw_bad, 1, __ATOMIC_RELAXED);
			pthread_rwlock_unlock(&rw);
		}

		sem_wait(&sem);
		v = by_sem;
		work(50000);
		by_sem = v + 1;
		sem_post(&sem);

		/* pass a token: produce one, consume one */
		pthread_mutex_lock(&cv_lock);
		tokens++;
		pthread_cond_signal(&cv);
		while (tokens == 0)
			pthread_cond_wait(&cv, &cv_lock);
		tokens--;
		v = by_cv;
		work(20000);
		by_cv = v + 1;
		pthread_mutex_unlock(&cv_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	sem_init(&sem, 0, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("mutex %ld spin %ld sem %ld cond %ld (want %d), tokens left %ld\n", by_mutex,
	       by_spin, by_sem, by_cv, THREADS * ROUNDS, tokens);
	printf("rwlock writes %ld (want %d), inconsistent reads %ld\n", by_rw,
	       THREADS * ((ROUNDS + 3) / 4), rw_bad);
	return 0;
}
