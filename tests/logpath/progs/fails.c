/* Fails every run: replay-hunt keeps each one. */
#include <stdio.h>

int main(void)
{
	puts("failed");
	return 3;
}
