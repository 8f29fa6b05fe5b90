/* processes.c: what the audit must survive: a handler installed by glibc's sigaction
 * (sigset: glibc's restorer, its rt_sigreturn outside the executable), fork (the child
 * is not audited and must not die of it), popen and system (glibc's clone sharing the
 * memory, its rt_sigprocmask), threads preempted while the audit is on. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int got;
static long sum;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void on_usr1(int sig)
{
	got += sig == SIGUSR1;
}

static void *work(void *a)
{
	for (long i = 0; i < 1000000; i++) {
		pthread_mutex_lock(&m);
		sum += (long)a;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	char line[64] = "";
	sigset(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	pid_t p = fork();
	if (p == 0) {
		FILE *f = fopen("input.txt", "r");
		_exit(f && fgets(line, sizeof line, f) ? 3 : 4);
	}
	int st = 0;
	waitpid(p, &st, 0);
	FILE *pp = popen("echo from popen", "r");
	if (!pp || !fgets(line, sizeof line, pp))
		return 1;
	pclose(pp);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int rc = system("exit 5");
	printf("signals %d, child %d, %s", got, WIFEXITED(st) ? WEXITSTATUS(st) : -1, line);
	printf("sum %ld, system %d\n", sum, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
	return 0;
}
