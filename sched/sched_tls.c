/* sched_tls.c: each thread's own static TLS and TCB, laid out as glibc lays out a
 * new pthread's (x86-64, TLS variant II): the thread pointer (the fs base) points at
 * the TCB, glibc's struct pthread, whose first words are tcbhead_t (self pointer,
 * DTV, self again, ..., stack guard at 0x28, pointer guard at 0x30); each module's
 * static TLS block sits below it, at the same offset in every thread.
 *
 * Switching it must be cheap: writing the fs base (wrfsbase) adds ~13 ns to a
 * ~12 ns switch on our machines, loading an fs selector next to nothing. So each
 * area is mapped below 4 GiB (MAP_32BIT) and gets an LDT entry (modify_ldt) whose
 * base is its thread pointer; the switch loads that selector (sched_load_tp). Thread
 * 1's TLS is glibc's, above 4 GiB: switching to it writes the base. When switches
 * do not use selectors (sched_tls_probe.c found them refused or faulting, or another
 * path was asked for) or have none to give (8192 in use, no memory below 4 GiB), a
 * thread gets selector 0 and the base is written for it too. The kernel keeps both the selector
 * and the base of a task across its own context switches. Areas and entries are
 * reused LIFO, so the layout is the same every run.
 *
 * What a new thread's area holds:
 * - the TCB: a copy of thread 1's (same stack and pointer guards, so canaries and
 *   mangled pointers stay valid across threads; same kernel tid), with its TLS base
 *   (fs:0) and DTV its own, its THREAD_SELF (fs:0x10) still thread 1's (below), and
 *   rseq's cpu_id marked unregistered (the kernel keeps thread 1's up to date only:
 *   sched_getcpu then asks the vDSO);
 * - the C library's block: a copy of thread 1's live one (malloc's tcache and arena,
 *   the locale, the ctype tables that glibc sets up when a real thread starts; libc
 *   is never preempted in the middle of them, so sharing them is what one kernel
 *   thread did before), but dlerror's result and h_errno start empty, and errno is
 *   zeroed by sched_thread_main;
 * - every other module's block (the program's, other libraries'): fresh from its
 *   PT_TLS image (.tdata copied, .tbss zeroed), as a new pthread sees it;
 * - a DTV of its own (glibc's malloc: glibc may grow it with realloc) whose entries
 *   for static modules point into the area; the others are left unallocated, for
 *   __tls_get_addr to fill (and free() at the thread's end).
 * glibc does not export sizeof(struct pthread): sched/probe/tcb_size.c measures it
 * at build time, and it is used only with the glibc it was measured on. */
#include "sched_impl.h"
#include "sched_tcb.h" /* generated: SCHED_TCB_SIZE, SCHED_TCB_GLIBC */

#include <asm/ldt.h>
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>

/* glibc's dtv_t: entry -1 holds the length, 0 the generation, i module i's block. */
union dtv {
	size_t counter;
	struct {
		void *val;
		void *to_free;
	} pointer;
};
#define DTV_UNALLOCATED ((void *)-1l)

struct tcb_head { /* tcbhead_t's first words */
	void *tcb;
	union dtv *dtv;
	void *self;
};

static struct {
	int state;    /* 0: not checked yet, 1: usable, -1: not (said once) */
	size_t below; /* static TLS bytes below the thread pointer */
	size_t align; /* the thread pointer's alignment */
	size_t len;   /* bytes mapped for one area */
	size_t page;
	size_t per_slab; /* areas per mapping */
	uint16_t ldt_next;            /* LDT entries never used yet start here */
	uint16_t ldt_free[LDT_ENTRIES]; /* freed entries, LIFO */
	int nldt_free;
	void *free_areas; /* LIFO, linked through each area's first word (unused) */
	void *slabs;      /* the mappings they come from, linked through their first page */
	const char *why;  /* state -1: why */
	ptrdiff_t dlerror_off, h_errno_off; /* in libc's block, see libc_block */
} lay;

/* Areas per mapping: one mmap per 64 threads, fewer if the TLS is big (the room
 * below 4 GiB is 1 GiB). */
#define SLAB_AREAS 64
#define SLAB_BYTES (4u << 20)

static int unusable(const char *why)
{
	lay.why = why;
	lay.state = -1;
	return -1;
}

/* Where the C library's TLS variables a new thread must not share sit in its
 * block (-1: unknown). */
static int libc_block(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *mine = info->dlpi_tls_data;
	for (int k = 0; mine && k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *tls = &info->dlpi_phdr[k];
		if (tls->p_type != PT_TLS || (char *)&errno < mine ||
		    (char *)&errno >= mine + tls->p_memsz)
			continue;
		char *dlerr = dlsym(RTLD_DEFAULT, "__libc_dlerror_result");
		char *herr = dlsym(RTLD_DEFAULT, "__h_errno");
		if (dlerr >= mine && dlerr + sizeof(void *) <= mine + tls->p_memsz)
			lay.dlerror_off = dlerr - mine;
		if (herr >= mine && herr + sizeof(int) <= mine + tls->p_memsz)
			lay.h_errno_off = herr - mine;
	}
	return 0;
}

/* Check, once, that glibc's static TLS is laid out as this file assumes. */
static int layout(void)
{
	if (lay.state)
		return lay.state;
	lay.dlerror_off = lay.h_errno_off = -1;
	dl_iterate_phdr(libc_block, NULL);
	void (*info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(
		RTLD_DEFAULT, "_dl_get_tls_static_info");
	size_t size = 0, align = 0;
	if (strcmp(gnu_get_libc_version(), SCHED_TCB_GLIBC))
		return unusable("libreplay measured glibc " SCHED_TCB_GLIBC "'s struct pthread, "
				"this is another glibc: rebuild libreplay (make clean all)");
	if (!info)
		return unusable("ld.so has no _dl_get_tls_static_info");
	info(&size, &align);
	if (!align || (align & (align - 1)) || size <= SCHED_TCB_SIZE ||
	    (size - SCHED_TCB_SIZE) % align || (uintptr_t)sched_g.host.tp % align)
		return unusable("unexpected static TLS layout");
	size_t page = sched_page_size();
	if (align > page)
		return unusable("static TLS aligned beyond a page");
	lay.page = page;
	lay.below = size - SCHED_TCB_SIZE;
	lay.align = align;
	/* room for the alignment, and for the free-list link below the TLS */
	lay.len = (size + align - 1 + sizeof(void *) + page - 1) & ~(page - 1);
	lay.per_slab = SLAB_BYTES / lay.len;
	lay.per_slab = lay.per_slab < 1 ? 1 : lay.per_slab > SLAB_AREAS ? SLAB_AREAS : lay.per_slab;
	lay.state = 1;
	return 1;
}

/* An area below 4 GiB if there is room, else anywhere; NULL if none. Areas come
 * per_slab at a time and are kept until the run ends (sched_tls_cache_drop). */
static char *area_alloc(void)
{
	if (!lay.free_areas) {
		size_t len = lay.page + lay.per_slab * lay.len;
		int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
		char *slab = sched_g.tls_path != SCHED_TLS_LDT || sched_g.no_ldt
				     ? MAP_FAILED
				     : sched_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_32BIT, -1, 0);
		if (slab == MAP_FAILED)
			slab = sched_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (slab == MAP_FAILED)
			return NULL;
		*(void **)slab = lay.slabs;
		lay.slabs = slab;
		for (size_t i = lay.per_slab; i-- > 0;) { /* the lowest first */
			char *area = slab + lay.page + i * lay.len;
			*(void **)area = lay.free_areas;
			lay.free_areas = area;
		}
	}
	char *area = lay.free_areas;
	lay.free_areas = *(void **)area;
	return area;
}

static void area_free(char *area)
{
	*(void **)area = lay.free_areas;
	lay.free_areas = area;
}

/* The run is over: no thread uses an area. */
void sched_tls_cache_drop(void)
{
	while (lay.slabs) {
		void *slab = lay.slabs;
		lay.slabs = *(void **)slab;
		munmap(slab, lay.page + lay.per_slab * lay.len);
	}
	lay.free_areas = NULL;
}

int sched_ldt_set(void *tp, uint16_t *sel)
{
	if ((uintptr_t)tp > UINT32_MAX)
		return -ERANGE;
	unsigned n;
	if (lay.nldt_free > 0)
		n = lay.ldt_free[--lay.nldt_free];
	else if (lay.ldt_next < LDT_ENTRIES)
		n = lay.ldt_next++;
	else
		return -ENOSPC;
	struct user_desc d = {
		.entry_number = n,
		.base_addr = (unsigned)(uintptr_t)tp,
		.limit = 0xfffff, /* ignored in 64-bit mode */
		.seg_32bit = 1,
		.limit_in_pages = 1,
		.useable = 1,
	};
	long err = sched_raw_syscall(SYS_modify_ldt, 0x11, (long)&d, sizeof d, 0, 0, 0);
	if (err) {
		lay.ldt_free[lay.nldt_free++] = (uint16_t)n;
		return (int)err;
	}
	*sel = (uint16_t)(n << 3 | 4 | 3); /* index, LDT, user privilege */
	return 0;
}

void sched_ldt_release(uint16_t sel)
{
	if (sel)
		lay.ldt_free[lay.nldt_free++] = sel >> 3;
}

/* A selector for tp if switches use them (the probe said they work), else 0. */
static uint16_t ldt_entry(void *tp)
{
	uint16_t sel = 0;
	if (sched_g.tls_path != SCHED_TLS_LDT || sched_g.no_ldt)
		return 0;
	int err = sched_ldt_set(tp, &sel);
	if (err && err != -ERANGE && err != -ENOSPC)
		sched_g.no_ldt = true;
	return err ? 0 : sel;
}

struct fill {
	char *tp, *lo; /* the new thread's */
	union dtv *dtv;
	size_t dtv_len;
};

/* For each module with TLS: its block in the new area, and its DTV entry. */
static int fill_block(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct fill *f = arg;
	const ElfW(Phdr) *tls = NULL;
	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_TLS)
			tls = &info->dlpi_phdr[k];
	/* dlpi_tls_data is the calling thread's block: NULL while not allocated in it. */
	char *mine = info->dlpi_tls_data;
	if (!tls || !info->dlpi_tls_modid || !mine)
		return 0;
	ptrdiff_t off = (char *)__builtin_thread_pointer() - mine;
	if (off <= 0 || (size_t)off > lay.below || (size_t)off < tls->p_memsz)
		return 0; /* dynamic TLS (a dlopened library): __tls_get_addr's business */
	char *block = f->tp - off;
	if (info->dlpi_tls_modid < f->dtv_len)
		f->dtv[info->dlpi_tls_modid].pointer.val = block;
	if ((char *)&errno >= mine && (char *)&errno < mine + tls->p_memsz) {
		memcpy(block, (char *)sched_g.host.tp - off, tls->p_memsz); /* the C library */
		/* but what a new thread must not share: dlerror's result, which dlerror
		 * frees (two threads holding it would free it twice), and h_errno */
		if (lay.dlerror_off >= 0)
			memset(block + lay.dlerror_off, 0, sizeof(void *));
		if (lay.h_errno_off >= 0)
			memset(block + lay.h_errno_off, 0, sizeof(int));
	} else {
		memcpy(block, (char *)info->dlpi_addr + tls->p_vaddr, tls->p_filesz);
	}
	return 0;
}

/* At the start of a run, before the program's main: dlsym, which the checks use,
 * clears a pending dlerror, and the program cannot have one yet. */
void sched_tls_init(void)
{
	layout();
}

int sched_tls_alloc(struct sched_thread *t)
{
	if (layout() < 0) {
		static bool said;
		if (!said)
			fprintf(stderr, "sched: cannot give threads their own TLS: %s\n", lay.why);
		said = true;
		return EAGAIN;
	}
	if (sched_g.tls_path == SCHED_TLS_AUTO)
		sched_tls_choose();
	char *area = area_alloc();
	if (!area)
		return EAGAIN;
	uintptr_t tp = ((uintptr_t)area + lay.len - SCHED_TCB_SIZE) & ~(lay.align - 1);
	char *lo = (char *)tp - lay.below;

	const struct tcb_head *orig = sched_g.host.tp;
	size_t len = orig->dtv[-1].counter;
	union dtv *dtv = calloc(len + 2, sizeof *dtv);
	if (!dtv) {
		area_free(area);
		return EAGAIN;
	}
	dtv[0].counter = len;
	dtv++;
	dtv[0].counter = orig->dtv[0].counter; /* generation: as up to date as thread 1's */
	for (size_t i = 1; i <= len; i++)
		dtv[i].pointer.val = DTV_UNALLOCATED;

	memcpy((void *)tp, orig, SCHED_TCB_SIZE);
	struct tcb_head *head = (struct tcb_head *)tp;
	head->tcb = head; /* the TLS base: fs:0 */
	head->dtv = dtv;
	/* THREAD_SELF stays thread 1's: glibc's recursive locks (stdio's, flockfile)
	 * compare owners by it. Were each green thread its own, one that took a stdio
	 * lock and was switched out would leave the next to futex-wait for ever on the
	 * only kernel thread; this way glibc sees one thread, as before. */
	head->self = (void *)orig;
	if (__rseq_offset >= 0 && (size_t)__rseq_offset + 8 <= SCHED_TCB_SIZE)
		*(int32_t *)(tp + __rseq_offset + 4) = -1; /* cpu_id: RSEQ_CPU_ID_UNINITIALIZED */

	memset(lo, 0, lay.below);
	struct fill f = {(char *)tp, lo, dtv, len + 1};
	dl_iterate_phdr(fill_block, &f);
	t->tp = (void *)tp;
	t->fs_sel = ldt_entry(t->tp);
	return 0;
}

void sched_tls_free(struct sched_thread *t)
{
	if (!t->tp || t->tp == sched_g.host.tp)
		return;
	/* Its current DTV: glibc may have grown it. */
	union dtv *dtv = ((struct tcb_head *)t->tp)->dtv;
	for (size_t i = 1; i <= dtv[-1].counter; i++)
		free(dtv[i].pointer.to_free);
	free(dtv - 1);
	sched_ldt_release(t->fs_sel);
	/* tp + TCB is within `align` (<= a page) of the area's page-aligned end */
	uintptr_t end = ((uintptr_t)t->tp + SCHED_TCB_SIZE + lay.page - 1) & ~(uintptr_t)(lay.page - 1);
	area_free((char *)(end - lay.len));
	t->tp = NULL;
	t->fs_sel = 0;
}
