/* poll and select on several pipes fed by three writer threads that sleep between
 * messages; then timeouts on pipes nobody writes to. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define W 3
#define MSGS 20
static int p[W][2], q[W][2];

static void *writer(void *arg)
{
	int i = (int)(long)arg;
	struct timespec nap = {0, 200000 * (i + 1)};
	for (int k = 0; k < MSGS; k++) {
		char c = (char)('a' + i);
		if (write(p[i][1], &c, 1) != 1 || write(q[i][1], &c, 1) != 1)
			abort();
		nanosleep(&nap, NULL);
	}
	close(p[i][1]);
	close(q[i][1]);
	return NULL;
}

int main(void)
{
	pthread_t t[W];
	for (int i = 0; i < W; i++)
		if (pipe(p[i]) || pipe(q[i]))
			return 2;
	for (int i = 0; i < W; i++)
		pthread_create(&t[i], NULL, writer, (void *)(long)i);
	/* poll: read every byte until every pipe reports end of file */
	struct pollfd fds[W];
	int got[W] = {0}, open_fds = W;
	for (int i = 0; i < W; i++)
		fds[i] = (struct pollfd){p[i][0], POLLIN, 0};
	while (open_fds > 0) {
		int n = poll(fds, W, -1);
		if (n <= 0)
			abort();
		for (int i = 0; i < W; i++) {
			if (!fds[i].revents)
				continue;
			char c;
			if (read(fds[i].fd, &c, 1) == 1) {
				got[i] += c == 'a' + i;
			} else {
				fds[i].fd = -1; /* ignored from now on */
				open_fds--;
			}
		}
	}
	printf("poll: got %d %d %d\n", got[0], got[1], got[2]);
	/* select: the same over the second set of pipes */
	int sgot[W] = {0}, open_q = W, done[W] = {0};
	while (open_q > 0) {
		fd_set rd;
		FD_ZERO(&rd);
		int maxfd = -1;
		for (int i = 0; i < W; i++)
			if (!done[i]) {
				FD_SET(q[i][0], &rd);
				maxfd = q[i][0] > maxfd ? q[i][0] : maxfd;
			}
		if (select(maxfd + 1, &rd, NULL, NULL, NULL) <= 0)
			abort();
		for (int i = 0; i < W; i++) {
			char c;
			if (done[i] || !FD_ISSET(q[i][0], &rd))
				continue;
			if (read(q[i][0], &c, 1) == 1) {
				sgot[i]++;
			} else {
				done[i] = 1;
				open_q--;
			}
		}
	}
	printf("select: got %d %d %d\n", sgot[0], sgot[1], sgot[2]);
	for (int i = 0; i < W; i++)
		pthread_join(t[i], NULL);
	/* Nothing will come: the timeouts expire. */
	int e[2];
	if (pipe(e))
		return 2;
	struct pollfd pe = {e[0], POLLIN, 0};
	printf("poll with 30 ms timeout: %d\n", poll(&pe, 1, 30));
	struct pollfd pw = {e[1], POLLOUT, 0};
	printf("poll for writing: %d, revents POLLOUT: %s\n", poll(&pw, 1, 1000),
	       pw.revents & POLLOUT ? "yes" : "no");
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(e[0], &rd);
	struct timeval tv = {0, 20000};
	printf("select with 20 ms timeout: %d, still set: %s\n", select(e[0] + 1, &rd, NULL, NULL, &tv),
	       FD_ISSET(e[0], &rd) ? "yes" : "no");
	return 0;
}
