/* lib_pop_list.c: lib_pop.c's job list, a shared library built with sicc. list_pop
 * takes the head without a lock: a thread switched out between reading the head and
 * writing it back (no counting point between) undoes the other's pops. list_done
 * counts a job done under a lock: synchronization calls from the library's code. */
#include <pthread.h>

#include "lib_pop.h"

static struct job *volatile head;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void list_push(struct job *j)
{
	j->next = head;
	head = j;
}

struct job *list_pop(void)
{
	struct job *j = head;
	if (j)
		head = j->next; /* the bug: head may have moved since it was read */
	return j;
}

void list_done(struct job *j)
{
	pthread_mutex_lock(&lock);
	j->done++;
	pthread_mutex_unlock(&lock);
}
