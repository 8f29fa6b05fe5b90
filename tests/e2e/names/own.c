/* A program with its own globals and functions named like C library functions that
 * libreplay wraps (issue 15). Its definitions win for its own uses, as they win over
 * libc's; what the runtime does under those names (thrd_create's pthread_create,
 * syscall(SYS_read)'s read, a thread's nanosleep) still reaches the real function.
 * Built by gcc and by sicc it prints the same; own_names.sh feeds it one line on
 * stdin. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

_Bool send; /* the case: libreplay.a(pt_socket.o): multiple definition of `send' */
long poll = 42;
int accept[4] = {1, 2, 3, 4};

static int own_reads, own_sleeps, own_creates;

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	(void)t, (void)a, (void)fn, (void)arg;
	own_creates++;
	return EAGAIN;
}

ssize_t read(int fd, void *buf, size_t n)
{
	(void)fd;
	own_reads++;
	memset(buf, '#', n);
	return (ssize_t)n;
}

unsigned int sleep(unsigned int s)
{
	own_sleeps++;
	return s + 100; /* no sleeping: the runtime's sleep would take s seconds */
}

time_t time(time_t *t)
{
	if (t)
		*t = 1234;
	return 1234;
}

static int fds[2];

static int writer(void *arg)
{
	static const char msg[] = "through the pipe";
	send = 1;
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL); /* the runtime's: the reader parks meanwhile */
	return write(fds[1], msg, sizeof msg) != sizeof msg || arg;
}

int main(void)
{
	pthread_t pt;
	thrd_t t;
	char buf[64] = "", own[5] = "", line[64] = "";
	int err = pthread_create(&pt, NULL, NULL, NULL);
	printf("pthread_create: %s (the program's, %d call)\n", strerror(err), own_creates);
	if (pipe(fds) != 0 || thrd_create(&t, writer, NULL) != thrd_success)
		return 1; /* the runtime's thrd_create: its pthread_create, not the program's */
	struct iovec v = {buf, sizeof buf};
	ssize_t n = readv(fds[0], &v, 1); /* the runtime's readv: the real data */
	printf("readv: %zd bytes: %s\n", n, buf);
	int r;
	thrd_join(t, &r);
	printf("writer: %d, send = %d\n", r, send);
	static const char second[] = "second message";
	memset(buf, 0, sizeof buf);
	if (write(fds[1], second, sizeof second) != sizeof second)
		return 1;
	n = syscall(SYS_read, fds[0], buf, sizeof buf); /* not the program's read */
	printf("syscall(SYS_read): %zd bytes: %s\n", n, buf);
	if (!fgets(line, sizeof line, stdin)) /* stdio reads stdin for real */
		strcpy(line, "(nothing)\n");
	printf("stdin: %s", line);
	read(0, own, 4); /* the program's read */
	printf("read: %s (the program's, %d call)\n", own, own_reads);
	printf("sleep(5) = %u, time() = %ld (the program's)\n", sleep(5), (long)time(NULL));
	printf("poll = %ld, accept[2] = %d\n", poll, accept[2]);
	return 0;
}
