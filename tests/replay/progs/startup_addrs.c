/* Every address the program can see of its start is the same in a recording and its
 * replay, whatever flags either command line had: argv (the array and its strings),
 * the environment (environ, main's envp, getenv's strings), the auxiliary vector
 * (after envp's NULL, and getauxval's pointers), program_invocation_name, main's
 * stack and a thread's. A table hashed by the strings' addresses, as an interpreter
 * interning its arguments would keep, prints them in the same order too (and the
 * environment's STARTUP_ADDRS_VAR when it is set: the environment's strings move
 * with the environment, which gdb changes). The personality line says whether
 * address randomisation is off. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

extern char **environ;

static void *thread_stack(void *arg)
{
	int local;
	printf("thread stack %p\n", (void *)&local);
	return NULL;
}

/* An open-addressing table keyed by pointer: its order depends on the addresses. */
#define SLOTS 61
static const char *table[SLOTS];

static void intern(const char *s)
{
	size_t h = ((uintptr_t)s >> 3) % SLOTS;
	while (table[h] && table[h] != s)
		h = (h + 1) % SLOTS;
	table[h] = s;
}

int main(int argc, char **argv, char **envp)
{
	int local;
	printf("argc %d argv %p envp %p environ %p\n", argc, (void *)argv, (void *)envp,
	       (void *)environ);
	for (int i = 0; i < argc; i++)
		printf("argv[%d] %p\n", i, (void *)argv[i]);
	const char *home = getenv("STARTUP_ADDRS_VAR");
	printf("getenv %p %s\n", (void *)home, home ? home : "(unset)");
	char **e = envp;
	while (*e)
		e++;
	Elf64_auxv_t *aux = (Elf64_auxv_t *)(e + 1);
	int n = 0;
	for (Elf64_auxv_t *a = aux; a->a_type != AT_NULL; a++)
		n++;
	printf("auxv %p, %d entries\n", (void *)aux, n);
	printf("AT_RANDOM %#lx AT_PLATFORM %#lx\n", getauxval(AT_RANDOM), getauxval(AT_PLATFORM));
	printf("AT_EXECFN %#lx\n", getauxval(AT_EXECFN));
	printf("program_invocation_name %p\n", (void *)program_invocation_name);
	printf("main stack %p\n", (void *)&local);
	pthread_t t;
	pthread_create(&t, NULL, thread_stack, NULL);
	pthread_join(t, NULL);

	for (int i = 0; i < argc; i++)
		intern(argv[i]);
	for (char **v = envp; *v; v++)
		if (!strncmp(*v, "STARTUP_ADDRS", 13))
			intern(*v);
	printf("interned:");
	for (int i = 0; i < SLOTS; i++)
		if (table[i])
			printf(" %s", table[i] == argv[0] ? "argv0" : table[i]);
	printf("\n");

	FILE *f = fopen("/proc/self/personality", "r");
	unsigned p = 0;
	if (f && fscanf(f, "%x", &p) == 1)
		printf("address randomisation %s\n", p & 0x0040000 ? "off" : "on");
	if (f)
		fclose(f);
	return 0;
}
