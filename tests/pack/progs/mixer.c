/* mixer.c: four threads add what libmix.so's mix_step gives to one total, unlocked,
 * so the total depends on the schedule. It also says whether it sees the descriptors
 * 7..9 a pack's launcher opens (the runtime closes them) and LD_LIBRARY_PATH (given
 * back its value): both as when recorded. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long mix_step(long x, int rounds);

static volatile long total;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 3000; i++) {
		long t = total;
		t += mix_step(id + i, 40) & 0xff;
		total = t;
	}
	return NULL;
}

int main(void)
{
	int open_fds = 0;
	for (int fd = 7; fd <= 9; fd++)
		open_fds += fcntl(fd, F_GETFD) != -1;
	const char *llp = getenv("LD_LIBRARY_PATH");
	printf("descriptors 7-9 open: %d; LD_LIBRARY_PATH %s\n", open_fds, llp ? llp : "unset");
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return 0;
}
