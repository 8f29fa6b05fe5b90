/* TCP on the loopback interface between threads: a server blocked in accept, clients
 * whose connect may finish within the call or after it (the handshake's timing), a
 * refused connection, and a transfer larger than the socket buffers. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS 4
#define BULK (3 << 20)
static struct sockaddr_in addr;

static void *server(void *arg)
{
	int ls = *(int *)arg;
	long total = 0;
	for (int i = 0; i < CLIENTS; i++) {
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			abort();
		static char buf[65536];
		ssize_t r;
		while ((r = read(c, buf, sizeof buf)) > 0)
			total += r;
		if (write(c, "ok", 2) != 2)
			abort();
		close(c);
	}
	return (void *)total;
}

static void *client(void *arg)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr))
		abort();
	static char bulk[BULK];
	ssize_t n = send(s, bulk, sizeof bulk, 0);
	shutdown(s, SHUT_WR);
	char reply[3] = {0};
	ssize_t r = recv(s, reply, 2, MSG_WAITALL);
	close(s);
	return (void *)(long)(n == BULK && r == 2 && !strcmp(reply, "ok"));
}

int main(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof addr;
	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) || listen(ls, CLIENTS) ||
	    getsockname(ls, (struct sockaddr *)&addr, &len)) {
		perror("loopback");
		return 2;
	}
	pthread_t st, ct[CLIENTS];
	pthread_create(&st, NULL, server, &ls);
	for (int i = 0; i < CLIENTS; i++)
		pthread_create(&ct[i], NULL, client, NULL);
	int good = 0;
	for (int i = 0; i < CLIENTS; i++) {
		void *ok;
		pthread_join(ct[i], &ok);
		good += ok != NULL;
	}
	void *total;
	pthread_join(st, &total);
	printf("clients that sent and got ok: %d of %d; server read %ld bytes\n", good, CLIENTS,
	       (long)total);
	close(ls);
	/* Nobody listens there now. */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	int r = connect(s, (struct sockaddr *)&addr, sizeof addr);
	printf("connect to a closed port: %d, %s\n", r, errno == ECONNREFUSED ? "ECONNREFUSED" : strerror(errno));
	return 0;
}
