/* log_model.c: coding one record against the per-block model that the writer and
 * the reader both keep (docs/log-format.md, "Records"). */
#include "log/log_impl.h"

#include <string.h>

/* ---- the per-block model ------------------------------------------------------------
 * What the writer and the reader both know while coding one block; reset at every
 * block start, so each block decodes alone (a replay reads the last block first).
 * PREEMPT records of a thread are coded against its previous one in the block:
 *   the thread: its rank in the block's threads, least recently preempted first;
 *   the count: its advance d, near (rice of zz(d - pred)) or far (num(d));
 *   the PC: near pc_a (the last PC), near pc_b (the one before a jump), or far.
 * rice's k adapts to the values coded near (a mean of the recent ones). */

enum { COUNT_FIRST, COUNT_NEAR, COUNT_FAR };
enum { PC_NEAR_A, PC_NEAR_B, PC_FAR };

#define PC_K0 6     /* first k for PC distances: 64 bytes */
/* Counts of preemptions at the default quantum are multiples of 2^ALIGN_SHIFT (the
 * recorder defers a tick to such a count: docs/replay.md): coded in grid steps. */
#define ALIGN_SHIFT 12
#define ALIGN_MASK ((UINT64_C(1) << ALIGN_SHIFT) - 1)
#define COUNT_K_SHIFT 7 /* first k for count residuals: the first advance / 128 */

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

static void model_reset(struct model *m)
{
	m->n = 0;
	m->last_kind = -1;
	m->last_len = 0;
	for (int k = 0; k < 256; k++)
		m->in[k].len = 0;
}

void log_model_init(struct model *m, int version)
{
	m->version = version;
	m->fetch = NULL;
	model_reset(m);
}

void log_model_block_start(struct model *m)
{
	model_reset(m);
}

/* The count's grid: the shift of a near advance of thread t (0 off the grid, and
 * always before version 3). */
static unsigned grid_shift(const struct model *m, const struct thread_state *t)
{
	return m->version < 3 || (t->count & ALIGN_MASK) ? 0 : ALIGN_SHIFT;
}

/* Rank of tid, or m->n if it has no PREEMPT record in this block yet. */
uint32_t log_model_rank(const struct model *m, uint32_t tid)
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

/* A value d with a prediction: near (a flag, then u, its zigzagged distance from the
 * prediction, in Rice code k) when that is possible and no longer than d written
 * whole; else far (the flag, then d). Returns the mode written. */
static int put_near_or_far(struct bitw *b, uint64_t d, uint64_t u, unsigned k, bool possible)
{
	unsigned near = possible ? rice_bits(u, k) : 0;
	int mode = near && near <= num_bits(d) ? COUNT_NEAR : COUNT_FAR;
	put_bits(b, 1, mode == COUNT_FAR);
	if (mode == COUNT_NEAR)
		put_rice(b, u, k);
	else
		put_num(b, d);
	return mode;
}

static void count_update(struct thread_state *t, uint64_t d, int mode, uint64_t u,
			 unsigned sh)
{
	unsigned k;
	switch (mode) {
	case COUNT_FIRST: {
		/* on the grid, near advances are coded in grid steps */
		uint64_t g = sh && !(d & ALIGN_MASK) ? d >> sh : d;
		k = bitlen(g) > COUNT_K_SHIFT ? bitlen(g) - COUNT_K_SHIFT : 0;
		rice_init(&t->rc, k < RICE_KMAX ? k : RICE_KMAX);
		t->has_pred = 1;
		t->pred = d;
		t->last_far = 0;
		break;
	}
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

void log_encode_preempt(struct model *m, struct bitw *b, uint32_t r, uint32_t tid,
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
		/* the last count on the grid of aligned preemptions: a near advance is in
		 * grid steps (an advance off the grid can only be far) */
		unsigned sh = grid_shift(m, t);
		bool on_grid = !(d & ((UINT64_C(1) << sh) - 1));
		if (on_grid)
			u = zz((d >> sh) - (t->pred >> sh));
		mode = put_near_or_far(b, d, u, rice_k(&t->rc), on_grid);
	}
	count_update(t, d, mode, u, grid_shift(m, t));

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

/* ---- INPUT payloads ------------------------------------------------------------------
 * A payload of 1..IN_WORDS little-endian 64-bit words whose kind had a payload of the
 * same length earlier in the block is coded word by word as its change d from that
 * one, like a PREEMPT's count: the first change `num(d)`, then a bit: 0 = near,
 * rice(zz(d - pred)); 1 = far, num(d). A clock read in a loop changes by about the
 * same amount each time: a few bits. Anything else is its bytes. */

static bool input_words(uint32_t len)
{
	return len && len % 8 == 0 && len / 8 <= IN_WORDS;
}

/* Whether a payload says how its bytes are stored (version 4). */
static bool input_stored(const struct model *m, uint8_t kind, uint32_t len)
{
	return m->version >= 4 && len >= STORE_MIN && kind != RP_LOG_INPUT_PAD;
}

size_t log_input_bits(uint32_t len, const struct stored *s)
{
	size_t head = 1 + 8 + 33;
	if (len < STORE_MIN)
		return head + (input_words(len) ? (len / 8) * (1 + 70) : 8 * (size_t)len);
	head += 2 + 7; /* how, and the bits to the byte boundary */
	if (!s || s->how == STORE_PLAIN)
		return head + 8 * (size_t)len;
	if (s->how == STORE_ZSTD)
		return head + 33 + 8 * (size_t)s->slen;
	return head + 70 + 33 + 1 + 64;
}

/* Version 4: the bytes of a payload of STORE_MIN or more, as s says (docs/log-format.md,
 * "Stored bytes"). */
static void put_stored(struct bitw *b, const uint8_t *data, uint32_t len, const struct stored *s)
{
	static const struct stored plain = {.how = STORE_PLAIN};
	if (!s)
		s = &plain;
	put_bits(b, 2, (uint64_t)s->how);
	if (s->how == STORE_ZSTD)
		put_eg(b, s->slen);
	if (s->how == STORE_REF) {
		put_num(b, s->off);
		put_eg(b, s->slen);
		put_bits(b, 1, s->z);
		put_bits(b, 64, s->hash);
		return;
	}
	b->bits = (b->bits + 7) & ~(size_t)7;
	const uint8_t *src = s->how == STORE_ZSTD ? s->bytes : data;
	uint32_t n = s->how == STORE_ZSTD ? s->slen : len;
	memcpy(b->p + b->bits / 8, src, n);
	b->bits += 8 * (size_t)n;
}

/* Its reader: len bytes into in. */
static const char *get_stored(struct model *m, struct bitr *b, uint8_t *in, uint32_t len)
{
	uint64_t how, off = 0, z = 0, hash = 0, pad;
	uint32_t slen = len;
	if (get_bits(b, 2, &how) < 0)
		return "INPUT record cut off";
	if (how == STORE_ZSTD && get_eg(b, &slen) < 0)
		return "INPUT record cut off";
	if (how == STORE_REF) {
		if (get_num(b, &off) < 0 || get_eg(b, &slen) < 0 || get_bits(b, 1, &z) < 0 ||
		    get_bits(b, 64, &hash) < 0)
			return "INPUT record cut off";
		struct log_fetch *f = m->fetch;
		/* The referenced bytes end before this record's end, after the header. */
		if (!f || slen == 0 || slen > RP_LOG_INPUT_MAX || (!z && slen != len) ||
		    off < f->first || off + slen > f->payload_off + b->bits / 8)
			return "INPUT reference to bytes that are not before it";
		return log_fetch(f, off, slen, z, hash, in, len);
	}
	if (how > STORE_REF)
		return "INPUT stored in an unknown way";
	unsigned gap = (unsigned)(-b->bits & 7);
	if (get_bits(b, gap, &pad) < 0 || pad)
		return "INPUT record cut off";
	if (slen > (b->nbits - b->bits) / 8)
		return "INPUT record cut off";
	const uint8_t *src = b->p + b->bits / 8;
	b->bits += 8 * (size_t)slen;
	if (how == STORE_PLAIN) {
		memcpy(in, src, len);
		return NULL;
	}
	if (!m->fetch)
		return "INPUT compressed where no reader can decompress it";
	if (slen == 0 || slen >= len)
		return "INPUT compressed to no fewer bytes";
	return log_zstd_decompress(&m->fetch->zstd, in, len, src, slen);
}

/* How the change of word j goes: the mode (COUNT_*) and the rice value. */
static void input_word_update(struct input_state *st, unsigned j, uint64_t d, int mode, uint64_t u)
{
	switch (mode) {
	case COUNT_FIRST: {
		unsigned k = bitlen(d) > 2 ? bitlen(d) - 2 : 0;
		rice_init(&st->r[j], k < RICE_KMAX ? k : RICE_KMAX);
		st->has_pred[j] = 1;
		st->pred[j] = d;
		st->last_far[j] = 0;
		break;
	}
	case COUNT_NEAR:
		rice_update(&st->r[j], u);
		st->pred[j] = d;
		st->last_far[j] = 0;
		break;
	case COUNT_FAR:
		if (st->last_far[j])
			st->pred[j] = d;
		st->last_far[j] = 1;
		break;
	}
	st->w[j] += d;
}

static void input_remember(struct model *m, uint8_t kind, const uint8_t *data, uint32_t len)
{
	struct input_state *st = &m->in[kind];
	m->last_kind = kind;
	m->last_len = len;
	if (!input_words(len)) {
		st->len = 0;
		return;
	}
	if (st->len != len)
		memset(st->has_pred, 0, sizeof st->has_pred);
	st->len = len;
	for (unsigned j = 0; j < len / 8; j++)
		st->w[j] = get64(data + 8 * j);
}

void log_encode_input(struct model *m, struct bitw *b, uint32_t tid, uint8_t kind,
		      const uint8_t *data, uint32_t len, const struct stored *s)
{
	put_eg(b, tid);
	bool same = m->last_kind == kind && m->last_len == len;
	put_bits(b, 1, same);
	if (!same) {
		put_bits(b, 8, kind);
		put_eg(b, len);
	}
	struct input_state *st = &m->in[kind];
	if (input_stored(m, kind, len)) {
		put_stored(b, data, len, s);
		input_remember(m, kind, data, len);
		return;
	}
	if (!input_words(len) || st->len != len) {
		for (uint32_t i = 0; i < len; i++)
			put_bits(b, 8, data[i]);
		input_remember(m, kind, data, len);
		return;
	}
	for (unsigned j = 0; j < len / 8; j++) {
		uint64_t d = get64(data + 8 * j) - st->w[j], u = 0;
		int mode = COUNT_FIRST;
		if (!st->has_pred[j]) {
			put_num(b, d);
		} else {
			u = zz(d - st->pred[j]);
			mode = put_near_or_far(b, d, u, rice_k(&st->r[j]), true);
		}
		input_word_update(st, j, d, mode, u);
	}
	m->last_kind = kind;
	m->last_len = len;
}

static const char *input_decode(struct model *m, struct bitr *b, struct rp_log_record *rec,
				uint8_t *in)
{
	uint64_t v = 0, u = 0;
	uint32_t v32;
	/* before version 3: eg(tid) bits(8, kind) eg(len), then the bytes */
	if (get_eg(b, &rec->tid) < 0 || (m->version >= 3 && get_bits(b, 1, &v) < 0))
		return "INPUT record cut off";
	if (v) {
		if (m->last_kind < 0)
			return "INPUT repeats the kind of none";
		rec->input_kind = (uint8_t)m->last_kind;
		rec->len = m->last_len;
	} else {
		if (get_bits(b, 8, &v) < 0 || get_eg(b, &v32) < 0)
			return "INPUT record cut off";
		if (v32 > RP_LOG_INPUT_MAX)
			return "INPUT longer than the limit";
		rec->input_kind = (uint8_t)v;
		rec->len = v32;
	}
	rec->data = in;
	struct input_state *st = &m->in[rec->input_kind];
	if (input_stored(m, rec->input_kind, rec->len)) {
		const char *why = get_stored(m, b, in, rec->len);
		if (why)
			return why;
		input_remember(m, rec->input_kind, in, rec->len);
		return NULL;
	}
	if (m->version < 3 || !input_words(rec->len) || st->len != rec->len) {
		for (uint32_t i = 0; i < rec->len; i++) {
			if (get_bits(b, 8, &v) < 0)
				return "INPUT record cut off";
			in[i] = (uint8_t)v;
		}
		input_remember(m, rec->input_kind, in, rec->len);
		return NULL;
	}
	for (unsigned j = 0; j < rec->len / 8; j++) {
		uint64_t d;
		int mode = COUNT_FIRST;
		if (st->has_pred[j]) {
			if (get_bits(b, 1, &v) < 0)
				return "INPUT record cut off";
			mode = v ? COUNT_FAR : COUNT_NEAR;
		}
		if (mode == COUNT_NEAR) {
			if (get_rice(b, rice_k(&st->r[j]), &u) < 0)
				return "bad INPUT code";
			d = st->pred[j] + unzz(u);
		} else if (get_num(b, &d) < 0) {
			return "INPUT record cut off";
		}
		input_word_update(st, j, d, mode, u);
		put64(in + 8 * j, st->w[j]);
	}
	m->last_kind = rec->input_kind;
	m->last_len = rec->len;
	return NULL;
}

/* The states of a DEADLOCK or HANG END record's threads into w. */
static const char *decode_outcome(struct bitr *b, struct rp_log_outcome *o, struct rp_log_wait *w)
{
	uint64_t v;
	if (get_eg(b, &o->stop_tid) < 0 ||
	    (o->stop_tid && (get_num(b, &o->stop_count) < 0 || get_num(b, &o->stop_pc) < 0)) ||
	    get_eg(b, &o->nwaits) < 0)
		return "END record cut off";
	if (o->nwaits > RP_LOG_END_THREADS_MAX)
		return "END lists more threads than the limit";
	for (uint32_t i = 0; i < o->nwaits; i++) {
		uint32_t state, kind;
		if (get_eg(b, &w[i].tid) < 0 || get_eg(b, &state) < 0 || get_eg(b, &kind) < 0 ||
		    get_num(b, &w[i].obj) < 0 || get_eg(b, &w[i].owner) < 0 || get_eg(b, &w[i].nheld) < 0)
			return "END record cut off";
		if (state > 255 || kind > 255)
			return "END: a thread state out of range";
		w[i].state = (uint8_t)state;
		w[i].kind = (uint8_t)kind;
		for (uint32_t k = 0; k < w[i].nheld && k < RP_LOG_HELD_MAX; k++) {
			if (get_num(b, &v) < 0)
				return "END record cut off";
			w[i].held[k] = v;
		}
	}
	o->waits = w;
	return NULL;
}

/* Decode one record; NULL, or why it is malformed. in and fin hold INPUT bytes and
 * END pairs, waits a DEADLOCK or HANG END's threads; version is the log's. */
const char *log_decode_record(struct model *m, struct bitr *b, struct rp_log_record *rec,
			      uint8_t *in, struct rp_log_final *fin, struct rp_log_wait *waits)
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
		if (log_model_rank(m, rec->tid) != m->n)
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
		unsigned sh = grid_shift(m, t);
		if (t->has_pred) {
			if (get_bits(b, 1, &v) < 0)
				return "PREEMPT record cut off";
			mode = v ? COUNT_FAR : COUNT_NEAR;
		}
		if (mode == COUNT_NEAR) {
			if (get_rice(b, rice_k(&t->rc), &u) < 0)
				return "bad count code";
			d = ((t->pred >> sh) + unzz(u)) << sh;
		} else if (get_num(b, &d) < 0) {
			return "PREEMPT record cut off";
		}
		count_update(t, d, mode, u, sh);
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
		return input_decode(m, b, rec, in);
	case SYM_THREAD_END:
		rec->kind = RP_LOG_THREAD_END;
		if (get_eg(b, &rec->tid) < 0 || get_num(b, &rec->count) < 0)
			return "THREAD_END record cut off";
		return NULL;
	case SYM_END:
		rec->kind = RP_LOG_END;
		if (m->version == 1 ? get_bits(b, 1, &v) < 0 : get_eg(b, &v32) < 0)
			return "END record cut off";
		if (m->version != 1)
			v = v32;
		if (v > RP_LOG_EXECED)
			return "END: unknown way to end";
		if (get_eg(b, &v32) < 0)
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
		if (rec->how == RP_LOG_DEADLOCK || rec->how == RP_LOG_HANG)
			return decode_outcome(b, &rec->outcome, waits);
		return NULL;
	}
	return "unknown record kind";
}

