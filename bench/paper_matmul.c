/* paper_matmul.c: paper 002's third workload (examples/matmul.c), scaled for
 * bench/replay.sh: each thread multiplies a band of rows of two 240x240 matrices,
 * REPS times over, accumulating into the result (so no pass can be optimised away).
 * The result never changes; the preemptions fall differently in every run and a
 * replay puts them back at the same instructions.
 *
 *   paper_matmul [SCALE-PERCENT]     default 100: 4 threads, 120 passes
 *
 * stdout: the trace of the result; stderr: replay_bench.h's timing. */
#include <pthread.h>
#include <stdio.h>

#include "replay_bench.h"

enum { N = 240, THREADS = 4 };
static double a[N][N], b[N][N], c[N][N];
static long reps;

static void *band(void *arg)
{
	long id = (long)arg;
	for (long rep = 0; rep < reps; rep++)
		for (int i = (int)id * N / THREADS; i < (int)(id + 1) * N / THREADS; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int k = 0; k < N; k++)
					s += a[i][k] * b[k][j];
				c[i][j] += s;
			}
	return NULL;
}

int main(int argc, char **argv)
{
	reps = (120 * rb_arg(argc, argv, 1, 100, 100000) + 99) / 100;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (i * 7 + j * 3) % 11 - 5;
			b[i][j] = (i * 5 + j * 13) % 7 - 3;
		}
	pthread_t t[THREADS];
	struct rb_clock clk = rb_start();
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, band, (void *)i)) {
			fprintf(stderr, "paper_matmul: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	rb_stop(clk);
	double trace = 0;
	for (int i = 0; i < N; i++)
		trace += c[i][i];
	printf("trace = %.0f after %ld passes\n", trace, reps);
	return 0;
}
