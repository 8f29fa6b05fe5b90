/* A deadlock by lock-order inversion: a transfer locks the account it takes from,
 * then the one it pays into. Two tellers transfer in opposite directions; if one
 * switches out between its two locks while the other takes its first, each waits
 * for the other forever. -DFIXED: the lower-numbered account is locked first. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

struct account {
	pthread_mutex_t lock;
	long balance;
};

static struct account acct[2] = {
	{PTHREAD_MUTEX_INITIALIZER, 1000},
	{PTHREAD_MUTEX_INITIALIZER, 1000},
};

static void transfer(int from, int to, long amount)
{
#ifdef FIXED
	struct account *first = &acct[from < to ? from : to], *second = &acct[from < to ? to : from];
#else
	struct account *first = &acct[from], *second = &acct[to];
#endif
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock); /* the bug: the other teller's order is reversed */
	acct[from].balance -= amount;
	acct[to].balance += amount;
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
}

static void *teller(void *arg)
{
	int from = (int)(long)arg;
	for (int i = 0; i < 100; i++) {
		transfer(from, !from, 1 + i % 7);
		hunt_work(1000);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, teller, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("balances %ld + %ld = %ld\n", acct[0].balance, acct[1].balance,
	       acct[0].balance + acct[1].balance);
	return 0;
}
