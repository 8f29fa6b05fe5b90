/* world_io.c: a system-call-heavy program for bench/world.sh: two threads each
 * stat a file and pread 4 KiB of it N times (argv[1]), then print a checksum. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static long n;
static const char *path;

static void *work(void *arg)
{
	unsigned long sum = (unsigned long)(long)arg;
	int fd = open(path, O_RDONLY);
	char buf[4096];
	struct stat st;
	for (long i = 0; i < n && fd >= 0; i++) {
		if (stat(path, &st) != 0)
			exit(2);
		ssize_t r = pread(fd, buf, sizeof buf, (off_t)(i % 64) * 4096);
		for (ssize_t k = 0; k < r; k += 512)
			sum = sum * 31 + (unsigned char)buf[k];
	}
	close(fd);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 100000;
	path = argc > 2 ? argv[2] : "world_io.in";
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	unsigned long sum = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum ^= (unsigned long)r;
	}
	printf("%lu\n", sum);
	return 0;
}
