/* names.c: three threads race: one asks the C library for temporary names (tmpnam,
 * tempnam, mktemp: names only, from its own random bits), one moves the working
 * directory into d/ and back (chdir, fchdir) and asks where it is, one reads links
 * and attributes relative to a directory descriptor. Built with _FORTIFY_SOURCE too
 * (tests/world/run.sh), where readlink, getcwd and realpath are the checked forms.
 * An unexpected failure prints a line and makes the exit status 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static int failed;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&out);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&out);
}

#define WANT(cond, what)                                                                  \
	do {                                                                              \
		if (!(cond)) {                                                            \
			say("unexpected: %s (%s)\n", what, strerror(errno));              \
			failed = 1;                                                       \
		}                                                                         \
	} while (0)

static volatile unsigned long sink;
static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i;
}

static unsigned long hash(unsigned long h, const char *s)
{
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void *namer(void *arg)
{
	(void)arg;
	unsigned long h = 5381;
	for (int k = 0; k < 50; k++) {
		char buf[L_tmpnam], tmpl[] = "/tmp/mkt.XXXXXX";
		spin(2000);
		WANT(tmpnam(buf) == buf, "tmpnam");
		h = hash(h, buf);
		char *t = tempnam(NULL, "wld");
		WANT(t != NULL, "tempnam");
		if (t)
			h = hash(h, t);
		free(t);
		WANT(mktemp(tmpl)[0] != '\0', "mktemp");
		h = hash(h, tmpl);
	}
	say("150 temporary names, hash %lx\n", h);
	return NULL;
}

static void *mover(void *arg)
{
	(void)arg;
	char where[PATH_MAX];
	int home = open(".", O_RDONLY | O_DIRECTORY);
	WANT(home >= 0, "open .");
	for (int k = 0; k < 10; k++) {
		spin(5000);
		WANT(chdir("d") == 0, "chdir d");
		WANT(getcwd(where, sizeof where) != NULL, "getcwd in d");
		say("in %s\n", strrchr(where, '/'));
		WANT(access("a.txt", R_OK) == 0, "access a.txt from d");
		WANT(fchdir(home) == 0, "fchdir back");
		char *cwd = getcwd(NULL, 0), *name = get_current_dir_name();
		WANT(cwd && name && strcmp(cwd, name) == 0, "getcwd(NULL) and get_current_dir_name agree");
		free(cwd);
		free(name);
	}
	WANT(chdir("d/nothing") == -1 && errno == ENOENT, "chdir to nothing");
	close(home);
	return NULL;
}

static void *linker(void *arg)
{
	(void)arg;
	int dir = open("d", O_RDONLY | O_DIRECTORY);
	WANT(dir >= 0, "open d");
	char buf[64], resolved[PATH_MAX];
	for (int k = 0; k < 10; k++) {
		spin(4000);
		ssize_t n = readlinkat(dir, "link", buf, sizeof buf);
		WANT(n == 5, "readlinkat link");
		struct stat st;
		WANT(fstatat(dir, "a.txt", &st, 0) == 0 && st.st_size == 8, "fstatat a.txt");
		WANT(faccessat(dir, "b.txt", R_OK, AT_EACCESS) == 0, "faccessat b.txt");
		/* Relative to the working directory, which the mover changes: these find
		 * the files or not, by the interleaving. */
		n = readlink("d/link", buf, sizeof buf);
		char *r = realpath("d/link", resolved);
		ssize_t x = getxattr("d/a.txt", "user.world", buf, sizeof buf);
		int e = euidaccess("d/b.txt", W_OK);
		say("from here: readlink %zd, realpath %s, getxattr %zd (%s), euidaccess %d\n", n,
		    r ? strrchr(resolved, '/') + 1 : "-", x, x < 0 ? strerror(errno) : "", e);
	}
	close(dir);
	return NULL;
}

int main(void)
{
	void *(*fns[])(void *) = {namer, mover, linker};
	pthread_t t[3];
	for (int k = 0; k < 3; k++)
		pthread_create(&t[k], NULL, fns[k], NULL);
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	return failed ? 3 : 0;
}
