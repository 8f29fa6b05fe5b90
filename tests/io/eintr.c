/* A signal sent to a thread blocked in a system call, as Linux handles it (signal(7)):
 * with a handler without SA_RESTART, read, recv, a futex wait, sem_wait fail with
 * EINTR; with SA_RESTART they go on waiting and return what comes later; poll,
 * select, epoll_wait, a timed futex wait, sem_timedwait and a recv with SO_RCVTIMEO
 * fail with EINTR either way; a write
 * that has transferred some returns that count. A blocked, ignored or default-ignored
 * signal does not end the call. select sets its timeout to the time left.
 *
 * Each case starts a thread that blocks in one call, waits until it has surely
 * blocked (50 ms after it says it is about to), then sends the signal. A kernel
 * thread that got it just before blocking is sent a second one a second later, so
 * the lines printed do not depend on timing. */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t hits;
static volatile int started, finished;
static long result;
static int error;
static int p[2], sv[2];
static uint32_t word;
static sem_t sem;
static struct timeval tv;

static void on_signal(int sig)
{
	hits++;
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void nap(int ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/* Wait up to ms for the thread's call to end: whether it has. */
static bool wait_done(int ms)
{
	for (int k = 0; k < ms && !finished; k++)
		nap(1);
	return finished;
}

static void wait_hit(void)
{
	for (int k = 0; k < 2000 && !hits; k++)
		nap(1);
}

/* The thread's call, just before it is made and just after. */
static void before(void)
{
	started = 1;
}

static void after(long r)
{
	result = r;
	error = r < 0 ? errno : 0;
	finished = 1;
}

static pthread_t start(void *(*fn)(void *))
{
	pthread_t t;
	started = finished = 0;
	hits = 0;
	pthread_create(&t, NULL, fn, NULL);
	while (!started)
		nap(1);
	nap(50);
	return t;
}

/* Send sig to t (or to the process), then wait up to 1 s for the call to end; once
 * more if it has not. */
static void interrupt(pthread_t t, int sig, bool process)
{
	for (int k = 0; k < 2 && !finished; k++) {
		if (process)
			kill(getpid(), sig);
		else
			pthread_kill(t, sig);
		wait_done(1000);
	}
}

static const char *outcome(void)
{
	static char buf[64];
	if (result < 0)
		snprintf(buf, sizeof buf, "-1 %s", error == EINTR ? "EINTR" : strerror(error));
	else
		snprintf(buf, sizeof buf, "%ld", result);
	return buf;
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

/* Unblock a call that was not interrupted: a byte on both the pipe and the socket, a
 * futex wake. */
static void feed(void)
{
	if (write(p[1], "x", 1) != 1 || write(sv[1], "x", 1) != 1)
		exit(3);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	sem_post(&sem);
}

/* Take what is left of those bytes (the call may have taken one). */
static void drain(void)
{
	struct pollfd f[2] = {{p[0], POLLIN, 0}, {sv[0], POLLIN, 0}};
	char c;
	for (int k = 0; k < 2; k++)
		if (poll(&f[k], 1, 0) == 1 && read(f[k].fd, &c, 1) != 1)
			exit(4);
	while (sem_trywait(&sem) == 0)
		;
}

static void *reader(void *arg)
{
	char c;
	before();
	after(read(p[0], &c, 1));
	return NULL;
}

static void *process_reader(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	return reader(arg);
}

static void *masked_reader(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	char c;
	before();
	long r = read(p[0], &c, 1);
	after(hits ? -1 : r); /* the handler must not have run meanwhile */
	return NULL;
}

static void *receiver(void *arg)
{
	char c;
	before();
	after(recv(sv[0], &c, 1, 0));
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd f = {p[0], POLLIN, 0};
	before();
	after(poll(&f, 1, -1));
	return NULL;
}

static void *selector(void *arg)
{
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	before();
	after(select(p[0] + 1, &rd, NULL, NULL, &tv));
	return NULL;
}

static void *epoller(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	before();
	after(epoll_wait(ep, &out, 1, -1));
	close(ep);
	return NULL;
}

static void *futex_waiter(void *arg)
{
	before();
	after(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
	return NULL;
}

static void *timed_futex_waiter(void *arg)
{
	struct timespec ten = {10, 0};
	before();
	after(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ten, NULL, 0));
	return NULL;
}

static pid_t child_pid;

static void *child_waiter(void *arg)
{
	int st;
	before();
	pid_t r = waitpid(child_pid, &st, 0);
	after(r == child_pid ? WEXITSTATUS(st) : r);
	return NULL;
}

/* waitpid on a child that exits after 0.5 s, interrupted at 50 ms: EINTR without
 * SA_RESTART (then the child is reaped here), its exit status with it. */
static void wait_case(const char *what, bool restart)
{
	child_pid = fork();
	if (child_pid == 0) {
		struct timespec half = {0, 500000000};
		nanosleep(&half, NULL);
		_exit(7);
	}
	pthread_t t = start(child_waiter);
	pthread_kill(t, SIGUSR1);
	wait_hit();
	pthread_join(t, NULL);
	if (!restart) {
		int st;
		waitpid(child_pid, &st, 0);
	}
	printf("%s: handler ran: %s, then %s\n", what, yes(hits),
	       result < 0 ? outcome() : result == 7 ? "the child's exit status" : "?");
}

static void *sem_waiter(void *arg)
{
	before();
	after(sem_wait(&sem));
	return NULL;
}

static void *sem_timed_waiter(void *arg)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	before();
	after(sem_timedwait(&sem, &dl));
	return NULL;
}

static void *writer(void *arg)
{
	static char big[1 << 20];
	before();
	after(write(p[1], big, sizeof big));
	return NULL;
}

/* An interrupted call: its outcome. A call that was not interrupted is unblocked. */
static void interrupted(const char *what, void *(*fn)(void *), bool process)
{
	pthread_t t = start(fn);
	interrupt(t, SIGUSR1, process);
	bool ended = finished;
	if (!ended)
		feed();
	pthread_join(t, NULL);
	if (!ended)
		drain();
	printf("%s: %s, handler ran: %s\n", what, ended ? outcome() : "still blocked", yes(hits));
}

/* A restarted call: still blocked after the handler ran; then it gets the byte. */
static void restarted(const char *what, void *(*fn)(void *))
{
	pthread_t t = start(fn);
	pthread_kill(t, SIGUSR1);
	wait_hit();
	nap(50);
	bool blocked = !finished;
	if (blocked)
		feed();
	pthread_join(t, NULL);
	if (blocked)
		drain(); /* the other byte */
	printf("%s: handler ran: %s, still blocked after it: %s, then %s\n", what, yes(hits),
	       yes(blocked), outcome());
}

/* A signal that must not end the call at all. */
static void not_interrupted(const char *what, void *(*fn)(void *), int sig)
{
	pthread_t t = start(fn);
	pthread_kill(t, sig);
	nap(100);
	bool blocked = !finished;
	feed();
	pthread_join(t, NULL);
	drain();
	printf("%s: still blocked: %s, then %s\n", what, yes(blocked), outcome());
}

static bool tv_less(const struct timeval *a, long sec)
{
	return a->tv_sec >= 0 && a->tv_usec >= 0 && a->tv_sec < sec;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || sem_init(&sem, 0, 0))
		return 2;

	install(SIGUSR1, on_signal, 0);
	interrupted("read, no SA_RESTART", reader, false);
	interrupted("recv, no SA_RESTART", receiver, false);
	interrupted("futex wait, no SA_RESTART", futex_waiter, false);
	interrupted("sem_wait, no SA_RESTART", sem_waiter, false);
	wait_case("waitpid, no SA_RESTART", false);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	interrupted("read, kill() to the process, no SA_RESTART", process_reader, true);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);

	install(SIGUSR1, on_signal, SA_RESTART);
	restarted("read, SA_RESTART", reader);
	restarted("recv, SA_RESTART", receiver);
	restarted("sem_wait, SA_RESTART", sem_waiter);
	wait_case("waitpid, SA_RESTART", true);
	{
		pthread_t t = start(futex_waiter);
		pthread_kill(t, SIGUSR1);
		wait_hit();
		nap(50);
		bool blocked = !finished;
		__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		pthread_join(t, NULL);
		word = 0;
		printf("futex wait, SA_RESTART: handler ran: %s, still blocked after it: %s, "
		       "then ended by the wake: %s\n", yes(hits), yes(blocked),
		       yes(result == 0 || error == EAGAIN));
	}
	interrupted("poll, SA_RESTART", poller, false);
	interrupted("epoll_wait, SA_RESTART", epoller, false);
	interrupted("timed futex wait, SA_RESTART", timed_futex_waiter, false);
	interrupted("sem_timedwait, SA_RESTART", sem_timed_waiter, false);
	tv = (struct timeval){10, 0};
	interrupted("select, SA_RESTART", selector, false);
	printf("select's timeout after EINTR: less than given and not negative: %s\n",
	       yes(tv_less(&tv, 10)));
	struct timeval ten = {10, 0};
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &ten, sizeof ten);
	interrupted("recv with SO_RCVTIMEO, SA_RESTART", receiver, false);
	struct timeval none = {0, 0};
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);

	/* A write that filled the pipe, then blocked: its count so far. */
	{
		pthread_t t = start(writer);
		interrupt(t, SIGUSR1, false);
		bool ended = finished;
		static char sink[1 << 16];
		long taken = 0; /* not interrupted: make room until it is done */
		struct pollfd f = {p[0], POLLIN, 0};
		while (!finished) {
			ssize_t n = poll(&f, 1, 100) == 1 ? read(p[0], sink, sizeof sink) : 0;
			if (n < 0)
				return 5;
			taken += n;
		}
		pthread_join(t, NULL);
		long left = result - taken; /* what is still in the pipe */
		while (left > 0) {
			ssize_t n = read(p[0], sink, sizeof sink);
			if (n <= 0)
				return 6;
			left -= n;
		}
		printf("1 MiB write to a pipe, SA_RESTART: ended by the signal: %s, with a partial "
		       "count: %s\n", yes(ended), yes(result > 0 && result < (1 << 20)));
	}

	/* Signals that do not interrupt. */
	not_interrupted("read, signal blocked in the thread", masked_reader, SIGUSR1);
	install(SIGUSR2, SIG_IGN, 0);
	not_interrupted("read, SIG_IGN", reader, SIGUSR2);
	install(SIGWINCH, SIG_DFL, 0);
	not_interrupted("read, SIGWINCH with SIG_DFL (ignored)", reader, SIGWINCH);

	/* select's timeout: the time left when it returns. */
	tv = (struct timeval){0, 100000};
	{
		pthread_t t = start(selector);
		wait_done(2000);
		pthread_join(t, NULL);
		printf("select timed out: %s, timeout now zero: %s\n", outcome(),
		       yes(tv.tv_sec == 0 && tv.tv_usec == 0));
	}
	tv = (struct timeval){5, 0};
	{
		pthread_t t = start(selector);
		feed();
		pthread_join(t, NULL);
		drain();
		printf("select ready: %s, timeout now less than given and not negative: %s\n",
		       outcome(), yes(tv_less(&tv, 5)));
	}
	return 0;
}
