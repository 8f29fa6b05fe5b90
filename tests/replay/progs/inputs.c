/* Every recorded input, from several threads: the clocks (time, gettimeofday,
 * clock_gettime on seven clocks, times, clock, getrusage, timespec_get), rand
 * seeded from the clock and from getrandom, getentropy, arc4random, /dev/urandom
 * through read() and fread(), the process's ids and the machine's processor count.
 * Two recordings print different values; each replays to exactly its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const struct {
	clockid_t id;
	const char *name;
} clocks[] = {
	{CLOCK_REALTIME, "REALTIME"},
	{CLOCK_MONOTONIC, "MONOTONIC"},
	{CLOCK_PROCESS_CPUTIME_ID, "PROCESS_CPUTIME_ID"},
	{CLOCK_THREAD_CPUTIME_ID, "THREAD_CPUTIME_ID"},
	{CLOCK_BOOTTIME, "BOOTTIME"},
	{CLOCK_REALTIME_COARSE, "REALTIME_COARSE"},
	{CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE"},
};

static unsigned long long hex8(const unsigned char *b)
{
	unsigned long long v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int round = 0; round < 3; round++) {
		struct timespec ts;
		for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
			clock_gettime(clocks[c].id, &ts);
			printf("t%ld %s %ld.%09ld\n", id, clocks[c].name, (long)ts.tv_sec, ts.tv_nsec);
		}
		struct timeval tv;
		gettimeofday(&tv, NULL);
		struct tms tm;
		clock_t ticks = times(&tm);
		printf("t%ld time %ld gettimeofday %ld.%06ld times %ld user %ld sys %ld clock %ld\n",
		       id, (long)time(NULL), (long)tv.tv_sec, (long)tv.tv_usec, (long)ticks,
		       (long)tm.tms_utime, (long)tm.tms_stime, (long)clock());
		unsigned char b[16];
		int fd = open("/dev/urandom", O_RDONLY);
		if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b)
			return (void *)1;
		close(fd);
		printf("t%ld urandom read %016llx%016llx\n", id, hex8(b), hex8(b + 8));
		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
			return (void *)1;
		printf("t%ld getrandom %016llx arc4random %08x uniform %u\n", id, hex8(b),
		       arc4random(), arc4random_uniform(1000));
		printf("t%ld pid %d ppid %d tid %d nprocs %d\n", id, (int)getpid(), (int)getppid(),
		       (int)gettid(), get_nprocs());
		/* The same through syscall(): raw system calls reach the recorded versions. */
		struct timespec raw_ts;
		if (syscall(SYS_getrandom, b, 8, 0) != 8 ||
		    syscall(SYS_clock_gettime, CLOCK_REALTIME, &raw_ts) != 0)
			return (void *)1;
		printf("t%ld syscall getrandom %016llx pid %ld tid %ld realtime %ld.%09ld\n", id,
		       hex8(b), syscall(SYS_getpid), syscall(SYS_gettid), (long)raw_ts.tv_sec,
		       raw_ts.tv_nsec);
		volatile long x = 0;
		for (long i = 0; i < 20000 * (id + 1); i++)
			x += i;
	}
	return NULL;
}

int main(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	srand((unsigned)(ts.tv_nsec ^ time(NULL)));
	printf("rand seeded from the clock: %d %d\n", rand(), rand());
	unsigned seed;
	if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
		return 1;
	srand(seed);
	printf("rand seeded from getrandom: %d %d\n", rand(), rand());
	unsigned char b[32];
	FILE *f = fopen("/dev/urandom", "r");
	if (!f || fread(b, 1, sizeof b, f) != sizeof b)
		return 1;
	printf("urandom fread %016llx%016llx\n", hex8(b), hex8(b + 24));
	fclose(f);
	if (getentropy(b, 8) != 0)
		return 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	timespec_get(&ts, TIME_UTC);
	struct utsname u;
	uname(&u);
	printf("getentropy %016llx getrusage %ld.%06ld timespec_get %ld.%09ld onln %ld conf %ld "
	       "phys %ld avphys %ld uname %s\n", hex8(b), (long)ru.ru_utime.tv_sec,
	       (long)ru.ru_utime.tv_usec, (long)ts.tv_sec, ts.tv_nsec,
	       sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF),
	       sysconf(_SC_PHYS_PAGES), sysconf(_SC_AVPHYS_PAGES), u.sysname);
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	int bad = 0;
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	return bad;
}
