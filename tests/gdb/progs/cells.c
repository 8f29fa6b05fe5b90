/* Six cells, each written now and then by one of three threads (thread id writes
 * cell (2 id + i / 100000) % 6 at its loop's i = id * 1000 mod 100000): more
 * watchpoints than x86's four debug registers hold, the writers known. */
#include <pthread.h>
#include <stdio.h>

long cells[6];
static volatile long spin;

static void *work(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 600000; i++) {
		spin += id;
		if (i % 100000 == id * 1000)
			cells[(id * 2 + i / 100000) % 6] += id;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("cells %ld %ld %ld %ld %ld %ld\n", cells[0], cells[1], cells[2], cells[3], cells[4],
	       cells[5]);
	return 0;
}
