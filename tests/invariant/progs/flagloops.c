/* Loops with live flags at their head, from flagloops-head.s (hand-written, see
 * there), checked against the same computations in C. */
#include <stdio.h>

long fl_count_up(const int *a, long n);
long fl_signs(const int *a, long n);
unsigned long fl_add_n(unsigned long *r, const unsigned long *a, const unsigned long *b, long n);

int main(void)
{
	int a[50];
	for (int i = 0; i < 50; i++)
		a[i] = (i * 13 + 7) % 31 - 15;
	long up = 0, signs = 0;
	for (int i = 0; i + 1 < 50; i++)
		up += a[i] < a[i + 1];
	for (int i = 0; i < 50; i++)
		signs += (a[i] > 0) - (a[i] < 0);

	unsigned long x[12], y[12], r[12], want[12];
	for (int i = 0; i < 12; i++) {
		x[i] = i % 3 ? ~0UL - (unsigned long)i : (unsigned long)i << 60;
		y[i] = (unsigned long)(i * i) + (i % 4 == 1);
	}
	unsigned long carry = 0;
	for (int i = 0; i < 12; i++) {
		unsigned long s = x[i] + y[i];
		unsigned long c = s < x[i];
		want[i] = s + carry;
		c |= want[i] < s;
		carry = c;
	}
	unsigned long got_carry = fl_add_n(r, x, y, 12);
	int same = got_carry == carry;
	for (int i = 0; i < 12; i++)
		same &= r[i] == want[i];

	long got_up = fl_count_up(a, 50), got_signs = fl_signs(a, 50);
	printf("flagloops: %ld %ld %lu %s\n", got_up, got_signs, got_carry,
	       got_up == up && got_signs == signs && same ? "ok" : "MISMATCH");
	return got_up == up && got_signs == signs && same ? 0 : 1;
}
