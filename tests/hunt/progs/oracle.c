/* oracle: one program for each outcome replay-hunt must tell apart (tests/hunt).
 *   oracle ticket FILE N...   append a byte to FILE; the file's size is this run's
 *                             ticket; print it; exit 1 if it is one of the N
 *   oracle exit N | signal N  exit with N, or die of signal N
 *   oracle spin [PIDFILE]     run forever (with PIDFILE: fork a child that runs
 *                             forever too and write its pid there first)
 *   oracle rendezvous DIR K MAX   wait (up to 20 s) until K runs have been in DIR
 *                             at once; exit 3 if they never were, 4 if more than MAX
 *   oracle work N             N million iterations of a loop (CPU work), then exit 0 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ticket(const char *file, int argc, char **argv)
{
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
	struct stat sb;
	if (fd < 0 || write(fd, "x", 1) != 1 || fstat(fd, &sb))
		return 2;
	close(fd);
	printf("ticket %lld\n", (long long)sb.st_size);
	for (int i = 0; i < argc; i++)
		if (atoll(argv[i]) == sb.st_size)
			return 1;
	return 0;
}

static void spin(const char *pidfile)
{
	if (pidfile) {
		pid_t pid = fork();
		if (pid == 0)
			for (;;)
				;
		FILE *f = fopen(pidfile, "w");
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	for (;;)
		;
}

static int work(long n)
{
	volatile unsigned long x = 0;
	for (long i = 0; i < n * 1000000L; i++)
		x += (unsigned long)i;
	printf("worked\n");
	return 0;
}

static int present(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The first run to see k runs in dir at once leaves dir/.met, so that a run that
 * comes after some of them have left still knows they met. */
static int rendezvous(const char *dir, int k, int max)
{
	char me[4096], met[4096];
	snprintf(me, sizeof me, "%s/%d", dir, (int)getpid());
	snprintf(met, sizeof met, "%s/.met", dir);
	close(open(me, O_WRONLY | O_CREAT, 0644));
	int rc = 3, n;
	for (int i = 0; i < 2000; i++) {
		if ((n = present(dir)) > max) {
			rc = 4;
			break;
		}
		if (n >= k) {
			close(open(met, O_WRONLY | O_CREAT, 0644));
			rc = 0;
			break;
		}
		if (!access(met, F_OK)) {
			rc = 0;
			break;
		}
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	if (present(dir) > max)
		rc = 4;
	unlink(me);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "ticket"))
		return ticket(argv[2], argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "signal"))
		return raise(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "spin"))
		spin(argc > 2 ? argv[2] : NULL);
	if (argc == 3 && !strcmp(argv[1], "work"))
		return work(atol(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "rendezvous"))
		return rendezvous(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "oracle: bad arguments\n");
	return 2;
}
