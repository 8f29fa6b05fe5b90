/* sched_stack.c: thread stacks: mapped with a PROT_NONE guard page below, and a
 * few default-size ones kept for reuse (LIFO, so reuse is deterministic). They are
 * executable when the program's stack is (PT_GNU_STACK), as glibc maps its
 * threads' stacks: gcc's trampolines for nested functions run there. */
#include "sched_impl.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
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

/* Does this loaded object ask for an executable stack? As glibc decides: its
 * PT_GNU_STACK has PF_X, or it has none (x86-64's default). Not the vDSO. */
static int wants_exec(struct dl_phdr_info *info, size_t size, void *data)
{
	if (info->dlpi_addr && info->dlpi_addr == (ElfW(Addr))__getauxval(AT_SYSINFO_EHDR))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_STACK)
			return (info->dlpi_phdr[i].p_flags & PF_X) ? (*(bool *)data = true) : 0;
	*(bool *)data = true;
	return 1;
}

/* PROT_EXEC if any object loaded at start-up wants an executable stack. */
static int stack_prot(void)
{
	static int prot;
	if (!prot) {
		bool exec = false;
		dl_iterate_phdr(wants_exec, &exec);
		prot = PROT_READ | PROT_WRITE | (exec ? PROT_EXEC : 0);
	}
	return prot;
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
		base = sched_sys_mmap(NULL, len, stack_prot(),
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
