/* Two shared libraries built with sicc, one after the other at the same address:
 * libswap_a.so's swap_touch stores to one cell; once it is dlclosed, libswap_b.so's,
 * laid out the same up to its first store (its entry's counting point at the same pc),
 * stores to seven more after it. Two workers call each library's swap_touch in a loop
 * under hunting: the places where a decision at that counting point may land (the
 * accesses ahead of it) are, in B, B's, not the one access A had there. Prints where
 * B's swap_touch lies, as an offset from the executable's load base (the log's PCs
 * are), which tests/hunt/run.sh looks up the PREEMPT records with. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20000

static void (*touch)(long);

static void *worker(void *arg)
{
	for (long i = 0; i < ROUNDS; i++)
		touch(i);
	return arg;
}

static void *load(const char *name)
{
	void *lib = dlopen(name, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	touch = (void (*)(long))dlsym(lib, "swap_touch");
	return lib;
}

static void run(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker, NULL);
	pthread_create(&t2, NULL, worker, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
}

int main(void)
{
	void *a = load("libswap_a.so");
	uintptr_t at = (uintptr_t)touch;
	run();
	dlclose(a);
	void *b = load("libswap_b.so");
	if ((uintptr_t)touch != at) {
		printf("libswap_b.so's swap_touch at %#lx, not at libswap_a.so's %#lx\n",
		       (unsigned long)(uintptr_t)touch, (unsigned long)at);
		return 3;
	}
	run();
	Dl_info exe;
	if (!dladdr((void *)run, &exe))
		return 4;
	printf("swap_touch at %#lx\n", (unsigned long)(at - (uintptr_t)exe.dli_fbase));
	dlclose(b);
	return 0;
}
