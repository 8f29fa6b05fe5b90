/* pt_exec.c: the exec family from a recorded process: execve, execv, execvp, execvpe,
 * execl, execlp, execle, fexecve, execveat (docs/inputs.md, "Processes").
 *
 * An exec that works replaces the process image and nothing of the runtime runs
 * again: the log must be whole and ended before it. An exec that fails returns, and
 * the program goes on, so the log cannot end first without knowing. The file is
 * checked first (it exists, may be executed, is no directory, a script's interpreter
 * exists: the errors an exec mostly fails with, ENOENT and EACCES; for the p calls
 * along PATH as glibc searches): a failure there is the call's result, logged as
 * INPUT CHILD (exec, -1, errno), and the replay returns it. Otherwise INPUT CHILD
 * (exec, 0) and END (exec) are written and the log closed, then the C library's call
 * runs. Should it fail all the same (an exec format error, E2BIG, ETXTBSY, ENOMEM, a
 * noexec mount), the rest of the run is unrecorded, and said.
 *
 * Replaying, the call makes no exec (the new program's effects are the world's): an
 * error returns as recorded; at an exec that replaced the recording's image the
 * replay checks END, says so on one line and ends, exit status 0.
 *
 * A child of fork() (and a run not recorded) execs at once: the log is not its own. */
#include "pthread/pt_impl.h"
#include "engine/session.h"
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Does path name a regular file this user may execute? 0, or the errno an exec
 * would fail with. */
static int exec_check_file(const char *path)
{
	struct stat st;
	long r = rp_raw_syscall(SYS_stat, (long)path, (long)&st, 0, 0, 0, 0);
	if (r == 0)
		r = rp_raw_syscall(SYS_access, (long)path, X_OK, 0, 0, 0, 0);
	if (r < 0)
		return (int)-r;
	return S_ISREG(st.st_mode) ? 0 : EACCES;
}

/* A script's interpreter (the kernel reads "#!" and the name from the file's first
 * 256 bytes) must exist and may be executed in turn: a missing one, or a line ending
 * in CRLF that names "sh\r", fails with ENOENT. Anything else (an ELF image, a format
 * binfmt_misc may know, a file that may be executed but not read) is the kernel's
 * business: 0. */
static int exec_check_image(const char *path)
{
	char buf[256];
	long fd = rp_raw_syscall(SYS_open, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return 0;
	long n = rp_raw_syscall(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n < 0)
		return 0;
	buf[n] = 0;
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	char *interp = buf + 2 + strspn(buf + 2, " \t");
	interp[strcspn(interp, " \t\n")] = 0; /* a \r stays in the name, as the kernel keeps it */
	return *interp ? exec_check_file(interp) : 0;
}

/* Could path be executed? 0, or the errno an exec would fail with. */
static int exec_check(const char *path)
{
	if (!path)
		return EFAULT;
	if (!*path)
		return ENOENT;
	int e = exec_check_file(path);
	return e ? e : exec_check_image(path);
}

/* execvp's search: a name with a slash is a path; else each directory of PATH
 * (glibc's default without it), the first file that may be executed. */
static int exec_check_p(const char *file)
{
	if (!file)
		return EFAULT;
	if (!*file)
		return ENOENT;
	if (strchr(file, '/'))
		return exec_check(file);
	const char *dirs = getenv("PATH");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	int err = ENOENT;
	size_t flen = strlen(file);
	if (flen > NAME_MAX)
		return ENAMETOOLONG; /* as glibc's execvpe, before any search */
	for (const char *d = dirs;; d++) {
		const char *end = strchrnul(d, ':');
		size_t dlen = (size_t)(end - d);
		char path[PATH_MAX];
		if ((dlen ? dlen : 1) + 1 + flen < sizeof path) { /* dir, '/', file, NUL */
			if (dlen)
				memcpy(path, d, dlen);
			else
				path[dlen++] = '.'; /* an empty entry is the working directory */
			path[dlen] = '/';
			memcpy(path + dlen + 1, file, flen + 1);
			int e = exec_check(path);
			if (e == 0)
				return 0;
			if (e == EACCES)
				err = EACCES; /* glibc says EACCES if one was found but refused */
			else if (e != ENOENT && e != ESTALE && e != ENOTDIR && e != ENODEV &&
				 e != ETIMEDOUT)
				return e; /* glibc's execvpe stops at any other error (ELOOP, say) */
		}
		if (!*end)
			return err;
		d = end;
	}
}

/* Before the exec: true to go on with it (the log now ended), false with errno set to
 * return -1 now (the check's error, recorded or replayed). */
static bool exec_begin(const char *what, int checked)
{
	if (!rp_session_logged())
		return true;
	int v;
	if (pt_outside_replay(PT_CALL_EXEC, &v)) {
		if (v == -1)
			return false; /* errno as recorded */
		rp_session_exec_now();
		rp_say("the recording replaced its process image here (%s %s): the replay ends",
		       "exec", what);
		rp_exit_group(0);
	}
	if (checked) {
		pt_outside_record(PT_CALL_EXEC, -1, checked);
		errno = checked;
		return false;
	}
	rp_session_exec_begin();
	pt_outside_record(PT_CALL_EXEC, 0, 0);
	rp_session_exec_now();
	return true;
}

/* The exec returned: it failed after the log had its END, which is taken back; the
 * failure is logged as the check's are, and replayed the same way. */
static int exec_failed(const char *what, bool logged)
{
	int err = errno;
	if (logged) {
		rp_session_exec_failed();
		if (rp_session_logged())
			pt_outside_record(PT_CALL_EXEC, -1, err);
		else
			rp_say("exec %s failed (%s) after the log had ended: the rest of this run "
			       "is not recorded", what, strerrordesc_np(err));
	}
	errno = err;
	return -1;
}

#define REAL(name, type) \
	static type real_##name; \
	if (!real_##name) \
		real_##name = (type)dlsym(RTLD_NEXT, #name); \
	if (!real_##name) { \
		errno = ENOSYS; \
		return -1; \
	}

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);
typedef int fexecve_fn(int, char *const[], char *const[]);

int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve, execve_fn *);
	bool logged = rp_session_logged();
	if (!exec_begin(path, logged ? exec_check(path) : 0))
		return -1;
	real_execve(path, argv, envp);
	return exec_failed(path, logged);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe, execve_fn *);
	bool logged = rp_session_logged();
	if (!exec_begin(file, logged ? exec_check_p(file) : 0))
		return -1;
	real_execvpe(file, argv, envp);
	return exec_failed(file, logged);
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* fexecve and execveat: the file is a descriptor (and a path relative to it), not
 * checked first: a failure returns after the log has ended. */
int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve, fexecve_fn *);
	bool logged = rp_session_logged();
	if (!exec_begin("(a descriptor)", 0))
		return -1;
	real_fexecve(fd, argv, envp);
	return exec_failed("(a descriptor)", logged);
}

int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	REAL(execveat, execveat_fn *);
	bool logged = rp_session_logged();
	if (!exec_begin(path, 0))
		return -1;
	real_execveat(dirfd, path, argv, envp, flags);
	return exec_failed(path, logged);
}

/* execl, execlp, execle: the list made an array (on the stack, as glibc does). */
static size_t count_args(const char *arg, va_list ap)
{
	size_t n = 1;
	while (arg) {
		arg = va_arg(ap, const char *);
		n++;
	}
	return n;
}

#define LIST_TO_ARGV(arg, argv, envp_out) \
	va_list ap; \
	va_start(ap, arg); \
	size_t n = count_args(arg, ap); \
	va_end(ap); \
	char *argv[n]; \
	va_start(ap, arg); \
	argv[0] = (char *)arg; \
	for (size_t k = 1; k < n; k++) \
		argv[k] = va_arg(ap, char *); \
	envp_out; \
	va_end(ap)

int execl(const char *path, const char *arg, ...)
{
	LIST_TO_ARGV(arg, argv, (void)0);
	return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
	LIST_TO_ARGV(arg, argv, (void)0);
	return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	LIST_TO_ARGV(arg, argv, envp = va_arg(ap, char *const *));
	return execve(path, argv, envp);
}
