/* Recursion: plain (fib), mutual (even/odd, a small expression parser), tail
 * recursion that the optimiser turns into loops or sibling calls, and a recursive
 * function reached through a pointer. */
#include <stdio.h>

/* Exported: every call goes through its entry check. */
int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Static and only called directly: calls stay local. */
static int is_odd(unsigned n);
static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}
static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

/* Tail recursion: becomes a loop at -O2. */
static unsigned gcd(unsigned a, unsigned b)
{
	return b == 0 ? a : gcd(b, a % b);
}

static long sum_to(long n, long acc)
{
	if (n == 0)
		return acc;
	return sum_to(n - 1, acc + n);
}

static int ackermann(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

/* Mutual recursion with a loop inside: a recursive-descent evaluator. */
static const char *p;
static int expr(void);
static int atom(void)
{
	if (*p == '(') {
		p++;
		int v = expr();
		p++; /* ')' */
		return v;
	}
	int v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}
static int term(void)
{
	int v = atom();
	while (*p == '*') {
		p++;
		v *= atom();
	}
	return v;
}
static int expr(void)
{
	int v = term();
	while (*p == '+' || *p == '-') {
		char op = *p++;
		int w = term();
		v = op == '+' ? v + w : v - w;
	}
	return v;
}

/* Recursion through a function pointer. */
static int (*volatile self)(int);
static int countdown(int n)
{
	return n <= 0 ? 0 : 1 + self(n - 1);
}

/* A sibling call to a foreign function: jmp printf at -O2. */
__attribute__((noinline)) static int report(const char *what, long v)
{
	return printf("%s=%ld ", what, v);
}

int main(void)
{
	self = countdown;
	p = "2*(3+4*(5-1))-(7*2+1)+((1+2)*(3+4))";
	report("fib", fib(13));
	report("even", is_even(77) * 10 + is_odd(40));
	report("gcd", gcd(1071u * 13, 462u * 13));
	report("sum", sum_to(200, 0));
	report("ack", ackermann(2, 3));
	report("expr", expr());
	report("ptr", countdown(25));
	printf("\n");
	return 0;
}
