/* Atomicity: a thief reads a slot the owner has already reused. The owner pushes
 * items into a ring of two slots and pops the newest; a thief takes the oldest: it
 * claims it by moving the head, checks the claim against the tail, and only then
 * reads the slot. The owner's room check counts a claimed slot as free, so if the
 * thief is switched out between its check and its read while the owner pushes
 * twice, the thief reads the newer item and the claimed one is never done (SCTBench's
 * chess WorkStealQueue: a program of a few hundred counts, a window of three loads).
 * The queue is steal_queue.h's; here the thieves' lock is a mutex, one thief.
 * -DFIXED: the owner keeps one slot spare, so a claimed slot is never refilled. */
#include <pthread.h>
#include <stdio.h>

typedef pthread_mutex_t thieves_lock;
#define THIEVES_UNLOCKED PTHREAD_MUTEX_INITIALIZER
#define lock pthread_mutex_lock
#define unlock pthread_mutex_unlock
#define ACCESSOR
#define THIEVES 1

#include "steal_queue.h"
