/* Records for SECONDS (default 2) before it ends: long enough for another recorder to
 * find its log taken. With "fork": the parent ends at once and its child lingers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned s = argc > 1 && strcmp(argv[1], "fork") ? (unsigned)atoi(argv[1]) : 2;
	if (argc > 1 && !strcmp(argv[1], "fork")) {
		if (fork() == 0) {
			sleep(3);
			_exit(0);
		}
		puts("parent done");
		return 0;
	}
	sleep(s);
	puts("lingered");
	return 0;
}
