/* Functions another file calls by name: in a -g build each gets a direct entry
 * (sicpp/dwarf.c), which gdb must treat as the gcc build's function. */
int total;

static __attribute__((noinline)) int square(int v)
{
	int s = v * v;
	total += s;
	return s;
}

__attribute__((noinline)) int work(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++)
		acc += square(i);
	return acc + 1;
}

/* A leaf another file calls by name: in a -g build its count is at its body's start,
 * where every call comes (docs/sic.md, "Calls between files"). */
__attribute__((noinline)) int scale(int v)
{
	return v * 3 + total;
}

/* Split by gcc into hot and cold parts (checked.cold, the abort): its DIE has ranges
 * of gcc's already, to which sicpp adds its check's. */
__attribute__((noinline)) int checked(int n)
{
	if (n < 0)
		__builtin_abort();
	return n + total;
}
