/* A producer and a consumer thread through a pipe: many small messages (each read
 * blocks until the next is written), then 1 MiB in writes larger than the pipe's
 * buffer (each write blocks until the reader makes room). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL 2000
#define BIG_CHUNK 200000
#define BIG_TOTAL (1 << 20)

static int small[2], big[2];

static void *producer(void *arg)
{
	char msg[16];
	for (int i = 0; i < SMALL; i++) {
		snprintf(msg, sizeof msg, "m%06d\n", i);
		if (write(small[1], msg, 8) != 8)
			abort();
	}
	close(small[1]);
	static unsigned char buf[BIG_CHUNK];
	size_t sent = 0;
	while (sent < BIG_TOTAL) {
		size_t n = BIG_TOTAL - sent < BIG_CHUNK ? BIG_TOTAL - sent : BIG_CHUNK;
		for (size_t k = 0; k < n; k++)
			buf[k] = (unsigned char)((sent + k) * 7);
		ssize_t w = write(big[1], buf, n);
		if (w != (ssize_t)n) {
			printf("short write %zd of %zu\n", w, n);
			break;
		}
		sent += n;
	}
	close(big[1]);
	return (void *)sent;
}

int main(void)
{
	if (pipe(small) || pipe(big))
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, producer, NULL);
	char msg[8];
	int got = 0, in_order = 1;
	ssize_t r;
	/* Reads of exactly one message (8 bytes, written atomically). */
	while ((r = read(small[0], msg, sizeof msg)) == 8) {
		char want[16];
		snprintf(want, sizeof want, "m%06d\n", got);
		in_order &= memcmp(msg, want, 8) == 0;
		got++;
	}
	printf("small: %d messages, in order: %s, last read %zd\n", got, in_order ? "yes" : "no", r);
	static unsigned char buf[65536 + 123];
	size_t total = 0, wrong = 0;
	while ((r = read(big[0], buf, sizeof buf)) > 0) {
		for (ssize_t k = 0; k < r; k++)
			wrong += buf[k] != (unsigned char)((total + (size_t)k) * 7);
		total += (size_t)r;
	}
	void *sent;
	pthread_join(t, &sent);
	printf("big: read %zu bytes of %zu sent, %zu wrong\n", total, (size_t)sent, wrong);
	return 0;
}
