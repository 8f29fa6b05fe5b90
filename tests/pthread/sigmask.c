/* sigmask: pthread_sigmask blocks and unblocks (a blocked signal stays pending until
 * unblocked), pthread_kill to the calling thread runs the handler at once, signal 0
 * checks a thread exists, bad arguments are refused. tgkill of a thread's own id
 * honours that thread's mask. */
#include "pt_test.h"

#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void handler(int sig)
{
	got = sig;
}

static void *idle(void *arg)
{
	return NULL;
}

/* tgkill(getpid(), gettid()) from a thread that blocks the signal: pending in it. */
static void *self_tgkill(void *arg)
{
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	got = 0;
	SHOW(tgkill(getpid(), gettid(), SIGUSR1));
	sigpending(&pending);
	printf("tgkill to itself, blocked: handler ran %s, pending %s\n", got ? "yes" : "no",
	       sigismember(&pending, SIGUSR1) ? "yes" : "no");
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	printf("unblocked: handler ran %s\n", got == SIGUSR1 ? "yes" : "no");
	return NULL;
}

int main(void)
{
	sigset_t set, old, pending;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);

	SHOW(pthread_kill(pthread_self(), SIGUSR1));
	printf("handler ran: %s\n", got == SIGUSR1 ? "yes" : "no");

	got = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	SHOW(pthread_sigmask(SIG_BLOCK, &set, &old));
	printf("SIGUSR1 was blocked before: %s\n", sigismember(&old, SIGUSR1) ? "yes" : "no");
	SHOW(pthread_kill(pthread_self(), SIGUSR1));
	sigpending(&pending);
	printf("blocked: handler ran %s, pending %s\n", got ? "yes" : "no",
	       sigismember(&pending, SIGUSR1) ? "yes" : "no");
	SHOW(pthread_sigmask(SIG_UNBLOCK, &set, NULL));
	printf("unblocked: handler ran %s\n", got == SIGUSR1 ? "yes" : "no");
	SHOW(pthread_sigmask(SIG_SETMASK, NULL, &old));
	printf("SIGUSR1 blocked now: %s\n", sigismember(&old, SIGUSR1) ? "yes" : "no");
	SHOW(pthread_sigmask(42, &set, NULL));

	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	SHOW(pthread_kill(t, 0));
	pthread_join(t, NULL);
	SHOW(pthread_kill(pthread_self(), 0));
	SHOW(pthread_kill(pthread_self(), 4242));

	pthread_create(&t, NULL, self_tgkill, NULL);
	pthread_join(t, NULL);
	return 0;
}
