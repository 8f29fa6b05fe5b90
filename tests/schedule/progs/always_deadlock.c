/* A deadlock under every schedule: main holds `table_lock` and joins a worker that
 * needs it; the worker first waits on a semaphore main posts. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
sem_t started;

static void *worker(void *arg)
{
	sem_post(&started);
	pthread_mutex_lock(&table_lock);
	pthread_mutex_unlock(&table_lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	sem_init(&started, 0, 0);
	pthread_mutex_lock(&table_lock);
	pthread_create(&t, NULL, worker, NULL);
	sem_wait(&started);
	printf("joining with the lock held\n");
	fflush(stdout);
	pthread_join(t, NULL);
	printf("not reached\n");
	return 0;
}
