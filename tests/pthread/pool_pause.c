/* pool_pause: a thread pool whose pause and resume are built on signals, as a
 * well-known C pool library does it: pause sends SIGUSR1 to every worker, whose
 * handler (installed with SA_ONSTACK, once per worker) sleeps until a global flag
 * is cleared. Idle workers wait for jobs on a binary semaphore made of a mutex and
 * a condition variable, so the handler runs inside pthread_cond_wait: it must run
 * with that mutex released (as glibc's does), or the pool's next add, which takes
 * the mutex, waits for ever. Jobs added while paused run after resume. (They are
 * added without signalling the condition variable: glibc's pthread_cond_signal
 * may wait for the waiters whose handlers run to leave the wait, which these do
 * only at resume.) Also a 200-worker pool: its 200 sigaction calls with SA_ONSTACK
 * print nothing.
 * STDERR: same */
#include "pt_test.h"

#include <signal.h>
#include <stdbool.h>

/* A binary semaphore: a mutex, a condition variable and a flag. */
struct bsem {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int v;
	int sleepers; /* threads inside pthread_cond_wait */
};

static void bsem_init(struct bsem *b)
{
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	b->v = 0;
	b->sleepers = 0;
}

static void bsem_post(struct bsem *b, bool wake)
{
	pthread_mutex_lock(&b->mu);
	b->v = 1;
	if (wake)
		pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

static void bsem_post_all(struct bsem *b)
{
	pthread_mutex_lock(&b->mu);
	b->v = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

static void bsem_wait(struct bsem *b)
{
	pthread_mutex_lock(&b->mu);
	b->sleepers++;
	while (b->v != 1)
		pthread_cond_wait(&b->cv, &b->mu);
	b->sleepers--;
	b->v = 0;
	pthread_mutex_unlock(&b->mu);
}

struct job {
	struct job *next;
	long n;
};

struct pool {
	pthread_t *threads;
	int nthreads;
	pthread_mutex_t qmu;   /* the queue and the counts */
	struct job *head, *tail;
	int queued;
	struct bsem has_jobs;
	int alive, working;
	pthread_cond_t all_idle;
	volatile int keepalive;
};

static volatile sig_atomic_t on_hold;
static long done_jobs, done_sum;
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;

static void hold(int sig)
{
	while (on_hold)
		usleep(1000);
}

static struct job *pull(struct pool *p)
{
	pthread_mutex_lock(&p->qmu);
	struct job *j = p->head;
	if (j) {
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		if (p->queued > 0)
			bsem_post(&p->has_jobs, true);
	}
	pthread_mutex_unlock(&p->qmu);
	return j;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_ONSTACK;
	sa.sa_handler = hold;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_mutex_lock(&p->qmu);
	p->alive++;
	pthread_mutex_unlock(&p->qmu);
	while (p->keepalive) {
		bsem_wait(&p->has_jobs);
		if (!p->keepalive)
			break;
		pthread_mutex_lock(&p->qmu);
		p->working++;
		pthread_mutex_unlock(&p->qmu);
		struct job *j = pull(p);
		if (j) {
			long s = 0;
			for (long i = 1; i <= j->n; i++)
				s += i % 7;
			pthread_mutex_lock(&done_mu);
			done_jobs++;
			done_sum += s;
			pthread_mutex_unlock(&done_mu);
			free(j);
		}
		pthread_mutex_lock(&p->qmu);
		if (--p->working == 0)
			pthread_cond_signal(&p->all_idle);
		pthread_mutex_unlock(&p->qmu);
	}
	pthread_mutex_lock(&p->qmu);
	p->alive--;
	pthread_mutex_unlock(&p->qmu);
	return NULL;
}

static void pool_init(struct pool *p, int n)
{
	memset(p, 0, sizeof *p);
	p->keepalive = 1;
	p->nthreads = n;
	pthread_mutex_init(&p->qmu, NULL);
	pthread_cond_init(&p->all_idle, NULL);
	bsem_init(&p->has_jobs);
	p->threads = calloc((size_t)n, sizeof *p->threads);
	for (int i = 0; i < n; i++)
		pthread_create(&p->threads[i], NULL, worker, p);
	for (;;) { /* wait until every worker is alive */
		pthread_mutex_lock(&p->qmu);
		int a = p->alive;
		pthread_mutex_unlock(&p->qmu);
		if (a == n)
			break;
		usleep(1000);
	}
}

/* wake: signal a worker (not while they are paused: see above). */
static void pool_add(struct pool *p, long n, bool wake)
{
	struct job *j = calloc(1, sizeof *j);
	j->n = n;
	pthread_mutex_lock(&p->qmu);
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	p->queued++;
	bsem_post(&p->has_jobs, wake);
	pthread_mutex_unlock(&p->qmu);
}

static void pool_wait(struct pool *p)
{
	pthread_mutex_lock(&p->qmu);
	while (p->queued || p->working)
		pthread_cond_wait(&p->all_idle, &p->qmu);
	pthread_mutex_unlock(&p->qmu);
}

/* Once every worker is inside pthread_cond_wait (seen holding the mutex they wait
 * with: they released it only there), so that no handler runs with it held. */
static void pool_pause(struct pool *p)
{
	for (;;) {
		pthread_mutex_lock(&p->has_jobs.mu);
		if (p->has_jobs.sleepers == p->nthreads)
			break;
		pthread_mutex_unlock(&p->has_jobs.mu);
		usleep(1000);
	}
	on_hold = 1;
	for (int i = 0; i < p->nthreads; i++)
		pthread_kill(p->threads[i], SIGUSR1);
	pthread_mutex_unlock(&p->has_jobs.mu);
}

static void pool_resume(struct pool *p)
{
	on_hold = 0;
	bsem_post_all(&p->has_jobs);
}

static void pool_destroy(struct pool *p)
{
	p->keepalive = 0;
	for (;;) {
		bsem_post_all(&p->has_jobs);
		pthread_mutex_lock(&p->qmu);
		int a = p->alive;
		pthread_mutex_unlock(&p->qmu);
		if (a == 0)
			break;
		usleep(1000);
	}
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
}

static long expect(long n)
{
	long s = 0;
	for (long i = 1; i <= n; i++)
		s += i % 7;
	return s;
}

int main(void)
{
	struct pool p;
	long want = 0;
	pool_init(&p, 8);
	for (int i = 0; i < 40; i++) {
		pool_add(&p, 1000 + i, true);
		want += expect(1000 + i);
	}
	pool_wait(&p);
	printf("before pause: %ld jobs, sum %s\n", done_jobs, done_sum == want ? "right" : "WRONG");

	pool_pause(&p);
	usleep(20000); /* the workers are on hold */
	long before = done_jobs;
	for (int i = 0; i < 20; i++) { /* takes the workers' mutex: must not wait */
		pool_add(&p, 2000 + i, false);
		want += expect(2000 + i);
	}
	usleep(50000);
	pthread_mutex_lock(&done_mu);
	printf("while paused: %ld jobs ran\n", done_jobs - before);
	pthread_mutex_unlock(&done_mu);
	pool_resume(&p);
	pool_wait(&p);
	printf("after resume: %ld jobs, sum %s\n", done_jobs, done_sum == want ? "right" : "WRONG");
	pool_destroy(&p);

	/* A big pool: every worker installs the handler with SA_ONSTACK. */
	struct pool big;
	pool_init(&big, 200);
	for (int i = 0; i < 400; i++)
		pool_add(&big, 100, true);
	pool_wait(&big);
	pool_pause(&big);
	usleep(20000);
	pool_resume(&big);
	for (int i = 0; i < 100; i++)
		pool_add(&big, 100, true);
	pool_wait(&big);
	printf("200 workers: %ld jobs done in all\n", done_jobs);
	pool_destroy(&big);
	return 0;
}
