/* The environment is assumed unchanged, like the files a program reads: with
 * INPUTS_OTHER_PATH set the program calls time() where the recording called
 * getpid(), and the replay says so at that call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	if (getenv("INPUTS_OTHER_PATH"))
		printf("time %ld\n", (long)time(NULL));
	else
		printf("pid %d\n", (int)getpid());
	return 0;
}
