/* fd_hostile: rough with descriptors it did not open, while two threads run. It closes
 * stderr and opens OUTFILE, which gets descriptor 2, then closes every descriptor from
 * 3 up three ways (close() one by one, closefrom, close_range) and dup2()s stdout onto
 * the high ones: the recording's log must survive all of it, and the runtime's
 * messages must still reach the stderr the program was started with, never OUTFILE.
 * With "deadlock", it then locks a mutex it holds: the deadlock report must too.
 *   fd_hostile OUTFILE [deadlock] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
	for (long i = 0; i < 3000000; i++) {
		pthread_mutex_lock(&lock);
		total += i % 7;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	fclose(stderr);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2)
		return 3;
	static const char own[] = "the program's own line\n";
	if (write(fd, own, strlen(own)) != (ssize_t)strlen(own))
		return 4;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	int closed = 0, duped = 0;
	for (int d = 3; d < 4096; d++)
		closed += close(d) == 0;
	closefrom(3);
	close_range(3, ~0u, 0);
	for (int d = 990; d < 1030; d++)
		if (dup2(1, d) == d) {
			duped++;
			close(d);
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("total %ld, closed %d, dup2 onto %d of 40\n", total, closed, duped);
	fflush(stdout);
	if (argc > 2 && strcmp(argv[2], "deadlock") == 0) {
		pthread_mutex_lock(&lock);
		pthread_mutex_lock(&lock);
	}
	return 0;
}
