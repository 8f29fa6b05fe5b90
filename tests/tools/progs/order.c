/* An inlined helper in a loop (gcc -O2 inlines take() into worker): gcc's line table
 * puts a non-statement row of the caller's line (21) after the helper's rows at
 * the same address, so a PC in take() read the last row naively gets line 21 where
 * gdb says 11 or 12. tests/tools compares replay-dump's lines with gdb's. */
#include <pthread.h>
#include <stdio.h>
static volatile long stock[4];
static long orders;
static inline long take(int item, long n)
{
	long have = stock[item];
	if (have < n)
		n = have;
	stock[item] = have - n;
	return n;
}
static void *worker(void *arg)
{
	long id = (long)arg, got = 0;
	for (long i = 0; i < 2000000; i++) {
		got += take((int)(i & 3), 1 + (i % 7));
		if (i % 5 == 0)
			stock[(i + id) & 3] += 3;
	}
	orders += got;
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", orders);
	return 0;
}
