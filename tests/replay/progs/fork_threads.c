/* fork() while another thread lives is refused with a note and ENOSYS (the child
 * would get every green thread); the program reports it and exits 1. After the
 * thread is joined, fork works. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int go;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	while (!go)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pthread_create(&t, NULL, waiter, NULL);
	pid_t pid = argc > 1 ? vfork() : fork();
	int err = errno;
	pthread_mutex_lock(&m);
	go = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		printf("forked with a live thread\n");
		return 0;
	}
	printf("fork with a live thread: %s\n", strerror(err));
	pid = fork();
	if (pid == 0)
		_exit(7);
	int status;
	waitpid(pid, &status, 0);
	printf("fork after join: child exited %d\n", WEXITSTATUS(status));
	return 1;
}
