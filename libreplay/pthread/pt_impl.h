/* pt_impl.h: the pthread API layer's internal interface (docs/pthread.md).
 *
 * The layer defines pthread_*, sem_*, C11 <threads.h>, the sleep family and
 * sched_yield in libreplay.a, which comes before libc on the link line: the program's
 * calls resolve here and run on sched/'s green threads (libc's own internal calls use
 * hidden aliases and are unaffected). Every object keeps its state inside the glibc type,
 * cast to sched's struct (or to one of ours below), so static initializers work.
 *
 * None of this code is instrumented, so a preemption never lands in it: between two
 * sched_* calls that may switch, the layer runs alone and needs no locks. It does
 * call back into the program (destructors, cleanup handlers, once routines), and
 * other threads may run during those calls: re-read shared state after each. */
#ifndef PT_IMPL_H
#define PT_IMPL_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "green.h"
#include "engine/engine.h"

#define PT_HIDDEN __attribute__((visibility("hidden")))

/* A pthread_t is the struct sched_thread pointer. */
static inline struct sched_thread *pt_sched(pthread_t t)
{
	return (struct sched_thread *)t;
}

/* ---- per-thread state ------------------------------------------------------------- */

/* The cancellation point a thread is blocked in (pthread_cancel wakes it there). */
enum pt_wait { PT_WAIT_NONE, PT_WAIT_COND, PT_WAIT_JOIN, PT_WAIT_SEM, PT_WAIT_SLEEP, PT_WAIT_IO,
	       PT_WAIT_SIGNAL, /* sigwait, sigsuspend, pause: on its sigwaitq */
	       PT_WAIT_FUTEX, /* not a cancellation point: only a signal interrupts it */
	       PT_WAIT_MUTEX, PT_WAIT_RWLOCK /* the same */ };

/* What a sched wait returns when pthread_cancel interrupted it (sched_interrupt). */
#define PT_EINTERRUPTED ECANCELED

/* What a sched wait returns when a signal sent to the thread interrupted it. */
#define PT_ESIGNALED EINTR

/* A signal sent to a thread and not yet delivered (sig_deliver.c). */
struct pt_sigq {
	struct pt_sigq *next;
	siginfo_t info;
};

struct pt_specific {
	unsigned seq; /* the key's sequence number when the value was set */
	void *value;
};

struct pt_thread {
	int id;
	bool detached;
	bool exited;     /* finished its exit work; sched_exit follows at once */
	bool exiting;    /* in pthread_exit: no more cancellation */
	bool finishing;  /* past the cleanup handlers: the destructors run */
	bool user_stack; /* the stack came from pthread_attr_setstack */

	bool cancel_disabled; /* PTHREAD_CANCEL_DISABLE */
	bool cancel_async;    /* PTHREAD_CANCEL_ASYNCHRONOUS (acted on like deferred) */
	bool cancel_pending;
	enum pt_wait waiting;
	uint64_t io_seq; /* blocking-capable calls tried (io_park.c): names the next */

	void *(*fn)(void *);
	void *arg;
	void *retval; /* pthread_exit's value while the cleanup handlers run */

	/* Cleanup handlers, newest first: pthread_cleanup_push's buffers (glibc's
	 * macros, C without -fexceptions) and the old _pthread_cleanup_push ones. */
	__pthread_unwind_buf_t *cancel_bufs;
	struct _pthread_cleanup_buffer *cleanup_bufs;

	struct pt_tls_dtor *tls_dtors; /* thread_local destructors, newest first */
	struct pt_specific *spec; /* thread-specific data, indexed by key */
	unsigned nspec;

	pthread_mutex_t **robust; /* robust mutexes held */
	unsigned nrobust, robust_cap;

	int policy;
	struct sched_param param;
	char name[16]; /* "" until pthread_setname_np */

	/* Signals sent to this thread by the program (pthread_kill, pthread_sigqueue,
	 * raise), delivered by the layer at deterministic points (sig_deliver.c). Bit
	 * sig - 1 of a mask stands for signal sig. */
	uint64_t sigmask;             /* blocked (pthread_sigmask) */
	uint64_t sigpending;          /* the signals on sigq */
	struct pt_sigq *sigq;         /* oldest first */
	uint64_t sigwaiting;          /* in PT_WAIT_SIGNAL: the signals that end the wait */
	struct sched_waitq sigwaitq;  /* where it blocks in sigwait, sigsuspend, pause */
	/* Its alternate signal stack (sigaltstack), where the signals layer runs an
	 * SA_ONSTACK handler; none at creation, as in a new kernel thread. */
	bool alt_on;
	bool alt_autodisarm; /* SS_AUTODISARM */
	char *alt_sp;
	size_t alt_size;
};

/* A synchronization call (a lock, an unlock, a wait, a signal, a post, a create, a
 * join): a step of the hunting scheduler, which may preempt the caller just before
 * the call acts or at its first counting point after (rp_sync_begin/end; ret_: the
 * program's call). Around the whole call, in the function the program calls. */
#define PT_SYNC(expr)                                              \
	({                                                         \
		void *ret_ = __builtin_return_address(0);          \
		rp_sync_begin(ret_);                               \
		__typeof__(expr) r_ = (expr);                      \
		rp_sync_end(ret_);                                 \
		r_;                                                \
	})

/* A try that failed (trylock, sem_trywait): the thread may be polling for what another
 * holds, which only a switch can release; let the others run once (a yield the
 * replay repeats: the program's own result decides it). */
static inline int pt_try_failed(int err)
{
	if (err == EBUSY || err == EAGAIN)
		sched_thread_yield();
	return err;
}

/* The calling thread's record, created on first use for threads the layer did not
 * create (thread 1, which shares its record with the host: constructors and atexit
 * handlers run there, as in the main thread of a normal process). Never NULL. */
struct pt_thread *pt_self(void) PT_HIDDEN;
/* pt_fork.c: how many children fork(), posix_spawn, system and popen have made (a
 * pipe or socketpair made before one may have its other end in the child: io_rw.c,
 * io_park.c). */
extern unsigned pt_forks PT_HIDDEN;
/* This process is a child of fork(): it has one thread (the others were left behind,
 * sched_forked) and runs unrecorded, its blocking calls going to the kernel. */
extern bool pt_forked PT_HIDDEN;
/* Calls whose result is another process's doing, logged as INPUT CHILD (pt_fork.c):
 * the replay makes no child and sends no signal to another process. */
enum pt_outside_call { PT_CALL_FORK = 1, PT_CALL_UFORK, PT_CALL_SPAWN, PT_CALL_SPAWNP,
		       PT_CALL_SYSTEM, PT_CALL_KILL, PT_CALL_SIGQUEUE, PT_CALL_PIDFD_OPEN,
		       PT_CALL_EXEC };
/* Replaying: true, and *value the recorded result (-1: errno set as recorded); a
 * different call is a divergence. Otherwise false. */
bool pt_outside_replay(enum pt_outside_call call, int *value) PT_HIDDEN;
/* Recording: log the result (value, and err when it is -1); otherwise nothing. */
void pt_outside_record(enum pt_outside_call call, int value, int err) PT_HIDDEN;
/* syscall(SYS_exit) on a green thread (pt_end.c): that thread ends as the kernel ends
 * one, no handler or destructor run; the last one's ends the process, with the log's
 * END as _exit gives. */
_Noreturn void pt_exit_thread_raw(int status) PT_HIDDEN;
/* The record of t, or NULL if it has none (a thread the layer did not create and
 * that never called it). Thread 1 and the host always have theirs. */
struct pt_thread *pt_find(struct sched_thread *t) PT_HIDDEN;
/* Make room in the table for the next thread's id (ids only grow); ENOMEM. */
int pt_table_reserve_next(void) PT_HIDDEN;
/* Enter a new record (its id set). */
void pt_register(struct pt_thread *pt) PT_HIDDEN;
/* Forget and free a record (the main thread's is kept). */
void pt_release(struct pt_thread *pt) PT_HIDDEN;

/* pt_exit.c: run the cleanup handlers, then pt_finish. */
_Noreturn void pt_unwind(struct pt_thread *self) PT_HIDDEN;
/* Thread-specific data destructors, robust mutexes, then sched_exit. */
_Noreturn void pt_finish(struct pt_thread *self, void *retval) PT_HIDDEN;
/* pt_key.c */
void pt_run_destructors(struct pt_thread *self) PT_HIDDEN;
/* pt_tls_dtor.c: the thread_local destructors of a thread the layer created. */
void pt_run_tls_dtors(struct pt_thread *self) PT_HIDDEN;
/* pt_mutex.c: sched gave the caller m (`first`: not a recursive relock): the robust
 * bookkeeping; 0 or what the locking call returns (EOWNERDEAD: taken;
 * ENOTRECOVERABLE, EAGAIN: not taken). */
int pt_mutex_taken(pthread_mutex_t *m, bool first) PT_HIDDEN;
/* Lock m as a mutex wait that signals reach: the pending handlers run before it
 * waits, and a signal sent while it waits interrupts the wait, runs its handler and
 * it waits again, as in glibc. What sched_mutex_(timed)lock returns; no robust
 * bookkeeping. */
int pt_mutex_wait_lock(struct pt_thread *self, pthread_mutex_t *m, const struct timespec *deadline,
		       clockid_t clk, bool timed) PT_HIDDEN;
/* A condvar wait is about to release m entirely. */
void pt_mutex_releasing(pthread_mutex_t *m) PT_HIDDEN;
/* pt_mutex.c: at thread exit, mark the robust mutexes still held owner-dead and
 * release them. */
void pt_robust_release_all(struct pt_thread *self) PT_HIDDEN;

/* pt_cancel.c: end t's blocking wait in a cancellation point (pt->waiting says which)
 * with status, if it is blocked there right now; false if it is not. With
 * PT_ESIGNALED (a signal for its handler) a mutex or rwlock wait too. */
bool pt_interrupt(struct sched_thread *t, struct pt_thread *pt, int status) PT_HIDDEN;

/* ---- signals between threads (sig_deliver.c) ---------------------------------------- */

static inline uint64_t pt_sigbit(int sig)
{
	return 1ull << (sig - 1);
}

/* The signals layer (libreplay/signals/) queues signals on pt_thread's sigq and
 * delivers them at the points this layer's calls reach: */
/* How many signals are queued in all threads (0: no thread has one pending). */
extern unsigned pt_signals_queued PT_HIDDEN;
/* What running the pending signals did, for a blocking call they interrupted: no
 * handler ran, or the first handler that ran had SA_RESTART, or it had not. */
enum pt_handled { PT_HANDLED_NONE, PT_HANDLED_RESTART, PT_HANDLED_NORESTART };
/* Run the handlers of the pending signals self does not block, lowest number first:
 * the signals layer's sig_deliver, which that layer sets when it queues its first
 * signal (with none pending this is never called). */
extern enum pt_handled (*pt_deliver_hook)(struct pt_thread *self) PT_HIDDEN;
/* Forget what is still queued (the thread is gone). */
void pt_sigq_drop(struct pt_thread *pt) PT_HIDDEN;

/* A delivery point: the thread runs its pending unblocked signals' handlers here. */
static inline enum pt_handled pt_signals_check(struct pt_thread *self)
{
	if (self->sigpending & ~self->sigmask)
		return pt_deliver_hook(self);
	return PT_HANDLED_NONE;
}

/* ---- cancellation (pt_cancel.c) ----------------------------------------------------- */
_Noreturn void pt_act_cancel(struct pt_thread *self) PT_HIDDEN;

static inline bool pt_cancel_due(const struct pt_thread *self)
{
	return self->cancel_pending && !self->cancel_disabled && !self->exiting;
}

/* At the start of a cancellation point. Also a signal delivery point: a signal that
 * arrived while the thread ran would have been handled before it blocks. */
static inline void pt_testcancel(struct pt_thread *self)
{
	if (pt_cancel_due(self))
		pt_act_cancel(self);
	pt_signals_check(self);
}

/* Entering and leaving a blocking cancellation point. `interrupted`: the wait ended
 * because pthread_cancel interrupted it (its result must then not be used). */
static inline void pt_wait_begin(struct pt_thread *self, enum pt_wait what)
{
	self->waiting = what;
}

static inline enum pt_handled pt_wait_end(struct pt_thread *self, bool interrupted)
{
	self->waiting = PT_WAIT_NONE;
	if (interrupted && pt_cancel_due(self))
		pt_act_cancel(self);
	return pt_signals_check(self);
}

/* ---- time --------------------------------------------------------------------------- */

/* The clocks a deadline may be on: sched supports these two. */
static inline bool pt_clock_ok(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC;
}

/* Some timed calls check the deadline before anything else, as glibc's do. */
static inline bool pt_nsec_ok(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* pt_sleep.c: *dl = now on CLOCK_MONOTONIC (the recorded clock_gettime) plus sec
 * seconds and nsec nanoseconds (nsec below 10^9): a timed call's deadline. */
void pt_deadline_in(time_t sec, long nsec, struct timespec *dl) PT_HIDDEN;

/* ---- objects inside the glibc types --------------------------------------------------- */

/* pthread_cond_t: sched's condvar, then the clock of timed waits (all-zero:
 * CLOCK_REALTIME, as PTHREAD_COND_INITIALIZER wants). */
struct pt_cond {
	struct sched_cond c;
	clockid_t clock;
	unsigned seq; /* signals and broadcasts so far: did one come while a waiter ran
		       * a handler? */
};
_Static_assert(sizeof(struct pt_cond) <= sizeof(pthread_cond_t), "cond fits");
_Static_assert(CLOCK_REALTIME == 0, "an all-zero condvar waits on CLOCK_REALTIME");

/* Bits of struct sched_mutex's type above sched's (it reads type & 3). The first two
 * are glibc's own __kind bits, so its robust initializers would mean the same. */
#define PT_MUTEX_ROBUST          16
#define PT_MUTEX_OWNERDEAD       0x1000 /* the owner exited holding it */
#define PT_MUTEX_NOTRECOVERABLE  0x2000 /* unlocked while owner-dead */

/* pthread_mutexattr_t (an int): the type (0..3), then flags. */
#define PT_MA_TYPE_MASK   3
#define PT_MA_ROBUST      PT_MUTEX_ROBUST
#define PT_MA_PROTO_SHIFT 8 /* 2 bits: PTHREAD_PRIO_NONE/INHERIT/PROTECT */
#define PT_MA_CEIL_SHIFT  16

/* pthread_condattr_t, pthread_rwlockattr_t, pthread_barrierattr_t (ints). */
#define PT_CA_CLOCK_SHIFT 1 /* bit 0 unused: process-shared is refused */
#define PT_RA_KIND_SHIFT  1

/* pthread_attr_t. stacktop is the top of a caller's stack, as glibc keeps it (so that
 * pthread_attr_setstackaddr, whose address is the top, and pthread_attr_setstack agree). */
struct pt_attr {
	size_t stacksize; /* 0: the default */
	void *stacktop;   /* non-NULL: the caller provides the stack */
	size_t guardsize;
	int detachstate, scope, inheritsched, policy;
	struct sched_param param;
	int flags;
	uint64_t sigmask; /* signals 1..64, if PT_ATTR_SIGMASK */
};
#define PT_ATTR_SIGMASK 1
_Static_assert(sizeof(struct pt_attr) <= sizeof(pthread_attr_t), "attr fits");
_Static_assert(_NSIG - 1 <= 64, "the signals fit in a 64-bit mask");

static inline struct pt_attr *pt_attr(pthread_attr_t *a)
{
	return (struct pt_attr *)a;
}

/* pt_attr.c: what pthread_create uses when given no attributes. */
extern struct pt_attr pt_default_attr PT_HIDDEN;

/* ---- misc ---------------------------------------------------------------------------- */

/* Is the caller the scheduler itself (an idle hook sleeping, the current thread
 * blocked or exited), rather than a running green thread? Then sleeping functions
 * go to the kernel. */
bool pt_in_scheduler(void) PT_HIDDEN;
/* pt_mutexattr.c: the setpshared functions' answer (ENOTSUP with a note for shared). */
int pt_pshared(int pshared, const char *fn) PT_HIDDEN;

/* glibc no longer declares the old cleanup interface it still exports. */
void _pthread_cleanup_push(struct _pthread_cleanup_buffer *buf, void (*routine)(void *),
			   void *arg);
void _pthread_cleanup_pop(struct _pthread_cleanup_buffer *buf, int execute);
void _pthread_cleanup_push_defer(struct _pthread_cleanup_buffer *buf,
				 void (*routine)(void *), void *arg);
void _pthread_cleanup_pop_restore(struct _pthread_cleanup_buffer *buf, int execute);

/* The double-underscore names glibc exports for some functions (old binaries and
 * libgcc's thread detection use them): aliases of ours. */
#define PT_ALIAS(name, target) \
	extern __typeof(target) name __attribute__((alias(#target), copy(target)))

#endif
