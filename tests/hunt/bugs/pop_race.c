/* An atomicity violation: two workers pop jobs off a shared list without a lock.
 * If one is interrupted between reading the head and writing it back (three
 * instructions), the other's pops are undone and a job is done twice.
 * -DFIXED: the pop holds a mutex. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

#define NJOBS 600

struct job {
	struct job *next;
	int id;
};

static struct job jobs[NJOBS];
static struct job *volatile head;
static int done[NJOBS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct job *pop(void)
{
#ifdef FIXED
	pthread_mutex_lock(&lock);
#endif
	struct job *j = head;
	if (j)
		head = j->next; /* the bug: head may have moved since it was read */
#ifdef FIXED
	pthread_mutex_unlock(&lock);
#endif
	return j;
}

static void *worker(void *arg)
{
	for (struct job *j; (j = pop());) {
		hunt_work(200 + (unsigned)j->id % 50);
		__atomic_fetch_add(&done[j->id], 1, __ATOMIC_RELAXED);
	}
	return arg;
}

int main(void)
{
	for (int i = NJOBS - 1; i >= 0; i--) {
		jobs[i] = (struct job){.next = head, .id = i};
		head = &jobs[i];
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NJOBS; i++)
		if (done[i] != 1) {
			printf("job %d done %d times\n", i, done[i]);
			return 1;
		}
	printf("%d jobs done once each\n", NJOBS);
	return 0;
}
