/* Paper 002, workload 3: a threaded matrix multiply. Each thread computes a band of
 * rows; no sharing but the result, so the result never changes; the preemptions
 * still fall differently in each run, and replay puts them back in the same place. */
#include <pthread.h>
#include <stdio.h>

enum { N = 240, THREADS = 4 };
static double a[N][N], b[N][N], c[N][N];

static void *band(void *arg)
{
	long id = (long)arg;
	for (int i = (int)id * N / THREADS; i < (int)(id + 1) * N / THREADS; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
	return NULL;
}

int main(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (i * 7 + j * 3) % 11 - 5;
			b[i][j] = (i * 5 + j * 13) % 7 - 3;
		}
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, band, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	double trace = 0;
	for (int i = 0; i < N; i++)
		trace += c[i][i];
	printf("trace = %.0f\n", trace);
	return 0;
}
