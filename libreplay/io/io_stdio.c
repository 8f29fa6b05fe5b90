/* io_stdio.c: stdio streams on pipes, sockets, FIFOs and terminals park only their
 * green thread, like read() and write() on them (io_rw.c).
 *
 * glibc's stdio calls the kernel through its internal aliases of read and write, which
 * no wrapper sees: fgets on a pipe that another green thread fills would block the one
 * kernel thread for ever. So such a FILE is a cookie stream (fopencookie) whose reads
 * and writes are our read() and write(): they park, and their readiness answers are
 * logged and replayed as for the plain calls. Streams made so:
 *   - stdin, whatever descriptor 0 is (on a file it costs next to nothing: no
 *     stream parks, the wrappers go straight to glibc). Line-buffered on a terminal,
 *     as glibc's;
 *   - fopen of a FIFO or a character device, fdopen of a pipe, socket, FIFO or
 *     character device, and popen's stream (pclose hands it back to glibc);
 *   - a random device: its reads are recorded inputs (in_random_dev.c).
 * fileno() gives the descriptor as before: the cookie FILE's _fileno is set to it
 * (glibc's cookie functions never use it themselves). glibc's freopen cannot reopen a
 * cookie stream and its wide-character reads crash on one: ours reopen it in place,
 * and give stdin back to glibc at the first wide read (wide(), below).
 *
 * The FILE's own lock does not keep green threads apart: they all are the one kernel
 * thread that owns it (sched_tls.c). A reader parked inside fgets would let a second
 * reader into the same half-filled buffer. So the read functions, and flockfile, take
 * a recursive green mutex of the stream's own (its `lock`). Writes to a stream are
 * not serialized this way (docs/io.md). */
#include "io/io.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

struct pt_stream {
	FILE *file;	       /* the cookie stream */
	int fd;
	bool parks;	       /* not on a regular file: its reads may park */
	int dirs;	       /* mode_dirs of its mode */
	bool used;	       /* read from at least once */
	bool closed;	       /* a failed freopen closed its descriptor: EOF, EBADF */
	FILE *proc;	       /* popen's own stream; else NULL */
	bool pclosing;	       /* pclose is closing it: pclose waits for the child */
	bool replayed;	       /* popen's in a replay: no child, its reads come from the log */
	pthread_mutex_t lock;  /* recursive: flockfile, then fgets */
	unsigned holds;	       /* how many times lock is held */
	struct pt_stream *next;
};

/* Few streams are open at once: a list. How many of them park: with none (stdin on
 * a file, say), the read wrappers go straight to glibc's. */
static struct pt_stream *streams;
static unsigned nparking;
/* stdin's cookie stream, and the C library's own stdin it replaced. */
static FILE *cookie_stdin, *glibc_stdin;

/* ---- the C library's own functions ------------------------------------------------- */

#define REAL(name) static __typeof__(name) *real_##name
REAL(fopen);
REAL(fdopen);
REAL(fclose);
REAL(freopen);
REAL(popen);
REAL(pclose);
REAL(tmpfile);
REAL(fgetc);
REAL(getc);
REAL(fgets);
REAL(fread);
REAL(getdelim);
static int (*real_vfscanf)(FILE *, const char *, va_list);
REAL(flockfile);
REAL(funlockfile);
REAL(ftrylockfile);
REAL(ungetc);
REAL(fwide);
static int (*real_isoc99_vfscanf)(FILE *, const char *, va_list);
static char *(*real_fgets_chk)(char *, size_t, int, FILE *);
static size_t (*real_fread_chk)(void *, size_t, size_t, size_t, FILE *);

static void *find(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p)
		rp_fatal("cannot find the C library's %s", name);
	return p;
}

static void find_real(void)
{
	if (real_fopen)
		return;
	real_fdopen = find("fdopen");
	real_fclose = find("fclose");
	real_freopen = find("freopen");
	real_popen = find("popen");
	real_pclose = find("pclose");
	real_tmpfile = find("tmpfile");
	real_fgetc = find("fgetc");
	real_getc = find("getc");
	real_fgets = find("fgets");
	real_fread = find("fread");
	real_getdelim = find("getdelim");
	real_vfscanf = find("vfscanf");
	real_isoc99_vfscanf = find("__isoc99_vfscanf");
	real_flockfile = find("flockfile");
	real_funlockfile = find("funlockfile");
	real_ftrylockfile = find("ftrylockfile");
	real_ungetc = find("ungetc");
	real_fwide = find("fwide");
	real_fgets_chk = find("__fgets_chk");
	real_fread_chk = find("__fread_chk");
	real_fopen = find("fopen"); /* last: the others are there once it is */
}

/* ---- cookie streams ---------------------------------------------------------------- */

static ssize_t cookie_read(void *c, char *buf, size_t n)
{
	struct pt_stream *s = c;
	s->used = true;
	if (s->closed)
		return 0;
	/* popen's child writes at its own pace: the pieces it came in are logged. */
	return s->proc ? io_read_outside(s->fd, buf, n) : read(s->fd, buf, n);
}

static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	struct pt_stream *s = c;
	if (s->closed) {
		errno = EBADF;
		return -1;
	}
	return s->proc ? io_write_outside(s->fd, buf, n) : write(s->fd, buf, n);
}

static int cookie_seek(void *c, off64_t *pos, int whence)
{
	off64_t r = lseek(((struct pt_stream *)c)->fd, *pos, whence);
	if (r < 0)
		return -1;
	*pos = r;
	return 0;
}

static void set_parks(struct pt_stream *s, bool parks)
{
	nparking += (unsigned)parks - (unsigned)s->parks;
	s->parks = parks;
}

static void unlink_stream(struct pt_stream *s)
{
	set_parks(s, false);
	for (struct pt_stream **p = &streams; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
}

/* fclose: the descriptor goes with the stream. popen's belongs to glibc's stream:
 * pclose closes that one itself, a plain fclose has it closed here, as glibc's fclose
 * of a popen stream would (waiting for the child). */
static int cookie_close(void *c)
{
	struct pt_stream *s = c;
	int r = s->closed ? 0 : !s->proc ? close(s->fd) : s->pclosing ? 0 : real_pclose(s->proc);
	if (s->proc && !s->closed)
		in_fd_closed(s->fd); /* glibc's pclose closes it behind the wrappers */
	unlink_stream(s);
	free(s);
	return r;
}

static struct pt_stream *stream_of(FILE *f)
{
	for (struct pt_stream *s = streams; s; s = s->next)
		if (s->file == f)
			return s;
	return NULL;
}

/* fopen's open(2) flags for mode. */
static int mode_flags(const char *mode)
{
	int flags = strchr(mode, '+') ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
	if (mode[0] == 'w')
		flags |= O_CREAT | O_TRUNC;
	else if (mode[0] == 'a')
		flags |= O_CREAT | O_APPEND;
	return flags | (strchr(mode, 'e') ? O_CLOEXEC : 0) | (strchr(mode, 'x') ? O_EXCL : 0);
}

/* The directions a mode opens a stream for: 1 read, 2 write. */
static int mode_dirs(const char *mode)
{
	return strchr(mode, '+') ? 3 : mode[0] == 'r' ? 1 : 2;
}

/* A cookie stream on fd with fopen's mode, or NULL with errno (fd stays open). */
static FILE *cookie_stream(int fd, const char *mode, FILE *proc)
{
	struct pt_stream *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	s->fd = fd;
	s->dirs = mode_dirs(mode);
	s->proc = proc;
	s->lock = rec;
	cookie_io_functions_t io = {cookie_read, cookie_write, cookie_seek, cookie_close};
	s->file = fopencookie(s, mode, io);
	if (!s->file) {
		free(s);
		return NULL;
	}
	set_parks(s, in_world_fd(fd) ? in_world_kind(fd) != IN_W_FILE : io_fd_kind(fd) != IO_FD_OTHER);
	s->file->_fileno = fd;
	/* glibc's own lock has one owner here, the one kernel thread (see the top): it
	 * keeps nothing apart, and costs an atomic operation per getc. */
	__fsetlocking(s->file, FSETLOCKING_BYCALLER);
	struct termios tio; /* isatty, the runtime's call (--syscall-audit names glibc's) */
	if (rp_syscall(SYS_ioctl, fd, TCGETS, &tio) == 0)
		setvbuf(s->file, NULL, _IOLBF, 0);
	s->next = streams;
	streams = s;
	return s->file;
}

/* fdopen's checks: fd must be open, with an access mode the stream's mode allows. */
static bool mode_fits(int fd, const char *mode)
{
	long fl = rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0);
	if (fl < 0) {
		errno = EBADF;
		return false;
	}
	int acc = (int)fl & O_ACCMODE, dirs = mode_dirs(mode);
	if ((dirs & 1 && acc == O_WRONLY) || (dirs & 2 && acc == O_RDONLY)) {
		errno = EINVAL;
		return false;
	}
	return true;
}

/* ---- opening and closing ----------------------------------------------------------- */

/* Called by main.c's first constructor: stdin becomes a cookie stream on fd 0 before
 * anything reads it (this also links this file into every program). */
void io_stdio_start(void)
{
	find_real();
	if (rp_raw_syscall(SYS_fcntl, 0, F_GETFL, 0, 0, 0, 0) < 0)
		return; /* no descriptor 0: glibc's stdin fails its reads, so does ours */
	int saved = errno;
	FILE *f = cookie_stream(0, "r", NULL);
	if (f) {
		glibc_stdin = stdin;
		stdin = cookie_stdin = f;
	}
	errno = saved;
}

FILE *fopen(const char *path, const char *mode)
{
	struct stat st;
	int saved = errno;
	find_real();
	if (in_world_on()) {
		/* Recording or replaying: the file is the world's, its reads inputs and its
		 * writes effects: the stream reads and writes through our calls. */
		int fd = open(path, mode_flags(mode), 0666);
		if (fd < 0)
			return NULL;
		FILE *f = cookie_stream(fd, mode, NULL);
		if (!f) {
			saved = errno;
			close(fd);
			errno = saved;
		} else if (mode[0] == 'a') {
			fseeko(f, 0, SEEK_END); /* where glibc's own stream starts */
		}
		return f;
	}
	/* the runtime's own look (--syscall-audit names the C library's calls) */
	bool dev = rp_syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 &&
		   (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
	errno = saved;
	if (!dev || strchr(mode, 'x'))
		return real_fopen(path, mode);
	int fd = open(path, mode_flags(mode) & ~(O_CREAT | O_TRUNC), 0666);
	if (fd < 0)
		return NULL;
	FILE *f = cookie_stream(fd, mode, NULL);
	if (!f) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

/* Recording or replaying, the unnamed file is the world's (in_tmpfile_fd: the replay
 * creates none), and its stream reads and writes through our calls, as fopen's. */
FILE *tmpfile(void)
{
	find_real();
	if (!in_world_on())
		return real_tmpfile();
	int fd = in_tmpfile_fd();
	if (fd < 0)
		return NULL;
	FILE *f = cookie_stream(fd, "w+", NULL);
	if (!f) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

FILE *tmpfile64(void) __attribute__((alias("tmpfile")));

FILE *fdopen(int fd, const char *mode)
{
	find_real();
	/* Anything a read or write may block on; a random device is a character device
	 * too (its reads are recorded inputs: in_random_dev.c). */
	if (io_fd_kind(fd) == IO_FD_OTHER && !in_world_fd(fd))
		return real_fdopen(fd, mode);
	return mode_fits(fd, mode) ? cookie_stream(fd, mode, NULL) : NULL;
}

/* popen while recording or replaying: its child is the world (inputs/in_world.c). The
 * recording runs it and logs the descriptor, the pipe's bytes (the world's from the
 * fork on) and pclose's status; the replay makes no child (a command is an effect on
 * the world): a pipe of its own at the recorded number stands in, its reads come from
 * the log, and pclose returns the recorded status. */
static FILE *world_popen(const char *command, const char *mode, const char *m)
{
	long fd;
	if (in_world_replayed(IN_WC_POPEN, -1, NULL, 0, &fd)) {
		if (fd < 0) {
			errno = (int)-fd;
			return NULL;
		}
		pt_forks++;
		in_world_forked();
		in_world_standin((int)fd, IN_W_STREAM, (m[0] == 'w' ? O_WRONLY : O_RDONLY) |
				 (strchr(mode, 'e') ? O_CLOEXEC : 0));
		FILE *f = cookie_stream((int)fd, m, NULL);
		struct pt_stream *s = f ? stream_of(f) : NULL;
		if (s)
			s->replayed = true;
		return f;
	}
	FILE *p = real_popen(command, mode);
	in_world_record(IN_WC_POPEN, -1, p ? fileno(p) : -errno, NULL, 0, IN_OUT_NONE);
	if (!p)
		return NULL;
	pt_forks++;
	in_world_forked();
	FILE *f = cookie_stream(fileno(p), m, p);
	return f ? f : p;
}

FILE *popen(const char *command, const char *mode)
{
	find_real();
	/* The child has its end; ours goes through a cookie, glibc keeps p for pclose. */
	char m[3] = {mode[0] == 'w' ? 'w' : 'r', strchr(mode, 'e') ? 'e' : 0, 0};
	if (in_world_on())
		return world_popen(command, mode, m);
	FILE *p = real_popen(command, mode);
	if (!p)
		return NULL;
	pt_forks++; /* the child may hold other pipes' ends too */
	FILE *f = cookie_stream(fileno(p), m, p);
	return f ? f : p;
}

int pclose(FILE *f)
{
	find_real();
	struct pt_stream *s = stream_of(f);
	if (!s || (!s->proc && !s->replayed))
		return real_pclose(f);
	int fd = s->fd;
	long status;
	if (s->replayed) {
		real_fclose(f); /* closes the stand-in */
		if (!in_world_replayed(IN_WC_PCLOSE, fd, NULL, 0, &status))
			status = -ECHILD;
	} else {
		FILE *p = s->proc;
		s->pclosing = true;
		real_fclose(f); /* flushes what was written; leaves the descriptor to p */
		status = real_pclose(p);
		if (status == -1)
			status = -errno;
		in_fd_closed(fd); /* glibc's pclose closed it behind the wrappers */
		if (in_world_on())
			in_world_record(IN_WC_PCLOSE, fd, status, NULL, 0, IN_OUT_NONE);
	}
	if (status < 0) {
		errno = (int)-status;
		return -1;
	}
	return (int)status;
}

/* glibc's freopen breaks on a cookie stream (it makes it a file stream in place, which
 * a cookie stream's layout does not allow). A cookie stream stays one: the new file
 * gets the stream's descriptor, as glibc's freopen gives it, and the buffer and the
 * error and end-of-file flags are dropped. Its direction cannot change: a stream
 * opened for reading (stdin) is reopened for reading. */
FILE *freopen(const char *path, const char *mode, FILE *f)
{
	find_real();
	struct pt_stream *s = stream_of(f);
	if (!s)
		return real_freopen(path, mode, f);
	if (mode_dirs(mode) != s->dirs) {
		rp_say("freopen(\"%s\", \"%s\") of a stream opened for %s: "
				"the direction of a stream on a pipe, socket or terminal cannot change",
			path ? path : "(null)", mode, s->dirs == 1 ? "reading" : s->dirs == 2 ? "writing" : "both");
		errno = EINVAL;
		return NULL;
	}
	fflush(f);
	char self[32];
	if (!path) { /* the same file again, with another mode */
		snprintf(self, sizeof self, "/proc/self/fd/%d", s->fd);
		path = self;
	}
	int fd = open(path, mode_flags(mode), 0666);
	if (fd < 0) {
		/* As glibc's, a failed freopen closes the stream; but the FILE stays (stdin
		 * may point to it, as to glibc's static one): at end of file from now on. */
		int saved = errno;
		if (!s->proc)
			close(s->fd);
		s->closed = true;
		set_parks(s, false);
		errno = saved;
		return NULL;
	}
	if (fd != s->fd) {
		dup3(fd, s->fd, strchr(mode, 'e') ? O_CLOEXEC : 0);
		close(fd);
	}
	__fpurge(f);
	clearerr(f);
	s->closed = false;
	s->used = false; /* a new stream: wide characters may still come (wide()) */
	set_parks(s, io_fd_kind(s->fd) != IO_FD_OTHER);
	return f;
}

FILE *freopen64(const char *path, const char *mode, FILE *f) __attribute__((alias("freopen")));

/* ---- reading: one green thread at a time per stream -------------------------------- */

/* The stream first: io_green costs more than the list (getc is hot). */
static struct pt_stream *lock_stream(FILE *f)
{
	if (!nparking)
		return NULL;
	struct pt_stream *s = stream_of(f);
	if (!s || !s->parks || !io_green())
		return NULL;
	pthread_mutex_lock(&s->lock);
	s->holds++;
	return s;
}

static void unlock_stream(struct pt_stream *s)
{
	if (s) {
		s->holds--;
		pthread_mutex_unlock(&s->lock);
	}
}

static void unlock_cleanup(void *s)
{
	unlock_stream(s);
}

/* Can a one-character read of f skip the lock? When it cannot park: the buffer has a
 * character and nobody holds the stream (a reader parked in a read always leaves the
 * buffer empty). The wrapper runs without a switch (no preemption outside the
 * program's code), so nobody can come in between. */
static bool quick_char(FILE *f)
{
	if (!nparking)
		return true;
	struct pt_stream *s = stream_of(f);
	return !s || !s->parks || (!s->holds && f->_IO_read_ptr < f->_IO_read_end);
}

/* The body of every wrapper: CALL (an expression of type T) under f's green lock.
 * A thread cancelled while parked inside it lets the lock go (the old-style cleanup
 * buffer: no setjmp), as glibc's cancellation releases the FILE's lock. */
#define LOCKED(T, f, CALL)                                                                 \
	do {                                                                               \
		find_real();                                                               \
		struct pt_stream *s_ = lock_stream(f);                                     \
		struct _pthread_cleanup_buffer cb_;                                        \
		if (s_)                                                                    \
			_pthread_cleanup_push(&cb_, unlock_cleanup, s_);                   \
		T r_ = CALL;                                                               \
		if (s_)                                                                    \
			_pthread_cleanup_pop(&cb_, 1);                                     \
		return r_;                                                                 \
	} while (0)

int fgetc(FILE *f)
{
	if (real_fgetc && quick_char(f))
		return real_fgetc(f);
	LOCKED(int, f, real_fgetc(f));
}

int getc(FILE *f)
{
	if (real_getc && quick_char(f))
		return real_getc(f);
	LOCKED(int, f, real_getc(f));
}

int _IO_getc(FILE *f) __attribute__((alias("getc")));

int getchar(void)
{
	return getc(stdin);
}

char *fgets(char *buf, int n, FILE *f)
{
	LOCKED(char *, f, real_fgets(buf, n, f));
}

size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	LOCKED(size_t, f, real_fread(buf, size, n, f));
}

ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	LOCKED(ssize_t, f, real_getdelim(line, cap, delim, f));
}

ssize_t __getdelim(char **line, size_t *cap, int delim, FILE *f) __attribute__((alias("getdelim")));

ssize_t getline(char **line, size_t *cap, FILE *f)
{
	return getdelim(line, cap, '\n', f);
}

/* _FORTIFY_SOURCE's checked forms: glibc's own, under the lock (its checks are not
 * all made up front: __fgets_chk fails only if the line does not fit). */
char *__fgets_chk(char *buf, size_t size, int n, FILE *f)
{
	LOCKED(char *, f, real_fgets_chk(buf, size, n, f));
}

size_t __fread_chk(void *buf, size_t size, size_t esize, size_t n, FILE *f)
{
	LOCKED(size_t, f, real_fread_chk(buf, size, esize, n, f));
}

/* Pushing back while another thread is parked in a read would move the buffer's end
 * under it. */
int ungetc(int c, FILE *f)
{
	LOCKED(int, f, real_ungetc(c, f));
}

/* A reader parked inside the stream finishes its read before the stream goes (glibc's
 * fclose would wait on the FILE's lock). */
int fclose(FILE *f)
{
	find_real();
	struct pt_stream *s = lock_stream(f);
	unlock_stream(s);
	return real_fclose(f);
}

/* The scanf family under both of glibc's names: plain (GNU %a) and C99's, to which
 * <stdio.h> redirects the plain names in C99 mode (here too: hence the asm labels). */
int gnu_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("vfscanf");
int gnu_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	LOCKED(int, f, real_vfscanf(f, fmt, ap));
}

int c99_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("__isoc99_vfscanf");
int c99_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	LOCKED(int, f, real_isoc99_vfscanf(f, fmt, ap));
}

#define SCAN(vname, f)                                                                     \
	do {                                                                               \
		va_list ap;                                                                \
		va_start(ap, fmt);                                                         \
		int r = vname(f, fmt, ap);                                                 \
		va_end(ap);                                                                \
		return r;                                                                  \
	} while (0)

/* The three entry points of a family on top of its v-function vf: fscanf, scanf and
 * vscanf (or their wide forms), under the symbol names given. */
#define SCAN_FAMILY(T, pre, vf, fsym, ssym, vssym)                                         \
	int pre##_fscanf(FILE *f, const T *fmt, ...) __asm__(fsym);                       \
	int pre##_fscanf(FILE *f, const T *fmt, ...)                                      \
	{                                                                                  \
		SCAN(vf, f);                                                               \
	}                                                                                  \
	int pre##_scanf(const T *fmt, ...) __asm__(ssym);                                  \
	int pre##_scanf(const T *fmt, ...)                                                 \
	{                                                                                  \
		SCAN(vf, stdin);                                                           \
	}                                                                                  \
	int pre##_vscanf(const T *fmt, va_list ap) __asm__(vssym);                         \
	int pre##_vscanf(const T *fmt, va_list ap)                                         \
	{                                                                                  \
		return vf(stdin, fmt, ap);                                                 \
	}

SCAN_FAMILY(char, gnu, gnu_vfscanf, "fscanf", "scanf", "vscanf")
SCAN_FAMILY(char, c99, c99_vfscanf, "__isoc99_fscanf", "__isoc99_scanf", "__isoc99_vscanf")

/* The program's own locking: the *_unlocked calls it makes then are ours alone. */
void flockfile(FILE *f)
{
	find_real();
	lock_stream(f); /* funlockfile unlocks it */
	real_flockfile(f);
}

void funlockfile(FILE *f)
{
	find_real();
	real_funlockfile(f);
	struct pt_stream *s = stream_of(f);
	if (s && s->parks && s->holds && io_green())
		unlock_stream(s);
}

int ftrylockfile(FILE *f)
{
	find_real();
	struct pt_stream *s = stream_of(f);
	if (s && s->parks && io_green()) {
		if (pthread_mutex_trylock(&s->lock) != 0)
			return 1;
		s->holds++;
	}
	return real_ftrylockfile(f);
}

/* ---- wide characters: stdin goes back to glibc ------------------------------------- */

/* A cookie stream is byte-oriented for good (glibc's fopencookie) and glibc's wide
 * reads on one crash. So the first wide-character call on stdin, before any byte was
 * read from it, hands stdin back to the C library's own stream, whose reads block
 * every green thread again (docs/io.md); on the other cookie streams the wide calls
 * fail as on a byte-oriented stream (fwide says so), with a note. */
/* stdin handed back to the C library while it is a file of the world: glibc's reads
 * are its own, which no wrapper sees, so what is left of the file is read now,
 * through the world (logged; the replay's from the log), into memory that becomes
 * descriptor 0 in both runs. */
static void stdin_to_memory(void)
{
	struct stat st;
	off_t at = lseek(0, 0, SEEK_CUR);
	if (at < 0 || fstat(0, &st) != 0)
		return;
	size_t n = st.st_size > at ? (size_t)(st.st_size - at) : 0;
	char *buf = n ? malloc(n) : NULL;
	ssize_t got = buf ? pread(0, buf, n, at) : 0;
	long m = rp_raw_syscall(SYS_memfd_create, (long)"stdin", 0, 0, 0, 0, 0);
	if (m >= 0) {
		for (ssize_t done = 0; done < got;) {
			long w = rp_raw_syscall(SYS_write, m, (long)(buf + done), got - done, 0, 0, 0);
			if (w <= 0)
				break;
			done += w;
		}
		rp_raw_syscall(SYS_lseek, m, 0, SEEK_SET, 0, 0, 0);
		rp_raw_syscall(SYS_dup3, m, 0, 0, 0, 0, 0);
		rp_raw_syscall(SYS_close, m, 0, 0, 0, 0, 0);
		in_world_set(0, IN_W_NONE, false);
	}
	free(buf);
}

static FILE *wide(FILE *f)
{
	find_real();
	if (f && f == cookie_stdin && stdin == cookie_stdin) {
		struct pt_stream *s = stream_of(f);
		if (s && !s->used && f->_IO_read_ptr == f->_IO_read_end) {
			if (in_world_fd(0) && in_world_kind(0) == IN_W_FILE)
				stdin_to_memory();
			stdin = glibc_stdin;
		}
	}
	return f == cookie_stdin ? stdin : f;
}

/* A cookie stream that wide calls must refuse: true, after the note (once). */
static bool byte_only(FILE *f)
{
	static bool told;
	struct pt_stream *s = stream_of(f);
	if (!s)
		return false;
	if (!told) {
		told = true;
		rp_say("wide-character stdio on a stream on a pipe, socket or "
				"terminal (descriptor %d) is not supported: it is byte-oriented", s->fd);
	}
	errno = EINVAL;
	return true;
}

/* A wrapper of the C library's sym for a stream passed through wide(): fail (the
 * result of a byte-oriented stream) on the cookie streams that remain. */
#define WIDE(T, name, sym, fail, params, ...)                                              \
	T name params                                                                      \
	{                                                                                  \
		static T(*real) params;                                                    \
		if (!real)                                                                 \
			real = find(sym);                                                  \
		f = wide(f);                                                               \
		return byte_only(f) ? (fail) : real(__VA_ARGS__);                          \
	}

/* fwide asking (0) or setting byte orientation (-1) changes nothing: no hand-back. */
int fwide(FILE *f, int mode)
{
	find_real();
	if (mode <= 0)
		return real_fwide(f, mode);
	f = wide(f);
	return byte_only(f) ? -1 : real_fwide(f, mode);
}

WIDE(wint_t, fgetwc, "fgetwc", WEOF, (FILE * f), f)
WIDE(wint_t, getwc, "getwc", WEOF, (FILE * f), f)
WIDE(wint_t, ungetwc, "ungetwc", WEOF, (wint_t c, FILE *f), c, f)
WIDE(wchar_t *, fgetws, "fgetws", NULL, (wchar_t * buf, int n, FILE *f), buf, n, f)
WIDE(wint_t, fgetwc_unlocked, "fgetwc_unlocked", WEOF, (FILE * f), f)
WIDE(wint_t, getwc_unlocked, "getwc_unlocked", WEOF, (FILE * f), f)
WIDE(wchar_t *, fgetws_unlocked, "fgetws_unlocked", NULL, (wchar_t * buf, int n, FILE *f), buf, n,
     f)
WIDE(wchar_t *, __fgetws_chk, "__fgetws_chk", NULL,
     (wchar_t * buf, size_t size, int n, FILE *f), buf, size, n, f)
WIDE(wchar_t *, __fgetws_unlocked_chk, "__fgetws_unlocked_chk", NULL,
     (wchar_t * buf, size_t size, int n, FILE *f), buf, size, n, f)

wint_t getwchar_unlocked(void)
{
	return fgetwc_unlocked(stdin);
}

wint_t getwchar(void)
{
	return fgetwc(stdin);
}

int gnu_vfwscanf(FILE *f, const wchar_t *fmt, va_list ap) __asm__("vfwscanf");
WIDE(int, gnu_vfwscanf, "vfwscanf", EOF, (FILE * f, const wchar_t *fmt, va_list ap), f, fmt, ap)
int c99_vfwscanf(FILE *f, const wchar_t *fmt, va_list ap) __asm__("__isoc99_vfwscanf");
WIDE(int, c99_vfwscanf, "__isoc99_vfwscanf", EOF, (FILE * f, const wchar_t *fmt, va_list ap), f, fmt, ap)

SCAN_FAMILY(wchar_t, gnu_w, gnu_vfwscanf, "fwscanf", "wscanf", "vwscanf")
SCAN_FAMILY(wchar_t, c99_w, c99_vfwscanf, "__isoc99_fwscanf", "__isoc99_wscanf", "__isoc99_vwscanf")
