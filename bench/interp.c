/* interp: a stack-machine bytecode interpreter with a switch in a loop (gcc turns
 * the switch into a jump table: one indirect jump per instruction). The program it
 * runs counts the primes below a limit by trial division, and sums them. Short,
 * unpredictable handlers: dispatch bound. */
#include "bench.h"

enum op {
	OP_PUSH,  /* push imm */
	OP_LOAD,  /* push var[imm] */
	OP_STORE, /* var[imm] = pop */
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_MOD,
	OP_LT,    /* push (a < b) */
	OP_JZ,    /* if pop == 0 goto imm */
	OP_JMP,   /* goto imm */
	OP_INC,   /* var[imm]++ */
	OP_HALT,
};

struct insn {
	int op;
	int imm;
};

enum { V_N, V_LIMIT, V_D, V_COUNT, V_SUM, V_PRIME, NVARS };

/* for (n = 2; n < limit; n++) {
 *     prime = 1;
 *     for (d = 2; d * d < n + 1; d++)
 *         if (n % d == 0) { prime = 0; break; }
 *     if (prime) { count++; sum += n; }
 * } */
static const struct insn program[] = {
	/*  0 */ {OP_PUSH, 2}, {OP_STORE, V_N},
	/*  2 */ {OP_LOAD, V_N}, {OP_LOAD, V_LIMIT}, {OP_LT, 0}, {OP_JZ, 37},
	/*  6 */ {OP_PUSH, 1}, {OP_STORE, V_PRIME},
	/*  8 */ {OP_PUSH, 2}, {OP_STORE, V_D},
	/* 10 */ {OP_LOAD, V_D}, {OP_LOAD, V_D}, {OP_MUL, 0},
	/* 13 */ {OP_LOAD, V_N}, {OP_PUSH, 1}, {OP_ADD, 0}, {OP_LT, 0}, {OP_JZ, 27},
	/* 18 */ {OP_LOAD, V_N}, {OP_LOAD, V_D}, {OP_MOD, 0}, {OP_JZ, 24},
	/* 22 */ {OP_INC, V_D}, {OP_JMP, 10},
	/* 24 */ {OP_PUSH, 0}, {OP_STORE, V_PRIME}, {OP_JMP, 27},
	/* 27 */ {OP_LOAD, V_PRIME}, {OP_JZ, 35},
	/* 29 */ {OP_INC, V_COUNT},
	/* 30 */ {OP_LOAD, V_SUM}, {OP_LOAD, V_N}, {OP_ADD, 0}, {OP_STORE, V_SUM},
	/* 34 */ {OP_JMP, 35},
	/* 35 */ {OP_INC, V_N}, {OP_JMP, 2},
	/* 37 */ {OP_HALT, 0},
};

static long __attribute__((noinline)) run(const struct insn *code, long *var)
{
	long stack[64];
	long *sp = stack;
	long steps = 0;
	const struct insn *pc = code;
	for (;;) {
		const struct insn *in = pc++;
		steps++;
		switch (in->op) {
		case OP_PUSH: *sp++ = in->imm; break;
		case OP_LOAD: *sp++ = var[in->imm]; break;
		case OP_STORE: var[in->imm] = *--sp; break;
		case OP_ADD: sp--; sp[-1] += sp[0]; break;
		case OP_SUB: sp--; sp[-1] -= sp[0]; break;
		case OP_MUL: sp--; sp[-1] *= sp[0]; break;
		case OP_MOD: sp--; sp[-1] %= sp[0]; break;
		case OP_LT: sp--; sp[-1] = sp[-1] < sp[0]; break;
		case OP_JZ: if (*--sp == 0) pc = code + in->imm; break;
		case OP_JMP: pc = code + in->imm; break;
		case OP_INC: var[in->imm]++; break;
		case OP_HALT: return steps;
		default: return -1;
		}
	}
}

int main(int argc, char **argv)
{
	long limit = 400000L * bench_scale(argc, argv) / 100;
	long var[NVARS] = {0};
	var[V_LIMIT] = limit;

	double t0 = bench_begin();
	long steps = run(program, var);
	double t1 = bench_end();

	uint64_t sum = (uint64_t)steps * 1000003 + (uint64_t)var[V_COUNT] * 31 + (uint64_t)var[V_SUM];
	bench_report("interp", t1 - t0, sum);
	return 0;
}
