/* A thread pool as a shared library (tests/replay, issue 11 item 7): workers created
 * inside the library, a task queue under a mutex and two condition variables, and
 * work done in the library itself, so that time slices end inside it. Built with
 * `sicc -shared -fPIC` (instrumented: counted, preemptible, replayed) and with plain
 * `gcc -shared -fPIC` (foreign code calling back into the program). */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

struct task {
	struct task *next;
	void (*fn)(void *);
	void *arg;
	long work;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t more, idle;
	struct task *head, *tail;
	int pending, running, nthreads;
	int stop;
	unsigned long checksum;
	pthread_t threads[];
};

static unsigned long mix(long work, unsigned long seed)
{
	unsigned long h = seed | 1;
	for (long i = 0; i < work; i++)
		h = h * 6364136223846793005ul + (unsigned long)i;
	return h;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->more, &p->mu);
		if (!p->head)
			break;
		struct task *t = p->head;
		p->head = t->next;
		p->running++;
		pthread_mutex_unlock(&p->mu);
		unsigned long h = mix(t->work, (unsigned long)t->work);
		t->fn(t->arg);
		pthread_mutex_lock(&p->mu);
		p->checksum += h;
		free(t);
		p->running--;
		if (--p->pending == 0)
			pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pool *pool_create(int n)
{
	struct pool *p = calloc(1, sizeof *p + n * sizeof(pthread_t));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->nthreads = n;
	for (int i = 0; i < n; i++)
		pthread_create(&p->threads[i], NULL, worker, p);
	return p;
}

int pool_submit(struct pool *p, void (*fn)(void *), void *arg, long work)
{
	struct task *t = malloc(sizeof *t);
	if (!t)
		return -1;
	*t = (struct task){NULL, fn, arg, work};
	pthread_mutex_lock(&p->mu);
	if (p->tail && p->head)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
	p->pending++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void pool_wait(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->pending)
		pthread_cond_wait(&p->idle, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

unsigned long pool_checksum(const struct pool *p)
{
	return p->checksum;
}

void pool_destroy(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p);
}
