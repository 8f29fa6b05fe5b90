/* A recording's child that execs a program built with sicc (here itself) records too,
 * to the same log.bin where LIBREPLAY_OPTS names it for both: it records to log.bin.PID
 * instead, with a note, and the parent's log stays whole and replays. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long counter;

static void *add(void *arg)
{
	for (long i = 0; i < 1000000; i++)
		counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		add(NULL);
		return 5;
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, add, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("child exited %d; counter %ld\n", WEXITSTATUS(status), counter);
	return 0;
}
