/* Clean: a table built once by whichever thread comes first, read by all. */
#include <pthread.h>
#include <stdio.h>

static int table[32];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void)
{
	for (int i = 0; i < 32; i++)
		table[i] = i * i;
}

static void *use(void *arg)
{
	pthread_once(&once, build);
	long s = 0;
	for (int i = 0; i < 32; i++)
		s += table[i];
	*(long *)arg = s;
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long sums[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, use, &sums[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld %ld\n", sums[0], sums[1], sums[2]);
	return 0;
}
