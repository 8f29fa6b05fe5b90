/* An atomicity violation inside a shared library: two workers pop jobs off the
 * library's list (lib_pop_list.c), which takes no lock; one switched out between
 * reading the head and writing it back makes a job done twice. The window holds no
 * counting point: only a switch at the library's memory accesses (its sic_memops and
 * sic_repeats, which the runtime reads from the library's file) can split it. Each job
 * done is counted by the library under a lock (list_done). Built with -DDLOPEN it
 * loads the library with dlopen() instead of being linked with it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef DLOPEN
#include <dlfcn.h>
#endif

#include "../bugs/hunt_bug.h"
#include "lib_pop.h"

#define NJOBS 600

static struct job jobs[NJOBS];
static void (*push)(struct job *), (*done)(struct job *);
static struct job *(*pop)(void);

static void load(void)
{
#ifdef DLOPEN
	void *lib = dlopen("libpoplist.so", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	push = (void (*)(struct job *))dlsym(lib, "list_push");
	pop = (struct job * (*)(void)) dlsym(lib, "list_pop");
	done = (void (*)(struct job *))dlsym(lib, "list_done");
#else
	push = list_push;
	pop = list_pop;
	done = list_done;
#endif
}

static void *worker(void *arg)
{
	for (struct job *j; (j = pop());) {
		hunt_work(200 + (unsigned)j->id % 50);
		done(j);
	}
	return arg;
}

int main(void)
{
	load();
	for (int i = NJOBS - 1; i >= 0; i--) {
		jobs[i].id = i;
		push(&jobs[i]);
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NJOBS; i++)
		if (jobs[i].done != 1) {
			printf("job %d done %d times\n", i, jobs[i].done);
			return 1;
		}
	printf("%d jobs done once each\n", NJOBS);
	return 0;
}
