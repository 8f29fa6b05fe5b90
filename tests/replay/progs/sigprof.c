/* SIGPROF is the recorder's time slice: a handler for it, or setitimer(ITIMER_PROF),
 * fails with EINVAL and a note; the program says so and exits 1. A handler asking for
 * the alternate stack runs on it (sigaltstack is per green thread), with no note. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static void on_prof(int sig) {}

static volatile sig_atomic_t got;
static char alt[65536];
static void on_usr2(int sig)
{
	char here;
	if (&here >= alt && &here < alt + sizeof alt)
		got = sig;
}

int main(void)
{
	int bad = 0;
	if (signal(SIGPROF, on_prof) == SIG_ERR) {
		printf("signal(SIGPROF): %s\n", strerror(errno));
		bad = 1;
	}
	struct itimerval it = {{0, 10000}, {0, 10000}};
	if (setitimer(ITIMER_PROF, &it, NULL) != 0) {
		printf("setitimer(ITIMER_PROF): %s\n", strerror(errno));
		bad = 1;
	}
	struct itimerval real = {{0, 0}, {100, 0}}, old;
	if (setitimer(ITIMER_REAL, &real, NULL) != 0 || getitimer(ITIMER_REAL, &old) != 0 ||
	    old.it_value.tv_sec < 90)
		printf("setitimer(ITIMER_REAL) did not work\n");
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	struct sigaction sa = {.sa_handler = on_usr2, .sa_flags = SA_ONSTACK};
	sigemptyset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR2, &sa, NULL) != 0 || raise(SIGUSR2) != 0 ||
	    got != SIGUSR2)
		printf("SA_ONSTACK handler did not run on the alternate stack\n");
	return bad;
}
