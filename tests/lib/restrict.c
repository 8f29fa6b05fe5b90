/* restrict: run a command as the machines our users have would (design.md, "Machines
 * differ"), by a seccomp filter written in BPF, inherited across exec and fork:
 *   --no-perf             perf_event_open fails with EPERM (Docker's default profile,
 *                         a kernel's perf_event_paranoid refusing an ordinary user)
 *   --docker-personality  personality fails with EPERM unless its argument is 0, 8,
 *                         0x20000, 0x20008 or 0xffffffff (Docker's default profile)
 *   --no-ldt              modify_ldt fails with EPERM
 *   --fake-ldt            modify_ldt returns 0 and does nothing, so that loading the
 *                         selector faults, as on a KVM guest whose kernel refuses them
 * Anything but an x86-64 system call kills the process. */
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

#define USAGE "usage: restrict [--no-perf] [--docker-personality] [--no-ldt|--fake-ldt] [--] COMMAND ARGS..."

#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + 4) /* little-endian */

static struct sock_filter prog[64];
static unsigned short len;

static void emit(unsigned short code, unsigned char jt, unsigned char jf, unsigned k)
{
	prog[len++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
}

/* nr gets action; the accumulator holds the system call's number. */
static void refuse(unsigned nr, unsigned action)
{
	emit(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, nr);
	emit(BPF_RET | BPF_K, 0, 0, action);
}

/* personality(persona): allowed for Docker's five values, EPERM otherwise. The block
 * ends by jumping to the ALLOW that follows it. */
static void docker_personality(void)
{
	static const unsigned allowed[] = {0, 8, 0x20000, 0x20008, 0xffffffff};
	const unsigned n = sizeof allowed / sizeof *allowed;
	emit(BPF_JMP | BPF_JEQ | BPF_K, 0, 2 + 1 + n + 1, __NR_personality);
	emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG0_HI);
	emit(BPF_JMP | BPF_JEQ | BPF_K, 0, 1 + n, 0); /* a high half: EPERM */
	emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG0_LO);
	for (unsigned i = 0; i < n; i++) /* the last one's false branch falls to EPERM */
		emit(BPF_JMP | BPF_JEQ | BPF_K, n - i, 0, allowed[i]);
	emit(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | EPERM);
}

int main(int argc, char **argv)
{
	int no_perf = 0, personality = 0, ldt = 0, i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--no-perf")) {
			no_perf = 1;
		} else if (!strcmp(argv[i], "--docker-personality")) {
			personality = 1;
		} else if (!strcmp(argv[i], "--no-ldt") || !strcmp(argv[i], "--fake-ldt")) {
			if (ldt) {
				fprintf(stderr, "restrict: one of --no-ldt and --fake-ldt; " USAGE "\n");
				return 2;
			}
			ldt = argv[i][2];
		} else {
			fprintf(stderr, "restrict: unknown flag '%s'; " USAGE "\n", argv[i]);
			return 2;
		}
	}
	if (i == argc) {
		fprintf(stderr, "restrict: no command; " USAGE "\n");
		return 2;
	}

	emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
	emit(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AUDIT_ARCH_X86_64);
	emit(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
	emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	if (no_perf)
		refuse(__NR_perf_event_open, SECCOMP_RET_ERRNO | EPERM);
	if (ldt)
		refuse(__NR_modify_ldt, SECCOMP_RET_ERRNO | (ldt == 'n' ? EPERM : 0));
	if (personality)
		docker_personality();
	emit(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);

	struct sock_fprog fprog = {.len = len, .filter = prog};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "restrict: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		return 126;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
		fprintf(stderr, "restrict: PR_SET_SECCOMP: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "restrict: %s: %s\n", argv[i], strerror(errno));
	return 127;
}
