/* signal_busy: pthread_kill stops a thread that computes without calling anything:
 * its handler runs in that thread (where its time slice was interrupted, with green
 * threads) and sets the flag the loop watches. */
#include "pt_test.h"

#include <signal.h>

static volatile sig_atomic_t stop;
static pthread_t ran_in;
static volatile unsigned long spins;

static void on_usr1(int sig)
{
	ran_in = pthread_self();
	stop = 1;
}

static void *busy(void *arg)
{
	while (!stop)
		spins++;
	return pthread_equal(ran_in, pthread_self()) ? (void *)1 : NULL;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (int round = 0; round < 3; round++) {
		stop = 0;
		pthread_t t;
		void *ret;
		pthread_create(&t, NULL, busy, NULL);
		usleep(5000); /* let it spin */
		int err = pthread_kill(t, SIGUSR1);
		pthread_join(t, &ret);
		printf("round %d: pthread_kill = %s, stopped, handler ran in the spinner: %s\n", round,
		       ename(err), ret ? "yes" : "NO");
	}
	return 0;
}
