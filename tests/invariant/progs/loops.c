/* Loops: nested for/while/do, break and continue, goto loops, loops whose condition
 * is a comparison result (setcc), carry chains (adc), and loops with early exits. */
#include <stdio.h>

static int table[40];

/* Nested for loops, with an inner loop that runs zero times for some rows. */
static int triangle(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			s += (i ^ j) & 3;
	return s;
}

/* while with break and continue. */
static int collatz_steps(unsigned x)
{
	int n = 0;
	while (1) {
		if (x == 1)
			break;
		n++;
		if (x & 1) {
			x = 3 * x + 1;
			continue;
		}
		x >>= 1;
	}
	return n;
}

/* do/while that always runs once; the condition mixes comparisons. */
static int digits(unsigned x)
{
	int n = 0;
	do {
		n++;
		x /= 10;
	} while (x != 0 && n < 20);
	return n;
}

/* Comparison results used as numbers: setcc (and adc/sbb) at the loop's heart. */
int count_ascents(const int *a, int n)
{
	int k = 0;
	for (int i = 1; i < n; i++)
		k += (a[i] > a[i - 1]) - (a[i] < a[i - 1]) + (a[i] == a[i - 1]) * 2;
	return k;
}

/* A carry chain: the carry of one iteration feeds the next. */
unsigned long long add_n(unsigned long long *r, const unsigned long long *a,
			 const unsigned long long *b, int n)
{
	unsigned long long carry = 0;
	for (int i = 0; i < n; i++) {
		unsigned long long s;
		unsigned long long c1 = __builtin_add_overflow(a[i], b[i], &s);
		unsigned long long c2 = __builtin_add_overflow(s, carry, &r[i]);
		carry = c1 | c2;
	}
	return carry;
}

/* Unsigned borrow through a loop: sbb-like. */
unsigned long long sub_borrow(unsigned long long x, const unsigned long long *a, int n)
{
	unsigned long long borrows = 0;
	for (int i = 0; i < n; i++) {
		borrows += x < a[i];
		x -= a[i];
	}
	return borrows * 1000 + (x & 0xfff);
}

/* A loop written with goto, and one that leaves from its middle. */
static int goto_loop(int n)
{
	int i = 0, s = 0;
top:
	s += i * i;
	if (++i < n)
		goto top;
	return s;
}

static int find_first(const int *a, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (a[i] == v)
			return i;
	return -1;
}

/* Nested loops where the inner loop's condition depends on the outer one. */
static int sieve_count(int n)
{
	static char composite[200];
	int primes = 0;
	for (int i = 2; i < n; i++) {
		if (composite[i])
			continue;
		primes++;
		for (int j = i * i; j < n; j += i)
			composite[j] = 1;
	}
	return primes;
}

int main(void)
{
	for (int i = 0; i < 40; i++)
		table[i] = (i * 37 + 11) % 23;
	unsigned long long a[8], b[8], r[8];
	for (int i = 0; i < 8; i++) {
		a[i] = ~0ULL - (unsigned)i;
		b[i] = (unsigned)i * 3 + (i & 1);
	}
	unsigned long long carry = add_n(r, a, b, 8);
	unsigned long long big[20];
	for (int i = 0; i < 20; i++)
		big[i] = (unsigned long long)table[i] << (i & 7);
	unsigned long long rsum = 0;
	for (int i = 0; i < 8; i++)
		rsum = rsum * 31 + r[i];
	int col = 0;
	for (unsigned x = 1; x < 12; x++)
		col += collatz_steps(x);
	printf("loops: %d %d %d %d %llu %llx %llu %d %d %d\n", triangle(24), col,
	       digits(4000000000u) + digits(7), count_ascents(table, 40), carry, rsum,
	       sub_borrow(100, big, 20), goto_loop(30),
	       find_first(table, 40, 5), sieve_count(200));
	return 0;
}
