/* dump.h: replay-dump's parts. */
#ifndef RP_DUMP_H
#define RP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* input.c: an INPUT record's value in words ("clock 1: 12.000000345 s"); kinds this
 * tool does not know (other engineers add them) as their bytes in hex. */
void rp_dump_input(unsigned kind, const uint8_t *data, size_t len, char *out, size_t outlen);

/* timeline.c: draw a schedule trace as SVG into out (NULL: stdout). Returns the exit
 * status; errors are one line on stderr. */
int rp_timeline(const char *trace, const char *out, bool wall);

#endif
