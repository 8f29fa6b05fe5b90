/* system(), popen() and posix_spawn() while other threads race: glibc starts the
 * child with clone(CLONE_VM|CLONE_VFORK) and it execs at once, so unlike fork this
 * is allowed with threads; the recording replays. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;
static volatile long counter;

static void *add(void *arg)
{
	for (long i = 0; i < 2000000; i++)
		counter++;
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, add, NULL);
	fflush(stdout);
	int rc = system("exit 3");
	char line[64] = "";
	FILE *p = popen("echo from popen", "r");
	if (!p || !fgets(line, sizeof line, p))
		return 1;
	int prc = pclose(p);
	pid_t pid;
	char *argv[] = {"sh", "-c", "exit 5", NULL};
	int status = 0;
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("system %d popen '%.14s' %d posix_spawn %d counter %ld\n", WEXITSTATUS(rc), line,
	       WEXITSTATUS(prc), WEXITSTATUS(status), counter);
	return 0;
}
