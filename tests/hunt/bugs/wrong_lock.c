/* Atomicity under the wrong lock (SCTBench's wronglock, reorder): the writer takes
 * its lock through a wrapper function, then sets a pair with two plain stores (x = i,
 * y = -i); the reader reads the pair under another lock, through the same wrapper.
 * Neither thread has a counting point between its two accesses, nor a window (no
 * location accessed twice), and the accesses are not the first of a start function:
 * only a switch at a shared access in the wrapper's caller, right after the lock
 * returns, splits the pair. A reader between the two stores, or a writer between the
 * two loads, gives x != -y. -DFIXED: one lock for both. */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 20

static volatile int x, y;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
#ifdef FIXED
#define read_lock write_lock
#else
static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;
#endif
static int torn;

__attribute__((noinline)) static void lock(pthread_mutex_t *m)
{
	if (pthread_mutex_lock(m))
		__builtin_trap();
}

__attribute__((noinline)) static void unlock(pthread_mutex_t *m)
{
	if (pthread_mutex_unlock(m))
		__builtin_trap();
}

__attribute__((noinline)) static void publish(int i)
{
	lock(&write_lock);
	x = i;
	y = -i; /* the bug: the reader's lock is another one */
	unlock(&write_lock);
}

__attribute__((noinline)) static int check(void)
{
	lock(&read_lock);
	int a = x, b = y;
	unlock(&read_lock);
	return a == -b;
}

static void *writer(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++)
		publish(i);
	return arg;
}

static void *reader(void *arg)
{
	for (int i = 1; i <= ROUNDS; i++)
		if (!check())
			torn = 1;
	return arg;
}

int main(void)
{
	pthread_t w, r;
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	if (torn) {
		printf("reader saw a torn pair\n");
		return 1;
	}
	printf("reader saw every pair whole\n");
	return 0;
}
