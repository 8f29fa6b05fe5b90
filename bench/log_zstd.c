/* log_zstd.c: how the log compresses INPUT bytes, measured (docs/log-format.md,
 * "Compression"): for one file, each zstd level, the file cut into reads of one size
 * compressed one read at a time (per record: what the log does), several reads
 * together (per block of 256 KiB: what a log of large compressed blocks would do), and
 * the whole file as one stream (the best any framing can do). Prints output bytes per
 * input byte and MB/s of input; the median of RUNS runs. Not a test: bench/logsize.sh.
 *
 *   log_zstd FILE [READ_BYTES [RUNS]]                   (65536, 3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Compress data in pieces of `piece` bytes, each alone; output bytes. */
static size_t pieces(ZSTD_CCtx *c, int level, const char *data, size_t n, size_t piece,
		     char *out, size_t cap)
{
	size_t total = 0;
	for (size_t at = 0; at < n; at += piece) {
		size_t len = n - at < piece ? n - at : piece;
		size_t k = ZSTD_compressCCtx(c, out, cap, data + at, len, level);
		if (ZSTD_isError(k)) {
			fprintf(stderr, "log_zstd: %s\n", ZSTD_getErrorName(k));
			exit(1);
		}
		total += k < len ? k : len; /* the log stores a piece plain when that is shorter */
	}
	return total;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: log_zstd FILE [READ_BYTES [RUNS]]\n");
		return 2;
	}
	size_t rd = argc > 2 ? strtoul(argv[2], NULL, 0) : 65536;
	int runs = argc > 3 ? atoi(argv[3]) : 3;
	FILE *f = fopen(argv[1], "rb");
	if (!f || !rd || runs < 1) {
		perror(argv[1]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	size_t n = (size_t)ftell(f);
	rewind(f);
	char *data = malloc(n + 1), *out = malloc(ZSTD_compressBound(n));
	if (!data || !out || fread(data, 1, n, f) != n) {
		fprintf(stderr, "log_zstd: cannot read %s\n", argv[1]);
		return 2;
	}
	ZSTD_CCtx *c = ZSTD_createCCtx();
	static const int levels[] = {-5, -1, 1, 2, 3, 6, 9}; /* 19: 1 MB/s, too slow to run here */
	static const char *const how[] = {"per record", "per 256K block", "one stream"};
	size_t piece[3] = {rd, (256u << 10) / rd * rd ? (256u << 10) / rd * rd : rd, n};
	printf("%s: %zu bytes, reads of %zu\n", argv[1], n, rd);
	printf("%6s  %-15s %10s %10s\n", "level", "framing", "out/in", "MB/s");
	for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
		for (int h = 0; h < 3; h++) {
			double t[64], size = 0;
			for (int r = 0; r < runs && r < 64; r++) {
				double t0 = now();
				size = (double)pieces(c, levels[l], data, n, piece[h], out,
						      ZSTD_compressBound(n));
				t[r] = now() - t0;
			}
			qsort(t, (size_t)(runs < 64 ? runs : 64), sizeof *t, cmp);
			printf("%6d  %-15s %10.4f %10.0f\n", levels[l], how[h], size / n,
			       n / t[runs / 2] / 1e6);
		}
	}
	ZSTD_freeCCtx(c);
	return 0;
}
