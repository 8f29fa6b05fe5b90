/* An atomicity violation: check-then-act on a counter. Two clerks withdraw from one
 * balance; each checks that the money is there and debits it in two separate
 * critical sections. Both can pass the check for the last withdrawal if one
 * switches out between them (its unlock and its next lock): the balance goes below
 * zero. -DFIXED: the check and the debit are one critical section. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

#define AMOUNT 10

static long balance = 2000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int withdraw(void)
{
	pthread_mutex_lock(&lock);
	int ok = balance >= AMOUNT;
#ifndef FIXED
	pthread_mutex_unlock(&lock);
	/* the bug: another clerk may take the money here */
	pthread_mutex_lock(&lock);
#endif
	if (ok)
		balance -= AMOUNT;
	pthread_mutex_unlock(&lock);
	return ok;
}

static void *clerk(void *arg)
{
	long got = 0;
	for (int i = 0; i < 150; i++) {
		got += withdraw() * AMOUNT;
		hunt_work(300);
	}
	return (void *)got;
}

int main(void)
{
	pthread_t t[2];
	long paid = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, clerk, NULL);
	for (int i = 0; i < 2; i++) {
		void *got;
		pthread_join(t[i], &got);
		paid += (long)got;
	}
	if (balance < 0) {
		printf("overdrawn: paid %ld, balance %ld\n", paid, balance);
		return 1;
	}
	printf("paid %ld, balance %ld\n", paid, balance);
	return 0;
}
