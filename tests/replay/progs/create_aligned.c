/* Threads created by main and by threads, with a callee that stores to the stack with
 * movaps before and after every pthread_create, first thing in every thread, and
 * after joins (issue 15: a thread resumed or started with its stack misaligned by 8
 * died in dl_iterate_phdr's movaps under pthread_create). movaps faults unless the
 * stack is 16-byte aligned as the ABI says; the runtime's own path under
 * pthread_create (sched_tls_alloc, dl_iterate_phdr) checks it again. tests/replay
 * records it with a preemption at every counting point (LIBREPLAY_SIC_STRESS=N,preempt)
 * and with the smallest time slice, and replays each recording. -DMISALIGN calls the
 * callee once with the stack 8 bytes off, which must die of SIGSEGV: the check works. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static long work = 200; /* argv[1]: iterations of each leaf's loop */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

/* A 16-byte store to a 16-byte aligned slot of its frame: SIGSEGV if the stack is not. */
__attribute__((noinline)) static long aligned_store(long x)
{
	_Alignas(16) volatile long slot[2];
	__asm__ volatile("movq %1, %%xmm0\n\tmovaps %%xmm0, %0" : "=m"(slot) : "r"(x) : "xmm0");
	return slot[0];
}

static void *leaf(void *arg)
{
	long v = aligned_store((long)arg);
	for (long i = 0; i < work; i++)
		sink += i;
	pthread_mutex_lock(&mu);
	total += v;
	pthread_mutex_unlock(&mu);
	return arg;
}

static void *parent(void *arg)
{
	pthread_t t[2];
	long base = aligned_store((long)arg) * 10;
	for (long k = 0; k < 2; k++) {
		aligned_store(k);
		pthread_create(&t[k], NULL, leaf, (void *)(base + k));
		aligned_store(k);
	}
	for (int k = 0; k < 2; k++) {
		pthread_join(t[k], NULL);
		aligned_store(k);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		work = atol(argv[1]);
	pthread_t t[4];
#ifdef MISALIGN
	__asm__ volatile("subq $8, %%rsp\n\tmovq %0, %%rdi\n\tcall aligned_store\n\taddq $8, %%rsp"
			 : : "i"(7L) : "rax", "rdi", "xmm0", "memory");
#endif
	for (long i = 0; i < 4; i++) {
		aligned_store(i);
		pthread_create(&t[i], NULL, i % 2 ? parent : leaf, (void *)(i + 1));
		aligned_store(i);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		aligned_store(i);
	}
	printf("total %ld\n", total);
	return 0;
}
