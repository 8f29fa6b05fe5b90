/* popen's child writes at its own pace: main naps before it reads, so both of the
 * child's lines are usually in the pipe at its first read and the recording reads them
 * in one piece, while a replay (which does not nap for real) reads before the child
 * has written the second. How much each read of popen's stream got is logged
 * (io_read_outside): the replay must wait for both lines and read them at once again.
 * Without that its second fgets made a read the recording did not, every later try of
 * main was one ahead, and its read of a pipe another thread fills diverged (it hung
 * before that was caught: tests/io/stdio_stream.c's popen, 1 recording in 100 under
 * load). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void nap(long us)
{
	struct timespec t = {us / 1000000, us % 1000000 * 1000};
	nanosleep(&t, NULL);
}

static void *writer(void *arg)
{
	nap(2000);
	if (write((int)(long)arg, "x", 1) != 1)
		perror("write");
	return NULL;
}

int main(void)
{
	FILE *p = popen("echo one; sleep 0.1; echo two", "r");
	nap(400000);
	char a[16] = "", b[16] = "";
	if (!p || !fgets(a, sizeof a, p) || !fgets(b, sizeof b, p))
		printf("popen: read failed\n");
	int rc = pclose(p);
	printf("popen: %.3s %.3s, status %d\n", a, b, rc);
	int fds[2];
	pthread_t w;
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&w, NULL, writer, (void *)(long)fds[1]);
	char c = 0;
	ssize_t r = read(fds[0], &c, 1);
	pthread_join(w, NULL);
	printf("pipe: %zd '%c'\n", r, c);
	return 0;
}
