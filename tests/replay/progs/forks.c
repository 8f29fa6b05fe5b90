/* fork() after racing threads: the child runs on unrecorded and leaves the log to
 * its parent, so the recording stays whole and replays. The replay makes no child
 * (docs/inputs.md, "Processes"): the child tells what it saw by its exit status,
 * which the replay takes from the log. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long counter;

static void *add(void *arg)
{
	for (long i = 0; i < 1000000; i++)
		counter++;
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pid_t pid = fork();
	if (pid == 0) {
		long sum = 0;
		for (long i = 0; i < 3000000; i++) /* long enough for the parent's timer */
			sum += i ^ counter;
		_exit(sum ? 40 + (int)(counter % 50) : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("parent: counter %ld, child exited %d\n", counter, WEXITSTATUS(status));
	return 0;
}
