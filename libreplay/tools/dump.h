/* dump.h: replay-dump's parts. */
#ifndef RP_DUMP_H
#define RP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* input.c: an INPUT record's value in words ("clock 1: 12.000000345 s"); kinds this
 * tool does not know (other engineers add them) as their bytes in hex. */
void rp_dump_input(unsigned kind, const uint8_t *data, size_t len, char *out, size_t outlen);

/* timeline.c: draw a schedule trace as SVG into out (NULL: stdout), x being the
 * logical clock, wall time or the switch number. Returns the exit status; errors are
 * one line on stderr. */
enum rp_xaxis { RP_X_CLOCK, RP_X_TIME, RP_X_SWITCH };
struct rp_sym;
struct rp_log_record;
/* With the log the trace came from (sym, recs: else NULL): preemptions get the
 * function and line they struck at. */
int rp_timeline(const char *trace, const char *out, enum rp_xaxis xaxis, struct rp_sym *sym,
		const struct rp_log_record *recs, size_t nrecs);

#endif
