/* log_impl.h: what the log's parts share (docs/log-format.md): the file's framing
 * constants, the per-block model its writer and reader keep alike, the header's codec
 * and the checksum. Private to libreplay/log/; everyone else uses log.h. */
#ifndef LOG_IMPL_H
#define LOG_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log/log.h"
#include "log/log_bits.h"

static const uint8_t log_file_magic[8] = {0x89, 'R', 'P', 'L', '\r', '\n', 0x1a, '\n'};
static const uint8_t log_block_magic[4] = {'R', 'P', 'B', 'K'};

#define HDR_FIXED 104 /* header bytes before argv */
#define BLOCK_HDR 24  /* block header bytes */

/* ---- the per-block model (log_model.c) ------------------------------------------------ */

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

/* INPUT payloads of whole 8-byte words, at most IN_WORDS of them (a clock read's
 * timespec is two), are coded against the block's previous payload of their kind. */
#define IN_WORDS 4

struct input_state {
	uint32_t len;                 /* of the last payload of this kind; 0: none yet */
	uint8_t has_pred[IN_WORDS], last_far[IN_WORDS];
	uint64_t w[IN_WORDS];         /* its words */
	uint64_t pred[IN_WORDS];      /* the change expected next */
	struct rice r[IN_WORDS];
};

/* ---- stored bytes (log_store.c): version 4 ------------------------------------------------ */

/* An INPUT payload this long or longer (PAD's excepted) says how its bytes are stored:
 * bits(2, how), then its fields, then the bytes from a byte boundary. */
#define STORE_MIN 64
enum { STORE_PLAIN, STORE_ZSTD, STORE_REF };

/* How the writer stores one payload (log_encode_input). */
struct stored {
	int how;              /* STORE_* */
	const uint8_t *bytes; /* PLAIN, ZSTD: what goes into the block, slen of them */
	uint32_t slen;        /* REF: the length of the referenced stored bytes */
	uint64_t off;         /* REF: their file offset */
	bool z;               /* REF: they are a zstd frame */
	uint64_t hash;        /* REF: log_hash of the payload */
};

/* zstd contexts on memory allocated once (rp_malloc): they never allocate again. */
struct log_zstd {
	int level;        /* 0: compress nothing */
	void *cctx, *cmem;
	void *dctx, *dmem;
};
int log_zstd_init(struct log_zstd *z, int level, bool compress);
void log_zstd_free(struct log_zstd *z);
/* Compress n bytes into dst (n - 1 bytes of room): the frame's length, or 0 when it
 * would not be shorter than the bytes. */
uint32_t log_zstd_compress(struct log_zstd *z, uint8_t *dst, const uint8_t *src, uint32_t n);
/* slen bytes at src, one zstd frame, into exactly len bytes at dst: NULL, or why not. */
const char *log_zstd_decompress(struct log_zstd *z, uint8_t *dst, uint32_t len,
				const uint8_t *src, uint32_t slen);
uint64_t log_hash(const uint8_t *p, size_t n);

/* The reader's: where a reference's bytes come from, and the bounds they must keep. */
struct log_fetch {
	int fd;
	uint64_t first;       /* the header's length: stored bytes start after it */
	uint64_t payload_off; /* file offset of the payload of the block being decoded */
	struct log_zstd zstd;
	uint8_t *buf;         /* RP_LOG_INPUT_MAX bytes: a reference's stored bytes */
};
/* The payload a reference names, into out (len bytes), checked against hash: NULL, or
 * why not. */
const char *log_fetch(struct log_fetch *f, uint64_t off, uint32_t slen, bool z, uint64_t hash,
		      uint8_t *out, uint32_t len);

/* Reset at every block start (log_model_block_start), so each block decodes alone. */
struct model {
	int version;                        /* the log's: 1 and 2 code inputs as bytes */
	struct log_fetch *fetch;            /* the reader's, for version 4 payloads */
	uint32_t n;                         /* threads seen in the block */
	uint16_t lru[RP_LOG_BLOCK_THREADS]; /* indices into t, least recent first */
	struct thread_state t[RP_LOG_BLOCK_THREADS];
	int last_kind;                      /* the block's last INPUT: its kind, -1 none */
	uint32_t last_len;                  /* and length */
	struct input_state in[256];         /* per input kind */
};

/* Symbols of the record header for the kinds other than PREEMPT: they follow the
 * PREEMPT symbols 0..n (n = threads in the block; n is "a thread new to the block"). */
enum { SYM_TIMEOUT, SYM_INPUT, SYM_THREAD_END, SYM_END };

/* The log starts, in format version (RP_LOG_VERSION when writing). */
void log_model_init(struct model *m, int version);
/* A block starts: forget the block before. */
void log_model_block_start(struct model *m);
/* Rank of tid, or m->n if it has no PREEMPT record in this block yet. */
uint32_t log_model_rank(const struct model *m, uint32_t tid);
/* A PREEMPT record of tid, rank r (log_model_rank's), into b. */
void log_encode_preempt(struct model *m, struct bitw *b, uint32_t r, uint32_t tid,
			uint64_t count, uint64_t pc);
/* An INPUT record (its symbol already written) into b; s says how its bytes are
 * stored when len >= STORE_MIN (as they are when s is NULL). */
void log_encode_input(struct model *m, struct bitw *b, uint32_t tid, uint8_t kind,
		      const uint8_t *data, uint32_t len, const struct stored *s);
/* Upper bound of its bits (s as for log_encode_input). */
size_t log_input_bits(uint32_t len, const struct stored *s);
/* Decode one record; NULL, or why it is malformed. in and fin hold INPUT bytes and
 * END pairs, waits a DEADLOCK or HANG END's threads. */
const char *log_decode_record(struct model *m, struct bitr *b, struct rp_log_record *rec,
			      uint8_t *in, struct rp_log_final *fin, struct rp_log_wait *waits);

/* ---- the header (log_header.c) ---------------------------------------------------------- */

/* A one-line message into err (if any). */
void log_say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The header's bytes (rp_malloc'd), or NULL with errno set. */
uint8_t *log_header_encode(const struct rp_log_header *h, size_t *len);
/* Check a whole header of hlen bytes (its fixed part's magic, version and length
 * already checked) and fill *out; argv points into *argv_text, both rp_malloc'd.
 * 0, or -1 and what is wrong in err. */
int log_header_decode(const char *path, const uint8_t *h, uint32_t hlen,
		      struct rp_log_header *out, char **argv_text, const char ***argv,
		      char *err, size_t errlen);
/* Compare a log's build-id with the running executable's (rp_log_check_build_id). */
int log_build_id_check(const char *path, const struct rp_log_header *h, char *err,
		       size_t errlen);

/* ---- the checksum (log_crc.c) ------------------------------------------------------------ */

/* Fill the table: called when a writer or a reader is made, so it has run before any
 * signal handler can flush. */
void log_crc_init(void);

#endif
