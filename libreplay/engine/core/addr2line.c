/* addr2line.c: addr2line run on pcs of this executable, for the crash report
 * (ending/crash.c) and the race reports (races/races_report.c). System calls only,
 * nothing allocated: the crash handler runs it. */
#include "engine/core.h"
#include "base/rp_syscall.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>

size_t rp_addr2line(char *const argv[], char *buf, size_t len)
{
	int fds[2];
	size_t got = 0;
	buf[0] = '\0';
	if (rp_raw_syscall(SYS_pipe2, (long)fds, O_CLOEXEC, 0, 0, 0, 0) != 0)
		return 0;
	/* fork by the system call: no atfork handler of the program or ours runs. */
	long pid = rp_raw_syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (pid == 0) {
		static char *const envp[] = {"LC_ALL=C", NULL};
		rp_raw_syscall(SYS_dup2, fds[1], 1, 0, 0, 0, 0);
		rp_raw_syscall(SYS_execve, (long)"/usr/bin/addr2line", (long)argv, (long)envp, 0, 0, 0);
		rp_raw_syscall(SYS_exit_group, 127, 0, 0, 0, 0, 0);
	}
	rp_sys_close(fds[1]);
	ssize_t r;
	while (pid > 0 && got < len - 1 && (r = rp_sys_read(fds[0], buf + got, len - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	rp_sys_close(fds[0]);
	if (pid > 0)
		rp_raw_syscall(SYS_wait4, pid, 0, 0, 0, 0, 0);
	return got;
}
