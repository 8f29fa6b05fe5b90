/* tcache_key.c: reads freed memory. glibc (2.34+) writes its malloc key, a random word
 * drawn at the first malloc, into the second word of every chunk freed into the thread
 * cache: the recording's key must be the replay's (docs/inputs.md). Prints the key as a
 * constructor and main see it, and races two threads over a use-after-free whose work
 * (how many rounds, which message) depends on the stale word. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
	struct job *next;
	uint64_t rounds; /* the freed chunk's key word */
	uint64_t pad;
};

/* A freed chunk's second word, read as a buggy program would. */
static uint64_t stale_word(void *p)
{
	uintptr_t at = (uintptr_t)p;
	__asm__ volatile("" : "+r"(at));
	return ((volatile uint64_t *)at)[1];
}

static uint64_t ctor_key;

__attribute__((constructor)) static void early_free(void)
{
	void *p = malloc(40);
	free(p);
	ctor_key = stale_word(p);
}

static struct job *shared;
static volatile uint64_t total;

static void *worker(void *arg)
{
	long id = (long)arg;
	struct job *j = shared; /* freed by main, maybe before this runs */
	uint64_t n = stale_word(j) & 0xfff;
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n + 1000; i++) {
		sum += i ^ (uint64_t)id;
		total++;
	}
	printf("worker %ld: %s, %llu rounds, sum %llx\n", id, n & 1 ? "odd" : "even",
	       (unsigned long long)(n + 1000), (unsigned long long)sum);
	return NULL;
}

int main(void)
{
	void *p = malloc(24);
	free(p);
	printf("ctor key %016llx\nmain key %016llx\n", (unsigned long long)ctor_key,
	       (unsigned long long)stale_word(p));
	shared = malloc(sizeof *shared);
	shared->rounds = 3;
	free(shared); /* the use after free: the workers read rounds, now the key */
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("total %llu\n", (unsigned long long)total);
	return 0;
}
