/* Indirect tail calls (issue 11): chains of `return (*fp)(x)` through pointer
 * variables in .data, a table of function pointers and a stack of method tables;
 * qsort comparators that forward through pointers, one of them from a function with
 * a computed goto (its jump keeps the count in r15: the callee takes the slow entry
 * at the slot of the comparator's own). */
#include <stdio.h>
#include <stdlib.h>

typedef long (*fn_t)(long);

static long leaf(long x) { return x * 3 + 1; }
fn_t gp = leaf;
__attribute__((noinline)) long mid(long x) { return gp(x + 1); }
fn_t fp = mid;
__attribute__((noinline)) long top(long x) { return fp(x + 2); }

static const fn_t table[3] = {leaf, mid, top};
__attribute__((noinline)) long by_table(long i, long x) { return table[i % 3](x); }

struct layer {
	long (*read)(const struct layer *, long);
	const struct layer *next;
};
static long base_read(const struct layer *l, long off) { return off * 7; }
__attribute__((noinline)) static long pass_read(const struct layer *l, long off)
{
	return l->next->read(l->next, off + 1);
}

static int cmp_real(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int (*cmp_ptr)(const void *, const void *) = cmp_real;
__attribute__((noinline)) int cmp_fwd(const void *a, const void *b) { return cmp_ptr(a, b); }

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
__attribute__((noinline)) static int cmp_goto_outer(const void *a, const void *b)
{
	static void *volatile next;
	next = stop ? &&same : &&fwd;
	goto *next;
fwd:
	return cmp_goto_ptr(a, b);
same:
	return 0;
}

int main(void)
{
	long s = 0;
	for (long i = 0; i < 50; i++)
		s += top(i) + by_table(i, i);
	struct layer l0 = {base_read, NULL}, l1 = {pass_read, &l0}, l2 = {pass_read, &l1};
	for (long i = 0; i < 50; i++)
		s += l2.read(&l2, i);
	int a[40], b[40];
	for (int i = 0; i < 40; i++)
		a[i] = b[i] = (i * 37) % 41;
	qsort(a, 40, sizeof a[0], cmp_fwd);
	qsort(b, 40, sizeof b[0], cmp_goto_outer);
	long h = 0;
	for (int i = 0; i < 40; i++)
		h = h * 31 + a[i] + 3 * b[i];
	printf("tailcalls: %ld %ld\n", s, h);
	return 0;
}
