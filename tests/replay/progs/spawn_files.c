/* system() and posix_spawn while two threads race (issue 29): each child writes a file
 * in the directory argv[1] and exits with a status of its own; the parent waits with
 * waitpid (and a WNOHANG poll whose number of rounds is the machine's timing), waitid
 * and wait4. The replay makes no child: the statuses, pids and rounds come from the
 * log, and the files are not written again. */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile long counter;

static void *add(void *arg)
{
	for (long i = 0; i < 2000000; i++)
		counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char cmd[600];
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, add, NULL);

	snprintf(cmd, sizeof cmd, "echo system > '%s/system.out'; exit 4", dir);
	int rc = system(cmd);

	snprintf(cmd, sizeof cmd, "sleep 0.05; echo spawn > '%s/spawn.out'; exit 5", dir);
	char *av[] = {"sh", "-c", cmd, NULL};
	pid_t pid;
	int st = 0, rounds = 0;
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, av, environ) != 0)
		return 1;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		rounds++;
		usleep(2000);
	}

	snprintf(cmd, sizeof cmd, "echo spawnp > '%s/spawnp.out'; exit 6", dir);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (posix_spawnp(&pid, "sh", NULL, NULL, av, environ) != 0 ||
	    waitid(P_PID, (id_t)pid, &si, WEXITED) != 0 || si.si_pid != pid)
		return 1;

	snprintf(cmd, sizeof cmd, "exit 9");
	pid_t p2;
	int st2 = 0;
	struct rusage ru;
	if (posix_spawn(&p2, "/bin/sh", NULL, NULL, av, environ) != 0 || wait4(p2, &st2, 0, &ru) != p2)
		return 1;

	int none = waitpid(-1, NULL, WNOHANG); /* no child left: ECHILD */
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("system %d; posix_spawn %d after %s; posix_spawnp %d (si_code %d); wait4 %d, "
	       "%ld.%06ld s user; then %d; counter %ld\n", WEXITSTATUS(rc), WEXITSTATUS(st),
	       rounds ? "polling" : "no poll", si.si_status, si.si_code, WEXITSTATUS(st2),
	       (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec, none, counter);
	printf("rounds %d\n", rounds);
	return 0;
}
