/* steal_slot.c's bug with atomics alone (SCTBench's chess InterlockedWorkStealQueue):
 * the thieves' lock is a test-and-set spin lock (an atomic exchange; a thief that finds
 * it taken yields), so no thread makes a synchronization call between its creation and
 * its end: the scheduler's only steps in the owner's pushes and pops and in a thief's
 * steal are its slices' ends. A thief reads a slot the owner has already reused: it
 * claims the oldest item by moving the head, checks the claim against the tail, and
 * only then reads the slot; the owner's room check counts a claimed slot as free, so
 * if the thief is switched out between its check and its read while the owner pushes
 * twice, the thief reads the newer item and the claimed one is never done. Two
 * thieves, each stealing twice: a program of a few hundred counts.
 * -DFIXED: the owner keeps one slot spare, so a claimed slot is never refilled. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>


#define SLOTS 2
#define ROUNDS 2

static long head, tail; /* items head .. tail-1 are in the ring */
static int ring[SLOTS];
static int done[2 * ROUNDS];
static int thieves; /* the thieves' spin lock: 1 taken */

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
__attribute__((noinline)) static long get(long *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

__attribute__((noinline)) static void set(long *v, long x)
{
	__atomic_store_n(v, x, __ATOMIC_SEQ_CST);
}

static int steal(int *item)
{
	int found = 0;
	lock(&thieves);
	long h = get(&head);
	set(&head, h + 1);
	if (h < get(&tail)) {
		*item = ring[h % SLOTS]; /* the bug: the owner may have refilled it */
		found = 1;
	} else {
		set(&head, h); /* empty, or the owner's pop won the last item */
	}
	unlock(&thieves);
	return found;
}

static int pop(int *item)
{
	long t = get(&tail) - 1;
	set(&tail, t);
	if (get(&head) <= t) {
		*item = ring[t % SLOTS];
		return 1;
	}
	/* a thief took it, or the ring is empty: settle under the thieves' lock */
	set(&tail, t + 1);
	lock(&thieves);
	int found = 0;
	t = get(&tail) - 1;
	if (get(&head) <= t) {
		set(&tail, t);
		*item = ring[t % SLOTS];
		found = 1;
	}
	unlock(&thieves);
	return found;
}

#ifdef FIXED
#define ROOM (SLOTS - 1) /* one slot spare: a claimed slot is never refilled */
#else
#define ROOM SLOTS /* the bug: a slot claimed but not yet read counts as free */
#endif

static void push(int item)
{
	long t = get(&tail);
	while (t >= get(&head) + ROOM) { /* full: the owner does its newest item now */
		int own;
		if (pop(&own))
			__atomic_fetch_add(&done[own], 1, __ATOMIC_SEQ_CST);
		t = get(&tail);
	}
	ring[t % SLOTS] = item;
	set(&tail, t + 1);
}

static void *thief(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		int item;
		if (steal(&item))
			__atomic_fetch_add(&done[item], 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int item;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thief, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		push(2 * r);
		push(2 * r + 1);
		if (pop(&item))
			__atomic_fetch_add(&done[item], 1, __ATOMIC_SEQ_CST);
	}
	while (pop(&item))
		__atomic_fetch_add(&done[item], 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int bad = 0;
	for (int i = 0; i < 2 * ROUNDS; i++)
		if (done[i] != 1) {
			printf("item %d done %d times\n", i, done[i]);
			bad = 1;
		}
	if (!bad)
		printf("every item done once\n");
	return bad;
}
