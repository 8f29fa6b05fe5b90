/* main.c: calls across files (tests/e2e/direct_entries.sh): each callee may be an
 * instrumented definition (direct entry), a weak one, a plain gcc object's, an archive
 * member's or a shared library's; a callback from qsort and a cycle of calls between
 * files (depth-first, so the counts pass calls both ways); the calls in two threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long leaf(long x);              /* callee.c */
long bounce(long x, int depth); /* callee.c: calls back into main.c's ping */
long plain_fn(long x);          /* plain.c, built by gcc */
long weak_fn(long x);           /* callee.c (weak) or plain.c (strong) */
long tail_to_leaf(long x);      /* callee.c: a tail jump to leaf */
long non_leaf(long x);          /* callee.c: calls plain_fn, in no cycle of calls */
long taken_fn(long x);          /* callee.c: the same, its address taken there */
extern long (*taken_ptr)(long);

long ping(long x, int depth)
{
	return depth <= 0 ? leaf(x) : bounce(x + 1, depth - 1) + 1;
}

static int by_value(const void *a, const void *b)
{
	long x = leaf(*(const long *)a), y = leaf(*(const long *)b);
	return x < y ? -1 : x > y;
}

/* The calls, in a second thread too: a recording preempts between them. */
static void *calls(void *arg)
{
	long sum = 0;
	for (int i = 0; i < 20000; i++) {
		sum += leaf(i) + plain_fn(i) + weak_fn(i) + tail_to_leaf(i) + non_leaf(i);
		sum += taken_fn(i) + taken_ptr(i);
		if (i % 1000 == 0)
			sum += ping(i, 6);
	}
	*(long *)arg = sum;
	return NULL;
}

int main(void)
{
	long v[64], sum = 0, other = 0;
	pthread_t t;
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof v[0], by_value);
	if (pthread_create(&t, NULL, calls, &other))
		return 1;
	calls(&sum);
	pthread_join(t, NULL);
	printf("%ld %ld %ld %d\n", sum, v[0], v[63], sum == other);
	return 0;
}
