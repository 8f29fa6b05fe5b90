/* nopersona: run a command under a seccomp filter that refuses personality() as
 * Docker's default profile does: only 0, 8, 0x20000, 0x20008 and 0xffffffff are
 * allowed, any other argument (ADDR_NO_RANDOMIZE among them) fails with EPERM.
 *
 *   nopersona COMMAND [ARGS...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG0 offsetof(struct seccomp_data, args[0])

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* personality takes an unsigned int: the low half of the argument */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 8, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x20000, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x20008, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
	if (argc < 2) {
		fprintf(stderr, "usage: nopersona COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "nopersona: seccomp: %s\n", strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nopersona: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
