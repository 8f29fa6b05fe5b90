/*
 * races.c: the race detector of the replay (--races, docs/races.md).
 *
 * The replay runs a race build of the program (sicc --races): before every memory
 * access sicpp lists (sic_memops), every memcpy/memset and rep string instruction,
 * a call lands here (races_rt.S) with the address, the size and the kind. Happens-
 * before comes from the pthread layer's synchronization (rp_race_sync: mutexes,
 * rwlocks, semaphores, barriers, once, spinlocks, condvar waits through their mutex,
 * create and join) and from atomic instructions (lock-prefixed, xchg), each an acquire
 * and a release of its address. The algorithm is FastTrack's (Flanagan and Freund,
 * PLDI 2009): a vector clock per thread and per synchronization object, and per
 * location the epochs (thread, clock) of its last accesses, which need no vector
 * clock: an access races an earlier one of another thread t if that one's clock is
 * past what this thread knows of t.
 *
 * Shadow: per 8-byte word of the program, RACE_CELLS cells, each an earlier access
 * (its epoch, the bytes of the word it touched, read or write, its pc and count), as
 * ThreadSanitizer keeps them: a cell a new access makes redundant (the same thread's,
 * or one that happens before a write covering it) is replaced, else an empty one is
 * taken, else the oldest goes (a race with it may then be missed, never invented).
 * Words are found through a two-level table mapped at a fixed address far from the
 * program's memory, so the program sees the addresses it had in the recording.
 *
 * Atomics: a lock-prefixed instruction or an xchg is an acquire and a release of its
 * address. gcc compiles C11's acquire loads, release stores (and relaxed ones) to
 * plain moves, which the assembly cannot tell from the program's other accesses; once
 * an atomic instruction has used a word, the plain moves of it count as such atomics
 * too (a load an acquire, a store a release, as x86 makes them) and are never races.
 * A flag only ever set and read by plain moves stays a plain variable (docs/races.md).
 *
 * Everything here runs on the program's stack, between two of its instructions, with
 * only the general registers saved (races_rt.S): this file is compiled with
 * -mgeneral-regs-only and calls nothing that is not. A race found is reported by
 * races_report.c, which the trampoline calls with the whole register state saved.
 */
#include "engine/core.h"
#include "engine/races/races.h"
#include "base/rp_syscall.h"

#include <sys/mman.h>

bool rp_races_on;
struct rp_race_pending rp_race_pending;

#define WORDS_PER_CHUNK 8192 /* one chunk of shadow covers 64 KiB of the program */
#define CHUNK_SHIFT 16
#define TOP_ENTRIES (1ull << (47 - CHUNK_SHIFT))
/* Fixed addresses for the detector's memory, far from where the program's heap,
 * libraries and mmaps go (0x55..., 0x7f...): reserved without backing (MAP_NORESERVE);
 * only what is touched costs memory. */
#define TOP_AT   0x200000000000ull
#define ARENA_AT 0x300000000000ull
#define ARENA_SIZE (1ull << 40)

struct cell {
	uint32_t clock;
	uint32_t pc;     /* from the load base; RACE_CELL_WRITE, _FREE in the top bits */
	uint64_t info;   /* count (48 bits) | tid (8) | mask of the word's bytes (8) */
	uint32_t stack;  /* its callers (the depot below), for a report of a later access */
	uint32_t locks;  /* the lock set its thread held */
};
#define CELL_WRITE 0x80000000u
#define CELL_FREE  0x40000000u
#define CELL_PC    0x3fffffffu

struct word {
	struct cell c[RACE_CELLS];
	uint8_t next;   /* the cell to evict when all are taken */
	uint8_t atomic; /* an atomic instruction used it: a synchronization variable */
	uint8_t owner;  /* the first thread to touch it, + 1 */
	uint8_t shared; /* a second thread touched it */
	uint32_t alone; /* its accesses while only its owner had touched it */
};

/* What an optimal event-based trace (paper 002's Table 2, after Netzer) would monitor
 * and log of this run: the accesses to words that more than one thread touches, and
 * the inter-thread dependences among them: an access that conflicts with another
 * thread's last access to its bytes (one of them a write), counted unless that very
 * access of that thread is known to this one already through the dependences logged
 * between the two (kept per pair of threads by count: not reduced transitively). */
struct rp_race_stats rp_race_stats;
static uint64_t *dep_known; /* [t][ct]: the count of ct's last access t depends on */

struct vc {
	uint32_t c[RACE_THREADS];
};

struct sync_obj {
	uintptr_t key;
	struct vc *vc;
};

static struct word **top;
static char *arena, *arena_end;
static struct vc *thr[RACE_THREADS];      /* each thread's clock; kept after it exits */
static struct sync_obj *syncs;
static size_t nsync_cap, nsync;
static bool too_many_threads;

/* The detector's memory: never given back (a replay ends). */
static void *take(size_t n)
{
	n = (n + 63) & ~(size_t)63;
	if (!arena) {
		long p = rp_raw_syscall(SYS_mmap, (long)ARENA_AT, (long)ARENA_SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p < 0 && p > -4096)
			return NULL;
		arena = (char *)p;
		arena_end = arena + ARENA_SIZE;
	}
	if ((size_t)(arena_end - arena) < n)
		return NULL;
	void *r = arena;
	arena += n;
	return r;
}

static void out_of_memory(void)
{
	rp_race_pending.nomem = true;
	rp_races_on = false;
}

static struct vc *vc_new(void)
{
	return take(sizeof(struct vc)); /* zeroed: fresh anonymous memory */
}

static void vc_join(struct vc *into, const struct vc *from)
{
	for (int i = 0; i < RACE_THREADS; i++)
		if (from->c[i] > into->c[i])
			into->c[i] = from->c[i];
}

static struct vc *thread_vc(int tid)
{
	if (tid < 0 || tid >= RACE_THREADS) {
		if (!too_many_threads)
			rp_race_pending.threads = true;
		too_many_threads = true;
		return NULL;
	}
	if (!thr[tid]) {
		thr[tid] = vc_new();
		if (!thr[tid]) {
			out_of_memory();
			return NULL;
		}
		thr[tid]->c[tid] = 1;
	}
	return thr[tid];
}

/* The vector clock of synchronization object obj (an address), made on first use:
 * open addressing, grown at half full. */
static struct vc *sync_vc(uintptr_t key)
{
	if (nsync * 2 >= nsync_cap) {
		size_t cap = nsync_cap ? 2 * nsync_cap : 1024;
		struct sync_obj *n = take(cap * sizeof *n);
		if (!n) {
			out_of_memory();
			return NULL;
		}
		for (size_t i = 0; i < nsync_cap; i++) {
			if (!syncs[i].key)
				continue;
			size_t h = (syncs[i].key * 0x9e3779b97f4a7c15ull) >> 20;
			while (n[h & (cap - 1)].key)
				h++;
			n[h & (cap - 1)] = syncs[i];
		}
		syncs = n; /* the old table stays in the arena: small */
		nsync_cap = cap;
	}
	size_t h = (key * 0x9e3779b97f4a7c15ull) >> 20;
	for (;; h++) {
		struct sync_obj *s = &syncs[h & (nsync_cap - 1)];
		if (s->key == key)
			return s->vc;
		if (!s->key) {
			s->vc = vc_new();
			if (!s->vc) {
				out_of_memory();
				return NULL;
			}
			s->key = key;
			nsync++;
			return s->vc;
		}
	}
}

static int cur_tid(void)
{
	return rp_cur ? rp_cur->tid : 0;
}

/* ---- stacks: each thread's calls, for the reports ----------------------------------
 *
 * The race build calls rp_race_call before each call the program makes (its pc, the
 * program's %rsp there); the frame it makes lasts while the thread's %rsp is below
 * that. No hook at returns: each check and each call first drops the frames whose
 * call site's %rsp is not above the thread's (returned, or left by a longjmp). A cell
 * keeps the stack of its access as an id of the depot, a tree of (caller id, call pc)
 * nodes made as accesses need them (a frame that makes no checked access is never
 * entered there), so that a race reported at a later access names the earlier one's
 * callers too, as ThreadSanitizer's do. */
#define STACK_DEPTH 256         /* frames kept per thread; deeper calls are not pushed */
#define NODES_MAX (1u << 22)    /* depot nodes; past them, a stack is cut short */

struct frame {
	uintptr_t sp;
	uint32_t pc;   /* from the load base */
	uint32_t node; /* the depot's id of the stack up to this frame, 0: not made yet */
};
static struct frame *frames[RACE_THREADS];
static int depth[RACE_THREADS];

struct node {
	uint32_t parent, pc;
};
static struct node *nodes;     /* [0] unused: id 0 is the empty stack */
static uint32_t *node_index;   /* open addressing, 2 * NODES_MAX slots of ids */
static uint32_t nnodes;

static uint32_t node_of(uint32_t parent, uint32_t pc)
{
	if (!nodes) {
		nodes = take(sizeof *nodes * NODES_MAX);
		node_index = take(sizeof *node_index * 2 * NODES_MAX);
		if (!nodes || !node_index) {
			nodes = NULL;
			return parent;
		}
		nnodes = 1;
	}
	uint64_t key = (uint64_t)parent << 32 | pc;
	for (uint64_t h = (key * 0x9e3779b97f4a7c15ull) >> 40;; h++) {
		uint32_t *slot = &node_index[h & (2 * NODES_MAX - 1)];
		if (!*slot) {
			if (nnodes >= NODES_MAX)
				return parent; /* full: the stack shown is shorter */
			nodes[nnodes] = (struct node){parent, pc};
			*slot = nnodes;
			return nnodes++;
		}
		if (nodes[*slot].parent == parent && nodes[*slot].pc == pc)
			return *slot;
	}
}

/* Drop thread t's frames that are over at %rsp sp. Past STACK_DEPTH, the deeper
 * frames were not kept: they end with the last kept one. */
static void frames_pop(int t, uintptr_t sp)
{
	int d = depth[t];
	if (d > STACK_DEPTH) {
		if (frames[t][STACK_DEPTH - 1].sp > sp)
			return;
		d = STACK_DEPTH;
	}
	while (d > 0 && frames[t][d - 1].sp <= sp)
		d--;
	depth[t] = d;
}

/* The depot's id of thread t's stack now. */
static uint32_t stack_now(int t)
{
	int d = depth[t] < STACK_DEPTH ? depth[t] : STACK_DEPTH;
	if (!d)
		return 0;
	struct frame *f = frames[t];
	int i = d - 1;
	while (i >= 0 && !f[i].node)
		i--;
	uint32_t id = i >= 0 ? f[i].node : 0;
	for (i++; i < d; i++)
		id = f[i].node = node_of(id, f[i].pc);
	return id;
}

void rp_race_call(uintptr_t pc, uintptr_t rsp)
{
	int t = cur_tid();
	if (!rp_races_on || t < 0 || t >= RACE_THREADS)
		return;
	if (!frames[t] && !(frames[t] = take(sizeof(struct frame) * STACK_DEPTH)))
		return;
	frames_pop(t, rsp);
	if (depth[t] < STACK_DEPTH)
		frames[t][depth[t]] = (struct frame){rsp, (uint32_t)(pc - rp_exe_base), 0};
	depth[t]++;
}

int rp_race_stack(uint32_t id, uintptr_t *out, int max)
{
	int n = 0;
	while (id && nodes && id < nnodes && n < max) {
		out[n++] = rp_exe_base + nodes[id].pc;
		id = nodes[id].parent;
	}
	return n;
}

/* ---- lock sets ------------------------------------------------------------------------
 * The held locks of each thread, innermost last, and as an id of a table of the sets
 * seen (made at each lock and unlock, not at accesses), which a cell keeps. */
static uintptr_t held[RACE_THREADS][RACE_HELD];
static int nheld[RACE_THREADS];
static uint32_t lockset_now[RACE_THREADS];

#define LOCKSETS_MAX (1u << 16)
#define LOCKSET_UNKNOWN 0xffffffffu
struct lockset {
	int n;
	uintptr_t l[RACE_HELD];
};
static struct lockset *locksets; /* [0]: the empty set */
static uint32_t *lockset_index;
static uint32_t nlocksets;

static uint32_t lockset_of(const uintptr_t *l, int n)
{
	if (!n)
		return 0;
	if (!locksets) {
		locksets = take(sizeof *locksets * LOCKSETS_MAX);
		lockset_index = take(sizeof *lockset_index * 2 * LOCKSETS_MAX);
		if (!locksets || !lockset_index) {
			locksets = NULL;
			return LOCKSET_UNKNOWN;
		}
		nlocksets = 1;
	}
	uint64_t h = (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = (h ^ l[i]) * 0x9e3779b97f4a7c15ull;
	for (h >>= 40;; h++) {
		uint32_t *slot = &lockset_index[h & (2 * LOCKSETS_MAX - 1)];
		if (!*slot) {
			if (nlocksets >= LOCKSETS_MAX)
				return LOCKSET_UNKNOWN;
			struct lockset *s = &locksets[nlocksets];
			s->n = n;
			for (int i = 0; i < n; i++)
				s->l[i] = l[i];
			*slot = nlocksets;
			return nlocksets++;
		}
		struct lockset *s = &locksets[*slot];
		bool same = s->n == n;
		for (int i = 0; same && i < n; i++)
			same = s->l[i] == l[i];
		if (same)
			return *slot;
	}
}

int rp_race_lockset(uint32_t id, uintptr_t *out, int max)
{
	if (id == LOCKSET_UNKNOWN || (id && (!locksets || id >= nlocksets)))
		return -1;
	if (!id)
		return 0;
	int n = locksets[id].n < max ? locksets[id].n : max;
	for (int i = 0; i < n; i++)
		out[i] = locksets[id].l[i];
	return n;
}

/* Set while the detector's own reports run: the locks libunwind takes through the
 * pthread layer are not the program's synchronization. */
bool rp_race_busy;

void rp_race_sync(const void *obj, int how)
{
	if (rp_race_busy)
		return;
	int t = cur_tid();
	struct vc *me = thread_vc(t);
	if (!me || !rp_races_on)
		return;
	rp_race_stats.syncs++;
	if (how & RP_RACE_ACQUIRE) {
		struct vc *s = sync_vc((uintptr_t)obj);
		if (!s)
			return;
		vc_join(me, s);
	}
	if (how & RP_RACE_RELEASE) {
		struct vc *s = sync_vc((uintptr_t)obj);
		if (!s)
			return;
		vc_join(s, me);
		me->c[t]++;
	}
	if ((how & RP_RACE_LOCKED) && nheld[t] < RACE_HELD)
		held[t][nheld[t]++] = (uintptr_t)obj;
	if (how & RP_RACE_UNLOCKED)
		for (int i = nheld[t] - 1; i >= 0; i--)
			if (held[t][i] == (uintptr_t)obj) {
				for (int j = i; j + 1 < nheld[t]; j++)
					held[t][j] = held[t][j + 1];
				nheld[t]--;
				break;
			}
	if (how & (RP_RACE_LOCKED | RP_RACE_UNLOCKED))
		lockset_now[t] = lockset_of(held[t], nheld[t]);
}

int rp_race_held(int tid, uintptr_t *out, int max)
{
	if (tid < 0 || tid >= RACE_THREADS)
		return 0;
	int n = nheld[tid] < max ? nheld[tid] : max;
	for (int i = 0; i < n; i++)
		out[i] = held[tid][i];
	return n;
}

static struct rp_race_birth births[RACE_THREADS];

const struct rp_race_birth *rp_race_birth_of(int tid)
{
	return tid >= 0 && tid < RACE_THREADS && births[tid].parent != 0 ? &births[tid] : NULL;
}

void rp_race_thread_created(int child)
{
	int t = cur_tid();
	struct vc *me = thread_vc(t), *c = thread_vc(child);
	if (!me || !c || !rp_races_on)
		return;
	/* In pthread_create: its call's frame is the thread's innermost; the count is
	 * the one published for the call. */
	births[child] = (struct rp_race_birth){t, rp_cur ? rp_cur->offset - __sic_home : 0, stack_now(t)};
	depth[child] = nheld[child] = 0; /* (a thread id used again: nothing of the last one's) */
	lockset_now[child] = 0;
	vc_join(c, me);
	c->c[child]++;
	me->c[t]++;
}

void rp_race_thread_joined(int child)
{
	struct vc *me = thread_vc(cur_tid()), *c = thread_vc(child);
	if (!me || !c || !rp_races_on)
		return;
	vc_join(me, c);
}

static struct word *word_of(uintptr_t addr)
{
	uintptr_t w = addr >> 3;
	uintptr_t chunk = addr >> CHUNK_SHIFT;
	if (chunk >= TOP_ENTRIES)
		return NULL;
	if (!top) {
		long p = rp_raw_syscall(SYS_mmap, (long)TOP_AT, (long)(TOP_ENTRIES * sizeof *top),
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p < 0 && p > -4096) {
			out_of_memory();
			return NULL;
		}
		top = (struct word **)p;
	}
	if (!top[chunk]) {
		top[chunk] = take(WORDS_PER_CHUNK * sizeof(struct word));
		if (!top[chunk]) {
			out_of_memory();
			return NULL;
		}
	}
	return &top[chunk][w & (WORDS_PER_CHUNK - 1)];
}

static uint64_t cell_count(const struct cell *c) { return c->info >> 16; }
static int cell_tid(const struct cell *c) { return (int)((c->info >> 8) & 0xff); }
static unsigned cell_mask(const struct cell *c) { return (unsigned)(c->info & 0xff); }

/* Has the race between the instructions at pcs a and b been found already? Each pair
 * is reported once; a table of the pairs found (open addressing, never full: past
 * half, the report path's own list decides), so that the run's later races of the
 * same two instructions cost no report path. */
#define SEEN_CAP 8192
static uint64_t seen_pairs[SEEN_CAP];
static unsigned nseen_pairs;

static bool seen_before(uintptr_t a, uintptr_t b)
{
	uint64_t lo = a < b ? a : b, hi = a ^ b ^ lo;
	uint64_t key = ((lo - rp_exe_base) << 32 | ((hi - rp_exe_base) & 0xffffffffu)) + 1;
	for (uint64_t h = key * 0x9e3779b97f4a7c15ull >> 51;; h++) {
		uint64_t *s = &seen_pairs[h & (SEEN_CAP - 1)];
		if (*s == key)
			return true;
		if (!*s) {
			if (nseen_pairs >= SEEN_CAP / 2)
				return false;
			*s = key;
			nseen_pairs++;
			return false;
		}
	}
}

/* Check one word's bytes (mask) against its cells, then note this access. */
static void check_word(uintptr_t addr, unsigned mask, bool write, bool freeing, uintptr_t pc,
		       int t, struct vc *me, uint64_t count, uint32_t stack)
{
	struct word *w = word_of(addr);
	if (!w)
		return;
	rp_race_stats.accesses++;
	if (!w->owner) {
		w->owner = (uint8_t)(t + 1);
	} else if (!w->shared && w->owner != t + 1) {
		w->shared = 1;
		rp_race_stats.shared += w->alone;
	}
	if (w->shared)
		rp_race_stats.shared++;
	else
		w->alone++;
	if (!dep_known)
		dep_known = take(sizeof *dep_known * RACE_THREADS * RACE_THREADS);
	int slot = -1, empty = -1, merge = -1;
	for (int i = 0; i < RACE_CELLS; i++) {
		struct cell *c = &w->c[i];
		if (!c->info) {
			if (empty < 0)
				empty = i;
			continue;
		}
		int ct = cell_tid(c);
		unsigned cm = cell_mask(c);
		bool cw = c->pc & CELL_WRITE;
		if (ct == t) {
			if (!(cm & ~mask) && (write || !cw) && slot < 0)
				slot = i; /* the same thread's, covered: this one says more */
			else if (c->clock == me->c[t] && cw == write && merge < 0 &&
				 (c->pc & CELL_PC) == ((pc - rp_exe_base) & CELL_PC))
				merge = i; /* the same instruction, epoch and kind: one cell
					    * for both (a loop over bytes fills a word) */
			continue;
		}
		bool ordered = c->clock <= me->c[ct];
		if ((cm & mask) && (write || cw) && dep_known) {
			uint64_t *k = &dep_known[t * RACE_THREADS + ct];
			if (cell_count(c) + 1 > *k) {
				*k = cell_count(c) + 1;
				rp_race_stats.dependences++;
			}
		}
		if (!ordered && (cm & mask) && (write || cw)) {
			struct rp_race_access now = {pc, count, t, write, freeing, stack, lockset_now[t]};
			struct rp_race_access then = {rp_exe_base + (c->pc & CELL_PC), cell_count(c), ct,
						      cw, (c->pc & CELL_FREE) != 0, c->stack, c->locks};
			/* Reported once per pair of instructions; the cell stays, for the
			 * races of this access with others. */
			if (!seen_before(pc, then.pc))
				rp_race_found(addr + (unsigned)__builtin_ctz(cm & mask), &now, &then);
			continue;
		}
		if (ordered && write && !(cm & ~mask) && slot < 0)
			slot = i; /* happens before this write, which covers it */
	}
	if (slot < 0 && merge >= 0) {
		slot = merge;
		mask |= cell_mask(&w->c[merge]);
	}
	if (slot < 0)
		slot = empty;
	if (slot < 0) {
		slot = w->next;
		w->next = (uint8_t)((w->next + 1) % RACE_CELLS);
	}
	struct cell *c = &w->c[slot];
	c->clock = me->c[t];
	c->pc = (uint32_t)((pc - rp_exe_base) & CELL_PC) | (write ? CELL_WRITE : 0) | (freeing ? CELL_FREE : 0);
	c->info = (count << 16) | ((uint64_t)(t & 0xff) << 8) | (mask & 0xff);
	c->stack = stack;
	c->locks = lockset_now[t];
}

/* The running thread's count at an instrumented instruction: r15 is its counter. */
static uint64_t count_now(uint64_t r15)
{
	if (r15 == RP_SIC_TOKEN) /* before a call (memcpy, free): the count is published */
		r15 = __sic_home;
	return rp_cur ? rp_cur->offset - r15 : 0;
}

static void check_range(uintptr_t addr, size_t size, bool write, bool freeing, uintptr_t pc, uint64_t r15,
			uintptr_t rsp)
{
	int t = cur_tid();
	struct vc *me = thread_vc(t);
	if (!me || !size)
		return;
	if (frames[t])
		frames_pop(t, rsp);
	if (size <= 8 && !freeing) {
		struct word *w = word_of(addr & ~(uintptr_t)7);
		if (w && w->atomic) { /* a synchronization variable's plain load or store */
			rp_race_sync((const void *)(addr & ~(uintptr_t)7), write ? RP_RACE_RELEASE : RP_RACE_ACQUIRE);
			return;
		}
	}
	uint64_t count = count_now(r15);
	uint32_t stack = stack_now(t);
	uintptr_t end = addr + size;
	while (addr < end && rp_races_on) {
		uintptr_t word_end = (addr | 7) + 1;
		uintptr_t stop = end < word_end ? end : word_end;
		unsigned mask = (unsigned)(((1u << (stop - addr)) - 1) << (addr & 7));
		check_word(addr & ~(uintptr_t)7, mask, write, freeing, pc, t, me, count, stack);
		addr = stop;
	}
}

void rp_race_found(uintptr_t addr, const struct rp_race_access *now, const struct rp_race_access *then)
{
	struct rp_race_pending *p = &rp_race_pending;
	if (p->n == RACE_PENDING_MAX)
		return; /* this access races more: the next report tells */
	p->race[p->n].addr = addr;
	p->race[p->n].now = *now;
	p->race[p->n].then = *then;
	p->n++;
}

/* races_rt.S's __race_access: kind is sicpp's (RACE_WRITE, RACE_ATOMIC, the size).
 * Returns nonzero when a report waits (rp_race_pending). */
int rp_race_access(uintptr_t addr, unsigned kind, uintptr_t pc, uint64_t r15, uintptr_t rsp)
{
	if (!rp_races_on)
		return 0;
	if (kind & RACE_KIND_ATOMIC) {
		/* An atomic read-modify-write: acquire and release its word, never a race
		 * with another atomic one. */
		struct word *w = word_of(addr & ~(uintptr_t)7);
		if (w)
			w->atomic = 1;
		rp_race_sync((const void *)(addr & ~(uintptr_t)7), RP_RACE_ACQUIRE | RP_RACE_RELEASE);
		return rp_race_pending_any();
	}
	check_range(addr, kind & 0xff, (kind & RACE_KIND_WRITE) != 0, false, pc, r15, rsp);
	return rp_race_pending_any();
}

/* __race_range: memcpy(dst, src, n), memset(dst, 0, n) or a string instruction. */
int rp_race_range(uintptr_t dst, uintptr_t src, size_t n, uintptr_t pc, uint64_t r15, uintptr_t rsp)
{
	if (!rp_races_on)
		return 0;
	if (src)
		check_range(src, n, false, false, pc, r15, rsp);
	check_range(dst, n, true, false, pc, r15, rsp);
	return rp_race_pending_any();
}

/* __race_free: the block a free() gives back, written by the free (a later access of
 * another thread that does not happen after it is a use after free); __race_alloc:
 * the block malloc gave, new: its shadow forgotten, so that what the allocator hands
 * from one thread to another (its own locks are not the program's) is no race. */
int rp_race_free(uintptr_t p, size_t size, uintptr_t pc, uint64_t r15, uintptr_t rsp)
{
	if (!rp_races_on || !p)
		return 0;
	check_range(p, size, true, true, pc, r15, rsp);
	return rp_race_pending_any();
}

void rp_race_alloc(uintptr_t p, size_t size)
{
	if (!rp_races_on || !p)
		return;
	for (uintptr_t a = p & ~(uintptr_t)7; a < p + size; a += 8) {
		struct word *w = word_of(a);
		if (!w)
			return;
		for (int i = 0; i < RACE_CELLS; i++)
			w->c[i].info = 0;
		w->atomic = 0;
	}
}
