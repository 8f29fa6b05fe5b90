/* Clean: gcc's __sync builtins and __atomic ones with their memory orders: a lock of
 * __sync_lock_test_and_set and __sync_lock_release around a plain counter; a total
 * kept by __sync_fetch_and_add; a block published by __sync_bool_compare_and_swap
 * and read after an __atomic_load_n acquire; a handover by __atomic_exchange_n
 * (acq_rel) of a slot. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static int lock;
static long counter;
static long total;
struct block {
	int v[8];
};
static struct block *published;
static long slot_data;
static int slot_full;

static void *worker(void *arg)
{
	for (int i = 0; i < 100; i++) {
		while (__sync_lock_test_and_set(&lock, 1))
			sched_yield();
		counter++;
		__sync_lock_release(&lock);
		__sync_fetch_and_add(&total, 2);
	}
	return arg;
}

static void *publisher(void *arg)
{
	struct block *b = malloc(sizeof *b);
	for (int i = 0; i < 8; i++)
		b->v[i] = i * 3;
	__sync_bool_compare_and_swap(&published, NULL, b);
	slot_data = 42;
	__atomic_exchange_n(&slot_full, 1, __ATOMIC_ACQ_REL);
	return arg;
}

static void *subscriber(void *arg)
{
	struct block *b;
	while (!(b = __atomic_load_n(&published, __ATOMIC_ACQUIRE)))
		sched_yield();
	int s = 0;
	for (int i = 0; i < 8; i++)
		s += b->v[i];
	while (!__atomic_compare_exchange_n(&slot_full, &(int){1}, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		sched_yield();
	__sync_fetch_and_add(&total, s + slot_data);
	return arg;
}

int main(void)
{
	pthread_t t[4];
	pthread_create(&t[0], NULL, subscriber, NULL);
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_create(&t[2], NULL, publisher, NULL);
	pthread_create(&t[3], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter %ld, total %ld\n", counter, total);
	free(published);
	return 0;
}
