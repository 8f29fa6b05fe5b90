/* log.c: the replay log's writer and reader. The byte layout, the record codes and
 * the reasons for them are in docs/log-format.md; this file follows it section by
 * section: CRC-32, bit streams, the per-block model, header, writer, reader. */
#include "log/log.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t file_magic[8] = {0x89, 'R', 'P', 'L', '\r', '\n', 0x1a, '\n'};
static const uint8_t block_magic[4] = {'R', 'P', 'B', 'K'};

#define HDR_FIXED 104 /* header bytes before argv */
#define BLOCK_HDR 24  /* block header bytes */

/* ---- CRC-32 ---------------------------------------------------------------------- */

static uint32_t crc_table[256];
static volatile int crc_ready;

/* Called by rp_log_create_fd and rp_log_open, so it has run before any signal
 * handler can flush. Rebuilding it concurrently writes the same values. */
static void crc_init(void)
{
	if (crc_ready)
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
		crc_table[i] = c;
	}
	crc_ready = 1;
}

uint32_t rp_log_crc32(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *s = p;
	crc_init();
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- little-endian fields ----------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* ---- bit streams ------------------------------------------------------------------------
 * Bits fill each byte from its least significant bit up; a field of n bits is stored
 * least significant bit first. Codes (docs/log-format.md, "Codes"):
 *   unary(q)   q one bits, then a zero bit
 *   eg(v)      v < 2^32: x = v + 1 has L bits; unary(L - 1), then the low L - 1 bits of x
 *   num(v)     any 64-bit v: L = bit length of (v | 1); L - 1 in 6 bits, then v in L bits
 *   rice(u, k) unary(u >> k) with u >> k < RICE_QMAX, then the low k bits of u
 *   zz(x)      zigzag: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */

#define RICE_QMAX 32
#define RICE_KMAX 40

static unsigned bitlen(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

static uint64_t zz(uint64_t x)
{
	return (x << 1) ^ (0 - (x >> 63));
}

static uint64_t unzz(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

/* The writer's: bytes past bits are zero. */
struct bitw {
	uint8_t *p;
	size_t bits;
};

static void put_bits(struct bitw *b, unsigned n, uint64_t v)
{
	while (n) {
		unsigned off = b->bits & 7, take = 8 - off < n ? 8 - off : n;
		b->p[b->bits >> 3] |= (uint8_t)((v & ((1u << take) - 1)) << off);
		v >>= take;
		n -= take;
		b->bits += take;
	}
}

static void put_unary(struct bitw *b, unsigned q)
{
	for (; q >= 32; q -= 32)
		put_bits(b, 32, 0xffffffffu);
	put_bits(b, q + 1, (UINT64_C(1) << q) - 1);
}

static void put_eg(struct bitw *b, uint32_t v)
{
	uint64_t x = (uint64_t)v + 1;
	unsigned l = bitlen(x);
	put_unary(b, l - 1);
	put_bits(b, l - 1, x);
}

static unsigned num_bits(uint64_t v)
{
	return 6 + bitlen(v | 1);
}

static void put_num(struct bitw *b, uint64_t v)
{
	unsigned l = bitlen(v | 1);
	put_bits(b, 6, l - 1);
	put_bits(b, l, v);
}

/* Bits rice(u, k) takes, or 0 if u is too far from zero for it. */
static unsigned rice_bits(uint64_t u, unsigned k)
{
	uint64_t q = u >> k;
	return q < RICE_QMAX ? (unsigned)q + 1 + k : 0;
}

static void put_rice(struct bitw *b, uint64_t u, unsigned k)
{
	put_unary(b, (unsigned)(u >> k));
	put_bits(b, k, u);
}

/* The reader's: every get fails (-1) rather than read past nbits. */
struct bitr {
	const uint8_t *p;
	size_t bits, nbits;
};

static int get_bits(struct bitr *b, unsigned n, uint64_t *v)
{
	uint64_t r = 0;
	unsigned got = 0;
	if (n > b->nbits - b->bits)
		return -1;
	while (got < n) {
		unsigned off = b->bits & 7, take = 8 - off < n - got ? 8 - off : n - got;
		uint64_t chunk = (b->p[b->bits >> 3] >> off) & ((1u << take) - 1);
		r |= chunk << got;
		got += take;
		b->bits += take;
	}
	*v = r;
	return 0;
}

/* Up to max - 1 ones and their zero; -1 on max ones. */
static int get_unary(struct bitr *b, unsigned max, unsigned *q)
{
	uint64_t bit;
	for (unsigned n = 0; n < max; n++) {
		if (get_bits(b, 1, &bit) < 0)
			return -1;
		if (!bit) {
			*q = n;
			return 0;
		}
	}
	return -1;
}

static int get_eg(struct bitr *b, uint32_t *v)
{
	unsigned l1;
	uint64_t low;
	if (get_unary(b, 33, &l1) < 0 || get_bits(b, l1, &low) < 0)
		return -1;
	uint64_t x = (UINT64_C(1) << l1 | low) - 1;
	if (x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int get_num(struct bitr *b, uint64_t *v)
{
	uint64_t l1;
	if (get_bits(b, 6, &l1) < 0)
		return -1;
	return get_bits(b, (unsigned)l1 + 1, v);
}

static int get_rice(struct bitr *b, unsigned k, uint64_t *u)
{
	unsigned q;
	uint64_t low;
	if (get_unary(b, RICE_QMAX, &q) < 0 || get_bits(b, k, &low) < 0)
		return -1;
	*u = (uint64_t)q << k | low;
	return 0;
}

/* ---- the per-block model ------------------------------------------------------------
 * What the writer and the reader both know while coding one block; reset at every
 * block start, so each block decodes alone. PREEMPT records of a thread are coded
 * against that thread's previous one in the block:
 *   the thread: its rank in the block's threads, least recently preempted first;
 *   the count: its advance d, near (rice of zz(d - pred)) or far (num(d));
 *   the PC: near pc_a (the last PC), near pc_b (the one before a jump), or far.
 * rice's k adapts to the values coded near (a mean of the recent ones). */

enum { COUNT_FIRST, COUNT_NEAR, COUNT_FAR };
enum { PC_NEAR_A, PC_NEAR_B, PC_FAR };

#define PC_K0 6     /* first k for PC distances: 64 bytes */
#define COUNT_K_SHIFT 7 /* first k for count residuals: the first advance / 128 */

struct rice {
	uint64_t a; /* sum of the recent values */
	uint32_t n; /* how many (between 8 and 15 once warm) */
};

struct thread_state {
	uint32_t tid;
	uint8_t has_pred, last_far;
	uint64_t count, pred, pc_a, pc_b;
	struct rice rc, rp;
};

struct model {
	uint32_t n;                         /* threads seen in the block */
	uint16_t lru[RP_LOG_BLOCK_THREADS]; /* indices into t, least recent first */
	struct thread_state t[RP_LOG_BLOCK_THREADS];
};

static void rice_init(struct rice *s, unsigned k)
{
	s->n = 2;
	s->a = (uint64_t)2 << k;
}

static unsigned rice_k(const struct rice *s)
{
	unsigned k = 0;
	while (k < RICE_KMAX && ((uint64_t)s->n << k) < s->a)
		k++;
	return k;
}

static void rice_update(struct rice *s, uint64_t u)
{
	s->a += u;
	if (++s->n == 16) {
		s->a >>= 1;
		s->n = 8;
	}
}

/* Rank of tid, or m->n if it has no PREEMPT record in this block yet. */
static uint32_t model_rank(const struct model *m, uint32_t tid)
{
	uint32_t r = 0;
	while (r < m->n && m->t[m->lru[r]].tid != tid)
		r++;
	return r;
}

/* The thread at rank r, which becomes the most recent. */
static struct thread_state *model_use(struct model *m, uint32_t r)
{
	uint16_t i = m->lru[r];
	memmove(&m->lru[r], &m->lru[r + 1], (m->n - r - 1) * sizeof m->lru[0]);
	m->lru[m->n - 1] = i;
	return &m->t[i];
}

static void model_add(struct model *m, uint32_t tid, uint64_t count, uint64_t pc)
{
	struct thread_state *t = &m->t[m->n];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->count = count;
	t->pc_a = t->pc_b = pc;
	rice_init(&t->rp, PC_K0);
	m->lru[m->n] = (uint16_t)m->n;
	m->n++;
}

static void count_update(struct thread_state *t, uint64_t d, int mode, uint64_t u)
{
	unsigned k;
	switch (mode) {
	case COUNT_FIRST:
		k = bitlen(d) > COUNT_K_SHIFT ? bitlen(d) - COUNT_K_SHIFT : 0;
		rice_init(&t->rc, k < RICE_KMAX ? k : RICE_KMAX);
		t->has_pred = 1;
		t->pred = d;
		t->last_far = 0;
		break;
	case COUNT_NEAR:
		rice_update(&t->rc, u);
		t->pred = d;
		t->last_far = 0;
		break;
	case COUNT_FAR:
		/* One far advance is an accident (a late tick, a wait); two in a row
		 * are a new pace. */
		if (t->last_far)
			t->pred = d;
		t->last_far = 1;
		break;
	}
	t->count += d;
}

static void pc_update(struct thread_state *t, uint64_t pc, int mode, uint64_t u)
{
	if (mode != PC_FAR)
		rice_update(&t->rp, u);
	if (mode != PC_NEAR_A)
		t->pc_b = t->pc_a;
	t->pc_a = pc;
}

/* Symbols of the record header for the kinds other than PREEMPT: they follow the
 * PREEMPT symbols 0..n (n = threads in the block; n is "a thread new to the block"). */
enum { SYM_TIMEOUT, SYM_INPUT, SYM_THREAD_END, SYM_END };

static void encode_preempt(struct model *m, struct bitw *b, uint32_t r, uint32_t tid,
			   uint64_t count, uint64_t pc)
{
	put_eg(b, r);
	if (r == m->n) {
		put_eg(b, tid);
		put_num(b, count);
		put_num(b, pc);
		model_add(m, tid, count, pc);
		return;
	}
	struct thread_state *t = model_use(m, r);
	uint64_t d = count - t->count, u = 0;
	int mode = COUNT_FIRST;
	if (!t->has_pred) {
		put_num(b, d);
	} else {
		unsigned k = rice_k(&t->rc), near;
		u = zz(d - t->pred);
		near = rice_bits(u, k);
		mode = near && near <= num_bits(d) ? COUNT_NEAR : COUNT_FAR;
		put_bits(b, 1, mode == COUNT_FAR);
		if (mode == COUNT_NEAR)
			put_rice(b, u, k);
		else
			put_num(b, d);
	}
	count_update(t, d, mode, u);

	unsigned k = rice_k(&t->rp);
	uint64_t ua = zz(pc - t->pc_a), ub = zz(pc - t->pc_b);
	unsigned ca = rice_bits(ua, k), cb = rice_bits(ub, k), cf = num_bits(pc) + 1;
	ca = ca ? ca : ~0u;
	cb = cb ? cb + 1 : ~0u;
	if (ca <= cb && ca <= cf) {
		put_bits(b, 1, 0);
		put_rice(b, ua, k);
		pc_update(t, pc, PC_NEAR_A, ua);
	} else if (cb <= cf) {
		put_bits(b, 2, 1);
		put_rice(b, ub, k);
		pc_update(t, pc, PC_NEAR_B, ub);
	} else {
		put_bits(b, 2, 3);
		put_num(b, pc);
		pc_update(t, pc, PC_FAR, 0);
	}
}

/* Decode one record; NULL, or why it is malformed. in and fin hold INPUT bytes and
 * END pairs. */
static const char *decode_record(struct model *m, struct bitr *b, struct rp_log_record *rec,
				 uint8_t *in, struct rp_log_final *fin)
{
	uint32_t sym, v32;
	uint64_t v, u = 0;
	memset(rec, 0, sizeof *rec);
	if (get_eg(b, &sym) < 0)
		return "record header cut off";
	if (sym == m->n) {
		rec->kind = RP_LOG_PREEMPT;
		if (m->n == RP_LOG_BLOCK_THREADS)
			return "more threads than a block may hold";
		if (get_eg(b, &rec->tid) < 0 || get_num(b, &rec->count) < 0 ||
		    get_num(b, &rec->pc) < 0)
			return "PREEMPT record cut off";
		if (model_rank(m, rec->tid) != m->n)
			return "thread introduced twice";
		model_add(m, rec->tid, rec->count, rec->pc);
		return NULL;
	}
	if (sym < m->n) {
		struct thread_state *t = model_use(m, sym);
		int mode = COUNT_FIRST;
		uint64_t d;
		rec->kind = RP_LOG_PREEMPT;
		rec->tid = t->tid;
		if (t->has_pred) {
			if (get_bits(b, 1, &v) < 0)
				return "PREEMPT record cut off";
			mode = v ? COUNT_FAR : COUNT_NEAR;
		}
		if (mode == COUNT_NEAR) {
			if (get_rice(b, rice_k(&t->rc), &u) < 0)
				return "bad count code";
			d = t->pred + unzz(u);
		} else if (get_num(b, &d) < 0) {
			return "PREEMPT record cut off";
		}
		count_update(t, d, mode, u);
		rec->count = t->count;

		if (get_bits(b, 1, &v) < 0)
			return "PREEMPT record cut off";
		mode = PC_NEAR_A;
		if (v) {
			if (get_bits(b, 1, &v) < 0)
				return "PREEMPT record cut off";
			mode = v ? PC_FAR : PC_NEAR_B;
		}
		if (mode == PC_FAR) {
			if (get_num(b, &rec->pc) < 0)
				return "PREEMPT record cut off";
		} else {
			if (get_rice(b, rice_k(&t->rp), &u) < 0)
				return "bad PC code";
			rec->pc = (mode == PC_NEAR_A ? t->pc_a : t->pc_b) + unzz(u);
		}
		pc_update(t, rec->pc, mode, u);
		return NULL;
	}
	switch (sym - m->n - 1) {
	case SYM_TIMEOUT:
		rec->kind = RP_LOG_TIMEOUT;
		if (get_eg(b, &rec->tid) < 0 || get_num(b, &rec->pos) < 0)
			return "TIMEOUT record cut off";
		return NULL;
	case SYM_INPUT:
		rec->kind = RP_LOG_INPUT;
		if (get_eg(b, &rec->tid) < 0 || get_bits(b, 8, &v) < 0 || get_eg(b, &v32) < 0)
			return "INPUT record cut off";
		if (v32 > RP_LOG_INPUT_MAX)
			return "INPUT longer than the limit";
		rec->input_kind = (uint8_t)v;
		rec->len = v32;
		for (uint32_t i = 0; i < v32; i++) {
			if (get_bits(b, 8, &v) < 0)
				return "INPUT record cut off";
			in[i] = (uint8_t)v;
		}
		rec->data = in;
		return NULL;
	case SYM_THREAD_END:
		rec->kind = RP_LOG_THREAD_END;
		if (get_eg(b, &rec->tid) < 0 || get_num(b, &rec->count) < 0)
			return "THREAD_END record cut off";
		return NULL;
	case SYM_END:
		rec->kind = RP_LOG_END;
		if (get_bits(b, 1, &v) < 0 || get_eg(b, &v32) < 0)
			return "END record cut off";
		rec->how = (int)v;
		rec->value = (int)v32;
		if (get_eg(b, &rec->nthreads) < 0)
			return "END record cut off";
		if (rec->nthreads > RP_LOG_END_THREADS_MAX)
			return "END lists more threads than the limit";
		for (uint32_t i = 0; i < rec->nthreads; i++)
			if (get_eg(b, &fin[i].tid) < 0 || get_num(b, &fin[i].count) < 0)
				return "END record cut off";
		rec->threads = fin;
		return NULL;
	}
	return "unknown record kind";
}

/* ---- header ------------------------------------------------------------------------- */

static void say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The header's bytes (malloc'd), or NULL with errno set. */
static uint8_t *header_encode(const struct rp_log_header *h, size_t *len)
{
	size_t n = HDR_FIXED + 4;
	if (h->argc < 0 || h->build_id_len > RP_LOG_BUILD_ID_MAX || (h->argc && !h->argv)) {
		errno = EINVAL;
		return NULL;
	}
	for (int i = 0; i < h->argc && n <= RP_LOG_HEADER_MAX; i++)
		n += strlen(h->argv[i]) + 1;
	if (n > RP_LOG_HEADER_MAX) {
		errno = E2BIG;
		return NULL;
	}
	uint8_t *p = rp_calloc(1, n);
	if (!p)
		return NULL;
	memcpy(p, file_magic, 8);
	put16(p + 8, RP_LOG_VERSION);
	put16(p + 10, h->flags);
	put32(p + 12, (uint32_t)n);
	put64(p + 16, h->quantum_ns);
	put64(p + 24, h->seed);
	put32(p + 32, (uint32_t)h->argc);
	p[36] = (uint8_t)h->build_id_len;
	memcpy(p + 40, h->build_id, h->build_id_len);
	size_t at = HDR_FIXED;
	for (int i = 0; i < h->argc; i++) {
		size_t l = strlen(h->argv[i]) + 1;
		memcpy(p + at, h->argv[i], l);
		at += l;
	}
	put32(p + at, rp_log_crc32(0, p, at));
	*len = n;
	return p;
}

/* ---- writer --------------------------------------------------------------------------- */

#define NO_MARK UINT64_MAX

struct rp_log_writer {
	int fd;
	int error;                   /* errno of the first failed write, 0 if none */
	volatile sig_atomic_t busy;  /* inside a writer call */
	volatile sig_atomic_t flushing; /* in flush_now: the block may be written already */
	volatile sig_atomic_t sealed;   /* rp_log_flush_from_signal interrupted a call */
	int ended;                   /* END written */
	uint32_t seq;                /* sequence number of the block being filled */
	size_t bits;                 /* payload bits, a record being encoded included */
	/* Complete records: count << 32 | payload bits. One word, so a signal handler
	 * sees the old value or the new one, never half of each. */
	_Atomic uint64_t commit;
	uint64_t interval_ns, mark_ns;
	struct rp_log_stats st;
	uint8_t *buf; /* block header, then payload; zero past the bits used */
	struct model m;
};

static uint8_t *payload(struct rp_log_writer *w)
{
	return w->buf + BLOCK_HDR;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = rp_sys_write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Write the first nrec records (bits of payload) as one block with one write(2).
 * Async-signal-safe. Bits of a record in progress past them are masked out. */
static int block_write(struct rp_log_writer *w, size_t bits, uint32_t nrec)
{
	uint8_t *h = w->buf, *p = payload(w);
	uint32_t len = (uint32_t)((bits + 7) / 8);
	unsigned tail = bits & 7;
	uint8_t last = tail ? p[len - 1] : 0;
	if (tail)
		p[len - 1] &= (uint8_t)((1u << tail) - 1);
	for (int i = 0; i < 4; i++)
		h[i] = block_magic[i];
	put32(h + 4, w->seq);
	put32(h + 8, len);
	put32(h + 12, nrec);
	put32(h + 16, rp_log_crc32(0, p, len));
	put32(h + 20, rp_log_crc32(0, h, 20));
	int rc = write_all(w->fd, h, BLOCK_HDR + len);
	if (tail)
		p[len - 1] = last;
	if (rc < 0)
		return -1;
	w->st.blocks++;
	w->st.bytes += BLOCK_HDR + len;
	return 0;
}

/* Write the complete records as a block and start the next one. */
static int flush_now(struct rp_log_writer *w)
{
	uint64_t c = atomic_load_explicit(&w->commit, memory_order_relaxed);
	size_t bits = (size_t)(c & 0xffffffffu);
	int rc = 0;
	if (!(c >> 32))
		return 0;
	w->flushing = 1;
	atomic_signal_fence(memory_order_seq_cst);
	/* sealed: rp_log_flush_from_signal wrote these records before flushing was set */
	if (w->sealed) {
		w->error = EIO;
		rc = -1;
	} else if (block_write(w, bits, (uint32_t)(c >> 32)) < 0) {
		w->error = errno ? errno : EIO;
		rc = -1;
	}
	atomic_store_explicit(&w->commit, 0, memory_order_relaxed);
	memset(payload(w), 0, (w->bits + 7) / 8);
	w->bits = 0;
	w->seq++;
	w->m.n = 0;
	w->mark_ns = NO_MARK;
	atomic_signal_fence(memory_order_seq_cst);
	w->flushing = 0;
	return rc;
}

static void leave(struct rp_log_writer *w)
{
	atomic_signal_fence(memory_order_seq_cst);
	w->busy = 0;
}

/* Start a writer call that will add up to need bits (records only when record). */
static int enter(struct rp_log_writer *w, size_t need, bool record)
{
	if (w->busy) {
		errno = EBUSY;
		return -1;
	}
	if (w->sealed || w->error) {
		errno = w->sealed ? EIO : w->error;
		return -1;
	}
	if (record && w->ended) {
		errno = EINVAL;
		return -1;
	}
	w->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (w->bits + need > (size_t)RP_LOG_BLOCK_MAX * 8 && flush_now(w) < 0) {
		leave(w);
		errno = w->error;
		return -1;
	}
	return 0;
}

/* The record that ends at bits is complete: count it, and write the block if full. */
static int commit(struct rp_log_writer *w, size_t bits)
{
	uint64_t nrec = (atomic_load_explicit(&w->commit, memory_order_relaxed) >> 32) + 1;
	int rc = 0;
	w->bits = bits;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&w->commit, nrec << 32 | bits, memory_order_relaxed);
	w->st.records++;
	if (bits >= (size_t)RP_LOG_BLOCK_TARGET * 8 && flush_now(w) < 0)
		rc = -1;
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_create_fd(int fd, const char *name, const struct rp_log_header *h,
		     struct rp_log_writer **out, char *err, size_t errlen)
{
	size_t hlen = 0;
	uint8_t *hdr = NULL;
	struct rp_log_writer *w = NULL;
	int fl, e;

	crc_init();
	*out = NULL;
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_APPEND) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		e = errno;
		say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	if (!(hdr = header_encode(h, &hlen))) {
		e = errno;
		say(err, errlen, "%s: cannot write this header: %s", name, strerror(e));
		goto fail;
	}
	w = rp_calloc(1, sizeof *w);
	if (!w || !(w->buf = rp_calloc(1, BLOCK_HDR + RP_LOG_BLOCK_MAX))) {
		e = ENOMEM;
		say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	if (write_all(fd, hdr, hlen) < 0) {
		e = errno;
		say(err, errlen, "%s: cannot write the header: %s", name, strerror(e));
		goto fail;
	}
	rp_free(hdr);
	w->fd = fd;
	w->seq = 1;
	w->interval_ns = RP_LOG_FLUSH_INTERVAL_NS;
	w->mark_ns = NO_MARK;
	w->st.bytes = hlen;
	*out = w;
	return 0;
fail:
	if (w)
		rp_free(w->buf);
	rp_free(w);
	rp_free(hdr);
	close(fd);
	errno = e;
	return -1;
}

int rp_log_create(const char *path, const struct rp_log_header *h,
		  struct rp_log_writer **out, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		say(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		*out = NULL;
		return -1;
	}
	return rp_log_create_fd(fd, path, h, out, err, errlen);
}

/* Upper bounds, in bits, of the records (docs/log-format.md, "Records"). */
#define SYM_BITS 17  /* eg(v) for v < 2^8 + 5 */
#define TID_BITS 65  /* eg(v) for v < 2^32 */
#define NUM_BITS 70
#define PREEMPT_BITS (SYM_BITS + TID_BITS + 2 * NUM_BITS)

int rp_log_preempt(struct rp_log_writer *w, uint32_t tid, uint64_t count, uint64_t pc)
{
	if (enter(w, PREEMPT_BITS, true) < 0)
		return -1;
	uint32_t r = model_rank(&w->m, tid);
	if (r == RP_LOG_BLOCK_THREADS) {
		if (flush_now(w) < 0) {
			leave(w);
			errno = w->error;
			return -1;
		}
		r = 0;
	}
	struct bitw b = {payload(w), w->bits};
	encode_preempt(&w->m, &b, r, tid, count, pc);
	w->st.preempts++;
	w->st.preempt_bits += b.bits - w->bits;
	return commit(w, b.bits);
}

static void put_sym(struct rp_log_writer *w, struct bitw *b, int kind)
{
	put_eg(b, w->m.n + 1 + (uint32_t)kind);
}

int rp_log_timeout(struct rp_log_writer *w, uint32_t tid, uint64_t pos)
{
	if (enter(w, SYM_BITS + TID_BITS + NUM_BITS, true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_TIMEOUT);
	put_eg(&b, tid);
	put_num(&b, pos);
	return commit(w, b.bits);
}

int rp_log_input(struct rp_log_writer *w, uint32_t tid, uint8_t input_kind,
		 const void *data, size_t len)
{
	const uint8_t *s = data;
	if (len > RP_LOG_INPUT_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (enter(w, SYM_BITS + TID_BITS + 8 + 33 + 8 * len, true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_INPUT);
	put_eg(&b, tid);
	put_bits(&b, 8, input_kind);
	put_eg(&b, (uint32_t)len);
	for (size_t i = 0; i < len; i++)
		put_bits(&b, 8, s[i]);
	return commit(w, b.bits);
}

int rp_log_thread_end(struct rp_log_writer *w, uint32_t tid, uint64_t count)
{
	if (enter(w, SYM_BITS + TID_BITS + NUM_BITS, true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_THREAD_END);
	put_eg(&b, tid);
	put_num(&b, count);
	return commit(w, b.bits);
}

int rp_log_end(struct rp_log_writer *w, int how, int value,
	       const struct rp_log_final *threads, size_t nthreads)
{
	if ((how != RP_LOG_EXITED && how != RP_LOG_SIGNALED) || (nthreads && !threads)) {
		errno = EINVAL;
		return -1;
	}
	if (nthreads > RP_LOG_END_THREADS_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (enter(w, SYM_BITS + 1 + 2 * TID_BITS + nthreads * (TID_BITS + NUM_BITS), true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_END);
	put_bits(&b, 1, (uint64_t)how);
	put_eg(&b, (uint32_t)value);
	put_eg(&b, (uint32_t)nthreads);
	for (size_t i = 0; i < nthreads; i++) {
		put_eg(&b, threads[i].tid);
		put_num(&b, threads[i].count);
	}
	w->ended = 1;
	if (commit(w, b.bits) < 0)
		return -1;
	return rp_log_flush(w);
}

int rp_log_flush(struct rp_log_writer *w)
{
	if (enter(w, 0, false) < 0)
		return -1;
	int rc = flush_now(w);
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_maybe_flush(struct rp_log_writer *w, uint64_t now_ns)
{
	int rc = 0;
	if (enter(w, 0, false) < 0)
		return -1;
	if (!(atomic_load_explicit(&w->commit, memory_order_relaxed) >> 32))
		w->mark_ns = NO_MARK;
	else if (w->mark_ns == NO_MARK)
		w->mark_ns = now_ns;
	else if (now_ns - w->mark_ns >= w->interval_ns)
		rc = flush_now(w);
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

void rp_log_set_flush_interval(struct rp_log_writer *w, uint64_t ns)
{
	w->interval_ns = ns;
}

void rp_log_flush_from_signal(struct rp_log_writer *w)
{
	int saved = errno;
	if (!w || w->sealed || w->error) {
		errno = saved;
		return;
	}
	if (!w->busy) {
		w->busy = 1;
		atomic_signal_fence(memory_order_seq_cst);
		flush_now(w);
		leave(w);
	} else {
		/* A writer call was interrupted. Its complete records can be written,
		 * unless it was writing a block itself: whether that write(2) happened
		 * is unknown, and a block written twice would read as corrupt. */
		uint64_t c = atomic_load_explicit(&w->commit, memory_order_relaxed);
		if (!w->flushing && (c >> 32))
			block_write(w, (size_t)(c & 0xffffffffu), (uint32_t)(c >> 32));
		w->sealed = 1;
	}
	errno = saved;
}

int rp_log_close(struct rp_log_writer *w)
{
	int rc = 0;
	if (!w)
		return 0;
	if (!w->sealed && !w->busy && rp_log_flush(w) < 0)
		rc = -1;
	if (w->error || w->sealed)
		rc = -1;
	if (close(w->fd) < 0)
		rc = -1;
	int e = w->error ? w->error : w->sealed ? EIO : 0;
	rp_free(w->buf);
	rp_free(w);
	if (rc < 0 && e)
		errno = e;
	return rc;
}

void rp_log_writer_stats(const struct rp_log_writer *w, struct rp_log_stats *st)
{
	*st = w->st;
}

/* ---- build-id ----------------------------------------------------------------------- */

struct build_id_search {
	uint8_t *buf;
	size_t len;
};

static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct build_id_search *s = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		size_t align = ph->p_align == 8 ? 8 : 4;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + align - 1) & ~(align - 1);
			size_t desc = (nh->n_descsz + align - 1) & ~(align - 1);
			const uint8_t *np = p + sizeof *nh;
			if ((size_t)(end - np) < name + desc)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(np, "GNU", 4) == 0) {
				s->len = nh->n_descsz < RP_LOG_BUILD_ID_MAX ? nh->n_descsz
									: RP_LOG_BUILD_ID_MAX;
				memcpy(s->buf, np + name, s->len);
				return 1;
			}
			p = np + name + desc;
		}
	}
	return 1; /* the first object is the executable: look no further */
}

int rp_log_self_build_id(uint8_t *buf, size_t *len)
{
	struct build_id_search s = {buf, 0};
	dl_iterate_phdr(build_id_cb, &s);
	*len = s.len;
	if (!s.len) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* ---- reader --------------------------------------------------------------------------- */

struct rp_log_reader {
	char *path;
	int fd;
	struct rp_log_header hdr;
	char *argv_text;
	const char **argv;
	uint64_t off;        /* file offset of the next block */
	uint32_t block;      /* sequence number of the block being read, 0 before the first */
	uint64_t block_off;  /* its file offset */
	uint8_t *payload;    /* RP_LOG_BLOCK_MAX bytes */
	struct bitr br;
	uint32_t nrec, done; /* records in the block, and returned from it */
	struct model m;
	uint64_t records;    /* returned in all */
	bool ended;          /* END returned */
	enum rp_log_status status;
	uint8_t *input;      /* RP_LOG_INPUT_MAX bytes */
	struct rp_log_final *final; /* RP_LOG_END_THREADS_MAX pairs */
	char msg[RP_LOG_ERRLEN];
};

/* Read up to n bytes; how many were read (fewer at the end of the file), -1 on error. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = rp_sys_read(fd, (uint8_t *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* Check and keep the header: 0, or -1 and what is wrong with it in err. */
static int header_read(struct rp_log_reader *r, char *err, size_t errlen)
{
	uint8_t fixed[16];
	const char *path = r->path;
	ssize_t n = read_full(r->fd, fixed, sizeof fixed);
	if (n < 0) {
		say(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (memcmp(fixed, file_magic, n < 8 ? (size_t)n : 8) != 0) {
		say(err, errlen, "%s: not a libreplay log (bad magic)", path);
		return -1;
	}
	if (n < 10) {
		say(err, errlen, "%s: truncated header (%zd bytes: the file ends in it)", path, n);
		return -1;
	}
	uint16_t version = get16(fixed + 8);
	if (version != RP_LOG_VERSION) {
		say(err, errlen, "%s: unsupported log version %u (this libreplay reads version %d)",
		    path, version, RP_LOG_VERSION);
		return -1;
	}
	if (n < 16) {
		say(err, errlen, "%s: truncated header (%zd bytes: the file ends in it)", path, n);
		return -1;
	}
	uint32_t hlen = get32(fixed + 12);
	if (hlen < HDR_FIXED + 4 || hlen > RP_LOG_HEADER_MAX) {
		say(err, errlen, "%s: corrupt header (impossible length %u)", path, hlen);
		return -1;
	}
	uint8_t *h = rp_malloc(hlen);
	if (!h) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	memcpy(h, fixed, 16);
	n = read_full(r->fd, h + 16, hlen - 16);
	if (n < 0 || (size_t)n < hlen - 16) {
		if (n < 0)
			say(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		else
			say(err, errlen, "%s: truncated header (%zd of %u bytes)", path, n + 16,
			    hlen);
		rp_free(h);
		return -1;
	}
	const char *why = NULL;
	uint32_t argc = get32(h + 32);
	size_t idlen = h[36], area = hlen - 4 - HDR_FIXED, nul = 0;
	for (size_t i = HDR_FIXED; i < hlen - 4; i++)
		nul += h[i] == '\0';
	if (get32(h + hlen - 4) != rp_log_crc32(0, h, hlen - 4))
		why = "checksum mismatch";
	else if (get16(h + 10) & ~RP_LOG_F_CHAOS) {
		say(err, errlen, "%s: unsupported header flags 0x%x (this libreplay knows 0x%x)",
		    path, get16(h + 10), RP_LOG_F_CHAOS);
		rp_free(h);
		return -1;
	} else if (idlen > RP_LOG_BUILD_ID_MAX)
		why = "build-id longer than 64 bytes";
	else if (nul != argc || (area && h[hlen - 5] != '\0'))
		why = "argv is not argc strings";
	if (why) {
		say(err, errlen, "%s: corrupt header (%s)", path, why);
		rp_free(h);
		return -1;
	}
	r->argv_text = rp_malloc(area + 1);
	r->argv = rp_calloc(argc + 1, sizeof *r->argv);
	if (!r->argv_text || !r->argv) {
		say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rp_free(h);
		return -1;
	}
	memcpy(r->argv_text, h + HDR_FIXED, area);
	char *s = r->argv_text;
	for (uint32_t i = 0; i < argc; i++) {
		r->argv[i] = s;
		s += strlen(s) + 1;
	}
	r->hdr.version = version;
	r->hdr.flags = get16(h + 10);
	r->hdr.quantum_ns = get64(h + 16);
	r->hdr.seed = get64(h + 24);
	r->hdr.argc = (int)argc;
	r->hdr.argv = r->argv;
	r->hdr.build_id_len = idlen;
	memcpy(r->hdr.build_id, h + 40, idlen);
	r->off = hlen;
	rp_free(h);
	return 0;
}

int rp_log_open(const char *path, struct rp_log_reader **out, char *err, size_t errlen)
{
	struct rp_log_reader *r = rp_calloc(1, sizeof *r);
	crc_init();
	*out = NULL;
	if (!r || !(r->path = rp_strdup(path))) {
		say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rp_free(r);
		return -1;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		rp_log_close_reader(r);
		return -1;
	}
	if (header_read(r, err, errlen) < 0) {
		rp_log_close_reader(r);
		return -1;
	}
	r->payload = rp_malloc(RP_LOG_BLOCK_MAX);
	r->input = rp_malloc(RP_LOG_INPUT_MAX);
	r->final = rp_malloc(RP_LOG_END_THREADS_MAX * sizeof *r->final);
	if (!r->payload || !r->input || !r->final) {
		say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rp_log_close_reader(r);
		return -1;
	}
	*out = r;
	return 0;
}

static enum rp_log_status fail(struct rp_log_reader *r, enum rp_log_status st,
			       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enum rp_log_status fail(struct rp_log_reader *r, enum rp_log_status st,
			       const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->msg, sizeof r->msg, "%s: ", r->path);
	if (n < 0 || (size_t)n >= sizeof r->msg)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
	va_end(ap);
	r->status = st;
	return st;
}

static enum rp_log_status cut_short(struct rp_log_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum rp_log_status cut_short(struct rp_log_reader *r, const char *fmt, ...)
{
	char what[RP_LOG_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return fail(r, RP_LOG_TRUNCATED,
		    "log ends early (recording was cut short after record %llu): %s",
		    (unsigned long long)r->records, what);
}

/* Block number block, at file offset off, is damaged. */
static enum rp_log_status corrupt(struct rp_log_reader *r, uint32_t block, uint64_t off,
				  const char *why)
{
	return fail(r, RP_LOG_CORRUPT,
		    "corrupt block %u at byte %llu (%s): records after %llu are lost", block,
		    (unsigned long long)off, why, (unsigned long long)r->records);
}

/* Read, check and decode the next block once (nothing is returned from a block that
 * does not decode whole), then rewind to return its records. */
static enum rp_log_status block_load(struct rp_log_reader *r)
{
	uint8_t h[BLOCK_HDR];
	uint32_t want = r->block + 1;
	ssize_t n = read_full(r->fd, h, BLOCK_HDR);
	if (n < 0)
		return fail(r, RP_LOG_IO_ERROR, "cannot read: %s", strerror(errno));
	if (n == 0 && r->block == 0)
		return cut_short(r, "missing END record (no block after the header)");
	if (n == 0)
		return cut_short(r, "missing END record after block %u", r->block);
	if (memcmp(h, block_magic, n < 4 ? (size_t)n : 4) != 0)
		return corrupt(r, want, r->off, "no block header there");
	if (n < BLOCK_HDR)
		return cut_short(r, "block %u is truncated (%zd of %d header bytes)", want, n,
				 BLOCK_HDR);
	if (get32(h + 20) != rp_log_crc32(0, h, 20))
		return corrupt(r, want, r->off, "block header checksum mismatch");
	uint32_t seq = get32(h + 4), len = get32(h + 8), nrec = get32(h + 12);
	if (seq != want) {
		char why[64];
		snprintf(why, sizeof why, "its sequence number is %u", seq);
		return corrupt(r, want, r->off, why);
	}
	if (len == 0 || len > RP_LOG_BLOCK_MAX || nrec == 0 || nrec > (uint64_t)len * 8)
		return corrupt(r, want, r->off, "impossible length or record count");
	n = read_full(r->fd, r->payload, len);
	if (n < 0)
		return fail(r, RP_LOG_IO_ERROR, "cannot read: %s", strerror(errno));
	if ((size_t)n < len)
		return cut_short(r, "block %u is truncated (%zd of %u payload bytes)", want, n,
				 len);
	if (get32(h + 16) != rp_log_crc32(0, r->payload, len))
		return corrupt(r, want, r->off, "payload checksum mismatch");

	struct rp_log_record rec;
	r->br = (struct bitr){r->payload, 0, (size_t)len * 8};
	r->m.n = 0;
	for (uint32_t i = 0; i < nrec; i++) {
		const char *why = decode_record(&r->m, &r->br, &rec, r->input, r->final);
		char msg[128];
		if (!why && rec.kind == RP_LOG_END && i + 1 < nrec)
			why = "records after the END record";
		if (why) {
			snprintf(msg, sizeof msg, "its record %u: %s", i + 1, why);
			return corrupt(r, want, r->off, msg);
		}
	}
	uint64_t pad;
	size_t rest = r->br.nbits - r->br.bits;
	if (rest >= 8 || get_bits(&r->br, (unsigned)rest, &pad) < 0 || pad)
		return corrupt(r, want, r->off, "bytes after its last record");

	r->br.bits = 0;
	r->m.n = 0;
	r->nrec = nrec;
	r->done = 0;
	r->block = want;
	r->block_off = r->off;
	r->off += BLOCK_HDR + len;
	return RP_LOG_OK;
}

enum rp_log_status rp_log_next(struct rp_log_reader *r, struct rp_log_record *rec)
{
	if (r->status != RP_LOG_OK)
		return r->status;
	while (r->done == r->nrec) {
		if (r->ended) {
			uint8_t byte;
			ssize_t n = read_full(r->fd, &byte, 1);
			if (n < 0)
				return fail(r, RP_LOG_IO_ERROR, "cannot read: %s", strerror(errno));
			if (n)
				return fail(r, RP_LOG_CORRUPT,
					    "data after the END record (at byte %llu)",
					    (unsigned long long)r->off);
			return fail(r, RP_LOG_DONE, "the log is complete (%llu records)",
				    (unsigned long long)r->records);
		}
		enum rp_log_status st = block_load(r);
		if (st != RP_LOG_OK)
			return st;
	}
	/* The block decoded whole in block_load: this cannot fail. */
	if (decode_record(&r->m, &r->br, rec, r->input, r->final))
		return corrupt(r, r->block, r->block_off, "decoded differently twice");
	r->done++;
	r->records++;
	if (rec->kind == RP_LOG_END)
		r->ended = true;
	return RP_LOG_OK;
}

const struct rp_log_header *rp_log_header(const struct rp_log_reader *r)
{
	return &r->hdr;
}

const char *rp_log_error(const struct rp_log_reader *r)
{
	return r->status == RP_LOG_OK ? "" : r->msg;
}

uint64_t rp_log_records(const struct rp_log_reader *r)
{
	return r->records;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

int rp_log_check_build_id(const struct rp_log_reader *r, char *err, size_t errlen)
{
	uint8_t self[RP_LOG_BUILD_ID_MAX];
	size_t len;
	char a[2 * RP_LOG_BUILD_ID_MAX + 1], b[2 * RP_LOG_BUILD_ID_MAX + 1];
	if (rp_log_self_build_id(self, &len) < 0) {
		say(err, errlen, "%s: cannot check the executable: it has no build-id", r->path);
		return 1;
	}
	if (!r->hdr.build_id_len) {
		say(err, errlen, "%s: cannot check the executable: the log has no build-id",
		    r->path);
		return 1;
	}
	if (len == r->hdr.build_id_len && memcmp(self, r->hdr.build_id, len) == 0)
		return 0;
	hex(a, r->hdr.build_id, r->hdr.build_id_len);
	hex(b, self, len);
	say(err, errlen, "%s was recorded by another executable (build-id %s vs %s)", r->path, a,
	    b);
	return -1;
}

void rp_log_close_reader(struct rp_log_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	rp_free(r->path);
	rp_free(r->argv_text);
	rp_free(r->argv);
	rp_free(r->payload);
	rp_free(r->input);
	rp_free(r->final);
	rp_free(r);
}
