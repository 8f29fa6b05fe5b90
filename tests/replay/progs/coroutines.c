/* ucontext coroutines (makecontext/swapcontext) inside racing threads: each thread
 * ping-pongs with its own coroutine while the threads race on a shared counter. The
 * counter must survive the context switches (swapcontext restores r15), so the
 * recording replays exactly. */
#include <pthread.h>
#include <stdio.h>
#include <ucontext.h>

static volatile long shared;

struct co {
	ucontext_t main, co;
	long produced;
	char stack[65536];
};

static void producer(unsigned hi, unsigned lo)
{
	struct co *c = (struct co *)((unsigned long)hi << 32 | lo);
	for (;;) {
		for (volatile int i = 0; i < 300; i++)
			shared++;
		c->produced++;
		swapcontext(&c->co, &c->main);
	}
}

static void *worker(void *arg)
{
	struct co *c = arg;
	getcontext(&c->co);
	c->co.uc_stack.ss_sp = c->stack;
	c->co.uc_stack.ss_size = sizeof c->stack;
	c->co.uc_link = NULL;
	unsigned long p = (unsigned long)c;
	makecontext(&c->co, (void (*)(void))producer, 2, (unsigned)(p >> 32), (unsigned)p);
	for (int i = 0; i < 20000; i++) {
		swapcontext(&c->main, &c->co);
		shared++;
	}
	return NULL;
}

int main(void)
{
	static struct co cos[3];
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, &cos[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("shared %ld produced %ld %ld %ld\n", shared, cos[0].produced, cos[1].produced,
	       cos[2].produced);
	return 0;
}
