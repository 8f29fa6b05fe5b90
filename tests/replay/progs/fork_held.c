/* A child of fork() that locks a mutex another thread held at the fork waits for ever
 * (POSIX): here that is the deadlock report, naming the holder and the fork, and exit
 * 87, which its parent sees. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int held;

static void *holder(void *arg)
{
	pthread_mutex_lock(&m);
	held = 1;
	for (;;)
		usleep(1000);
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, holder, NULL);
	while (!held)
		usleep(100);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_mutex_lock(&m);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child: exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	return 0;
}
