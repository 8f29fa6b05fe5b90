/* A server thread accepts on a Unix stream socket (blocking in accept before any
 * client has connected) and answers three clients that connect from other threads. */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS 3
static struct sockaddr_un addr;
static socklen_t addrlen;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t listening = PTHREAD_COND_INITIALIZER;
static int ready;

static void *server(void *arg)
{
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, addrlen) || listen(ls, 8))
		abort();
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_broadcast(&listening);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < CLIENTS; i++) {
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			abort();
		char buf[64];
		ssize_t n = read(c, buf, sizeof buf);
		for (ssize_t k = 0; k < n; k++)
			buf[k] = (char)toupper((unsigned char)buf[k]);
		if (n > 0 && write(c, buf, (size_t)n) != n)
			abort();
		close(c);
	}
	close(ls);
	return NULL;
}

static void *client(void *arg)
{
	long i = (long)arg;
	struct timespec nap = {0, 5000000 * (i + 1)}; /* the server waits in accept first */
	nanosleep(&nap, NULL);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, addrlen))
		abort();
	char msg[32], reply[32] = {0};
	int len = snprintf(msg, sizeof msg, "hello from client %ld", i);
	if (write(s, msg, (size_t)len) != len)
		abort();
	ssize_t n = recv(s, reply, sizeof reply - 1, MSG_WAITALL);
	close(s);
	return strdup(n > 0 ? reply : "(nothing)");
}

int main(void)
{
	addr.sun_family = AF_UNIX;
	/* Abstract name: nothing in the file system; unique per process. */
	int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "libreplay-io-%d", (int)getpid());
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	pthread_t st, ct[CLIENTS];
	pthread_create(&st, NULL, server, NULL);
	pthread_mutex_lock(&lock);
	while (!ready)
		pthread_cond_wait(&listening, &lock);
	pthread_mutex_unlock(&lock);
	for (long i = 0; i < CLIENTS; i++)
		pthread_create(&ct[i], NULL, client, (void *)i);
	for (int i = 0; i < CLIENTS; i++) {
		void *reply;
		pthread_join(ct[i], &reply);
		printf("client %d got: %s\n", i, (char *)reply);
		free(reply);
	}
	pthread_join(st, NULL);
	return 0;
}
