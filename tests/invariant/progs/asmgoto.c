/* asm goto: a loop whose jump back is inside inline assembly (foreign to sicpp),
 * to a C label. The loop must still pass a counting point on every round. */
#include <stdio.h>

static int spin(int n)
{
	volatile int i = 0;
	int s = 0;
again:
	s += i * 3;
	i++;
	if (i < n)
		asm goto("jmp %l0" : : : : again);
	return s;
}

int main(void)
{
	printf("asmgoto: %d\n", spin(20));
	return 0;
}
