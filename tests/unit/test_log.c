/* test_log: the replay log (libreplay/log/log.c, docs/log-format.md): round trips, record
 * sizes on a synthetic loop-heavy workload, damaged and cut-short logs, crashes and
 * SIGKILL while recording. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "log/log.h"

/* ---- scratch files -------------------------------------------------------------- */

static char scratch[256];

static const char *scratch_path(const char *name)
{
	static char path[4][512];
	static int turn;
	if (!*scratch) {
		struct stat st;
		const char *base = stat("build", &st) == 0 && S_ISDIR(st.st_mode) ? "build/tests"
										   : "/tmp";
		mkdir(base, 0777);
		snprintf(scratch, sizeof scratch, "%s/test_log-XXXXXX", base);
		if (!mkdtemp(scratch))
			fail_msg("mkdtemp %s: %s", scratch, strerror(errno));
	}
	turn = (turn + 1) % 4;
	snprintf(path[turn], sizeof path[turn], "%s/%s", scratch, name);
	return path[turn];
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A file in memory for the tests that read thousands of variants of a log: its
 * /proc/self/fd path, rewritten by mem_spit. */
static int mem_fd = -1;

static const char *mem_path(void)
{
	static char path[64];
	if (mem_fd < 0) {
		mem_fd = memfd_create("test_log", MFD_CLOEXEC);
		assert_true(mem_fd >= 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", mem_fd);
	}
	return path;
}

static void mem_spit(const uint8_t *p, size_t len)
{
	mem_path();
	assert_int_equal(ftruncate(mem_fd, 0), 0);
	assert_int_equal(pwrite(mem_fd, p, len, 0), (ssize_t)len);
}

/* ---- a small PRNG (splitmix64) ------------------------------------------------------ */

static uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return rnd_next(s) % n;
}

/* Uniform in [0, 1). */
static double rnd_unit(uint64_t *s)
{
	return (double)(rnd_next(s) >> 11) / 9007199254740992.0;
}

/* About normal, mean 0, variance 1 (the sum of 12 uniforms; no libm). */
static double rnd_normal(uint64_t *s)
{
	double x = -6;
	for (int i = 0; i < 12; i++)
		x += rnd_unit(s);
	return x;
}

/* ---- records we expect ---------------------------------------------------------------- */

struct xlog {
	struct rp_log_record *v;
	size_t n, cap;
};

static void xlog_push(struct xlog *x, const struct rp_log_record *r)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->v = realloc(x->v, x->cap * sizeof *x->v);
		assert_non_null(x->v);
	}
	struct rp_log_record *c = &x->v[x->n++];
	*c = *r;
	if (r->kind == RP_LOG_INPUT) {
		uint8_t *d = malloc(r->len + 1);
		assert_non_null(d);
		if (r->len)
			memcpy(d, r->data, r->len);
		c->data = d;
	}
	if (r->kind == RP_LOG_END) {
		struct rp_log_final *t = malloc((r->nthreads + 1) * sizeof *t);
		assert_non_null(t);
		if (r->nthreads)
			memcpy(t, r->threads, r->nthreads * sizeof *t);
		c->threads = t;
		struct rp_log_wait *w = malloc((r->outcome.nwaits + 1) * sizeof *w);
		assert_non_null(w);
		if (r->outcome.nwaits)
			memcpy(w, r->outcome.waits, r->outcome.nwaits * sizeof *w);
		c->outcome.waits = w;
	}
}

static void xlog_free(struct xlog *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free((void *)x->v[i].data);
		free((void *)x->v[i].threads);
		free((void *)x->v[i].outcome.waits);
	}
	free(x->v);
	memset(x, 0, sizeof *x);
}

static void push_preempt(struct xlog *x, uint32_t tid, uint64_t count, uint64_t pc)
{
	struct rp_log_record r = {.kind = RP_LOG_PREEMPT, .tid = tid, .count = count, .pc = pc};
	xlog_push(x, &r);
}

static void push_timeout(struct xlog *x, uint32_t tid, uint64_t pos)
{
	struct rp_log_record r = {.kind = RP_LOG_TIMEOUT, .tid = tid, .pos = pos};
	xlog_push(x, &r);
}

static void push_input(struct xlog *x, uint32_t tid, uint8_t kind, const void *data,
		       uint32_t len)
{
	struct rp_log_record r = {.kind = RP_LOG_INPUT, .tid = tid, .input_kind = kind,
				  .len = len, .data = data};
	xlog_push(x, &r);
}

static void push_thread_end(struct xlog *x, uint32_t tid, uint64_t count)
{
	struct rp_log_record r = {.kind = RP_LOG_THREAD_END, .tid = tid, .count = count};
	xlog_push(x, &r);
}

static void push_end(struct xlog *x, int how, int value, const struct rp_log_final *t,
		     uint32_t n)
{
	struct rp_log_record r = {.kind = RP_LOG_END, .how = how, .value = value,
				  .nthreads = n, .threads = t};
	xlog_push(x, &r);
}

/* The threads' states of two DEADLOCK or HANG END records (RP_LOG_HELD_MAX held listed). */
static bool same_outcome(const struct rp_log_outcome *a, const struct rp_log_outcome *b)
{
	if (a->stop_tid != b->stop_tid || a->nwaits != b->nwaits ||
	    (a->stop_tid && (a->stop_count != b->stop_count || a->stop_pc != b->stop_pc)))
		return false;
	for (uint32_t i = 0; i < a->nwaits; i++) {
		const struct rp_log_wait *x = &a->waits[i], *y = &b->waits[i];
		if (x->tid != y->tid || x->state != y->state || x->kind != y->kind || x->obj != y->obj ||
		    x->owner != y->owner || x->nheld != y->nheld)
			return false;
		for (uint32_t k = 0; k < x->nheld && k < RP_LOG_HELD_MAX; k++)
			if (x->held[k] != y->held[k])
				return false;
	}
	return true;
}

static bool same_record(const struct rp_log_record *a, const struct rp_log_record *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case RP_LOG_PREEMPT:
		return a->tid == b->tid && a->count == b->count && a->pc == b->pc;
	case RP_LOG_TIMEOUT:
		return a->tid == b->tid && a->pos == b->pos;
	case RP_LOG_INPUT:
		return a->tid == b->tid && a->input_kind == b->input_kind && a->len == b->len &&
		       memcmp(a->data, b->data, a->len) == 0;
	case RP_LOG_THREAD_END:
		return a->tid == b->tid && a->count == b->count;
	case RP_LOG_END:
		if (a->how != b->how || a->value != b->value || a->nthreads != b->nthreads)
			return false;
		for (uint32_t i = 0; i < a->nthreads; i++)
			if (a->threads[i].tid != b->threads[i].tid ||
			    a->threads[i].count != b->threads[i].count)
				return false;
		return (a->how != RP_LOG_DEADLOCK && a->how != RP_LOG_HANG) || same_outcome(&a->outcome, &b->outcome);
	}
	return false;
}

static int write_record(struct rp_log_writer *w, const struct rp_log_record *r)
{
	switch (r->kind) {
	case RP_LOG_PREEMPT:
		return rp_log_preempt(w, r->tid, r->count, r->pc);
	case RP_LOG_TIMEOUT:
		return rp_log_timeout(w, r->tid, r->pos);
	case RP_LOG_INPUT:
		return rp_log_input(w, r->tid, r->input_kind, r->data, r->len);
	case RP_LOG_THREAD_END:
		return rp_log_thread_end(w, r->tid, r->count);
	case RP_LOG_END:
		if (r->how == RP_LOG_DEADLOCK || r->how == RP_LOG_HANG)
			return rp_log_end_outcome(w, r->how, r->value, r->threads, r->nthreads,
						  &r->outcome);
		return rp_log_end(w, r->how, r->value, r->threads, r->nthreads);
	}
	return -1;
}

/* ---- writing and reading whole logs ----------------------------------------------- */

static const char *test_argv[] = {"./app", "--threads", "8", "", "a b\tc"};

static struct rp_log_header test_header(void)
{
	struct rp_log_header h = {
		.flags = RP_LOG_F_CHAOS,
		.quantum_ns = 1000000,
		.seed = UINT64_C(0xdeadbeefcafef00d),
		.build_id_len = 20,
		.argc = 5,
		.argv = test_argv,
	};
	for (int i = 0; i < 20; i++)
		h.build_id[i] = (uint8_t)(0xa0 + i);
	return h;
}

static struct rp_log_writer *create_or_fail(const char *path, const struct rp_log_header *h)
{
	struct rp_log_writer *w;
	char err[RP_LOG_ERRLEN] = "";
	if (rp_log_create(path, h, &w, err, sizeof err) < 0)
		fail_msg("rp_log_create: %s", err);
	return w;
}

/* Write x to path, flushing a block after every flush_every records (0: never by hand). */
static void write_log(const char *path, const struct xlog *x, size_t flush_every)
{
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(path, &h);
	for (size_t i = 0; i < x->n; i++) {
		assert_int_equal(write_record(w, &x->v[i]), 0);
		if (flush_every && (i + 1) % flush_every == 0)
			assert_int_equal(rp_log_flush(w), 0);
	}
	assert_int_equal(rp_log_close(w), 0);
}

struct readback {
	int opened;               /* rp_log_open succeeded */
	enum rp_log_status status;
	struct xlog got;
	char msg[RP_LOG_ERRLEN];
};

static void read_log(const char *path, struct readback *rb)
{
	struct rp_log_reader *r;
	struct rp_log_record rec;
	memset(rb, 0, sizeof *rb);
	if (rp_log_open(path, &r, rb->msg, sizeof rb->msg) < 0)
		return;
	rb->opened = 1;
	while ((rb->status = rp_log_next(r, &rec)) == RP_LOG_OK)
		xlog_push(&rb->got, &rec);
	/* the status sticks */
	assert_int_equal(rp_log_next(r, &rec), rb->status);
	assert_int_equal(rp_log_records(r), rb->got.n);
	snprintf(rb->msg, sizeof rb->msg, "%s", rp_log_error(r));
	rp_log_close_reader(r);
}

/* got is the first n records of want. */
static void assert_prefix(const struct xlog *got, const struct xlog *want, size_t n)
{
	if (got->n != n)
		fail_msg("read %zu records, expected %zu", got->n, n);
	for (size_t i = 0; i < n; i++)
		if (!same_record(&got->v[i], &want->v[i]))
			fail_msg("record %zu differs (kind %d vs %d)", i + 1, got->v[i].kind,
				 want->v[i].kind);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* Where each block ends and how many records the blocks up to it hold, read from the
 * block headers (docs/log-format.md) without the reader. */
struct layout {
	size_t hlen, nblocks;
	size_t end[512];
	size_t records[512]; /* records in blocks 1..i+1 */
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void layout_of(const uint8_t *p, size_t len, struct layout *l)
{
	memset(l, 0, sizeof *l);
	l->hlen = le32(p + 12);
	size_t at = l->hlen, recs = 0;
	while (at + 24 <= len && l->nblocks < 512) {
		assert_memory_equal(p + at, "RPBK", 4);
		recs += le32(p + at + 12);
		at += 24 + le32(p + at + 8);
		l->end[l->nblocks] = at;
		l->records[l->nblocks] = recs;
		l->nblocks++;
	}
	assert_int_equal(at, len);
}

/* Records in the blocks that end at or before offset. */
static size_t records_before(const struct layout *l, size_t offset)
{
	size_t n = 0;
	for (size_t i = 0; i < l->nblocks && l->end[i] <= offset; i++)
		n = l->records[i];
	return n;
}

/* 1-based number of the block that holds offset. */
static size_t block_at(const struct layout *l, size_t offset)
{
	size_t i = 0;
	while (i < l->nblocks && l->end[i] <= offset)
		i++;
	return i + 1;
}

/* A small log with every kind of record over several blocks: INPUTs stored in every
 * way (version 4: as they are, compressed, by reference within a block and to an
 * earlier block). */
static uint8_t blob8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static uint8_t text300[300], noise300[300];

static void small_log(struct xlog *x)
{
	uint64_t s = 7;
	uint64_t count[4] = {0};
	for (size_t i = 0; i < sizeof text300; i++) {
		text300[i] = (uint8_t)"int main(void) { return 0; }\n"[i % 30];
		noise300[i] = (uint8_t)rnd_next(&s);
	}
	for (int i = 0; i < 40; i++) {
		uint32_t tid = (uint32_t)(i % 4) + 1;
		count[tid - 1] += 100000 + rnd_below(&s, 3000);
		push_preempt(x, tid, count[tid - 1], 0x1200 + rnd_below(&s, 200));
		if (i % 9 == 4)
			push_timeout(x, tid, count[tid - 1] + 5);
		if (i % 11 == 6)
			push_input(x, tid, 3, blob8, (uint32_t)(i % 9));
		if (i == 3 || i == 25)
			push_input(x, tid, 10, text300, sizeof text300);
		if (i == 12 || i == 13 || i == 30)
			push_input(x, tid, 10, noise300, sizeof noise300);
	}
	push_thread_end(x, 4, count[3]);
	struct rp_log_final fin[3] = {{1, count[0]}, {2, count[1]}, {3, count[2]}};
	push_end(x, RP_LOG_EXITED, 0, fin, 3);
}

/* ---- CRC ------------------------------------------------------------------------------ */

static void crc32_matches_the_standard(void **state)
{
	assert_int_equal(rp_log_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(rp_log_crc32(0, "", 0), 0);
	uint32_t c = rp_log_crc32(0, "1234", 4);
	assert_int_equal(rp_log_crc32(c, "56789", 5), 0xcbf43926u);
}

/* ---- round trips ------------------------------------------------------------------------ */

static void round_trip_every_kind(void **state)
{
	struct xlog x = {0};
	static uint8_t big[RP_LOG_INPUT_MAX];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 7 + 3);
	push_preempt(&x, 1, 12345, 0x1130);
	push_preempt(&x, 2, 0, 0);
	push_preempt(&x, 1, 12345 + 100000, 0x1134);          /* first advance */
	push_preempt(&x, 1, 12345 + 200000, 0x1134);          /* same advance, same PC */
	push_preempt(&x, 1, 12345 + 300017, 0x1100);          /* near, backwards PC */
	push_preempt(&x, 1, 12345 + 900000, 0x48000);         /* far count, far PC */
	push_preempt(&x, 1, 12345 + 1000010, 0x1108);         /* back near the old PC */
	push_preempt(&x, 2, UINT64_MAX, UINT64_MAX);          /* extremes */
	push_preempt(&x, 2, 5, 0);                            /* counts wrap */
	push_preempt(&x, UINT32_MAX, UINT64_C(1) << 62, 0x7fffffff);
	push_preempt(&x, UINT32_MAX, (UINT64_C(1) << 62) + 1, 0x7fffffff);
	push_timeout(&x, 3, 0);
	push_timeout(&x, 0, UINT64_MAX);
	push_input(&x, 1, 0, NULL, 0);
	push_input(&x, 1, 1, blob8, 1);
	push_input(&x, 2, 254, blob8, 8); /* (255 is the writer's PAD) */
	push_input(&x, 7, 2, big, sizeof big);
	push_thread_end(&x, 2, 77);
	push_thread_end(&x, UINT32_MAX, UINT64_MAX);
	push_preempt(&x, 1, 12345 + 1100010, 0x1108);
	struct rp_log_final fin[3] = {{1, 12345 + 1100010}, {3, 9}, {UINT32_MAX, UINT64_MAX}};
	push_end(&x, RP_LOG_SIGNALED, 11, fin, 3);

	const char *path = scratch_path("every_kind.log");
	write_log(path, &x, 0);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	assert_prefix(&rb.got, &x, x.n);
	xlog_free(&rb.got);

	/* the header */
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	const struct rp_log_header *h = rp_log_header(r);
	struct rp_log_header want = test_header();
	assert_int_equal(h->version, RP_LOG_VERSION);
	assert_int_equal(h->flags, RP_LOG_F_CHAOS);
	assert_true(h->quantum_ns == want.quantum_ns);
	assert_true(h->seed == want.seed);
	assert_int_equal(h->build_id_len, 20);
	assert_memory_equal(h->build_id, want.build_id, 20);
	assert_int_equal(h->argc, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(h->argv[i], test_argv[i]);
	assert_null(h->argv[5]);
	rp_log_close_reader(r);
	xlog_free(&x);
}

static void round_trip_random(void **state)
{
	uint64_t s = 42;
	static uint8_t data[300];
	for (int iter = 0; iter < 200; iter++) {
		struct xlog x = {0};
		uint64_t count[40] = {0}, pc[40] = {0};
		size_t n = 1 + rnd_below(&s, 600);
		uint32_t nthreads = 1 + (uint32_t)rnd_below(&s, 40);
		for (size_t i = 0; i < n; i++) {
			uint32_t t = (uint32_t)rnd_below(&s, nthreads);
			uint64_t k = rnd_below(&s, 100);
			if (k < 80) {
				/* any advance: small, typical, huge, backwards */
				uint64_t m = rnd_below(&s, 4);
				count[t] += m == 0 ? rnd_below(&s, 10)
					    : m == 1 ? 50000 + rnd_below(&s, 1000)
					    : m == 2 ? rnd_next(&s) >> rnd_below(&s, 64)
						     : (uint64_t)-(int64_t)rnd_below(&s, 1000);
				pc[t] = rnd_below(&s, 3) ? pc[t] + rnd_below(&s, 64) - 32
							 : rnd_next(&s) >> rnd_below(&s, 64);
				push_preempt(&x, t * 3 + 1, count[t], pc[t]);
			} else if (k < 88) {
				push_timeout(&x, t, rnd_next(&s) >> rnd_below(&s, 64));
			} else if (k < 95) {
				uint32_t len = (uint32_t)rnd_below(&s, sizeof data);
				for (uint32_t j = 0; j < len; j++)
					data[j] = (uint8_t)rnd_next(&s);
				push_input(&x, t, (uint8_t)(rnd_next(&s) % RP_LOG_INPUT_PAD), data, len);
			} else {
				push_thread_end(&x, t, count[t]);
			}
		}
		struct rp_log_final fin[40];
		for (uint32_t t = 0; t < nthreads; t++)
			fin[t] = (struct rp_log_final){t * 3 + 1, count[t]};
		push_end(&x, (int)rnd_below(&s, 2), (int)rnd_below(&s, 256), fin, nthreads);

		const char *path = scratch_path("random.log");
		write_log(path, &x, rnd_below(&s, 2) ? 1 + rnd_below(&s, 50) : 0);
		struct readback rb;
		read_log(path, &rb);
		assert_true(rb.opened);
		if (rb.status != RP_LOG_DONE)
			fail_msg("iteration %d: %s", iter, rb.msg);
		assert_prefix(&rb.got, &x, x.n);
		xlog_free(&rb.got);
		xlog_free(&x);
	}
}

/* More threads than a block's table holds: the writer starts a new block. */
static void many_threads_round_trip(void **state)
{
	struct xlog x = {0};
	for (int round = 1; round <= 3; round++)
		for (uint32_t t = 0; t < 1000; t++)
			push_preempt(&x, t * 17, (uint64_t)round * 1000 + t, 0x2000 + t);
	push_end(&x, RP_LOG_EXITED, 3, NULL, 0);
	const char *path = scratch_path("threads.log");
	write_log(path, &x, 0);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_DONE);
	assert_prefix(&rb.got, &x, x.n);
	size_t len;
	uint8_t *p = slurp(path, &len);
	struct layout l;
	layout_of(p, len, &l);
	assert_true(l.nblocks >= 3000 / RP_LOG_BLOCK_THREADS);
	free(p);
	xlog_free(&rb.got);
	xlog_free(&x);
}

/* END with as many threads as allowed, in a block of its own size. */
static void big_end_record(void **state)
{
	struct xlog x = {0};
	static struct rp_log_final fin[RP_LOG_END_THREADS_MAX];
	for (uint32_t i = 0; i < RP_LOG_END_THREADS_MAX; i++)
		fin[i] = (struct rp_log_final){UINT32_MAX - i, UINT64_MAX - i};
	push_preempt(&x, 1, 1, 1);
	push_end(&x, RP_LOG_EXITED, 0, fin, RP_LOG_END_THREADS_MAX);
	const char *path = scratch_path("bigend.log");
	write_log(path, &x, 0);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_DONE);
	assert_prefix(&rb.got, &x, x.n);
	xlog_free(&rb.got);
	xlog_free(&x);
}

static void writer_refuses_bad_calls(void **state)
{
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(scratch_path("refuse.log"), &h);
	static uint8_t big[RP_LOG_INPUT_MAX + 1];
	errno = 0;
	assert_int_equal(rp_log_input(w, 1, 0, big, sizeof big), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(rp_log_input(w, 1, RP_LOG_INPUT_PAD, big, 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_end(w, 7, 0, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	struct rp_log_final one = {1, 1};
	assert_int_equal(rp_log_end(w, RP_LOG_EXITED, 0, &one, RP_LOG_END_THREADS_MAX + 1), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(rp_log_end(w, RP_LOG_EXITED, 0, NULL, 0), 0);
	assert_int_equal(rp_log_preempt(w, 1, 2, 3), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_flush(w), 0);
	assert_int_equal(rp_log_close(w), 0);

	/* a header too big to write */
	static const char *huge_argv[1];
	static char huge[RP_LOG_HEADER_MAX];
	memset(huge, 'x', sizeof huge - 1);
	huge_argv[0] = huge;
	h.argc = 1;
	h.argv = huge_argv;
	char err[RP_LOG_ERRLEN] = "";
	assert_int_equal(rp_log_create(scratch_path("huge.log"), &h, &w, err, sizeof err), -1);
	assert_int_equal(errno, E2BIG);
	assert_contains(err, "cannot write this header");
}

static int errors_seen, last_error;

static void count_error(int err)
{
	errors_seen++;
	last_error = err;
}

/* Writes that fail are reported, by the call that made them and every later one. */
static void writer_reports_write_errors(void **state)
{
	struct rp_log_header h = test_header();
	struct rp_log_writer *w;
	char err[RP_LOG_ERRLEN] = "";
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(rp_log_create("/dev/full", &h, &w, err, sizeof err), -1);
	assert_int_equal(errno, ENOSPC);
	assert_string_equal(err, "/dev/full: cannot write the header: No space left on device");

	/* the header goes to a file, the first block to a full device; the error hook is
	 * called once, at the first failed write */
	int fd = open(scratch_path("errors.log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(rp_log_create_fd(fd, "errors.log", &h, &w, err, sizeof err), 0);
	rp_log_set_error_hook(w, count_error);
	int full = open("/dev/full", O_WRONLY);
	assert_true(full >= 0);
	dup2(full, fd);
	close(full);
	errors_seen = 0;
	assert_int_equal(rp_log_preempt(w, 1, 2, 3), 0);
	assert_int_equal(rp_log_flush(w), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(rp_log_preempt(w, 1, 4, 3), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(rp_log_error_number(w), ENOSPC);
	assert_int_equal(rp_log_close(w), -1);
	assert_int_equal(errors_seen, 1);
	assert_int_equal(last_error, ENOSPC);
}

/* ---- sizes ----------------------------------------------------------------------------- */

static uint64_t preempt_bits_of(struct rp_log_writer *w)
{
	struct rp_log_stats st;
	rp_log_writer_stats(w, &st);
	return st.preempt_bits;
}

/* The codes' sizes for the cases they were made for (docs/log-format.md). */
static void delta_code_sizes(void **state)
{
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(scratch_path("sizes.log"), &h);
	uint64_t before, count = 1000;

	/* a thread new to the block: eg(rank) + eg(tid) + num(count) + num(pc) */
	before = preempt_bits_of(w);
	assert_int_equal(rp_log_preempt(w, 1, count, 0x1234), 0);
	assert_int_equal(preempt_bits_of(w) - before, 1 + 3 + (6 + 10) + (6 + 13));

	/* a steady thread: same advance, same PC: 5 bits once k has come down to 0 */
	for (int i = 0; i < 100; i++)
		assert_int_equal(rp_log_preempt(w, 1, count += 100000, 0x1234), 0);
	before = preempt_bits_of(w);
	assert_int_equal(rp_log_preempt(w, 1, count += 100000, 0x1234), 0);
	assert_int_equal(preempt_bits_of(w) - before, 5);

	/* time slices up to 1 % off, PCs within 40 bytes of a loop head: 3 bytes */
	uint64_t s = 3;
	for (int i = 0; i < 100; i++)
		assert_int_equal(rp_log_preempt(w, 1, count += 99000 + rnd_below(&s, 2001),
						0x1234 + rnd_below(&s, 41)),
				 0);
	before = preempt_bits_of(w);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(rp_log_preempt(w, 1, count += 99000 + rnd_below(&s, 2001),
						0x1234 + rnd_below(&s, 41)),
				 0);
	print_message("steady thread, 1%% jitter, PCs in 40 bytes: %.1f bits per PREEMPT\n",
		      (double)(preempt_bits_of(w) - before) / 1000);
	assert_true(preempt_bits_of(w) - before <= 1000 * 24);
	assert_int_equal(rp_log_close(w), 0);
}

/* Preemptions at counts on the grid of 4096 (the recorder's at the default quantum,
 * docs/replay.md): four threads in turn, slices of ~6M counts that vary by ~1 %, the
 * same PC: at most 2 bytes each in steady state, where exact counts take over 3. */
static void grid_counts_cost_less(void **state)
{
	struct rp_log_header h = test_header();
	uint64_t bits[2];
	for (int grid = 0; grid < 2; grid++) {
		struct rp_log_writer *w = create_or_fail(scratch_path("grid.log"), &h);
		uint64_t s = 5, count[4] = {0, 0, 0, 0}, before = 0;
		for (int i = 0; i < 4000; i++) {
			int t = i % 4;
			count[t] += 6000000 + rnd_below(&s, 120000);
			if (grid)
				count[t] = (count[t] + 4095) & ~UINT64_C(4095);
			if (i == 2000)
				before = preempt_bits_of(w);
			assert_int_equal(rp_log_preempt(w, (uint32_t)t + 2, count[t], 0x6ee9), 0);
		}
		bits[grid] = preempt_bits_of(w) - before;
		assert_int_equal(rp_log_close(w), 0);
	}
	print_message("2000 preemptions: %.1f bits each exact, %.1f on the grid\n", bits[0] / 2000.0,
		      bits[1] / 2000.0);
	assert_true(bits[1] <= 2000 * 16);
	assert_true(bits[1] + 2000 * 8 <= bits[0]);
}

/* Counts on and off the grid, mixed at random, with every kind of advance: read back. */
static void grid_round_trip(void **state)
{
	uint64_t s = 31;
	for (int iter = 0; iter < 100; iter++) {
		struct xlog x = {0};
		uint64_t count[5] = {0};
		size_t n = 1 + rnd_below(&s, 500);
		for (size_t i = 0; i < n; i++) {
			uint32_t t = (uint32_t)rnd_below(&s, 5);
			uint64_t m = rnd_below(&s, 6);
			count[t] += m == 0 ? rnd_below(&s, 10) : m == 1 ? rnd_next(&s) >> rnd_below(&s, 64)
							     : 6000000 + rnd_below(&s, 100000);
			if (rnd_below(&s, 4))
				count[t] &= ~UINT64_C(4095);
			push_preempt(&x, t + 1, count[t], 0x500 + rnd_below(&s, 9));
		}
		push_end(&x, RP_LOG_EXITED, 0, NULL, 0);
		const char *path = scratch_path("gridrt.log");
		write_log(path, &x, rnd_below(&s, 2) ? 1 + rnd_below(&s, 40) : 0);
		struct readback rb;
		read_log(path, &rb);
		if (rb.status != RP_LOG_DONE)
			fail_msg("iteration %d: %s", iter, rb.msg);
		assert_prefix(&rb.got, &x, x.n);
		xlog_free(&rb.got);
		xlog_free(&x);
	}
}

/* Clock reads in a loop (docs/log-format.md, "INPUT"): a timespec advancing by about
 * the same 200 ns each time, two threads taking turns every 2,000 reads (a PREEMPT
 * each): at most 4 bytes a read, header and block headers included. */
static void clock_reads_cost_few_bytes(void **state)
{
	struct rp_log_header h = test_header();
	const char *path = scratch_path("clock.log");
	struct rp_log_writer *w = create_or_fail(path, &h);
	uint64_t s = 7, ns = 1700000000ull * 1000000000ull, count[2] = {0, 0};
	const int reads = 200000;
	for (int i = 0; i < reads; i++) {
		uint32_t tid = 1 + (uint32_t)((i / 2000) % 2);
		ns += 180 + rnd_below(&s, 40);
		uint64_t ts[2] = {ns / 1000000000u, ns % 1000000000u};
		uint8_t b[16];
		memcpy(b, ts, sizeof b); /* little-endian words, as the runtime passes them */
		assert_int_equal(rp_log_input(w, tid, 1, b, sizeof b), 0);
		count[tid - 1] += 40;
		if (i % 2000 == 1999) {
			assert_int_equal(rp_log_preempt(w, tid, count[tid - 1], 0x1234), 0);
			assert_int_equal(rp_log_maybe_flush(w, ns), 0);
		}
	}
	struct rp_log_final fin[2] = {{1, count[0]}, {2, count[1]}};
	assert_int_equal(rp_log_end(w, RP_LOG_EXITED, 0, fin, 2), 0);
	struct rp_log_stats st;
	rp_log_writer_stats(w, &st);
	assert_int_equal(rp_log_close(w), 0);
	double per = (double)st.bytes / reads;
	print_message("clock reads: %.2f bytes each (%llu bytes, %d reads)\n", per,
		      (unsigned long long)st.bytes, reads);
	assert_true(per <= 4.0);

	/* and they read back exactly */
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_DONE);
	uint64_t s2 = 7, ns2 = 1700000000ull * 1000000000ull;
	size_t k = 0;
	for (size_t i = 0; i < rb.got.n; i++) {
		const struct rp_log_record *r = &rb.got.v[i];
		if (r->kind != RP_LOG_INPUT)
			continue;
		ns2 += 180 + rnd_below(&s2, 40);
		uint64_t ts[2];
		assert_int_equal(r->len, 16);
		memcpy(ts, r->data, 16);
		assert_true(ts[0] == ns2 / 1000000000u && ts[1] == ns2 % 1000000000u);
		assert_int_equal(r->tid, 1 + (k / 2000) % 2);
		k++;
	}
	assert_int_equal(k, reads);
	xlog_free(&rb.got);
}

/* Word-sized inputs of several kinds and lengths, with small, huge and wrapping
 * changes, interleaved with other records, in blocks of every size: read back equal. */
static void delta_inputs_round_trip(void **state)
{
	uint64_t s = 99;
	for (int iter = 0; iter < 100; iter++) {
		struct xlog x = {0};
		uint64_t words[4][4] = {{0}};
		size_t n = 1 + rnd_below(&s, 800);
		for (size_t i = 0; i < n; i++) {
			uint32_t kind = (uint32_t)rnd_below(&s, 4);
			uint32_t len = 8 * (1 + (uint32_t)rnd_below(&s, 4));
			if (rnd_below(&s, 10) == 0)
				len = (uint32_t)rnd_below(&s, 40); /* not whole words, or 0 */
			for (int j = 0; j < 4; j++) {
				uint64_t m = rnd_below(&s, 5);
				words[kind][j] += m == 0 ? 0 : m == 1 ? 1000 + rnd_below(&s, 50)
						 : m == 2 ? rnd_next(&s) >> rnd_below(&s, 64)
						 : m == 3 ? (uint64_t)-(int64_t)rnd_below(&s, 100) : 7;
			}
			uint8_t data[40] = {0};
			memcpy(data, words[kind], len < 32 ? len : 32);
			push_input(&x, (uint32_t)rnd_below(&s, 3), (uint8_t)(kind * 60), data, len);
			if (rnd_below(&s, 8) == 0)
				push_preempt(&x, 1, i * 1000, 0x400 + i);
		}
		push_end(&x, RP_LOG_EXITED, 0, NULL, 0);
		const char *path = scratch_path("inputs.log");
		write_log(path, &x, rnd_below(&s, 2) ? 1 + rnd_below(&s, 30) : 0);
		struct readback rb;
		read_log(path, &rb);
		if (rb.status != RP_LOG_DONE)
			fail_msg("iteration %d: %s", iter, rb.msg);
		assert_prefix(&rb.got, &x, x.n);
		xlog_free(&rb.got);
		xlog_free(&x);
	}
}

/* The synthetic workload: a loop-heavy program recorded with a 1 ms quantum.
 *   threads    8, round robin over the runnable ones; every record, with 3 %
 *              chance, another thread blocks for 1..20 records (skipped meanwhile)
 *   counts     thread i advances rate[i] per quantum, rates spread evenly on a log
 *              scale over 1e4..1e6, times 1 + jitter * N(0,1); 5 % of the ticks
 *              came late (2 quanta), 5 % after a wait (0.1..3 quanta)
 *   PCs        a 256 KiB text of 1..7-byte instructions, 4 hot loops of 50
 *              instructions (2 threads each); 90 % of the preemptions land on one
 *              of the thread's loop's instructions, 10 % anywhere in the text
 * Variants: more jitter, a random scheduler (chaos), and advances uniform in
 * 1e4..1e6 with no regularity at all (a worst case). */
struct workload {
	const char *name;
	double jitter;
	bool chaos, uniform;
};

#define TEXT_PCS 70000
#define LOOP_LEN 50

struct wl_state {
	uint64_t s;
	uint64_t text[TEXT_PCS];
	size_t ntext;
	uint64_t loop[4][LOOP_LEN];
	double rate[8];
	uint64_t count[8];
	int blocked[8];
	int cur;
};

static void wl_init(struct wl_state *g, uint64_t seed)
{
	static const int ilen[] = {1, 2, 3, 3, 4, 4, 4, 5, 5, 6, 7};
	memset(g, 0, sizeof *g);
	g->s = seed;
	for (uint64_t a = 0x1000; a < 0x1000 + (256 << 10) && g->ntext < TEXT_PCS;
	     a += (uint64_t)ilen[rnd_below(&g->s, 11)])
		g->text[g->ntext++] = a;
	for (int l = 0; l < 4; l++) {
		size_t at = rnd_below(&g->s, g->ntext - LOOP_LEN);
		memcpy(g->loop[l], &g->text[at], sizeof g->loop[l]);
	}
	double r = 1e4;
	for (int t = 0; t < 8; t++, r *= 1.9306977) /* 100^(1/7) */
		g->rate[t] = r;
}

static void wl_next(struct wl_state *g, const struct workload *wl, uint32_t *tid,
		    uint64_t *count, uint64_t *pc)
{
	int t = g->cur;
	double q, u = rnd_unit(&g->s);
	if (wl->uniform)
		q = (1e4 + rnd_unit(&g->s) * (1e6 - 1e4)) / g->rate[t];
	else if (u < 0.05)
		q = 2 + wl->jitter * rnd_normal(&g->s);
	else if (u < 0.10)
		q = 0.1 + 2.9 * rnd_unit(&g->s);
	else
		q = 1 + wl->jitter * rnd_normal(&g->s);
	g->count[t] += (uint64_t)(g->rate[t] * q) + 1;
	*tid = (uint32_t)t + 1;
	*count = g->count[t];
	*pc = rnd_below(&g->s, 10) ? g->loop[t % 4][rnd_below(&g->s, LOOP_LEN)]
				   : g->text[rnd_below(&g->s, g->ntext)];

	for (int i = 0; i < 8; i++)
		if (g->blocked[i])
			g->blocked[i]--;
	if (rnd_below(&g->s, 100) < 3) {
		int b = (int)rnd_below(&g->s, 8);
		if (b != t)
			g->blocked[b] = 1 + (int)rnd_below(&g->s, 20);
	}
	if (wl->chaos) {
		g->cur = (int)rnd_below(&g->s, 8);
		return;
	}
	do
		g->cur = (g->cur + 1) % 8;
	while (g->blocked[g->cur] && g->cur != t);
}

static unsigned varint_len(uint64_t v)
{
	unsigned n = 1;
	while (v >= 128) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The plain byte scheme, for comparison: a tag byte (kind and tid), varint count
 * advance, zigzag varint PC delta (or varint PC offset); reset at each block. */
struct varint_model {
	uint64_t count[8], pc[8];
	bool seen[8];
	uint64_t bytes_delta, bytes_offset;
};

static void varint_add(struct varint_model *v, uint32_t tid, uint64_t count, uint64_t pc)
{
	int t = (int)tid - 1;
	v->bytes_delta += 1;
	v->bytes_offset += 1 + varint_len(pc);
	if (!v->seen[t]) {
		v->bytes_delta += varint_len(count) + varint_len(pc);
		v->bytes_offset += varint_len(count);
	} else {
		int64_t d = (int64_t)(pc - v->pc[t]);
		uint64_t z = d < 0 ? ((uint64_t)-d << 1) - 1 : (uint64_t)d << 1;
		v->bytes_delta += varint_len(count - v->count[t]) + varint_len(z);
		v->bytes_offset += varint_len(count - v->count[t]);
	}
	v->seen[t] = true;
	v->count[t] = count;
	v->pc[t] = pc;
}

#define WL_RECORDS 200000

/* Record the workload into path; bytes per PREEMPT, file size over records. */
static double record_workload(const struct workload *wl, const char *path, double *varint_delta,
			      double *varint_offset, double *coded)
{
	static struct wl_state g;
	static struct varint_model vm;
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(path, &h);
	struct rp_log_stats st0, st;
	uint64_t now = 0, blocks = 0;
	rp_log_writer_stats(w, &st0);
	wl_init(&g, 1234);
	memset(&vm, 0, sizeof vm);
	for (int i = 0; i < WL_RECORDS; i++) {
		uint32_t tid;
		uint64_t count, pc;
		wl_next(&g, wl, &tid, &count, &pc);
		assert_int_equal(rp_log_preempt(w, tid, count, pc), 0);
		assert_int_equal(rp_log_maybe_flush(w, now += h.quantum_ns), 0);
		rp_log_writer_stats(w, &st);
		if (st.blocks != blocks) {
			/* the comparison scheme resets where ours did */
			memset(vm.seen, 0, sizeof vm.seen);
			blocks = st.blocks;
		}
		varint_add(&vm, tid, count, pc);
	}
	assert_int_equal(rp_log_flush(w), 0);
	rp_log_writer_stats(w, &st);
	assert_int_equal(rp_log_close(w), 0);
	*varint_delta = (double)vm.bytes_delta / WL_RECORDS;
	*varint_offset = (double)vm.bytes_offset / WL_RECORDS;
	*coded = (double)st.preempt_bits / 8 / WL_RECORDS;
	return (double)(st.bytes - st0.bytes) / WL_RECORDS;
}

static void bytes_per_preemption(void **state)
{
	static const struct workload wls[] = {
		{"loop-heavy, 2% jitter (asserted)", 0.02, false, false},
		{"loop-heavy, 0.5% jitter", 0.005, false, false},
		{"loop-heavy, 5% jitter", 0.05, false, false},
		{"loop-heavy, 2% jitter, chaos scheduler", 0.02, true, false},
		{"advances uniform in 1e4..1e6 (worst case)", 0.02, false, true},
	};
	print_message("%-44s %9s %9s %12s %12s\n", "workload (200000 preemptions)", "bytes",
		      "records", "varint+pcd", "varint+pco");
	for (size_t i = 0; i < sizeof wls / sizeof wls[0]; i++) {
		double vd, vo, coded;
		const char *path = scratch_path("workload.log");
		double per = record_workload(&wls[i], path, &vd, &vo, &coded);
		print_message("%-44s %9.3f %9.3f %12.3f %12.3f\n", wls[i].name, per, coded, vd,
			      vo);
		if (i == 0) {
			/* the log reads back as recorded */
			static struct wl_state g;
			struct rp_log_reader *r;
			struct rp_log_record rec;
			char err[RP_LOG_ERRLEN];
			wl_init(&g, 1234);
			assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
			for (int k = 0; k < WL_RECORDS; k++) {
				uint32_t tid;
				uint64_t count, pc;
				wl_next(&g, &wls[0], &tid, &count, &pc);
				assert_int_equal(rp_log_next(r, &rec), RP_LOG_OK);
				assert_int_equal(rec.tid, tid);
				assert_true(rec.count == count && rec.pc == pc);
			}
			assert_int_equal(rp_log_next(r, &rec), RP_LOG_TRUNCATED);
			rp_log_close_reader(r);
			assert_true(per <= 4.0);
		}
	}
	print_message("(bytes: file bytes per preemption, block headers included; records: "
		      "the records alone; varint+pcd/pco: a byte-aligned varint scheme with "
		      "PC deltas / PC offsets)\n");
}

/* ---- damage ---------------------------------------------------------------------------- */

static void make_small_log(const char *path, struct xlog *x, uint8_t **bytes, size_t *len,
			   struct layout *l)
{
	memset(x, 0, sizeof *x);
	small_log(x);
	write_log(path, x, 7);
	*bytes = slurp(path, len);
	layout_of(*bytes, *len, l);
	assert_true(l->nblocks >= 5);
}

static void truncation_at_every_offset(void **state)
{
	struct xlog x;
	uint8_t *p;
	size_t len;
	struct layout l;
	make_small_log(scratch_path("small.log"), &x, &p, &len, &l);
	const char *cut = mem_path();
	for (size_t at = 0; at <= len; at++) {
		struct readback rb;
		mem_spit(p, at);
		read_log(cut, &rb);
		if (at < l.hlen) {
			assert_false(rb.opened);
			assert_contains(rb.msg, "truncated header");
			continue;
		}
		assert_true(rb.opened);
		size_t n = records_before(&l, at);
		assert_prefix(&rb.got, &x, n);
		if (at == len) {
			assert_int_equal(rb.status, RP_LOG_DONE);
		} else {
			char want[128], between[128];
			assert_int_equal(rb.status, RP_LOG_TRUNCATED);
			snprintf(want, sizeof want,
				 "%s: log ends early (recording was cut short after record %zu): ",
				 cut, n);
			snprintf(between, sizeof between, /* between two blocks */
				 "%s: log ends early (after record %zu, without its END record): ",
				 cut, n);
			if (!strstr(rb.msg, between))
				assert_contains(rb.msg, want);
		}
		xlog_free(&rb.got);
	}
	free(p);
	xlog_free(&x);
}

static void byte_flips_at_every_offset(void **state)
{
	struct xlog x;
	uint8_t *p;
	size_t len;
	struct layout l;
	uint64_t s = 99;
	make_small_log(scratch_path("small.log"), &x, &p, &len, &l);
	const char *bad = mem_path();
	for (size_t at = 0; at < len; at++) {
		struct readback rb;
		uint8_t old = p[at];
		p[at] ^= (uint8_t)(1 + rnd_below(&s, 255));
		mem_spit(p, len);
		p[at] = old;
		read_log(bad, &rb);
		if (at < l.hlen) {
			assert_false(rb.opened);
			continue;
		}
		assert_true(rb.opened);
		size_t b = block_at(&l, at);
		char want[64];
		snprintf(want, sizeof want, "corrupt block %zu at byte ", b);
		assert_int_equal(rb.status, RP_LOG_CORRUPT);
		assert_contains(rb.msg, want);
		assert_prefix(&rb.got, &x, records_before(&l, at));
		xlog_free(&rb.got);
	}
	free(p);
	xlog_free(&x);
}

/* Block 2 of 5 damaged: the reader stops there (docs/log-format.md says why). */
static void corrupt_block_2_of_5_stops_there(void **state)
{
	struct xlog x = {0};
	for (int i = 0; i < 50; i++)
		push_preempt(&x, 1 + i % 3, 1000 * (uint64_t)(i + 1), 0x4000 + (uint64_t)i);
	const char *path = scratch_path("five.log");
	write_log(path, &x, 10);
	size_t len;
	uint8_t *p = slurp(path, &len);
	struct layout l;
	layout_of(p, len, &l);
	assert_int_equal(l.nblocks, 5);
	p[l.end[0] + 24 + 2] ^= 0x10; /* a payload byte of block 2 */
	spit(path, p, len);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_CORRUPT);
	assert_prefix(&rb.got, &x, 10);
	char want[256];
	snprintf(want, sizeof want,
		 "%s: corrupt block 2 at byte %zu (payload checksum mismatch): records after 10 "
		 "are lost",
		 path, l.end[0]);
	assert_string_equal(rb.msg, want);
	xlog_free(&rb.got);
	free(p);
	xlog_free(&x);
}

/* No state crosses a block boundary: block 3 moved into block 2's place (renumbered)
 * decodes to block 3's records (a replay reads the last block first). Each block has
 * an INPUT of two words of one kind, which a block codes as its change from the last
 * one in the block, never from one in the block before. */
static void blocks_decode_alone(void **state)
{
	struct xlog x = {0};
	uint64_t words[6][2];
	for (int i = 0; i < 30; i++) {
		if (i % 5 == 4) {
			uint64_t *w = words[i / 5];
			w[0] = 1000 + (uint64_t)i;
			w[1] = 5000000 + 1234 * (uint64_t)i;
			push_input(&x, 1, 2, w, sizeof words[0]);
		} else {
			push_preempt(&x, 1 + i % 2, 77777 * (uint64_t)(i + 1), 0x4000 + (uint64_t)i * 3);
		}
	}
	const char *path = scratch_path("alone.log");
	write_log(path, &x, 10);
	size_t len;
	uint8_t *p = slurp(path, &len);
	struct layout l;
	layout_of(p, len, &l);
	assert_int_equal(l.nblocks, 3);
	size_t b3 = l.end[1], b3len = len - b3;
	uint8_t *q = malloc(l.end[0] + b3len);
	assert_non_null(q);
	memcpy(q, p, l.end[0]);
	memcpy(q + l.end[0], p + b3, b3len);
	put_le32(q + l.end[0] + 4, 2);
	put_le32(q + l.end[0] + 20, rp_log_crc32(0, q + l.end[0], 20));
	spit(path, q, l.end[0] + b3len);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_TRUNCATED);
	assert_int_equal(rb.got.n, 20);
	for (size_t i = 0; i < 10; i++) {
		assert_true(same_record(&rb.got.v[i], &x.v[i]));
		assert_true(same_record(&rb.got.v[10 + i], &x.v[20 + i]));
	}
	xlog_free(&rb.got);
	free(q);
	free(p);
	xlog_free(&x);
}

static void not_a_log(void **state)
{
	const char *path = scratch_path("text.log");
	struct readback rb;
	spit(path, (const uint8_t *)"hello, world\n", 13);
	read_log(path, &rb);
	assert_false(rb.opened);
	char want[512];
	snprintf(want, sizeof want, "%s: not a libreplay log (bad magic)", path);
	assert_string_equal(rb.msg, want);

	/* a log that went through a text-mode transfer (\r\n -> \n) */
	struct xlog x = {0};
	uint8_t *p;
	size_t len;
	struct layout l;
	make_small_log(path, &x, &p, &len, &l);
	memmove(p + 4, p + 5, len - 5);
	spit(path, p, len - 1);
	read_log(path, &rb);
	assert_false(rb.opened);
	assert_string_equal(rb.msg, want);

	/* no file */
	read_log(scratch_path("missing.log"), &rb);
	assert_false(rb.opened);
	assert_contains(rb.msg, "missing.log: cannot open: No such file or directory");

	/* empty */
	spit(path, p, 0);
	read_log(path, &rb);
	assert_false(rb.opened);
	snprintf(want, sizeof want, "%s: truncated header (0 bytes: the file ends in it)", path);
	assert_string_equal(rb.msg, want);
	free(p);
	xlog_free(&x);
}

static void unsupported_version(void **state)
{
	struct xlog x = {0};
	uint8_t *p;
	size_t len;
	struct layout l;
	const char *path = scratch_path("v5.log");
	make_small_log(path, &x, &p, &len, &l);
	p[8] = 5;
	spit(path, p, len);
	struct readback rb;
	read_log(path, &rb);
	assert_false(rb.opened);
	char want[512];
	snprintf(want, sizeof want,
		 "%s: unsupported log version 5 (this libreplay reads versions 1 to 4)", path);
	assert_string_equal(rb.msg, want);
	free(p);
	xlog_free(&x);
}

/* A version 3 log, as main's writer wrote it before format 4 (commit 33cf13f): a
 * PREEMPT, a 24-byte CHUNK INPUT, a 100-byte BYTES INPUT (bytes as they are, no way of
 * storing them said), a PREEMPT, the same 100 bytes again, END exited 0. */
static const uint8_t v3_log[] = {
	0x89, 0x52, 0x50, 0x4c, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x00, 0x00, 0x00,
	0x71, 0x00, 0x00, 0x00, 0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2e, 0x2f, 0x76, 0x33,
	0x00, 0xe8, 0x75, 0xe6, 0x5c, 0x52, 0x50, 0x42, 0x4b, 0x01, 0x00, 0x00,
	0x00, 0xf5, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0xa5, 0x8e, 0x8f,
	0x7e, 0x0d, 0x5d, 0x6b, 0x37, 0xc2, 0x00, 0x40, 0x86, 0x46, 0x8e, 0x48,
	0x78, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x06, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x30, 0x42, 0xe1, 0x57, 0xd2, 0xa1, 0x95, 0x81, 0xc4, 0xd5, 0xa5,
	0x8d, 0xad, 0x81, 0x88, 0xc9, 0xbd, 0xdd, 0xb9, 0x81, 0x98, 0xbd, 0xe1,
	0x81, 0xd0, 0xa1, 0x95, 0x81, 0xc4, 0xd5, 0xa5, 0x8d, 0xad, 0x81, 0x88,
	0xc9, 0xbd, 0xdd, 0xb9, 0x81, 0x98, 0xbd, 0xe1, 0x81, 0xd0, 0xa1, 0x95,
	0x81, 0xc4, 0xd5, 0xa5, 0x8d, 0xad, 0x81, 0x88, 0xc9, 0xbd, 0xdd, 0xb9,
	0x81, 0x98, 0xbd, 0xe1, 0x81, 0xd0, 0xa1, 0x95, 0x81, 0xc4, 0xd5, 0xa5,
	0x8d, 0xad, 0x81, 0x88, 0xc9, 0xbd, 0xdd, 0xb9, 0x81, 0x98, 0xbd, 0xe1,
	0x81, 0xd0, 0xa1, 0x95, 0x81, 0xc4, 0xd5, 0xa5, 0x8d, 0xad, 0x81, 0x88,
	0xc9, 0xbd, 0xdd, 0xb9, 0x81, 0x98, 0xbd, 0xe1, 0x81, 0x60, 0x00, 0x20,
	0xd8, 0x48, 0x3a, 0xb4, 0x32, 0x90, 0xb8, 0xba, 0xb4, 0xb1, 0x35, 0x10,
	0x31, 0xb9, 0xb7, 0x3b, 0x37, 0x10, 0xb3, 0x37, 0x3c, 0x10, 0x3a, 0xb4,
	0x32, 0x90, 0xb8, 0xba, 0xb4, 0xb1, 0x35, 0x10, 0x31, 0xb9, 0xb7, 0x3b,
	0x37, 0x10, 0xb3, 0x37, 0x3c, 0x10, 0x3a, 0xb4, 0x32, 0x90, 0xb8, 0xba,
	0xb4, 0xb1, 0x35, 0x10, 0x31, 0xb9, 0xb7, 0x3b, 0x37, 0x10, 0xb3, 0x37,
	0x3c, 0x10, 0x3a, 0xb4, 0x32, 0x90, 0xb8, 0xba, 0xb4, 0xb1, 0x35, 0x10,
	0x31, 0xb9, 0xb7, 0x3b, 0x37, 0x10, 0xb3, 0x37, 0x3c, 0x10, 0x3a, 0xb4,
	0x32, 0x90, 0xb8, 0xba, 0xb4, 0xb1, 0x35, 0x10, 0x31, 0xb9, 0xb7, 0x3b,
	0x37, 0x10, 0xb3, 0x37, 0x3c, 0x90, 0x49, 0xd2, 0xa0, 0x8c
};

static void reads_version_3(void **state)
{
	const char *path = scratch_path("v3.log");
	spit(path, v3_log, sizeof v3_log);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	uint8_t chunk[24] = {1}, text[100];
	chunk[8] = 100;
	for (int i = 0; i < 100; i++)
		text[i] = (uint8_t)"the quick brown fox "[i % 20];
	struct xlog x = {0};
	push_preempt(&x, 1, 4096, 0x1234);
	push_input(&x, 1, 9, chunk, sizeof chunk);
	push_input(&x, 1, 10, text, sizeof text);
	push_preempt(&x, 1, 8192, 0x1240);
	push_input(&x, 1, 10, text, sizeof text);
	struct rp_log_final fin[1] = {{1, 9000}};
	push_end(&x, RP_LOG_EXITED, 0, fin, 1);
	assert_prefix(&rb.got, &x, x.n);
	xlog_free(&rb.got);
	xlog_free(&x);
}

/* ---- stored bytes (version 4): compression, references ---------------------------------- */

/* Every way of storing, every setting of the writer: the bytes come back, and the
 * stats say which ways were taken. Payloads at the sizes where the coding changes
 * (63, 64, 255, 256 bytes), text and noise, repeated within a block and across blocks,
 * of one length with other bytes, up to the limit. */
static void stored_bytes_round_trip(void **state)
{
	static uint8_t text[RP_LOG_INPUT_MAX + 1], noise[RP_LOG_INPUT_MAX + 1]; /* (+ 1: offset by one) */
	uint64_t s = 5;
	for (size_t i = 0; i < sizeof text; i++) {
		text[i] = (uint8_t)("static int f(int x) { return x * 3 + 1; }\n"[i % 43] + (i / 4096 % 3));
		noise[i] = (uint8_t)rnd_next(&s);
	}
	static const uint32_t lens[] = {63, 64, 65, 255, 256, 257, 4096, 20000, RP_LOG_INPUT_MAX};
	static const struct {
		int level;
		bool refs;
	} ways[] = {{0, false}, {1, false}, {0, true}, {1, true}, {3, true}, {19, true}};
	for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
		const char *path = scratch_path("stored.log");
		struct rp_log_header h = test_header();
		struct rp_log_writer *w = create_or_fail(path, &h);
		assert_int_equal(rp_log_set_store(w, ways[k].level, ways[k].refs), 0);
		struct xlog x = {0};
		for (int round = 0; round < 3; round++) {
			for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
				push_preempt(&x, 1 + (uint32_t)i % 3, 100000 * (x.n + 1), 0x4000 + i);
				push_input(&x, 1, 10, text + round % 2, lens[i]); /* rounds 0, 2 alike */
				push_input(&x, 2, 10, noise, lens[i]);
				if (round == 1)
					push_input(&x, 2, 10, noise + 1, lens[i]); /* same length, other bytes */
			}
		}
		for (size_t i = 0; i < x.n; i++) {
			assert_int_equal(write_record(w, &x.v[i]), 0);
			if (i % 17 == 16)
				assert_int_equal(rp_log_flush(w), 0);
		}
		struct rp_log_stats st;
		rp_log_writer_stats(w, &st);
		assert_int_equal(rp_log_close(w), 0);
		if (ways[k].level) /* the text of 255 bytes to 64 KiB, 3 times (64 and 65 do not
				   * shrink): the contexts made at create fit every size */
			assert_true(st.zstd_inputs >= (ways[k].refs ? 13 : 18));
		else
			assert_int_equal(st.zstd_inputs, 0);
		if (ways[k].refs)
			assert_true(st.ref_inputs >= 2 * 6); /* text and noise of 256 or more, again */
		else
			assert_int_equal(st.ref_inputs, 0);
		struct readback rb;
		read_log(path, &rb);
		assert_int_equal(rb.status, RP_LOG_TRUNCATED);
		assert_prefix(&rb.got, &x, x.n);
		print_message("zstd %d, refs %d: %llu bytes, %llu compressed, %llu references\n",
			      ways[k].level, ways[k].refs, (unsigned long long)st.bytes,
			      (unsigned long long)st.zstd_inputs, (unsigned long long)st.ref_inputs);
		xlog_free(&rb.got);
		xlog_free(&x);
	}
	struct rp_log_writer *w = create_or_fail(scratch_path("stored.log"), &(struct rp_log_header){0});
	assert_int_equal(rp_log_set_store(w, 20, true), -1);
	assert_int_equal(rp_log_preempt(w, 1, 1, 1), 0);
	assert_int_equal(rp_log_set_store(w, 0, false), -1); /* after the first record */
	assert_int_equal(rp_log_close(w), 0);
}

/* A log of three blocks: a preemption, then 300 bytes of noise (stored as they are),
 * then the same 300 bytes again (a reference to the first). */
static void ref_log(const char *path, struct layout *l, uint8_t **p, size_t *len, struct xlog *x)
{
	memset(x, 0, sizeof *x);
	small_log(&(struct xlog){0}); /* fills noise300 */
	push_preempt(x, 1, 100000, 0x4000);
	push_input(x, 1, 10, noise300, sizeof noise300);
	push_input(x, 1, 10, noise300, sizeof noise300);
	const char *tmp = scratch_path("ref.log");
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(tmp, &h);
	for (size_t i = 0; i < x->n; i++) {
		assert_int_equal(write_record(w, &x->v[i]), 0);
		assert_int_equal(rp_log_flush(w), 0);
	}
	struct rp_log_stats st;
	rp_log_writer_stats(w, &st);
	assert_int_equal(st.ref_inputs, 1);
	assert_int_equal(rp_log_close(w), 0);
	*p = slurp(tmp, len);
	layout_of(*p, *len, l);
	assert_int_equal(l->nblocks, 3);
	(void)path;
}

/* The bytes a reference names changed (their block's checksums made to match): the
 * block of the reference is corrupt, in one line; the blocks before it read. */
static void reference_to_changed_bytes(void **state)
{
	struct layout l;
	uint8_t *p;
	size_t len;
	struct xlog x;
	const char *path = scratch_path("ref-changed.log");
	ref_log(path, &l, &p, &len, &x);
	size_t b2 = l.end[0], b2len = l.end[1] - b2 - 24;
	p[l.end[1] - 10] ^= 0x40; /* one of block 2's stored bytes */
	put_le32(p + b2 + 16, rp_log_crc32(0, p + b2 + 24, b2len));
	put_le32(p + b2 + 20, rp_log_crc32(0, p + b2, 20));
	spit(path, p, len);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_CORRUPT);
	assert_int_equal(rb.got.n, 2);
	char want[256];
	snprintf(want, sizeof want,
		 "%s: corrupt block 3 at byte %zu (its record 1: INPUT reference to bytes that do not "
		 "match its hash): records after 2 are lost",
		 path, l.end[1]);
	assert_string_equal(rb.msg, want);
	assert_null(strchr(rb.msg, '\n'));
	xlog_free(&rb.got);
	xlog_free(&x);
	free(p);
}

/* A reference whose bytes are not before it: block 3 (the reference) moved into block
 * 2's place (renumbered), so the offset it names is now its own block. */
static void dangling_reference(void **state)
{
	struct layout l;
	uint8_t *p;
	size_t len;
	struct xlog x;
	const char *path = scratch_path("ref-dangling.log");
	ref_log(path, &l, &p, &len, &x);
	size_t b3 = l.end[1], b3len = len - b3;
	memmove(p + l.end[0], p + b3, b3len);
	put_le32(p + l.end[0] + 4, 2);
	put_le32(p + l.end[0] + 20, rp_log_crc32(0, p + l.end[0], 20));
	spit(path, p, l.end[0] + b3len);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_CORRUPT);
	assert_int_equal(rb.got.n, 1);
	char want[256];
	snprintf(want, sizeof want,
		 "%s: corrupt block 2 at byte %zu (its record 1: INPUT reference to bytes that are not "
		 "before it): records after 1 are lost",
		 path, l.end[0]);
	assert_string_equal(rb.msg, want);
	/* And cut after the header: the bytes named are past the end of the file. */
	memmove(p + l.hlen, p + l.end[0], b3len);
	put_le32(p + l.hlen + 4, 1);
	put_le32(p + l.hlen + 20, rp_log_crc32(0, p + l.hlen, 20));
	spit(path, p, l.hlen + b3len);
	xlog_free(&rb.got);
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_CORRUPT);
	assert_int_equal(rb.got.n, 0);
	assert_contains(rb.msg, "(its record 1: INPUT reference to bytes that are not before it)");
	xlog_free(&rb.got);
	xlog_free(&x);
	free(p);
}

/* ---- realistic payloads: what a program reading files costs -------------------------- */

/* Up to max bytes of the output of a shell command. */
static uint8_t *command_output(const char *cmd, size_t max, size_t *len)
{
	uint8_t *p = malloc(max);
	FILE *f = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(f);
	*len = fread(p, 1, max, f);
	pclose(f);
	return p;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A program reading data twice, as in_fill records a read: a 24-byte CHUNK header
 * (call, errno, result), then the bytes, in reads of 64 KiB, a preemption every 4
 * reads. Written with the store setting given; the log read back and compared. The
 * log's bytes after the first and after both readings; the writer's time. */
struct cost {
	double first, second; /* log bytes per data byte */
	double write_mbs;     /* data MB per second of writer time */
};

static struct cost read_twice(const uint8_t *data, size_t n, int level, bool refs)
{
	const char *path = scratch_path("reads.log");
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(path, &h);
	struct rp_log_stats st;
	struct cost c;
	uint64_t count = 0;
	assert_int_equal(rp_log_set_store(w, level, refs), 0);
	double t0 = now_s();
	for (int pass = 0; pass < 2; pass++) {
		for (size_t at = 0, i = 0; at < n; at += RP_LOG_INPUT_MAX, i++) {
			size_t k = n - at < RP_LOG_INPUT_MAX ? n - at : RP_LOG_INPUT_MAX;
			int64_t chunk[3] = {4, (int64_t)k, 0};
			assert_int_equal(rp_log_input(w, 1, 9, chunk, sizeof chunk), 0);
			assert_int_equal(rp_log_input(w, 1, 10, data + at, k), 0);
			if (i % 4 == 3)
				assert_int_equal(rp_log_preempt(w, 1, count += 4096 * 250, 0x4321), 0);
		}
		assert_int_equal(rp_log_sync(w), 0);
		rp_log_writer_stats(w, &st);
		(pass ? &c.second : &c.first)[0] = (double)st.bytes / (double)n;
	}
	c.write_mbs = 2 * (double)n / (now_s() - t0) / 1e6;
	c.second -= c.first;
	assert_int_equal(rp_log_close(w), 0);

	struct rp_log_reader *r;
	struct rp_log_record rec;
	char err[RP_LOG_ERRLEN];
	size_t at = 0, bytes = 0;
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	while (rp_log_next(r, &rec) == RP_LOG_OK) {
		if (rec.kind != RP_LOG_INPUT || rec.input_kind != 10)
			continue;
		if (at == n)
			at = 0;
		assert_true(rec.len <= n - at && memcmp(rec.data, data + at, rec.len) == 0);
		at += rec.len;
		bytes += rec.len;
	}
	assert_int_equal(bytes, 2 * n);
	rp_log_close_reader(r);
	return c;
}

/* Source code (20 MB of /usr/include) and an xz file of it, read twice: the log's size
 * per byte read, stored as they are, compressed, by reference, both. */
static void file_reads_cost(void **state)
{
	size_t n, nx;
	uint8_t *text = command_output("find /usr/include -name '*.h' | LC_ALL=C sort | "
				       "xargs cat 2>/dev/null", 20000000, &n);
	const char *tpath = scratch_path("text");
	spit(tpath, text, n);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "xz -0 -T1 -c <'%s'", tpath);
	uint8_t *xz = command_output(cmd, n, &nx);
	assert_true(n > 1000000 && nx > 100000);
	static const struct {
		const char *name;
		int level;
		bool refs;
	} ways[] = {{"plain", 0, false}, {"zstd", 1, false}, {"refs", 0, true}, {"zstd+refs", 1, true}};
	struct cost c[2][4];
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 4; k++) {
			c[d][k] = read_twice(d ? xz : text, d ? nx : n, ways[k].level, ways[k].refs);
			print_message("%s (%zu bytes) read twice, %-9s: %.4f then %.4f log bytes per "
				      "byte read; writer %.0f MB/s\n",
				      d ? "xz file" : "source", d ? nx : n, ways[k].name, c[d][k].first,
				      c[d][k].second, c[d][k].write_mbs);
		}
	/* As they are: a little over one byte per byte (CHUNK headers, block headers). */
	assert_true(c[0][0].first > 1.0 && c[0][0].first < 1.01);
	/* Source code compresses to under a third; the second reading costs ~nothing. */
	assert_true(c[0][3].first < 0.33);
	assert_true(c[0][3].second < 0.01);
	/* An xz file does not compress: stored as it is, no larger than without zstd. */
	assert_true(c[1][1].first <= c[1][0].first + 1e-9);
	assert_true(c[1][3].first < 1.01 && c[1][3].second < 0.01);
	free(text);
	free(xz);
}

/* A deadlock's and a hang's END: every thread's state and the stop position come back. */
static void end_outcomes_round_trip(void **state)
{
	for (int how = RP_LOG_DEADLOCK; how <= RP_LOG_HANG; how++) {
		struct xlog x = {0};
		push_preempt(&x, 1, 1000, 0x1234);
		struct rp_log_wait w[3] = {
			{.tid = 1, .state = 2, .kind = 1, .obj = 0x404040, .owner = 2, .nheld = 1,
			 .held = {0x404080}},
			{.tid = 2, .state = 2, .kind = 1, .obj = 0x404080, .owner = 1,
			 .nheld = RP_LOG_HELD_MAX + 3, .held = {1, 2, 3, 4, 5, 6, 7, UINT64_MAX}},
			{.tid = UINT32_MAX, .state = 255, .kind = 255, .obj = UINT64_MAX},
		};
		struct rp_log_final fin[2] = {{1, 2000}, {2, 900}};
		struct rp_log_record r = {.kind = RP_LOG_END, .how = how, .value = 86 + how - 1,
					  .nthreads = 2, .threads = fin};
		r.outcome = (struct rp_log_outcome){.nwaits = 3, .waits = w};
		if (how == RP_LOG_HANG)
			r.outcome.stop_tid = 2, r.outcome.stop_count = 123456789, r.outcome.stop_pc = 0x1240;
		xlog_push(&x, &r);
		const char *path = scratch_path("outcome.log");
		write_log(path, &x, 0);
		struct readback rb;
		read_log(path, &rb);
		assert_true(rb.opened);
		assert_int_equal(rb.status, RP_LOG_DONE);
		assert_prefix(&rb.got, &x, x.n);
		const struct rp_log_record *end = &rb.got.v[1];
		assert_int_equal(end->how, how);
		assert_int_equal(end->outcome.nwaits, 3);
		assert_int_equal(end->outcome.waits[1].nheld, RP_LOG_HELD_MAX + 3);
		assert_true(end->outcome.waits[1].held[RP_LOG_HELD_MAX - 1] == UINT64_MAX);
		xlog_free(&rb.got);
		xlog_free(&x);
	}
	/* the writer refuses an outcome without its states, or states without one */
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(scratch_path("outcome_bad.log"), &h);
	struct rp_log_outcome o = {0};
	errno = 0;
	assert_int_equal(rp_log_end_outcome(w, RP_LOG_DEADLOCK, 87, NULL, 0, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_end_outcome(w, RP_LOG_EXITED, 0, NULL, 0, &o), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_end(w, RP_LOG_DEADLOCK, 87, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	o.nwaits = RP_LOG_END_THREADS_MAX + 1;
	o.waits = (const struct rp_log_wait *)&o;
	assert_int_equal(rp_log_end_outcome(w, RP_LOG_HANG, 88, NULL, 0, &o), -1);
	assert_int_equal(errno, E2BIG);
	o.nwaits = 0;
	assert_int_equal(rp_log_end_outcome(w, RP_LOG_HANG, 88, NULL, 0, &o), 0);
	assert_int_equal(rp_log_close(w), 0);
}

/* An exec's END (the image replaced): its how comes back, with no outcome, and the
 * writer refuses one with it. */
static void end_exec_round_trip(void **state)
{
	struct xlog x = {0};
	push_preempt(&x, 1, 1000, 0x1234);
	struct rp_log_final fin[1] = {{1, 2000}};
	struct rp_log_record r = {.kind = RP_LOG_END, .how = RP_LOG_EXECED, .value = 0,
				  .nthreads = 1, .threads = fin};
	xlog_push(&x, &r);
	const char *path = scratch_path("exec_end.log");
	write_log(path, &x, 0);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	assert_prefix(&rb.got, &x, x.n);
	assert_int_equal(rb.got.v[1].how, RP_LOG_EXECED);
	assert_int_equal(rb.got.v[1].outcome.nwaits, 0);
	xlog_free(&rb.got);
	xlog_free(&x);
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(scratch_path("exec_end_bad.log"), &h);
	struct rp_log_outcome o = {0};
	errno = 0;
	assert_int_equal(rp_log_end_outcome(w, RP_LOG_EXECED, 0, NULL, 0, &o), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_end(w, RP_LOG_EXECED + 1, 0, NULL, 0), -1);
	assert_int_equal(rp_log_end(w, RP_LOG_EXECED, 0, NULL, 0), 0);
	assert_int_equal(rp_log_close(w), 0);
}

/* An END taken back (an exec that failed): rp_log_rewind after rp_log_mark leaves the
 * file as it was at the mark, the records after it gone, and the log goes on: a reader
 * sees the records before, then the ones written after the rewind, then their END.
 * The rewound block held a payload large enough to be remembered for references: the
 * same payload after the rewind reads back whole (never from bytes no longer there). */
static void end_taken_back(void **state)
{
	struct rp_log_header h = test_header();
	const char *path = scratch_path("end_back.log");
	struct rp_log_writer *w = create_or_fail(path, &h);
	uint8_t big[4096];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	assert_int_equal(rp_log_preempt(w, 1, 1000, 0x1234), 0);
	assert_int_equal(rp_log_input(w, 1, 9, "before", 6), 0);
	assert_int_equal(rp_log_rewind(w), -1); /* no mark */
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rp_log_mark(w), 0);
	struct stat at_mark;
	assert_int_equal(stat(path, &at_mark), 0);
	assert_int_equal(rp_log_input(w, 1, 10, big, sizeof big), 0);
	struct rp_log_final fin[1] = {{1, 2000}};
	assert_int_equal(rp_log_end(w, RP_LOG_EXECED, 0, fin, 1), 0);
	assert_int_equal(rp_log_preempt(w, 1, 3000, 0x1234), -1); /* ended */
	assert_int_equal(rp_log_rewind(w), 0);
	struct stat back;
	assert_int_equal(stat(path, &back), 0);
	assert_int_equal(back.st_size, at_mark.st_size);
	assert_int_equal(rp_log_input(w, 1, 11, "after", 5), 0);
	assert_int_equal(rp_log_input(w, 1, 10, big, sizeof big), 0);
	assert_int_equal(rp_log_preempt(w, 1, 3000, 0x1234), 0);
	fin[0].count = 4000;
	assert_int_equal(rp_log_end(w, RP_LOG_EXITED, 3, fin, 1), 0);
	assert_int_equal(rp_log_close(w), 0);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	size_t k = 0;
	enum rp_log_kind want[] = {RP_LOG_PREEMPT, RP_LOG_INPUT, RP_LOG_INPUT, RP_LOG_INPUT,
				   RP_LOG_PREEMPT, RP_LOG_END};
	for (size_t i = 0; i < rb.got.n; i++) {
		const struct rp_log_record *r = &rb.got.v[i];
		if (r->kind == RP_LOG_INPUT && r->input_kind == RP_LOG_INPUT_PAD)
			continue;
		assert_true(k < sizeof want / sizeof want[0]);
		assert_int_equal(r->kind, want[k]);
		if (k == 2)
			assert_int_equal(r->input_kind, 11);
		if (k == 3) {
			assert_int_equal(r->input_kind, 10);
			assert_int_equal(r->len, sizeof big);
			assert_memory_equal(r->data, big, sizeof big);
		}
		if (k == 5) {
			assert_int_equal(r->how, RP_LOG_EXITED);
			assert_int_equal(r->value, 3);
		}
		k++;
	}
	assert_int_equal(k, sizeof want / sizeof want[0]);
	xlog_free(&rb.got);
}

/* A version 1 log, as libreplay before the END outcomes wrote it (commit 34220bf's
 * writer: two PREEMPTs, then END signal 11 with two threads' counts; its END's how is
 * one bit, version 2's an Exp-Golomb number): still read. */
static const uint8_t v1_log[] = {
	0x89, 0x52, 0x50, 0x4c, 0x0d, 0x0a, 0x1a, 0x0a, 0x01, 0x00, 0x00, 0x00,
	0x71, 0x00, 0x00, 0x00, 0x80, 0x96, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2e, 0x2f, 0x76, 0x31,
	0x00, 0x59, 0xe9, 0x4f, 0x29, 0x52, 0x50, 0x42, 0x4b, 0x01, 0x00, 0x00,
	0x00, 0x11, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0xab, 0x15, 0xf3,
	0x9e, 0x5e, 0x9f, 0x01, 0x06, 0x92, 0xa0, 0xcf, 0xd0, 0xc8, 0x14, 0xa1,
	0xcf, 0x00, 0xc9, 0xfd, 0xd8, 0x28, 0xd0, 0x6f, 0x42, 0x38,

};

static void reads_version_1(void **state)
{
	const char *path = scratch_path("v1.log");
	spit(path, v1_log, sizeof v1_log);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	struct xlog x = {0};
	push_preempt(&x, 1, 1000, 0x1234);
	push_preempt(&x, 2, 500, 0x1240);
	struct rp_log_final fin[2] = {{1, 2000}, {2, 900}};
	push_end(&x, RP_LOG_SIGNALED, 11, fin, 2);
	assert_prefix(&rb.got, &x, x.n);
	xlog_free(&rb.got);
	xlog_free(&x);
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	assert_int_equal(rp_log_header(r)->version, 1);
	rp_log_close_reader(r);
}

/* A version 2 log, as main's writer wrote it before format 3 (commit 7b44035): two
 * blocks with PREEMPTs of two threads in each (version 2 starts the model afresh at
 * every block), a 16-byte INPUT in each (plain bytes in version 2), END exited 3. */
static const uint8_t v2_log[] = {
	0x89, 0x52, 0x50, 0x4c, 0x0d, 0x0a, 0x1a, 0x0a, 0x02, 0x00, 0x00, 0x00,
	0x71, 0x00, 0x00, 0x00, 0x80, 0x96, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2e, 0x2f, 0x76, 0x32,
	0x00, 0x9a, 0x2c, 0x4e, 0x4a, 0x52, 0x50, 0x42, 0x4b, 0x01, 0x00, 0x00,
	0x00, 0x22, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xd7, 0x17, 0x94,
	0x52, 0x02, 0xca, 0x70, 0xf5, 0xc2, 0x00, 0x40, 0x86, 0x46, 0xa6, 0x0d,
	0x00, 0xc8, 0x00, 0xc9, 0x15, 0x81, 0x17, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x10, 0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1a,
	0x00, 0x10, 0x02, 0x52, 0x50, 0x42, 0x4b, 0x02, 0x00, 0x00, 0x00, 0x27,
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x36, 0xa0, 0xa8, 0x31, 0x35,
	0x8e, 0x81, 0x4d, 0xea, 0x00, 0x00, 0x19, 0x20, 0x39, 0x2a, 0xf0, 0x22,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc4, 0x09, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x20, 0x71, 0x00, 0xa0, 0x0c, 0x8d, 0xdc, 0x46, 0xe3,
	0xc0, 0xd4, 0xeb, 0x80, 0x38, 0x01
};

static void reads_version_2(void **state)
{
	const char *path = scratch_path("v2.log");
	spit(path, v2_log, sizeof v2_log);
	struct readback rb;
	read_log(path, &rb);
	assert_true(rb.opened);
	assert_int_equal(rb.status, RP_LOG_DONE);
	uint8_t in1[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27};
	uint8_t in2[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0x20, 0x4e};
	struct xlog x = {0};
	push_preempt(&x, 1, 4096, 0x1234);
	push_preempt(&x, 2, 8192, 0x1240);
	push_input(&x, 1, 2, in1, 16);
	push_preempt(&x, 1, 12288, 0x1236);
	push_preempt(&x, 2, 16384, 0x1240);
	push_input(&x, 2, 2, in2, 16);
	push_preempt(&x, 1, 20480, 0x1234);
	struct rp_log_final fin[2] = {{1, 30000}, {2, 20000}};
	push_end(&x, RP_LOG_EXITED, 3, fin, 2);
	assert_prefix(&rb.got, &x, x.n);
	xlog_free(&rb.got);
	xlog_free(&x);
}

static void damaged_header(void **state)
{
	struct xlog x = {0};
	uint8_t *p;
	size_t len;
	struct layout l;
	const char *path = scratch_path("hdr.log");
	struct readback rb;
	char want[512];
	make_small_log(path, &x, &p, &len, &l);

	spit(path, p, l.hlen - 1);
	read_log(path, &rb);
	snprintf(want, sizeof want, "%s: truncated header (%zu of %zu bytes)", path, l.hlen - 1,
		 l.hlen);
	assert_string_equal(rb.msg, want);

	p[20] ^= 1; /* quantum */
	spit(path, p, len);
	read_log(path, &rb);
	snprintf(want, sizeof want, "%s: corrupt header (checksum mismatch)", path);
	assert_string_equal(rb.msg, want);
	p[20] ^= 1;

	put_le32(p + 12, 10);
	spit(path, p, len);
	read_log(path, &rb);
	snprintf(want, sizeof want, "%s: corrupt header (impossible length 10)", path);
	assert_string_equal(rb.msg, want);
	put_le32(p + 12, (uint32_t)l.hlen);

	/* unknown flags, with a checksum that matches */
	p[10] |= 0x80;
	put_le32(p + l.hlen - 4, rp_log_crc32(0, p, l.hlen - 4));
	spit(path, p, len);
	read_log(path, &rb);
	snprintf(want, sizeof want,
		 "%s: unsupported header flags 0x%x (this libreplay knows 0x%x)", path,
		 0x80 | RP_LOG_F_CHAOS, RP_LOG_F_KNOWN);
	assert_string_equal(rb.msg, want);
	free(p);
	xlog_free(&x);
}

static void missing_end_and_data_after_end(void **state)
{
	const char *path = scratch_path("noend.log");
	struct rp_log_header h = test_header();
	struct rp_log_writer *w = create_or_fail(path, &h);
	for (int i = 0; i < 25; i++) {
		assert_int_equal(rp_log_preempt(w, 1, 100 * (uint64_t)i, 0x10), 0);
		if (i % 10 == 9)
			assert_int_equal(rp_log_flush(w), 0);
	}
	assert_int_equal(rp_log_close(w), 0);
	struct readback rb;
	char want[512];
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_TRUNCATED);
	assert_int_equal(rb.got.n, 25);
	snprintf(want, sizeof want,
		 "%s: log ends early (after record 25, without its END record): after block 3, "
		 "the recording was killed (SIGKILL) or could not write on (a full disk), or its "
		 "program ended by an exit or exec system call of its own (inline assembly), "
		 "which the runtime does not see",
		 path);
	assert_string_equal(rb.msg, want);
	xlog_free(&rb.got);

	/* only the header */
	w = create_or_fail(path, &h);
	assert_int_equal(rp_log_close(w), 0);
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_TRUNCATED);
	assert_contains(rb.msg, "(after record 0, without its END record): after the header, the "
			"recording was killed");

	/* a complete log, then more */
	struct xlog x = {0};
	small_log(&x);
	write_log(path, &x, 0);
	size_t len;
	uint8_t *p = slurp(path, &len);
	uint8_t *q = malloc(len + 3);
	assert_non_null(q);
	memcpy(q, p, len);
	memcpy(q + len, "xyz", 3);
	spit(path, q, len + 3);
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_CORRUPT);
	assert_prefix(&rb.got, &x, x.n);
	snprintf(want, sizeof want, "%s: data after the END record (at byte %zu)", path, len);
	assert_string_equal(rb.msg, want);
	xlog_free(&rb.got);
	free(q);
	free(p);
	xlog_free(&x);
}

/* Blocks with valid checksums around random or mutated payloads: the decoder gets
 * garbage and must stop cleanly. */
static void fuzz_blocks_with_valid_checksums(void **state)
{
	struct xlog x = {0};
	uint8_t *p;
	size_t len;
	struct layout l;
	uint64_t s = 2024;
	const char *path = mem_path();
	make_small_log(scratch_path("small.log"), &x, &p, &len, &l);
	size_t cap = len + 4096;
	uint8_t *q = malloc(cap);
	assert_non_null(q);
	size_t ok = 0, corrupt = 0, other = 0;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n;
		if (iter % 2) {
			/* the real log, payload bits flipped, checksums made to match */
			memcpy(q, p, len);
			n = len;
			int flips = 1 + (int)rnd_below(&s, 8);
			for (int f = 0; f < flips; f++) {
				size_t at = l.hlen + rnd_below(&s, len - l.hlen);
				q[at] ^= (uint8_t)(1u << rnd_below(&s, 8));
			}
			for (size_t b = 0, at = l.hlen; b < l.nblocks; at = l.end[b++]) {
				uint32_t blen = (uint32_t)(l.end[b] - at - 24);
				memcpy(q + at, "RPBK", 4);
				put_le32(q + at + 4, (uint32_t)b + 1);
				put_le32(q + at + 8, blen);
				if (rnd_below(&s, 4) == 0)
					put_le32(q + at + 12, 1 + (uint32_t)rnd_below(&s, 40));
				put_le32(q + at + 16, rp_log_crc32(0, q + at + 24, blen));
				put_le32(q + at + 20, rp_log_crc32(0, q + at, 20));
			}
		} else {
			/* the real header, then random blocks */
			memcpy(q, p, l.hlen);
			n = l.hlen;
			int nb = 1 + (int)rnd_below(&s, 3);
			for (int b = 0; b < nb; b++) {
				uint32_t blen = 1 + (uint32_t)rnd_below(&s, 200);
				if (n + 24 + blen > cap)
					break;
				uint8_t *h = q + n;
				int sparse = rnd_below(&s, 2) == 0;
				for (uint32_t i = 0; i < blen; i++)
					h[24 + i] = sparse ? (uint8_t)(rnd_below(&s, 4) ? 0 : rnd_next(&s))
							   : (uint8_t)rnd_next(&s);
				memcpy(h, "RPBK", 4);
				put_le32(h + 4, (uint32_t)b + 1);
				put_le32(h + 8, blen);
				put_le32(h + 12, 1 + (uint32_t)rnd_below(&s, 64));
				put_le32(h + 16, rp_log_crc32(0, h + 24, blen));
				put_le32(h + 20, rp_log_crc32(0, h, 20));
				n += 24 + blen;
			}
			if (rnd_below(&s, 3) == 0)
				n -= rnd_below(&s, n - l.hlen + 1);
		}
		mem_spit(q, n);
		struct readback rb;
		read_log(path, &rb);
		assert_true(rb.opened);
		assert_true(rb.status == RP_LOG_DONE || rb.status == RP_LOG_TRUNCATED ||
			    rb.status == RP_LOG_CORRUPT);
		assert_true(strncmp(rb.msg, path, strlen(path)) == 0 && !strchr(rb.msg, '\n'));
		ok += rb.status == RP_LOG_DONE;
		corrupt += rb.status == RP_LOG_CORRUPT;
		other += rb.status == RP_LOG_TRUNCATED;
		xlog_free(&rb.got);
	}
	print_message("fuzz: 20000 logs: %zu complete, %zu truncated, %zu corrupt\n", ok, other,
		      corrupt);
	free(q);
	free(p);
	xlog_free(&x);
}

/* ---- build-id -------------------------------------------------------------------------- */

static void self_build_id_is_the_executables(void **state)
{
	uint8_t id[RP_LOG_BUILD_ID_MAX];
	size_t len;
	assert_int_equal(rp_log_self_build_id(id, &len), 0);
	assert_in_range(len, 8, RP_LOG_BUILD_ID_MAX);
	char hex[2 * RP_LOG_BUILD_ID_MAX + 1];
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);

	/* what readelf says, when there is one */
	char line[512], cmd[64];
	bool seen = false;
	snprintf(cmd, sizeof cmd, "readelf -n /proc/%d/exe 2>/dev/null", (int)getpid());
	FILE *f = popen(cmd, "r");
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "Build ID:")) {
			assert_contains(line, hex);
			seen = true;
		}
	if (f)
		pclose(f);
	if (!seen)
		print_message("(readelf not found: build-id not cross-checked)\n");
}

static void build_id_check(void **state)
{
	struct rp_log_header h = test_header();
	const char *path = scratch_path("buildid.log");
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	struct rp_log_writer *w;

	assert_int_equal(rp_log_self_build_id(h.build_id, &h.build_id_len), 0);
	w = create_or_fail(path, &h);
	assert_int_equal(rp_log_close(w), 0);
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	assert_int_equal(rp_log_check_build_id(r, err, sizeof err), 0);
	rp_log_close_reader(r);

	/* another executable's */
	char self[2 * RP_LOG_BUILD_ID_MAX + 1], want[RP_LOG_ERRLEN];
	for (size_t i = 0; i < h.build_id_len; i++)
		sprintf(self + 2 * i, "%02x", h.build_id[i]);
	h = test_header();
	w = create_or_fail(path, &h);
	assert_int_equal(rp_log_close(w), 0);
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	assert_int_equal(rp_log_check_build_id(r, err, sizeof err), -1);
	snprintf(want, sizeof want,
		 "%s was recorded by another executable (build-id "
		 "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 vs %s)",
		 path, self);
	assert_string_equal(err, want);
	rp_log_close_reader(r);

	/* none recorded */
	h.build_id_len = 0;
	w = create_or_fail(path, &h);
	assert_int_equal(rp_log_close(w), 0);
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	assert_int_equal(rp_log_check_build_id(r, err, sizeof err), 1);
	assert_contains(err, "the log has no build-id");
	rp_log_close_reader(r);

	/* without a build-id, a hash of what the executable loads: this one's matches, a
	 * changed one is another executable, and so is one with a build-id */
	uint8_t hash[RP_LOG_CODE_HASH_LEN];
	assert_int_equal(rp_log_code_hash("/proc/self/exe", hash), 0);
	h = test_header();
	h.flags |= RP_LOG_F_CODE_HASH;
	h.build_id_len = sizeof hash;
	memcpy(h.build_id, hash, sizeof hash);
	w = create_or_fail(path, &h);
	assert_int_equal(rp_log_close(w), 0);
	assert_int_equal(rp_log_open(path, &r, err, sizeof err), 0);
	assert_int_equal(rp_log_check_build_id(r, err, sizeof err), -1);
	assert_contains(err, "(code hash ");
	assert_contains(err, ": it had no build-id, this one has)");
	rp_log_close_reader(r);
	struct rp_log_header me = {0};
	rp_log_self_identity(&me);
	assert_int_equal(me.flags & RP_LOG_F_CODE_HASH, 0); /* this one has a build-id */
	assert_int_equal(rp_log_code_hash(path, hash), -1);  /* a log is no executable */
	assert_int_equal(errno, ENOEXEC);
}

/* ---- flushing, crashes, SIGKILL -------------------------------------------------------- */

/* Records read back from path (the status left aside). */
static size_t records_in(const char *path)
{
	struct readback rb;
	read_log(path, &rb);
	size_t n = rb.got.n;
	xlog_free(&rb.got);
	return n;
}

/* maybe_flush writes the block so far once the last write is the interval old, only
 * when records wait, and never ends the block; sync writes at once. */
static void maybe_flush_waits_for_the_interval(void **state)
{
	struct rp_log_header h = test_header();
	const char *path = scratch_path("interval.log");
	struct rp_log_writer *w = create_or_fail(path, &h);
	struct rp_log_stats st;
	const uint64_t ms = 1000000;
	assert_int_equal(rp_log_maybe_flush(w, 5 * ms), 0); /* nothing waiting */
	rp_log_writer_stats(w, &st);
	assert_int_equal(st.writes, 0);
	assert_int_equal(rp_log_preempt(w, 1, 10, 20), 0);
	assert_int_equal(records_in(path), 0);
	assert_int_equal(rp_log_maybe_flush(w, 6 * ms), 0); /* the last write: never */
	assert_int_equal(records_in(path), 1);
	assert_int_equal(rp_log_preempt(w, 1, 20, 20), 0);
	assert_int_equal(rp_log_maybe_flush(w, 7 * ms), 0); /* 1 ms after it */
	assert_int_equal(records_in(path), 1);
	assert_int_equal(rp_log_maybe_flush(w, 8 * ms), 0); /* 2 ms */
	assert_int_equal(records_in(path), 2);
	assert_int_equal(rp_log_maybe_flush(w, 20 * ms), 0); /* nothing new */
	rp_log_writer_stats(w, &st);
	assert_int_equal(st.writes, 2);
	assert_int_equal(st.blocks, 1); /* the same block, written twice */
	rp_log_set_flush_interval(w, 1000 * ms);
	assert_int_equal(rp_log_preempt(w, 1, 30, 20), 0);
	assert_int_equal(rp_log_maybe_flush(w, 500 * ms), 0);
	assert_int_equal(records_in(path), 2);
	assert_int_equal(rp_log_sync(w), 0);
	assert_int_equal(records_in(path), 3);
	assert_int_equal(rp_log_close(w), 0);
}

/* Every block lies within one 4 KiB page of the file (a write of it is then whole or
 * not at all, SIGKILL or not), except one holding a single record larger than a
 * page; a block ended because it was full is padded to the page's end. */
static void blocks_stay_within_pages(void **state)
{
	uint64_t s = 77;
	static uint8_t data[70000];
	for (size_t i = 0; i < sizeof data; i++) /* incompressible: stored as they are */
		data[i] = (uint8_t)rnd_next(&s);
	for (int variant = 0; variant < 2; variant++) {
		const char *path = scratch_path("pages.log");
		struct rp_log_header h = test_header();
		struct rp_log_writer *w = create_or_fail(path, &h);
		struct xlog x = {0};
		for (int i = 0; i < 60000; i++) {
			uint64_t k = rnd_below(&s, 1000);
			if (k < 900)
				push_preempt(&x, 1 + (uint32_t)rnd_below(&s, 6), rnd_next(&s) >> 20,
					     rnd_below(&s, 1 << 20));
			else if (k < 995)
				push_input(&x, 1, 2, data, (uint32_t)rnd_below(&s, 100));
			else
				push_input(&x, 2, 9, data, (uint32_t)rnd_below(&s, sizeof data > 65536 ? 65536 : sizeof data));
			assert_int_equal(write_record(w, &x.v[x.n - 1]), 0);
			if (variant == 1 && rnd_below(&s, 500) == 0)
				assert_int_equal(rp_log_flush(w), 0);
		}
		assert_int_equal(rp_log_close(w), 0);
		struct readback rb;
		read_log(path, &rb);
		assert_int_equal(rb.status, RP_LOG_TRUNCATED);
		assert_prefix(&rb.got, &x, x.n);
		xlog_free(&rb.got);
		xlog_free(&x);

		int fd = open(path, O_RDONLY);
		struct stat sb;
		assert_true(fd >= 0 && fstat(fd, &sb) == 0);
		uint8_t hd[24];
		assert_int_equal(pread(fd, hd, 16, 0), 16);
		uint64_t off, blocks = 0, big = 0, padded = 0;
		static uint64_t starts[20000], ends[20000];
		uint32_t hl;
		memcpy(&hl, hd + 12, 4);
		for (off = hl; off < (uint64_t)sb.st_size; blocks++) {
			uint32_t len, nrec;
			assert_int_equal(pread(fd, hd, 24, (off_t)off), 24);
			memcpy(&len, hd + 8, 4);
			memcpy(&nrec, hd + 12, 4);
			uint64_t end = off + 24 + len;
			if (off / 4096 != (end - 1) / 4096) {
				if (len <= 4096 - 24 || nrec > 2)
					fail_msg("block %llu (%u records) crosses a page boundary",
						 (unsigned long long)blocks + 1, nrec);
				big++;
			}
			padded += end % 4096 == 0;
			assert_true(blocks < 20000);
			starts[blocks] = off;
			ends[blocks] = end;
			off = end;
		}
		close(fd);
		assert_int_equal(off, (uint64_t)sb.st_size);
		/* A block ends at a page boundary, unless a block larger than a page (which
		 * ends where its record does) comes right before or after it. */
		for (uint64_t i = 0; variant == 0 && i + 1 < blocks; i++) {
			bool big_here = starts[i] / 4096 != (ends[i] - 1) / 4096;
			bool big_next = starts[i + 1] / 4096 != (ends[i + 1] - 1) / 4096;
			bool big_before = i && starts[i - 1] / 4096 != (ends[i - 1] - 1) / 4096;
			if (ends[i] % 4096 && !big_here && !big_next && !big_before)
				fail_msg("block %llu ends at %llu, inside a page",
					 (unsigned long long)i + 1, (unsigned long long)ends[i]);
		}
		print_message("%s: %llu blocks, %llu ending at a page boundary, %llu larger than a page\n",
			      variant ? "with flushes" : "without", (unsigned long long)blocks,
			      (unsigned long long)padded, (unsigned long long)big);
		assert_true(big > 0);
	}
}

/* The child's records: a deterministic stream the parent regenerates. */
static void child_record(uint64_t i, struct rp_log_record *r)
{
	static uint8_t data[16];
	memset(r, 0, sizeof *r);
	if (i % 97 == 50) {
		for (int k = 0; k < 16; k++)
			data[k] = (uint8_t)(i + k);
		*r = (struct rp_log_record){.kind = RP_LOG_INPUT, .tid = (uint32_t)(i % 5),
					    .input_kind = 4, .len = (uint32_t)(i % 16), .data = data};
		return;
	}
	*r = (struct rp_log_record){.kind = RP_LOG_PREEMPT, .tid = (uint32_t)(i % 5) + 1,
				    .count = (i / 5 + 1) * 65536 + (i * 7919) % 1000,
				    .pc = 0x3000 + (i * 31) % 400};
}

static void expect_child_records(const struct readback *rb, uint64_t at_least)
{
	if (rb->got.n < at_least)
		fail_msg("read %zu records, expected at least %llu: %s", rb->got.n,
			 (unsigned long long)at_least, rb->msg);
	for (size_t i = 0; i < rb->got.n; i++) {
		struct rp_log_record r;
		child_record(i, &r);
		if (!same_record(&rb->got.v[i], &r)) {
			if (rb->got.v[i].kind == RP_LOG_END && i + 1 == rb->got.n)
				return;
			fail_msg("record %zu differs", i + 1);
		}
	}
}

static int write_child_record(struct rp_log_writer *w, uint64_t i)
{
	struct rp_log_record r;
	child_record(i, &r);
	return write_record(w, &r);
}

static void sigkill_keeps_every_flushed_block(void **state)
{
	const char *path = scratch_path("killed.log");
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rp_log_header h = test_header();
		struct rp_log_writer *w;
		char err[RP_LOG_ERRLEN];
		uint64_t i = 0;
		if (rp_log_create(path, &h, &w, err, sizeof err) < 0)
			_exit(2);
		for (; i < 500; i++) {
			if (write_child_record(w, i) < 0)
				_exit(3);
			if (i % 100 == 99 && rp_log_flush(w) < 0)
				_exit(4);
		}
		for (; i < 550; i++) /* never flushed */
			if (write_child_record(w, i) < 0)
				_exit(5);
		if (write(fds[1], "r", 1) != 1)
			_exit(6);
		for (;;)
			pause();
	}
	char c;
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	kill(pid, SIGKILL);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	struct readback rb;
	read_log(path, &rb);
	assert_int_equal(rb.status, RP_LOG_TRUNCATED);
	assert_int_equal(rb.got.n, 500);
	expect_child_records(&rb, 500);
	char want[512];
	snprintf(want, sizeof want,
		 "%s: log ends early (after record 500, without its END record): after block 5, "
		 "the recording was killed (SIGKILL) or could not write on (a full disk), or its "
		 "program ended by an exit or exec system call of its own (inline assembly), "
		 "which the runtime does not see",
		 path);
	assert_string_equal(rb.msg, want);
	xlog_free(&rb.got);
}

static struct rp_log_writer *crash_w;
static uint64_t crash_records;

static void on_crash(int sig)
{
	struct rp_log_final fin[5];
	for (uint32_t t = 0; t < 5; t++)
		fin[t] = (struct rp_log_final){t + 1, t};
	/* SIGSEGV: also say how it ended; SIGABRT: flush only */
	if (sig == SIGSEGV)
		rp_log_end(crash_w, RP_LOG_SIGNALED, sig, fin, 5);
	rp_log_flush_from_signal(crash_w);
}

static void crash_child(const char *path, int sig)
{
	struct rp_log_header h = test_header();
	char err[RP_LOG_ERRLEN];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	sigaction(sig, &sa, NULL);
	if (rp_log_create(path, &h, &crash_w, err, sizeof err) < 0)
		_exit(2);
	for (uint64_t i = 0; i < crash_records; i++)
		if (write_child_record(crash_w, i) < 0)
			_exit(3);
	if (sig == SIGSEGV) {
		volatile int *guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard != MAP_FAILED)
			*guard = 1;
	}
	abort();
}

static void crash_flushes_from_signal(void **state)
{
	static const int sigs[] = {SIGSEGV, SIGABRT};
	for (int k = 0; k < 2; k++) {
		const char *path = scratch_path("crash.log");
		crash_records = 1234; /* several blocks, the last partly full */
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			crash_child(path, sigs[k]);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sigs[k]);
		struct readback rb;
		read_log(path, &rb);
		if (sigs[k] == SIGSEGV) {
			assert_int_equal(rb.status, RP_LOG_DONE);
			assert_int_equal(rb.got.n, crash_records + 1);
			const struct rp_log_record *end = &rb.got.v[rb.got.n - 1];
			assert_int_equal(end->kind, RP_LOG_END);
			assert_int_equal(end->how, RP_LOG_SIGNALED);
			assert_int_equal(end->value, SIGSEGV);
			assert_int_equal(end->nthreads, 5);
		} else {
			assert_int_equal(rb.status, RP_LOG_TRUNCATED);
			assert_int_equal(rb.got.n, crash_records);
			assert_contains(rb.msg, "after record 1234, without its END record): after block");
		}
		expect_child_records(&rb, crash_records);
		xlog_free(&rb.got);
	}
}

/* A timer signal lands anywhere, inside writer calls too; its handler flushes and
 * exits. The log must be a clean prefix every time: no record torn, no block twice. */
static void on_alarm(int sig)
{
	rp_log_flush_from_signal(crash_w);
	/* EBUSY: the signal interrupted a writer call */
	_exit(rp_log_flush(crash_w) < 0 && errno == EBUSY ? 10 : 0);
}

static void signal_inside_writer_calls(void **state)
{
	uint64_t s = 5;
	size_t total = 0;
	int inside = 0;
	for (int run = 0; run < 30; run++) {
		const char *path = scratch_path("alarm.log");
		long delay = 100 + (long)rnd_below(&s, 5000);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rp_log_header h = test_header();
			char err[RP_LOG_ERRLEN];
			struct itimerval it = {{0, 0}, {0, delay}};
			if (rp_log_create(path, &h, &crash_w, err, sizeof err) < 0)
				_exit(2);
			signal(SIGALRM, on_alarm);
			setitimer(ITIMER_REAL, &it, NULL);
			for (uint64_t i = 0; i < 50000000; i++)
				if (write_child_record(crash_w, i) < 0)
					_exit(3);
			_exit(4);
		}
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_true(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 10);
		inside += WEXITSTATUS(st) == 10;
		struct readback rb;
		read_log(path, &rb);
		if (rb.status != RP_LOG_TRUNCATED)
			fail_msg("run %d: %s", run, rb.msg);
		expect_child_records(&rb, 0);
		total += rb.got.n;
		xlog_free(&rb.got);
	}
	print_message("30 logs cut by a signal at random (%d inside a writer call): %zu records "
		      "read back\n",
		      inside, total);
	assert_true(inside > 0);
}

/* SIGKILL at random moments of a writer that writes its block after every record: the
 * kill lands inside pwrite(2) often. The log must read as a clean prefix every time,
 * holding at least every record whose write had returned. */
static void sigkill_while_writing_keeps_a_valid_prefix(void **state)
{
	uint64_t s = 11;
	size_t total = 0;
	volatile uint64_t *synced = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(synced != MAP_FAILED);
	for (int run = 0; run < 40; run++) {
		const char *path = scratch_path("killed_sync.log");
		*synced = 0;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rp_log_header h = test_header();
			struct rp_log_writer *w;
			char err[RP_LOG_ERRLEN];
			if (rp_log_create(path, &h, &w, err, sizeof err) < 0)
				_exit(2);
			for (uint64_t i = 0;; i++) {
				if (write_child_record(w, i) < 0 || rp_log_sync(w) < 0)
					_exit(3);
				*synced = i + 1;
			}
		}
		struct timespec d = {0, (long)(rnd_below(&s, 30000000))}, ms = {0, 1000000};
		while (*synced == 0) /* (a kill before the header is written leaves no log) */
			nanosleep(&ms, NULL);
		nanosleep(&d, NULL);
		uint64_t before = *synced;
		kill(pid, SIGKILL);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		struct readback rb;
		read_log(path, &rb);
		if (rb.status != RP_LOG_TRUNCATED)
			fail_msg("run %d: %s", run, rb.msg);
		expect_child_records(&rb, before);
		total += rb.got.n;
		xlog_free(&rb.got);
	}
	print_message("40 SIGKILLs of a writer writing after every record: %zu records read back, "
		      "every log a clean prefix\n", total);
	munmap((void *)synced, 4096);
}

/* A handler that must write END defers while a writer call is under way: the call
 * ends, the signal comes again, and the log ends with END every time. */
static volatile sig_atomic_t deferrals;

static void on_term(int sig)
{
	if (rp_log_busy(crash_w)) {
		deferrals++;
		rp_log_defer_signal(crash_w, sig);
		return;
	}
	struct rp_log_final fin = {1, 7};
	_exit(rp_log_end(crash_w, RP_LOG_SIGNALED, sig, &fin, 1) == 0 ? (deferrals ? 10 : 0) : 3);
}

static void deferred_signal_ends_the_log(void **state)
{
	uint64_t s = 21;
	int deferred = 0;
	for (int run = 0; run < 30; run++) {
		const char *path = scratch_path("term.log");
		long delay = 100 + (long)rnd_below(&s, 5000);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rp_log_header h = test_header();
			char err[RP_LOG_ERRLEN];
			struct itimerval it = {{0, 0}, {0, delay}};
			if (rp_log_create(path, &h, &crash_w, err, sizeof err) < 0)
				_exit(2);
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_term;
			sa.sa_flags = SA_NODEFER;
			sigaction(SIGALRM, &sa, NULL);
			setitimer(ITIMER_REAL, &it, NULL);
			for (uint64_t i = 0; i < 50000000; i++)
				if (write_child_record(crash_w, i) < 0)
					_exit(4);
			_exit(5);
		}
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_true(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 10);
		deferred += WEXITSTATUS(st) == 10;
		struct readback rb;
		read_log(path, &rb);
		if (rb.status != RP_LOG_DONE)
			fail_msg("run %d: %s", run, rb.msg);
		const struct rp_log_record *end = &rb.got.v[rb.got.n - 1];
		assert_true(end->kind == RP_LOG_END && end->value == SIGALRM);
		rb.got.n--;
		expect_child_records(&rb, 0);
		xlog_free(&rb.got);
	}
	print_message("30 logs ended by a signal at random (%d deferred out of a writer call), "
		      "each with its END\n", deferred);
	assert_true(deferred > 0);
}

/* ---- clean-up -------------------------------------------------------------------------- */

static int remove_scratch(void **state)
{
	if (mem_fd >= 0)
		close(mem_fd);
	if (!*scratch)
		return 0;
	DIR *d = opendir(scratch);
	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(scratch_path(e->d_name));
	if (d)
		closedir(d);
	rmdir(scratch);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc32_matches_the_standard),
		cmocka_unit_test(round_trip_every_kind),
		cmocka_unit_test(round_trip_random),
		cmocka_unit_test(many_threads_round_trip),
		cmocka_unit_test(big_end_record),
		cmocka_unit_test(writer_refuses_bad_calls),
		cmocka_unit_test(writer_reports_write_errors),
		cmocka_unit_test(delta_code_sizes),
		cmocka_unit_test(clock_reads_cost_few_bytes),
		cmocka_unit_test(grid_counts_cost_less),
		cmocka_unit_test(grid_round_trip),
		cmocka_unit_test(delta_inputs_round_trip),
		cmocka_unit_test(bytes_per_preemption),
		cmocka_unit_test(truncation_at_every_offset),
		cmocka_unit_test(byte_flips_at_every_offset),
		cmocka_unit_test(corrupt_block_2_of_5_stops_there),
		cmocka_unit_test(blocks_decode_alone),
		cmocka_unit_test(not_a_log),
		cmocka_unit_test(unsupported_version),
		cmocka_unit_test(damaged_header),
		cmocka_unit_test(end_outcomes_round_trip),
		cmocka_unit_test(end_exec_round_trip),
		cmocka_unit_test(end_taken_back),
		cmocka_unit_test(reads_version_1),
		cmocka_unit_test(reads_version_2),
		cmocka_unit_test(reads_version_3),
		cmocka_unit_test(stored_bytes_round_trip),
		cmocka_unit_test(reference_to_changed_bytes),
		cmocka_unit_test(dangling_reference),
		cmocka_unit_test(file_reads_cost),
		cmocka_unit_test(missing_end_and_data_after_end),
		cmocka_unit_test(fuzz_blocks_with_valid_checksums),
		cmocka_unit_test(self_build_id_is_the_executables),
		cmocka_unit_test(build_id_check),
		cmocka_unit_test(maybe_flush_waits_for_the_interval),
		cmocka_unit_test(blocks_stay_within_pages),
		cmocka_unit_test(sigkill_keeps_every_flushed_block),
		cmocka_unit_test(crash_flushes_from_signal),
		cmocka_unit_test(signal_inside_writer_calls),
		cmocka_unit_test(sigkill_while_writing_keeps_a_valid_prefix),
		cmocka_unit_test(deferred_signal_ends_the_log),
	};
	return cmocka_run_group_tests(tests, NULL, remove_scratch);
}
