/* A thread ends the process: main hands the day's close to a closer thread and waits
 * for it; the closer starts an auditor and two tellers and calls exit() without
 * joining them. An OS may run them between that exit() and the process's end; the
 * auditor, if it comes after both tellers, checks the balance with a formula whose
 * sign is wrong (the bug), which no run can show unless the others run after the
 * closer's exit() (exit_unjoined.c's shape, the exit called from a thread, not main's
 * return; unjoined.h). -DFIXED: the right sign. */
#include "unjoined.h"

static void *close_day(void *arg)
{
	start_day();
	exit(0); /* no join: the process ends with them, or after them */
	return arg;
}

int main(void)
{
	pthread_t closer;
	balance = 100;
	pthread_create(&closer, NULL, close_day, NULL);
	pthread_join(closer, NULL); /* never returns: the closer ends the process */
	return 2;
}
