int f(int x)
{
	__asm__ volatile("movq $1, %%r15" ::: "r15");
	return x;
}
