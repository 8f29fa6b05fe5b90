/* log_store.c: what a file read twice costs in the log, through the log's writer and
 * reader alone (no program, no wrappers): each FILE is cut into reads of 64 KiB, each
 * logged as in_fill logs a read (a 24-byte CHUNK input, then the bytes as a BYTES
 * input, a preemption every 4 reads), once and then again, with the INPUT bytes stored
 * as they are (plain), compressed (zstd), by reference (refs) and both (the default).
 * Prints log bytes per byte read for the first and the second reading, and the writer's
 * and the reader's speed in MB of data per second, medians of RUNS runs. The log is
 * read back and compared with the file. bench/logstore.sh runs it.
 *
 *   log_store DIR RUNS FILE...          (logs are written in DIR) */
#include "log/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READ 65536u

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "log_store: %s: %s\n", what, why);
	exit(1);
}

/* Write the log; its size after the first reading and after both into sz. */
static double write_log(const char *path, const uint8_t *data, size_t n, int level, bool refs,
			uint64_t sz[2])
{
	struct rp_log_writer *w;
	char err[RP_LOG_ERRLEN];
	const char *argv[] = {"log_store"};
	struct rp_log_header h = {.quantum_ns = 10000000, .argc = 1, .argv = argv};
	struct rp_log_stats st;
	uint64_t count = 0;
	if (rp_log_create(path, &h, &w, err, sizeof err) < 0)
		die(path, err);
	if (rp_log_set_store(w, level, refs) < 0)
		die(path, "rp_log_set_store");
	double t0 = now();
	for (int pass = 0; pass < 2; pass++) {
		for (size_t at = 0, i = 0; at < n; at += READ, i++) {
			size_t k = n - at < READ ? n - at : READ;
			int64_t chunk[3] = {4, (int64_t)k, 0};
			if (rp_log_input(w, 1, 9, chunk, sizeof chunk) < 0 ||
			    rp_log_input(w, 1, 10, data + at, k) < 0 ||
			    (i % 4 == 3 && rp_log_preempt(w, 1, count += 1000000, 0x4321) < 0))
				die(path, "a record call failed");
			rp_log_maybe_flush(w, (uint64_t)(now() * 1e9));
		}
		rp_log_sync(w);
		rp_log_writer_stats(w, &st);
		sz[pass] = st.bytes;
	}
	struct rp_log_final fin = {1, count};
	if (rp_log_end(w, RP_LOG_EXITED, 0, &fin, 1) < 0 || rp_log_close(w) < 0)
		die(path, "cannot end the log");
	return now() - t0;
}

/* Read it back, comparing; the time taken. */
static double read_log(const char *path, const uint8_t *data, size_t n)
{
	struct rp_log_reader *r;
	struct rp_log_record rec;
	char err[RP_LOG_ERRLEN];
	size_t at = 0, total = 0;
	double t0 = now();
	if (rp_log_open(path, &r, err, sizeof err) < 0)
		die(path, err);
	enum rp_log_status s;
	while ((s = rp_log_next(r, &rec)) == RP_LOG_OK) {
		if (rec.kind != RP_LOG_INPUT || rec.input_kind != 10)
			continue;
		if (at == n)
			at = 0;
		if (rec.len > n - at || memcmp(rec.data, data + at, rec.len))
			die(path, "read back other bytes");
		at += rec.len;
		total += rec.len;
	}
	if (s != RP_LOG_DONE || total != 2 * n)
		die(path, rp_log_error(r));
	rp_log_close_reader(r);
	return now() - t0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: log_store DIR RUNS FILE...\n");
		return 2;
	}
	int runs = atoi(argv[2]);
	if (runs < 1 || runs > 99)
		die(argv[2], "RUNS is 1 to 99");
	static const struct {
		const char *name;
		int level;
		bool refs;
	} ways[] = {{"plain", 0, false}, {"zstd", RP_LOG_ZSTD_LEVEL, false}, {"refs", 0, true},
		    {"zstd+refs", RP_LOG_ZSTD_LEVEL, true}};
	printf("%-10s %-10s %10s %10s %12s %12s\n", "file", "stored", "1st read", "2nd read",
	       "write MB/s", "read MB/s");
	for (int f = 3; f < argc; f++) {
		FILE *in = fopen(argv[f], "rb");
		if (!in)
			die(argv[f], "cannot open");
		fseek(in, 0, SEEK_END);
		size_t n = (size_t)ftell(in);
		rewind(in);
		uint8_t *data = malloc(n ? n : 1);
		if (!data || fread(data, 1, n, in) != n)
			die(argv[f], "cannot read");
		fclose(in);
		const char *base = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
		for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
			char path[4096];
			double tw[99], tr[99];
			uint64_t sz[2];
			snprintf(path, sizeof path, "%s/%s.%s.log", argv[1], base, ways[k].name);
			for (int i = 0; i < runs; i++) {
				tw[i] = write_log(path, data, n, ways[k].level, ways[k].refs, sz);
				tr[i] = read_log(path, data, n);
			}
			printf("%-10s %-10s %10.4f %10.4f %12.0f %12.0f\n", base, ways[k].name,
			       (double)sz[0] / (double)n, (double)(sz[1] - sz[0]) / (double)n,
			       2 * (double)n / median(tw, runs) / 1e6,
			       2 * (double)n / median(tr, runs) / 1e6);
			fflush(stdout);
		}
		free(data);
	}
	return 0;
}
