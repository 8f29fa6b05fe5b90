/* pt_end.c: the ends of a process that skip exit's handlers: _exit, _Exit, quick_exit,
 * and (through io_syscall.c) syscall(SYS_exit_group) and syscall(SYS_exit) (docs/replay.md,
 * "How a log ends"); and exit itself, a --hunt decision point before the C library's.
 *
 * exit() ends the log from its on_exit handler (session.c). These never run it, and
 * without this file the log lost its END and every block not yet flushed: its replay
 * ran on unrecorded. Each now gives the log the END exit gives, with the status (the
 * replay checks it the same way), then goes to the kernel. A child of fork() writes
 * nothing (the log is its parent's). What cannot be seen here: an exit the program
 * makes by its own syscall instruction (inline assembly, a static helper): that log
 * has no END, as after a SIGKILL. */
#include "pthread/pt_impl.h"
#include "engine/session.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

_Noreturn static void end_now(int status)
{
	rp_session_exit_now(status);
	rp_exit_group(status);
}

void _exit(int status)
{
	end_now(status);
}

void _Exit(int status)
{
	end_now(status);
}

/* exit() from any thread: under --hunt the other runnable threads may run first, as
 * at main's return (an OS may run them between a thread's exit() and the process's
 * end: count.c's exit turn); then the C library's exit, its handlers, the END. */
void exit(int status)
{
	rp_count_exit_turn();
	rp_exit(status); /* base/: the C library's, which the runtime's own ends call */
}

/* quick_exit runs the program's at_quick_exit handlers, then glibc's own _exit, which
 * no wrapper sees: the log ends in a handler of ours, registered before the program's
 * main and so run after every handler the program registers (last registered, first
 * run), with the status quick_exit was given. */
static int quick_status;

static void quick_end(void)
{
	rp_session_exit_now(quick_status);
}

extern int __cxa_at_quick_exit(void (*fn)(void), void *dso);

__attribute__((constructor(103))) static void hook_quick_exit(void)
{
	if (__cxa_at_quick_exit(quick_end, NULL) != 0)
		rp_say("cannot register a quick_exit handler: a recording ended by quick_exit "
		       "would have no END");
}

void quick_exit(int status)
{
	static void (*real)(int);
	quick_status = status;
	if (!real)
		real = (void (*)(int))dlsym(RTLD_NEXT, "quick_exit");
	if (real)
		real(status);
	quick_end(); /* no C library's quick_exit: no handlers either */
	end_now(status);
}

/* syscall(SYS_exit): the calling thread ends, as the kernel ends a thread, with no
 * cleanup handler or destructor (its robust mutexes are released, as the kernel
 * does); the last thread's ends the process with its status. */
_Noreturn void pt_exit_thread_raw(int status)
{
	struct sched_thread *me = sched_current();
	bool others = false;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		enum sched_state s = sched_thread_state(t);
		others |= t != me && (s == SCHED_RUNNABLE || s == SCHED_BLOCKED);
	}
	if (!others)
		end_now(status);
	struct pt_thread *self = pt_self();
	self->exiting = self->finishing = true;
	pt_finish(self, NULL);
}
