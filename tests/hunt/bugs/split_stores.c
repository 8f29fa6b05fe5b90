/* An order violation between two plain stores: the setter thread writes a pair that
 * must be seen whole (x = 1, then y = -1: two stores to two globals, no counting point
 * between them and no re-access of one location, so no "window"); a checker started
 * after it reads the pair. A checker that runs between the two stores sees x = 1 and
 * y = 0. -DFIXED: the pair is written and read under a lock. */
#include <pthread.h>
#include <stdio.h>

static volatile int x, y;
#ifdef FIXED
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *setter(void *arg)
{
#ifdef FIXED
	pthread_mutex_lock(&m);
#endif
	x = 1;
	y = -1; /* the bug: a reader between the two sees half the pair */
#ifdef FIXED
	pthread_mutex_unlock(&m);
#endif
	return arg;
}

static void *checker(void *arg)
{
#ifdef FIXED
	pthread_mutex_lock(&m);
#endif
	int a = x, b = y;
#ifdef FIXED
	pthread_mutex_unlock(&m);
#endif
	return (void *)(long)((a == 0 && b == 0) || (a == 1 && b == -1));
}

int main(void)
{
	pthread_t s, c;
	void *whole;
	pthread_create(&s, NULL, setter, NULL);
	pthread_create(&c, NULL, checker, NULL);
	pthread_join(s, NULL);
	pthread_join(c, &whole);
	if (!whole) {
		printf("checker saw half the pair\n");
		return 1;
	}
	printf("checker saw the pair whole\n");
	return 0;
}
