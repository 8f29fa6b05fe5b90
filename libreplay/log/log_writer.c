/* log_writer.c: the log's writer (log.h): records coded into a block in memory; the
 * block so far written to its place in the file with one pwrite(2) whenever asked
 * (rp_log_maybe_flush every few milliseconds, rp_log_sync, a crash handler), again
 * and again as it grows, and a last time when it is full (docs/log-format.md,
 * "Writing and crashes").
 *
 * Durability. A block never crosses a 4 KiB boundary of the file (a block holding one
 * record too large for a page excepted): it ends with a PAD input that fills it to the
 * boundary, and the next one starts there. So every write of a block is a write to
 * one page of the page cache, which the kernel makes whole or not at all even when a
 * SIGKILL arrives in the middle (it checks for a fatal signal between pages only), and
 * the file always holds a valid log: the blocks before, then the current block as it
 * was at its last write. Rewriting a block with more records changes only bytes past
 * the old end, its header and the old last byte, in the same page. */
#include "log/log_impl.h"
#include "base/rp_alloc.h"
#include "base/rp_fd.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096u
/* A block starting with less room than this before the next page boundary would hold
 * almost nothing: the block before is padded to the boundary instead. */
#define MIN_ROOM (BLOCK_HDR + 64u)
/* Room kept free in a block for the PAD that closes it (a PAD is 14 bits at least). */
#define PAD_RESERVE_BITS 32u
/* Payloads this long or longer are looked up, and remembered, for references (a
 * reference takes about 20 bytes). */
#define REF_MIN 256u
/* The table of stored payloads: 4,096 payloads of up to 64 KiB (256 MiB of distinct
 * data) in 128 KiB, by hash, in buckets of REF_WAYS: a payload takes an empty slot of
 * its bucket, or the oldest one's (a direct-mapped table lost 11 of 305 reads of a
 * 20 MB file to collisions in an almost empty table). */
#define REF_SLOTS 4096u
#define REF_WAYS 4u

/* A payload stored in the file (or in the block being filled): what a reference names. */
struct ref_slot {
	uint64_t hash, off; /* off: file offset of its stored bytes; 0: empty slot */
	uint32_t len, slen; /* the payload's length, its stored bytes' */
	bool z;             /* they are a zstd frame */
};

struct rp_log_writer {
	int fd;
	int error;                   /* errno of the first failed write, 0 if none */
	volatile sig_atomic_t busy;  /* inside a writer call */
	int ended;                   /* END written */
	uint32_t seq;                /* sequence number of the block being filled */
	uint64_t off;                /* its file offset */
	size_t cap_bits;             /* its payload ends here (a page boundary, normally) */
	size_t bits;                 /* payload bits, a record being encoded included */
	/* Complete records: count << 32 | payload bits. One word, so a signal handler
	 * sees the old value or the new one, never half of each. */
	_Atomic uint64_t commit;
	uint64_t written;            /* the commit word at the block's last write */
	uint64_t interval_ns, last_write_ns;
	uint64_t fsize_max;          /* RLIMIT_FSIZE: a write past it would raise SIGXFSZ */
	bool big;                    /* the block holds a record larger than a page */
	volatile sig_atomic_t deferred; /* a signal to raise again when the call ends */
	void (*on_error)(int err);
	struct rp_log_stats st;
	/* rp_log_mark's: where the file ends, the block that starts there, the counts */
	bool marked;
	uint64_t mark_off;
	uint32_t mark_seq;
	struct rp_log_stats mark_st;
	uint8_t *buf; /* block header, then payload; zero past the bits used */
	struct model m;
	/* Stored bytes (docs/log-format.md, "Stored bytes"), all allocated at create or by
	 * rp_log_set_store, never in a record call. */
	struct log_zstd zstd;  /* level 0: no compression */
	struct ref_slot *refs; /* REF_SLOTS; NULL: no references */
	uint8_t *zbuf;         /* a payload compressed (RP_LOG_INPUT_MAX bytes) */
	uint8_t *vbuf, *vraw;  /* an earlier payload's stored bytes and raw bytes, compared */
};

static uint8_t *payload(struct rp_log_writer *w)
{
	return w->buf + BLOCK_HDR;
}

static void failed(struct rp_log_writer *w, int err)
{
	if (w->error)
		return;
	w->error = err ? err : EIO;
	if (w->on_error)
		w->on_error(w->error);
}

/* Write the first nrec records (bits of payload) as the current block, at its place,
 * with one pwrite(2). Async-signal-safe. Bits of a record in progress past them are
 * masked out. Idempotent: the same records again write the same bytes. */
static int block_write(struct rp_log_writer *w, size_t bits, uint32_t nrec)
{
	uint8_t *h = w->buf, *p = payload(w);
	uint32_t len = (uint32_t)((bits + 7) / 8);
	unsigned tail = bits & 7;
	uint8_t last = tail ? p[len - 1] : 0;
	if (w->error)
		return -1;
	if (w->off + BLOCK_HDR + len > w->fsize_max) {
		failed(w, EFBIG);
		return -1;
	}
	if (tail)
		p[len - 1] &= (uint8_t)((1u << tail) - 1);
	for (int i = 0; i < 4; i++)
		h[i] = log_block_magic[i];
	put32(h + 4, w->seq);
	put32(h + 8, len);
	put32(h + 12, nrec);
	put32(h + 16, rp_log_crc32(0, p, len));
	put32(h + 20, rp_log_crc32(0, h, 20));
	size_t n = BLOCK_HDR + len, done = 0;
	int rc = 0;
	while (done < n) {
		ssize_t k = rp_sys_pwrite(w->fd, h + done, n - done, w->off + done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			failed(w, k == 0 ? ENOSPC : errno);
			rc = -1;
			break;
		}
		done += (size_t)k;
	}
	if (tail)
		p[len - 1] = last;
	if (rc == 0) {
		w->written = (uint64_t)nrec << 32 | bits;
		w->st.writes++;
	}
	return rc;
}

/* Write the complete records if some are not in the file yet. */
static int write_committed(struct rp_log_writer *w)
{
	uint64_t c = atomic_load_explicit(&w->commit, memory_order_relaxed);
	if (!(c >> 32) || c == w->written)
		return w->error ? -1 : 0;
	return block_write(w, (size_t)(c & 0xffffffffu), (uint32_t)(c >> 32));
}

/* The block that starts at w->off: how far its payload may grow. */
static void block_start(struct rp_log_writer *w)
{
	uint64_t room = PAGE - w->off % PAGE;
	if (room < MIN_ROOM) /* only after a header that ends near a boundary */
		room += PAGE;
	w->cap_bits = (size_t)(room - BLOCK_HDR) * 8;
	w->written = 0;
	w->big = false;
}

static void leave(struct rp_log_writer *w)
{
	atomic_signal_fence(memory_order_seq_cst);
	w->busy = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (w->deferred) { /* a handler found the writer busy: its turn now */
		int sig = w->deferred;
		w->deferred = 0;
		rp_raw_syscall(SYS_tgkill, rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0),
			       rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, 0, 0, 0);
	}
}

/* The record that ends at bits is complete. */
static void commit(struct rp_log_writer *w, size_t bits)
{
	uint64_t nrec = (atomic_load_explicit(&w->commit, memory_order_relaxed) >> 32) + 1;
	w->bits = bits;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&w->commit, nrec << 32 | bits, memory_order_relaxed);
	w->st.records++;
}

static unsigned eg_bits(uint64_t v)
{
	return 2 * bitlen(v + 1) - 1;
}

/* A PAD input of tid, len zero bytes: its size in bits (its kind and length are
 * never the last INPUT's: the bit that says so is 0). */
static size_t pad_bits(const struct rp_log_writer *w, uint32_t tid, uint32_t len)
{
	return eg_bits(w->m.n + 1 + SYM_INPUT) + eg_bits(tid) + 1 + 8 + eg_bits(len) + 8 * (size_t)len;
}

/* Fill the block to exactly end_bytes of payload with a PAD input (the sizes of PADs
 * with tids 0..3 cover every bit count from 14 on). False if none fits exactly. */
static bool pad_to(struct rp_log_writer *w, size_t end_bytes)
{
	size_t lo = (end_bytes - 1) * 8 + 1, hi = end_bytes * 8; /* the last byte's bits */
	for (uint32_t tid = 0; tid < 4; tid++) {
		size_t base = w->bits + pad_bits(w, tid, 0);
		uint32_t len = base >= lo ? 0 : (uint32_t)((lo - base) / 8);
		for (uint32_t k = len > 2 ? len - 2 : 0; k <= len + 2 && k <= RP_LOG_INPUT_MAX; k++) {
			size_t end = w->bits + pad_bits(w, tid, k);
			if (end < lo || end > hi)
				continue;
			struct bitw b = {payload(w), w->bits};
			put_eg(&b, w->m.n + 1 + SYM_INPUT);
			put_eg(&b, tid);
			put_bits(&b, 1, 0);
			put_bits(&b, 8, RP_LOG_INPUT_PAD);
			put_eg(&b, k);
			for (uint32_t i = 0; i < k; i++)
				put_bits(&b, 8, 0);
			commit(w, b.bits);
			w->st.pads++;
			return true;
		}
	}
	return false;
}

/* End the current block: padded to its page boundary (pad) or when the room after it
 * would be too small for another, written a last time; the next one starts after it. */
static int block_end(struct rp_log_writer *w, bool pad)
{
	uint64_t c = atomic_load_explicit(&w->commit, memory_order_relaxed);
	if (!(c >> 32))
		return 0;
	size_t len = (w->bits + 7) / 8, cap = w->cap_bits / 8;
	uint64_t room = PAGE - (w->off + BLOCK_HDR + len) % PAGE;
	if ((pad || room < MIN_ROOM) && len < cap && !pad_to(w, cap) && pad)
		return -1; /* cannot happen: the room kept free always takes a PAD */
	int rc = write_committed(w);
	len = (w->bits + 7) / 8;
	/* The block is done: nothing rewrites it from here (a crash handler writes only
	 * while commit holds records, and commit goes to zero first). */
	atomic_store_explicit(&w->commit, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	w->off += BLOCK_HDR + len;
	memset(payload(w), 0, len);
	w->bits = 0;
	w->seq++;
	log_model_block_start(&w->m);
	w->st.blocks++;
	w->st.bytes = w->off;
	block_start(w);
	return rc;
}

/* Room in the block for a record of up to need bits: the block ended first if it is
 * too full (padded to its page boundary); a record too large for a page gets a block
 * of its own, larger than a page, which starts right where the block before ends (no
 * padding: that block's last page is not written again either way). */
static int room(struct rp_log_writer *w, size_t need)
{
	if (w->bits + need + PAD_RESERVE_BITS <= w->cap_bits)
		return 0;
	bool large = need + PAD_RESERVE_BITS > (size_t)(PAGE - BLOCK_HDR) * 8;
	if (w->bits && block_end(w, !large) < 0)
		return -1;
	if (need + PAD_RESERVE_BITS > w->cap_bits) { /* one record larger than a page */
		uint64_t end = w->off + BLOCK_HDR + (need + PAD_RESERVE_BITS + 7) / 8;
		end = (end + PAGE - 1) / PAGE * PAGE;
		w->cap_bits = (size_t)(end - w->off - BLOCK_HDR) * 8;
		w->big = true;
	}
	return 0;
}

/* Start a writer call that will add up to need bits (records only when record). */
static int enter(struct rp_log_writer *w, size_t need, bool record)
{
	if (w->busy) {
		errno = EBUSY;
		return -1;
	}
	if (w->error) {
		errno = w->error;
		return -1;
	}
	if (record && w->ended) {
		errno = EINVAL;
		return -1;
	}
	w->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (record && room(w, need) < 0) {
		leave(w);
		errno = w->error;
		return -1;
	}
	return 0;
}

/* A record call's end: the record is complete. A block larger than a page ends with
 * its one record: written once, never again (a write of several pages could be cut
 * between them by a SIGKILL). The next block starts right after it, as after the
 * header (padded to the boundary only if too little room would be left). */
static int done(struct rp_log_writer *w, size_t bits)
{
	int rc = 0;
	commit(w, bits);
	if (w->big && block_end(w, false) < 0)
		rc = -1;
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

/* ---- stored bytes: compression, references ------------------------------------------ */

static void store_free(struct rp_log_writer *w)
{
	log_zstd_free(&w->zstd);
	rp_free(w->refs);
	rp_free(w->zbuf);
	rp_free(w->vbuf);
	rp_free(w->vraw);
	w->refs = NULL;
	w->zbuf = w->vbuf = w->vraw = NULL;
}

/* Everything the record calls will use, allocated now. */
static int store_alloc(struct rp_log_writer *w, int level, bool refs)
{
	store_free(w);
	if (log_zstd_init(&w->zstd, level, true) < 0 ||
	    !(w->zbuf = rp_malloc(RP_LOG_INPUT_MAX)) || !(w->vbuf = rp_malloc(RP_LOG_INPUT_MAX)) ||
	    !(w->vraw = rp_malloc(RP_LOG_INPUT_MAX)) ||
	    (refs && !(w->refs = rp_calloc(REF_SLOTS, sizeof *w->refs)))) {
		store_free(w);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static struct ref_slot *ref_bucket(struct rp_log_writer *w, uint64_t h)
{
	return &w->refs[h % (REF_SLOTS / REF_WAYS) * REF_WAYS];
}

/* Where a payload of hash h goes: an empty slot of its bucket, or its oldest. */
static struct ref_slot *ref_slot_for(struct rp_log_writer *w, uint64_t h)
{
	struct ref_slot *b = ref_bucket(w, h), *e = b;
	for (unsigned i = 0; i < REF_WAYS; i++) {
		if (!b[i].off)
			return &b[i];
		if (b[i].off < e->off)
			e = &b[i];
	}
	return e;
}

/* An earlier payload identical to data (len bytes, hash h): its stored bytes are read
 * back (from the block being filled, or from the file) and compared, so a reference
 * never rests on the hash alone. Async-signal-safe: pread(2) and memory of our own. */
static bool ref_find(struct rp_log_writer *w, const uint8_t *data, uint32_t len, uint64_t h,
		     struct stored *s)
{
	const struct ref_slot *e = NULL, *b = ref_bucket(w, h);
	uint64_t pay = w->off + BLOCK_HDR; /* the payload of the block being filled */
	const uint8_t *src = w->vbuf;
	for (unsigned i = 0; i < REF_WAYS && !e; i++)
		if (b[i].off && b[i].hash == h && b[i].len == len && b[i].slen <= RP_LOG_INPUT_MAX)
			e = &b[i];
	if (!e)
		return false;
	if (e->off >= pay) {
		src = payload(w) + (e->off - pay);
	} else {
		int saved = errno;
		for (size_t got = 0; got < e->slen;) {
			ssize_t k = rp_sys_pread(w->fd, w->vbuf + got, e->slen - got,
						 (off_t)(e->off + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				errno = saved;
				return false; /* (stored as if new) */
			}
			got += (size_t)k;
		}
		errno = saved;
	}
	if (e->z) {
		if (log_zstd_decompress(&w->zstd, w->vraw, len, src, e->slen))
			return false;
		src = w->vraw;
	}
	if (memcmp(src, data, len) != 0)
		return false;
	*s = (struct stored){.how = STORE_REF, .slen = e->slen, .off = e->off, .z = e->z, .hash = h};
	return true;
}

int rp_log_set_store(struct rp_log_writer *w, int zstd_level, bool refs)
{
	if (zstd_level < 0 || zstd_level > 19 || w->busy || w->st.records) {
		errno = EINVAL;
		return -1;
	}
	return store_alloc(w, zstd_level, refs);
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
	/* Written by offset: O_APPEND would make every pwrite append; and blocking
	 * (rp_log_open_target opens with O_NONBLOCK, for a FIFO swapped in). */
	long r;
	/* Straight to the kernel: the program's fcntl is the inputs layer's wrapper. */
	if ((r = fl = (int)rp_raw_syscall(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0)) < 0 ||
	    (r = rp_raw_syscall(SYS_fcntl, fd, F_SETFL, fl & ~(O_APPEND | O_NONBLOCK), 0, 0, 0)) < 0 ||
	    (r = rp_raw_syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC, 0, 0, 0)) < 0) {
		e = (int)-r;
		log_say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	if (!(hdr = log_header_encode(h, &hlen))) {
		e = errno;
		log_say(err, errlen, "%s: cannot write this header: %s", name, strerror(e));
		goto fail;
	}
	w = rp_calloc(1, sizeof *w);
	if (!w || !(w->buf = rp_calloc(1, BLOCK_HDR + RP_LOG_BLOCK_MAX)) ||
	    store_alloc(w, RP_LOG_ZSTD_LEVEL, true) < 0) {
		e = ENOMEM;
		log_say(err, errlen, "%s: %s", name, strerror(e));
		goto fail;
	}
	for (size_t done = 0; done < hlen;) {
		ssize_t k = rp_sys_pwrite(fd, hdr + done, hlen - done, done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e = k == 0 ? ENOSPC : errno;
			log_say(err, errlen, "%s: cannot write the header: %s", name, strerror(e));
			goto fail;
		}
		done += (size_t)k;
	}
	rp_free(hdr);
	struct rlimit fsize;
	w->fsize_max = UINT64_MAX;
	if (rp_raw_syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, 0, (long)&fsize, 0, 0) == 0 &&
	    fsize.rlim_cur != RLIM_INFINITY)
		w->fsize_max = fsize.rlim_cur;
	w->fd = fd;
	w->seq = 1;
	log_model_init(&w->m, RP_LOG_VERSION);
	w->off = hlen;
	w->interval_ns = RP_LOG_FLUSH_INTERVAL_NS;
	w->st.bytes = hlen;
	block_start(w);
	*out = w;
	return 0;
fail:
	if (w) {
		store_free(w);
		rp_free(w->buf);
	}
	rp_free(w);
	rp_free(hdr);
	rp_sys_close(fd);
	errno = e;
	return -1;
}

int rp_log_create(const char *path, const struct rp_log_header *h,
		  struct rp_log_writer **out, char *err, size_t errlen)
{
	/* Read too: a reference is made only once the earlier bytes are read back. */
	int fd = rp_sys_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
	if (r == RP_LOG_BLOCK_THREADS) { /* the block's model is full: the next block */
		if (block_end(w, false) < 0) {
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
	return done(w, b.bits);
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
	return done(w, b.bits);
}

int rp_log_input(struct rp_log_writer *w, uint32_t tid, uint8_t input_kind,
		 const void *data, size_t len)
{
	const uint8_t *s = data;
	if (len > RP_LOG_INPUT_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (input_kind == RP_LOG_INPUT_PAD) { /* the writer's own */
		errno = EINVAL;
		return -1;
	}
	if (enter(w, 0, true) < 0)
		return -1;
	/* Busy from here: zbuf and the reference table are this call's alone. */
	struct stored st = {.how = STORE_PLAIN};
	uint32_t n = (uint32_t)len;
	uint64_t hash = 0;
	bool remember = false;
	if (n >= STORE_MIN) {
		w->st.input_bytes += n;
		if (w->refs && n >= REF_MIN) {
			hash = log_hash(s, n);
			remember = !ref_find(w, s, n, hash, &st);
		}
		if (st.how == STORE_PLAIN && (st.slen = log_zstd_compress(&w->zstd, w->zbuf, s, n))) {
			st.how = STORE_ZSTD;
			st.bytes = w->zbuf;
		}
	}
	if (room(w, SYM_BITS + TID_BITS + log_input_bits(n, &st)) < 0) {
		leave(w);
		errno = w->error;
		return -1;
	}
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_INPUT);
	log_encode_input(&w->m, &b, tid, input_kind, s, n, &st);
	if (remember) { /* its stored bytes end where the record does */
		struct ref_slot *e = ref_slot_for(w, hash);
		e->hash = hash;
		e->len = n;
		e->slen = st.how == STORE_ZSTD ? st.slen : n;
		e->z = st.how == STORE_ZSTD;
		e->off = w->off + BLOCK_HDR + b.bits / 8 - e->slen;
	}
	w->st.zstd_inputs += st.how == STORE_ZSTD;
	w->st.ref_inputs += st.how == STORE_REF;
	return done(w, b.bits);
}

int rp_log_thread_end(struct rp_log_writer *w, uint32_t tid, uint64_t count)
{
	if (enter(w, SYM_BITS + TID_BITS + NUM_BITS, true) < 0)
		return -1;
	struct bitw b = {payload(w), w->bits};
	put_sym(w, &b, SYM_THREAD_END);
	put_eg(&b, tid);
	put_num(&b, count);
	return done(w, b.bits);
}

int rp_log_end(struct rp_log_writer *w, int how, int value,
	       const struct rp_log_final *threads, size_t nthreads)
{
	if (how != RP_LOG_EXITED && how != RP_LOG_SIGNALED && how != RP_LOG_EXECED) {
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
	bool outcome = how == RP_LOG_DEADLOCK || how == RP_LOG_HANG;
	if (how < RP_LOG_EXITED || how > RP_LOG_EXECED || outcome != (o != NULL) ||
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
	commit(w, b.bits);
	int rc = write_committed(w);
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_mark(struct rp_log_writer *w)
{
	if (enter(w, 0, true) < 0)
		return -1;
	int rc = block_end(w, false);
	if (rc == 0) {
		w->marked = true;
		w->mark_off = w->off;
		w->mark_seq = w->seq;
		w->mark_st = w->st;
	}
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

/* The block at the mark starts afresh and the file ends there again. (A payload
 * stored after the mark stays in the table of references: a reference is made only
 * once the bytes read back at its offset are the payload's.) */
int rp_log_rewind(struct rp_log_writer *w)
{
	if (!w->marked) {
		errno = EINVAL;
		return -1;
	}
	if (enter(w, 0, false) < 0)
		return -1;
	atomic_store_explicit(&w->commit, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	memset(payload(w), 0, (w->bits + 7) / 8);
	w->bits = 0;
	w->off = w->mark_off;
	w->seq = w->mark_seq;
	w->st = w->mark_st;
	w->ended = 0;
	w->marked = false;
	log_model_block_start(&w->m);
	block_start(w);
	int rc = 0;
	long r;
	while ((r = rp_raw_syscall(SYS_ftruncate, w->fd, (long)w->off, 0, 0, 0, 0)) == -EINTR)
		;
	if (r < 0) {
		failed(w, (int)-r);
		rc = -1;
	}
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_flush(struct rp_log_writer *w)
{
	if (enter(w, 0, false) < 0)
		return -1;
	int rc = w->ended ? write_committed(w) : block_end(w, false);
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_sync(struct rp_log_writer *w)
{
	if (enter(w, 0, false) < 0)
		return -1;
	int rc = write_committed(w);
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

int rp_log_maybe_flush(struct rp_log_writer *w, uint64_t now_ns)
{
	int rc = 0;
	if (w->busy || w->error) /* (enter's answer, without its cost) */
		return enter(w, 0, false);
	uint64_t c = atomic_load_explicit(&w->commit, memory_order_relaxed);
	if (!(c >> 32) || c == w->written || now_ns - w->last_write_ns < w->interval_ns)
		return 0;
	if (enter(w, 0, false) < 0)
		return -1;
	rc = write_committed(w);
	w->last_write_ns = now_ns;
	leave(w);
	if (rc < 0)
		errno = w->error;
	return rc;
}

void rp_log_set_flush_interval(struct rp_log_writer *w, uint64_t ns)
{
	w->interval_ns = ns;
}

void rp_log_set_error_hook(struct rp_log_writer *w, void (*fn)(int err))
{
	w->on_error = fn;
}

int rp_log_error_number(const struct rp_log_writer *w)
{
	return w->error;
}

bool rp_log_busy(const struct rp_log_writer *w)
{
	return w && w->busy;
}

void rp_log_defer_signal(struct rp_log_writer *w, int sig)
{
	w->deferred = sig;
}

void rp_log_flush_from_signal(struct rp_log_writer *w)
{
	int saved = errno;
	/* Also inside an interrupted writer call: a block written again with the same or
	 * more records is the same block, and a block that call has ended (commit zero)
	 * is not written. The record being coded is masked out. */
	if (w && !w->error)
		write_committed(w);
	errno = saved;
}

int rp_log_close(struct rp_log_writer *w)
{
	int rc = 0;
	if (!w)
		return 0;
	if (!w->busy && rp_log_sync(w) < 0)
		rc = -1;
	if (w->error)
		rc = -1;
	if (rp_fd_close(w->fd) < 0)
		rc = -1;
	int e = w->error;
	store_free(w);
	rp_free(w->buf);
	rp_free(w);
	if (rc < 0 && e)
		errno = e;
	return rc;
}

void rp_log_abandon(struct rp_log_writer *w)
{
	if (w)
		rp_fd_close(w->fd); /* never LOCK_UN: that would unlock the parent's too */
}

void rp_log_writer_stats(const struct rp_log_writer *w, struct rp_log_stats *st)
{
	*st = w->st;
	uint64_t c = atomic_load_explicit(&((struct rp_log_writer *)w)->commit, memory_order_relaxed);
	st->blocks += c >> 32 ? 1 : 0; /* the current one too */
	st->bytes = w->off + (c >> 32 ? BLOCK_HDR + ((c & 0xffffffffu) + 7) / 8 : 0);
}
