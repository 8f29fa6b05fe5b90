/* epoll_wait over pipes fed by three writer threads that nap between messages, until
 * every pipe ends; then a timeout on an epoll set nobody makes ready, and the raw
 * system call through syscall(). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define W 3
#define MSGS 25
static int p[W][2];

static void *writer(void *arg)
{
	int i = (int)(long)arg;
	struct timespec nap = {0, 300000 * (i + 1)};
	for (int k = 0; k < MSGS; k++) {
		char c = (char)('a' + i);
		if (write(p[i][1], &c, 1) != 1)
			abort();
		nanosleep(&nap, NULL);
	}
	close(p[i][1]);
	return NULL;
}

int main(void)
{
	int ep = epoll_create1(0);
	pthread_t t[W];
	for (int i = 0; i < W; i++) {
		if (pipe(p[i]))
			return 2;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)i};
		epoll_ctl(ep, EPOLL_CTL_ADD, p[i][0], &ev);
	}
	for (int i = 0; i < W; i++)
		pthread_create(&t[i], NULL, writer, (void *)(long)i);
	int got[W] = {0}, open_fds = W;
	while (open_fds > 0) {
		struct epoll_event evs[W];
		int n = epoll_wait(ep, evs, W, -1);
		if (n <= 0)
			abort();
		for (int k = 0; k < n; k++) {
			int i = (int)evs[k].data.u32;
			char c;
			if (read(p[i][0], &c, 1) == 1) {
				got[i] += c == 'a' + i;
			} else {
				epoll_ctl(ep, EPOLL_CTL_DEL, p[i][0], NULL);
				open_fds--;
			}
		}
	}
	printf("epoll: got %d %d %d\n", got[0], got[1], got[2]);
	for (int i = 0; i < W; i++)
		pthread_join(t[i], NULL);
	int e[2];
	if (pipe(e))
		return 2;
	struct epoll_event ev = {.events = EPOLLIN};
	epoll_ctl(ep, EPOLL_CTL_ADD, e[0], &ev);
	struct epoll_event out;
	printf("epoll_wait with a 25 ms timeout: %d\n", epoll_wait(ep, &out, 1, 25));
	printf("syscall(SYS_epoll_wait) with a 10 ms timeout: %ld\n",
	       syscall(SYS_epoll_wait, ep, &out, 1, 10));
	return 0;
}
