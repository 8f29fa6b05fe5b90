/* Function pointers: a table of operations called in a loop, indirect tail calls
 * (jmp *reg at -O2), higher-order functions passing instrumented callbacks to each
 * other, and a pointer to a libc function called indirectly. */
#include <stdio.h>
#include <stdlib.h>

typedef long (*op_fn)(long, long);

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }
static long op_xor(long a, long b) { return a ^ b; }
static long op_max(long a, long b) { return a > b ? a : b; }
static long op_mix(long a, long b)
{
	long s = 0;
	for (int i = 0; i < (int)(b & 3); i++)
		s += a >> i;
	return s;
}

static op_fn const ops[] = {op_add, op_sub, op_mul, op_xor, op_max, op_mix};

/* The pointer call is the last thing: a sibling call through a register. */
__attribute__((noinline)) static long apply(int k, long a, long b)
{
	return ops[k % 6](a, b);
}

static long fold(op_fn f, const long *v, int n, long init)
{
	for (int i = 0; i < n; i++)
		init = f(init, v[i]);
	return init;
}

static void map(long (*g)(long), long *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = g(v[i]);
}

static long square_mod(long x) { return x * x % 1009; }
static long halve(long x) { return x / 2; }

/* A chain of indirect calls through a struct of pointers. */
struct stage {
	long (*f)(long);
	const struct stage *next;
};

static long run_chain(const struct stage *s, long x)
{
	while (s) {
		x = s->f(x);
		s = s->next;
	}
	return x;
}

int main(void)
{
	long acc = 1;
	for (int i = 0; i < 40; i++)
		acc = apply(i, acc, i + 3) % 100003;
	long v[10];
	for (int i = 0; i < 10; i++)
		v[i] = i * 17 + 4;
	map(square_mod, v, 10);
	map(halve, v, 10);
	long folded = fold(op_add, v, 10, 0) * 1000 + fold(op_max, v, 10, 0);
	static const struct stage s3 = {halve, NULL};
	static const struct stage s2 = {square_mod, &s3};
	static const struct stage s1 = {halve, &s2};
	long chained = 0;
	for (long x = 100; x < 120; x++)
		chained += run_chain(&s1, x);
	int (*volatile lib_abs)(int) = abs;
	int ab = 0;
	for (int i = -5; i <= 5; i++)
		ab += lib_abs(i * 7);
	printf("fnptr: %ld %ld %ld %d\n", acc, folded, chained, ab);
	return 0;
}
