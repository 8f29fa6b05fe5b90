/* tls: __thread and _Thread_local variables (ints, arrays, structs, initialized
 * and zero) and errno belong to each thread: every thread starts from the initial
 * values, whatever its creator did to its own (a thread created by a thread too),
 * keeps its own across switches and preemptions, and a pointer to a thread's
 * variable, handed to another thread, reads and writes the owner's. Functions with
 * stack buffers switch threads in their middle, under the stack protector. The C
 * library's per-thread state too: errno, and dlerror's pending error.
 * CFLAGS: -fstack-protector-strong
 */
#include "pt_test.h"

#include <dlfcn.h>
#include <fcntl.h>

#define NT 4      /* workers 1..NT; worker 1 also creates worker NT + 1 */
#define SPINS 10000000

struct point {
	int x, y;
	char name[8];
};

__thread int ti = 42;
__thread int tz;
_Thread_local long tarr[4] = {1, 2, 3, 4};
_Thread_local char tbuf[64];
__thread struct point tpt = {7, -7, "seven"};
_Thread_local struct point tzpt;
static __thread volatile long spins;

static pthread_barrier_t bar;
static int *ti_of[NT + 2];   /* each worker's &ti, &tz and &tpt */
static int *tz_of[NT + 2];
static struct point *pt_of[NT + 2];

enum { FRESH, KEPT, ERRNO, PEEK, POKE, GUARD, SPIN, CHILD, DLERROR, NCHECK };
static const char *what[NCHECK] = {"starts fresh", "keeps its values", "keeps its errno",
				   "reads a neighbour's through a pointer",
				   "sees a neighbour's write", "guarded frames", "spins",
				   "its child starts fresh", "has its own dlerror"};
static int ok[NT + 2][NCHECK];

static int fresh(void)
{
	int zero = 1;
	for (size_t i = 0; i < sizeof tbuf; i++)
		zero &= tbuf[i] == 0;
	return ti == 42 && tz == 0 && tarr[0] == 1 && tarr[1] == 2 && tarr[2] == 3 &&
	       tarr[3] == 4 && zero && tpt.x == 7 && tpt.y == -7 &&
	       !strcmp(tpt.name, "seven") && tzpt.x == 0 && tzpt.y == 0 && !tzpt.name[0] &&
	       spins == 0;
}

static void make_mine(int id)
{
	ti = 100 * id;
	tz = id;
	for (int i = 0; i < 4; i++)
		tarr[i] = 10 * id + i;
	snprintf(tbuf, sizeof tbuf, "thread %d", id);
	tpt.x = id;
	tpt.y = -id;
	snprintf(tpt.name, sizeof tpt.name, "t%d", id);
	tzpt.x = 2 * id;
}

/* tz as the neighbour left it: id + 1000 */
static int still_mine(int id, int tz_want)
{
	char want[64];
	snprintf(want, sizeof want, "thread %d", id);
	int arr = 1;
	for (int i = 0; i < 4; i++)
		arr &= tarr[i] == 10 * id + i;
	char name[8];
	snprintf(name, sizeof name, "t%d", id);
	return ti == 100 * id && tz == tz_want && arr && !strcmp(tbuf, want) && tpt.x == id &&
	       tpt.y == -id && !strcmp(tpt.name, name) && tzpt.x == 2 * id;
}

/* A stack buffer (so -fstack-protector-strong guards the frame) live across
 * switches to other threads, checked again on return. */
static int __attribute__((noinline)) guarded(int id)
{
	char buf[48];
	snprintf(buf, sizeof buf, "guarded frame of thread %d", id);
	for (int i = 0; i < 3; i++)
		sched_yield();
	pthread_barrier_wait(&bar);
	char want[48];
	snprintf(want, sizeof want, "guarded frame of thread %d", id);
	return !strcmp(buf, want);
}

static void *child(void *arg)
{
	int id = (int)(long)arg;
	ok[id][FRESH] = fresh();
	make_mine(id);
	sched_yield();
	ok[id][KEPT] = still_mine(id, id);
	return NULL;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	ok[id][FRESH] = fresh();
	/* main's failed dlopen is main's; ours, after a switch, is ours */
	ok[id][DLERROR] = dlerror() == NULL;
	if (id == 2)
		dlopen("/nonexistent/tls-test.so", RTLD_NOW);
	make_mine(id);
	ti_of[id] = &ti;
	tz_of[id] = &tz;
	pt_of[id] = &tpt;
	/* errno: set by a failing call, then every thread runs before we look again */
	if (id % 2)
		close(-1); /* EBADF */
	else
		open("/nonexistent/tls-test", O_RDONLY); /* ENOENT */
	int want_errno = id % 2 ? EBADF : ENOENT;
	pthread_barrier_wait(&bar);
	ok[id][ERRNO] = errno == want_errno;

	/* the neighbour's variables, through its pointers */
	int n = id % NT + 1;
	char name[8];
	snprintf(name, sizeof name, "t%d", n);
	ok[id][PEEK] = *ti_of[n] == 100 * n && pt_of[n]->x == n && !strcmp(pt_of[n]->name, name);
	*tz_of[n] = n + 1000;
	ok[id][GUARD] = guarded(id);
	ok[id][POKE] = tz == id + 1000;
	ok[id][DLERROR] &= (dlerror() != NULL) == (id == 2) && dlerror() == NULL;

	if (id == 1) {
		pthread_t c;
		if (pthread_create(&c, NULL, child, (void *)(long)(NT + 1)) ||
		    pthread_join(c, NULL))
			die("pthread_create");
		ok[id][CHILD] = ok[NT + 1][FRESH] && ok[NT + 1][KEPT];
	} else {
		ok[id][CHILD] = 1;
	}

	/* a long loop on our own variable: preemptions land in it */
	for (long i = 0; i < SPINS; i++)
		spins++;
	ok[id][SPIN] = spins == SPINS;
	ok[id][KEPT] = still_mine(id, id + 1000);
	return NULL;
}

int main(void)
{
	int main_fresh = fresh();
	make_mine(0);
	errno = EDOM;
	dlopen("/nonexistent/tls-main.so", RTLD_NOW); /* an error pending for main */
	pthread_barrier_init(&bar, NULL, NT);
	pthread_t t[NT + 1];
	for (long i = 1; i <= NT; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			die("pthread_create");
	for (int i = 1; i <= NT; i++)
		pthread_join(t[i], NULL);
	CHECK("main starts fresh", main_fresh);
	CHECK("main keeps its values", still_mine(0, 0));
	CHECK("main keeps its errno", errno == EDOM);
	CHECK("main keeps its dlerror", dlerror() != NULL);
	for (int id = 1; id <= NT; id++)
		for (int k = 0; k < NCHECK; k++)
			printf("thread %d %s: %s\n", id, what[k], ok[id][k] ? "yes" : "NO");
	printf("child starts fresh: %s\n", ok[NT + 1][FRESH] ? "yes" : "NO");
	printf("child keeps its values: %s\n", ok[NT + 1][KEPT] ? "yes" : "NO");
	return 0;
}
