/* Clean: work handed over by create and join; the main thread reads after joining. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
	int *in, *out, n;
};

static void *square(void *arg)
{
	struct job *j = arg;
	for (int i = 0; i < j->n; i++)
		j->out[i] = j->in[i] * j->in[i];
	return NULL;
}

int main(void)
{
	struct job jobs[2];
	pthread_t t[2];
	for (int k = 0; k < 2; k++) {
		jobs[k].n = 16;
		jobs[k].in = malloc(16 * sizeof(int));
		jobs[k].out = malloc(16 * sizeof(int));
		for (int i = 0; i < 16; i++)
			jobs[k].in[i] = i + k;
		pthread_create(&t[k], NULL, square, &jobs[k]);
	}
	long s = 0;
	for (int k = 0; k < 2; k++) {
		pthread_join(t[k], NULL);
		for (int i = 0; i < 16; i++)
			s += jobs[k].out[i];
		free(jobs[k].in);
		free(jobs[k].out);
	}
	printf("%ld\n", s);
	return 0;
}
