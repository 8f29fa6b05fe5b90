/* stdio on pipes between threads: glibc's stdio reads and writes through its internal
 * calls, so without libreplay's cookie streams (libreplay/io/io_stdio.c) the first fgets
 * on an empty pipe would block the only kernel thread, and the writer with it.
 *   1. fdopen + fgets/fscanf/fgetc/fread on a pipe a writer thread fills in pieces,
 *      napping between them (a line is often split across two writes);
 *   2. three readers share one FILE with getline: each line is read exactly once and
 *      whole (the stream's lock keeps a parked reader's buffer its own);
 *   3. a writer's fprintf into a full pipe: it waits for the reader to drain it;
 *   4. popen's stream read by fgets while another thread works;
 *   5. fileno gives the descriptor back; flockfile around getc_unlocked. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void nap(long us)
{
	struct timespec t = {0, us * 1000};
	nanosleep(&t, NULL);
}

/* ---- 1. a writer in pieces, a reader with every kind of read ---------------------- */

static void *piecewise_writer(void *arg)
{
	int fd = (int)(long)arg;
	static const char *pieces[] = {"alpha be", "ta\ngam", "ma 42 17\n", "xyz", "\nraw:", "0123456789",
				       "\n"};
	for (unsigned i = 0; i < sizeof pieces / sizeof *pieces; i++) {
		if (write(fd, pieces[i], strlen(pieces[i])) < 0)
			perror("write");
		nap(2000);
	}
	close(fd);
	return NULL;
}

static void pieces(void)
{
	int p[2];
	pthread_t w;
	if (pipe(p) != 0)
		exit(1);
	FILE *f = fdopen(p[0], "r");
	printf("fdopen: fileno %s\n", f && fileno(f) == p[0] ? "same" : "DIFFERENT");
	pthread_create(&w, NULL, piecewise_writer, (void *)(long)p[1]);
	char line[64], word[16];
	int a = 0, b = 0;
	printf("fgets: %s", fgets(line, sizeof line, f) ? line : "(null)\n");
	printf("fscanf: %d", fscanf(f, "%15s %d %d", word, &a, &b));
	printf(" %s %d %d\n", word, a, b);
	int c, n = 0;
	while ((c = fgetc(f)) != EOF && c != ':')
		n += c != '\n';
	printf("fgetc: %d characters before ':'\n", n);
	size_t got = fread(line, 1, 11, f);
	printf("fread: %zu '%.10s'\n", got, line);
	printf("end: %s\n", fgetc(f) == EOF && feof(f) ? "EOF" : "more?");
	fclose(f);
	pthread_join(w, NULL);
}

/* ---- 2. three readers, one FILE ---------------------------------------------------- */

#define LINES 3000
static FILE *shared;
static long shared_sum[3], shared_lines[3], shared_bad;

static void *line_writer(void *arg)
{
	FILE *out = fdopen((int)(long)arg, "w");
	for (int i = 1; i <= LINES; i++) {
		fprintf(out, "line %d of %d, %s\n", i, LINES, i % 3 ? "short" : "a little longer than the others");
		if (i % 7 == 0)
			fflush(out); /* often, so that data comes while readers hold some */
		if (i % 500 == 0)
			nap(500);
	}
	fclose(out);
	return NULL;
}

static void *line_reader(void *arg)
{
	long id = (long)arg;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, shared) > 0) {
		int i, of;
		if (sscanf(line, "line %d of %d,", &i, &of) != 2 || of != LINES || !strchr(line, '\n'))
			shared_bad++;
		shared_sum[id] += i;
		shared_lines[id]++;
		for (volatile int spin = 0; spin < 3000; spin++) /* a reader with unread lines */
			;
	}
	free(line);
	return NULL;
}

static void shared_readers(void)
{
	int p[2];
	pthread_t w, r[3];
	if (pipe(p) != 0)
		exit(1);
	shared = fdopen(p[0], "r");
	for (long i = 0; i < 3; i++)
		pthread_create(&r[i], NULL, line_reader, (void *)i);
	pthread_create(&w, NULL, line_writer, (void *)(long)p[1]);
	pthread_join(w, NULL);
	long sum = 0, lines = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(r[i], NULL);
		sum += shared_sum[i];
		lines += shared_lines[i];
	}
	fclose(shared);
	printf("shared FILE: %ld lines, sum %ld (want %d), %ld torn\n", lines, sum, LINES * (LINES + 1) / 2,
	       shared_bad);
}

/* ---- 3. fprintf into a full pipe --------------------------------------------------- */

static void *slow_reader(void *arg)
{
	FILE *in = fdopen((int)(long)arg, "r");
	char buf[4096];
	size_t total = 0, n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		total += n;
		if (total % 65536 < sizeof buf)
			nap(200);
	}
	fclose(in);
	return (void *)total;
}

static void full_pipe(void)
{
	int p[2];
	pthread_t r;
	if (pipe(p) != 0)
		exit(1);
	pthread_create(&r, NULL, slow_reader, (void *)(long)p[0]);
	FILE *out = fdopen(p[1], "w");
	for (int i = 0; i < 20000; i++)
		fprintf(out, "%05d: the same forty bytes, again and again\n", i);
	fclose(out);
	void *total;
	pthread_join(r, &total);
	printf("full pipe: the reader got %ld bytes\n", (long)total);
}

/* ---- 4. popen -------------------------------------------------------------------- */

static volatile int popen_done;
static void *busy(void *arg)
{
	long rounds = 0;
	while (!popen_done) {
		nap(1000);
		rounds++;
	}
	return (void *)rounds;
}

static void from_popen(void)
{
	pthread_t t;
	pthread_create(&t, NULL, busy, NULL);
	FILE *p = popen("sleep 0.05; echo one; sleep 0.05; echo two", "r");
	char a[16] = "", b[16] = "";
	if (!p || !fgets(a, sizeof a, p) || !fgets(b, sizeof b, p))
		printf("popen: read failed\n");
	int rc = pclose(p);
	popen_done = 1;
	void *rounds;
	pthread_join(t, &rounds);
	printf("popen: %.3s %.3s, status %d, the other thread ran meanwhile: %s\n", a, b, rc,
	       (long)rounds > 0 ? "yes" : "no");
}

/* ---- 5. flockfile and the unlocked calls ------------------------------------------ */

static void *word_writer(void *arg)
{
	int fd = (int)(long)arg;
	for (int i = 0; i < 5; i++) {
		if (write(fd, "w", 1) != 1 || (i % 2 && write(fd, "\n", 1) != 1))
			perror("write");
		nap(1000);
	}
	close(fd);
	return NULL;
}

static void locked_getc(void)
{
	int p[2];
	pthread_t w;
	if (pipe(p) != 0)
		exit(1);
	FILE *f = fdopen(p[0], "r");
	pthread_create(&w, NULL, word_writer, (void *)(long)p[1]);
	int n = 0, c;
	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF)
		n++;
	funlockfile(f);
	fclose(f);
	pthread_join(w, NULL);
	printf("getc_unlocked under flockfile: %d characters\n", n);
}

int main(void)
{
	pieces();
	shared_readers();
	full_pipe();
	from_popen();
	locked_getc();
	return 0;
}
