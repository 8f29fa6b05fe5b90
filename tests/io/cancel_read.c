/* pthread_cancel ends a thread blocked in read on an empty pipe (and one blocked in
 * poll, and one in fgets on a FILE on a pipe): read and poll are cancellation
 * points; the cleanup handler runs. The FILE is usable by another thread after. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int p[2];

static void cleanup(void *what)
{
	printf("cleanup: %s\n", (const char *)what);
}

static void *reader(void *arg)
{
	char c;
	pthread_cleanup_push(cleanup, "reader");
	ssize_t r = read(p[0], &c, 1);
	printf("read returned %zd (should not happen)\n", r);
	pthread_cleanup_pop(0);
	return NULL;
}

static FILE *in;

static void *line_reader(void *arg)
{
	char line[32];
	pthread_cleanup_push(cleanup, "line reader");
	char *r = fgets(line, sizeof line, in);
	printf("fgets returned %s (should not happen)\n", r ? line : "NULL");
	pthread_cleanup_pop(0);
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd f = {p[0], POLLIN, 0};
	pthread_cleanup_push(cleanup, "poller");
	int r = poll(&f, 1, -1);
	printf("poll returned %d (should not happen)\n", r);
	pthread_cleanup_pop(0);
	return NULL;
}

int main(void)
{
	if (pipe(p))
		return 2;
	pthread_t r, q;
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&q, NULL, poller, NULL);
	struct timespec nap = {0, 20000000};
	nanosleep(&nap, NULL); /* both are blocked by now */
	pthread_cancel(r);
	void *res;
	pthread_join(r, &res);
	printf("reader cancelled: %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
	pthread_cancel(q);
	pthread_join(q, &res);
	printf("poller cancelled: %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
	/* The pipe still works. */
	if (write(p[1], "z", 1) != 1)
		return 3;
	char c = 0;
	printf("read after: %zd '%c'\n", read(p[0], &c, 1), c);

	/* Cancelled inside fgets, where the stream's lock is held: the lock goes too. */
	in = fdopen(p[0], "r");
	pthread_create(&r, NULL, line_reader, NULL);
	nanosleep(&nap, NULL);
	pthread_cancel(r);
	pthread_join(r, &res);
	printf("line reader cancelled: %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
	if (write(p[1], "hello\n", 6) != 6)
		return 4;
	char line[32];
	printf("fgets after: %s", fgets(line, sizeof line, in) ? line : "NULL\n");
	return 0;
}
