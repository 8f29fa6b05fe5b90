/* condvar: a bounded buffer with several producers and consumers, broadcast waking
 * every waiter, ping-pong by signal, timed waits on both clocks (condattr_setclock
 * and pthread_cond_clockwait). */
#include "pt_test.h"

/* ---- bounded buffer -------------------------------------------------------------- */
#define SLOTS 4
#define PER_PRODUCER 5000
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long buf[SLOTS];
static int head, count, producers_left = 3;

static void *produce(void *arg)
{
	long base = (long)arg * PER_PRODUCER;
	for (long i = 1; i <= PER_PRODUCER; i++) {
		pthread_mutex_lock(&buf_lock);
		while (count == SLOTS)
			pthread_cond_wait(&not_full, &buf_lock);
		buf[(head + count++) % SLOTS] = base + i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&buf_lock);
	}
	pthread_mutex_lock(&buf_lock);
	producers_left--;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&buf_lock);
	return NULL;
}

static void *consume(void *arg)
{
	long sum = 0;
	pthread_mutex_lock(&buf_lock);
	for (;;) {
		while (count == 0 && producers_left > 0)
			pthread_cond_wait(&not_empty, &buf_lock);
		if (count == 0)
			break;
		sum += buf[head];
		head = (head + 1) % SLOTS;
		count--;
		pthread_cond_signal(&not_full);
	}
	pthread_mutex_unlock(&buf_lock);
	return (void *)sum;
}

static void bounded_buffer(void)
{
	pthread_t p[3], c[2];
	long total = 0;
	void *r;
	for (long i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consume, NULL);
	for (long i = 0; i < 3; i++)
		pthread_create(&p[i], NULL, produce, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < 2; i++) {
		pthread_join(c[i], &r);
		total += (long)r;
	}
	long n = 3L * PER_PRODUCER;
	printf("bounded buffer: consumed sum %ld (want %ld)\n", total, n * (n + 1) / 2);
}

/* ---- broadcast ------------------------------------------------------------------ */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static int open_gate, waiting, passed;

static void *wait_gate(void *arg)
{
	pthread_mutex_lock(&gate_lock);
	waiting++;
	pthread_cond_signal(&arrived);
	while (!open_gate)
		pthread_cond_wait(&gate, &gate_lock);
	passed++;
	pthread_mutex_unlock(&gate_lock);
	return NULL;
}

static void broadcast(void)
{
	pthread_t t[6];
	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, wait_gate, NULL);
	pthread_mutex_lock(&gate_lock);
	while (waiting < 6)
		pthread_cond_wait(&arrived, &gate_lock);
	open_gate = 1;
	pthread_cond_broadcast(&gate);
	pthread_mutex_unlock(&gate_lock);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	printf("broadcast: %d of 6 passed\n", passed);
}

/* ---- ping-pong ------------------------------------------------------------------ */
static pthread_mutex_t pp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pp_cond = PTHREAD_COND_INITIALIZER;
static int turn, volleys;

static void *player(void *arg)
{
	int me = (int)(long)arg;
	pthread_mutex_lock(&pp_lock);
	for (int i = 0; i < 1000; i++) {
		while (turn != me)
			pthread_cond_wait(&pp_cond, &pp_lock);
		volleys++;
		turn = !me;
		pthread_cond_signal(&pp_cond);
	}
	pthread_mutex_unlock(&pp_lock);
	return NULL;
}

static void ping_pong(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("ping-pong: %d volleys\n", volleys);
}

/* ---- timed waits ------------------------------------------------------------------ */
static void timed(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER, cm;
	pthread_condattr_t a;
	clockid_t clk = -1;
	struct timespec past = {0, 0}, bad = {0, -1}, t0, soon;

	pthread_condattr_init(&a);
	pthread_condattr_getclock(&a, &clk);
	CHECK("default condattr clock is CLOCK_REALTIME", clk == CLOCK_REALTIME);
	SHOW(pthread_condattr_setclock(&a, CLOCK_MONOTONIC));
	pthread_condattr_getclock(&a, &clk);
	CHECK("condattr clock is now CLOCK_MONOTONIC", clk == CLOCK_MONOTONIC);
	SHOW(pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID));
	SHOW(pthread_cond_init(&cm, &a));
	pthread_condattr_destroy(&a);

	pthread_mutex_lock(&m);
	SHOW(pthread_cond_timedwait(&c, &m, &past));
	SHOW(pthread_cond_timedwait(&c, &m, &bad));
	clock_gettime(CLOCK_REALTIME, &t0);
	soon = in_ms(CLOCK_REALTIME, 30);
	SHOW(pthread_cond_timedwait(&c, &m, &soon));
	CHECK("realtime wait lasted 30 ms", ms_since(CLOCK_REALTIME, &t0) >= 30);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	soon = in_ms(CLOCK_MONOTONIC, 30);
	SHOW(pthread_cond_timedwait(&cm, &m, &soon));
	CHECK("monotonic condvar wait lasted 30 ms", ms_since(CLOCK_MONOTONIC, &t0) >= 30);
	soon = in_ms(CLOCK_MONOTONIC, 20);
	SHOW(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &soon));
	SHOW(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &soon));
	SHOW(pthread_mutex_trylock(&m)); /* still held after every timeout */
	pthread_mutex_unlock(&m);
	SHOW(pthread_cond_destroy(&c));
	SHOW(pthread_cond_destroy(&cm));
}

int main(void)
{
	bounded_buffer();
	broadcast();
	ping_pong();
	timed();
	return 0;
}
