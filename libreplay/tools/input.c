/* input.c: INPUT records in words. The layouts are the runtime's (engine/session.h codes,
 * in_clock.c and io_park.c structures); a size that does not fit the kind prints as hex. */
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "engine/session.h"

static void hex(const uint8_t *p, size_t n, char *out, size_t outlen)
{
	size_t show = n > 32 ? 32 : n, k = 0;
	out[0] = 0;
	for (size_t i = 0; i < show && k + 3 < outlen; i++)
		k += (size_t)snprintf(out + k, outlen - k, "%02x", p[i]);
	if (show < n && k + 4 < outlen)
		snprintf(out + k, outlen - k, "...");
}

void rp_dump_input(unsigned kind, const uint8_t *d, size_t len, char *out, size_t outlen)
{
	int64_t a, b;
	int32_t w[4];
	switch (kind) {
	case RP_INPUT_SCHED_CLOCK:
	case RP_INPUT_TIMESTAMP:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "%s %lld.%09lld s", kind == RP_INPUT_TIMESTAMP ? "timestamp" : "sleep clock",
			 (long long)(a / 1000000000), (long long)(a % 1000000000));
		return;
	case RP_INPUT_CLOCK_GETTIME: /* int32 clock, rc, errno, pad; struct timespec */
		if (len != 32)
			break;
		memcpy(w, d, 16);
		memcpy(&a, d + 16, 8);
		memcpy(&b, d + 24, 8);
		if (w[1])
			snprintf(out, outlen, "clock_gettime(%d) failed, errno %d", w[0], w[2]);
		else
			snprintf(out, outlen, "clock_gettime(%d) = %lld.%09lld s", w[0], (long long)a, (long long)b);
		return;
	case RP_INPUT_GETTIMEOFDAY: /* struct timeval */
		if (len != 16)
			break;
		memcpy(&a, d, 8);
		memcpy(&b, d + 8, 8);
		snprintf(out, outlen, "gettimeofday = %lld.%06lld s", (long long)a, (long long)b);
		return;
	case RP_INPUT_TIME:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, "time = %lld", (long long)a);
		return;
	case RP_INPUT_IO_READY:
	case RP_INPUT_IO_BLOCK:
		if (len != 8)
			break;
		memcpy(&a, d, 8);
		snprintf(out, outlen, kind == RP_INPUT_IO_READY ? "io ready: question %lld" :
			 "io block: try %lld", (long long)a);
		return;
	case RP_INPUT_LAYOUT: /* u32 flags, i32 errno, u64 exe, heap, libc, stack end, vdso */
		if (len < 48)
			break;
		memcpy(w, d, 8);
		uint64_t at[5];
		memcpy(at, d + 8, sizeof at);
		snprintf(out, outlen, "layout: ASLR %s%s%s, exe %#llx heap %#llx libc %#llx stack end "
			 "%#llx vdso %#llx", w[0] & 1 ? "on" : "off", w[0] & 2 ? ", valgrind" : "",
			 w[1] ? ", personality failed" : "", (unsigned long long)at[0],
			 (unsigned long long)at[1], (unsigned long long)at[2],
			 (unsigned long long)at[3], (unsigned long long)at[4]);
		return;
	case RP_INPUT_IO_COUNT: /* u64 try, i64 count or -errno */
		if (len != 16)
			break;
		memcpy(&a, d, 8);
		memcpy(&b, d + 8, 8);
		if (b < 0)
			snprintf(out, outlen, "io count: try %lld failed, errno %lld", (long long)a,
				 (long long)-b);
		else
			snprintf(out, outlen, "io count: try %lld moved %lld bytes", (long long)a,
				 (long long)b);
		return;
	}
	char h[80];
	hex(d, len, h, sizeof h);
	snprintf(out, outlen, "%s", len ? h : "(empty)");
}
