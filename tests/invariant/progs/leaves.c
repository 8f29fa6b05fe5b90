/* Leaf functions (docs/sic.md, "Where it counts"): their returns do not count, every
 * way into them does. Called from this file one after the other (`f(); f();`, static
 * and global), from leaves-other.c, through a pointer in a loop, as qsort's and
 * bsearch's comparators (glibc's save r15: the slow path), in a loop of foreign code
 * that leaves the token in r15 (leaves-foreign.c: the fast path), by tail jumps, and a
 * weak one (through its shim), and one that calls strlen. Each leaf touches memory so
 * that no call of two in a row can be merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long hits;

__attribute__((noinline)) static void bump(void)
{
	hits++;
}

__attribute__((noinline)) long here_leaf(long x)
{
	hits += x & 3;
	return x * 5 + 1;
}

/* A leaf with a loop and a switch (a jump table stays in its function). */
__attribute__((noinline)) static long busy_leaf(long x)
{
	long s = 0;
	for (long i = 0; i < (x & 7); i++) {
		switch ((x + i) % 5) {
		case 0: s += 3; break;
		case 1: s ^= i; break;
		case 2: s -= 7; break;
		case 3: s += i * i; break;
		default: s <<= 1; break;
		}
	}
	hits += s & 1;
	return s;
}

/* A leaf whose calls go only to the C library's strlen, which calls nothing of the
 * program: the calls to strlen do not count, and it is a leaf all the same. */
__attribute__((noinline)) static long measure(const char *s)
{
	hits += (long)strlen(s) & 1;
	return (long)strlen(s + 1) * 3;
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

long other_leaf(long x);
long other_tail(long x);
long other_weak(long x);
long (*other_ptr(void))(long);
long foreign_apply(long (*fn)(long), long n);

/* A tail jump into this file's leaf. */
__attribute__((noinline)) long tail_here(long x)
{
	if (x & 1)
		return here_leaf(x + 2);
	return busy_leaf(x) + 1;
}

long (*volatile through)(long) = here_leaf;

int main(int argc, char **argv)
{
	int v[32];
	long sum = 0;
	for (int i = 0; i < 32; i++)
		v[i] = (i * 13) % 32;
	bump();
	bump();
	char word[8] = "leaves";
	word[argc & 1] = 'L';
	sum += measure(word);
	sum += measure(word);
	sum += here_leaf(1);
	sum += here_leaf(2);
	sum += other_leaf(3);
	sum += other_leaf(4);
	qsort(v, 32, sizeof v[0], by_value);
	int key = 17;
	int *at = bsearch(&key, v, 32, sizeof v[0], by_value);
	long (*p)(long) = other_ptr();
	sum += foreign_apply(here_leaf, 20) + foreign_apply(other_leaf, 20) + foreign_apply(p, 20);
	for (int i = 0; i < 30; i++) {
		sum += through(i) + p(i) + busy_leaf(i) + tail_here(i) + other_tail(i) + other_weak(i);
		bump();
		word[i & 3] = (char)('a' + i % 26);
		sum += measure(word);
	}
	(void)argv;
	printf("%ld %ld %d %d %d\n", sum, hits, v[0], v[31], at ? *at : -1);
	return 0;
}
