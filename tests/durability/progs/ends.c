/* ends.c HOW [thread]: two threads count, then the process ends the way HOW names,
 * from main or (with "thread") from the second thread while main waits to join it:
 * _exit 3, _Exit 4, quick_exit 5 (after an at_quick_exit handler), syscall exit_group
 * 6, syscall exit 7 (the thread alone: main goes on and ends the same way), exit 8,
 * asm_exit_group 9 (the system call made by the program's own instruction, which the
 * runtime does not see: the log has no END).
 * ENDS_BUMP in the environment adds 10 to the status. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long n;
static const char *how;

static void handler(void)
{
	printf("at_quick_exit handler\n");
	fflush(stdout);
}

static void finish(void)
{
	int bump = getenv("ENDS_BUMP") ? 10 : 0;
	printf("%ld\n", n);
	fflush(stdout);
	if (!strcmp(how, "_exit"))
		_exit(3 + bump);
	if (!strcmp(how, "_Exit"))
		_Exit(4 + bump);
	if (!strcmp(how, "quick_exit"))
		quick_exit(5 + bump);
	if (!strcmp(how, "exit_group"))
		syscall(SYS_exit_group, 6 + bump);
	if (!strcmp(how, "asm_exit_group")) {
		long r;
		__asm__ volatile("syscall"
				 : "=a"(r)
				 : "0"((long)SYS_exit_group), "D"((long)9 + bump)
				 : "rcx", "r11", "memory");
	}
	if (!strcmp(how, "sys_exit"))
		syscall(SYS_exit, 7 + bump);
	exit(8 + bump);
}

static void *count(void *last)
{
	for (long i = 0; i < 30000000; i++)
		n++;
	if (last)
		finish();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	how = argv[1];
	at_quick_exit(handler);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, count, (void *)(i == 1 && argc > 2 ? 1L : 0L));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	finish();
}
