/* log_writer.c: the log's writer (log.h): records coded into a block in memory, the
 * block written with one write(2) when it is full, when asked, or from a crash
 * handler (docs/log-format.md, "Blocks"). */
#include "log/log_impl.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

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
		h[i] = log_block_magic[i];
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
	log_model_block_start(&w->m);
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

	log_crc_init();
	*out = NULL;
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_APPEND) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		e = errno;
		log_say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	if (!(hdr = log_header_encode(h, &hlen))) {
		e = errno;
		log_say(err, errlen, "%s: cannot write this header: %s", name, strerror(e));
		goto fail;
	}
	w = rp_calloc(1, sizeof *w);
	if (!w || !(w->buf = rp_calloc(1, BLOCK_HDR + RP_LOG_BLOCK_MAX))) {
		e = ENOMEM;
		log_say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	if (write_all(fd, hdr, hlen) < 0) {
		e = errno;
		log_say(err, errlen, "%s: cannot write the header: %s", name, strerror(e));
		goto fail;
	}
	rp_free(hdr);
	w->fd = fd;
	w->seq = 1;
	log_model_init(&w->m, RP_LOG_VERSION);
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
	rp_sys_close(fd);
	errno = e;
	return -1;
}

int rp_log_create(const char *path, const struct rp_log_header *h,
		  struct rp_log_writer **out, char *err, size_t errlen)
{
	int fd = rp_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_say(err, errlen, "%s: cannot create: %s", path, strerror(errno));
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
	uint32_t r = log_model_rank(&w->m, tid);
	if (r == RP_LOG_BLOCK_THREADS) {
		if (flush_now(w) < 0) {
			leave(w);
			errno = w->error;
			return -1;
		}
		r = 0;
	}
	struct bitw b = {payload(w), w->bits};
	log_encode_preempt(&w->m, &b, r, tid, count, pc);
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
	if (enter(w, SYM_BITS + TID_BITS + log_input_bits((uint32_t)len), true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_INPUT);
	log_encode_input(&w->m, &b, tid, input_kind, s, (uint32_t)len);
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
	if (how != RP_LOG_EXITED && how != RP_LOG_SIGNALED) {
		errno = EINVAL;
		return -1;
	}
	return rp_log_end_outcome(w, how, value, threads, nthreads, NULL);
}

/* Bits one thread's state may take at most in an END record. */
#define WAIT_BITS (4 * TID_BITS + 2 * SYM_BITS + (1 + RP_LOG_HELD_MAX) * NUM_BITS)

/* The threads' states and the stop position of a DEADLOCK or HANG END record. */
static void put_outcome(struct bitw *b, const struct rp_log_outcome *o)
{
	put_eg(b, o->stop_tid);
	if (o->stop_tid) {
		put_num(b, o->stop_count);
		put_num(b, o->stop_pc);
	}
	put_eg(b, o->nwaits);
	for (uint32_t i = 0; i < o->nwaits; i++) {
		const struct rp_log_wait *x = &o->waits[i];
		put_eg(b, x->tid);
		put_eg(b, x->state);
		put_eg(b, x->kind);
		put_num(b, x->obj);
		put_eg(b, x->owner);
		put_eg(b, x->nheld);
		for (uint32_t k = 0; k < x->nheld && k < RP_LOG_HELD_MAX; k++)
			put_num(b, x->held[k]);
	}
}

int rp_log_end_outcome(struct rp_log_writer *w, int how, int value,
		       const struct rp_log_final *threads, size_t nthreads,
		       const struct rp_log_outcome *o)
{
	if (how < RP_LOG_EXITED || how > RP_LOG_HANG || (how >= RP_LOG_DEADLOCK) != (o != NULL) ||
	    (nthreads && !threads) || (o && o->nwaits && !o->waits)) {
		errno = EINVAL;
		return -1;
	}
	if (nthreads > RP_LOG_END_THREADS_MAX || (o && o->nwaits > RP_LOG_END_THREADS_MAX)) {
		errno = E2BIG;
		return -1;
	}
	size_t bits = SYM_BITS + 3 * TID_BITS + nthreads * (TID_BITS + NUM_BITS);
	if (o)
		bits += 2 * TID_BITS + 2 * NUM_BITS + o->nwaits * WAIT_BITS;
	if (enter(w, bits, true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_END);
	put_eg(&b, (uint32_t)how);
	put_eg(&b, (uint32_t)value);
	put_eg(&b, (uint32_t)nthreads);
	for (size_t i = 0; i < nthreads; i++) {
		put_eg(&b, threads[i].tid);
		put_num(&b, threads[i].count);
	}
	if (o)
		put_outcome(&b, o);
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
	if (rp_sys_close(w->fd) < 0)
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
