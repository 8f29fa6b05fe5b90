/* stored_bytes.c: recorded inputs whose bytes the log stores compressed or by reference
 * (docs/log-format.md, "Stored bytes"): two threads each call uname() 40 times (390
 * bytes, the same every time: references after the first) and read 96 KiB of
 * /dev/urandom (incompressible, never the same: stored as they are); prints what it
 * got, so a replay that fetched other bytes prints otherwise. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

static uint64_t sum[2];

static void *work(void *arg)
{
	long id = (long)arg;
	static unsigned char buf[2][98304];
	struct utsname u;
	for (int i = 0; i < 40; i++) {
		if (uname(&u) != 0)
			return NULL;
		for (const char *s = u.release; *s; s++)
			sum[id] = sum[id] * 31 + (unsigned char)*s;
	}
	int fd = open("/dev/urandom", O_RDONLY);
	ssize_t n = read(fd, buf[id], sizeof buf[id]);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		sum[id] = sum[id] * 31 + buf[id][i];
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("t0 %016llx t1 %016llx\n", (unsigned long long)sum[0], (unsigned long long)sum[1]);
	return 0;
}
