/* replay.h: the session: options, recording, replaying (replay.c, options.c). */
#ifndef RP_REPLAY_H
#define RP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "green.h"

enum rp_mode { RP_MODE_RECORD, RP_MODE_REPLAY, RP_MODE_OFF };

#define RP_DEFAULT_QUANTUM_NS 10000000ull /* 10 ms */
#define RP_MIN_QUANTUM_NS 50000ull        /* 50 us */
#define RP_DEFAULT_LOG "log.bin"

/* Exit statuses of our own (the program's are passed through). */
#define RP_EXIT_USAGE 2     /* bad flags, unreadable or foreign log */
#define RP_EXIT_DIVERGED 86 /* replay did not follow the log */

/* INPUT record kinds. */
#define RP_INPUT_SCHED_CLOCK 1 /* the clock read to turn a sleep into a deadline */
#define RP_INPUT_CLOCK_GETTIME 2 /* the program's clock_gettime: clock, result, time */
#define RP_INPUT_GETTIMEOFDAY 3
#define RP_INPUT_TIME 4
/* The runtime's monotonic clock, ns (u64), about every second of a recording, for
 * tools (replay-dump's preemptions per second); replay skips these records. */
#define RP_INPUT_TIMESTAMP 30

struct rp_options {
	enum rp_mode mode;
	const char *log_path;
	uint64_t quantum_ns;
	bool chaos;
	uint64_t seed;
	const char *trace_path; /* --trace-schedule: every switch, for the timeline */
};
extern struct rp_options rp_opts;

/* options.c: take our flags off the front of argv (and LIBREPLAY_OPTS); exits with a
 * one-line message on a bad one. */
void rp_options_parse(int *argc, char **argv);
/* replay.c */
void rp_session_start(int *argc, char ***argv, struct sched_hooks *h);
/* A value a recorded call returned. Replaying: fills buf from the log and returns
 * true (a different call is a divergence). Otherwise false; then, recording,
 * rp_input_record logs what the real call gave. */
bool rp_input_replay(uint8_t kind, void *buf, size_t len);
void rp_input_record(uint8_t kind, const void *buf, size_t len);

#endif
