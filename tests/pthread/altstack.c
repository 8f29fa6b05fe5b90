/* altstack: sigaltstack is per thread. A thread starts with none (SS_DISABLE); an
 * SA_ONSTACK handler runs on the alternate stack of the thread it is delivered to
 * (sent by itself or by another thread), and on the thread's own stack where there is
 * none or it is disabled; inside, sigaltstack reports SS_ONSTACK and refuses a change
 * (EPERM); a nested handler stays on it; too small a stack is ENOMEM. A thread
 * without one that sets one in its handler has none again after the handler
 * returns (sigreturn restores the setting of the time the signal came). */
#include "pt_test.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define NT 3
#define ALT_SIZE (64 * 1024)

struct where {
	char *lo, *hi;         /* the thread's alternate stack, or NULL */
	volatile int runs;
	volatile int on_alt;   /* runs whose frame was inside it */
	volatile int onstack;  /* runs where sigaltstack said SS_ONSTACK */
	volatile int eperm;    /* runs where changing it failed with EPERM */
	volatile int nested_on_alt;
};

static __thread struct where *mine;

static bool inside(const struct where *w, const void *p)
{
	return w->lo && (const char *)p >= w->lo && (const char *)p < w->hi;
}

static void on_usr2(int sig)
{
	char here;
	if (inside(mine, &here))
		mine->nested_on_alt++;
}

static void on_usr1(int sig)
{
	char here;
	struct where *w = mine;
	w->runs++;
	if (inside(w, &here))
		w->on_alt++;
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK))
		w->onstack++;
	stack_t other = {.ss_sp = malloc(ALT_SIZE), .ss_size = ALT_SIZE};
	if (sigaltstack(&other, NULL) == -1 && errno == EPERM)
		w->eperm++;
	free(other.ss_sp);
	raise(SIGUSR2);
}

static void set_alt(struct where *w)
{
	stack_t ss = {.ss_sp = malloc(ALT_SIZE), .ss_size = ALT_SIZE};
	w->lo = ss.ss_sp;
	w->hi = w->lo + ALT_SIZE;
	if (sigaltstack(&ss, NULL) != 0)
		printf("sigaltstack: %s\n", strerror(errno));
}

static void report(const char *who, const struct where *w)
{
	printf("%s: %d runs, on its alternate stack %d, SS_ONSTACK %d, EPERM %d, nested there %d\n",
	       who, w->runs, w->on_alt, w->onstack, w->eperm, w->nested_on_alt);
}

static struct where wt[NT];
static sem_t ready[NT], go[NT];

/* Thread i: an alternate stack if i is even; takes one signal from itself and one
 * from main. */
static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	mine = &wt[i];
	stack_t cur;
	sigaltstack(NULL, &cur);
	if (!(cur.ss_flags & SS_DISABLE))
		printf("thread %d: starts with an alternate stack\n", i);
	if (i % 2 == 0)
		set_alt(mine);
	pthread_kill(pthread_self(), SIGUSR1);
	sem_post(&ready[i]);
	sem_wait(&go[i]); /* main's signal comes in this wait */
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);

	static struct where wmain;
	mine = &wmain;
	stack_t cur;
	sigaltstack(NULL, &cur);
	printf("main: no alternate stack at first: %s\n", cur.ss_flags & SS_DISABLE ? "yes" : "NO");
	stack_t small = {.ss_sp = malloc(1024), .ss_size = 1024};
	errno = 0;
	int r = sigaltstack(&small, NULL);
	printf("main: a 1 KiB stack: %d, errno %s\n", r, errno == ENOMEM ? "ENOMEM" : "other");
	free(small.ss_sp);
	raise(SIGUSR1); /* none yet: on main's own stack */
	set_alt(&wmain);
	raise(SIGUSR1);
	raise(SIGUSR1);
	stack_t off = {.ss_flags = SS_DISABLE};
	sigaltstack(&off, NULL);
	sigaltstack(NULL, &cur);
	printf("main: disabled: %s\n", cur.ss_flags & SS_DISABLE ? "yes" : "NO");
	raise(SIGUSR1); /* disabled: on main's stack again */
	report("main", &wmain);

	pthread_t t[NT];
	for (int i = 0; i < NT; i++) {
		sem_init(&ready[i], 0, 0);
		sem_init(&go[i], 0, 0);
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	}
	for (int i = 0; i < NT; i++) {
		sem_wait(&ready[i]);
		pthread_kill(t[i], SIGUSR1);
		sem_post(&go[i]);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], NULL);
		char name[16];
		snprintf(name, sizeof name, "thread %d", i);
		report(name, &wt[i]);
	}
	return 0;
}
