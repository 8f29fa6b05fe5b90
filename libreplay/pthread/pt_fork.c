/* pt_fork.c: processes: fork, vfork, _Fork, posix_spawn, posix_spawnp, system, and
 * the atfork handlers (docs/inputs.md, "Processes").
 *
 * The child of fork() has one thread, the one that forked (POSIX): sched_forked
 * leaves every other green thread where it stood, never to run (their stacks stay,
 * mutexes they held stay held), and rp_session_forked stops the session there (no
 * time slice, no log, no breakpoint): the child runs on unrecorded, its blocking
 * calls going to the kernel (io_park.c). Both happen first in the child, before any
 * of the program's child handlers.
 *
 * A child's effects are effects on the world, which a replay must not repeat: while
 * recording, each call's result is logged (INPUT CHILD: the pid, or the error, or
 * system's status); replaying, the call returns it and makes no process. fork's
 * prepare and parent handlers are the program's code and run in the replay as they
 * ran when recording, so this layer keeps the program's handlers (pthread_atfork,
 * __register_atfork) and gives glibc one set of trampolines that runs them, in
 * glibc's order: prepare handlers last registered first, parent and child handlers
 * first registered first. A fork glibc makes on its own (forkpty, daemon) runs them
 * as well, and its child is stopped the same way, but its pid is not logged.
 *
 * Every child counts in pt_forks: it may hold the other end of a pipe or socketpair
 * the program made (io_rw.c, io_park.c). */
#include "pthread/pt_impl.h"
#include "inputs/inputs.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <spawn.h>
#include <sys/pidfd.h>
#include <stdlib.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#include <stdio.h>
#include <unistd.h>

extern pid_t __fork(void);

unsigned pt_forks;
bool pt_forked;

/* ---- the program's atfork handlers ------------------------------------------------------- */

struct atfork {
	void (*prepare)(void), (*parent)(void), (*child)(void);
	void *dso;
};

static struct atfork *handlers; /* in the runtime's memory: the program's heap is its own */
static unsigned nhandlers, cap;
static unsigned ran; /* how many the last prepare ran: parent and child run as many */
/* In fork(), which runs the handlers itself, the same way recording and replaying: the
 * trampolines glibc calls stand aside. (The count a handler's entry makes depends on
 * what its caller left in %r15, docs/sic.md: glibc's fork and this file differ.) */
static bool in_fork;

static void run_prepare(void)
{
	ran = nhandlers;
	for (unsigned k = ran; k-- > 0;) /* handlers may register more: index, re-read */
		if (handlers[k].prepare)
			handlers[k].prepare();
}

static void run_parent(void)
{
	for (unsigned k = 0; k < ran; k++)
		if (handlers[k].parent)
			handlers[k].parent();
}

static void run_child(void)
{
	for (unsigned k = 0; k < ran; k++)
		if (handlers[k].child)
			handlers[k].child();
}

/* First thing in a child: one thread, no session. */
static void child_reset(void)
{
	pt_forked = true;
	sched_forked();
	rp_session_forked();
}

static void glibc_prepare(void)
{
	if (!in_fork)
		run_prepare();
}

static void glibc_parent(void)
{
	if (!in_fork)
		run_parent();
}

static void glibc_child(void)
{
	child_reset();
	if (!in_fork)
		run_child();
}

typedef int register_fn(void (*)(void), void (*)(void), void (*)(void), void *);

/* Early, so that glibc calls the trampolines in any fork, first in the child, before
 * the program's constructors register anything. */
__attribute__((constructor(102))) static void hook_glibc(void)
{
	register_fn *real = (register_fn *)dlsym(RTLD_NEXT, "__register_atfork");
	if (!real || real(glibc_prepare, glibc_parent, glibc_child, NULL) != 0)
		rp_say("cannot register fork handlers with the C library: a child of fork() "
		       "would run every thread");
}

static int add_handlers(void (*prepare)(void), void (*parent)(void), void (*child)(void),
			void *dso)
{
	if (nhandlers == cap) {
		unsigned n = cap ? 2 * cap : 16;
		struct atfork *p = rp_realloc(handlers, n * sizeof *p);
		if (!p)
			return ENOMEM;
		handlers = p;
		cap = n;
	}
	handlers[nhandlers++] = (struct atfork){prepare, parent, child, dso};
	return 0;
}

int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	return add_handlers(prepare, parent, child, NULL);
}

/* What glibc's pthread_atfork (in each shared object's libc_nonshared.a) calls. */
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
		      void *dso)
{
	return add_handlers(prepare, parent, child, dso);
}

/* ---- children, recorded ------------------------------------------------------------------- */

/* A child was made (or, replaying, was made when recorded): pipes and sockets open now
 * may have their other end in it, so their bytes are the world's from here on
 * (inputs/in_world.c: the replay, which makes no child, reads them from the log). */
static void forked_here(void)
{
	pt_forks++;
	in_world_forked();
}

static const char *const call_name[] = {"?", "fork", "_Fork", "posix_spawn", "posix_spawnp",
					"system", "kill", "sigqueue", "pidfd_open", "exec"};

/* INPUT CHILD: which call, its value (the pid, or system's status), its error (errno
 * when the value is -1, or posix_spawn's result). */
struct child_value {
	int32_t call, value, err, unused;
};

static bool child_replay(enum pt_outside_call call, struct child_value *v)
{
	if (!rp_input_replay(RP_INPUT_CHILD, v, sizeof *v))
		return false;
	if (v->call != (int32_t)call)
		rp_diverge("thread %d called %s, where the recording called %s", rp_cur->tid,
			   call_name[call], v->call > 0 && v->call <= PT_CALL_EXEC ?
			   call_name[v->call] : "?");
	return true;
}

static void child_record(enum pt_outside_call call, int value, int err)
{
	struct child_value v = {(int32_t)call, value, err, 0};
	rp_input_record(RP_INPUT_CHILD, &v, sizeof v);
}

bool pt_outside_replay(enum pt_outside_call call, int *value)
{
	struct child_value v;
	if (!child_replay(call, &v))
		return false;
	*value = v.value;
	if (v.value == -1)
		errno = v.err;
	return true;
}

void pt_outside_record(enum pt_outside_call call, int value, int err)
{
	child_record(call, value, value == -1 ? err : 0);
}

static pid_t (*real_ufork)(void);

static pid_t ufork(void)
{
	if (!real_ufork)
		real_ufork = (pid_t(*)(void))dlsym(RTLD_NEXT, "_Fork");
	if (!real_ufork) {
		errno = ENOSYS;
		return -1;
	}
	return real_ufork();
}

/* A recorded child's pid, or -1 with its errno: no process is made. */
static pid_t replayed_pid(const struct child_value *v)
{
	if (v->value > 0)
		forked_here();
	else
		errno = v->err;
	return v->value;
}

pid_t fork(void)
{
	/* gdb's checkpoint calls fork() in the program: a copy of the replay, to be
	 * restored later as it is (debug.c), so no handler runs in either process. */
	if (rp_debug.checkpointing) {
		rp_debug_forking();
		pid_t pid = (pid_t)rp_raw_syscall(SYS_fork, 0, 0, 0, 0, 0, 0);
		if (pid > 0)
			rp_debug_forked(); /* gdb holds the child where it forked */
		return pid;
	}
	if (rp_replay_decides()) {
		/* The program's handlers run as they did; the pid comes after them, where
		 * the recording logged it. */
		struct child_value v;
		run_prepare();
		run_parent();
		if (child_replay(PT_CALL_FORK, &v))
			return replayed_pid(&v);
		/* The log ended in a handler: from here the run is free, and makes its child. */
		pid_t pid = ufork();
		if (pid == 0) {
			child_reset();
			run_child();
		}
		return pid;
	}
	in_fork = true;
	run_prepare();
	pid_t pid = __fork(); /* glibc's own handlers, and the child's reset (glibc_child) */
	in_fork = false;
	if (pid == 0) {
		run_child();
		return 0;
	}
	int err = errno;
	run_parent();
	if (pid > 0)
		forked_here();
	child_record(PT_CALL_FORK, pid, pid < 0 ? err : 0);
	errno = err;
	return pid;
}

/* vfork may be fork (POSIX); a wrapper could not return into vfork's shared stack. */
pid_t vfork(void)
{
	return fork();
}

/* glibc's fork without the handlers (async-signal-safe). */
pid_t _Fork(void)
{
	struct child_value v;
	if (child_replay(PT_CALL_UFORK, &v))
		return replayed_pid(&v);
	pid_t pid = ufork();
	if (pid == 0) {
		child_reset();
		return 0;
	}
	int err = errno;
	if (pid > 0)
		forked_here();
	child_record(PT_CALL_UFORK, pid, pid < 0 ? err : 0);
	errno = err;
	return pid;
}

/* posix_spawn and posix_spawnp: glibc starts the child with clone(CLONE_VM|CLONE_VFORK)
 * and it execs at once, running none of the program's code, so it is made with
 * threads as without. glibc's system spawns through an internal call: wrapped too. */
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* The C library's functions, looked up at their first call and kept. */
static spawn_fn *real_posix_spawn, *real_posix_spawnp;
static int (*real_system)(const char *);

static int spawn(spawn_fn **real, const char *name, enum pt_outside_call call, pid_t *pid,
		 const char *file, const posix_spawn_file_actions_t *acts,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	forked_here();
	struct child_value v;
	if (child_replay(call, &v)) {
		if (v.err == 0 && pid)
			*pid = v.value;
		return v.err;
	}
	if (!*real)
		*real = (spawn_fn *)dlsym(RTLD_NEXT, name);
	pid_t got = 0;
	int err = *real ? (*real)(&got, file, acts, attr, argv, envp) : ENOSYS;
	if (err == 0 && pid)
		*pid = got;
	child_record(call, err ? 0 : got, err);
	return err;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *acts,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawn, "posix_spawn", PT_CALL_SPAWN, pid, path, acts, attr, argv,
		     envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *acts,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(&real_posix_spawnp, "posix_spawnp", PT_CALL_SPAWNP, pid, file, acts, attr, argv,
		     envp);
}

/* system waits for its child inside glibc, blocking every green thread meanwhile; the
 * replay returns the status it got. system(NULL) asks whether there is a shell:
 * recorded too. */
int system(const char *command)
{
	if (command)
		forked_here();
	struct child_value v;
	if (child_replay(PT_CALL_SYSTEM, &v)) {
		if (v.value == -1)
			errno = v.err;
		return v.value;
	}
	if (!real_system)
		real_system = (int (*)(const char *))dlsym(RTLD_NEXT, "system");
	int r = -1;
	if (real_system)
		r = real_system(command);
	else
		errno = ENOSYS;
	int err = errno;
	child_record(PT_CALL_SYSTEM, r, r == -1 ? err : 0);
	errno = err;
	return r;
}

/* pidfd_open of a child (or of any process) is a descriptor of the world: recording,
 * its result is logged; replaying, there is no child, and a stand-in takes the
 * recorded number (/dev/null, close-on-exec as a pidfd is), so that the program's
 * later descriptors are numbered as when recorded. A wait on it (waitid P_PIDFD)
 * and its flags (O_NONBLOCK) work as the waits' replay wants (io_waitpid.c). */
int pidfd_open(pid_t pid, unsigned int flags)
{
	int fd;
	if (pt_outside_replay(PT_CALL_PIDFD_OPEN, &fd)) {
		if (fd < 0)
			return fd;
		int got = rp_sys_open("/dev/null", O_RDONLY | O_CLOEXEC | (flags & O_NONBLOCK), 0);
		if (got >= 0 && got != fd) {
			rp_raw_syscall(SYS_dup3, got, fd, O_CLOEXEC, 0, 0, 0);
			rp_sys_close(got);
		}
		return fd;
	}
	long r = rp_raw_syscall(SYS_pidfd_open, pid, flags, 0, 0, 0, 0);
	fd = r < 0 ? -1 : (int)r;
	if (r < 0)
		errno = (int)-r;
	pt_outside_record(PT_CALL_PIDFD_OPEN, fd, errno);
	return fd;
}
