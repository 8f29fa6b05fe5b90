/* Indirect tail calls under preemption (issue 11): four threads race on a shared
 * total through a VFS-like stack of layers (each layer's method tail-jumps to the
 * next one's), and sort with comparators that forward through function pointers,
 * one from a function with a computed goto. Time slices end inside the chains and
 * inside the callbacks qsort makes; a replay must reproduce the lost updates. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 3000, WRITES = 400 };
static volatile long total;

struct layer {
	long (*write)(const struct layer *, long);
	const struct layer *next;
};
static long base_write(const struct layer *l, long v)
{
	long t = total; /* load ... store: not atomic */
	long mix = v;
	for (int k = 0; k < 16; k++)
		mix = mix * 31 + k;
	total = t + (v & 7);
	return t + (mix & 1);
}
__attribute__((noinline)) static long pass_write(const struct layer *l, long v)
{
	return l->next->write(l->next, v + 1);
}

static int cmp_real(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int (*cmp_ptr)(const void *, const void *) = cmp_real;
static int stop;
__attribute__((noinline)) static int cmp_goto(const void *a, const void *b)
{
	static void *volatile next; /* opaque: gcc keeps the goto */
	next = stop ? &&same : &&fwd;
	goto *next;
fwd:
	return cmp_ptr(a, b);
same:
	return 0;
}
int (*cmp_goto_ptr)(const void *, const void *) = cmp_goto;
__attribute__((noinline)) static int cmp_outer(const void *a, const void *b) { return cmp_goto_ptr(a, b); }

static void *work(void *arg)
{
	const struct layer l0 = {base_write, NULL}, l1 = {pass_write, &l0}, l2 = {pass_write, &l1};
	long id = (long)arg, sum = 0;
	int v[64];
	for (int round = 0; round < ROUNDS; round++) {
		for (long i = 0; i < WRITES; i++)
			sum += l2.write(&l2, i + id);
		for (int i = 0; i < 64; i++)
			v[i] = (int)((i * 40503L + round * 7 + id) % 1000);
		qsort(v, 64, sizeof v[0], round & 1 ? cmp_outer : cmp_goto);
		sum += v[id];
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	long want = 0; /* base_write adds (i + id + 2) & 7 */
	for (long id = 0; id < 4; id++)
		for (long i = 0; i < WRITES; i++)
			want += ROUNDS * ((i + id + 2) & 7);
	printf("total = %ld (%s)\n", total, total == want ? "no update lost" : "updates lost");
	return 0;
}
