/* tail_sync.c's queue: each call ends in a tail jump to pthread_mutex_unlock. */
#include "tail_sync.h"

int queue_add(struct queue *q, int job)
{
	pthread_mutex_lock(&q->lock);
	while (q->n == QUEUE_SIZE)
		pthread_cond_wait(&q->changed, &q->lock);
	q->jobs[(q->head + q->n++) % QUEUE_SIZE] = job;
	pthread_cond_broadcast(&q->changed);
	return pthread_mutex_unlock(&q->lock);
}

int queue_take(struct queue *q, int *job)
{
	pthread_mutex_lock(&q->lock);
	while (q->n == 0)
		pthread_cond_wait(&q->changed, &q->lock);
	*job = q->jobs[q->head];
	q->head = (q->head + 1) % QUEUE_SIZE;
	q->n--;
	pthread_cond_broadcast(&q->changed);
	return pthread_mutex_unlock(&q->lock);
}
