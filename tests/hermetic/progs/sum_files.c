/* sum_files.c: three threads sum the digits of input.txt, then the total is
 * appended to out.txt and scratch.tmp removed: a program whose inputs are a file
 * and whose effects are on files (tests/hermetic). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

static long total;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char data[1 << 16];
static ssize_t len;

static void *sum(void *arg)
{
	long part = 0;
	for (ssize_t i = (long)arg; i < len; i += 3)
		if (data[i] >= '0' && data[i] <= '9')
			part += data[i] - '0';
	pthread_mutex_lock(&mu);
	total += part;
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(void)
{
	int fd = open("input.txt", O_RDONLY);
	if (fd < 0) { perror("input.txt"); return 1; }
	len = read(fd, data, sizeof data);
	close(fd);
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, sum, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	FILE *f = fopen("out.txt", "a");
	fprintf(f, "total %ld\n", total);
	fclose(f);
	unlink("scratch.tmp");
	printf("total %ld\n", total);
	return 0;
}
