/* forge: a log with one record changed, its checksums recomputed (the records are coded
 * again by the real writer, under the original header), so the replay sees a log that
 * reads as sound but lies. For the forged-log checks of tests/durability.
 *
 *   forge IN OUT SEED [MUTATION]
 *
 * MUTATION (default: drawn from SEED): count (a PREEMPT's count moved), pc (its PC
 * moved), tid (a record's thread changed), pos (a TIMEOUT's question moved), drop
 * (a record left out), dup (a record twice), swap (two neighbours swapped), kind (an
 * INPUT's kind changed), byte (a byte of an INPUT changed), end (END's status or a
 * final count changed), cut (the records after one left out, and END); not drawn:
 * wildpc (a PREEMPT's PC made one that is no address), clk (the clock of a recorded
 * clock_gettime changed), async16 (the first SIGNAL_AT made the ASYNC_SIGNAL an older
 * recorder wrote for a signal from outside), splitchunk and splitworld (the log cut
 * after the last CHUNK or WORLD input that BYTES follow, before them: a read's result
 * without its data, as a file size limit can leave it), context:FILE (the CONTEXT
 * note made FILE's bytes), endpc:HEX (a hang's END stops its thread at the same count
 * at pc HEX, relative to the executable, as a --timeout that interrupted it there
 * would have). Prints what
 * it changed, one line. Exit 0, or 2 with one line if IN cannot be read. */
#include "log/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RP_LOG_INPUT_PAD
#define RP_LOG_INPUT_PAD 255 /* (a writer without PADs: any kind but this one) */
#endif

struct rec {
	struct rp_log_record r;
	uint8_t *data;            /* INPUT bytes */
	struct rp_log_final *fin; /* END pairs */
	struct rp_log_wait *waits; /* END of a deadlock or a hang: the threads' states */
};

static struct rec *recs;
static size_t n, cap;

static uint64_t rng;

static uint64_t rnd(void)
{
	rng += 0x9e3779b97f4a7c15ull;
	uint64_t z = rng;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t k)
{
	return k ? rnd() % k : 0;
}

static void *xmalloc(size_t k)
{
	void *p = malloc(k ? k : 1);
	if (!p) {
		fputs("forge: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static void keep(const struct rp_log_record *r)
{
	if (n == cap) {
		cap = cap ? 2 * cap : 1024;
		recs = realloc(recs, cap * sizeof *recs);
		if (!recs) {
			fputs("forge: out of memory\n", stderr);
			exit(2);
		}
	}
	struct rec *k = &recs[n++];
	k->r = *r;
	k->data = xmalloc(r->len);
	memcpy(k->data, r->data, r->len);
	k->r.data = k->data;
	k->fin = xmalloc(r->nthreads * sizeof *k->fin);
	memcpy(k->fin, r->threads, r->nthreads * sizeof *k->fin);
	k->r.threads = k->fin;
	k->waits = xmalloc(r->outcome.nwaits * sizeof *k->waits);
	memcpy(k->waits, r->outcome.waits, r->outcome.nwaits * sizeof *k->waits);
	k->r.outcome.waits = k->waits;
}

/* The first SIGNAL_AT input (kind 34, 145 bytes); -1 if there is none. */
static long first_signal_at(void)
{
	for (size_t i = 0; i < n; i++)
		if (recs[i].r.kind == RP_LOG_INPUT && recs[i].r.input_kind == 34 && recs[i].r.len == 145)
			return (long)i;
	return -1;
}

/* A record of kind (0: any) at random; -1 if there is none. */
static long pick(enum rp_log_kind kind)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += !kind || recs[i].r.kind == kind;
	if (!m)
		return -1;
	size_t want = below(m);
	for (size_t i = 0; i < n; i++)
		if ((!kind || recs[i].r.kind == kind) && want-- == 0)
			return (long)i;
	return -1;
}

/* A random INPUT record of that input kind, or -1. */
static long pick_input(int input_kind)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += recs[i].r.kind == RP_LOG_INPUT && recs[i].r.input_kind == input_kind;
	if (!m)
		return -1;
	size_t want = below(m);
	for (size_t i = 0; i < n; i++)
		if (recs[i].r.kind == RP_LOG_INPUT && recs[i].r.input_kind == input_kind && want-- == 0)
			return (long)i;
	return -1;
}

/* The last INPUT of that kind (CHUNK 9, WORLD 41) that BYTES (10) follow, or -1. */
static long last_split(int input_kind)
{
	for (size_t i = n; i-- > 1;)
		if (recs[i].r.kind == RP_LOG_INPUT && recs[i].r.input_kind == 10 &&
		    recs[i - 1].r.kind == RP_LOG_INPUT && recs[i - 1].r.input_kind == input_kind)
			return (long)i - 1;
	return -1;
}

/* A change of a 64-bit value: small, large, or anywhere. */
static uint64_t moved(uint64_t v)
{
	switch (below(4)) {
	case 0: return v + 1 + below(3);
	case 1: return v - 1 - below(3);
	case 2: return v + below(2000001) - 1000000;
	default: return rnd() >> below(64);
	}
}

static const char *mutate(const char *what, char *say, size_t len)
{
	long i;
	if (!strcmp(what, "count") && (i = pick(RP_LOG_PREEMPT)) >= 0) {
		recs[i].r.count = moved(recs[i].r.count);
		snprintf(say, len, "record %ld: PREEMPT count now %llu", i + 1,
			 (unsigned long long)recs[i].r.count);
	} else if (!strcmp(what, "pc") && (i = pick(RP_LOG_PREEMPT)) >= 0) {
		recs[i].r.pc = moved(recs[i].r.pc);
		snprintf(say, len, "record %ld: PREEMPT pc now %#llx", i + 1, (unsigned long long)recs[i].r.pc);
	} else if (!strcmp(what, "wildpc") && (i = pick(RP_LOG_PREEMPT)) >= 0) {
		recs[i].r.pc = 0xcb727616d02dcaull; /* no address: the kernel refuses a breakpoint */
		snprintf(say, len, "record %ld: PREEMPT pc now %#llx", i + 1, (unsigned long long)recs[i].r.pc);
	} else if (!strcmp(what, "clk") && (i = pick_input(2)) >= 0 && recs[i].r.len >= 4) {
		recs[i].data[0] ^= 1; /* a clock_gettime's clock id (INPUT kind 2): another clock */
		snprintf(say, len, "record %ld: clock_gettime of clock %d", i + 1, recs[i].data[0]);
	} else if (!strcmp(what, "tid") && (i = pick(0)) >= 0 && recs[i].r.kind != RP_LOG_END) {
		recs[i].r.tid = (uint32_t)(below(3) ? recs[i].r.tid + 1 + below(3) : below(8));
		snprintf(say, len, "record %ld: thread now %u", i + 1, recs[i].r.tid);
	} else if (!strcmp(what, "pos") && (i = pick(RP_LOG_TIMEOUT)) >= 0) {
		recs[i].r.pos = moved(recs[i].r.pos);
		snprintf(say, len, "record %ld: TIMEOUT question now %llu", i + 1,
			 (unsigned long long)recs[i].r.pos);
	} else if (!strcmp(what, "drop") && (i = pick(0)) >= 0) {
		snprintf(say, len, "record %ld (kind %d) left out", i + 1, recs[i].r.kind);
		memmove(&recs[i], &recs[i + 1], (n - (size_t)i - 1) * sizeof *recs);
		n--;
	} else if (!strcmp(what, "dup") && (i = pick(0)) >= 0 && recs[i].r.kind != RP_LOG_END) {
		keep(&recs[i].r); /* at the end, then moved next to it */
		struct rec c = recs[n - 1];
		memmove(&recs[i + 1], &recs[i], (n - 1 - (size_t)i) * sizeof *recs);
		recs[i + 1] = c;
		snprintf(say, len, "record %ld (kind %d) twice", i + 1, recs[i].r.kind);
	} else if (!strcmp(what, "swap") && n > 2 && (i = (long)below(n - 2)) >= 0) {
		struct rec c = recs[i];
		recs[i] = recs[i + 1];
		recs[i + 1] = c;
		snprintf(say, len, "records %ld and %ld swapped", i + 1, i + 2);
	} else if (!strcmp(what, "kind") && (i = pick(RP_LOG_INPUT)) >= 0) {
		recs[i].r.input_kind = (uint8_t)below(RP_LOG_INPUT_PAD);
		snprintf(say, len, "record %ld: INPUT kind now %u", i + 1, recs[i].r.input_kind);
	} else if (!strcmp(what, "byte") && (i = pick(RP_LOG_INPUT)) >= 0 && recs[i].r.len) {
		uint32_t at = (uint32_t)below(recs[i].r.len);
		recs[i].data[at] ^= (uint8_t)(1 + below(255));
		snprintf(say, len, "record %ld: INPUT byte %u changed", i + 1, at);
	} else if (!strcmp(what, "end") && (i = pick(RP_LOG_END)) >= 0) {
		if (recs[i].r.nthreads && below(2)) {
			uint32_t k = (uint32_t)below(recs[i].r.nthreads);
			recs[i].fin[k].count = moved(recs[i].fin[k].count);
			snprintf(say, len, "END: thread %u's final count now %llu", recs[i].fin[k].tid,
				 (unsigned long long)recs[i].fin[k].count);
		} else {
			recs[i].r.value ^= 1 + (int)below(7);
			snprintf(say, len, "END: value now %d", recs[i].r.value);
		}
	} else if (!strncmp(what, "endpc:", 6) && (i = pick(RP_LOG_END)) >= 0 &&
		   recs[i].r.outcome.stop_tid) {
		recs[i].r.outcome.stop_pc = strtoull(what + 6, NULL, 16);
		snprintf(say, len, "END: the hang stops thread %u at count %llu, pc %#llx",
			 recs[i].r.outcome.stop_tid, (unsigned long long)recs[i].r.outcome.stop_count,
			 (unsigned long long)recs[i].r.outcome.stop_pc);
	} else if (!strcmp(what, "async16") && (i = first_signal_at()) >= 0) {
		/* what recorders before SIGNAL_AT wrote: the signal, si_code, si_pid */
		int32_t v[3] = {0, 0, 0};
		memcpy(&v[0], recs[i].data + 17, 4);     /* siginfo's si_signo */
		memcpy(&v[1], recs[i].data + 17 + 8, 4); /* si_code */
		memcpy(&v[2], recs[i].data + 17 + 16, 4); /* si_pid */
		recs[i].r.input_kind = 16;
		recs[i].r.len = sizeof v;
		memcpy(recs[i].data, v, sizeof v);
		snprintf(say, len, "record %ld: SIGNAL_AT made an ASYNC_SIGNAL of signal %d", i + 1,
			 (int)v[0]);
	} else if ((!strcmp(what, "splitchunk") || !strcmp(what, "splitworld")) &&
		   (i = last_split(what[5] == 'c' ? 9 : 41)) >= 0) {
		n = (size_t)i + 1;
		snprintf(say, len, "records after %zu (a read's result, before its bytes) left out", n);
	} else if (!strncmp(what, "context:", 8) && (i = pick_input(31)) >= 0) {
		FILE *f = fopen(what + 8, "rb");
		uint8_t *note = xmalloc(65536);
		size_t got = f ? fread(note, 1, 65536, f) : 0;
		if (f)
			fclose(f);
		recs[i].data = note;
		recs[i].r.data = note;
		recs[i].r.len = (uint32_t)got;
		snprintf(say, len, "record %ld: CONTEXT now %zu bytes of %s", i + 1, got, what + 8);
	} else if (!strcmp(what, "cut") && n > 1) {
		n = 1 + below(n - 1);
		snprintf(say, len, "records after %zu left out", n);
	} else {
		return NULL;
	}
	return say;
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = {"count", "pc", "tid", "pos", "drop", "dup",
					    "swap", "kind", "byte", "end", "cut"};
	struct rp_log_reader *r;
	struct rp_log_writer *w;
	struct rp_log_record rec;
	char err[RP_LOG_ERRLEN], say[160];
	if (argc < 4 || argc > 5) {
		fputs("usage: forge IN OUT SEED [MUTATION]\n", stderr);
		return 2;
	}
	rng = strtoull(argv[3], NULL, 10);
	if (rp_log_open(argv[1], &r, err, sizeof err) != 0) {
		fprintf(stderr, "forge: %s\n", err);
		return 2;
	}
	while (rp_log_next(r, &rec) == RP_LOG_OK)
		keep(&rec);
	const char *done = NULL;
	for (int tries = 0; !done && tries < 100; tries++)
		done = mutate(argc == 5 ? argv[4] : kinds[below(sizeof kinds / sizeof kinds[0])], say,
			      sizeof say);
	if (!done) {
		fprintf(stderr, "forge: %s: nothing to change that way\n", argv[1]);
		return 2;
	}
	if (rp_log_create(argv[2], rp_log_header(r), &w, err, sizeof err) != 0) {
		fprintf(stderr, "forge: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_log_record *x = &recs[i].r;
		int rc = x->kind == RP_LOG_PREEMPT ? rp_log_preempt(w, x->tid, x->count, x->pc)
			 : x->kind == RP_LOG_TIMEOUT ? rp_log_timeout(w, x->tid, x->pos)
			 : x->kind == RP_LOG_INPUT ? rp_log_input(w, x->tid, x->input_kind, x->data, x->len)
			 : x->kind == RP_LOG_THREAD_END ? rp_log_thread_end(w, x->tid, x->count)
			 : x->how == RP_LOG_DEADLOCK || x->how == RP_LOG_HANG
			 ? rp_log_end_outcome(w, x->how, x->value, x->threads, x->nthreads, &x->outcome)
			 : rp_log_end(w, x->how, x->value, x->threads, x->nthreads);
		if (rc != 0 && x->kind == RP_LOG_END)
			break; /* (END moved before other records: what follows is dropped) */
	}
	if (rp_log_close(w) != 0) {
		fprintf(stderr, "forge: %s: cannot write\n", argv[2]);
		return 2;
	}
	rp_log_close_reader(r);
	printf("%s\n", say);
	return 0;
}
