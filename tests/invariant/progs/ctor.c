/* Callbacks before and after main: a constructor and a destructor, which the C
 * library's start-up and exit code call (foreign code, before the runtime's main). */
#include <stdio.h>

static int early_sum;

__attribute__((constructor)) static void early(void)
{
	for (int i = 0; i < 5; i++)
		early_sum += i * i;
}

__attribute__((destructor)) static void late(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += early_sum + i;
	printf("ctor: destructor %d\n", s);
}

int main(void)
{
	printf("ctor: %d\n", early_sum);
	return 0;
}
