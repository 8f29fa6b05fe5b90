/* TCP on the loopback interface, where how the bytes are split depends on the kernel's
 * timing: a writer sends many small pieces (write, send, sendto, sendmsg, writev in
 * turn, the reader acking each 8 KB) and a reader counts the reads it needs (read, recv, recvfrom, recvmsg, readv in
 * turn, with a MSG_PEEK now and then); then a reader on an O_NONBLOCK socket counts its
 * EAGAIN answers (read and recv with MSG_DONTWAIT, a short poll after each). The counts differ from run to run,
 * so they are compared only between a recording and its replays: each must print what
 * its recording printed (tests/io/run.sh). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define BLOCK 8192 /* the writer waits for the reader's ack after each */
#define BLOCKS 100
static struct sockaddr_in addr;

static int connect_loopback(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	/* No Nagle: a block's last small piece would wait for the ack of the one before,
	 * which the reader delays (40 ms a block). */
	if (s < 0 || setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) ||
	    connect(s, (struct sockaddr *)&addr, sizeof addr))
		abort();
	return s;
}

static void send_all(int s, int i, const char *p, size_t n)
{
	struct iovec v[2] = {{(void *)p, n / 2}, {(void *)(p + n / 2), n - n / 2}};
	struct msghdr m = {.msg_iov = v, .msg_iovlen = 2};
	ssize_t r;
	switch (i % 5) {
	case 0: r = write(s, p, n); break;
	case 1: r = send(s, p, n, 0); break;
	case 2: r = sendto(s, p, n, 0, NULL, 0); break;
	case 3: r = sendmsg(s, &m, 0); break;
	default: r = writev(s, v, 2); break;
	}
	if (r != (ssize_t)n)
		abort();
}

/* Blocks of BLOCK bytes in pieces of 1 to 200; after each block, the reader's one-byte
 * ack (so that the writer is never more than a block ahead: a replay's socket buffers
 * may be smaller than the recording's, docs/io.md). */
static void *writer(void *arg)
{
	int pause_every = *(int *)arg;
	int s = connect_loopback();
	static char buf[BLOCK + 300];
	for (int i = 0; i < (int)sizeof buf; i++)
		buf[i] = (char)(i * 7 + i / 251);
	int i = 0;
	for (int b = 0; b < (pause_every ? BLOCKS / 4 : BLOCKS); b++) {
		for (size_t at = 0; at < BLOCK; i++) {
			size_t n = 1 + (size_t)(i * 37 % 200);
			if (n > BLOCK - at)
				n = BLOCK - at;
			send_all(s, i, buf + at + i % 97, n);
			at += n;
			if (pause_every && i % pause_every == 0)
				usleep(20);
		}
		char ack;
		if (recv(s, &ack, 1, MSG_WAITALL) != 1 || ack != 'a')
			abort();
	}
	shutdown(s, SHUT_WR);
	close(s);
	return NULL;
}

static unsigned long sum;

static void take(const char *p, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		sum = sum * 31 + (unsigned char)p[i];
}

/* One read of up to 600 bytes into rbuf, by the k-th way; a peek first every 7th
 * time. */
static char rbuf[600];

static ssize_t read_some(int c, int k, int *peeks)
{
	char *a = rbuf;
	char *b = a + 200, *d = a + 450;
	struct iovec v[3] = {{a, 200}, {b, 250}, {d, 150}};
	struct msghdr m = {.msg_iov = v, .msg_iovlen = 3};
	if (k % 7 == 3) {
		char p[40];
		ssize_t r = recv(c, p, sizeof p, MSG_PEEK);
		if (r < 0)
			abort();
		*peeks += (int)r;
	}
	switch (k % 5) {
	case 0: return read(c, a, sizeof rbuf);
	case 1: return recv(c, a, sizeof rbuf, 0);
	case 2: return recvfrom(c, a, sizeof rbuf, 0, NULL, NULL);
	case 3: return recvmsg(c, &m, 0);
	default: return readv(c, v, 3);
	}
}

/* Ack every block read. */
static void acks(int c, long bytes, long *acked)
{
	for (; *acked < bytes / BLOCK; ++*acked)
		if (write(c, "a", 1) != 1)
			abort();
}

static void blocking_reader(int ls)
{
	int pause = 0;
	pthread_t w;
	pthread_create(&w, NULL, writer, &pause);
	int c = accept(ls, NULL, NULL);
	if (c < 0)
		abort();
	long bytes = 0, acked = 0;
	int reads = 0, peeks = 0;
	ssize_t r;
	sum = 0;
	while ((r = read_some(c, reads, &peeks)) > 0) {
		take(rbuf, r);
		bytes += r;
		reads++;
		acks(c, bytes, &acked);
	}
	if (r < 0)
		abort();
	pthread_join(w, NULL);
	close(c);
	printf("blocking: %ld bytes in %d reads, %d bytes peeked, sum %lx\n", bytes, reads, peeks,
	       sum);
}

static void nonblocking_reader(int ls)
{
	int pause = 5;
	pthread_t w;
	pthread_create(&w, NULL, writer, &pause);
	int c = accept(ls, NULL, NULL);
	if (c < 0 || fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK))
		abort();
	static char a[1000];
	long bytes = 0, acked = 0;
	int reads = 0, again = 0;
	sum = 0;
	for (;;) {
		ssize_t r = reads % 2 ? read(c, a, sizeof a) : recv(c, a, sizeof a, MSG_DONTWAIT);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno != EAGAIN)
				abort();
			/* Not there yet: wait for it, for at most 1 ms. */
			struct pollfd p = {c, POLLIN, 0};
			again++;
			poll(&p, 1, 1);
			continue;
		}
		take(a, r);
		bytes += r;
		reads++;
		acks(c, bytes, &acked);
	}
	pthread_join(w, NULL);
	close(c);
	printf("non-blocking: %ld bytes in %d reads, %d EAGAIN, sum %lx\n", bytes, reads, again,
	       sum);
}

int main(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof addr;
	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) || listen(ls, 2) ||
	    getsockname(ls, (struct sockaddr *)&addr, &len)) {
		perror("loopback");
		return 2;
	}
	blocking_reader(ls);
	nonblocking_reader(ls);
	close(ls);
	return 0;
}
