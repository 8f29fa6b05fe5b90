/* Computed goto: a threaded interpreter (GNU C labels as values). Every instruction
 * ends with an indirect jump to the next one's label, backward or forward. */
#include <stdio.h>

enum { OP_LIT, OP_ADD, OP_MUL, OP_DUP, OP_SWAP, OP_DEC, OP_JNZ, OP_DROP, OP_OVER, OP_HALT };

static long interp(const int *code)
{
	static void *const dispatch[] = {&&lit, &&add, &&mul, &&dup, &&swap,
					 &&dec, &&jnz, &&drop, &&over, &&halt};
	long st[16];
	int sp = 0;
	const int *ip = code;
#define NEXT goto *dispatch[*ip++]
	NEXT;
lit:
	st[sp++] = *ip++;
	NEXT;
add:
	sp--;
	st[sp - 1] += st[sp];
	NEXT;
mul:
	sp--;
	st[sp - 1] *= st[sp];
	NEXT;
dup:
	st[sp] = st[sp - 1];
	sp++;
	NEXT;
swap: {
	long t = st[sp - 1];
	st[sp - 1] = st[sp - 2];
	st[sp - 2] = t;
	NEXT;
}
dec:
	st[sp - 1]--;
	NEXT;
jnz: {
	int to = *ip++;
	if (st[--sp])
		ip = code + to;
	NEXT;
}
drop:
	sp--;
	NEXT;
over:
	st[sp] = st[sp - 2];
	sp++;
	NEXT;
halt:
	return st[sp - 1];
#undef NEXT
}

/* A state machine whose states are labels kept in variables. */
static int scan(const char *s)
{
	void *state = &&start;
	int words = 0, digits = 0;
	for (;; s++) {
		goto *state;
	start:
		if (!*s)
			break;
		if (*s >= '0' && *s <= '9') {
			digits++;
			state = &&in_word;
			words++;
		} else if (*s != ' ') {
			state = &&in_word;
			words++;
		}
		continue;
	in_word:
		if (!*s)
			break;
		if (*s == ' ')
			state = &&start;
		else if (*s >= '0' && *s <= '9')
			digits++;
	}
	return words * 100 + digits;
}

int main(void)
{
	/* acc = 1; n = 12; do { acc = acc * 2 + n; } while (--n); */
	static const int code[] = {
		OP_LIT, 1, OP_LIT, 12,           /* acc n */
		/* 4: */ OP_SWAP, OP_LIT, 2, OP_MUL, /* n acc*2 */
		OP_OVER, OP_ADD,                 /* n acc*2+n */
		OP_SWAP, OP_DEC, OP_DUP,         /* acc' n-1 n-1 */
		OP_JNZ, 4,                       /* acc' n-1 */
		OP_DROP, OP_HALT,
	};
	printf("cgoto: %ld %d\n", interp(code), scan("the 3 little pigs had 12 bricks and 400 straws "));
	return 0;
}
