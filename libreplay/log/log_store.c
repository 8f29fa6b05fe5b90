/* log_store.c: how an INPUT's bytes are kept in a version 4 log (docs/log-format.md,
 * "Stored bytes"): as they are, as a zstd frame, or as a reference to the stored bytes
 * of an identical earlier payload, which the reader fetches from the file by offset.
 * Here: the payload hash, zstd on memory allocated once (never in a record call: the
 * writer may run in a signal handler), and the reader's fetch of a reference. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStatic*: contexts that never allocate */
/* The runtime's own copy of zstd (the Makefile renames every name of Debian's
 * libzstd.a with the prefix rp_zstd_): never the program's. A program may hold zstd's
 * functions itself (libzstd's own tests do), and with a shared libzstd its names
 * interpose: the recorder would run the program's instrumented copy, whose counts the
 * replay does not make (tests/apps/debian.sh's poolTests diverged so, 7 of 7). */
#define ZSTD_estimateDCtxSize rp_zstd_ZSTD_estimateDCtxSize
#define ZSTD_initStaticDCtx rp_zstd_ZSTD_initStaticDCtx
#define ZSTD_estimateCCtxSize_usingCParams rp_zstd_ZSTD_estimateCCtxSize_usingCParams
#define ZSTD_getCParams rp_zstd_ZSTD_getCParams
#define ZSTD_initStaticCCtx rp_zstd_ZSTD_initStaticCCtx
#define ZSTD_compressCCtx rp_zstd_ZSTD_compressCCtx
#define ZSTD_isError rp_zstd_ZSTD_isError
#define ZSTD_getFrameContentSize rp_zstd_ZSTD_getFrameContentSize
#define ZSTD_findFrameCompressedSize rp_zstd_ZSTD_findFrameCompressedSize
#define ZSTD_decompressDCtx rp_zstd_ZSTD_decompressDCtx
#include "log/log_impl.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <errno.h>
#include <string.h>
#include <zstd.h>

/* ---- the payload hash -----------------------------------------------------------------
 * 64 bits over 8-byte words in four lanes (a multiply and a rotation per word, as in
 * xxHash's rounds), then an avalanche. The writer compares the bytes before it makes a
 * reference (a hash match is only a candidate), so the hash needs no strength against
 * collisions; the reader checks it against the bytes a reference fetches, which finds
 * a damaged reference with probability 1 - 2^-64. */

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t lane(uint64_t h, uint64_t v)
{
	return rotl(h + v * P2, 31) * P1;
}

static uint64_t word(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8); /* little-endian, as the format is: x86-64 */
	return v;
}

uint64_t log_hash(const uint8_t *p, size_t n)
{
	uint64_t a = P1 + P2, b = P2, c = 0, d = 0 - P1;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		a = lane(a, word(p + i));
		b = lane(b, word(p + i + 8));
		c = lane(c, word(p + i + 16));
		d = lane(d, word(p + i + 24));
	}
	uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + (uint64_t)n * P3;
	for (; i + 8 <= n; i += 8)
		h = lane(h, word(p + i));
	uint64_t t = 0;
	for (size_t k = 0; i + k < n; k++)
		t |= (uint64_t)p[i + k] << 8 * k;
	h = lane(h, t);
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

/* ---- zstd on memory of the log's own ----------------------------------------------------- */

int log_zstd_init(struct log_zstd *z, int level, bool compress)
{
	memset(z, 0, sizeof *z);
	z->level = level;
	size_t dn = ZSTD_estimateDCtxSize();
	z->dmem = rp_malloc(dn);
	z->dctx = z->dmem ? ZSTD_initStaticDCtx(z->dmem, dn) : NULL;
	if (!z->dctx)
		goto fail;
	if (compress && level) {
		/* Enough for ZSTD_compressCCtx at this level and any payload: zstd picks its
		 * parameters by source size, from one table up to 16 KiB and another up to
		 * 128 KiB, each shrunk to the size; the largest of each is at 16 and 64 KiB.
		 * (For any source size it would take twice the memory at level 1.) If it
		 * ever were too small, compression fails and the bytes are stored plain. */
		size_t cn = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, 16384, 0));
		size_t c64 = ZSTD_estimateCCtxSize_usingCParams(
			ZSTD_getCParams(level, RP_LOG_INPUT_MAX, 0));
		if (c64 > cn)
			cn = c64;
		z->cmem = rp_malloc(cn);
		z->cctx = z->cmem ? ZSTD_initStaticCCtx(z->cmem, cn) : NULL;
		if (!z->cctx)
			goto fail;
	}
	return 0;
fail:
	log_zstd_free(z);
	errno = ENOMEM;
	return -1;
}

void log_zstd_free(struct log_zstd *z)
{
	rp_free(z->cmem);
	rp_free(z->dmem);
	memset(z, 0, sizeof *z);
}

uint32_t log_zstd_compress(struct log_zstd *z, uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (!z->cctx || n < 2)
		return 0;
	/* Room for one byte less than the payload: a frame that would not be smaller
	 * fails (dstSize_tooSmall) and the payload is stored as it is. */
	size_t k = ZSTD_compressCCtx(z->cctx, dst, n - 1, src, n, z->level);
	return ZSTD_isError(k) ? 0 : (uint32_t)k;
}

const char *log_zstd_decompress(struct log_zstd *z, uint8_t *dst, uint32_t len,
				const uint8_t *src, uint32_t slen)
{
	unsigned long long size = ZSTD_getFrameContentSize(src, slen);
	if (size != len)
		return "zstd frame of another size";
	if (ZSTD_findFrameCompressedSize(src, slen) != slen)
		return "zstd frame of another length";
	size_t k = ZSTD_decompressDCtx(z->dctx, dst, len, src, slen);
	if (ZSTD_isError(k))
		return "bad zstd frame";
	return k == len ? NULL : "zstd frame of another size";
}

/* ---- the reader's fetch of a reference -------------------------------------------------- */

const char *log_fetch(struct log_fetch *f, uint64_t off, uint32_t slen, bool z, uint64_t hash,
		      uint8_t *out, uint32_t len)
{
	size_t got = 0;
	uint8_t *dst = z ? f->buf : out;
	while (got < slen) {
		ssize_t k = rp_sys_pread(f->fd, dst + got, slen - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return "INPUT reference: its bytes cannot be read";
		got += (size_t)k;
	}
	if (z) {
		const char *why = log_zstd_decompress(&f->zstd, out, len, dst, slen);
		if (why)
			return "INPUT reference to bytes that are no zstd frame of its size";
	}
	if (log_hash(out, len) != hash)
		return "INPUT reference to bytes that do not match its hash";
	return NULL;
}
