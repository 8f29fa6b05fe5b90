/* epoll_wait's events in the order the kernel gives them, and a reader whose work
 * depends on that order: four writer threads each write a byte to their pipe and wait
 * for the reader's answer; the reader waits on all four pipes with epoll, then works a
 * while on each event it got, longer for later ones in the list, and answers each
 * writer in that order. The output does not depend on the order; the schedule does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define W 4
#define ROUNDS 40
static int to_reader[W][2], to_writer[W][2];

static void *writer(void *arg)
{
	int i = (int)(long)arg;
	for (int k = 0; k < ROUNDS; k++) {
		char c = (char)('a' + i);
		if (write(to_reader[i][1], &c, 1) != 1 || read(to_writer[i][0], &c, 1) != 1)
			abort();
	}
	close(to_reader[i][1]);
	return NULL;
}

static volatile unsigned long work;

int main(void)
{
	int ep = epoll_create1(0);
	pthread_t t[W];
	for (int i = 0; i < W; i++) {
		if (pipe(to_reader[i]) || pipe(to_writer[i]))
			return 2;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)i};
		epoll_ctl(ep, EPOLL_CTL_ADD, to_reader[i][0], &ev);
	}
	for (int i = 0; i < W; i++)
		pthread_create(&t[i], NULL, writer, (void *)(long)i);
	int got = 0, open_fds = W, max_ready = 0;
	while (open_fds > 0) {
		struct epoll_event evs[W];
		int n = epoll_wait(ep, evs, W, -1);
		if (n <= 0)
			abort();
		if (n > max_ready)
			max_ready = n;
		for (int k = 0; k < n; k++) {
			int i = (int)evs[k].data.u32;
			for (unsigned long s = 0; s < 1000UL * (unsigned long)(k + 1) * (unsigned long)(i + 1); s++)
				work++;
			char c;
			if (read(to_reader[i][0], &c, 1) == 1) {
				got++;
				if (write(to_writer[i][1], &c, 1) != 1)
					abort();
			} else {
				epoll_ctl(ep, EPOLL_CTL_DEL, to_reader[i][0], NULL);
				open_fds--;
			}
		}
	}
	for (int i = 0; i < W; i++)
		pthread_join(t[i], NULL);
	printf("epoll_order: %d bytes answered, more than one ready at once: %s\n", got,
	       max_ready > 1 ? "yes" : "no");
	return 0;
}
