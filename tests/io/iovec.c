/* writev and readv through a pipe between threads: 300 000 bytes in three pieces per
 * call, read back into two; every blocking writev writes all of it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define CALLS 8
static int p[2];
static unsigned char a[100000], b[150000], c[50000];

static void *writer(void *arg)
{
	for (size_t k = 0; k < sizeof a; k++)
		a[k] = (unsigned char)k;
	for (size_t k = 0; k < sizeof b; k++)
		b[k] = (unsigned char)(k * 3);
	for (size_t k = 0; k < sizeof c; k++)
		c[k] = (unsigned char)(k * 5);
	struct iovec v[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
	long total = 0;
	for (int i = 0; i < CALLS; i++) {
		ssize_t w = writev(p[1], v, 3);
		if (w != (ssize_t)(sizeof a + sizeof b + sizeof c))
			printf("short writev: %zd\n", w);
		total += w;
	}
	close(p[1]);
	return (void *)total;
}

int main(void)
{
	if (pipe(p))
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	static unsigned char x[7000], y[9001];
	struct iovec v[2] = {{x, sizeof x}, {y, sizeof y}};
	unsigned long sum = 0, n = 0;
	ssize_t r;
	while ((r = readv(p[0], v, 2)) > 0) {
		for (ssize_t k = 0; k < r; k++)
			sum = sum * 31 + (k < (ssize_t)sizeof x ? x[k] : y[k - sizeof x]);
		n += (unsigned long)r;
	}
	void *total;
	pthread_join(t, &total);
	printf("readv: %lu bytes (writev: %ld), checksum %lx\n", n, (long)total, sum);
	return 0;
}
