/* races.h: the race detector's room (engine/races/, docs/races.md): its private
 * interface between races.c (the checks, general registers only), races_rt.S (the
 * trampolines the race build calls) and races_report.c (the reports). */
#ifndef RP_RACES_H
#define RP_RACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sicpp's kinds (sicpp/races.h: RACE_WRITE, RACE_ATOMIC), the size in the low byte. */
#define RACE_KIND_WRITE  0x100
#define RACE_KIND_ATOMIC 0x200

#define RACE_THREADS 256 /* threads watched (tids below); past them, a warning */
#define RACE_CELLS 4     /* earlier accesses kept per 8-byte word */
#define RACE_HELD 8      /* locks named per thread */
#define RACE_PENDING_MAX 8

struct rp_race_access {
	uintptr_t pc;
	uint64_t count;
	int tid;
	bool write, freeing;
	uint32_t stack; /* its callers (rp_race_stack), 0: none known */
	uint32_t locks; /* the locks its thread held (rp_race_lockset) */
};

/* A thread's start: who created it, where (its stack then: the call of
 * pthread_create innermost). */
struct rp_race_birth {
	int parent; /* 0: not created by a thread the detector saw (the main thread) */
	uint64_t count;
	uint32_t stack;
};

/* Found by an access, reported before it goes on. */
struct rp_race_pending {
	int n;
	struct {
		uintptr_t addr;
		struct rp_race_access now, then;
	} race[RACE_PENDING_MAX];
	bool nomem, threads; /* the detector stopped: out of memory; too many threads */
};
extern struct rp_race_pending rp_race_pending;
/* The detector's reports are running (their calls' synchronization is not the
 * program's). */
extern bool rp_race_busy;

static inline bool rp_race_pending_any(void)
{
	return rp_race_pending.n || rp_race_pending.nomem || rp_race_pending.threads;
}

struct rp_race_stats {
	uint64_t accesses;    /* checked, by the word (an access across two words: two) */
	uint64_t shared;      /* ... of words more than one thread touched */
	uint64_t dependences; /* inter-thread dependences among them (races.c) */
	uint64_t syncs;       /* synchronization operations (the pthread layer's, atomics) */
};
extern struct rp_race_stats rp_race_stats;

void rp_race_found(uintptr_t addr, const struct rp_race_access *now, const struct rp_race_access *then);
/* rsp: the program's at the checked instruction (races_rt.S), which ends the frames
 * of the thread's shadow stack that have returned. */
int rp_race_access(uintptr_t addr, unsigned kind, uintptr_t pc, uint64_t r15, uintptr_t rsp);
int rp_race_range(uintptr_t dst, uintptr_t src, size_t n, uintptr_t pc, uint64_t r15, uintptr_t rsp);
int rp_race_free(uintptr_t p, size_t size, uintptr_t pc, uint64_t r15, uintptr_t rsp);
void rp_race_alloc(uintptr_t p, size_t size);
void rp_race_call(uintptr_t pc, uintptr_t rsp);
/* The call sites of stack id (innermost first), up to max: how many. */
int rp_race_stack(uint32_t id, uintptr_t *out, int max);
/* The locks of lock set id (innermost last), up to max: how many; -1 if the set was
 * not kept (the detector's table of sets is full). */
int rp_race_lockset(uint32_t id, uintptr_t *out, int max);
const struct rp_race_birth *rp_race_birth_of(int tid);

/* The races reported, read by gdb's extension (libreplay/gdb/races.py). */
#define RACE_VIEW_MAX 64
struct rp_race_view {
	unsigned n; /* reported so far; the last RACE_VIEW_MAX are kept, race k at (k-1) % MAX */
	struct rp_race_seen {
		unsigned number;
		uintptr_t addr;
		struct rp_race_access now, then;
	} race[RACE_VIEW_MAX];
};
extern struct rp_race_view rp_race_view;
void rp_race_reported(void);

/* races_report.c, called by races_rt.S with every register saved. */
void rp_race_report_pending(void);
void rp_race_free_c(uintptr_t p, uintptr_t pc, uint64_t r15, uintptr_t rsp);
void rp_race_alloc_c(uintptr_t p);

#endif
