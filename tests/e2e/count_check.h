/* Count checks for the e2e programs: active only in instrumented builds, silent
 * when they hold, so plain and instrumented runs print the same. */
#ifndef COUNT_CHECK_H
#define COUNT_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#ifdef __SICC__
#include <libreplay.h>
static unsigned long long cc_last;
/* The count never goes back, and moved since the last check if `must_move`. */
#define COUNT_CHECK(must_move)                                                        \
	do {                                                                          \
		unsigned long long c_ = rp_sic_count();                               \
		if (c_ < cc_last || ((must_move) && c_ == cc_last)) {                 \
			printf("count check failed at %s:%d: %llu after %llu\n",     \
			       __FILE__, __LINE__, c_, cc_last);                      \
			exit(3);                                                      \
		}                                                                     \
		cc_last = c_;                                                         \
	} while (0)
#else
#define COUNT_CHECK(must_move) ((void)0)
#endif
#endif
