/* A SIGTERM handler of the program's own, which cleans up and then dies of the signal
 * (the usual way: SIG_DFL back, raise again). It runs first; the log ends with END
 * naming SIGTERM. The signal came from outside, while the program waited in pause():
 * the replay delivers it there again (docs/inputs.md). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void on_term(int sig)
{
	printf("cleaning up after signal %d\n", sig);
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(void)
{
	signal(SIGTERM, on_term);
	struct sigaction now;
	sigaction(SIGINT, NULL, &now);
	printf("SIGINT's handler shows as %s\n", now.sa_handler == SIG_DFL ? "SIG_DFL" : "something else");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
