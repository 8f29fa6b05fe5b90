/* own_tls.c: every thread has its own __thread variables, whichever way the switch
 * loads them (tests/e2e/tls_paths.sh runs it under each --tls and under filters that
 * make modify_ldt lie or refuse). Prints the path the run used, then one line per
 * thread. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define NTHREADS 6

static __thread int id = -1;
static __thread long sums[4];
static __thread char name[16] = "main";
static int *volatile ids[NTHREADS];

/* libreplay's scheduler says which path it took (absent from a gcc build) */
extern const char *sched_tls_path(void) __attribute__((weak));

static void *run(void *arg)
{
	int me = (int)(long)arg;
	int fresh = id == -1 && sums[0] == 0 && name[0] == 'm';
	id = me;
	ids[me] = &id;
	snprintf(name, sizeof name, "thread %d", me);
	int kept = 1;
	for (int round = 0; round < 50; round++) {
		sums[round % 4] += me;
		sched_yield();
		kept &= id == me && name[7] == '0' + me;
	}
	long total = sums[0] + sums[1] + sums[2] + sums[3];
	printf("%s: fresh %s, kept %s, sum %s\n", name, fresh ? "yes" : "NO", kept ? "yes" : "NO",
	       total == 50L * me ? "yes" : "NO");
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	id = 100;
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i))
			return 1;
	int others = 1;
	for (int i = 0; i < NTHREADS; i++) {
		while (!ids[i])
			sched_yield();
		others &= *ids[i] == i; /* its own, read from main while it runs */
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("main: id %d, others' ids through pointers %s\n", id, others ? "yes" : "NO");
	printf("path: %s\n", sched_tls_path ? sched_tls_path() : "?");
	return 0;
}
