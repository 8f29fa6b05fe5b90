/* attrs: thread attributes: defaults, setters refusing bad values, stack size and a
 * caller-provided stack (the thread's locals live there; pthread_getattr_np agrees),
 * detached threads, names, scheduling parameters, concurrency, affinity. */
#include "pt_test.h"

static int on_stack(pthread_attr_t *a, void *p)
{
	void *addr;
	size_t size;
	pthread_attr_getstack(a, &addr, &size);
	return (char *)p >= (char *)addr && (char *)p < (char *)addr + size;
}

static size_t want_size;
static char *user_stack;
static size_t user_size;

static void *check_stack(void *arg)
{
	pthread_attr_t a;
	int local = 0, detach = -1;
	size_t size = 0;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstacksize(&a, &size);
	pthread_attr_getdetachstate(&a, &detach);
	printf("  getattr_np: stack size within 64 KiB of %zu: %s\n", want_size,
	       size + 65536 >= want_size && size <= want_size + 65536 ? "yes" : "NO");
	printf("  getattr_np: a local is on that stack: %s\n",
	       on_stack(&a, &local) ? "yes" : "NO");
	printf("  getattr_np: joinable: %s\n", detach == PTHREAD_CREATE_JOINABLE ? "yes" : "NO");
	if (user_stack) {
		char *p = (char *)&local;
		printf("  a local is on the caller's stack: %s\n",
		       p >= user_stack && p < user_stack + user_size ? "yes" : "NO");
	}
	pthread_attr_destroy(&a);
	return NULL;
}

static sem_t go, done;

static void *detached(void *arg)
{
	pthread_attr_t a;
	int detach = -1;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getdetachstate(&a, &detach);
	pthread_attr_destroy(&a);
	sem_wait(&go);
	printf("  detached thread: getattr_np says detached: %s\n",
	       detach == PTHREAD_CREATE_DETACHED ? "yes" : "NO");
	sem_post(&done);
	return NULL;
}

static void *named(void *arg)
{
	char buf[32];
	SHOW(pthread_setname_np(pthread_self(), "worker-7"));
	SHOW(pthread_getname_np(pthread_self(), buf, sizeof buf));
	printf("  name: %s\n", buf);
	SHOW(pthread_setname_np(pthread_self(), "a-name-too-long-for-it"));
	SHOW(pthread_getname_np(pthread_self(), buf, 4));
	return NULL;
}

int main(void)
{
	pthread_attr_t a;
	int v = -1;
	size_t sz = 0;
	struct sched_param sp = {.sched_priority = -1};
	pthread_t t;

	printf("-- defaults\n");
	pthread_attr_init(&a);
	pthread_attr_getdetachstate(&a, &v);
	CHECK("joinable", v == PTHREAD_CREATE_JOINABLE);
	pthread_attr_getscope(&a, &v);
	CHECK("system scope", v == PTHREAD_SCOPE_SYSTEM);
	pthread_attr_getinheritsched(&a, &v);
	CHECK("inherit sched", v == PTHREAD_INHERIT_SCHED);
	pthread_attr_getschedpolicy(&a, &v);
	CHECK("SCHED_OTHER", v == SCHED_OTHER);
	pthread_attr_getschedparam(&a, &sp);
	CHECK("priority 0", sp.sched_priority == 0);
	pthread_attr_getguardsize(&a, &sz);
	CHECK("guard size one page", sz == (size_t)sysconf(_SC_PAGESIZE));
	pthread_attr_getstacksize(&a, &sz);
	CHECK("stack size at least 64 KiB", sz >= 65536);

	printf("-- setters\n");
	SHOW(pthread_attr_setdetachstate(&a, 42));
	SHOW(pthread_attr_setscope(&a, PTHREAD_SCOPE_PROCESS));
	SHOW(pthread_attr_setscope(&a, 42));
	SHOW(pthread_attr_setinheritsched(&a, 42));
	SHOW(pthread_attr_setschedpolicy(&a, 42));
	SHOW(pthread_attr_setstacksize(&a, 1000));
	SHOW(pthread_attr_setguardsize(&a, 3 * 4096));
	pthread_attr_getguardsize(&a, &sz);
	printf("guard size now %zu\n", sz);
	SHOW(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED));
	SHOW(pthread_attr_setschedpolicy(&a, SCHED_OTHER));
	sp.sched_priority = 0;
	SHOW(pthread_attr_setschedparam(&a, &sp));
	pthread_attr_destroy(&a);

	printf("-- stack size 256 KiB\n");
	pthread_attr_init(&a);
	want_size = 256 * 1024;
	SHOW(pthread_attr_setstacksize(&a, want_size));
	pthread_attr_getstacksize(&a, &sz);
	printf("  getstacksize %zu\n", sz);
	pthread_create(&t, &a, check_stack, NULL);
	pthread_join(t, NULL);
	pthread_attr_destroy(&a);

	printf("-- caller's stack of 512 KiB\n");
	user_size = 512 * 1024;
	if (posix_memalign((void **)&user_stack, 4096, user_size))
		die("posix_memalign");
	pthread_attr_init(&a);
	SHOW(pthread_attr_setstack(&a, user_stack, user_size));
	void *addr;
	pthread_attr_getstack(&a, &addr, &sz);
	CHECK("getstack gives it back", addr == user_stack && sz == user_size);
	want_size = user_size;
	pthread_create(&t, &a, check_stack, NULL);
	pthread_join(t, NULL);
	pthread_attr_destroy(&a);
	free(user_stack);
	user_stack = NULL;

	printf("-- detached\n");
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	pthread_attr_init(&a);
	SHOW(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED));
	pthread_create(&t, &a, detached, NULL);
	pthread_attr_destroy(&a);
	SHOW(pthread_join(t, NULL));
	sem_post(&go);
	sem_wait(&done);

	printf("-- names\n");
	pthread_create(&t, NULL, named, NULL);
	pthread_join(t, NULL);

	printf("-- scheduling, concurrency, affinity\n");
	sp.sched_priority = 0;
	SHOW(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp));
	sp.sched_priority = 5;
	SHOW(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp));
	v = -1;
	SHOW(pthread_getschedparam(pthread_self(), &v, &sp));
	CHECK("SCHED_OTHER, priority 0", v == SCHED_OTHER && sp.sched_priority == 0);
	SHOW(pthread_setconcurrency(4));
	printf("concurrency %d\n", pthread_getconcurrency());
	SHOW(pthread_setconcurrency(-1));
	cpu_set_t set;
	CPU_ZERO(&set);
	SHOW(pthread_getaffinity_np(pthread_self(), sizeof set, &set));
	CHECK("some CPU", CPU_COUNT(&set) > 0);
	SHOW(pthread_setaffinity_np(pthread_self(), sizeof set, &set));
	return 0;
}
