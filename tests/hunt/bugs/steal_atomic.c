/* steal_slot.c's bug with atomics alone (SCTBench's chess InterlockedWorkStealQueue):
 * the thieves' lock is a test-and-set spin lock (an atomic exchange; a thief that finds
 * it taken yields), so no thread makes a synchronization call between its creation and
 * its end: the scheduler's only steps in the owner's pushes and pops and in a thief's
 * steal are its slices' ends. A thief reads a slot the owner has already reused: it
 * claims the oldest item by moving the head, checks the claim against the tail, and
 * only then reads the slot; the owner's room check counts a claimed slot as free, so
 * if the thief is switched out between its check and its read while the owner pushes
 * twice, the thief reads the newer item and the claimed one is never done. Two
 * thieves, each stealing twice: a program of a few hundred counts. The queue is
 * steal_queue.h's.
 * -DFIXED: the owner keeps one slot spare, so a claimed slot is never refilled. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

typedef int thieves_lock; /* a spin lock: 1 taken */
#define THIEVES_UNLOCKED 0

static void lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_SEQ_CST))
		sched_yield();
}

static void unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_SEQ_CST);
}

/* Out of line, as std::atomic's members are at -O0: each access a call and a return
 * (counting points), the atomic instruction inside. */
#define ACCESSOR __attribute__((noinline))
#define THIEVES 2

#include "steal_queue.h"
