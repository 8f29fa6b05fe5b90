/* sic.c: the counter's state, its overflow, and the tables sicpp emits. */
#include "rp_impl.h"

#include <cpuid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t rp_sic_xsave_size = 4096;

/* A thread's count is offset - r15 (struct rp_thread). In stress mode the counter
 * restarts from sic_reload at each overflow. */
static uint64_t sic_reload;
struct rp_thread rp_main_thread = {.tid = 1};
struct rp_thread *rp_cur = &rp_main_thread;

#define SIDE_ENTRIES 4096
static uint64_t side_stack[RP_SIDE_WORDS * SIDE_ENTRIES];

bool rp_vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	/* write(2): this may run inside a signal handler or with stdio in any state */
	return rp_sys_write(2, prefix, strlen(prefix)) >= 0 && rp_sys_write(2, buf, n) >= 0;
}

_Noreturn void rp_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool said = rp_vsay("libreplay: ", fmt, ap);
	va_end(ap);
	if (!said)
		_exit(127);
	abort();
}

static void xsave_probe(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		rp_fatal("this CPU or kernel has no XSAVE, which the counter's overflow path needs");
	__cpuid_count(0xd, 0, a, b, c, d);
	rp_sic_xsave_size = (b + 63) & ~UINT64_C(63);
}

static bool tables_loaded;
static void load_tables(void);

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
		if (*end || n == 0 || n > (1ULL << 40))
			rp_fatal("LIBREPLAY_SIC_STRESS=%s: want a count between 1 and 2^40", stress);
		sic_reload = n;
		start = n;
	}
	/* Now, not lazily: the tables are read from signal handlers, which must not
	 * allocate (they may have interrupted malloc). */
	if (!tables_loaded)
		load_tables();
	rp_main_thread.offset = start;
	__sic_home = start;
	__sic_side_base = __sic_side_top = side_stack;
	__sic_side_end = side_stack + RP_SIDE_WORDS * SIDE_ENTRIES;
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
	if (rp_replaying)
		return rp_replay_overflow();
	if (rp_cur->preempt_soon)
		return rp_record_overflow(stub_ret);
	if (!sic_reload)
		rp_fatal("the instruction counter ran out (2^62 counts)");
	rp_cur->offset += sic_reload;
	return sic_reload;
}

/* A pause, or a spin-wait's loop (sicpp/hunt.c): the thread waits for another, which
 * on one kernel thread can only get on if this one lets it. A yield: a voluntary
 * switch at a place the program's own instructions decide, so the replay makes the
 * same one with no record. The count is published in __sic_home meanwhile. */
uint64_t rp_sic_pause_yields;

void rp_sic_pause_c(void)
{
	if (rp_cur->tid == 0 || sched_busy() || !sched_preempt_useful())
		return;
	rp_sic_pause_yields++;
	sched_thread_yield();
	pt_signals_resumed(&__sic_home);
}

uint64_t rp_sic_count(void)
{
	/* Called from instrumented code: the call published the count in __sic_home. */
	return rp_cur->offset - __sic_home;
}

_Noreturn void rp_sic_side_overflow(void)
{
	rp_fatal("more than %d nested calls from uninstrumented code into instrumented code",
		 SIDE_ENTRIES);
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
static struct range *ranges;
static size_t nranges;
static uintptr_t *nopre;
static size_t nnopre;

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

static void load_tables(void)
{
	tables_loaded = true;
	if (__start_sic_ranges && (uintptr_t)__stop_sic_ranges > (uintptr_t)__start_sic_ranges) {
		nranges = (size_t)(__stop_sic_ranges - __start_sic_ranges) / 2;
		ranges = calloc(nranges, sizeof *ranges);
		if (!ranges)
			rp_fatal("out of memory");
		for (size_t i = 0; i < nranges; i++) {
			ranges[i].lo = rel(&__start_sic_ranges[2 * i]);
			ranges[i].hi = rel(&__start_sic_ranges[2 * i + 1]);
		}
		qsort(ranges, nranges, sizeof *ranges, cmp_range);
	}
	if (__start_sic_nopreempt &&
	    (uintptr_t)__stop_sic_nopreempt > (uintptr_t)__start_sic_nopreempt) {
		nnopre = (size_t)(__stop_sic_nopreempt - __start_sic_nopreempt);
		nopre = calloc(nnopre, sizeof *nopre);
		if (!nopre)
			rp_fatal("out of memory");
		for (size_t i = 0; i < nnopre; i++)
			nopre[i] = rel(&__start_sic_nopreempt[i]);
		qsort(nopre, nnopre, sizeof *nopre, cmp_pc);
	}
}

bool rp_sic_pc_instrumented(uintptr_t pc)
{
	if (!tables_loaded)
		load_tables();
	size_t lo = 0, hi = nranges;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pc < ranges[mid].lo)
			hi = mid;
		else if (pc >= ranges[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool rp_sic_pc_preemptible(uintptr_t pc)
{
	if (!rp_sic_pc_instrumented(pc))
		return false;
	return !bsearch(&pc, nopre, nnopre, sizeof *nopre, cmp_pc);
}
