/* sched_stack.c: thread stacks: mapped with a PROT_NONE guard page below, and a
 * few default-size ones kept for reuse (LIFO, so reuse is deterministic). */
#include "sched_impl.h"

#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
	static size_t size;
	if (!size)
		size = sched_page_size();
	return size;
}

static size_t cached_len(void)
{
	return SCHED_DEFAULT_STACK_SIZE + page_size();
}

int sched_stack_alloc(struct sched_thread *t, size_t size)
{
	size_t page = page_size();
	size = (size + page - 1) & ~(page - 1);
	size_t len = size + page;
	char *base;
	if (len == cached_len() && sched_g.ncached > 0) {
		base = sched_g.stack_cache[--sched_g.ncached];
	} else {
		base = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (base == MAP_FAILED)
			return EAGAIN;
		if (mprotect(base, page, PROT_NONE)) {
			munmap(base, len);
			return EAGAIN;
		}
	}
	t->map_base = base;
	t->map_len = len;
	t->stack_lo = base + page;
	t->stack_hi = base + len;
	return 0;
}

void sched_stack_free(struct sched_thread *t)
{
	sched_tls_free(t); /* a thread's TLS goes wherever its stack goes */
	if (!t->map_base)
		return;
	if (t->map_len == cached_len() &&
	    sched_g.ncached < (int)(sizeof sched_g.stack_cache / sizeof sched_g.stack_cache[0]))
		sched_g.stack_cache[sched_g.ncached++] = t->map_base;
	else
		munmap(t->map_base, t->map_len);
	t->map_base = NULL;
	t->map_len = 0;
}

void sched_stack_cache_drop(void)
{
	while (sched_g.ncached > 0)
		munmap(sched_g.stack_cache[--sched_g.ncached], cached_len());
}
