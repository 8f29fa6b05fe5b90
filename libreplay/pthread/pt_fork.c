/* pt_fork.c: fork in a program with several threads is refused, loudly. POSIX gives
 * the child only the thread that forked; here every green thread lives in the one
 * kernel thread's memory, so the child would hold copies of all of them and run
 * them whenever the forking one blocks. With one live thread fork works as usual
 * (the child runs on unrecorded, engine/session/session.c). The refusal is an error the program can
 * handle (fork may fail), and it happens alike when recording and replaying, so the
 * recording still replays. posix_spawn, system and popen (glibc starts the child
 * with clone(CLONE_VM|CLONE_VFORK) and execs at once, running none of the program's
 * code) are fine; each counts as a fork in pt_forks. */
#include "inputs/inputs.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
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

/* posix_spawn, posix_spawnp and system start a child that may hold the other end of
 * a pipe or socketpair the program made (any not close-on-exec): to the io layer
 * that is a fork (io_rw.c, io_park.c: their pieces come at the child's pace). glibc's
 * system spawns through an internal call, so it is wrapped too. */
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* The C library's functions, looked up at their first call and kept. */
static spawn_fn *real_posix_spawn, *real_posix_spawnp;
static int (*real_system)(const char *);

static int spawn(spawn_fn **real, const char *name, pid_t *pid, const char *file,
		 const posix_spawn_file_actions_t *acts, const posix_spawnattr_t *attr,
		 char *const argv[], char *const envp[])
{
	if (!*real)
		*real = (spawn_fn *)dlsym(RTLD_NEXT, name);
	if (!*real)
		return ENOSYS;
	pt_forks++;
	return (*real)(pid, file, acts, attr, argv, envp);
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *acts,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawn, "posix_spawn", pid, path, acts, attr, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *acts,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawnp, "posix_spawnp", pid, file, acts, attr, argv, envp);
}

int system(const char *command)
{
	if (!real_system)
		real_system = (int (*)(const char *))dlsym(RTLD_NEXT, "system");
	if (!real_system) {
		errno = ENOSYS;
		return -1;
	}
	if (command)
		pt_forks++;
	return real_system(command);
}

/* vfork may be fork (POSIX); a wrapper could not return into vfork's shared stack. */
pid_t vfork(void)
{
	return fork();
}
