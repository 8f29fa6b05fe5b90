/* sigwait: a thread that handles signals synchronously. The others block the
 * signals; one thread takes them with sigwait (from pthread_kill and from kill to
 * the whole process), sigwaitinfo gets pthread_sigqueue's values in order, and
 * and so do sigqueue's to the whole process, and sigtimedwait gives up with EAGAIN. */
#include "pt_test.h"

#include <signal.h>

static sem_t ack;

static const char *name(int sig)
{
	return sig == SIGUSR1 ? "SIGUSR1" : sig == SIGUSR2 ? "SIGUSR2" : sig == SIGTERM ? "SIGTERM"
									  : "other";
}

static void *waiter(void *arg)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	for (;;) {
		int sig = 0;
		int err = sigwait(&set, &sig);
		printf("sigwait = %s, got %s\n", ename(err), name(sig));
		if (sig == SIGTERM)
			return NULL;
		sem_post(&ack);
	}
}

static void *info_waiter(void *arg)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sem_post(&ack);
	for (int i = 0; i < 3; i++) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		printf("sigwaitinfo = SIGRTMIN%s, value %d, SI_QUEUE %s\n",
		       sig == SIGRTMIN ? "" : " (NO)", si.si_value.sival_int,
		       si.si_code == SI_QUEUE ? "yes" : "NO");
	}
	return NULL;
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread inherits it */
	sem_init(&ack, 0, 0);

	pthread_t t;
	pthread_create(&t, NULL, waiter, NULL);
	int sigs[] = {SIGUSR1, SIGUSR2, SIGUSR1};
	for (int i = 0; i < 3; i++) {
		int err = pthread_kill(t, sigs[i]);
		sem_wait(&ack); /* standard signals do not queue: one at a time */
		if (err)
			printf("pthread_kill = %s\n", ename(err));
	}
	/* Blocked everywhere: it waits for the thread in sigwait. */
	if (kill(getpid(), SIGTERM))
		printf("kill failed\n");
	pthread_join(t, NULL);

	pthread_create(&t, NULL, info_waiter, NULL);
	sem_wait(&ack);
	for (int v = 1; v <= 3; v++)
		if (pthread_sigqueue(t, SIGRTMIN, (union sigval){.sival_int = v * 100}))
			printf("pthread_sigqueue failed\n");
	pthread_join(t, NULL);

	/* The same through sigqueue to the whole process: blocked everywhere, so the
	 * thread in sigwaitinfo takes them, in order. */
	pthread_create(&t, NULL, info_waiter, NULL);
	sem_wait(&ack);
	for (int v = 1; v <= 3; v++)
		if (sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = v * 1000}))
			printf("sigqueue failed\n");
	pthread_join(t, NULL);

	siginfo_t si;
	struct timespec ts = {0, 20 * 1000000};
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	SHOW_ERRNO(sigtimedwait(&set, &si, &ts));
	CHECK("sigtimedwait waited at least 20 ms", ms_since(CLOCK_MONOTONIC, &t0) >= 20);

	/* A signal pending for the process is taken at once. */
	raise(SIGUSR2);
	int sig = 0;
	SHOW(sigwait(&set, &sig));
	printf("raised and waited: %s\n", name(sig));
	return 0;
}
