/* gcc's nested functions: taking the address of one that uses its parent's locals
 * builds a trampoline on the stack, so the program asks for an executable stack
 * (PT_GNU_STACK RWE). Each thread's stack and main's (both mapped by the runtime)
 * must honour it. Every thread sorts through such a comparator, and one calls it
 * from a second thread through a pointer it was handed (the trampoline lives on the
 * owner's stack).
 * OLEVELS: -O0 -O1 -O2 -O3 */
#include "pt_test.h"

#define NT 4
#define N 200

static void sort_by(int *v, int n, int (*cmp)(const void *, const void *))
{
	qsort(v, (size_t)n, sizeof *v, cmp);
}

struct job {
	int id;
	long hash;
	int calls;
};

static void *work(void *arg)
{
	struct job *j = arg;
	int calls = 0;
	int cmp(const void *a, const void *b)
	{
		calls++;
		int x = *(const int *)a % (j->id + 3), y = *(const int *)b % (j->id + 3);
		return x != y ? x - y : *(const int *)a - *(const int *)b;
	}
	int v[N];
	for (int i = 0; i < N; i++)
		v[i] = (i * 37 + j->id * 11) % 1009;
	for (int round = 0; round < 20; round++) {
		sort_by(v, N, cmp);
		for (int i = 0; i < N; i++)
			v[i] = (v[i] * 7 + round) % 1009;
	}
	long h = 0;
	for (int i = 0; i < N; i++)
		h = h * 31 + v[i];
	j->hash = h;
	j->calls = calls;
	return NULL;
}

/* Another thread calls a trampoline that lives on main's stack. */
static int (*shared_cmp)(const void *, const void *);

static void *borrow(void *arg)
{
	int v[] = {5, 3, 9, 1, 7};
	sort_by(v, 5, shared_cmp);
	printf("borrowed: %d %d %d %d %d\n", v[0], v[1], v[2], v[3], v[4]);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct job jobs[NT + 1];
	for (int i = 0; i <= NT; i++)
		jobs[i] = (struct job){.id = i};
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, work, &jobs[i + 1]);
	work(&jobs[0]);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i <= NT; i++)
		printf("job %d: %d compares, hash %ld\n", i, jobs[i].calls, jobs[i].hash);

	int descending = 0;
	int down(const void *a, const void *b)
	{
		descending++;
		return *(const int *)b - *(const int *)a;
	}
	shared_cmp = down;
	pthread_t b;
	pthread_create(&b, NULL, borrow, NULL);
	pthread_join(b, NULL);
	printf("main's comparator ran %s\n", descending > 0 ? "yes" : "NO");
	return 0;
}
