/* A crash inside the C library (tests/gdb/ends.sh, built -O2): after a few hundred good
 * strings a thread hands fputs a NULL one, and strlen faults inside it. The call goes
 * through fputs's shim (fputs.sic_xcall), which makes the call's count: the count at
 * the crash was made inside the call, after its call instruction ran. */
#include <pthread.h>
#include <stdio.h>

static const char *volatile names[] = {"alpha", "beta", "gamma", NULL};

static void *work(void *arg)
{
	FILE *sink = arg;
	for (int round = 0; round < 200; round++)
		for (int i = 0; i < 3 + (round == 199); i++)
			fputs(names[i], sink); /* the crash */
	return NULL;
}

int main(void)
{
	pthread_t t;
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		return 1;
	pthread_create(&t, NULL, work, sink);
	pthread_join(t, NULL);
	return 0;
}
