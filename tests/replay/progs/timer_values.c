/* What the timers say about time (alarm's seconds left, getitimer, setitimer's old
 * value, timer_gettime, timer_getoverrun) is recorded: the
 * microseconds differ from run to run, and each replay prints its recording's. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
	alarm(5);
	usleep(1000);
	unsigned left = alarm(0);
	struct itimerval it = {{0, 0}, {3, 0}}, old, now;
	setitimer(ITIMER_REAL, &it, NULL);
	usleep(1500);
	getitimer(ITIMER_REAL, &now);
	setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, &old);
	timer_t t;
	struct sigevent ev = {.sigev_notify = SIGEV_NONE};
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	struct itimerspec its = {{0, 0}, {2, 0}}, g;
	timer_settime(t, 0, &its, NULL);
	usleep(1200);
	timer_gettime(t, &g);
	printf("alarm left %u; getitimer %ld.%06ld; old %ld.%06ld; timer_gettime %ld.%09ld; "
	       "overrun %d\n", left, (long)now.it_value.tv_sec, (long)now.it_value.tv_usec,
	       (long)old.it_value.tv_sec, (long)old.it_value.tv_usec, (long)g.it_value.tv_sec,
	       g.it_value.tv_nsec, timer_getoverrun(t));
	return 0;
}
