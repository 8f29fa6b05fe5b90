/* log_crc.c: CRC-32 (IEEE 802.3, as zlib's crc32), which checks the log's header and
 * each of its blocks. */
#include "log/log_impl.h"

/* ---- CRC-32 ---------------------------------------------------------------------- */

static uint32_t crc_table[256];
static volatile int crc_ready;

/* Called by rp_log_create_fd and rp_log_open, so it has run before any signal
 * handler can flush. Rebuilding it concurrently writes the same values. */
void log_crc_init(void)
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
	log_crc_init();
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
