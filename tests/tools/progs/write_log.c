/* Writes a log by hand (built with gcc against libreplay/log/log.c): INPUT records of a
 * kind replay-dump does not know, and one of a known kind with the wrong size, so the
 * test can see how they print; or, given an OBJECTS note (kind 40: docs/log-format.md)
 * and a PC, that note and a PREEMPT at the PC (in an object the note names).
 * Usage: write_log FILE [NOTE PC] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"

int main(int argc, char **argv)
{
	struct rp_log_writer *w;
	struct rp_log_header h;
	char err[RP_LOG_ERRLEN];
	memset(&h, 0, sizeof h); /* no build-id: replay-dump cannot check, and says so */
	h.argc = argc;
	h.argv = (const char *const *)argv;
	if (argc < 2 || rp_log_create(argv[1], &h, &w, err, sizeof err) != 0)
		return 1;
	if (argc == 4) {
		struct rp_log_final f = {1, 1};
		return rp_log_input(w, 1, 40, argv[2], strlen(argv[2])) ||
		       rp_log_preempt(w, 1, 1, strtoull(argv[3], NULL, 0)) || rp_log_end(w, 0, 0, &f, 1) ||
		       rp_log_close(w);
	}
	static const unsigned char odd[] = {0x01, 0x02, 0xff};
	long long t = 1234567890;
	struct rp_log_final f = {1, 42};
	if (rp_log_input(w, 1, 17, odd, sizeof odd) || rp_log_input(w, 2, 29, "", 0) ||
	    rp_log_input(w, 1, 4, &t, sizeof t) || rp_log_input(w, 1, 4, odd, sizeof odd) ||
	    rp_log_end(w, 0, 0, &f, 1) || rp_log_close(w))
		return 1;
	return 0;
}
