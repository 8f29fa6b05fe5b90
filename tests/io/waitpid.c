/* Waiting for a child process blocks only the waiting thread: while main waits for a
 * child that sleeps 0.1 s, a worker goes on counting (with glibc's threads as with
 * libreplay's). Each wait function in turn:
 *   waitpid(pid), waitpid(-1), wait(), wait4() with rusage, waitid(P_PID), waitid(P_ALL),
 *   waitid(P_PIDFD); then WNOHANG with a child still running (0), a stopped child seen
 *   with WUNTRACED, ECHILD when there is none; waitid on a non-blocking pidfd
 *   (EAGAIN); a thread cancelled in waitpid leaves no descriptor behind. Exit
 *   statuses are printed, pids and times are not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile int waiting;
static volatile long rounds;

static void *worker(void *arg)
{
	struct timespec ms = {0, 1000000};
	while (waiting >= 0) {
		if (waiting)
			rounds++;
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* A child running sh -c script. */
static pid_t child(const char *script)
{
	pid_t pid;
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0) {
		perror("posix_spawn");
		return -1;
	}
	return pid;
}

static pid_t cancelled_child;

static void *cancelled_waiter(void *arg)
{
	int st;
	waitpid(cancelled_child, &st, 0);
	printf("waitpid returned (should not happen)\n");
	return NULL;
}

static void begin(void)
{
	rounds = 0;
	waiting = 1;
}

/* The worker must have run while the call waited (0.1 s: about 100 rounds). */
static const char *ran(void)
{
	waiting = 0;
	return rounds > 0 ? "yes" : "no";
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	int st = 0;

	pid_t pid = child("sleep 0.1; exit 3");
	begin();
	pid_t r = waitpid(pid, &st, 0);
	printf("waitpid(pid): %s, exit %d, the worker ran meanwhile: %s\n", r == pid ? "the child" : "?",
	       WEXITSTATUS(st), ran());

	pid = child("sleep 0.1; exit 4");
	begin();
	r = waitpid(-1, &st, 0);
	printf("waitpid(-1): %s, exit %d, the worker ran meanwhile: %s\n", r == pid ? "the child" : "?",
	       WEXITSTATUS(st), ran());

	pid = child("sleep 0.1; exit 5");
	begin();
	r = wait(&st);
	printf("wait: %s, exit %d, the worker ran meanwhile: %s\n", r == pid ? "the child" : "?",
	       WEXITSTATUS(st), ran());

	pid = child("sleep 0.1; exit 6");
	struct rusage ru;
	memset(&ru, 0xff, sizeof ru);
	begin();
	r = wait4(pid, &st, 0, &ru);
	printf("wait4: %s, exit %d, rusage filled: %s, the worker ran meanwhile: %s\n",
	       r == pid ? "the child" : "?", WEXITSTATUS(st), ru.ru_maxrss >= 0 ? "yes" : "no", ran());

	siginfo_t si;
	pid = child("sleep 0.1; exit 7");
	begin();
	memset(&si, 0, sizeof si);
	int w = waitid(P_PID, (id_t)pid, &si, WEXITED);
	printf("waitid(P_PID): %d, %s, code %s, status %d, the worker ran meanwhile: %s\n", w,
	       si.si_pid == pid ? "the child" : "?", si.si_code == CLD_EXITED ? "CLD_EXITED" : "?",
	       si.si_status, ran());

	pid = child("sleep 0.1; kill -TERM $$");
	begin();
	memset(&si, 0, sizeof si);
	w = waitid(P_ALL, 0, &si, WEXITED);
	printf("waitid(P_ALL): %d, %s, code %s, signal %s, the worker ran meanwhile: %s\n", w,
	       si.si_pid == pid ? "the child" : "?", si.si_code == CLD_KILLED ? "CLD_KILLED" : "?",
	       si.si_status == SIGTERM ? "SIGTERM" : "?", ran());

	pid = child("sleep 0.1; exit 9");
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	begin();
	memset(&si, 0, sizeof si);
	w = pfd >= 0 ? waitid(P_PIDFD, (id_t)pfd, &si, WEXITED) : -1;
	printf("waitid(P_PIDFD): %d, %s, status %d, the worker ran meanwhile: %s\n", w,
	       si.si_pid == pid ? "the child" : "?", si.si_status, ran());
	close(pfd);

	pid = child("sleep 0.2; exit 10");
	r = waitpid(pid, &st, WNOHANG);
	printf("WNOHANG while it runs: %d\n", (int)r);
	begin();
	r = waitpid(pid, &st, 0);
	printf("then waitpid: exit %d, the worker ran meanwhile: %s\n", WEXITSTATUS(st), ran());

	pid = child("sleep 0.1; kill -STOP $$; exit 11");
	begin();
	r = waitpid(pid, &st, WUNTRACED);
	printf("WUNTRACED: %s, stopped by %s, the worker ran meanwhile: %s\n", r == pid ? "the child" : "?",
	       WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP ? "SIGSTOP" : "?", ran());
	kill(pid, SIGCONT);
	r = waitpid(pid, &st, 0);
	printf("continued, then exit %d\n", WEXITSTATUS(st));

	pid = child("sleep 0.2; exit 12");
	pfd = (int)syscall(SYS_pidfd_open, pid, O_NONBLOCK); /* PIDFD_NONBLOCK */
	errno = 0;
	w = waitid(P_PIDFD, (id_t)pfd, &si, WEXITED);
	printf("waitid on a non-blocking pidfd while it runs: %d, %s\n", w,
	       errno == EAGAIN ? "EAGAIN" : strerror(errno));
	close(pfd);
	r = waitpid(pid, &st, 0);
	printf("then waitpid: exit %d\n", WEXITSTATUS(st));

	int before = dup(0);
	close(before);
	cancelled_child = child("sleep 0.2; exit 13");
	pthread_t c;
	pthread_create(&c, NULL, cancelled_waiter, NULL);
	struct timespec fifty = {0, 50000000};
	nanosleep(&fifty, NULL);
	pthread_cancel(c);
	void *res;
	pthread_join(c, &res);
	int after = dup(0);
	close(after);
	r = waitpid(cancelled_child, &st, 0);
	printf("cancelled in waitpid: %s, no descriptor left behind: %s, then exit %d\n",
	       res == PTHREAD_CANCELED ? "yes" : "no", after == before ? "yes" : "no", WEXITSTATUS(st));

	errno = 0;
	r = waitpid(-1, &st, 0);
	printf("no child left: %d, %s\n", (int)r, errno == ECHILD ? "ECHILD" : strerror(errno));

	waiting = -1;
	pthread_join(t, NULL);
	return 0;
}
