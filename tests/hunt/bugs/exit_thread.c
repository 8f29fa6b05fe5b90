/* A thread ends the process: main hands the day's close to a closer thread and waits
 * for it; the closer starts an auditor and two tellers and calls exit() without
 * joining them. An OS may run them between that exit() and the process's end; the
 * auditor, if it comes after both tellers, checks the balance with a formula whose
 * sign is wrong (the bug), which no run can show unless the others run after the
 * closer's exit() (exit_unjoined.c's shape, the exit called from a thread, not main's
 * return). -DFIXED: the right sign. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "hunt_bug.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long balance, paid_in, paid_out;
static int tellers_done;

static void *pay_in(void *arg)
{
	pthread_mutex_lock(&m);
	balance += paid_in;
	tellers_done++;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *pay_out(void *arg)
{
	pthread_mutex_lock(&m);
	balance -= paid_out;
	tellers_done++;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *audit(void *arg)
{
	pthread_mutex_lock(&m);
	if (tellers_done == 2) {
#ifdef FIXED
		long want = 100 + paid_in - paid_out;
#else
		long want = 100 - paid_in - paid_out; /* the bug */
#endif
		if (balance != want) {
			printf("audit: balance %ld, expected %ld\n", balance, want);
			exit(1);
		}
	}
	pthread_mutex_unlock(&m);
	return arg;
}

static void *close_day(void *arg)
{
	pthread_t a, in, out;
	paid_in = 20 + (long)(hunt_work(10) & 0);
	paid_out = 50;
	pthread_create(&a, NULL, audit, NULL);
	pthread_create(&in, NULL, pay_in, NULL);
	pthread_create(&out, NULL, pay_out, NULL);
	exit(0); /* no join: the process ends with them, or after them */
	return arg;
}

int main(void)
{
	pthread_t closer;
	balance = 100;
	pthread_create(&closer, NULL, close_day, NULL);
	pthread_join(closer, NULL); /* never returns: the closer ends the process */
	return 2;
}
