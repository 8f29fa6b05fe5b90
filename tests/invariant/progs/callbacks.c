/* Callbacks from libc: qsort and bsearch comparators, a tsearch/twalk visitor,
 * atexit handlers and a signal handler. Foreign code calls them in loops that pass no counting point of
 * ours, and some of them call out to libc again. (Constructors: ctor.c.) */
#define _GNU_SOURCE
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ncmp;
static long walked;

static int weight(int x)
{
	int w = 0;
	while (x) {
		w += x & 1;
		x >>= 1;
	}
	return w;
}

/* Calls an instrumented helper with a loop, on every comparison. */
static int by_weight_then_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	ncmp++;
	int d = weight(x) - weight(y);
	return d ? d : (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Calls back out into libc from inside a callback. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void visit(const void *node, VISIT v, int depth)
{
	if (v == postorder || v == leaf)
		walked = walked * 7 + **(const int *const *)node + depth;
}

static volatile sig_atomic_t signalled;

static void on_usr1(int sig)
{
	for (int i = 0; i < 8; i++)
		signalled += sig + i;
}

static void bye1(void)
{
	printf("callbacks: atexit 1 after %d comparisons\n", ncmp);
}

static void bye2(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += i;
	printf("callbacks: atexit 2 %d\n", s);
}

int main(void)
{
	atexit(bye1);
	atexit(bye2);
	int a[24];
	for (int i = 0; i < 24; i++)
		a[i] = (i * 37 + 5) % 61;
	qsort(a, 24, sizeof a[0], by_weight_then_value);
	long h = 0;
	for (int i = 0; i < 24; i++)
		h = h * 3 + a[i];
	qsort(a, 24, sizeof a[0], cmp_int);
	int found = 0;
	for (int k = 0; k < 64; k += 3)
		found += bsearch(&k, a, 24, sizeof a[0], cmp_int) != NULL;
	const char *words[] = {"pear", "fig", "apple", "kiwi", "plum", "date", "lime"};
	qsort(words, 7, sizeof words[0], cmp_str);
	void *root = NULL;
	static int keys[12];
	for (int i = 0; i < 12; i++) {
		keys[i] = (i * 5) % 12;
		tsearch(&keys[i], &root, cmp_int);
	}
	twalk(root, visit);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	printf("callbacks: %ld %d %s %s %ld %d\n", h, found, words[0], words[6], walked, (int)signalled);
	return 0;
}
