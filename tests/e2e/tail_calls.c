/* Indirect tail calls (issue 11, item 1): at -O2 `return (*fp)(x)` is a jump through
 * a pointer, which leaves the function. Chains of them, through pointer variables,
 * tables of function pointers and method tables, entered from instrumented code and
 * from qsort (the foreign-entry slow path), and one in a function that also has a
 * computed goto (sicpp cannot tell that jump from the goto's). The count must keep
 * growing, the results must match gcc's and no return may lose its way. */
#include <stdio.h>
#include <stdlib.h>
#include "count_check.h"

typedef long (*fn_t)(long);

static long calls;
static long leaf(long x)
{
	calls++;
	COUNT_CHECK(1);
	return x * 3 + 1;
}
static long leaf2(long x)
{
	calls++;
	return x ^ 0x55;
}

/* a -> (*fp)() -> (*gp)(), each a tail call through a pointer in .data */
fn_t gp = leaf;
__attribute__((noinline)) long mid(long x) { return gp(x + 1); }
fn_t fp = mid;
__attribute__((noinline)) long top(long x) { return fp(x + 2); }

/* a table of function pointers, indexed: not a switch table */
static long twice(long x) { return top(x) * 2; }
static const fn_t table[4] = {leaf, mid, top, twice};
__attribute__((noinline)) long by_table(long i, long x) { return table[i & 3](x); }

/* a VFS-like stack of layers: each forwards to the next layer's method */
struct layer {
	const struct layer_ops *ops;
	const struct layer *next;
	long bias;
};
struct layer_ops {
	long (*read)(const struct layer *, long);
};
static long base_read(const struct layer *l, long off)
{
	COUNT_CHECK(1);
	return off * 7 + l->bias;
}
__attribute__((noinline)) static long pass_read(const struct layer *l, long off)
{
	return l->next->ops->read(l->next, off + l->bias);
}
static const struct layer_ops base_ops = {base_read}, pass_ops = {pass_read};

/* qsort's comparator forwards through pointers, two levels deep */
static int cmp_real(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	calls++;
	return (x > y) - (x < y);
}
int (*cmp_ptr)(const void *, const void *) = cmp_real;
__attribute__((noinline)) int cmp_fwd(const void *a, const void *b) { return cmp_ptr(a, b); }
int (*cmp_fwd_ptr)(const void *, const void *) = cmp_fwd;
__attribute__((noinline)) static int cmp_outer(const void *a, const void *b) { return cmp_fwd_ptr(a, b); }

/* A computed goto and a tail call through a pointer in one function. */
fn_t hop = top;
__attribute__((noinline)) long dispatch(long op, long x)
{
	static void *const where[] = {&&tail, &&plain, &&again};
	goto *where[op % 3];
tail:
	return hop(x);
plain:
	return x + 1;
again:
	return gp(x * 2);
}
static int cmp_dispatch(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	long dx = dispatch(x & 1 ? 0 : 2, x), dy = dispatch(y & 1 ? 0 : 2, y);
	return (dx > dy) - (dx < dy);
}
/* Comparators with a computed goto, each forwarding through a pointer: the first
 * is entered from qsort by the slow path, and its jump reaches the second, whose jump
 * reaches cmp_real, both without the token. */
static int mode; /* 0: forward */
__attribute__((noinline)) static int cmp_goto2(const void *a, const void *b)
{
	static void *volatile next; /* opaque: gcc keeps the goto */
	next = mode ? &&same : &&fwd;
	goto *next;
fwd:
	return cmp_ptr(a, b);
same:
	return 0;
}
int (*cmp_goto2_ptr)(const void *, const void *) = cmp_goto2;
__attribute__((noinline)) static int cmp_goto1(const void *a, const void *b)
{
	static void *volatile next; /* opaque: gcc keeps the goto */
	next = mode ? &&same : &&fwd;
	goto *next;
fwd:
	return cmp_goto2_ptr(a, b);
same:
	return 0;
}

int main(void)
{
	long s = 0;
	COUNT_CHECK(0);
	for (long i = 0; i < 2000; i++)
		s += top(i) + by_table(i, i) + dispatch(i, i);
	COUNT_CHECK(1);

	struct layer l0 = {&base_ops, NULL, 5}, l1 = {&pass_ops, &l0, 3}, l2 = {&pass_ops, &l1, 11};
	for (long i = 0; i < 1000; i++)
		s += l2.ops->read(&l2, i);
	COUNT_CHECK(1);

	enum { N = 2000 };
	static long a[N], b[N], c[N];
	unsigned r = 99;
	for (int i = 0; i < N; i++) {
		r = r * 1103515245u + 12345u;
		a[i] = b[i] = c[i] = (long)(r >> 8) % 50000;
	}
	qsort(a, N, sizeof a[0], cmp_outer);
	qsort(b, N, sizeof b[0], cmp_dispatch);
	gp = leaf2;
	qsort(c, N, sizeof c[0], cmp_goto1);
	COUNT_CHECK(1);
	long h = 0;
	for (int i = 0; i < N; i++)
		h = h * 31 + a[i] + 3 * b[i] + 5 * c[i];
	printf("sum=%ld hash=%ld calls=%ld\n", s, h, calls);
	return 0;
}
