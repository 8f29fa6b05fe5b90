/* The order of epoll_wait's events, and which come first when more are ready than
 * maxevents. W writer threads each write a byte to their pipe and wait for the
 * reader's answer; the reader waits on all the pipes with epoll and answers each event
 * it got in the list's order, after working on it a while: in the first part longer
 * for events later in the list (4 writers, room for all), in the second longer for
 * some pipes than others, taking at most two events a call (6 writers). The output
 * does not depend on the order; the schedule does, and a replay must give it again. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define MAX_W 6
#define ROUNDS 30
static int to_reader[MAX_W][2], to_writer[MAX_W][2];
static volatile unsigned long work;

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

/* One part: w writers, at most max events a call, work(k, i) for the k-th event of a
 * call, from writer i. Returns the bytes answered; *full counts calls that returned
 * max events. */
static int part(int w, int max, unsigned long (*work_for)(int, int), int *full)
{
	int ep = epoll_create1(0);
	pthread_t t[MAX_W];
	for (int i = 0; i < w; i++) {
		if (pipe(to_reader[i]) || pipe(to_writer[i]))
			abort();
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)i};
		epoll_ctl(ep, EPOLL_CTL_ADD, to_reader[i][0], &ev);
	}
	for (int i = 0; i < w; i++)
		pthread_create(&t[i], NULL, writer, (void *)(long)i);
	int got = 0, open_fds = w;
	while (open_fds > 0) {
		struct epoll_event evs[MAX_W];
		int n = epoll_wait(ep, evs, max, -1);
		if (n <= 0)
			abort();
		*full += n == max;
		for (int k = 0; k < n; k++) {
			int i = (int)evs[k].data.u32;
			for (unsigned long s = work_for(k, i); s > 0; s--)
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
	for (int i = 0; i < w; i++) {
		pthread_join(t[i], NULL);
		close(to_reader[i][0]);
		close(to_writer[i][0]);
		close(to_writer[i][1]);
	}
	close(ep);
	return got;
}

static unsigned long by_place(int k, int i)
{
	return 1000UL * (unsigned long)(k + 1) * (unsigned long)(i + 1);
}

static unsigned long by_writer(int k, int i)
{
	(void)k;
	return 3000UL * (unsigned long)(i + 1);
}

int main(void)
{
	int full = 0, more = 0;
	int got = part(4, 4, by_place, &full);
	printf("epoll_order: %d bytes answered\n", got);
	got = part(6, 2, by_writer, &more);
	printf("epoll_order, two events a call: %d bytes answered\n", got);
	/* timing's, not the output's */
	fprintf(stderr, "epoll_order: %d calls with more than one, %d with two of six\n", full, more);
	return 0;
}
