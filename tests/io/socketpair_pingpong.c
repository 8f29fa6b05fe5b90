/* Ping-pong through a Unix socketpair between two threads: each side blocks in recv
 * (or read) until the other answers; a stream side sends more than the socket buffer. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROUNDS 1000
static int sv[2];

static void *pong(void *arg)
{
	long v;
	for (int i = 0; i < ROUNDS; i++) {
		if (recv(sv[1], &v, sizeof v, MSG_WAITALL) != sizeof v)
			abort();
		v = v * 3 + 1;
		if (write(sv[1], &v, sizeof v) != sizeof v)
			abort();
	}
	/* A bulk transfer larger than the buffers: send blocks until main reads. */
	static char bulk[1 << 20];
	memset(bulk, 'b', sizeof bulk);
	ssize_t n = send(sv[1], bulk, sizeof bulk, 0);
	printf("pong: sent %zd bulk bytes\n", n);
	shutdown(sv[1], SHUT_WR);
	return NULL;
}

int main(void)
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, pong, NULL);
	long v = 1, sum = 0;
	for (int i = 0; i < ROUNDS; i++) {
		v %= 1000003;
		if (send(sv[0], &v, sizeof v, 0) != sizeof v)
			abort();
		if (read(sv[0], &v, sizeof v) != sizeof v)
			abort();
		sum += v % 1000;
	}
	printf("ping: %d rounds, last %ld, sum %ld\n", ROUNDS, v, sum);
	char buf[3000];
	long bulk = 0;
	ssize_t r;
	while ((r = recv(sv[0], buf, sizeof buf, 0)) > 0)
		bulk += r;
	pthread_join(t, NULL);
	printf("ping: received %ld bulk bytes\n", bulk);
	return 0;
}
