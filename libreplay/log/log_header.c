/* log_header.c: the log's header (docs/log-format.md, "Header"): its bytes, their
 * check, and the build-id that ties a log to the executable that wrote it. */
#include "log/log_impl.h"
#include "base/rp_alloc.h"
#include "base/rp_syscall.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- messages, encoding ------------------------------------------------------------------ */

void log_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

uint8_t *log_header_encode(const struct rp_log_header *h, size_t *len)
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
	memcpy(p, log_file_magic, 8);
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

/* ---- decoding ------------------------------------------------------------------------------ */

int log_header_decode(const char *path, const uint8_t *h, uint32_t hlen,
		      struct rp_log_header *out, char **argv_text, const char ***argv,
		      char *err, size_t errlen)
{
	const char *why = NULL;
	uint32_t argc = get32(h + 32);
	size_t idlen = h[36], area = hlen - 4 - HDR_FIXED, nul = 0;
	for (size_t i = HDR_FIXED; i < hlen - 4; i++)
		nul += h[i] == '\0';
	if (get32(h + hlen - 4) != rp_log_crc32(0, h, hlen - 4))
		why = "checksum mismatch";
	else if (get16(h + 10) & ~RP_LOG_F_KNOWN) {
		log_say(err, errlen, "%s: unsupported header flags 0x%x (this libreplay knows 0x%x)",
		    path, get16(h + 10), RP_LOG_F_KNOWN);
		return -1;
	} else if (idlen > RP_LOG_BUILD_ID_MAX)
		why = "build-id longer than 64 bytes";
	else if (nul != argc || (area && h[hlen - 5] != '\0'))
		why = "argv is not argc strings";
	if (why) {
		log_say(err, errlen, "%s: corrupt header (%s)", path, why);
		return -1;
	}
	/* The caller frees these, also when this fails. */
	*argv_text = rp_malloc(area + 1);
	*argv = rp_calloc(argc + 1, sizeof **argv);
	if (!*argv_text || !*argv) {
		log_say(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	memcpy(*argv_text, h + HDR_FIXED, area);
	char *s = *argv_text;
	for (uint32_t i = 0; i < argc; i++) {
		(*argv)[i] = s;
		s += strlen(s) + 1;
	}
	out->version = get16(h + 8);
	out->flags = get16(h + 10);
	out->quantum_ns = get64(h + 16);
	out->seed = get64(h + 24);
	out->argc = (int)argc;
	out->argv = *argv;
	out->build_id_len = idlen;
	memcpy(out->build_id, h + 40, idlen);
	return 0;
}

/* ---- build-id: which executable wrote a log ------------------------------------------------ */

struct build_id_search {
	uint8_t *buf;
	size_t len;
};

size_t rp_log_object_build_id(const struct dl_phdr_info *info, uint8_t *buf)
{
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
				size_t len = nh->n_descsz < RP_LOG_BUILD_ID_MAX ? nh->n_descsz
									 : RP_LOG_BUILD_ID_MAX;
				memcpy(buf, np + name, len);
				return len;
			}
			p = np + name + desc;
		}
	}
	return 0;
}

static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct build_id_search *s = data;
	s->len = rp_log_object_build_id(info, s->buf);
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

/* ---- without a build-id: a hash of what the executable loads ---------------------------- */

/* Two 64-bit lanes over the bytes, 8 at a time (multiply and rotate, as in xxHash;
 * not ours to trust against an adversary, only against a program rebuilt). */
struct hash {
	uint64_t a, b, n;
};

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static void hash_bytes(struct hash *h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++, h->n++) {
		uint64_t x = p[i] + (h->n << 8);
		h->a = rotl((h->a ^ x) * 0x9e3779b185ebca87ull, 31);
		h->b = rotl((h->b + x) * 0xc2b2ae3d27d4eb4full, 27) ^ h->a;
	}
}

static uint64_t avalanche(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

int rp_log_code_hash(const char *path, uint8_t *buf)
{
	int fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
	Elf64_Ehdr eh;
	struct hash h = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0};
	uint8_t chunk[65536];
	int rc = -1;
	if (fd < 0)
		return -1;
	if (rp_sys_pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		errno = ENOEXEC;
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (rp_sys_pread(fd, &ph, sizeof ph, eh.e_phoff + i * sizeof ph) != sizeof ph)
			goto out;
		if (ph.p_type != PT_LOAD)
			continue;
		hash_bytes(&h, (const uint8_t *)&ph, sizeof ph);
		for (uint64_t at = 0; at < ph.p_filesz;) {
			size_t want = ph.p_filesz - at < sizeof chunk ? (size_t)(ph.p_filesz - at) : sizeof chunk;
			ssize_t got = rp_sys_pread(fd, chunk, want, ph.p_offset + at);
			if (got <= 0)
				goto out;
			hash_bytes(&h, chunk, (size_t)got);
			at += (uint64_t)got;
		}
	}
	uint64_t x = avalanche(h.a ^ h.n), y = avalanche(h.b + h.a);
	memcpy(buf, &x, 8);
	memcpy(buf + 8, &y, 8);
	rc = 0;
out:
	rp_sys_close(fd);
	return rc;
}

void rp_log_self_identity(struct rp_log_header *h)
{
	h->flags &= (uint16_t)~RP_LOG_F_CODE_HASH;
	if (rp_log_self_build_id(h->build_id, &h->build_id_len) == 0)
		return;
	if (rp_log_code_hash("/proc/self/exe", h->build_id) == 0) {
		h->build_id_len = RP_LOG_CODE_HASH_LEN;
		h->flags |= RP_LOG_F_CODE_HASH;
	}
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

int log_build_id_check(const char *path, const struct rp_log_header *h, char *err,
		       size_t errlen)
{
	struct rp_log_header self = {.flags = 0};
	char a[2 * RP_LOG_BUILD_ID_MAX + 1], b[2 * RP_LOG_BUILD_ID_MAX + 1];
	rp_log_self_identity(&self);
	bool hashed = h->flags & RP_LOG_F_CODE_HASH, self_hashed = self.flags & RP_LOG_F_CODE_HASH;
	if (!h->build_id_len) { /* (a writer of before build-ids and code hashes) */
		log_say(err, errlen, "%s: cannot check the executable: the log has no build-id",
			path);
		return 1;
	}
	if (!self.build_id_len) {
		log_say(err, errlen, "%s: cannot check the executable: it has no build-id and "
			"cannot be read", path);
		return 1;
	}
	if (hashed == self_hashed && self.build_id_len == h->build_id_len &&
	    memcmp(self.build_id, h->build_id, h->build_id_len) == 0)
		return 0;
	hex(a, h->build_id, h->build_id_len);
	hex(b, self.build_id, self.build_id_len);
	if (hashed == self_hashed)
		log_say(err, errlen, "%s was recorded by another executable (%s %s vs %s%s)", path,
			hashed ? "code hash" : "build-id", a, b,
			hashed ? ": without build-ids, hashes of what they load" : "");
	else
		log_say(err, errlen, "%s was recorded by another executable (%s %s vs %s %s: %s)",
			path, hashed ? "code hash" : "build-id", a, self_hashed ? "code hash" : "build-id",
			b, hashed ? "it had no build-id, this one has" : "this one has no build-id");
	return -1;
}
