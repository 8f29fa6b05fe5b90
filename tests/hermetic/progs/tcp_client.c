/* tcp_client.c: three threads each connect to the server on 127.0.0.1 (port in
 * the file named port), send a number and print the answer (tests/hermetic: the replay must not
 * need the server). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int port;

static void *ask(void *arg)
{
	long n = (long)arg;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
		perror("connect");
		exit(3);
	}
	char buf[64];
	int len = snprintf(buf, sizeof buf, "%ld\n", n);
	if (write(s, buf, (size_t)len) != len)
		exit(4);
	ssize_t got = 0, r;
	while ((r = read(s, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += r;
	buf[got] = 0;
	printf("thread %ld: %s", n, buf);
	close(s);
	return NULL;
}

int main(void)
{
	FILE *f = fopen("port", "r");
	if (!f || fscanf(f, "%d", &port) != 1)
		return 2;
	fclose(f);
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, ask, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
