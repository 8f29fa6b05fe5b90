/* A signal from outside the process reaches a handler. Argument "alarm": SIGALRM
 * from alarm(); "self": only the self-sent ones below; otherwise the program prints "ready" and waits for SIGUSR1 from
 * the test script (at most 30 s). Signals it sends itself (raise, kill(getpid())) are ordinary:
 * they arrive at the call, in the replay too. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
	got = sig;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGALRM, on_sig);
	raise(SIGUSR1);
	int raised = got;
	got = 0;
	kill(getpid(), SIGUSR1); /* the replay's getpid is the recording's: mapped back */
	printf("self-sent: raise %d kill %d\n", raised, (int)got);
	if (argc > 1 && !strcmp(argv[1], "self"))
		return 0;
	got = 0;
	if (argc > 1 && !strcmp(argv[1], "alarm"))
		alarm(1);
	else
		printf("ready %d\n", (int)getpid());
	for (int i = 0; i < 3000 && !got; i++)
		usleep(10000);
	printf("got signal %d\n", (int)got);
	return 0;
}
