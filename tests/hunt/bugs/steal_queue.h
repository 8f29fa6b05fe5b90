/* steal_queue.h: the work-stealing queue of steal_slot.c and steal_atomic.c, whose
 * bug it has (SCTBench's chess WorkStealQueue and InterlockedWorkStealQueue). The
 * owner pushes items into a ring of two slots and pops the newest; a thief takes the
 * oldest: it claims it by moving the head, checks the claim against the tail, and
 * only then reads the slot. The owner's room check counts a claimed slot as free, so
 * if a thief is switched out between its check and its read while the owner pushes
 * twice, the thief reads the newer item and the claimed one is never done.
 * The program that includes it defines first what tells the two apart:
 *   thieves_lock       the thieves' lock's type, THIEVES_UNLOCKED its initial value,
 *                      lock() and unlock() taking and leaving it
 *   ACCESSOR           the attributes of get() and set(), the head's and tail's accessors
 *   THIEVES            how many thieves, each stealing twice
 * -DFIXED: the owner keeps one slot spare, so a claimed slot is never refilled. */
#ifndef STEAL_QUEUE_H
#define STEAL_QUEUE_H

#define SLOTS 2
#define ROUNDS 2

static long head, tail; /* items head .. tail-1 are in the ring */
static int ring[SLOTS];
static int done[2 * ROUNDS];
static thieves_lock thieves = THIEVES_UNLOCKED;

ACCESSOR static long get(long *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

ACCESSOR static void set(long *v, long x)
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
	pthread_t t[THIEVES];
	int item;
	for (int i = 0; i < THIEVES; i++)
		pthread_create(&t[i], NULL, thief, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		push(2 * r);
		push(2 * r + 1);
		if (pop(&item))
			__atomic_fetch_add(&done[item], 1, __ATOMIC_SEQ_CST);
	}
	while (pop(&item))
		__atomic_fetch_add(&done[item], 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < THIEVES; i++)
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

#endif
