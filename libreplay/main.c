/* main.c: the program's real main(). sicpp renamed the program's own to __sic_main.
 *
 * Before any constructor of the program: take our flags off argv and, to record or
 * replay, make the address layout repeatable (re-exec without ASLR). Then the
 * program's main runs as green thread 1 on a stack of ours, under the session.
 *
 * The top of libreplay's layers (libreplay/README.md): it starts the session and hands
 * the scheduler the io layer's hooks. */
#include "engine/engine.h"
#include "engine/session.h"
#include "io/io.h"

#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

extern int __sic_main(int argc, char **argv, char **envp);

static int saved_argc;
static char **saved_argv;

/* glibc passes constructors (argc, argv, envp). */
__attribute__((constructor(102))) static void early(int argc, char **argv, char **envp)
{
	/* Re-exec before the flags come off: the new image parses them again. */
	bool off = false;
	const char *env = getenv("LIBREPLAY_OPTS");
	for (int i = 1; i < argc && !strncmp(argv[i], "--", 2) && strcmp(argv[i], "--"); i++)
		off |= !strcmp(argv[i], "--no-record") || !strcmp(argv[i], "--replay-help");
	off |= env && strstr(env, "--no-record");
	int p = personality(0xffffffff);
	if (!off && p != -1 && !(p & ADDR_NO_RANDOMIZE) && personality(p | ADDR_NO_RANDOMIZE) != -1)
		execv("/proc/self/exe", argv); /* on failure, run on with the layout we have */
	rp_options_parse(&argc, argv);
	io_stdio_start();
	saved_argc = argc;
	saved_argv = argv;
}

/* Thread 1. exit() here, as the C library does after main returns, so atexit handlers
 * and destructors run on the main thread, its count going on. */
static int program_main(int argc, char **argv, char **envp)
{
	exit((int)rp_sic_call((void *)__sic_main, (uint64_t)argc, (uint64_t)(uintptr_t)argv,
			      (uint64_t)(uintptr_t)envp));
}

int main(int argc, char **argv, char **envp)
{
	argc = saved_argc ? saved_argc : argc;
	argv = saved_argv ? saved_argv : argv;
	struct sched_hooks h = {0};
	rp_session_start(&argc, &argv, &h);
	h.event_ready = io_event_ready;
	h.idle_events = io_idle;
	sched_set_hooks(&h);
	int status = sched_run_main(program_main, argc, argv, envp);
	exit(status == SCHED_RUN_ABORTED ? 1 : status);
}
