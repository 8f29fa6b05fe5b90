/* pzip: compress a file with several threads into a gzip stream.
 *
 * The input is cut into blocks; the main thread reads them and puts them on a
 * bounded work queue, N worker threads each compress a block into a complete gzip
 * member (zlib's deflate), and a writer thread emits the members in input order.
 * gzip streams may hold several members one after another, so `gunzip` (or
 * `zcat`) restores the input. The output does not depend on the threads' timing:
 * every block is compressed alone, with the same settings.
 *
 * The queue is a mutex and three condition variables: `work` (a block is waiting for
 * a worker), `done` (a block is compressed, the writer may go on), `room` (the
 * writer released a block, the reader may read another). At most `depth` blocks
 * are in flight (read and not yet written), which bounds the memory used. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct block {
	long seq;
	unsigned char *in, *out;
	size_t inlen, outlen;
	struct block *next; /* on the work queue */
};

struct pzip {
	pthread_mutex_t lock;
	pthread_cond_t work, done, room;
	struct block *head, *tail; /* read, waiting for a worker */
	struct block **finished;   /* compressed, by seq % depth, waiting for the writer */
	long depth;                /* most blocks in flight */
	long inflight;
	long nread;    /* blocks read so far (the next block's seq) */
	bool eof;      /* the reader has read its last block */
	bool failed;   /* someone failed: everybody stops */
	int level;
	FILE *out;
};

struct worker {
	pthread_t thread;
	struct pzip *z;
	int id;
	long blocks;   /* how many blocks this worker compressed */
	size_t bytes;  /* their input size */
	bool failed;
};

static void fail(struct pzip *z, const char *fmt, const char *what)
{
	fprintf(stderr, "pzip: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	pthread_mutex_lock(&z->lock);
	z->failed = true;
	pthread_cond_broadcast(&z->work);
	pthread_cond_broadcast(&z->done);
	pthread_cond_broadcast(&z->room);
	pthread_mutex_unlock(&z->lock);
}

static void free_block(struct block *b)
{
	if (b) {
		free(b->in);
		free(b->out);
		free(b);
	}
}

/* Compress b->in into one gzip member in b->out. */
static int compress_block(z_stream *s, struct block *b)
{
	if (deflateReset(s) != Z_OK)
		return -1;
	size_t cap = deflateBound(s, b->inlen);
	b->out = malloc(cap);
	if (!b->out)
		return -1;
	s->next_in = b->in;
	s->avail_in = b->inlen;
	s->next_out = b->out;
	s->avail_out = cap;
	if (deflate(s, Z_FINISH) != Z_STREAM_END)
		return -1;
	b->outlen = cap - s->avail_out;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pzip *z = w->z;
	z_stream s;
	memset(&s, 0, sizeof s);
	/* windowBits 15 + 16: a gzip header and trailer around the deflate data. */
	if (deflateInit2(&s, z->level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		fail(z, "%s", "zlib: deflateInit2 failed");
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&z->lock);
		while (!z->head && !z->eof && !z->failed)
			pthread_cond_wait(&z->work, &z->lock);
		struct block *b = z->failed ? NULL : z->head;
		if (b) {
			z->head = b->next;
			if (!z->head)
				z->tail = NULL;
		}
		pthread_mutex_unlock(&z->lock);
		if (!b)
			break; /* end of input, or a failure */

		if (compress_block(&s, b)) {
			free_block(b);
			w->failed = true;
			fail(z, "%s", "zlib: deflate failed (out of memory?)");
			break;
		}
		w->blocks++;
		w->bytes += b->inlen;

		pthread_mutex_lock(&z->lock);
		z->finished[b->seq % z->depth] = b;
		pthread_cond_signal(&z->done);
		pthread_mutex_unlock(&z->lock);
	}
	deflateEnd(&s);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct pzip *z = arg;
	for (long next = 0;; next++) {
		pthread_mutex_lock(&z->lock);
		struct block *b;
		while (!(b = z->finished[next % z->depth]) && !(z->eof && next == z->nread) &&
		       !z->failed)
			pthread_cond_wait(&z->done, &z->lock);
		if (z->failed || !b) {
			pthread_mutex_unlock(&z->lock);
			break;
		}
		z->finished[next % z->depth] = NULL;
		pthread_mutex_unlock(&z->lock);

		bool short_write = fwrite(b->out, 1, b->outlen, z->out) != b->outlen;
		free_block(b);
		if (short_write || ferror(z->out)) {
			fail(z, "write: %s", strerror(errno));
			break;
		}
		pthread_mutex_lock(&z->lock);
		z->inflight--;
		pthread_cond_signal(&z->room);
		pthread_mutex_unlock(&z->lock);
	}
	return NULL;
}

/* Read up to size bytes; returns the count, short only at the end of the input. */
static size_t read_full(FILE *in, unsigned char *buf, size_t size)
{
	size_t got = 0;
	while (got < size) {
		size_t n = fread(buf + got, 1, size - got, in);
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* The main thread's part: read blocks and queue them. Returns 0, or -1 on failure. */
static int read_blocks(struct pzip *z, FILE *in, size_t blocksize)
{
	for (;;) {
		pthread_mutex_lock(&z->lock);
		while (z->inflight >= z->depth && !z->failed)
			pthread_cond_wait(&z->room, &z->lock);
		bool stop = z->failed;
		if (!stop)
			z->inflight++;
		pthread_mutex_unlock(&z->lock);
		if (stop)
			return -1;

		struct block *b = calloc(1, sizeof *b);
		unsigned char *buf = malloc(blocksize);
		if (!b || !buf) {
			free(b);
			free(buf);
			fail(z, "%s", "out of memory");
			return -1;
		}
		b->in = buf;
		b->inlen = read_full(in, buf, blocksize);
		if (ferror(in)) {
			free_block(b);
			fail(z, "read: %s", strerror(errno));
			return -1;
		}
		/* An empty input still gets one (empty) member: gunzip wants one. */
		bool last = b->inlen < blocksize;
		if (b->inlen == 0 && z->nread > 0) {
			free_block(b);
			pthread_mutex_lock(&z->lock);
			z->inflight--;
			z->eof = true;
			pthread_cond_broadcast(&z->work);
			pthread_cond_broadcast(&z->done);
			pthread_mutex_unlock(&z->lock);
			return 0;
		}

		pthread_mutex_lock(&z->lock);
		b->seq = z->nread++;
		if (z->tail)
			z->tail->next = b;
		else
			z->head = b;
		z->tail = b;
		pthread_cond_signal(&z->work);
		if (last) {
			z->eof = true;
			pthread_cond_broadcast(&z->work);
			pthread_cond_broadcast(&z->done);
		}
		pthread_mutex_unlock(&z->lock);
		if (last)
			return 0;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pzip [-j THREADS] [-b KIB] [-l LEVEL] [-q DEPTH] [-o OUT] [-v] [IN]\n"
		   "  compress IN (default: standard input) into a gzip stream on OUT\n"
		   "  (default: standard output), THREADS workers (4), blocks of KIB KiB (128),\n"
		   "  zlib level LEVEL 0-9 (6), at most DEPTH blocks in flight (2 x THREADS);\n"
		   "  -v: per-worker counts on standard error\n");
}

/* A whole decimal number in [lo, hi], or exit with a message. */
static long number(const char *s, char opt, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "pzip: -%c wants a number from %ld to %ld, not '%s'\n", opt, lo,
			hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long nthreads = 4, kib = 128, depth = 0;
	int level = 6;
	bool verbose = false;
	const char *outname = NULL;
	int c;
	while ((c = getopt(argc, argv, "j:b:l:q:o:vh")) != -1) {
		switch (c) {
		case 'j': nthreads = number(optarg, c, 1, 256); break;
		case 'b': kib = number(optarg, c, 1, 1 << 20); break;
		case 'l': level = number(optarg, c, 0, 9); break;
		case 'q': depth = number(optarg, c, 1, 1 << 16); break;
		case 'o': outname = optarg; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	const char *inname = optind < argc ? argv[optind] : "-";
	FILE *in = strcmp(inname, "-") ? fopen(inname, "rb") : stdin;
	if (!in) {
		fprintf(stderr, "pzip: %s: %s\n", inname, strerror(errno));
		return 1;
	}
	FILE *out = outname && strcmp(outname, "-") ? fopen(outname, "wb") : stdout;
	if (!out) {
		fprintf(stderr, "pzip: %s: %s\n", outname, strerror(errno));
		return 1;
	}

	struct pzip z = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.work = PTHREAD_COND_INITIALIZER,
		.done = PTHREAD_COND_INITIALIZER,
		.room = PTHREAD_COND_INITIALIZER,
		.depth = depth ? depth : 2 * nthreads,
		.level = level,
		.out = out,
	};
	z.finished = calloc(z.depth, sizeof *z.finished);
	struct worker *w = calloc(nthreads, sizeof *w);
	if (!z.finished || !w) {
		fprintf(stderr, "pzip: out of memory\n");
		return 1;
	}
	pthread_t writer;
	int err = pthread_create(&writer, NULL, writer_main, &z);
	long started = 0;
	for (; !err && started < nthreads; started++) {
		w[started].z = &z;
		w[started].id = started;
		err = pthread_create(&w[started].thread, NULL, worker_main, &w[started]);
	}
	if (err) {
		fail(&z, "pthread_create: %s", strerror(err));
		if (started == 0) /* not even the writer */
			return 1;
		started--; /* the last attempt made no thread */
	}

	int status = err || read_blocks(&z, in, kib * 1024) ? 1 : 0;
	for (long i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	pthread_join(writer, NULL);
	if (z.failed)
		status = 1;
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "pzip: write: %s\n", strerror(errno));
		status = 1;
	}

	long blocks = 0;
	size_t bytes = 0;
	for (long i = 0; i < started; i++) {
		blocks += w[i].blocks;
		bytes += w[i].bytes;
		if (verbose)
			fprintf(stderr, "pzip: worker %ld: %ld blocks, %zu bytes\n", i, w[i].blocks,
				w[i].bytes);
	}
	if (verbose)
		fprintf(stderr, "pzip: %ld blocks, %zu bytes in\n", blocks, bytes);
	while (z.head) {
		struct block *b = z.head;
		z.head = b->next;
		free_block(b);
	}
	for (long i = 0; i < z.depth; i++)
		free_block(z.finished[i]);
	free(z.finished);
	free(w);
	if (in != stdin)
		fclose(in);
	return status;
}
