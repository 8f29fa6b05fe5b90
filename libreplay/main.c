/* main.c: the program's real main(). sicpp renamed the program's own to __sic_main.
 *
 * Before any constructor of the program: take our flags off argv and, to record or
 * replay, make the address layout repeatable (re-exec without ASLR; where that fails a
 * replay refuses, engine/schedule/layout.c). Then the
 * program's main runs as green thread 1 on a stack of ours, under the session.
 *
 * The top of libreplay's layers (libreplay/README.md): it starts the session and hands
 * the scheduler the io layer's hooks. */
#include "base/rp_alloc.h"
#include "base/rp_say.h"
#include "engine/engine.h"
#include "engine/session.h"
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

extern int __sic_main(int argc, char **argv, char **envp);
extern char **environ;

static int saved_argc;
static char **saved_argv;

/* Under valgrind, /proc/self/exe is valgrind's tool, which refuses to be run
 * directly ("You cannot run './prog' directly"): no re-exec there. Valgrind puts its
 * preload objects (vgpreload_core-*.so) in the program's LD_PRELOAD; its own layout
 * is the same from run to run. */
static bool under_valgrind(void)
{
	const char *pre = getenv("LD_PRELOAD");
	return pre && strstr(pre, "/vgpreload_core-");
}

/* Before every constructor, the shared libraries' too: glibc runs an executable's
 * .preinit_array first, with (argc, argv, envp). So no constructor of any priority
 * runs twice because of the re-exec, and the recorded inputs of every one are
 * recorded (a constructor(101) once ran before the flags were parsed). */
static void early(int argc, char **argv, char **envp)
{
	/* The C library sets environ in its own initializer, which comes after this: set
	 * it now (to the same), for getenv here and for the re-exec's environment. */
	if (!environ)
		environ = envp;
	rp_sic_init(); /* the counter, before any instrumented constructor */
	/* The flags are parsed on a copy (in the runtime's memory: the program's heap
	 * must not see how long the command line was), for the re-exec passes them all
	 * on and the new image parses them again. The mode they add up to decides, the
	 * command line over LIBREPLAY_OPTS (--no-record there, --record here: a
	 * recording, which needs the fixed layout). */
	int n = argc;
	char **mine = rp_malloc(((size_t)argc + 1) * sizeof *mine);
	if (mine)
		memcpy(mine, argv, ((size_t)argc + 1) * sizeof *mine);
	rp_options_parse(&n, mine ? mine : argv);
	if (rp_opts.mode == RP_MODE_REPLAY && under_valgrind()) {
		rp_say("a replay cannot run under valgrind: the code valgrind runs is its "
		       "translation, which never reaches the hardware breakpoint a replay stops "
		       "at (record under valgrind, replay without it)");
		exit(RP_EXIT_USAGE);
	}
	int p = personality(0xffffffff), err = p == -1 ? errno : 0;
	if (mine && rp_opts.mode != RP_MODE_OFF && p != -1 && !(p & ADDR_NO_RANDOMIZE) &&
	    !under_valgrind()) {
		/* On failure, run on with the layout we have: the log says which (layout.c). */
		if (personality(p | ADDR_NO_RANDOMIZE) == -1) {
			err = errno;
		} else {
			execv("/proc/self/exe", argv);
			personality(p); /* this image's addresses are still random */
		}
	}
	rp_objects_pack_start();
	if (rp_opts.mode != RP_MODE_OFF)
		rp_layout_start(err, under_valgrind());
	rp_tcache_start(); /* before the program's first malloc: its constructors' */
	if (mine) {
		memcpy(argv, mine, ((size_t)n + 1) * sizeof *mine);
		rp_free(mine);
	}
	in_world_start(); /* the descriptors it started with are the world's */
	io_stdio_start();
	saved_argc = n;
	saved_argv = argv;
}

__attribute__((section(".preinit_array"), used)) static void (*const early_entry)(int, char **,
									     char **) = early;

/* Thread 1. exit() here, as the C library does after main returns, so atexit handlers
 * and destructors run on the main thread, its count going on; under --hunt the other
 * threads may run first, as an OS may run them between main's return and the exit. */
static int program_main(int argc, char **argv, char **envp)
{
	int status = (int)rp_sic_call((void *)__sic_main, (uint64_t)argc, (uint64_t)(uintptr_t)argv,
				      (uint64_t)(uintptr_t)envp);
	rp_count_exit_turn(); /* also where a program's own exit() replaces ours */
	exit(status);
}

/* --tls: a path this machine lacks falls back to the next, said in one line. */
static void tls_path_start(void)
{
	static const char *const how[] = {"auto", "LDT selectors", "wrfsbase", "arch_prctl"};
	struct sched_tls_report r;
	sched_set_tls_path(rp_opts.tls_path);
	if (rp_opts.tls_path == SCHED_TLS_AUTO)
		return; /* probed at the first pthread_create */
	sched_tls_probe(&r);
	if (r.why)
		rp_say("--tls=%s: %s; using %s", sched_tls_path_name(r.asked), r.why, how[r.path]);
}

int main(int argc, char **argv, char **envp)
{
	argc = saved_argc ? saved_argc : argc;
	argv = saved_argv ? saved_argv : argv;
	struct sched_hooks h = {0};
	rp_session_start(&argc, &argv, &h);
	if (rp_opts.mode != RP_MODE_OFF)
		rp_startup_place(&argc, &argv, &envp);
	h.event_ready = io_event_ready;
	h.idle_events = io_idle;
	sched_set_hooks(&h);
	tls_path_start();
	rp_audit_start(); /* --syscall-audit: from here on */
	int status = sched_run_main(program_main, argc, argv, envp);
	if (status == SCHED_RUN_ABORTED && errno == ENOMEM)
		rp_fatal_memory("the main thread's stack (8 MiB)");
	exit(status == SCHED_RUN_ABORTED ? 1 : status);
}
