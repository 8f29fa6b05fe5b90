/* The address layout is the same in a recording and its replay: heap, mmap and
 * thread stacks print the same addresses, even from a run under gdb. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *where(void *arg)
{
	int local;
	printf("thread stack %p\n", (void *)&local);
	return NULL;
}

int main(void)
{
	int local;
	void *heap = malloc(100), *big = malloc(1 << 20);
	void *map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("main stack %p heap %p big %p mmap %p\n", (void *)&local, heap, big, map);
	pthread_t t;
	pthread_create(&t, NULL, where, NULL);
	pthread_join(t, NULL);
	return 0;
}
