/* sic.c: the counter's state, its overflow, and the tables sicpp emits. */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t rp_sic_xsave_size = 4096;

/* A thread's count is offset - r15 (struct rp_thread). In stress mode the counter
 * restarts from sic_reload at each overflow; with sic_stress_preempt, a recording
 * also takes a preemption at each (docs/sic.md). */
static uint64_t sic_reload;
static bool sic_stress_preempt;
struct rp_thread rp_main_thread = {.tid = 1};
struct rp_thread *rp_cur = &rp_main_thread;

/* The host's and thread 1's side stack (sic_rt.S, __sic_foreign_entry), set up from
 * the start: callbacks from a shared object's constructors run before rp_sic_init. */
#define SIDE_ENTRIES 4096
static uint64_t side_stack[RP_SIDE_WORDS * SIDE_ENTRIES];
uint64_t *__sic_side_base = side_stack, *__sic_side_top = side_stack,
	 *__sic_side_end = side_stack + RP_SIDE_WORDS * SIDE_ENTRIES;

static void xsave_probe(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		rp_fatal("this CPU or kernel has no XSAVE, which the counter's overflow path needs");
	__cpuid_count(0xd, 0, a, b, c, d);
	rp_sic_xsave_size = (b + 63) & ~UINT64_C(63);
}

static const struct tables *current(void);

void rp_sic_init(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	xsave_probe();
	const char *stress = getenv("LIBREPLAY_SIC_STRESS");
	uint64_t start = RP_SIC_BASE;
	if (stress && *stress) {
		char *end;
		unsigned long long n = strtoull(stress, &end, 10);
		sic_stress_preempt = !strcmp(end, ",preempt");
		if ((*end && !sic_stress_preempt) || n == 0 || n > (1ULL << 40))
			rp_fatal("LIBREPLAY_SIC_STRESS=%s: want a count between 1 and 2^40, "
				 "maybe followed by ,preempt", stress);
		sic_reload = n;
		/* the quick path reloads only: a preempting stress takes the full one */
		rp_sic_quick.reload = sic_stress_preempt ? 0 : n;
		start = n;
	}
	/* Now, not lazily: the tables are read from signal handlers, which must not
	 * allocate (they may have interrupted malloc). */
	current();
	rp_main_thread.offset = start;
	__sic_home = start;
}

uint64_t rp_sic_start_value(void)
{
	return sic_reload ? sic_reload : RP_SIC_BASE;
}

/* Before any constructor of the program: instrumented constructors (and what they
 * call) run before main(). */
__attribute__((constructor(101))) static void sic_init_early(void)
{
	rp_sic_init();
}

uint64_t rp_sic_overflow_c(uintptr_t stub_ret)
{
	/* (A replay's thread is preempt_soon only in the free run after its log.) */
	if (rp_replaying && !rp_cur->preempt_soon)
		return rp_up.replay_overflow(stub_ret);
	if (rp_hang_due)
		return rp_up.hang_overflow(stub_ret);
	if ((rp_async_due || rp_cur->async_soon) && !rp_replaying)
		return rp_up.async_overflow(stub_ret);
	if (rp_counting)
		return rp_up.count_overflow(stub_ret);
	if (rp_cur->preempt_soon || (sic_stress_preempt && rp_cur->tid != 0))
		return rp_up.record_overflow(stub_ret);
	if (!sic_reload)
		rp_fatal("the instruction counter ran out (2^62 counts)");
	rp_cur->offset += sic_reload;
	return sic_reload;
}

/* A pause, or a spin-wait's loop (sicpp/hunt.c): the thread waits for another, which
 * on one kernel thread can only get on if this one lets it. A yield: a voluntary
 * switch at a place the program's own instructions decide, so the replay makes the
 * same one with no record. The count is published in __sic_home meanwhile. The thread
 * that waited longest runs, whatever --hunt's priorities: the one this one waits for
 * may have a lower priority, and two spinners must not hand the turn back and forth
 * over it (a yield to the highest other would). */
uint64_t rp_sic_pause_yields;

void rp_sic_pause_c(void)
{
	if (rp_cur->tid == 0 || sched_busy() || !(sched_others_runnable() || sched_preempt_useful()))
		return;
	rp_sic_pause_yields++;
	sched_thread_yield_fifo();
	if (rp_resumed_hook)
		rp_resumed_hook(&__sic_home);
}

uint64_t rp_sic_count(void)
{
	/* Called from instrumented code: the call published the count in __sic_home. */
	return rp_cur->offset - __sic_home;
}

_Noreturn void rp_sic_side_overflow(void)
{
	/* thread 1's side stack holds SIDE_ENTRIES, the other threads' fewer (thread.c) */
	rp_fatal("more than %ld nested calls from uninstrumented code into instrumented code",
		 (long)((__sic_side_end - __sic_side_base) / RP_SIDE_WORDS));
}

_Noreturn void rp_sic_side_corrupt(void)
{
	rp_fatal("return from a callback that was never entered (stack corrupted?)");
}

/* ---- tables --------------------------------------------------------------- */

/* Defined by the linker around the sections of the same names. */
extern const int32_t __start_sic_ranges[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_ranges[] __attribute__((weak, visibility("hidden")));
extern const int32_t __start_sic_nopreempt[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_nopreempt[] __attribute__((weak, visibility("hidden")));

struct range {
	uintptr_t lo, hi;
};

/* What the signal handlers read: the executable's tables and those of the shared
 * objects registered so far, merged and sorted. A change builds a new one and
 * publishes it with one store; the old one is kept (a handler may be reading it). */
struct tables {
	struct range *ranges;
	size_t nranges;
	uintptr_t *nopre;
	size_t nnopre;
};
static struct tables *volatile tables;
static void hunt_tables_changed(void);

/* A shared object's tables, as its constructor gave them (__sic_register_module), and
 * its hunting tables (sic_memops ...: module_hunt_tables), once looked up. */
enum { HUNT_MEMOPS, HUNT_ATOMICS, HUNT_REPEATS, HUNT_LOOPS, HUNT_TABLES };
struct module {
	const int32_t *ranges, *ranges_end, *nopre, *nopre_end;
	bool hunt_looked;
	const int32_t *hunt[HUNT_TABLES], *hunt_end[HUNT_TABLES];
};
static struct module *modules;
static size_t nmodules;
/* engine.h: the answers kept about code (hunt/count.c's places) hold while it is the
 * same; a module that comes or goes may put other code at their pcs. */
unsigned long rp_sic_code_gen;

static uintptr_t rel(const int32_t *p)
{
	return (uintptr_t)p + (intptr_t)*p;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_pc(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort n pcs that come in a few ascending runs (one per object and section, in the
 * order the linker laid the tables out): merge neighbouring runs, pass after pass,
 * O(n log runs). qsort took 3.2 M instructions at each start of zstd (12,817 entries
 * in 4 runs), 25 times what the program itself runs for `zstd -V`. */
static void sort_pcs(uintptr_t *a, size_t n)
{
	size_t runs = 1;
	for (size_t i = 1; i < n; i++)
		runs += a[i] < a[i - 1];
	if (runs == 1)
		return;
	uintptr_t *tmp = rp_malloc(n * sizeof *tmp); /* not the program's heap */
	if (!tmp) {
		qsort(a, n, sizeof *a, cmp_pc);
		return;
	}
	uintptr_t *src = a, *dst = tmp;
	while (runs > 1) {
		runs = 0;
		for (size_t lo = 0; lo < n; runs++) {
			size_t mid = lo + 1, hi;
			while (mid < n && src[mid] >= src[mid - 1])
				mid++;
			for (hi = mid < n ? mid + 1 : n; hi < n && src[hi] >= src[hi - 1]; hi++)
				;
			size_t p = lo, q = mid, o = lo;
			while (p < mid && q < hi)
				dst[o++] = src[q] < src[p] ? src[q++] : src[p++];
			while (p < mid)
				dst[o++] = src[p++];
			while (q < hi)
				dst[o++] = src[q++];
			lo = hi;
		}
		uintptr_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	rp_free(tmp);
}

static size_t entries(const int32_t *begin, const int32_t *end)
{
	return begin && end > begin ? (size_t)(end - begin) : 0;
}

static void add_module(struct tables *t, const struct module *m)
{
	for (size_t i = 0; i + 1 < entries(m->ranges, m->ranges_end); i += 2) {
		t->ranges[t->nranges].lo = rel(&m->ranges[i]);
		t->ranges[t->nranges++].hi = rel(&m->ranges[i + 1]);
	}
	for (size_t i = 0; i < entries(m->nopre, m->nopre_end); i++)
		t->nopre[t->nnopre++] = rel(&m->nopre[i]);
}

/* Merge the executable's tables and every registered module's into a new snapshot. */
static void publish(void)
{
	const struct module exe = {__start_sic_ranges, __stop_sic_ranges, __start_sic_nopreempt,
				   __stop_sic_nopreempt, false, {0}, {0}};
	size_t nr = entries(exe.ranges, exe.ranges_end) / 2, nn = entries(exe.nopre, exe.nopre_end);
	for (size_t k = 0; k < nmodules; k++) {
		nr += entries(modules[k].ranges, modules[k].ranges_end) / 2;
		nn += entries(modules[k].nopre, modules[k].nopre_end);
	}
	struct tables *t = calloc(1, sizeof *t);
	if (t) {
		t->ranges = calloc(nr ? nr : 1, sizeof *t->ranges);
		t->nopre = calloc(nn ? nn : 1, sizeof *t->nopre);
	}
	if (!t || !t->ranges || !t->nopre)
		rp_fatal_memory("the counter's tables");
	add_module(t, &exe);
	for (size_t k = 0; k < nmodules; k++)
		add_module(t, &modules[k]);
	qsort(t->ranges, t->nranges, sizeof *t->ranges, cmp_range);
	sort_pcs(t->nopre, t->nnopre);
	__atomic_store_n(&tables, t, __ATOMIC_RELEASE);
}

/* Called by the constructor sicpp --pic gives a shared object (a COMDAT one per
 * module), before the module's own constructors, maybe before the executable's (and
 * rp_sic_init): from then on its code is instrumented code. An executable made of
 * -fPIC objects registers itself too: its tables are already the executable's. */
void __sic_register_module(const int32_t *ranges, const int32_t *ranges_end,
			   const int32_t *nopre, const int32_t *nopre_end)
{
	if (ranges == __start_sic_ranges)
		return;
	struct module *m = realloc(modules, (nmodules + 1) * sizeof *m);
	if (!m)
		rp_fatal_memory("the counter's tables");
	modules = m;
	modules[nmodules++] = (struct module){ranges, ranges_end, nopre, nopre_end, false, {0}, {0}};
	rp_sic_code_gen++;
	publish();
	hunt_tables_changed(); /* a dlopen while hunting: its accesses from now on */
}

/* ...and by its destructor, when the module is unloaded (dlclose, exit). */
void __sic_unregister_module(const int32_t *ranges)
{
	for (size_t k = 0; k < nmodules; k++)
		if (modules[k].ranges == ranges) {
			modules[k] = modules[--nmodules];
			rp_sic_code_gen++;
			publish();
			hunt_tables_changed();
			return;
		}
}

static const struct tables *current(void)
{
	const struct tables *t = __atomic_load_n(&tables, __ATOMIC_ACQUIRE);
	if (!t) { /* before rp_sic_init, in normal context (a constructor) */
		publish();
		t = tables;
	}
	return t;
}

bool rp_sic_pc_instrumented(uintptr_t pc)
{
	const struct tables *t = current();
	size_t lo = 0, hi = t->nranges;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pc < t->ranges[mid].lo)
			hi = mid;
		else if (pc >= t->ranges[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Outside instrumented code, is the thread's count in __sic_home, where a tick may move
 * it so that the next counting point overflows (record.c, async.c, hang.c)? In the
 * executable's own code (the runtime's) only while r15 holds the token: a call out of
 * instrumented code. Elsewhere (a foreign library), yes, except in a stub run of an
 * instrumented shared object, whose .text.sic_stubs lie outside the ranges: there r15
 * is the counter, 0 at the jump and run down by the run's entries (sicpp's SLED_MAX,
 * 64, at most), and __sic_home is stale. Foreign code whose r15 happens to lie in that
 * range loses only this tick's chance. */
#define RP_SIC_SLED_MAX 64
extern const char __executable_start[], etext[];

bool rp_sic_count_at_home(uintptr_t pc, uint64_t r15)
{
	if (pc >= (uintptr_t)__executable_start && pc < (uintptr_t)etext)
		return r15 == RP_SIC_TOKEN;
	return !((int64_t)r15 <= 0 && (int64_t)r15 >= -RP_SIC_SLED_MAX);
}

/* ---- memory accesses and loops (sicpp/hunt.c), for the counting modes -------------- */

/* The executable's tables, through the linker's symbols; each instrumented shared
 * object's, found in its file (module_hunt_tables). */
extern const int32_t __start_sic_memops[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_memops[] __attribute__((weak, visibility("hidden")));
extern const int32_t __start_sic_atomics[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_atomics[] __attribute__((weak, visibility("hidden")));
extern const int32_t __start_sic_repeats[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_repeats[] __attribute__((weak, visibility("hidden")));
extern const int32_t __start_sic_loops[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_sic_loops[] __attribute__((weak, visibility("hidden")));

static const char *const hunt_names[HUNT_TABLES] = {"sic_memops", "sic_atomics", "sic_repeats",
						    "sic_loops"};

/* The loaded object that holds the address `at`: its load bias, path and segments. */
struct object_at {
	uintptr_t at, bias;
	const char *path;
	const ElfW(Phdr) *phdr;
	int phnum;
};

static bool object_maps(const struct object_at *o, uintptr_t lo, uint64_t len)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		uintptr_t at = o->bias + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && lo >= at && len <= ph->p_memsz && lo - at <= ph->p_memsz - len)
			return true;
	}
	return false;
}

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct object_at *o = data;
	struct object_at here = {o->at, info->dlpi_addr, info->dlpi_name, info->dlpi_phdr,
				 info->dlpi_phnum};
	if (!object_maps(&here, o->at, 1))
		return 0;
	*o = here;
	return 1;
}

/* A shared object's sic_memops, sic_atomics, sic_repeats and sic_loops: the linker
 * defines no symbol a registration could pass for them (sicpp's constructor passes
 * sic_ranges and sic_nopreempt alone, and a module older than these tables has none),
 * but they are loaded (flag "a"), so the file's section headers say where: the object
 * that holds the module's sic_ranges (dl_iterate_phdr), its file read once, with raw
 * system calls (the program's descriptors and errno stay as they were). A file that
 * does not match what is loaded (its sic_ranges elsewhere: replaced since) gives none. */
struct hunt_found {
	const struct module *m;
	const struct object_at *o;
	const int32_t *found[HUNT_TABLES], *found_end[HUNT_TABLES];
	bool ranges_match;
};

static bool hunt_section(const char *name, const void *shdr, int fd, void *arg)
{
	(void)fd;
	struct hunt_found *f = arg;
	const ElfW(Shdr) *x = shdr;
	uintptr_t at = f->o->bias + x->sh_addr;
	if (x->sh_type != SHT_PROGBITS || !(x->sh_flags & SHF_ALLOC) || x->sh_size % 4 ||
	    !object_maps(f->o, at, x->sh_size))
		return false;
	if (!strcmp(name, "sic_ranges"))
		f->ranges_match = at == (uintptr_t)f->m->ranges &&
				  x->sh_size == (uint64_t)(f->m->ranges_end - f->m->ranges) * 4;
	for (int k = 0; k < HUNT_TABLES; k++)
		if (!strcmp(name, hunt_names[k])) {
			f->found[k] = (const int32_t *)at;
			f->found_end[k] = (const int32_t *)(at + x->sh_size);
		}
	return false;
}

static void module_hunt_tables(struct module *m)
{
	if (m->hunt_looked)
		return;
	m->hunt_looked = true;
	struct object_at o = {(uintptr_t)m->ranges, 0, NULL, NULL, 0};
	if (!m->ranges || !dl_iterate_phdr(find_object, &o) || !o.path || !*o.path)
		return;
	int saved = errno;
	struct hunt_found f = {m, &o, {0}, {0}, false};
	if (rp_elf_sections(o.path, hunt_section, &f) && f.ranges_match)
		for (int k = 0; k < HUNT_TABLES; k++) {
			m->hunt[k] = f.found[k];
			m->hunt_end[k] = f.found_end[k];
		}
	errno = saved;
}

static struct sorted {
	uintptr_t *v;
	size_t n;
} memops[3]; /* RP_MEMOP_ANY, RP_MEMOP_ATOMIC, RP_MEMOP_REPEAT */
static bool hunt_loaded;

/* Table k of the executable and of every module as sorted addresses (rp_malloc: the
 * program's heap must not move). */
static uintptr_t *sorted_table(int k, const int32_t *start, const int32_t *stop, size_t *n)
{
	*n = entries(start, stop);
	for (size_t j = 0; j < nmodules; j++)
		*n += entries(modules[j].hunt[k], modules[j].hunt_end[k]);
	uintptr_t *v = rp_malloc((*n ? *n : 1) * sizeof *v);
	if (!v)
		rp_fatal("out of memory");
	size_t i = 0;
	for (const int32_t *p = start; p && p < stop; p++)
		v[i++] = rel(p);
	for (size_t j = 0; j < nmodules; j++)
		for (const int32_t *p = modules[j].hunt[k]; p && p < modules[j].hunt_end[k]; p++)
			v[i++] = rel(p);
	sort_pcs(v, *n);
	return v;
}

/* The first index of v (n sorted) at or after pc. */
static size_t lower_bound(const uintptr_t *v, size_t n, uintptr_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* sic_loops: (head, exit) pairs, by head. */
struct loop {
	uintptr_t head, exit;
};
static struct loop *loops;
static size_t nloops;

static int cmp_loop(const void *a, const void *b)
{
	const struct loop *x = a, *y = b;
	return x->head < y->head ? -1 : x->head > y->head;
}

uintptr_t rp_sic_loop_exit(uintptr_t pc)
{
	size_t lo = 0, hi = nloops;
	while (lo < hi) { /* the first head after pc */
		size_t mid = (lo + hi) / 2;
		if (loops[mid].head <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The innermost loop around pc has the last head at or before it among those
	 * that end after it (loops nest); a few looked at suffice. */
	for (size_t k = lo, tries = 0; k-- > 0 && tries < 64; tries++)
		if (loops[k].exit > pc)
			return loops[k].exit;
	return 0;
}

static size_t add_loops(struct loop *to, const int32_t *start, const int32_t *stop)
{
	size_t n = entries(start, stop) / 2;
	for (size_t i = 0; i < n; i++)
		to[i] = (struct loop){rel(&start[2 * i]), rel(&start[2 * i + 1])};
	return n;
}

/* Merge the executable's tables and the registered modules' anew, and hand them to the
 * quick path. In normal context (the start, a module's constructor), never under a
 * reader: the readers (the overflow paths, the recording's breakpoint) run in the
 * program's code. */
static void spans_build(void);

static void hunt_build(void)
{
	const int32_t *start[3] = {__start_sic_memops, __start_sic_atomics, __start_sic_repeats};
	const int32_t *stop[3] = {__stop_sic_memops, __stop_sic_atomics, __stop_sic_repeats};
	spans_build();
	for (size_t j = 0; j < nmodules; j++)
		module_hunt_tables(&modules[j]);
	for (int t = 0; t < 3; t++) {
		rp_free(memops[t].v);
		memops[t].v = sorted_table(t, start[t], stop[t], &memops[t].n);
	}
	rp_sic_quick.atomics = memops[1].v;
	rp_sic_quick.natomics = memops[1].n;
	rp_sic_quick.repeats = memops[2].v;
	rp_sic_quick.nrepeats = memops[2].n;
	size_t n = entries(__start_sic_loops, __stop_sic_loops) / 2;
	for (size_t j = 0; j < nmodules; j++)
		n += entries(modules[j].hunt[HUNT_LOOPS], modules[j].hunt_end[HUNT_LOOPS]) / 2;
	rp_free(loops);
	loops = rp_malloc((n ? n : 1) * sizeof *loops);
	if (!loops)
		rp_fatal("out of memory");
	nloops = add_loops(loops, __start_sic_loops, __stop_sic_loops);
	for (size_t j = 0; j < nmodules; j++)
		nloops += add_loops(loops + nloops, modules[j].hunt[HUNT_LOOPS], modules[j].hunt_end[HUNT_LOOPS]);
	qsort(loops, nloops, sizeof *loops, cmp_loop);
}

/* ---- a pc's key, the same wherever ASLR puts its object ----------------------------- */

/* The hunting scheduler keys what it keeps per call site and per place by pc: by its
 * offset in its object, the same in every run of the program, a log or not (--no-record
 * keeps ASLR on: the executable and each library move apart). An executable's pc is
 * its offset from the executable's load base, as before there were libraries' places;
 * a library's, its offset in the library, told apart by a hash of its file name. */
struct span {
	uintptr_t lo, hi, bias;
	uint64_t salt;
};
static struct span *spans;
static size_t nspans, spans_cap;
uintptr_t rp_exe_span; /* engine.h's rp_sync_slot: [rp_exe_base, + this) is the executable's */

static int add_span(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		lo = at < lo ? at : lo;
		hi = at + ph->p_memsz > hi ? at + ph->p_memsz : hi;
	}
	if (lo >= hi || nspans == spans_cap)
		return 0;
	/* the executable (dl_iterate_phdr's first) salt 0: its keys are its offsets */
	uint64_t salt = 0;
	if (nspans) {
		const char *name = info->dlpi_name ? info->dlpi_name : "", *slash = strrchr(name, '/');
		salt = UINT64_C(0xcbf29ce484222325); /* FNV-1a of the name the loader looked for */
		for (const char *c = slash ? slash + 1 : name; *c; c++)
			salt = (salt ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
	} else {
		rp_exe_span = hi - info->dlpi_addr;
	}
	spans[nspans++] = (struct span){lo, hi, info->dlpi_addr, salt};
	return 0;
}

static void spans_build(void)
{
	if (!spans) {
		spans_cap = 512;
		spans = rp_malloc(spans_cap * sizeof *spans);
		if (!spans)
			rp_fatal("out of memory");
	}
	nspans = 0;
	dl_iterate_phdr(add_span, NULL);
}

uint64_t rp_sic_pc_key(uintptr_t pc)
{
	for (size_t i = 0; i < nspans; i++)
		if (pc >= spans[i].lo && pc < spans[i].hi)
			return (pc - spans[i].bias) ^ spans[i].salt;
	return pc - rp_exe_base;
}

bool rp_sic_same_object(uintptr_t pc, uintptr_t at, size_t len)
{
	for (size_t i = 0; i < nspans; i++)
		if (pc >= spans[i].lo && pc < spans[i].hi)
			return at >= spans[i].lo && len <= spans[i].hi - spans[i].lo &&
			       at - spans[i].lo <= spans[i].hi - spans[i].lo - len;
	return false;
}

void rp_sic_memops_load(void)
{
	if (hunt_loaded)
		return;
	hunt_loaded = true;
	hunt_build();
}

/* A module registered or went: once the tables are in use, merge them again. */
static void hunt_tables_changed(void)
{
	if (hunt_loaded)
		hunt_build();
}

size_t rp_sic_memops(uintptr_t from, uintptr_t to, unsigned kinds, uintptr_t *out, size_t max)
{
	rp_sic_memops_load();
	size_t n = 0;
	for (int t = 0; t < 3; t++) {
		if (!(kinds & (1u << t)))
			continue;
		const struct sorted *m = &memops[t];
		for (size_t i = lower_bound(m->v, m->n, from); i < m->n && m->v[i] < to && n < max; i++) {
			size_t k = 0;
			while (k < n && out[k] != m->v[i])
				k++;
			if (k == n)
				out[n++] = m->v[i];
		}
	}
	return n;
}

bool rp_sic_pc_preemptible(uintptr_t pc)
{
	if (!rp_sic_pc_instrumented(pc))
		return false;
	const struct tables *t = current();
	return !bsearch(&pc, t->nopre, t->nnopre, sizeof *t->nopre, cmp_pc);
}
