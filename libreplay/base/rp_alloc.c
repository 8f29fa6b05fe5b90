/* rp_alloc.c: an allocator over mappings of its own (see rp_alloc.h): bump allocation
 * in the current chunk, freed blocks kept on a list and reused first-fit; growing the
 * last block extends it in place. Chunks are reserved as needed, 4 MiB (or what one
 * allocation needs) at a time, each right after the previous one from a fixed address
 * when it is free: the same addresses in a recording and its replay, and no more
 * address space than the session uses (a 4 GiB reservation once failed under
 * `ulimit -v`). The session allocates little, mostly at start-up. */
#include "base/rp_alloc.h"
#include "sched_sys.h"
#include "base/rp_syscall.h"
#include "base/rp_say.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define ARENA_HINT ((char *)0x600000000000ull) /* far below mmap's area, far above brk */
#define CHUNK_SIZE ((size_t)4 << 20)             /* reserved, committed as touched */

struct block {
	size_t size;        /* usable bytes after the header */
	struct block *free; /* next on the free list (while free); keeps 16-byte alignment */
};

static char *next, *end; /* the current chunk's free part */
static char *want = ARENA_HINT; /* where the next chunk goes */
static struct block *last, *free_list;

/* A chunk for at least n more bytes: 0, or -1 (no address space). */
static int chunk_add(size_t n)
{
	size_t len = CHUNK_SIZE;
	if (n + sizeof(struct block) > len)
		len = (n + sizeof(struct block) + CHUNK_SIZE - 1) & ~(CHUNK_SIZE - 1);
	void *p = sched_sys_mmap(want, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) /* taken: anywhere will do, the layout is still the same twice */
		p = sched_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	if (p == MAP_FAILED)
		return -1;
	next = p;
	end = next + len;
	want = end;
	last = NULL; /* the block before is in another chunk: it cannot grow here */
	return 0;
}

void *rp_malloc(size_t n)
{
	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	for (struct block **pp = &free_list; *pp; pp = &(*pp)->free) {
		struct block *b = *pp;
		if (b->size >= n && b->size <= 2 * n + 4096) {
			*pp = b->free;
			return b + 1;
		}
	}
	if ((!next || n + sizeof(struct block) > (size_t)(end - next)) && chunk_add(n) != 0)
		return NULL;
	struct block *b = (struct block *)next;
	b->size = n;
	next += sizeof *b + n;
	last = b;
	return b + 1;
}

void *rp_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = rp_malloc(n * size);
	return p ? memset(p, 0, n * size) : NULL; /* rp_free may have handed it back dirty */
}

void *rp_realloc(void *p, size_t n)
{
	if (!p)
		return rp_malloc(n);
	struct block *b = (struct block *)p - 1;
	size_t grown = (n + 15) & ~(size_t)15;
	if (grown <= b->size)
		return p;
	if (b == last && grown - b->size <= (size_t)(end - next)) {
		next += grown - b->size; /* the last block grows in place */
		b->size = grown;
		return p;
	}
	void *q = rp_malloc(n);
	if (q)
		memcpy(q, p, b->size);
	return q;
}

void rp_free(void *p)
{
	if (!p)
		return;
	struct block *b = (struct block *)p - 1;
	if (b == last) { /* give back the last block */
		next = (char *)last;
		last = NULL;
		return;
	}
	b->free = free_list;
	free_list = b;
}

char *rp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = rp_malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

_Noreturn void rp_fatal_memory(const char *what)
{
	struct rlimit as;
	char limit[96] = "";
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
		snprintf(limit, sizeof limit, " (the address space is limited to %llu KiB: ulimit -v)",
			 (unsigned long long)(as.rlim_cur >> 10));
	rp_say("out of memory for %s%s", what, limit);
	rp_exit_group(RP_EXIT_NOMEM);
}
