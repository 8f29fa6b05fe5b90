/* sched_impl.h: the scheduler's state and the helpers its files share. */
#ifndef SCHED_IMPL_H
#define SCHED_IMPL_H

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/prctl.h>

#include "green.h"
#include "sched_sys.h"

#define SCHED_HIDDEN __attribute__((visibility("hidden")))

/* The pthread layer stores our objects inside glibc's. */
_Static_assert(sizeof(struct sched_mutex) <= sizeof(pthread_mutex_t), "mutex fits");
_Static_assert(sizeof(struct sched_cond) <= sizeof(pthread_cond_t), "cond fits");
_Static_assert(sizeof(struct sched_sem) <= sizeof(sem_t), "sem fits");
_Static_assert(sizeof(struct sched_barrier) <= sizeof(pthread_barrier_t), "barrier fits");
_Static_assert(sizeof(struct sched_rwlock) <= sizeof(pthread_rwlock_t), "rwlock fits");
_Static_assert(offsetof(struct sched_mutex, type) == 16, "type where glibc keeps __kind");

/* Deadline lists: one per clock, since the clocks cannot be compared. */
enum { SCHED_SLOT_MONOTONIC, SCHED_SLOT_REALTIME, SCHED_NSLOTS };

struct sched_globals {
	/* Set while the scheduler's own code runs (from entering a sched_* call until
	 * the thread it resumes leaves one): sched_preempt must not interrupt it. */
	volatile sig_atomic_t busy;
	bool running; /* inside sched_run_main */
	/* How switches load a thread pointer (sched_tls_probe.c): chosen at the first
	 * thread creation after sched_set_tls_path (AUTO until then), from probes made
	 * once per process. */
	enum sched_tls_path tls_asked;
	enum sched_tls_path tls_path;
	bool fsgsbase; /* wrfsbase probed and allowed: for threads without a selector */
	bool no_ldt;   /* no more LDT entries in this process: one failed or faulted */
	struct sched_thread *cur;
	struct sched_thread host; /* the context that called sched_run_main: id 0 */
	struct sched_hooks hooks; /* defaults filled in */

	struct sched_thread *rq_head, *rq_tail; /* run queue: FIFO through rq_next */
	struct sched_thread *timers[SCHED_NSLOTS];
	struct sched_waitq events; /* threads in sched_wait_event, in waiting order */
	struct sched_thread *all_head, *all_tail; /* every thread of the run, by id */
	struct sched_thread *dead; /* exited detached threads to free, through rq_next */
	struct sched_thread *abandoned; /* kept by teardown, through all_next */
	int next_id;
	int live; /* created and not exited */
	bool priorities; /* some thread has a priority (sched_set_priority): rq_pick looks */
	bool forked; /* a child of fork(): the other threads were left behind (sched_forked.c) */

	int (*main_fn)(int, char **, char **);
	int argc;
	char **argv, **envp;
	int status; /* what sched_run_main returns */

	void *stack_cache[8]; /* default-size stacks for reuse, LIFO */
	int ncached;
};
extern struct sched_globals sched_g SCHED_HIDDEN;

static inline void sched_enter(void)
{
	sched_g.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void sched_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sched_g.busy = 0;
}

/* ---- run queue ---------------------------------------------------------------- */
static inline void rq_push(struct sched_thread *t)
{
	t->state = SCHED_RUNNABLE;
	t->rq_next = NULL;
	sched_runnable_gen++;
	if (sched_g.rq_tail)
		sched_g.rq_tail->rq_next = t;
	else
		sched_g.rq_head = t;
	sched_g.rq_tail = t;
}

static inline struct sched_thread *rq_pop(void)
{
	struct sched_thread *t = sched_g.rq_head;
	if (t) {
		sched_g.rq_head = t->rq_next;
		if (!sched_g.rq_head)
			sched_g.rq_tail = NULL;
		t->rq_next = NULL;
	}
	return t;
}

/* sched_priority.c: with priorities set, the first runnable thread of the highest
 * priority, other than `not` unless it is the only one; taken off the run queue. */
struct sched_thread *sched_rq_pick_prio(const struct sched_thread *not) SCHED_HIDDEN;

/* The next thread to run, taken off the run queue (NULL: none runnable). `not` (the
 * thread that yields or is preempted, already queued) runs only if nothing else can.
 * Without priorities (the default) that is the head: FIFO. */
static inline struct sched_thread *rq_pick(const struct sched_thread *not)
{
	if (__builtin_expect(sched_g.priorities, 0))
		return sched_rq_pick_prio(not);
	return rq_pop();
}

/* ---- wait queues ---------------------------------------------------------------- */
static inline void wq_push(struct sched_waitq *q, struct sched_thread *t)
{
	t->waitq = q;
	t->wq_next = NULL;
	t->wq_prev = q->tail;
	if (q->tail)
		q->tail->wq_next = t;
	else
		q->head = t;
	q->tail = t;
}

static inline void wq_remove(struct sched_thread *t)
{
	struct sched_waitq *q = t->waitq;
	if (!q)
		return;
	if (t->wq_prev)
		t->wq_prev->wq_next = t->wq_next;
	else
		q->head = t->wq_next;
	if (t->wq_next)
		t->wq_next->wq_prev = t->wq_prev;
	else
		q->tail = t->wq_prev;
	t->wq_next = t->wq_prev = NULL;
	t->waitq = NULL;
}

/* The first waiter, dropping threads abandoned by an earlier run (a static object
 * may outlive a run that ended with threads waiting on it). */
static inline struct sched_thread *wq_first(struct sched_waitq *q)
{
	struct sched_thread *t;
	while ((t = q->head) && t->state == SCHED_ABANDONED)
		wq_remove(t);
	return t;
}

/* ---- mutexes a thread holds (for reports and debuggers) ------------------------- */
static inline void held_add(struct sched_thread *t, const struct sched_mutex *m)
{
	if (t->nheld < SCHED_HELD_MAX)
		t->held[t->nheld] = m;
	t->nheld++;
}

/* m was released by whoever holds it (the thread whose id is owner). */
void sched_held_drop(int owner, const struct sched_mutex *m) SCHED_HIDDEN;

/* ---- sched_switch.S ---------------------------------------------------------- */
/* Save the callee-saved registers, MXCSR and x87 control word on the stack, store
 * the stack pointer in *save_sp, load new_sp, restore and return there. */
void sched_switch(void **save_sp, void *new_sp) SCHED_HIDDEN;
/* Where a new thread starts (inside sched_trampoline): calls sched_thread_main(%r12). */
extern const char sched_trampoline_entry[] SCHED_HIDDEN;
/* The PC a switched-out thread resumes at. */
extern const char sched_switch_resume[] SCHED_HIDDEN;

/* Load next's thread pointer: every TLS access from here on is
 * next's (no compiler may move memory accesses across: they may be TLS accesses).
 * A thread with an LDT entry (fs_sel) gets it by loading the selector, which sets the
 * fs base from the entry and costs next to nothing; writing the fs base (wrfsbase)
 * costs ~13 ns here, arch_prctl a system call. wrfsbase leaves prev's selector
 * loaded: harmless, the kernel saves and restores a task's base after its selector.
 * (Loading selector 0 first would open a window where Intel CPUs have base 0 and a
 * signal handler's first TLS access faults.) */
static inline void sched_load_tp(const struct sched_thread *next)
{
	if (next->fs_sel)
		__asm__ volatile("mov %0, %%fs" : : "r"((uint32_t)next->fs_sel) : "memory");
	else if (__builtin_expect(sched_g.fsgsbase, 1))
		__asm__ volatile("wrfsbase %0" : : "r"(next->tp) : "memory");
	else
		sched_raw_syscall(SYS_arch_prctl, ARCH_SET_FS, (long)next->tp, 0, 0, 0, 0); /* selector 0 too */
}

/* ---- internal functions (all called busy) ------------------------------------- */
/* sched_schedule.c */
void sched_expire_timers(void) SCHED_HIDDEN;
void sched_switch_to(struct sched_thread *next) SCHED_HIDDEN;
void sched_schedule(void) SCHED_HIDDEN;
void sched_reap_dead(void) SCHED_HIDDEN;
/* Block the current thread on q (or none) until woken or until deadline_ns on
 * deadline list `slot` (-1: none). Returns wake_status: 0, ETIMEDOUT, EDEADLK. */
int sched_wait(struct sched_waitq *q, int slot, uint64_t deadline_ns,
	       enum sched_wait_kind kind, const void *obj) SCHED_HIDDEN;
/* sched_block.c: sched_wait with a timespec deadline, entering and leaving the
 * scheduler around it (sched_block, sched_wait_event). */
int sched_block_as(struct sched_waitq *q, const struct timespec *deadline, clockid_t clk,
		   enum sched_wait_kind kind, const void *obj) SCHED_HIDDEN;
struct sched_thread *sched_wakeup(struct sched_waitq *q) SCHED_HIDDEN;
/* sched_deadline.c: check a timespec and clock; slot -1 for a NULL deadline. */
int sched_deadline(const struct timespec *ts, clockid_t clk, int *slot,
		   uint64_t *ns) SCHED_HIDDEN;
clockid_t sched_slot_clock(int slot) SCHED_HIDDEN;
void sched_timer_insert(struct sched_thread *t, int slot, uint64_t ns) SCHED_HIDDEN;
void sched_timer_remove(struct sched_thread *t) SCHED_HIDDEN;
/* sched_tls.c: t's own TLS and TCB (t->tp, t->fs_sel); 0, or EAGAIN (after one
 * line on stderr if glibc's layout is not the one measured). sched_tls_free: the
 * area, its DTV and what hangs off that, its LDT entry. */
void sched_tls_init(void) SCHED_HIDDEN; /* checks glibc's layout, silently */
int sched_tls_alloc(struct sched_thread *t) SCHED_HIDDEN;
void sched_tls_free(struct sched_thread *t) SCHED_HIDDEN;
void sched_tls_cache_drop(void) SCHED_HIDDEN;
/* An LDT entry whose base is tp: 0 and its selector in *sel, or -errno (-ENOSPC: all
 * 8192 in use, -ERANGE: tp above 4 GiB). sched_ldt_release: back to the free list. */
int sched_ldt_set(void *tp, uint16_t *sel) SCHED_HIDDEN;
void sched_ldt_release(uint16_t sel) SCHED_HIDDEN;
/* sched_tls_probe.c: set tls_path and fsgsbase, probing what was not probed yet. */
void sched_tls_choose(void) SCHED_HIDDEN;
/* sched_stack.c */
int sched_stack_alloc(struct sched_thread *t, size_t size) SCHED_HIDDEN;
void sched_stack_free(struct sched_thread *t) SCHED_HIDDEN;
void sched_stack_cache_drop(void) SCHED_HIDDEN;
/* sched_create.c */
int sched_new_thread(struct sched_thread **out, const struct sched_thread_attr *attr,
		     size_t default_size, void *(*start)(void *), void *arg) SCHED_HIDDEN;
void sched_free_thread(struct sched_thread *t) SCHED_HIDDEN;
_Noreturn void sched_thread_main(struct sched_thread *self) SCHED_HIDDEN;
/* sched_run_main.c */
_Noreturn void sched_finish(int status) SCHED_HIDDEN;
/* sched_mutex_lock.c, sched_mutex_unlock.c */
int sched_mutex_acquire(struct sched_mutex *m, const struct timespec *deadline,
			clockid_t clk) SCHED_HIDDEN;
int sched_mutex_release(struct sched_mutex *m) SCHED_HIDDEN;
/* sched_rwlock_unlock.c */
void sched_rwlock_grant(struct sched_rwlock *l) SCHED_HIDDEN;
/* sched_hooks.c */
uint64_t sched_default_now_ns(clockid_t clk) SCHED_HIDDEN;
bool sched_default_timeout_expired(struct sched_thread *t, uint64_t deadline_ns,
				   clockid_t clk) SCHED_HIDDEN;
void sched_default_idle(uint64_t deadline_ns, clockid_t clk) SCHED_HIDDEN;
void sched_default_deadlock(void) SCHED_HIDDEN;
bool sched_default_event_ready(struct sched_thread *t, const void *obj) SCHED_HIDDEN;
void sched_default_idle_events(uint64_t deadline_ns, clockid_t clk) SCHED_HIDDEN;
/* sched_schedule.c: nothing runs: let time pass until the earliest deadline, or until
 * an event may have happened (false: nothing to wait for). */
bool sched_idle(void) SCHED_HIDDEN;
/* sched_sleeper_turn.c: at a preemption of cur (running, not yet queued): does a thread
 * waiting for a deadline come before the thread that would run next (it outranks it
 * and every runnable thread; without priorities, cur is alone)? Then the sleeper_turn
 * hook may let time pass until it runs (sched_sleeper_turn). */
bool sched_sleeper_due(struct sched_thread *cur) SCHED_HIDDEN;
void sched_sleeper_turn(struct sched_thread *cur) SCHED_HIDDEN;
/* sched_wait_event.c: ask event_ready about every event waiter. */
void sched_poll_events(void) SCHED_HIDDEN;

/* At every scheduling point: make the threads whose deadline passed, then those
 * whose event happened, runnable (always in this order: the replay relies on it). */
static inline void sched_expire(void)
{
	if (sched_g.timers[SCHED_SLOT_MONOTONIC] || sched_g.timers[SCHED_SLOT_REALTIME])
		sched_expire_timers();
	if (sched_g.events.head)
		sched_poll_events();
}

/* A scheduling point ends without a switch: the current thread goes on. */
static inline void sched_go_on(void)
{
	if (sched_g.hooks.on_resume)
		sched_g.hooks.on_resume(sched_g.cur);
}

/* After a switch, in the thread that resumed: free the detached threads that exited. */
static inline void sched_reap(void)
{
	if (sched_g.dead)
		sched_reap_dead();
}

static inline int sched_mutex_type(const struct sched_mutex *m)
{
	int type = m->type & 3;
	return type == 3 ? SCHED_MUTEX_NORMAL : type;
}

#endif
