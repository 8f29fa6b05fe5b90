/* Four threads insert heap pointers into one table keyed by pointer, then main
 * prints a checksum over the table's bucket order: the output depends on the
 * addresses malloc gave. Inserting at a chain's head and walking every bucket cost
 * the same instructions whatever the addresses, so a replay at other addresses runs
 * the same counts and could print another checksum without diverging. Every eighth
 * block is large (mmap'd by malloc), so the mmap area's addresses count too. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define PER 2000
#define BUCKETS 251

struct node {
	struct node *next;
	void *key;
	unsigned id;
};

static struct node *table[BUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *insert(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < PER; i++) {
		struct node *n = malloc(sizeof *n);
		n->key = malloc(i % 8 == 7 ? 200000 : 16 + i % 64);
		n->id = t * PER + i;
		size_t h = ((uintptr_t)n->key >> 4) % BUCKETS;
		pthread_mutex_lock(&lock);
		n->next = table[h];
		table[h] = n;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	for (unsigned t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, insert, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	uint64_t sum = 0xcbf29ce484222325ull;
	for (unsigned h = 0; h < BUCKETS; h++)
		for (struct node *n = table[h]; n; n = n->next)
			sum = (sum ^ n->id) * 0x100000001b3ull;
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
