/*
 * classify.c: what an x86-64 mnemonic does to control flow and to the status flags.
 *
 * The table lists base mnemonics; AT&T size suffixes (b, w, l, q) are stripped when
 * the exact name is not found. A mnemonic that is in no table is "unknown": the flag
 * analysis then assumes it reads every flag, which is always safe (it only makes
 * sicpp choose the flag-preserving counting sequence).
 */
#include "asm.h"

#include <ctype.h>
#include <string.h>

struct entry {
	const char *name;
	enum insn_class cls;
	uint8_t reads, writes;
	bool string_op;
};

#define A FL_ALL
static const struct entry table[] = {
	/* control transfers */
	{"jmp", IC_JMP, 0, 0, 0},
	{"call", IC_CALL, 0, A, 0}, /* the callee clobbers the flags */
	{"ret", IC_RET, 0, 0, 0},
	{"jrcxz", IC_JCC, 0, 0, 0},
	{"jecxz", IC_JCC, 0, 0, 0},
	{"loop", IC_JCC, 0, 0, 0},
	{"loope", IC_JCC, FL_ZF, 0, 0},
	{"loopz", IC_JCC, FL_ZF, 0, 0},
	{"loopne", IC_JCC, FL_ZF, 0, 0},
	{"loopnz", IC_JCC, FL_ZF, 0, 0},
	{"ud2", IC_STOP, 0, 0, 0},
	{"hlt", IC_STOP, 0, 0, 0},
	{"int3", IC_STOP, 0, 0, 0},
	{"ljmp", IC_BAD, 0, 0, 0},
	{"lcall", IC_BAD, 0, 0, 0},
	{"lret", IC_BAD, 0, 0, 0},
	{"retf", IC_BAD, 0, 0, 0},
	{"iret", IC_BAD, 0, 0, 0},
	{"iretq", IC_BAD, 0, 0, 0},
	{"sysret", IC_BAD, 0, 0, 0},
	{"sysexit", IC_BAD, 0, 0, 0},
	{"xbegin", IC_BAD, 0, 0, 0},
	/* arithmetic that defines (or leaves undefined) every status flag */
	{"add", IC_OTHER, 0, A, 0}, {"sub", IC_OTHER, 0, A, 0},
	{"cmp", IC_OTHER, 0, A, 0}, {"test", IC_OTHER, 0, A, 0},
	{"and", IC_OTHER, 0, A, 0}, {"or", IC_OTHER, 0, A, 0},
	{"xor", IC_OTHER, 0, A, 0}, {"neg", IC_OTHER, 0, A, 0},
	{"adc", IC_OTHER, FL_CF, A, 0}, {"sbb", IC_OTHER, FL_CF, A, 0},
	{"mul", IC_OTHER, 0, A, 0}, {"imul", IC_OTHER, 0, A, 0},
	{"div", IC_OTHER, 0, A, 0}, {"idiv", IC_OTHER, 0, A, 0},
	{"bsf", IC_OTHER, 0, A, 0}, {"bsr", IC_OTHER, 0, A, 0},
	{"popcnt", IC_OTHER, 0, A, 0}, {"lzcnt", IC_OTHER, 0, A, 0},
	{"tzcnt", IC_OTHER, 0, A, 0}, {"andn", IC_OTHER, 0, A, 0},
	{"bextr", IC_OTHER, 0, A, 0}, {"blsi", IC_OTHER, 0, A, 0},
	{"blsmsk", IC_OTHER, 0, A, 0}, {"blsr", IC_OTHER, 0, A, 0},
	{"bzhi", IC_OTHER, 0, A, 0}, {"cmpxchg", IC_OTHER, 0, A, 0},
	{"xadd", IC_OTHER, 0, A, 0}, {"popf", IC_OTHER, 0, A, 0},
	{"popfq", IC_OTHER, 0, A, 0}, {"rdrand", IC_OTHER, 0, A, 0},
	{"rdseed", IC_OTHER, 0, A, 0},
	{"comiss", IC_OTHER, 0, A, 0}, {"comisd", IC_OTHER, 0, A, 0},
	{"ucomiss", IC_OTHER, 0, A, 0}, {"ucomisd", IC_OTHER, 0, A, 0},
	{"vcomiss", IC_OTHER, 0, A, 0}, {"vcomisd", IC_OTHER, 0, A, 0},
	{"vucomiss", IC_OTHER, 0, A, 0}, {"vucomisd", IC_OTHER, 0, A, 0},
	{"ptest", IC_OTHER, 0, A, 0}, {"vptest", IC_OTHER, 0, A, 0},
	{"vtestps", IC_OTHER, 0, A, 0}, {"vtestpd", IC_OTHER, 0, A, 0},
	{"pcmpestri", IC_OTHER, 0, A, 0}, {"pcmpestrm", IC_OTHER, 0, A, 0},
	{"pcmpistri", IC_OTHER, 0, A, 0}, {"pcmpistrm", IC_OTHER, 0, A, 0},
	{"vpcmpestri", IC_OTHER, 0, A, 0}, {"vpcmpestrm", IC_OTHER, 0, A, 0},
	{"vpcmpistri", IC_OTHER, 0, A, 0}, {"vpcmpistrm", IC_OTHER, 0, A, 0},
	{"fcomi", IC_OTHER, 0, A, 0}, {"fcomip", IC_OTHER, 0, A, 0},
	{"fucomi", IC_OTHER, 0, A, 0}, {"fucomip", IC_OTHER, 0, A, 0},
	{"kortestb", IC_OTHER, 0, A, 0}, {"kortestw", IC_OTHER, 0, A, 0},
	{"kortestd", IC_OTHER, 0, A, 0}, {"kortestq", IC_OTHER, 0, A, 0},
	{"ktestb", IC_OTHER, 0, A, 0}, {"ktestw", IC_OTHER, 0, A, 0},
	{"ktestd", IC_OTHER, 0, A, 0}, {"ktestq", IC_OTHER, 0, A, 0},
	/* partial writers: the flags they leave alone stay live */
	{"inc", IC_OTHER, 0, FL_INC, 0}, {"dec", IC_OTHER, 0, FL_INC, 0},
	{"bt", IC_OTHER, 0, A & ~FL_ZF, 0}, {"bts", IC_OTHER, 0, A & ~FL_ZF, 0},
	{"btr", IC_OTHER, 0, A & ~FL_ZF, 0}, {"btc", IC_OTHER, 0, A & ~FL_ZF, 0},
	{"rol", IC_OTHER, 0, 0, 0}, {"ror", IC_OTHER, 0, 0, 0},
	{"rcl", IC_OTHER, FL_CF, 0, 0}, {"rcr", IC_OTHER, FL_CF, 0, 0},
	{"cmpxchg8b", IC_OTHER, 0, FL_ZF, 0}, {"cmpxchg16b", IC_OTHER, 0, FL_ZF, 0},
	{"sahf", IC_OTHER, 0, A & ~FL_OF, 0},
	{"clc", IC_OTHER, 0, FL_CF, 0}, {"stc", IC_OTHER, 0, FL_CF, 0},
	{"cmc", IC_OTHER, FL_CF, FL_CF, 0},
	{"adcx", IC_OTHER, FL_CF, FL_CF, 0}, {"adox", IC_OTHER, FL_OF, FL_OF, 0},
	/* shifts: handled in classify() by their count operand */
	{"shl", IC_OTHER, 0, 0, 0}, {"sal", IC_OTHER, 0, 0, 0},
	{"shr", IC_OTHER, 0, 0, 0}, {"sar", IC_OTHER, 0, 0, 0},
	{"shld", IC_OTHER, 0, 0, 0}, {"shrd", IC_OTHER, 0, 0, 0},
	/* readers */
	{"pushf", IC_OTHER, A, 0, 0}, {"pushfq", IC_OTHER, A, 0, 0},
	{"lahf", IC_OTHER, A & ~FL_OF, 0, 0},
	{"fcmovb", IC_OTHER, FL_CF, 0, 0}, {"fcmovnb", IC_OTHER, FL_CF, 0, 0},
	{"fcmove", IC_OTHER, FL_ZF, 0, 0}, {"fcmovne", IC_OTHER, FL_ZF, 0, 0},
	{"fcmovbe", IC_OTHER, FL_CF | FL_ZF, 0, 0}, {"fcmovnbe", IC_OTHER, FL_CF | FL_ZF, 0, 0},
	{"fcmovu", IC_OTHER, FL_PF, 0, 0}, {"fcmovnu", IC_OTHER, FL_PF, 0, 0},
	/* string instructions: no flags unless they compare */
	{"movs", IC_OTHER, 0, 0, 1}, {"stos", IC_OTHER, 0, 0, 1},
	{"lods", IC_OTHER, 0, 0, 1}, {"ins", IC_OTHER, 0, 0, 1},
	{"outs", IC_OTHER, 0, 0, 1},
	{"cmps", IC_OTHER, 0, A, 1}, {"scas", IC_OTHER, 0, A, 1},
	/* neither read nor write the status flags */
	{"mov", IC_OTHER, 0, 0, 0}, {"movabs", IC_OTHER, 0, 0, 0},
	{"movzb", IC_OTHER, 0, 0, 0}, {"movzw", IC_OTHER, 0, 0, 0},
	{"movsb", IC_OTHER, 0, 0, 0}, {"movsw", IC_OTHER, 0, 0, 0},
	{"movsl", IC_OTHER, 0, 0, 0}, {"movslq", IC_OTHER, 0, 0, 0},
	{"movzbl", IC_OTHER, 0, 0, 0}, {"movzwl", IC_OTHER, 0, 0, 0},
	{"movzbq", IC_OTHER, 0, 0, 0}, {"movzwq", IC_OTHER, 0, 0, 0},
	{"movzbw", IC_OTHER, 0, 0, 0}, {"movsbl", IC_OTHER, 0, 0, 0},
	{"movsbw", IC_OTHER, 0, 0, 0}, {"movsbq", IC_OTHER, 0, 0, 0},
	{"movswl", IC_OTHER, 0, 0, 0}, {"movswq", IC_OTHER, 0, 0, 0},
	{"movbe", IC_OTHER, 0, 0, 0}, {"movnti", IC_OTHER, 0, 0, 0},
	{"lea", IC_OTHER, 0, 0, 0}, {"push", IC_OTHER, 0, 0, 0},
	{"pop", IC_OTHER, 0, 0, 0}, {"xchg", IC_OTHER, 0, 0, 0},
	{"bswap", IC_OTHER, 0, 0, 0}, {"not", IC_OTHER, 0, 0, 0},
	{"nop", IC_OTHER, 0, 0, 0}, {"endbr64", IC_OTHER, 0, 0, 0},
	/* a prefix on a line of its own (gcc's TLS sequences: `.value 0x6666; rex64`) */
	{"rex64", IC_OTHER, 0, 0, 0}, {"rex", IC_OTHER, 0, 0, 0},
	{"rex.w", IC_OTHER, 0, 0, 0}, {"data16", IC_OTHER, 0, 0, 0},
	{"data32", IC_OTHER, 0, 0, 0}, {"addr32", IC_OTHER, 0, 0, 0},
	{"endbr32", IC_OTHER, 0, 0, 0}, {"pause", IC_OTHER, 0, 0, 0},
	{"leave", IC_OTHER, 0, 0, 0}, {"enter", IC_OTHER, 0, 0, 0},
	{"cltq", IC_OTHER, 0, 0, 0}, {"cqto", IC_OTHER, 0, 0, 0},
	{"cltd", IC_OTHER, 0, 0, 0}, {"cwtl", IC_OTHER, 0, 0, 0},
	{"cwtd", IC_OTHER, 0, 0, 0}, {"cbtw", IC_OTHER, 0, 0, 0},
	{"cqo", IC_OTHER, 0, 0, 0}, {"cdq", IC_OTHER, 0, 0, 0},
	{"cdqe", IC_OTHER, 0, 0, 0}, {"cld", IC_OTHER, 0, 0, 0},
	{"std", IC_OTHER, 0, 0, 0}, {"lfence", IC_OTHER, 0, 0, 0},
	{"mfence", IC_OTHER, 0, 0, 0}, {"sfence", IC_OTHER, 0, 0, 0},
	{"rdtsc", IC_OTHER, 0, 0, 0}, {"rdtscp", IC_OTHER, 0, 0, 0},
	{"cpuid", IC_OTHER, 0, 0, 0}, {"syscall", IC_OTHER, 0, 0, 0},
	{"pdep", IC_OTHER, 0, 0, 0}, {"pext", IC_OTHER, 0, 0, 0},
	{"rorx", IC_OTHER, 0, 0, 0}, {"sarx", IC_OTHER, 0, 0, 0},
	{"shlx", IC_OTHER, 0, 0, 0}, {"shrx", IC_OTHER, 0, 0, 0},
	{"mulx", IC_OTHER, 0, 0, 0}, {"crc32", IC_OTHER, 0, 0, 0},
	{"prefetcht0", IC_OTHER, 0, 0, 0}, {"prefetcht1", IC_OTHER, 0, 0, 0},
	{"prefetcht2", IC_OTHER, 0, 0, 0}, {"prefetchnta", IC_OTHER, 0, 0, 0},
	{"prefetchw", IC_OTHER, 0, 0, 0}, {"xgetbv", IC_OTHER, 0, 0, 0},
	{"xsave", IC_OTHER, 0, 0, 0}, {"xrstor", IC_OTHER, 0, 0, 0},
	{"fxsave", IC_OTHER, 0, 0, 0}, {"fxrstor", IC_OTHER, 0, 0, 0},
	{"ldmxcsr", IC_OTHER, 0, 0, 0}, {"stmxcsr", IC_OTHER, 0, 0, 0},
	{"vzeroupper", IC_OTHER, 0, 0, 0}, {"emms", IC_OTHER, 0, 0, 0},
	{NULL, 0, 0, 0, 0},
};
#undef A

static const struct {
	const char *cc;
	uint8_t reads;
} conditions[] = {
	{"o", FL_OF}, {"no", FL_OF},
	{"b", FL_CF}, {"c", FL_CF}, {"nae", FL_CF},
	{"ae", FL_CF}, {"nb", FL_CF}, {"nc", FL_CF},
	{"e", FL_ZF}, {"z", FL_ZF}, {"ne", FL_ZF}, {"nz", FL_ZF},
	{"be", FL_CF | FL_ZF}, {"na", FL_CF | FL_ZF},
	{"a", FL_CF | FL_ZF}, {"nbe", FL_CF | FL_ZF},
	{"s", FL_SF}, {"ns", FL_SF},
	{"p", FL_PF}, {"pe", FL_PF}, {"np", FL_PF}, {"po", FL_PF},
	{"l", FL_SF | FL_OF}, {"nge", FL_SF | FL_OF},
	{"ge", FL_SF | FL_OF}, {"nl", FL_SF | FL_OF},
	{"le", FL_ZF | FL_SF | FL_OF}, {"ng", FL_ZF | FL_SF | FL_OF},
	{"g", FL_ZF | FL_SF | FL_OF}, {"nle", FL_ZF | FL_SF | FL_OF},
	{NULL, 0},
};

int cc_reads(const char *cc)
{
	for (int i = 0; conditions[i].cc; i++)
		if (strcmp(conditions[i].cc, cc) == 0)
			return conditions[i].reads;
	return -1;
}

static const struct entry *lookup(const char *m)
{
	for (const struct entry *e = table; e->name; e++)
		if (strcmp(e->name, m) == 0)
			return e;
	return NULL;
}

static bool is_vector_operand(const char *op)
{
	return strstr(op, "%xmm") || strstr(op, "%ymm") || strstr(op, "%zmm") ||
	       strstr(op, "%mm") || strstr(op, "%k") || strstr(op, "%st");
}

/* A shift's count: an immediate other than $0, or the implicit 1, defines the flags;
 * a count in %cl may be zero, which leaves every flag as it was. */
static uint8_t shift_writes(int nops, char **ops)
{
	if (nops <= 1)
		return FL_ALL;
	const char *c = ops[0];
	if (c[0] == '$')
		return strcmp(c, "$0") == 0 || strcmp(c, "$0x0") == 0 ? 0 : FL_ALL;
	return 0;
}

struct insn_info classify(const char *m, const char *prefix, int nops, char **ops)
{
	struct insn_info in = {.cls = IC_OTHER, .reads = FL_ALL, .writes = 0, .known = false};
	char buf[64];
	size_t len = strlen(m);
	if (len == 0 || len >= sizeof buf)
		return in;
	memcpy(buf, m, len + 1);

	/* jcc, setcc, cmovcc: the condition says which flags are read. */
	if (buf[0] == 'j' && strcmp(buf, "jmp") != 0 && cc_reads(buf + 1) >= 0) {
		in.cls = IC_JCC, in.reads = cc_reads(buf + 1), in.known = true;
		return in;
	}
	if (strncmp(buf, "set", 3) == 0 && cc_reads(buf + 3) >= 0) {
		in.cls = IC_OTHER, in.reads = cc_reads(buf + 3), in.known = true;
		return in;
	}
	if (strncmp(buf, "cmov", 4) == 0) {
		int r = cc_reads(buf + 4);
		if (r < 0 && len > 5 && strchr("wlq", buf[len - 1])) {
			buf[len - 1] = '\0';
			r = cc_reads(buf + 4);
		}
		if (r >= 0) {
			in.cls = IC_OTHER, in.reads = r, in.known = true;
			return in;
		}
	}
	const struct entry *e = lookup(buf);
	if (!e && len > 2 && strchr("bwlq", buf[len - 1])) {
		buf[len - 1] = '\0';
		e = lookup(buf);
	}
	if (e) {
		in.cls = e->cls, in.reads = e->reads, in.writes = e->writes, in.known = true;
		in.string_op = e->string_op;
		if (!strcmp(e->name, "shl") || !strcmp(e->name, "sal") || !strcmp(e->name, "shr") ||
		    !strcmp(e->name, "sar") || !strcmp(e->name, "shld") || !strcmp(e->name, "shrd"))
			in.writes = shift_writes(nops, ops);
		if (in.string_op && prefix && strstr(prefix, "rep"))
			in.writes = 0; /* a zero count leaves the flags alone */
		/* "movsl"/"movsq" are string moves; "movsl %eax" style never appears. */
		if (in.cls == IC_OTHER && nops == 0 && (!strcmp(m, "movsb") || !strcmp(m, "movsw") ||
		    !strcmp(m, "movsl") || !strcmp(m, "movsq")))
			in.string_op = true;
		return in;
	}
	/* x87 and SIMD: no effect on EFLAGS except the compares listed above. */
	if (m[0] == 'f' || m[0] == 'v' || (nops > 0 && is_vector_operand(ops[nops - 1])) ||
	    (nops > 0 && is_vector_operand(ops[0]))) {
		in.reads = 0, in.known = true;
		return in;
	}
	return in;
}

bool mentions_r15(const char *s)
{
	for (const char *p = s; (p = strstr(p, "%r15")); p += 4) {
		char c = p[4];
		if (c == 'd' || c == 'w' || c == 'b' || !(isalnum((unsigned char)c) || c == '_'))
			return true;
	}
	return false;
}
