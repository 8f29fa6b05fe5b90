/* ldt_filter.c: run a program under a seccomp filter that makes modify_ldt lie or
 * refuse, as on a machine whose LDT selectors fault (plain gcc, not sicc):
 *
 *   ldt_filter fake|eperm PROGRAM [ARGS...]
 *
 * fake: modify_ldt returns 0 and does nothing, so loading the selector it was to
 * set up faults, as on a KVM guest with kernel 6.18 on AMD EPYC (design.md,
 * "Machines differ"); eperm: it fails with EPERM (a seccomp profile that forbids
 * it). Everything else is allowed; the filter outlives the exec. */
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

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "fake") && strcmp(argv[1], "eperm"))) {
		fprintf(stderr, "usage: ldt_filter fake|eperm PROGRAM [ARGS...]\n");
		return 2;
	}
	unsigned errno_data = argv[1][0] == 'f' ? 0 : EPERM;
	struct sock_filter code[] = {
		/* another ABI's system call numbers mean other calls: refuse them all */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_modify_ldt, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | errno_data),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof code / sizeof *code, .filter = code};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("ldt_filter: seccomp");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("ldt_filter: exec");
	return 2;
}
