/* fork() while three threads live (issue 29): the child has one thread, the caller's.
 * In the child a counter only the other threads increment does not move, a mutex one
 * of them holds stays held, the atfork handlers ran in glibc's order (prepare last
 * registered first, child first registered first), and a thread the child creates
 * runs. The child reports by its exit status (its output is not the replay's: the
 * replay makes no child); the parent prints it, and its own handlers' order. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long counter;
static volatile int stop, holding;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t go;
static char order[64];

static void add(const char *s)
{
	strncat(order, s, sizeof order - strlen(order) - 1);
}
static void prep_a(void) { add("pA"); }
static void prep_b(void) { add("pB"); }
static void parent_a(void) { add("+A"); }
static void parent_b(void) { add("+B"); }
static void child_a(void) { add("cA"); }
static void child_b(void) { add("cB"); }

static void *spin(void *arg)
{
	while (!stop)
		counter++;
	return NULL;
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&held);
	holding = 1;
	sem_wait(&go); /* blocked, holding the mutex, until the parent posts */
	pthread_mutex_unlock(&held);
	return NULL;
}

static void *child_thread(void *arg)
{
	*(int *)arg = 42;
	return NULL;
}

static int child(void)
{
	int bad = 0;
	if (strcmp(order, "pBpAcAcB") != 0)
		bad |= 1;
	long c0 = counter;
	volatile long sum = 0;
	for (long i = 0; i < 20000000; i++) /* many time slices of the parent's */
		sum += i;
	usleep(20000);
	if (counter != c0)
		bad |= 2;
	if (pthread_mutex_trylock(&held) != EBUSY)
		bad |= 4;
	int v = 0;
	pthread_t t;
	if (pthread_create(&t, NULL, child_thread, &v) != 0 || pthread_join(t, NULL) != 0 || v != 42)
		bad |= 8;
	return bad;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_atfork(prep_a, parent_a, child_a);
	pthread_atfork(prep_b, parent_b, child_b);
	sem_init(&go, 0, 0);
	pthread_t t[3];
	pthread_create(&t[0], NULL, holder, NULL);
	pthread_create(&t[1], NULL, spin, NULL);
	pthread_create(&t[2], NULL, spin, NULL);
	while (counter < 100000 || !holding) /* the spinners run, the holder holds */
		sched_yield();
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		printf("fork or waitpid failed: %s\n", strerror(errno));
	stop = 1;
	sem_post(&go);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("handlers in the parent: %s; child exit %d (0: alone, mutex held, handlers in "
	       "order, its own thread ran)\n", order, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
