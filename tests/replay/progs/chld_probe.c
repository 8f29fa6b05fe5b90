/* chld_probe.c: a program with a SIGCHLD handler that makes no child creates a
 * thread. The runtime's probes of this machine's TLS paths run in child processes
 * (sched/sched_tls_probe.c) at the first thread creation: their SIGCHLD is theirs, so
 * the handler never runs and the recording notes no signal from outside. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t chlds;

static void on_chld(int sig)
{
	(void)sig;
	chlds++;
}

static void *worker(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t;
	signal(SIGCHLD, on_chld);
	for (int i = 0; i < 3; i++) {
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	}
	printf("SIGCHLD handled %d times\n", (int)chlds);
	return chlds != 0;
}
