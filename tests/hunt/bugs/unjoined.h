/* unjoined.h: the day of exit_unjoined.c and exit_thread.c, an auditor and two
 * tellers that no one joins. The auditor, if it comes after both tellers, checks the
 * balance with a formula whose sign is wrong (the bug) and exits 1; the process is
 * ended (main's return, a thread's exit()) right after start_day starts them, so no
 * run can show the bug unless they run after that end. -DFIXED: the right sign. */
#ifndef UNJOINED_H
#define UNJOINED_H

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

/* The day's payments, and the auditor and the tellers started, not to be joined. */
static void start_day(void)
{
	pthread_t a, in, out;
	paid_in = 20 + (long)(hunt_work(10) & 0);
	paid_out = 50;
	pthread_create(&a, NULL, audit, NULL);
	pthread_create(&in, NULL, pay_in, NULL);
	pthread_create(&out, NULL, pay_out, NULL);
}

#endif
