/* A pipe the program made, written by a child it forked (or, FORK_PIPE_SPAWN set,
 * a shell it started with posix_spawnp), at the child's own pace: FORK_PIPE_TWO set,
 * the child writes its two lines 300 ms apart; otherwise at once, while the parent
 * naps. The parent's path is the same either way: it naps, starts a thread, reads
 * the pipe to its end and says in how many pieces the bytes came. A recording with
 * the lines at once replays with them apart (the read's count is logged: a pipe made
 * before a fork or a spawn may have its other end in the child).
 * tests/durability/run.sh. */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void nap(long ms)
{
	struct timespec t = {0, ms * 1000000};
	nanosleep(&t, NULL);
}

static void *napper(void *arg)
{
	nap(50);
	return arg;
}

static void child(int fd)
{
	if (getenv("FORK_PIPE_TWO")) {
		if (write(fd, "a\n", 2) != 2)
			_exit(1);
		nap(300);
		if (write(fd, "b\n", 2) != 2)
			_exit(1);
	} else if (write(fd, "a\nb\n", 4) != 4) {
		_exit(1);
	}
	_exit(0);
}

int main(void)
{
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pid_t pid;
	if (getenv("FORK_PIPE_SPAWN")) {
		char *argv[] = {"sh", "-c",
				getenv("FORK_PIPE_TWO") ? "printf 'a\\n'; sleep 0.3; printf 'b\\n'" :
							  "printf 'a\\nb\\n'",
				NULL};
		posix_spawn_file_actions_t acts;
		posix_spawn_file_actions_init(&acts);
		posix_spawn_file_actions_adddup2(&acts, p[1], 1);
		posix_spawn_file_actions_addclose(&acts, p[0]);
		if (posix_spawnp(&pid, "sh", &acts, NULL, argv, environ) != 0)
			return 1;
	} else if ((pid = fork()) == 0) {
		close(p[0]);
		child(p[1]);
	}
	if (pid < 0)
		return 1;
	close(p[1]);
	nap(100);
	pthread_t t;
	pthread_create(&t, NULL, napper, NULL);
	char buf[64];
	ssize_t r;
	int pieces = 0, bytes = 0;
	while ((r = read(p[0], buf, sizeof buf)) > 0) {
		pieces++;
		bytes += (int)r;
	}
	pthread_join(t, NULL);
	waitpid(pid, NULL, 0);
	printf("fork_pipe: %d bytes in %d pieces\n", bytes, pieces);
	return 0;
}
