/* main.c: the program's real main(). sicpp renamed the user's main to __sic_main. */
#include "rp_impl.h"

extern int __sic_main(int argc, char **argv, char **envp);

int main(int argc, char **argv, char **envp)
{
	rp_sic_init();
	return (int)rp_sic_call((void *)__sic_main, (uint64_t)argc, (uint64_t)(uintptr_t)argv,
				(uint64_t)(uintptr_t)envp);
}
