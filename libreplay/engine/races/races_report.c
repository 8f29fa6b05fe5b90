/*
 * races_report.c: the race detector's start, its reports and its summary (--races,
 * docs/races.md). Runs with every register saved (races_rt.S), so it may use the C
 * library; the checks themselves are races.c's.
 *
 * A race is reported once per pair of instructions, as it is found: at the second
 * access, which is the running one. Both accesses are named by function and
 * file:line (addr2line, run once per report: the runtime reads no DWARF), thread and
 * count, with the `replay goto T:C` that lands on each under gdb, its callers and the
 * locks its thread held at it (the earlier access's as its cell kept them: races.c's
 * shadow stacks and lock sets), then where each thread was created. Races are
 * numbered in the order the run found them: race 1 is the first in the run, and
 * RecPlay's point stands: the run is correct up to it (said again at the end).
 */
#include "engine/core.h"
#include "engine/races/races.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <elf.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEN_MAX 4096
#define STACK_MAX 8  /* callers shown of each access, and of each thread's creation */
#define SYM_MAX (2 + 4 * STACK_MAX) /* pcs named by one addr2line */

static struct {
	uintptr_t a, b;
} seen[SEEN_MAX];
static int nseen;
static unsigned nraces;
static bool warned;
static struct rp_race_access first; /* race 1's second access: the run is correct up to it */
static bool first_race;

/* The races reported, for the debugger (gdb's `info races`): the last RACE_VIEW_MAX. */
struct rp_race_view rp_race_view;

/* Called after each report: gdb's `replay races stop` breaks here, inside the racing
 * access's check (`finish` twice, or `up`, is the program's instruction). */
__attribute__((noinline)) void rp_race_reported(void)
{
	__asm__ volatile("");
}

/* Is this the race build (sicpp --races marks it)? */
static bool race_build(void)
{
	size_t len = 0;
	void *mark = rp_elf_section("/proc/self/exe", "sic_race_build", &len);
	rp_free(mark);
	return mark != NULL;
}

void rp_races_start(void)
{
	if (!race_build()) {
		rp_say("--races: this executable is not a race build: build it again with sicc "
		       "--races (the same sources and flags as the recorded one; docs/races.md)");
		rp_exit(RP_EXIT_USAGE);
	}
	rp_races_on = true;
}

/* "function (file:line)" for each pc of this executable, by addr2line; "?" where it
 * cannot say. */
static void symbolize(const uintptr_t *pc, int n, char out[][256])
{
	for (int i = 0; i < n; i++)
		snprintf(out[i], 256, "pc %#lx", (unsigned long)(pc[i] - rp_exe_base));
	char exe[4096];
	ssize_t el = rp_raw_syscall(SYS_readlink, (long)"/proc/self/exe", (long)exe, sizeof exe - 1, 0, 0, 0);
	if (el <= 0)
		return;
	exe[el] = '\0';
	char addrs[SYM_MAX][24];
	char *argv[SYM_MAX + 6] = {"addr2line", "-f", "-s", "-e", exe};
	int k = 5;
	for (int i = 0; i < n && i < SYM_MAX; i++) {
		snprintf(addrs[i], sizeof addrs[i], "%#lx", (unsigned long)(pc[i] - rp_exe_base));
		argv[k++] = addrs[i];
	}
	argv[k] = NULL;
	char buf[SYM_MAX * 512];
	rp_addr2line(argv, buf, sizeof buf);
	char *line = buf, *nl;
	for (int i = 0; i < n && (nl = strchr(line, '\n')); i++) {
		*nl = '\0';
		char *fn = line;
		line = nl + 1;
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		char *pos = line;
		line = nl + 1;
		char *disc = strstr(pos, " (discriminator");
		if (disc)
			*disc = '\0';
		if (strcmp(fn, "??"))
			snprintf(out[i], 256, "%.120s (%.120s)", fn, pos);
	}
}

/* The variable of this executable at addr, "name" or "name+off" (its symbol table,
 * read once), or "" if none holds it: the heap's, the stack's, a library's. */
static void variable(uintptr_t addr, char *out, size_t cap)
{
	static Elf64_Sym *syms;
	static char *strs;
	static size_t nsyms, nstrs;
	static bool read;
	out[0] = '\0';
	if (!read) {
		read = true;
		size_t len = 0;
		syms = rp_elf_section("/proc/self/exe", ".symtab", &len);
		nsyms = syms ? len / sizeof *syms : 0;
		strs = rp_elf_section("/proc/self/exe", ".strtab", &nstrs);
	}
	uint64_t off = addr - rp_exe_base;
	for (size_t i = 0; strs && i < nsyms; i++) {
		const Elf64_Sym *s = &syms[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_name >= nstrs || s->st_shndx == SHN_UNDEF ||
		    off < s->st_value || off >= s->st_value + (s->st_size ? s->st_size : 1))
			continue;
		if (off == s->st_value)
			snprintf(out, cap, "%s", strs + s->st_name);
		else
			snprintf(out, cap, "%s+%llu", strs + s->st_name, (unsigned long long)(off - s->st_value));
		return;
	}
}

static const char *what(const struct rp_race_access *a)
{
	return a->freeing ? "free" : a->write ? "write" : "read";
}

/* "m (0x...), 0x..." for lock set id (the variable's name where the executable has
 * one); "none" if empty. */
static void locks_text(uint32_t id, char *out, size_t cap)
{
	uintptr_t l[RACE_HELD];
	int n = rp_race_lockset(id, l, RACE_HELD);
	size_t at = 0;
	snprintf(out, cap, "%s", n < 0 ? "not known (too many lock sets)" : "none");
	for (int i = 0; i < n && at < cap; i++) {
		char var[160];
		variable(l[i], var, sizeof var);
		if (*var)
			at += (size_t)snprintf(out + at, cap - at, "%s%s (%#lx)", i ? ", " : "", var,
					       (unsigned long)l[i]);
		else
			at += (size_t)snprintf(out + at, cap - at, "%s%#lx", i ? ", " : "", (unsigned long)l[i]);
	}
}

/* " <- "-joined names of pcs[from, to), into out. */
static void chain(char where[][256], int from, int to, char *out, size_t cap)
{
	size_t at = 0;
	out[0] = '\0';
	for (int i = from; i < to && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i > from ? " <- " : "", where[i]);
}

static void report(uintptr_t addr, const struct rp_race_access *now, const struct rp_race_access *then)
{
	uintptr_t a = now->pc < then->pc ? now->pc : then->pc, b = now->pc ^ then->pc ^ a;
	for (int i = 0; i < nseen; i++)
		if (seen[i].a == a && seen[i].b == b)
			return;
	if (nseen < SEEN_MAX)
		seen[nseen].a = a, seen[nseen].b = b, nseen++;
	nraces++;
	/* The pcs to name: both accesses, the callers of each (the detector's shadow
	 * stacks: the earlier access's as its cell kept it), and the call that created
	 * each thread with its callers. */
	const struct rp_race_access *acc[2] = {now, then};
	const struct rp_race_birth *birth[2] = {rp_race_birth_of(now->tid), rp_race_birth_of(then->tid)};
	uintptr_t pcs[SYM_MAX] = {now->pc, then->pc};
	int n = 2, from[4], to[4];
	for (int k = 0; k < 4; k++) {
		uint32_t stack = k < 2 ? acc[k]->stack : birth[k - 2] ? birth[k - 2]->stack : 0;
		from[k] = n;
		n += rp_race_stack(stack, pcs + n, STACK_MAX);
		to[k] = n;
	}
	char where[SYM_MAX][256];
	symbolize(pcs, n, where);
	char var[160], at[200];
	variable(addr, var, sizeof var);
	if (*var)
		snprintf(at, sizeof at, "%s (%#lx)", var, (unsigned long)addr);
	else
		snprintf(at, sizeof at, "%#lx", (unsigned long)addr);
	rp_say("race %u%s: %s of %s by thread %d races an earlier %s by thread %d",
	       nraces, nraces == 1 ? " (the first in this run)" : "", what(now), at, now->tid,
	       what(then), then->tid);
	for (int k = 0; k < 2; k++) {
		const struct rp_race_access *x = acc[k];
		char text[2048];
		rp_say("  %-5s thread %d at count %llu: %s   replay goto %d:%llu@%#lx", what(x), x->tid,
		       (unsigned long long)x->count, where[k], x->tid, (unsigned long long)x->count,
		       (unsigned long)x->pc);
		if (to[k] > from[k]) {
			chain(where, from[k], to[k], text, sizeof text);
			rp_say("    called from %s", text);
		}
		locks_text(x->locks, text, sizeof text);
		rp_say("    locks held: %s", text);
	}
	for (int k = 0; k < 2; k++) {
		const struct rp_race_birth *bt = birth[k];
		char text[2048];
		if (!bt) {
			rp_say("  thread %d: the main thread", acc[k]->tid);
			continue;
		}
		chain(where, from[2 + k], to[2 + k], text, sizeof text);
		rp_say("  thread %d created by thread %d at count %llu: %s   replay goto %d:%llu", acc[k]->tid,
		       bt->parent, (unsigned long long)bt->count, *text ? text : "?", bt->parent,
		       (unsigned long long)bt->count);
	}
	struct rp_race_seen *v = &rp_race_view.race[(nraces - 1) % RACE_VIEW_MAX];
	v->number = nraces;
	v->addr = addr;
	v->now = *now;
	v->then = *then;
	rp_race_view.n = nraces;
	if (nraces == 1) {
		first = *now;
		first_race = true;
	}
	rp_race_reported();
}

void rp_race_report_pending(void)
{
	struct rp_race_pending *p = &rp_race_pending;
	int n = p->n;
	p->n = 0;
	rp_race_busy = true;
	for (int i = 0; i < n; i++)
		report(p->race[i].addr, &p->race[i].now, &p->race[i].then);
	rp_race_busy = false;
	if ((p->nomem || p->threads) && !warned) {
		warned = true;
		rp_say("--races: %s: no more races are looked for in this run",
		       p->nomem ? "the detector ran out of memory" : "more than 256 threads");
	}
	p->nomem = p->threads = false;
}

void rp_race_free_c(uintptr_t p, uintptr_t pc, uint64_t r15, uintptr_t rsp)
{
	if (!p || !rp_races_on)
		return;
	if (rp_race_free(p, malloc_usable_size((void *)p), pc, r15, rsp))
		rp_race_report_pending();
}

void rp_race_alloc_c(uintptr_t p)
{
	if (p && rp_races_on)
		rp_race_alloc(p, malloc_usable_size((void *)p));
}

/* At the end of the replay: how many, and what an optimal event-based trace of this
 * run would have monitored and logged (races.c, struct rp_race_stats; bench/table2.sh). */
void rp_races_end(void)
{
	if (!rp_races_on && !nraces)
		return;
	rp_say("--races: %u race%s found in this run", nraces, nraces == 1 ? "" : "s");
	if (first_race)
		rp_say("--races: the first in the run is race 1, at thread %d's count %llu: the run is "
		       "correct up to there (replay goto %d:%llu)", first.tid, (unsigned long long)first.count,
		       first.tid, (unsigned long long)first.count);
	rp_say("--races: %llu accesses checked, %llu of them to shared memory, %llu "
		       "inter-thread dependences, %llu synchronization operations",
		       (unsigned long long)rp_race_stats.accesses, (unsigned long long)rp_race_stats.shared,
		       (unsigned long long)rp_race_stats.dependences, (unsigned long long)rp_race_stats.syncs);
}
