/* Signals from outside the process reach a handler while threads race: the handler
 * notes which thread it interrupted, how far that thread was, and the siginfo; main
 * prints them all at the end, with the racy counter. A replay must print the same.
 *
 *   itimer  SIGALRM from setitimer(ITIMER_REAL), every 2 ms, 8 times
 *   vtimer  SIGVTALRM from setitimer(ITIMER_VIRTUAL) (CPU time), 8 times
 *   alarm   SIGALRM from alarm(1), twice: main waits in pause() while the threads
 *           race, then again once they are done (alone: every thread waits)
 *   timer   SIGRTMIN+1 from a timer_create timer (SIGEV_SIGNAL, a value), 8 times
 *   child   SIGUSR1 from a child process (sigqueue with a value), 6 times (fewer arrive
 *           where two were pending at once: SIGUSR1 does not queue)
 *   script  SIGUSR1 from the test script: prints "ready", then takes 4
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 3
#define MAXHITS 16

static volatile long racy;
static __thread int me; /* 0: main */
static __thread volatile long step;
static volatile sig_atomic_t hits, stop;
static int want;
static struct {
	int who, sig, code, value, from_parent, from_other;
	long at;
} seen[MAXHITS];

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int n = hits;
	if (n < MAXHITS) {
		seen[n].who = me;
		seen[n].at = step;
		seen[n].sig = sig;
		seen[n].code = si->si_code;
		seen[n].value = si->si_value.sival_int;
		seen[n].from_parent = si->si_pid == getppid();
		seen[n].from_other = si->si_pid != getpid();
	}
	hits = n + 1;
}

static void *work(void *arg)
{
	me = (int)(long)arg;
	/* Until the signals are all in; bounded, so a lost signal fails, not hangs. */
	while (!stop && step < 4000000000L) {
		step++;
		racy++;
	}
	return NULL;
}

static void wait_hits(void)
{
	while (hits < want)
		usleep(1000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "itimer";
	int sig = !strcmp(mode, "vtimer") ? SIGVTALRM : !strcmp(mode, "timer") ? SIGRTMIN + 1 :
		  !strcmp(mode, "child") || !strcmp(mode, "script") ? SIGUSR1 : SIGALRM;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
	want = !strcmp(mode, "alarm") ? 2 : !strcmp(mode, "child") ? 6 : !strcmp(mode, "script") ? 4 : 8;

	if (!strcmp(mode, "child")) { /* before the threads: a fork with one thread */
		pid_t parent = getpid();
		pid_t child = fork();
		if (child == 0) {
			for (int i = 0; i < want; i++) {
				usleep(20000);
				union sigval v = {.sival_int = 100 + i};
				sigqueue(parent, SIGUSR1, v);
			}
			_exit(0);
		}
	}
	pthread_t t[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));

	timer_t tm;
	if (!strcmp(mode, "itimer") || !strcmp(mode, "vtimer")) {
		struct itimerval it = {{0, 2000}, {0, 2000}};
		setitimer(sig == SIGALRM ? ITIMER_REAL : ITIMER_VIRTUAL, &it, NULL);
		wait_hits();
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(sig == SIGALRM ? ITIMER_REAL : ITIMER_VIRTUAL, &off, NULL);
	} else if (!strcmp(mode, "timer")) {
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = sig;
		ev.sigev_value.sival_int = 42;
		timer_create(CLOCK_MONOTONIC, &ev, &tm);
		struct itimerspec its = {{0, 2000000}, {0, 2000000}};
		timer_settime(tm, 0, &its, NULL);
		wait_hits();
		timer_delete(tm);
	} else if (!strcmp(mode, "alarm")) {
		alarm(1);
		pause(); /* threads race meanwhile */
		stop = 1;
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(t[i], NULL);
		alarm(1);
		pause(); /* alone: every thread waits */
	} else if (!strcmp(mode, "child")) {
		/* SIGUSR1 does not queue: two pending at once are one, as 20 ms apart can
		 * be on a loaded machine. So the child's end, not the count, ends the wait,
		 * and what it sent last may take a while to arrive. */
		wait(NULL);
		for (int i = 0; hits < want && i < 2000; i++)
			usleep(1000);
	} else {
		printf("ready\n");
		fflush(stdout);
		wait_hits();
	}
	stop = 1;
	for (int i = 0; i < NTHREADS && strcmp(mode, "alarm"); i++)
		pthread_join(t[i], NULL);
	printf("%s: %d signals\n", mode, (int)hits);
	for (int i = 0; i < hits && i < MAXHITS; i++)
		printf("%d: signal %d code %d value %d%s%s in thread %d at step %ld\n", i, seen[i].sig,
		       seen[i].code, seen[i].value, seen[i].from_parent ? " from the parent" : "",
		       seen[i].from_other && (seen[i].code == SI_USER || seen[i].code == SI_QUEUE) ?
		       " from another process" : "",
		       seen[i].who, seen[i].at);
	printf("racy %ld\n", racy);
	return 0;
}
