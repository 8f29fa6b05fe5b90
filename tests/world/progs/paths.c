/* paths.c: five threads race over the directory d/ (tests/world/run.sh makes it):
 * one stats and reads links, one lists the directory (readdir, scandir, seekdir),
 * one reads the files, one makes and removes 200 temporary files (mkstemp) and a few
 * other temporary things, one renames, makes directories and changes modes. Each
 * prints what it saw; the last lines say what the directory holds at the end. An
 * unexpected failure prints a line and makes the exit status 3. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

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

/* Counted work between calls, so that time slices (--chaos: 2^10 to 2^20 counts)
 * end inside the threads and they interleave. */
static volatile unsigned long sink;
static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i;
}

static const char *kind(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "link" : "other";
}

static void *stats(void *arg)
{
	(void)arg;
	struct stat st;
	char buf[PATH_MAX], cwd[PATH_MAX];
	for (int round = 0; round < 3; round++) {
		const char *names[] = {"d/a.txt", "d/b.txt", "d/link", "d/sub", "d/nothing"};
		for (int k = 0; k < 5; k++) {
			spin(3000);
			if (stat(names[k], &st) == 0)
				say("stat %s: %s %lld\n", names[k], kind(st.st_mode), (long long)st.st_size);
			else
				say("stat %s: %s\n", names[k], strerror(errno));
		}
		WANT(lstat("d/link", &st) == 0 && S_ISLNK(st.st_mode), "lstat d/link");
		ssize_t n = readlink("d/link", buf, sizeof buf - 1);
		WANT(n > 0, "readlink d/link");
		if (n > 0)
			say("readlink d/link: %.*s\n", (int)n, buf);
		say("access d/a.txt R: %d, d/nothing: %d\n", access("d/a.txt", R_OK),
		    access("d/nothing", F_OK));
		WANT(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
		char *real = realpath("d/link", NULL);
		WANT(real != NULL, "realpath d/link");
		/* the recording's directory, wherever the replay runs */
		if (real && strncmp(real, cwd, strlen(cwd)) == 0)
			say("realpath d/link: CWD%s\n", real + strlen(cwd));
		free(real);
		say("realpath d/nothing/x: %s\n", realpath("d/nothing/x", buf) ? "found" : strerror(errno));
		struct statx sx;
		WANT(statx(AT_FDCWD, "d/a.txt", 0, STATX_SIZE, &sx) == 0, "statx");
		say("statx d/a.txt: %llu\n", (unsigned long long)sx.stx_size);
		struct statvfs sv;
		WANT(statvfs("d", &sv) == 0, "statvfs");
	}
	say("cwd ends in: %s\n", strrchr(cwd, '/'));
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int no_dots(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static void *lister(void *arg)
{
	(void)arg;
	for (int round = 0; round < 4; round++) {
		DIR *d = opendir("d");
		WANT(d != NULL, "opendir d");
		if (!d)
			return NULL;
		char *names[64];
		int n = 0;
		long second = -1;
		struct dirent *e;
		while ((e = readdir(d)) && n < 64) {
			if (e->d_name[0] == '.')
				continue;
			spin(2000);
			names[n++] = strdup(e->d_name);
			if (n == 2)
				second = telldir(d);
		}
		qsort(names, (size_t)n, sizeof *names, by_name);
		char line[4096] = "";
		for (int k = 0; k < n; k++) {
			strcat(line, " ");
			strcat(line, names[k]);
			free(names[k]);
		}
		say("readdir d:%s\n", line);
		if (second >= 0) {
			seekdir(d, second);
			int after = 0;
			while (readdir(d))
				after++;
			rewinddir(d);
			int all = 0;
			while (readdir(d))
				all++;
			say("after the second: %d of %d\n", after, all);
		}
		struct stat st;
		WANT(fstatat(dirfd(d), "a.txt", &st, 0) == 0, "fstatat dirfd a.txt");
		WANT(closedir(d) == 0, "closedir");

		struct dirent **list;
		int m = scandir("d", &list, no_dots, alphasort);
		WANT(m >= 0, "scandir d");
		line[0] = '\0';
		for (int k = 0; k < m; k++) {
			strcat(line, " ");
			strcat(line, list[k]->d_name);
			free(list[k]);
		}
		if (m >= 0)
			free(list);
		say("scandir d:%s\n", line);
	}
	int fd = open("d/sub", O_RDONLY | O_DIRECTORY);
	DIR *d = fdopendir(fd);
	WANT(d != NULL, "fdopendir d/sub");
	int n = 0;
	struct dirent *e, entry, *res;
	while (readdir_r(d, &entry, &res) == 0 && res)
		n++;
	say("d/sub has %d entries with . and ..\n", n);
	closedir(d);
	WANT(opendir("d/a.txt") == NULL && errno == ENOTDIR, "opendir of a file");
	(void)e;
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	for (int round = 0; round < 3; round++) {
		long sum = 0, v;
		spin(20000);
		FILE *f = fopen("d/a.txt", "r");
		WANT(f != NULL, "fopen d/a.txt");
		while (f && fscanf(f, "%ld", &v) == 1)
			sum += v;
		if (f)
			fclose(f);
		char buf[256];
		int fd = open("d/b.txt", O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		if (fd >= 0)
			close(fd);
		say("sum of d/a.txt %ld, d/b.txt %zd bytes: %.*s\n", sum, n, n > 0 ? (int)strcspn(buf, "\n") : 0,
		    buf);
	}
	return NULL;
}

static void *temps(void *arg)
{
	(void)arg;
	unsigned long hash = 5381;
	int made = 0, removed = 0;
	for (int k = 0; k < 200; k++) {
		char name[] = "d/tmp.XXXXXX";
		spin(1000);
		int fd = mkstemp(name);
		WANT(fd >= 0, "mkstemp");
		if (fd < 0)
			continue;
		made++;
		for (const char *p = name; *p; p++)
			hash = hash * 33 + (unsigned char)*p;
		char c = (char)('a' + k % 26);
		WANT(write(fd, &c, 1) == 1, "write the temporary file");
		close(fd);
		if ((k % 2 ? remove(name) : unlink(name)) == 0)
			removed++;
	}
	say("mkstemp: %d made, %d removed, names hash %lx\n", made, removed, hash);

	char dir[] = "d/dir.XXXXXX";
	WANT(mkdtemp(dir) != NULL, "mkdtemp");
	struct stat st;
	WANT(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "stat of mkdtemp's directory");
	WANT(rmdir(dir) == 0, "rmdir of mkdtemp's directory");

	FILE *t = tmpfile();
	WANT(t != NULL, "tmpfile");
	if (t) {
		char back[16] = "";
		fputs("hello tmpfile\n", t);
		rewind(t);
		WANT(fgets(back, sizeof back, t) != NULL, "read back the tmpfile");
		say("tmpfile gave back: %s", back);
		fclose(t);
	}
	char sfx[] = "d/sfx.XXXXXX.txt";
	int fd = mkstemps(sfx, 4);
	WANT(fd >= 0 && strcmp(sfx + 12, ".txt") == 0, "mkstemps");
	close(fd);
	WANT(unlink(sfx) == 0, "unlink mkstemps's file");
	return NULL;
}

static void *changer(void *arg)
{
	(void)arg;
	char name[64], to[64];
	for (int k = 0; k < 5; k++) {
		spin(10000);
		snprintf(name, sizeof name, "d/made%d", k);
		WANT(mkdir(name, 0755) == 0, "mkdir");
		snprintf(to, sizeof to, "d/moved%d", k);
		WANT(rename(name, to) == 0, "rename a directory");
		if (k % 2)
			WANT(rmdir(to) == 0, "rmdir");
	}
	WANT(mkdir("d/moved0", 0755) == -1 && errno == EEXIST, "mkdir of an existing directory");
	WANT(rmdir("d/nothing") == -1 && errno == ENOENT, "rmdir of nothing");
	int fd = open("d/new.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	WANT(fd >= 0, "create d/new.txt");
	WANT(write(fd, "made by the recording\n", 22) == 22, "write d/new.txt");
	WANT(fchmod(fd, 0600) == 0, "fchmod");
	close(fd);
	WANT(chmod("d/new.txt", 0640) == 0, "chmod");
	WANT(truncate("d/new.txt", 5) == 0, "truncate");
	struct utimbuf times = {1000000000, 1000000000};
	WANT(utime("d/new.txt", &times) == 0, "utime");
	WANT(link("d/new.txt", "d/hard.txt") == 0, "link");
	WANT(symlink("new.txt", "d/soft") == 0, "symlink");
	WANT(rename("d/hard.txt", "d/renamed.txt") == 0, "rename");
	WANT(unlink("d/soft") == 0, "unlink the symlink");
	struct stat st;
	WANT(stat("d/renamed.txt", &st) == 0, "stat d/renamed.txt");
	say("d/renamed.txt: %lld bytes, mode %o, links %ld, mtime %lld\n", (long long)st.st_size,
	    (unsigned)st.st_mode & 0777, (long)st.st_nlink, (long long)st.st_mtime);
	return NULL;
}

int main(void)
{
	void *(*fns[])(void *) = {stats, lister, reader, temps, changer};
	pthread_t t[5];
	for (int k = 0; k < 5; k++)
		pthread_create(&t[k], NULL, fns[k], NULL);
	for (int k = 0; k < 5; k++)
		pthread_join(t[k], NULL);
	struct dirent **list;
	int m = scandir("d", &list, no_dots, alphasort);
	for (int k = 0; k < m; k++) {
		printf("at the end: d/%s\n", list[k]->d_name);
		free(list[k]);
	}
	if (m >= 0)
		free(list);
	return failed ? 3 : 0;
}
