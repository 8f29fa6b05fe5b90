/* fork with live threads (issue 29): main and three workers race on a counter while
 * worker 0 forks (vfork, with a second argument "vfork") a child that execs
 * sh -c 'echo hi > DIR/exec.out; exit 7' and worker 1
 * forks a child that writes to a pipe and _exits 3; each waits with waitpid. The
 * replay makes no child: the pids and statuses come from the log, and DIR/exec.out (DIR:
 * argv[1]) is not written again. (The pipe's bytes are not read here: reads of a pipe whose
 * other end is another process are the pipe work's.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long counter;
static char file[400];
static int use_vfork;
static int status_exec = -1, status_pipe = -1;
static pid_t pid_exec, pid_pipe;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 300000; i++) {
		counter++;
		if (i == 100000 && id == 0) {
			char cmd[512];
			snprintf(cmd, sizeof cmd, "echo hi > '%s'; exit 7", file);
			pid_exec = use_vfork ? vfork() : fork();
			if (pid_exec == 0) {
				execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
				_exit(127);
			}
			waitpid(pid_exec, &status_exec, 0);
		}
		if (i == 150000 && id == 1) {
			int fds[2];
			if (pipe(fds) != 0)
				abort();
			pid_pipe = fork();
			if (pid_pipe == 0) {
				close(fds[0]);
				if (write(fds[1], "from the child\n", 15) != 15)
					_exit(1);
				_exit(3);
			}
			close(fds[1]);
			waitpid(pid_pipe, &status_pipe, 0);
			close(fds[0]);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	snprintf(file, sizeof file, "%s/exec.out", argc > 1 ? argv[1] : ".");
	use_vfork = argc > 2 && strcmp(argv[2], "vfork") == 0;
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < 300000; i++)
		counter++;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("exec child %s: exit %d; pipe child %s: exit %d; counter %ld\n",
	       pid_exec > 0 ? "forked" : "failed", WIFEXITED(status_exec) ? WEXITSTATUS(status_exec) : -1,
	       pid_pipe > 0 ? "forked" : "failed", WIFEXITED(status_pipe) ? WEXITSTATUS(status_pipe) : -1,
	       counter);
	printf("pids %s\n", pid_exec != pid_pipe && pid_exec > 0 ? "differ" : "same");
	return 0;
}
