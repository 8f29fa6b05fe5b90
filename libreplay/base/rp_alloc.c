/* rp_alloc.c: an allocator over one reserved mapping (see rp_alloc.h): bump
 * allocation, freed blocks kept on a list and reused first-fit; growing the last
 * block extends it in place. The session allocates little, mostly at start-up. */
#include "base/rp_alloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA_HINT ((void *)0x600000000000ull) /* far below mmap's area, far above brk */
#define ARENA_SIZE (4ull << 30)                /* reserved, not committed */

struct block {
	size_t size;        /* usable bytes after the header */
	struct block *free; /* next on the free list (while free); keeps 16-byte alignment */
};

static char *arena, *next, *end;
static struct block *last, *free_list;

static int arena_init(void)
{
	void *p = mmap(ARENA_HINT, ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) /* taken: anywhere will do, the layout is still the same twice */
		p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	arena = next = p;
	end = arena + ARENA_SIZE;
	return 0;
}

void *rp_malloc(size_t n)
{
	if (!arena && arena_init() != 0)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	for (struct block **pp = &free_list; *pp; pp = &(*pp)->free) {
		struct block *b = *pp;
		if (b->size >= n && b->size <= 2 * n + 4096) {
			*pp = b->free;
			return b + 1;
		}
	}
	if (n > (size_t)(end - next) - sizeof(struct block))
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
	size_t want = (n + 15) & ~(size_t)15;
	if (want <= b->size)
		return p;
	if (b == last && want - b->size <= (size_t)(end - next)) {
		next += want - b->size; /* the last block grows in place */
		b->size = want;
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
