/* Switch tables: a dense switch in a loop (a jump table at -O1 and up), Duff's device
 * (a switch that jumps into the middle of a loop) and a sparse switch (compares). */
#include <stdio.h>

/* A register machine: the dense switch runs once per instruction. */
enum { LOADI, MOV, ADD, SUB, MUL, AND, XOR, SHL, DEC, JNZ, JMP, HALT };

struct insn {
	unsigned char op, a, b;
	int imm;
};

static long run(const struct insn *code)
{
	long r[4] = {0};
	int pc = 0;
	for (;;) {
		const struct insn *in = &code[pc++];
		switch (in->op) {
		case LOADI: r[in->a] = in->imm; break;
		case MOV: r[in->a] = r[in->b]; break;
		case ADD: r[in->a] += r[in->b]; break;
		case SUB: r[in->a] -= r[in->b]; break;
		case MUL: r[in->a] *= r[in->b]; break;
		case AND: r[in->a] &= r[in->b]; break;
		case XOR: r[in->a] ^= r[in->b]; break;
		case SHL: r[in->a] <<= in->imm; break;
		case DEC: r[in->a]--; break;
		case JNZ: if (r[in->a]) pc = in->imm; break;
		case JMP: pc = in->imm; break;
		case HALT: return r[0];
		default: return -1;
		}
	}
}

/* Duff's device. */
static int duff_sum(const unsigned char *p, int n)
{
	int s = 0, k = (n + 3) / 4;
	switch (n % 4) {
	case 0: do { s += *p++;
	case 3:      s += *p++;
	case 2:      s += *p++;
	case 1:      s += *p++;
		} while (--k > 0);
	}
	return s;
}

/* A sparse switch: no table, a tree of compares. */
static int classify(int x)
{
	switch (x) {
	case 1: return 3;
	case 10: return 5;
	case 100: return 7;
	case 1000: return 11;
	case -7: return 13;
	default: return 1;
	}
}

int main(void)
{
	/* r0 = 0; for (r1 = 30; r1; r1--) { r2 = r1 * r1; r3 = r1 << 1; r0 += r2 ^ r3; } */
	static const struct insn prog[] = {
		{LOADI, 0, 0, 0},
		{LOADI, 1, 0, 30},
		{JMP, 0, 0, 3},
		/* 3: */ {MOV, 2, 1, 0},
		{MUL, 2, 1, 0},
		{MOV, 3, 1, 0},
		{SHL, 3, 0, 1},
		{XOR, 2, 3, 0},
		{ADD, 0, 2, 0},
		{LOADI, 3, 0, 0x7fffffff},
		{AND, 0, 3, 0},
		{SUB, 3, 3, 0},
		{DEC, 1, 0, 0},
		{JNZ, 1, 0, 3},
		{HALT, 0, 0, 0},
	};
	unsigned char bytes[37];
	for (int i = 0; i < 37; i++)
		bytes[i] = (unsigned char)(i * 29 + 3);
	unsigned cls = 0;
	for (int x = -10; x < 1200; x += 9)
		cls = cls * 3 + classify(x == 998 ? 1000 : x == 98 ? 100 : x);
	printf("switch: %ld %d %d %d %u\n", run(prog), duff_sum(bytes, 37), duff_sum(bytes, 8),
	       duff_sum(bytes + 3, 6), cls);
	return 0;
}
