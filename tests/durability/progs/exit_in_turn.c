/* exit_in_turn.c: a closer thread starts a second one and calls exit(0) at once; the
 * second prints and calls exit(3). Under --hunt the closer's exit() may give the others
 * a turn first (an EXIT_TURN), in which the second's exit(3) ends the process while
 * the closer's exit is still under way: the log must still end with END, status 3. An
 * atexit handler says which exit ran the C library's handlers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int status = -1;

static void said(void)
{
	printf("handlers of exit(%d)\n", status);
}

static void *second(void *arg)
{
	printf("second: exit(3)\n");
	status = 3;
	exit(3);
	return arg;
}

static void *closer(void *arg)
{
	pthread_t t;
	pthread_create(&t, NULL, second, NULL);
	status = 0;
	exit(0);
	return arg;
}

int main(void)
{
	pthread_t c;
	atexit(said);
	pthread_create(&c, NULL, closer, NULL);
	pthread_join(c, NULL); /* never returns: an exit ends the process */
	return 2;
}
