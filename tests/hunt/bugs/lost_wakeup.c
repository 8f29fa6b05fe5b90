/* A lost wakeup: the waiter checks the flag without the lock and waits without a
 * predicate loop. If the poster sets the flag and signals in the few instructions
 * between the waiter's check and its wait, nobody is waiting for the signal and
 * the waiter sleeps forever (and main, joining it). -DFIXED: the check is made
 * under the lock, in a loop around the wait. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t posted_cond = PTHREAD_COND_INITIALIZER;
static volatile int posted;

static void *waiter(void *arg)
{
	hunt_work(5000);
#ifdef FIXED
	pthread_mutex_lock(&lock);
	while (!posted)
		pthread_cond_wait(&posted_cond, &lock);
	pthread_mutex_unlock(&lock);
#else
	if (!posted) {
		/* the bug: the post may come here, before anyone waits for it */
		pthread_mutex_lock(&lock);
		pthread_cond_wait(&posted_cond, &lock);
		pthread_mutex_unlock(&lock);
	}
#endif
	return arg;
}

static void *poster(void *arg)
{
	hunt_work(5000);
	pthread_mutex_lock(&lock);
	posted = 1;
	pthread_cond_signal(&posted_cond);
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(void)
{
	pthread_t w, p;
	pthread_create(&w, NULL, waiter, NULL);
	pthread_create(&p, NULL, poster, NULL);
	pthread_join(p, NULL);
	pthread_join(w, NULL);
	puts("the waiter saw the post");
	return 0;
}
