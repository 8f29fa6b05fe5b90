/* A crash right where a counting point goes on (tests/gdb/ends.sh): a thread stores a
 * byte at each page of a mapping and walks off its end. At -O1 the loop is the counting
 * point (decq %r15; jz to its stub) and the store, so the fault comes at the pc the
 * stub returns to, and the instruction before it is the jump to the stub, run at the
 * fault's own count before the stop at that count. */
#include <pthread.h>
#include <sys/mman.h>

static char *area;

static void *walker(void *arg)
{
	char *q = area;
	for (;;) {
		*q = 1; /* the fault */
		q += 4096;
	}
	return arg;
}

int main(void)
{
	pthread_t t;
	area = mmap(NULL, 64 << 12, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	pthread_create(&t, NULL, walker, NULL);
	pthread_join(t, NULL);
	return 0;
}
