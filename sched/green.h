/* green.h: green threads on one kernel thread, scheduled deterministically.
 *
 * What libreplay (and its pthread layer) builds on. sched/ knows threads and
 * scheduling, nothing about logs, replay or the instruction counter: those plug in
 * through struct sched_hooks.
 *
 * Determinism: given the same sequence of calls and the same hook answers, every
 * scheduling decision is the same. Run queue and wait queues are FIFO (the run
 * queue by priority first, once priorities are set: sched_set_priority); the only
 * time-dependent inputs are the hooks now_ns, timeout_expired and event_ready.
 *
 * Errors are returned the pthread way: 0 or an error number, errno untouched.
 * Deadlines are absolute (struct timespec) on CLOCK_MONOTONIC or CLOCK_REALTIME;
 * a NULL deadline means "no deadline". Durations (sched_sleep) are relative. */
#ifndef SCHED_H
#define SCHED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sched_thread;
struct sched_mutex;

/* How many of the mutexes a thread holds are listed (sched_thread_info.held). */
#define SCHED_HELD_MAX 8

/* ---- wait queues -------------------------------------------------------------
 * An intrusive FIFO list through the waiting threads' descriptors. All-zero is an
 * empty queue, so a wait queue can live in a static object. */
struct sched_waitq {
	struct sched_thread *head, *tail;
};

enum sched_state {
	SCHED_RUNNABLE,  /* on the run queue */
	SCHED_RUNNING,   /* the current thread */
	SCHED_BLOCKED,   /* on a wait queue and/or waiting for a deadline */
	SCHED_EXITED,    /* finished, not yet joined */
	SCHED_ABANDONED, /* left blocked when its run ended (never seen by iterators) */
};

/* What a blocked thread waits on (sched_thread_info.wait_kind). */
enum sched_wait_kind {
	SCHED_WAIT_NONE,
	SCHED_WAIT_JOIN,    /* wait_obj: the struct sched_thread joined */
	SCHED_WAIT_MUTEX,   /* wait_obj: the struct sched_mutex */
	SCHED_WAIT_COND,    /* struct sched_cond */
	SCHED_WAIT_SEM,     /* struct sched_sem */
	SCHED_WAIT_BARRIER, /* struct sched_barrier */
	SCHED_WAIT_RDLOCK,  /* struct sched_rwlock, for reading */
	SCHED_WAIT_WRLOCK,  /* struct sched_rwlock, for writing */
	SCHED_WAIT_SLEEP,   /* nothing: only a deadline */
	SCHED_WAIT_QUEUE,   /* struct sched_waitq, through sched_block() */
	SCHED_WAIT_EVENT,   /* the caller's description, through sched_wait_event() */
};
const char *sched_wait_kind_name(enum sched_wait_kind kind);

/* ---- thread descriptor -------------------------------------------------------
 * Public: `ext` (libreplay's per-thread data: sched never reads or writes it) and
 * `id` (read only). Everything else belongs to sched/: read it through
 * sched_thread_info(). */
struct sched_thread {
	void *ext;
	int id; /* 1, 2, 3, ... in creation order; 0 is the host (see sched_current) */

	/* private below this line */
	enum sched_state state;
	void *sp; /* saved stack pointer while switched out */
	void *tp; /* its thread pointer (fs base): its TLS and glibc TCB, sched_tls.c */
	uint16_t fs_sel; /* an LDT selector whose base is tp, or 0 */
	int wake_status; /* what the current or last wait returns: 0, ETIMEDOUT, ... */

	void *(*start)(void *);
	void *arg;
	void *retval;
	bool detached;
	struct sched_thread *joiner; /* the thread blocked joining this one */
	struct sched_waitq joinq;

	void *stack_lo, *stack_hi; /* usable stack */
	void *map_base;            /* mapping incl. guard page; NULL for a user stack */
	size_t map_len;

	struct sched_thread *rq_next;          /* run queue, dead list */
	struct sched_thread *wq_next, *wq_prev; /* wait queue */
	struct sched_waitq *waitq;             /* the queue it is on, or NULL */
	enum sched_wait_kind wait_kind;
	const void *wait_obj;

	struct sched_thread *tm_next, *tm_prev; /* deadline list of its clock */
	uint64_t deadline_ns;
	int tm_slot; /* which deadline list, -1 for none */

	unsigned rdlocks; /* read locks held (any rwlock), see sched_rwlock_rdlock.c */
	unsigned nheld;   /* mutexes held; the first SCHED_HELD_MAX are in held[] */
	const struct sched_mutex *held[SCHED_HELD_MAX];
	int prio;         /* sched_set_priority; 0 by default */

	struct sched_thread *all_next, *all_prev; /* every thread of the run, by id */
};

/* ---- hooks -------------------------------------------------------------------
 * Set with sched_set_hooks() before sched_run_main(). A NULL member gets the
 * default. All hooks run with the scheduler busy (sched_preempt() refuses) and must
 * not call sched_* functions other than sched_current, sched_thread_id,
 * sched_thread_next, sched_thread_info, sched_dump and sched_report_deadlock.
 *
 * Time is an input: every time-dependent decision goes through now_ns (turning a
 * relative sleep into a deadline) and timeout_expired (has this deadline passed?).
 * A replay layer that records and replays both answers replays every decision.
 * now_ns is also asked which deadline to hand to idle; that choice decides nothing.
 * Events outside the scheduler (a descriptor becoming ready) are the third input:
 * event_ready, asked like timeout_expired. */
struct sched_hooks {
	/* The time on clk (CLOCK_MONOTONIC or CLOCK_REALTIME), in ns. Default:
	 * clock_gettime. */
	uint64_t (*now_ns)(clockid_t clk);
	/* Has t's deadline passed? Asked at scheduling points for the earliest pending
	 * deadlines, in deadline order (ties by thread id), per clock, until the first
	 * "no". Default: now_ns(clk) >= deadline_ns. */
	bool (*timeout_expired)(struct sched_thread *t, uint64_t deadline_ns, clockid_t clk);
	/* No thread can run, some wait for a deadline: wait for time to pass, then the
	 * deadlines are asked again. Default: clock_nanosleep until deadline_ns. */
	void (*idle)(uint64_t deadline_ns, clockid_t clk);
	/* Every thread is blocked and none has a deadline. Default: print the report
	 * (sched_report_deadlock) on stderr and exit(1). If it returns, the run is
	 * abandoned and sched_run_main returns SCHED_RUN_ABORTED (outside a run, the
	 * host's wait returns EDEADLK instead). */
	void (*deadlock)(void);
	/* Has the event t waits for (obj, from sched_wait_event) happened? Asked at every
	 * scheduling point, after the deadlines, once for each event waiter in the order
	 * they began to wait; "yes" wakes t. Default: no (sched cannot know). */
	bool (*event_ready)(struct sched_thread *t, const void *obj);
	/* No thread can run, some wait for events: wait until one may have happened or
	 * until deadline_ns on clk (UINT64_MAX: the waiters have no deadline), then the
	 * deadlines and events are asked again. A spurious return only costs a round of
	 * questions. Default: idle until the deadline, or 1 ms without one. */
	void (*idle_events)(uint64_t deadline_ns, clockid_t clk);
	/* Every thread is blocked and none has a deadline or an event, but something
	 * from outside the scheduler may still end a wait (a signal, for a thread in
	 * sigsuspend): wait for it. True: it came (the scheduler looks again); false:
	 * nothing will, a deadlock. NULL (the default): always a deadlock. */
	bool (*idle_outside)(void);
	/* At a preemption: next, the thread that would run (the preempted one too), comes
	 * after sleeper, which waits for a deadline (a sleep, a timed wait): with
	 * priorities (sched_set_priority), sleeper's is higher than every runnable
	 * thread's; without, next is the preempted thread, alone. True lets time pass
	 * instead, as an OS may leave a runnable thread unscheduled a while: the scheduler
	 * idles (idle, idle_events, asking the deadlines after each) until sleeper's wait
	 * ended or a thread that comes before next is runnable. NULL (the default):
	 * false, next runs. */
	bool (*sleeper_turn)(struct sched_thread *next, struct sched_thread *sleeper);

	/* Notifications; NULL (the default) means nothing to do. */
	/* Before every switch, on prev's stack. prev or next may be the host (id 0). */
	void (*on_switch)(struct sched_thread *prev, struct sched_thread *next);
	/* A scheduling point (block, yield, preempt) ended with no switch: t, the current
	 * thread, goes on. The hooks it asked may have changed what t must be set up
	 * with (a replay's next record for it), as on_switch would have. */
	void (*on_resume)(struct sched_thread *t);
	/* In the creator, once t exists and before it can run. */
	void (*on_thread_create)(struct sched_thread *t);
	/* In t, on its own stack, before its start function. */
	void (*on_thread_start)(struct sched_thread *t);
	/* In t, after its start function returned or it called sched_exit (for thread 1:
	 * after main returned); the last hook about t. */
	void (*on_thread_exit)(struct sched_thread *t);
};
void sched_set_hooks(const struct sched_hooks *hooks); /* NULL: all defaults */
const struct sched_hooks *sched_get_hooks(void);        /* with defaults filled in */

/* ---- running ---------------------------------------------------------------- */

/* sched_run_main's result when the run did not end by main returning or by the last
 * thread exiting: the deadlock hook returned, the first stack could not be mapped
 * (errno says why), or sched_run_main was called inside a run (EBUSY). */
#define SCHED_RUN_ABORTED INT_MIN

/* Run main_fn as thread 1 on a stack of SCHED_MAIN_STACK_SIZE that we map, and
 * schedule until main_fn returns (its status is returned, other threads are
 * abandoned: the caller is expected to exit with it, as after main in pthreads) or
 * every thread has exited (returns 0: main called sched_exit). Reusable: each run
 * starts again from thread id 1. */
int sched_run_main(int (*main_fn)(int, char **, char **), int argc, char **argv,
		   char **envp);

#define SCHED_MAIN_STACK_SIZE    (8u << 20)
#define SCHED_DEFAULT_STACK_SIZE (8u << 20)
#define SCHED_MIN_STACK_SIZE     16384u /* PTHREAD_STACK_MIN */

/* ---- how a switch loads a thread's TLS (sched_tls_probe.c) ----------------------
 * Three ways, fastest first: an LDT selector (modify_ldt), wrfsbase (FSGSBASE), the
 * arch_prctl system call. Each is probed once per process, in a child process that
 * a fault cannot take the program down with, at the first thread creation. */
enum sched_tls_path {
	SCHED_TLS_AUTO,     /* the first that works (the default) */
	SCHED_TLS_LDT,
	SCHED_TLS_FSGSBASE,
	SCHED_TLS_SYSCALL,
};

/* Before sched_run_main: start the search at `path` (AUTO: at LDT). A path that does
 * not work here falls back to the next that does, silently: ask sched_tls_probe. */
void sched_set_tls_path(enum sched_tls_path path);
/* The path switches use (probing first if need be): "ldt", "fsgsbase", "syscall". */
const char *sched_tls_path(void);
/* "auto", "ldt", "fsgsbase", "syscall" (NULL for another value). */
const char *sched_tls_path_name(enum sched_tls_path path);

enum sched_feature_state {
	SCHED_FEATURE_WORKS,
	SCHED_FEATURE_ABSENT,  /* not offered: FSGSBASE not in AT_HWCAP2 */
	SCHED_FEATURE_REFUSED, /* the system call failed: err */
	SCHED_FEATURE_FAULTS,  /* the probe died of signal sig, or saw a wrong base (sig 0) */
};

struct sched_feature {
	enum sched_feature_state state;
	const char *call; /* REFUSED: the system call that failed ("modify_ldt", "clone"...) */
	int err;          /* REFUSED: its errno */
	int sig; /* FAULTS: the signal, 0 if the probe saw a wrong base */
};

struct sched_tls_report {
	struct sched_feature ldt;      /* modify_ldt, then a selector load into %gs */
	struct sched_feature fsgsbase; /* AT_HWCAP2, then wrgsbase and rdgsbase */
	struct sched_feature syscall;  /* arch_prctl(ARCH_GET_FS) */
	enum sched_tls_path asked;     /* sched_set_tls_path's */
	enum sched_tls_path path;      /* what switches use: never AUTO */
	const char *why; /* path is not asked (and asked not AUTO): why, e.g. "this
			  * machine's LDT selectors fault"; else NULL */
	uint64_t probe_ns; /* how long the probes took (CLOCK_MONOTONIC) when they ran */
};

/* Run the probes not run yet in this process and fill *r. Outside a run or inside
 * one (not from a hook or a signal handler). */
void sched_tls_probe(struct sched_tls_report *r);

/* ---- threads ---------------------------------------------------------------- */

/* All-zero: joinable, a mapped stack of SCHED_DEFAULT_STACK_SIZE. */
struct sched_thread_attr {
	size_t stack_size; /* 0: default; rounded up to pages when we map it */
	void *stack_addr;  /* lowest address of a stack the caller provides (no guard) */
	bool detached;
};

/* Create a thread running start(arg), appended to the run queue; the caller goes on
 * running. EAGAIN: no memory for it; EINVAL: bad attributes; EPERM: outside a run. */
int sched_create(struct sched_thread **out, const struct sched_thread_attr *attr,
		 void *(*start)(void *), void *arg);
/* EDEADLK: t is the caller; EINVAL: t is detached or already being joined. */
int sched_join(struct sched_thread *t, void **retval);
/* Same with an absolute deadline; ETIMEDOUT leaves t joinable. */
int sched_timedjoin(struct sched_thread *t, void **retval, const struct timespec *deadline,
		    clockid_t clk);
/* EINVAL: already detached, or being joined. An exited thread is freed at once. */
int sched_detach(struct sched_thread *t);
_Noreturn void sched_exit(void *retval);
/* Go to the tail of the run queue if another thread is runnable. (Not named
 * sched_yield: <sched.h> has that one.) */
void sched_thread_yield(void);
/* The same, except that with priorities the thread that has waited longest runs, not
 * the highest (a spin-wait's yield: every other thread gets its turn in order). */
void sched_thread_yield_fifo(void);

/* The calling thread. Outside sched_run_main: the host, a descriptor with id 0 that
 * can own locks but not wait for other threads. Never NULL. */
struct sched_thread *sched_current(void);
int sched_thread_id(const struct sched_thread *t);
/* Its state alone: sched_thread_info's, without filling the rest. */
enum sched_state sched_thread_state(const struct sched_thread *t);

/* Preemption, for libreplay's timer signal handler: the current thread goes to the
 * tail of the run queue and the next runnable thread runs (a scheduling point:
 * deadlines are checked first). Async-signal-safe as far as sched goes: no malloc,
 * no stdio, no system call; it calls only the timeout_expired/now_ns, event_ready,
 * on_switch and on_resume hooks, which must then be async-signal-safe too. The
 * thread it switches to goes on with its own code (it was suspended in a sched_*
 * call or by an earlier preemption), as freely as if the interrupted one had
 * blocked: that is safe as long as the interrupted code was not inside libc, which
 * libreplay's PC check ensures.
 * Returns false, doing nothing, if the scheduler itself was interrupted (a sched_*
 * call or a hook is under way) or outside a run. Returns true once the thread runs
 * again (at once if no other thread was runnable). It does not touch the signal
 * mask, and the next thread must not run with the signal blocked: a periodic timer's
 * handler is installed without SA_NODEFER and unblocks the signal just before calling
 * it when it will switch (!sched_busy() && sched_preempt_useful()), returning at once
 * from a tick that comes then past a small per-thread depth (README.md says why:
 * with SA_NODEFER, ticks faster than a handler's round trip nest until the stack
 * overflows). Not SA_ONSTACK (the frame must stay on the preempted thread's stack). */
bool sched_preempt(void);
/* End t's wait now, if it is blocked (but not at a barrier): it leaves its queue and
 * deadline list, becomes runnable, and its blocking call returns status (a condition
 * variable wait after taking its mutex back). ESRCH if t is not blocked. */
int sched_interrupt(struct sched_thread *t, int status);
#define SCHED_HAS_INTERRUPT 1
/* Would sched_preempt switch threads or ask about a deadline or an event?
 * (Async-signal-safe.) */
bool sched_preempt_useful(void);
/* Is any thread but the current one runnable, whatever its priority? */
bool sched_others_runnable(void);
/* Does a thread wait for a deadline (a sleep, a timed wait)? */
bool sched_deadline_waiters(void);
/* In the child of fork(), from the forking thread: every other thread of the run is
 * left behind, never to run again (POSIX: the child has one thread); their memory
 * stays, and mutexes they held stay held. Threads the child creates run as usual. */
void sched_forked(void);
/* Has sched_forked been called in this process? */
bool sched_in_forked_child(void);
/* Is the scheduler's own code running (a sched_* call or a hook, possibly half way
 * through a switch)? Then sched_preempt refuses. (Async-signal-safe.) */
bool sched_busy(void);

/* ---- priorities (for a testing scheduler: libreplay's --hunt) ----------------------
 * Every thread starts at priority 0, and while all are equal the run queue is FIFO, as
 * above. Once any thread has another priority, every scheduling point runs the
 * runnable thread of the highest priority (FIFO among equals). A preempted thread goes
 * to the tail of its priority: a thread of the same or a higher one runs next, else it
 * goes on. A thread that yields runs only if no other thread can: a yield lets any
 * other run once (a spinning thread must let the one it waits for run, whatever their
 * priorities). Deterministic: the same calls with the same priorities make the same
 * choices. Priorities reset when a run ends. */
void sched_set_priority(struct sched_thread *t, int prio);
int sched_priority(const struct sched_thread *t);
/* Is a runnable thread of higher priority than the current one waiting (a wake-up or
 * a creation made one runnable)? The caller may then preempt. Always false while all
 * priorities are equal. (Async-signal-safe.) */
bool sched_preempt_wanted(void);
/* Changed each time a thread becomes runnable (created, woken, preempted, yielding) or
 * gets a priority: while it is unchanged, and the current thread too, no thread of a
 * higher priority can have become runnable since sched_preempt_wanted said none was
 * (libreplay's --hunt asks after each lock and unlock, 10^7 times). */
extern unsigned long sched_runnable_gen;

/* ---- debugging: every thread of the run ---------------------------------------- */

/* Iterate in id order: t = NULL gives the first. Includes exited threads not yet
 * joined, not the host. */
struct sched_thread *sched_thread_next(struct sched_thread *t);

struct sched_thread_info {
	int id;
	enum sched_state state;
	enum sched_wait_kind wait_kind; /* SCHED_WAIT_NONE unless blocked */
	const void *wait_obj;
	bool has_deadline;
	clockid_t clock;
	uint64_t deadline_ns;
	bool detached;
	/* Saved registers of a thread that is not running: its stack pointer and the PC
	 * it resumes at (sched_switch_resume). The CFI at that PC unwinds from sp. */
	void *sp;
	uintptr_t pc;
	void *stack_lo, *stack_hi; /* usable stack; the guard page is just below lo */
	/* Its thread pointer (the fs base while it runs): its TLS and glibc TCB are
	 * there. Thread 1's is the process's own. */
	void *tp;
	/* Who holds what it waits for: a mutex's owner, a write-locked rwlock's writer, the
	 * thread it joins (0: nobody, or not one thread). */
	int wait_owner;
	/* The mutexes it holds (most recently taken last): nheld of them, the first
	 * SCHED_HELD_MAX listed. An exited thread still lists those it did not unlock. */
	unsigned nheld;
	const struct sched_mutex *held[SCHED_HELD_MAX];
	int prio;
};
void sched_thread_info(const struct sched_thread *t, struct sched_thread_info *out);

/* One line per thread: "sched:   thread 2: blocked on mutex 0x... held by thread 3",
 * then "; holds mutex 0x..." for the mutexes it holds. */
void sched_dump(FILE *f);
/* "sched: deadlock: all N live threads are blocked" (and how many exited, not joined)
 * then sched_dump. */
void sched_report_deadlock(FILE *f);

/* ---- generic blocking, for the pthread layer ---------------------------------- */

/* Block the current thread on q (may be NULL: wait for the deadline only) until
 * sched_wake_one/all picks it (0) or the deadline passes (ETIMEDOUT). EINVAL: bad
 * deadline or clock. Whatever the caller guards must be re-checked by it. */
int sched_block(struct sched_waitq *q, const struct timespec *deadline, clockid_t clk);
/* Make the first waiter of q runnable (tail of the run queue); returns it, or NULL. */
struct sched_thread *sched_wake_one(struct sched_waitq *q);
/* Make all waiters runnable, in queue order; returns how many. */
int sched_wake_all(struct sched_waitq *q);

/* Wait for something outside the scheduler (a descriptor's readiness, say), which
 * obj describes to the event_ready hook: blocks until that hook says yes (0), the
 * deadline passes (ETIMEDOUT) or sched_interrupt. obj must stay valid meanwhile.
 * While every thread waits, idle_events lets time pass: no deadlock is reported. */
int sched_wait_event(const void *obj, const struct timespec *deadline, clockid_t clk);

/* Sleep for a relative duration on CLOCK_MONOTONIC (EINVAL if it is invalid). */
int sched_sleep(const struct timespec *duration);
/* Sleep until an absolute deadline. */
int sched_sleep_until(const struct timespec *deadline, clockid_t clk);

/* ---- synchronization --------------------------------------------------------
 * Every object is valid all-zero (except a barrier, which needs its count) and fits
 * in the glibc type the pthread layer stores it in (static-asserted in
 * sched_impl.h). Waiters queue FIFO; a release hands the object to the first waiter. */

/* Mutex: all-zero = unlocked, SCHED_MUTEX_NORMAL. `type` sits at the offset of
 * glibc's __kind and uses its values, so glibc's static initializers for recursive
 * and error-checking mutexes work too. */
enum { SCHED_MUTEX_NORMAL = 0, SCHED_MUTEX_RECURSIVE = 1, SCHED_MUTEX_ERRORCHECK = 2 };
struct sched_mutex {
	int owner;      /* id of the owner, meaningful while count > 0 */
	unsigned count; /* 0: unlocked; > 1 only for a recursive mutex */
	int pad0[2];
	int type; /* SCHED_MUTEX_*; glibc's adaptive (3) counts as normal */
	int pad1;
	struct sched_waitq waiters;
};
int sched_mutex_init(struct sched_mutex *m, int type);
int sched_mutex_destroy(struct sched_mutex *m); /* EBUSY if locked or waited for */
/* NORMAL relocked by its owner blocks for ever (deadlock report), as in glibc;
 * ERRORCHECK returns EDEADLK; RECURSIVE counts (EAGAIN on overflow). */
int sched_mutex_lock(struct sched_mutex *m);
int sched_mutex_trylock(struct sched_mutex *m); /* EBUSY */
int sched_mutex_timedlock(struct sched_mutex *m, const struct timespec *deadline,
			  clockid_t clk);
/* EPERM for RECURSIVE/ERRORCHECK not held by the caller. NORMAL does not check
 * (like glibc): it unlocks whoever calls, and unlocking it unlocked does nothing. */
int sched_mutex_unlock(struct sched_mutex *m);

/* Condition variable: all-zero = no waiters. Uses 16 of pthread_cond_t's 48 bytes. */
struct sched_cond {
	struct sched_waitq waiters;
};
int sched_cond_destroy(struct sched_cond *c); /* EBUSY if threads wait */
/* EPERM: m is RECURSIVE/ERRORCHECK and not held. The mutex is released entirely
 * (all recursion levels) and taken back, even after ETIMEDOUT. No spurious wakeups. */
int sched_cond_wait(struct sched_cond *c, struct sched_mutex *m);
int sched_cond_timedwait(struct sched_cond *c, struct sched_mutex *m,
			 const struct timespec *deadline, clockid_t clk);
/* The same wait without taking m back: it returns (0, ETIMEDOUT, or sched_interrupt's
 * status) with m released, for a caller that takes it back itself (the pthread layer,
 * where a signal's handler runs in between, as in glibc). EPERM and EINVAL (a bad
 * deadline) leave m as it was; the caller restores a recursive mutex's count. */
int sched_cond_wait_unlocked(struct sched_cond *c, struct sched_mutex *m,
			     const struct timespec *deadline, clockid_t clk);
int sched_cond_signal(struct sched_cond *c);    /* wakes the longest waiter */
int sched_cond_broadcast(struct sched_cond *c); /* wakes all, in wait order */

/* Counting semaphore: all-zero = value 0. */
#define SCHED_SEM_VALUE_MAX INT_MAX
struct sched_sem {
	struct sched_waitq waiters;
	unsigned value;
	int pad;
};
int sched_sem_init(struct sched_sem *s, unsigned value); /* EINVAL above the max */
int sched_sem_destroy(struct sched_sem *s);              /* EBUSY if threads wait */
int sched_sem_wait(struct sched_sem *s);
int sched_sem_trywait(struct sched_sem *s); /* EAGAIN */
int sched_sem_timedwait(struct sched_sem *s, const struct timespec *deadline, clockid_t clk);
int sched_sem_post(struct sched_sem *s); /* EOVERFLOW */
int sched_sem_getvalue(struct sched_sem *s, int *value);

/* Barrier: needs sched_barrier_init (count 0 is EINVAL on wait). */
#define SCHED_BARRIER_SERIAL_THREAD (-1) /* = PTHREAD_BARRIER_SERIAL_THREAD */
struct sched_barrier {
	struct sched_waitq waiters;
	unsigned count;   /* threads per round */
	unsigned arrived; /* this round so far */
};
int sched_barrier_init(struct sched_barrier *b, unsigned count); /* EINVAL for 0 */
int sched_barrier_destroy(struct sched_barrier *b);              /* EBUSY if threads wait */
/* The last thread of each round returns SCHED_BARRIER_SERIAL_THREAD, the others 0. */
int sched_barrier_wait(struct sched_barrier *b);

/* Read-write lock: all-zero = unlocked. Policy: FIFO. Requests are granted in
 * arrival order; the readers at the head of the queue are granted together, up to
 * the first writer. A reader arriving while anyone waits queues (so writers do not
 * starve), unless it already holds a read lock (so recursive read locks cannot
 * deadlock behind a waiting writer, as POSIX requires). */
struct sched_rwlock {
	struct sched_waitq waiters; /* readers and writers, by wait_kind */
	unsigned readers;           /* read locks held */
	int writer;                 /* 1 while write-locked */
	int wowner;                 /* id of the writer */
	int pad;
};
int sched_rwlock_destroy(struct sched_rwlock *l); /* EBUSY if locked or waited for */
int sched_rwlock_rdlock(struct sched_rwlock *l);
int sched_rwlock_tryrdlock(struct sched_rwlock *l); /* EBUSY */
int sched_rwlock_timedrdlock(struct sched_rwlock *l, const struct timespec *deadline,
			     clockid_t clk);
int sched_rwlock_wrlock(struct sched_rwlock *l); /* EDEADLK if the caller writes */
int sched_rwlock_trywrlock(struct sched_rwlock *l); /* EBUSY */
int sched_rwlock_timedwrlock(struct sched_rwlock *l, const struct timespec *deadline,
			     clockid_t clk);
int sched_rwlock_unlock(struct sched_rwlock *l); /* EPERM: not locked, or another writes */

#ifdef __cplusplus
}
#endif
#endif
