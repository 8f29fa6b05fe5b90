/* libreplay.h: the public interface of libreplay.
 *
 * Programs built with sicc need none of this: their main() is wrapped and their
 * code counts by itself. These calls are for programs and tests that want to look
 * at the software instruction counter (SIC) directly. */
#ifndef LIBREPLAY_H
#define LIBREPLAY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's SIC count: how many counting points (backward branches,
 * calls, indirect and tail jumps) it has passed since it started. Monotonic. */
uint64_t rp_sic_count(void);

#ifdef __cplusplus
}
#endif
#endif
