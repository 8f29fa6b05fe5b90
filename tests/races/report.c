/* Race, for the report's contents: both accesses in one function, reached from two
 * call chains, each thread holding a lock of its own (which orders nothing). The
 * report names both accesses' callers (the earlier one's too: its frames are gone by
 * then), the locks each thread held at its access and where each thread was made. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t till = PTHREAD_MUTEX_INITIALIZER, ledger = PTHREAD_MUTEX_INITIALIZER;
static long balance;

__attribute__((noinline)) static void post(long v)
{
	balance += v; /* RACE RACE */
}

__attribute__((noinline)) static void pay(long v)
{
	post(v); /* CALLER pay */
	__asm__ volatile("" ::: "memory");
}

static void *teller(void *arg)
{
	pthread_mutex_lock(&till);
	pay(5); /* CALLER teller */
	pthread_mutex_unlock(&till);
	return arg;
}

static void *auditor(void *arg)
{
	pthread_mutex_lock(&ledger);
	post(-1); /* CALLER auditor */
	pthread_mutex_unlock(&ledger);
	return arg;
}

int main(void)
{
	pthread_t t, a;
	pthread_create(&t, NULL, teller, NULL); /* CREATE teller */
	pthread_create(&a, NULL, auditor, NULL); /* CREATE auditor */
	pthread_join(t, NULL);
	pthread_join(a, NULL);
	printf("balance %ld\n", balance);
	return 0;
}
