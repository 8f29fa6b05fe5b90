#include <pthread.h>

#define QUEUE_SIZE 8

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int jobs[QUEUE_SIZE];
	int head, n;
};

int queue_add(struct queue *q, int job);
int queue_take(struct queue *q, int *job);
