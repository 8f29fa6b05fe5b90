/* Threads that spend their time in the C library (memcpy, memset, qsort calling
 * back into our comparator): time slices end there, and each thread is preempted
 * at its next counting point. Which thread finishes which round first is the
 * schedule's: the order printed differs between recordings, and replays. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 16)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char order[256];
static int n;

static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
	unsigned s = 12345 + (unsigned)id;
	for (int round = 0; round < 12; round++) {
		for (int i = 0; i < N; i++) {
			s ^= s << 13, s ^= s >> 17, s ^= s << 5;
			a[i] = s;
		}
		for (int k = 0; k < 20; k++) {
			memcpy(b, a, N * sizeof *a);
			memset(a, k, N * sizeof *a / 2);
			memcpy(a, b, N * sizeof *a);
		}
		qsort(a, N, sizeof *a, cmp);
		pthread_mutex_lock(&m);
		order[n++] = (char)('a' + id);
		pthread_mutex_unlock(&m);
	}
	free(a);
	free(b);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%s\n", order);
	return 0;
}
