/* Errors and non-blocking descriptors keep the kernel's answers: EBADF, EPIPE,
 * EAGAIN on an O_NONBLOCK pipe and with MSG_DONTWAIT (nothing parks), EAGAIN when a
 * socket's SO_RCVTIMEO passes, POLLNVAL, end of file. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static const char *en(int e)
{
	switch (e) {
	case EBADF: return "EBADF";
	case EPIPE: return "EPIPE";
	case EAGAIN: return "EAGAIN";
	case ENOTCONN: return "ENOTCONN";
	default: return strerror(e);
	}
}

#define SHOW(call)                                                                 \
	do {                                                                       \
		errno = 0;                                                         \
		long r_ = (long)(call);                                            \
		printf("%s = %ld%s%s\n", #call, r_, r_ < 0 ? ", " : "", r_ < 0 ? en(errno) : ""); \
	} while (0)

static void *in_a_thread(void *arg)
{
	char c;
	int p[2];
	if (pipe(p))
		return NULL;
	SHOW(read(999, &c, 1));
	SHOW(write(999, "x", 1));
	int fl = fcntl(p[0], F_GETFL);
	fcntl(p[0], F_SETFL, fl | O_NONBLOCK);
	SHOW(read(p[0], &c, 1));
	printf("flags unchanged: %s\n", fcntl(p[0], F_GETFL) == (fl | O_NONBLOCK) ? "yes" : "no");
	fcntl(p[0], F_SETFL, fl);
	close(p[1]);
	SHOW(read(p[0], &c, 1)); /* end of file */
	int q[2];
	if (pipe(q))
		return NULL;
	close(q[0]);
	SHOW(write(q[1], "x", 1));
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return NULL;
	SHOW(recv(sv[0], &c, 1, MSG_DONTWAIT));
	SHOW(send(sv[0], "y", 1, 0));
	SHOW(recv(sv[1], &c, 1, MSG_DONTWAIT));
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	SHOW(recv(s, &c, 1, 0));
	/* A receive timeout: EAGAIN once it passes. */
	struct timeval tv = {0, 30000};
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	SHOW(recv(sv[0], &c, 1, 0));
	SHOW(read(sv[0], &c, 1));
	struct pollfd bad = {999, POLLIN, 0};
	SHOW(poll(&bad, 1, 100));
	printf("revents POLLNVAL: %s\n", bad.revents & POLLNVAL ? "yes" : "no");
	return NULL;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_t t;
	pthread_create(&t, NULL, in_a_thread, NULL);
	pthread_join(t, NULL);
	return 0;
}
