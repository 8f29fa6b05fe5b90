/* `watch -l *cur` where cur moves on after the watchpoint is set (reverse.sh): gdb
 * watches the cell cur pointed at when it was set, cells[0], whose last write is the
 * `cells[0] = 2` line; cur then points at cells[1], written later. */
#include <pthread.h>
#include <stdio.h>

static volatile long cells[2], sink;
static volatile long *volatile cur = &cells[0];

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	spin(1000000);
	cells[0] = 1;
	spin(1000000);
	cells[0] = 2; /* the last write of the watched cell */
	cur = &cells[1];
	spin(1000000);
	cells[1] = 9; /* not watched */
	spin(1000000);
	return NULL; /* the end */
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", cells[0], cells[1]);
	return 0;
}
