/* log_reader.c: the log's reader (log.h): the header checked, then each block read,
 * checked and decoded whole before any of its records is returned, so a damaged or
 * cut block is reported at its start (docs/log-format.md, "Reading"). */
#include "log/log_impl.h"
#include "base/rp_alloc.h"
#include "base/rp_fd.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	struct rp_log_wait *waits;  /* RP_LOG_END_THREADS_MAX threads' states */
	struct log_fetch fetch;     /* stored bytes: zstd, references (version 4) */
	char msg[RP_LOG_ERRLEN];
};

/* Read up to n bytes at off; how many were read (fewer at the end of the file), -1 on
 * error. By offset, never the descriptor's position: a fork of the replay (a
 * checkpoint) shares that position, not this reader's state. */
static ssize_t read_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = rp_sys_pread(fd, (uint8_t *)buf + got, n - got, off + got);
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

/* Read, check and keep the header: 0, or -1 and what is wrong with it in err. */
static int header_read(struct rp_log_reader *r, char *err, size_t errlen)
{
	uint8_t fixed[16];
	const char *path = r->path;
	ssize_t n = read_full(r->fd, fixed, sizeof fixed, 0);
	if (n < 0) {
		log_say(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (memcmp(fixed, log_file_magic, n < 8 ? (size_t)n : 8) != 0) {
		log_say(err, errlen, "%s: not a libreplay log (bad magic)", path);
		return -1;
	}
	if (n < 10) {
		log_say(err, errlen, "%s: truncated header (%zd bytes: the file ends in it)", path, n);
		return -1;
	}
	uint16_t version = get16(fixed + 8);
	if (version < 1 || version > RP_LOG_VERSION) {
		log_say(err, errlen, "%s: unsupported log version %u (this libreplay reads versions 1 to %d)",
		    path, version, RP_LOG_VERSION);
		return -1;
	}
	if (n < 16) {
		log_say(err, errlen, "%s: truncated header (%zd bytes: the file ends in it)", path, n);
		return -1;
	}
	uint32_t hlen = get32(fixed + 12);
	if (hlen < HDR_FIXED + 4 || hlen > RP_LOG_HEADER_MAX) {
		log_say(err, errlen, "%s: corrupt header (impossible length %u)", path, hlen);
		return -1;
	}
	uint8_t *h = rp_malloc(hlen);
	if (!h) {
		log_say(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	memcpy(h, fixed, 16);
	n = read_full(r->fd, h + 16, hlen - 16, 16);
	if (n < 0 || (size_t)n < hlen - 16) {
		if (n < 0)
			log_say(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		else
			log_say(err, errlen, "%s: truncated header (%zd of %u bytes)", path, n + 16,
			    hlen);
		rp_free(h);
		return -1;
	}
	int rc = log_header_decode(path, h, hlen, &r->hdr, &r->argv_text, &r->argv, err, errlen);
	rp_free(h);
	if (rc < 0)
		return -1;
	r->off = hlen;
	return 0;
}

int rp_log_open(const char *path, struct rp_log_reader **out, char *err, size_t errlen)
{
	struct rp_log_reader *r = rp_calloc(1, sizeof *r);
	log_crc_init();
	*out = NULL;
	if (!r || !(r->path = rp_strdup(path))) {
		log_say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rp_free(r);
		errno = ENOMEM;
		return -1;
	}
	/* O_NONBLOCK: a FIFO must not wait for a writer; a log is read by offset. */
	r->fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
	if (r->fd < 0) {
		log_say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		rp_log_close_reader(r);
		return -1;
	}
	struct stat sb;
	if (rp_raw_syscall(SYS_fstat, r->fd, (long)&sb, 0, 0, 0, 0) != 0 || !S_ISREG(sb.st_mode)) {
		log_say(err, errlen, "%s: not a regular file", path);
		rp_log_close_reader(r);
		return -1;
	}
	/* A descriptor of its own number, far above the program's: a replay keeps the
	 * log open, and the program must get the numbers it got when recorded. */
	r->fd = rp_fd_own(r->fd);
	if (header_read(r, err, errlen) < 0) {
		rp_log_close_reader(r);
		return -1;
	}
	r->payload = rp_malloc(RP_LOG_BLOCK_MAX);
	r->input = rp_malloc(RP_LOG_INPUT_MAX);
	r->final = rp_malloc(RP_LOG_END_THREADS_MAX * sizeof *r->final);
	r->waits = rp_malloc(RP_LOG_END_THREADS_MAX * sizeof *r->waits);
	log_model_init(&r->m, r->hdr.version);
	r->fetch.fd = r->fd;
	r->fetch.first = r->off;
	r->fetch.buf = rp_malloc(RP_LOG_INPUT_MAX);
	r->m.fetch = &r->fetch;
	if (!r->payload || !r->input || !r->final || !r->waits || !r->fetch.buf ||
	    log_zstd_init(&r->fetch.zstd, 0, false) < 0) {
		log_say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rp_log_close_reader(r);
		errno = ENOMEM;
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

/* The log ends between two blocks (after block: 0 for the header) with no END: every
 * block whole, so no write was cut, but the end never came. Of the ways a process
 * ends, the runtime writes END for all but those it cannot see: SIGKILL, its log's
 * writes failing, and an exit or exec the program makes by a system call of its own
 * (inline assembly: not through exit, _exit, syscall() or the exec calls). */
static enum rp_log_status no_end(struct rp_log_reader *r, uint32_t block)
{
	char where[48] = "the header";
	if (block)
		snprintf(where, sizeof where, "block %u", block);
	return fail(r, RP_LOG_TRUNCATED,
		    "log ends early (after record %llu, without its END record): after %s, the "
		    "recording was killed (SIGKILL) or could not write on (a full disk), or its "
		    "program ended by an exit or exec system call of its own (inline assembly), "
		    "which the runtime does not see", (unsigned long long)r->records, where);
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
	ssize_t n = read_full(r->fd, h, BLOCK_HDR, r->off);
	if (n < 0)
		return fail(r, RP_LOG_IO_ERROR, "cannot read: %s", strerror(errno));
	if (n == 0)
		return no_end(r, r->block);
	if (memcmp(h, log_block_magic, n < 4 ? (size_t)n : 4) != 0)
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
	n = read_full(r->fd, r->payload, len, r->off + BLOCK_HDR);
	if (n < 0)
		return fail(r, RP_LOG_IO_ERROR, "cannot read: %s", strerror(errno));
	if ((size_t)n < len)
		return cut_short(r, "block %u is truncated (%zd of %u payload bytes)", want, n,
				 len);
	if (get32(h + 16) != rp_log_crc32(0, r->payload, len))
		return corrupt(r, want, r->off, "payload checksum mismatch");

	struct rp_log_record rec;
	r->br = (struct bitr){r->payload, 0, (size_t)len * 8};
	r->fetch.payload_off = r->off + BLOCK_HDR;
	log_model_block_start(&r->m);
	for (uint32_t i = 0; i < nrec; i++) {
		const char *why = log_decode_record(&r->m, &r->br, &rec, r->input, r->final,
						    r->waits);
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
	log_model_block_start(&r->m);
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
			ssize_t n = read_full(r->fd, &byte, 1, r->off);
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
	if (log_decode_record(&r->m, &r->br, rec, r->input, r->final, r->waits))
		return corrupt(r, r->block, r->block_off, "decoded differently twice");
	r->done++;
	/* A PAD only ends its block at a page boundary: not a record to anyone. */
	if (rec->kind == RP_LOG_INPUT && rec->input_kind == RP_LOG_INPUT_PAD)
		return rp_log_next(r, rec);
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

int rp_log_check_build_id(const struct rp_log_reader *r, char *err, size_t errlen)
{
	return log_build_id_check(r->path, &r->hdr, err, errlen);
}

int rp_log_scan(const struct rp_log_reader *r, struct rp_log_scan *out)
{
	struct stat sb;
	uint8_t h[BLOCK_HDR];
	uint64_t off = r->block ? r->block_off : r->off;
	uint32_t seq = r->block ? r->block : 1;
	memset(out, 0, sizeof *out);
	if (rp_raw_syscall(SYS_fstat, r->fd, (long)&sb, 0, 0, 0, 0) != 0)
		return -1;
	uint64_t size = (uint64_t)sb.st_size;
	while (off + BLOCK_HDR <= size) {
		if (read_full(r->fd, h, BLOCK_HDR, off) != BLOCK_HDR)
			return -1;
		uint32_t len = get32(h + 8);
		if (memcmp(h, log_block_magic, 4) || get32(h + 20) != rp_log_crc32(0, h, 20) ||
		    get32(h + 4) != seq || len == 0 || len > RP_LOG_BLOCK_MAX ||
		    off + BLOCK_HDR + len > size)
			return 0;
		out->last_off = off;
		out->last_seq = seq;
		out->last_first = out->records;
		out->blocks++;
		out->records += get32(h + 12);
		off += BLOCK_HDR + len;
		seq++;
	}
	out->clean = off == size;
	return 0;
}

void rp_log_seek(struct rp_log_reader *r, uint64_t off, uint32_t seq, uint64_t records_before)
{
	r->off = off;
	r->block = seq - 1;
	r->block_off = off;
	r->nrec = r->done = 0;
	r->records = records_before;
	r->ended = false;
	r->status = RP_LOG_OK;
}

void rp_log_close_reader(struct rp_log_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		rp_fd_close(r->fd);
	rp_free(r->path);
	rp_free(r->argv_text);
	rp_free(r->argv);
	rp_free(r->payload);
	rp_free(r->input);
	rp_free(r->final);
	rp_free(r->waits);
	rp_free(r->fetch.buf);
	log_zstd_free(&r->fetch.zstd);
	rp_free(r);
}
