/* log_bits.h: the log's bit-level coding, shared by its writer and reader: little-endian
 * fields and the bit streams with their codes (docs/log-format.md, "Codes"). Inline:
 * the writer runs in the time slice's signal handler, the reader decodes millions of
 * records. */
#ifndef LOG_BITS_H
#define LOG_BITS_H

#include <stddef.h>
#include <stdint.h>

/* ---- little-endian fields ----------------------------------------------------------- */

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
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

static inline unsigned bitlen(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

static inline uint64_t zz(uint64_t x)
{
	return (x << 1) ^ (0 - (x >> 63));
}

static inline uint64_t unzz(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

/* The writer's: bytes past bits are zero. */
struct bitw {
	uint8_t *p;
	size_t bits;
};

static inline void put_bits(struct bitw *b, unsigned n, uint64_t v)
{
	while (n) {
		unsigned off = b->bits & 7, take = 8 - off < n ? 8 - off : n;
		b->p[b->bits >> 3] |= (uint8_t)((v & ((1u << take) - 1)) << off);
		v >>= take;
		n -= take;
		b->bits += take;
	}
}

static inline void put_unary(struct bitw *b, unsigned q)
{
	for (; q >= 32; q -= 32)
		put_bits(b, 32, 0xffffffffu);
	put_bits(b, q + 1, (UINT64_C(1) << q) - 1);
}

static inline void put_eg(struct bitw *b, uint32_t v)
{
	uint64_t x = (uint64_t)v + 1;
	unsigned l = bitlen(x);
	put_unary(b, l - 1);
	put_bits(b, l - 1, x);
}

static inline unsigned num_bits(uint64_t v)
{
	return 6 + bitlen(v | 1);
}

static inline void put_num(struct bitw *b, uint64_t v)
{
	unsigned l = bitlen(v | 1);
	put_bits(b, 6, l - 1);
	put_bits(b, l, v);
}

/* Bits rice(u, k) takes, or 0 if u is too far from zero for it. */
static inline unsigned rice_bits(uint64_t u, unsigned k)
{
	uint64_t q = u >> k;
	return q < RICE_QMAX ? (unsigned)q + 1 + k : 0;
}

static inline void put_rice(struct bitw *b, uint64_t u, unsigned k)
{
	put_unary(b, (unsigned)(u >> k));
	put_bits(b, k, u);
}

/* The reader's: every get fails (-1) rather than read past nbits. */
struct bitr {
	const uint8_t *p;
	size_t bits, nbits;
};

static inline int get_bits(struct bitr *b, unsigned n, uint64_t *v)
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
static inline int get_unary(struct bitr *b, unsigned max, unsigned *q)
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

static inline int get_eg(struct bitr *b, uint32_t *v)
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

static inline int get_num(struct bitr *b, uint64_t *v)
{
	uint64_t l1;
	if (get_bits(b, 6, &l1) < 0)
		return -1;
	return get_bits(b, (unsigned)l1 + 1, v);
}

static inline int get_rice(struct bitr *b, unsigned k, uint64_t *u)
{
	unsigned q;
	uint64_t low;
	if (get_unary(b, RICE_QMAX, &q) < 0 || get_bits(b, k, &low) < 0)
		return -1;
	*u = (uint64_t)q << k | low;
	return 0;
}

#endif
