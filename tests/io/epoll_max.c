/* More events ready than epoll_wait's maxevents: six writer threads each write a byte
 * to their pipe and wait for the reader's answer; the reader takes at most two events
 * a call, works on each a while (longer for some pipes than others) and answers. Which
 * two of the ready ones a call returns decides the schedule, not the output. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define W 6
#define ROUNDS 30
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
	int got = 0, open_fds = W, full = 0;
	while (open_fds > 0) {
		struct epoll_event evs[2];
		int n = epoll_wait(ep, evs, 2, -1);
		if (n <= 0)
			abort();
		full += n == 2;
		for (int k = 0; k < n; k++) {
			int i = (int)evs[k].data.u32;
			for (unsigned long s = 0; s < 3000UL * (unsigned long)(i + 1); s++)
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
	printf("epoll_max: %d bytes answered\n", got);
	fprintf(stderr, "epoll_max: %d calls returned maxevents events\n", full); /* timing's */
	return 0;
}
