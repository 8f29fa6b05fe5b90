/* pt_fork.c: fork in a program with several threads is refused, loudly. POSIX gives
 * the child only the thread that forked; here every green thread lives in the one
 * kernel thread's memory, so the child would hold copies of all of them and run
 * them whenever the forking one blocks. With one live thread fork works as usual
 * (the child runs on unrecorded, engine/session.c). The refusal is an error the program can
 * handle (fork may fail), and it happens alike when recording and replaying, so the
 * recording still replays. posix_spawn, system and popen (glibc starts the child
 * with clone(CLONE_VM|CLONE_VFORK) and execs at once, running none of the program's
 * code) are fine. */
#include "inputs/inputs.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <unistd.h>

extern pid_t __fork(void);

static int live_threads(void)
{
	int n = 0;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info info;
		sched_thread_info(t, &info);
		n += info.state != SCHED_EXITED;
	}
	return n;
}

unsigned pt_forks;

pid_t fork(void)
{
	/* gdb's checkpoint calls fork() in the program: a copy of the replay, to be
	 * restored later as it is (debug.c), so no handler runs in either process. */
	if (rp_debug.checkpointing) {
		pid_t pid = (pid_t)rp_raw_syscall(SYS_fork, 0, 0, 0, 0, 0, 0);
		if (pid > 0)
			rp_debug_forked(); /* gdb holds the child where it forked */
		return pid;
	}
	int n = live_threads();
	if (n > 1) {
		rp_say("fork() with %d live threads: not supported (the child "
				"would get every green thread); fork before creating threads, or "
				"use posix_spawn", n);
		errno = ENOSYS;
		return -1;
	}
	pid_t pid = __fork();
	if (pid > 0)
		pt_forks++;
	return pid;
}

/* vfork may be fork (POSIX); a wrapper could not return into vfork's shared stack. */
pid_t vfork(void)
{
	return fork();
}
