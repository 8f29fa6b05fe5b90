/* Locks and handshakes built on syscall(SYS_futex, ...), as some programs do: a
 * three-state futex mutex (Drepper, "Futexes are tricky") taken by four threads, a
 * wait/wake handshake, and the error cases. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/* 0 unlocked, 1 locked, 2 locked with waiters */
static uint32_t lock_word;
static long counter;

static void lock(void)
{
	uint32_t c = 0;
	if (__atomic_compare_exchange_n(&lock_word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex(&lock_word, FUTEX_WAIT_PRIVATE, 2, NULL);
		c = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
	}
}

static void unlock(void)
{
	if (__atomic_fetch_sub(&lock_word, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
		futex(&lock_word, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

static void *adder(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		lock();
		long v = counter;
		if (i % 500 == 0)
			sched_yield(); /* hold the lock across a switch: others must wait */
		counter = v + 1;
		unlock();
	}
	return NULL;
}

static uint32_t flag, left;

static void *waiter(void *arg)
{
	/* The shared (non-private) form, as between processes: here between threads. */
	while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0)
		futex(&flag, FUTEX_WAIT, 0, NULL);
	__atomic_store_n(&left, 1, __ATOMIC_RELEASE);
	return (void *)(long)__atomic_load_n(&flag, __ATOMIC_ACQUIRE);
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter: %ld (want 80000), lock word %u\n", counter, lock_word);

	pthread_t w;
	pthread_create(&w, NULL, waiter, NULL);
	struct timespec nap = {0, 1000000};
	nanosleep(&nap, NULL); /* the waiter is probably asleep in FUTEX_WAIT by now */
	__atomic_store_n(&flag, 42, __ATOMIC_RELEASE);
	/* Whether it was asleep yet depends on timing with kernel threads: wake until it
	 * has left; it can be woken at most once. */
	long woken = 0;
	while (!__atomic_load_n(&left, __ATOMIC_ACQUIRE)) {
		woken += futex(&flag, FUTEX_WAKE, 1, NULL);
		nanosleep(&nap, NULL);
	}
	void *got;
	pthread_join(w, &got);
	printf("handshake: waiter saw %ld, woken at most once: %s\n", (long)got,
	       woken <= 1 ? "yes" : "NO");

	uint32_t word = 5;
	errno = 0;
	long r = futex(&word, FUTEX_WAIT_PRIVATE, 4, NULL);
	printf("wait on a changed value: %ld, %s\n", r, errno == EAGAIN ? "EAGAIN" : "other");
	struct timespec ms20 = {0, 20000000};
	errno = 0;
	r = futex(&word, FUTEX_WAIT_PRIVATE, 5, &ms20);
	printf("wait with a 20 ms timeout: %ld, %s\n", r, errno == ETIMEDOUT ? "ETIMEDOUT" : "other");
	printf("wake with no waiter: %ld\n", futex(&word, FUTEX_WAKE_PRIVATE, 10, NULL));
	return 0;
}
