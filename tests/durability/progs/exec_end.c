/* exec_end.c HOW [thread]: two threads count, then the process execs `sh -c 'echo
 * replaced; exit 9'` the way HOW names (execve, execv, execvp, execl, execlp, execle),
 * from main or (with "thread") from the second thread while main waits to join it. An
 * exec that cannot work first (a missing file, a directory, then a script whose #!
 * line ends in CRLF, then a file that may be executed but holds no program: the
 * kernel's ENOEXEC, after every check the runtime makes) fails and the run goes on. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile long n;
static const char *how;

static void replace(void)
{
	char *argv[] = {"sh", "-c", "echo replaced; exit 9", NULL};
	extern char **environ;
	errno = 0;
	int r = execv("/nonexistent/sh", argv);
	printf("missing: %d %s\n", r, strerror(errno));
	r = execvp("/tmp", argv);
	printf("directory: %d %s\n", r, strerror(errno));
	/* a script whose #! line ends in CRLF: its interpreter is "/bin/sh\r" */
	FILE *f = fopen("crlf.sh", "w");
	if (f) {
		fputs("#!/bin/sh\r\necho crlf\r\n", f);
		fclose(f);
	}
	chmod("crlf.sh", 0755);
	r = execv("./crlf.sh", argv);
	printf("crlf: %d %s\n", r, strerror(errno));
	f = fopen("garbage.bin", "w");
	if (f) {
		fputs("no program\n", f);
		fclose(f);
	}
	chmod("garbage.bin", 0755);
	r = execv("./garbage.bin", argv);
	printf("garbage: %d %s\n", r, strerror(errno));
	printf("%ld\n", n);
	fflush(stdout);
	if (!strcmp(how, "execve"))
		execve("/bin/sh", argv, environ);
	else if (!strcmp(how, "execv"))
		execv("/bin/sh", argv);
	else if (!strcmp(how, "execvp"))
		execvp("sh", argv);
	else if (!strcmp(how, "execl"))
		execl("/bin/sh", "sh", "-c", "echo replaced; exit 9", (char *)NULL);
	else if (!strcmp(how, "execlp"))
		execlp("sh", "sh", "-c", "echo replaced; exit 9", (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle("/bin/sh", "sh", "-c", "echo replaced; exit 9", (char *)NULL, environ);
	printf("exec failed: %s\n", strerror(errno));
	exit(1);
}

static void *count(void *last)
{
	for (long i = 0; i < 30000000; i++)
		n++;
	if (last)
		replace();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	how = argv[1];
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, count, (void *)(i == 1 && argc > 2 ? 1L : 0L));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	replace();
}
