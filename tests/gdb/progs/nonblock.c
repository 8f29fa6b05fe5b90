/* A program that sets O_NONBLOCK on its standard output when it is not set yet, as xz
 * does (tests/gdb/ends.sh): the flag belongs to the open file description, which a
 * checkpoint forked by fork() shares with the live process, so a checkpoint restored
 * after the live process set it took the other branch (the replay diverged). */
#include <fcntl.h>
#include <stdio.h>

static volatile long n;

static __attribute__((noinline)) void spin(long k)
{
	for (long i = 0; i < k; i++)
		n += i & 3;
}

static __attribute__((noinline)) void after(void)
{
	n++;
}

int main(void)
{
	int fl = fcntl(1, F_GETFL);
	if (fl != -1 && !(fl & O_NONBLOCK)) {
		spin(100);
		fcntl(1, F_SETFL, fl | O_NONBLOCK);
	}
	after();
	if (fl != -1)
		fcntl(1, F_SETFL, fl);
	printf("%ld\n", n);
	return 0;
}
