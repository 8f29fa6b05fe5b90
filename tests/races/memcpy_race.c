/* A race through memcpy: one thread copies a record out while another rewrites it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char record[256], copy[256];
static volatile size_t length = 200;

static void *snapshot(void *arg)
{
	memcpy(copy, record, length); /* RACE */
	return arg;
}

static void *update(void *arg)
{
	for (int i = 0; i < 200; i++)
		record[i] = 'x'; /* RACE */
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, update, NULL);
	pthread_create(&b, NULL, snapshot, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%.4s\n", copy);
	return 0;
}
