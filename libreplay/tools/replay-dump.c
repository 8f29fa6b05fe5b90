/* replay-dump: what a replay log holds, readable (docs/tools.md).
 *
 *   replay-dump [--json] [--summary] [--exe PATH] LOG [EXE]
 *   replay-dump --timeline TRACE [-o OUT.svg] [--time | --by-switch] [LOG [EXE]]
 *   replay-dump --where EXE PC...
 *
 * The header, every record (PREEMPT PCs as function+offset and file:line, from the
 * executable through libbfd, or from the shared object the log's OBJECTS notes put
 * them in: object!function+offset), per-thread totals, bytes per record and preemptions per
 * second. The executable is EXE, --exe, or the recorded argv[0]; its build-id must be
 * the log's. Exit 0 for a complete log; 1 (after printing what it holds) for one cut
 * short or damaged; 2 for bad usage, an unreadable log or the wrong executable. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "log/log.h"
#include "engine/session.h"
#include "sym.h"

static const char *prog = "replay-dump";

static _Noreturn void die(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void die(int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(rc);
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: %s [--json] [--summary] [--exe PATH] LOG [EXE]\n"
		"       %s --timeline TRACE [-o OUT.svg] [--time | --by-switch] [LOG [EXE]]\n"
		"       %s --where EXE PC...\n"
		"  LOG          a replay log (./app --record LOG)\n"
		"  EXE, --exe   the executable that recorded it (default: the recorded argv[0])\n"
		"  --json       the same, as one JSON object\n"
		"  --summary    header and totals only, no records\n"
		"  --timeline   draw a schedule trace (./app --replay LOG --trace-schedule TRACE)\n"
		"               as an SVG (-o, default stdout); x = the logical clock (counts),\n"
		"               wall time with --time, the switch number with --by-switch;\n"
		"               with LOG, preemptions are labelled with where they struck\n"
		"  --where EXE PC...  each PC (offset from the load base) as the records show it\n",
		prog, prog, prog);
	exit(rc);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(2, "out of memory");
	return p;
}

/* ---- reading --------------------------------------------------------------------- */

static struct rp_log_record *recs;
static size_t nrecs;

static void read_all(struct rp_log_reader *r, enum rp_log_status *st)
{
	size_t cap = 0;
	struct rp_log_record rec;
	while ((*st = rp_log_next(r, &rec)) == RP_LOG_OK) {
		if (nrecs == cap) {
			cap = cap ? 2 * cap : 1024;
			recs = xrealloc(recs, cap * sizeof *recs);
		}
		/* The reader lends data and threads until its next call. */
		if (rec.kind == RP_LOG_INPUT)
			rec.data = memcpy(xrealloc(NULL, rec.len), rec.data, rec.len);
		else if (rec.kind == RP_LOG_END)
			rec.threads = memcpy(xrealloc(NULL, rec.nthreads * sizeof *rec.threads),
					     rec.threads, rec.nthreads * sizeof *rec.threads);
		recs[nrecs++] = rec;
	}
}

/* The file's layout, from its own header fields: the reader checked them already. */
struct layout {
	uint64_t file, header, blocks, block_bytes;
};

static void read_layout(const char *path, struct layout *l)
{
	memset(l, 0, sizeof *l);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	uint8_t b[24];
	if (fd < 0 || fstat(fd, &sb) != 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	l->file = (uint64_t)sb.st_size;
	uint32_t h = 0, p;
	if (pread(fd, b, 16, 0) == 16)
		memcpy(&h, b + 12, 4);
	l->header = h;
	for (uint64_t off = h; off + 24 <= l->file; off += 24 + (uint64_t)p) {
		if (pread(fd, b, 24, (off_t)off) != 24 || memcmp(b, "RPBK", 4))
			break;
		memcpy(&p, b + 8, 4);
		l->blocks++;
		l->block_bytes += 24 + (uint64_t)p;
	}
	close(fd);
}

/* ---- per-thread totals ------------------------------------------------------------ */

struct tstat {
	uint32_t tid;
	uint64_t n[6]; /* by enum rp_log_kind; [0] = all */
};
static struct tstat *tstats;
static size_t ntstats;
static uint64_t kind_total[6];
static uint64_t stamp_first, stamp_last, nstamps;

static int by_tid(const void *a, const void *b)
{
	const struct tstat *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* What of the program's inputs the log holds (docs/replay.md, "What a log holds"):
 * the bytes calls on the world gave (files, directories, sockets, pipes: WORLD, then
 * BYTES), random bytes (getrandom, /dev/urandom...: CHUNK, then BYTES) and the
 * environment's names (the CONTEXT note's env lines; values are not in the log). */
static uint64_t world_calls, world_bytes, random_calls, random_bytes, env_names;

static void count_inputs(void)
{
	int head = 0; /* the kind whose BYTES follow */
	for (size_t i = 0; i < nrecs; i++) {
		const struct rp_log_record *r = &recs[i];
		if (r->kind != RP_LOG_INPUT)
			continue;
		if (r->input_kind == RP_INPUT_WORLD || r->input_kind == RP_INPUT_CHUNK) {
			head = r->input_kind;
			*(head == RP_INPUT_WORLD ? &world_calls : &random_calls) += 1;
		} else if (r->input_kind == RP_INPUT_BYTES) {
			*(head == RP_INPUT_WORLD ? &world_bytes : &random_bytes) += r->len;
		} else if (r->input_kind == RP_INPUT_CONTEXT) {
			for (const char *p = (const char *)r->data, *end = p + r->len; p + 4 <= end;) {
				env_names += !memcmp(p, "env\t", 4);
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				p = nl ? nl + 1 : end;
			}
		}
	}
}

static void count_all(void)
{
	/* one entry per record with a thread, sorted by tid, then merged */
	struct tstat *all = xrealloc(NULL, nrecs * sizeof *all);
	size_t n = 0;
	for (size_t i = 0; i < nrecs; i++) {
		const struct rp_log_record *r = &recs[i];
		kind_total[r->kind]++;
		kind_total[0]++;
		if (r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_TIMESTAMP && r->len == 8) {
			uint64_t v;
			memcpy(&v, r->data, 8);
			if (!nstamps++)
				stamp_first = v;
			stamp_last = v;
		}
		if (r->kind == RP_LOG_END)
			continue;
		all[n] = (struct tstat){.tid = r->tid};
		all[n].n[r->kind] = all[n].n[0] = 1;
		n++;
	}
	qsort(all, n, sizeof *all, by_tid);
	for (size_t i = 0; i < n; i++) {
		if (!ntstats || tstats[ntstats - 1].tid != all[i].tid) {
			tstats = xrealloc(tstats, (ntstats + 1) * sizeof *tstats);
			tstats[ntstats++] = (struct tstat){.tid = all[i].tid};
		}
		for (int k = 0; k < 6; k++)
			tstats[ntstats - 1].n[k] += all[i].n[k];
	}
	free(all);
}

/* ---- printing ---------------------------------------------------------------------- */

static bool json;

/* s as a JSON string (or null). */
static void jstr(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static const char *kind_name(enum rp_log_kind k)
{
	static const char *const names[] = {"?", "PREEMPT", "TIMEOUT", "INPUT", "THREAD_END", "END"};
	return k >= 1 && k <= 5 ? names[k] : "?";
}

static const char *end_how(int how)
{
	static const char *const names[] = {"exited", "signaled", "deadlock", "hang", "exec"};
	return how >= 0 && how <= RP_LOG_EXECED ? names[how] : "?";
}

/* A deadlock's or a hang's threads: where the running one stopped, each one's state. */
static void print_outcome(const struct rp_log_outcome *o)
{
	static const char *const states[] = {"runnable", "running", "blocked", "exited", "abandoned"};
	if (o->stop_tid)
		printf("\n            stopped t%u at count %llu, pc %#llx", o->stop_tid,
		       (unsigned long long)o->stop_count, (unsigned long long)o->stop_pc);
	for (uint32_t i = 0; i < o->nwaits; i++) {
		const struct rp_log_wait *w = &o->waits[i];
		printf("\n            t%u %s", w->tid, w->state < 5 ? states[w->state] : "?");
		if (w->obj)
			printf(", waits (kind %u) on %#llx", w->kind, (unsigned long long)w->obj);
		if (w->owner)
			printf(" held by t%u", w->owner);
		for (uint32_t k = 0; k < w->nheld && k < RP_LOG_HELD_MAX; k++)
			printf("%s%#llx", k ? ", " : "; holds ", (unsigned long long)w->held[k]);
	}
}

static void print_record(size_t i, struct rp_sym *sym)
{
	const struct rp_log_record *r = &recs[i];
	if (json)
		printf("%s{\"n\":%zu,\"kind\":\"%s\"", i ? ",\n" : "\n", i + 1, kind_name(r->kind));
	else
		printf("%7zu  ", i + 1);
	if (r->kind != RP_LOG_END) {
		if (json)
			printf(",\"tid\":%u", r->tid);
		else
			printf("t%-4u %-10s ", r->tid, kind_name(r->kind));
	}
	switch (r->kind) {
	case RP_LOG_PREEMPT: {
		struct rp_sym_loc loc;
		rp_sym_lookup(sym, r->pc, &loc);
		if (json) {
			printf(",\"count\":%llu,\"pc\":%llu,\"func\":", (unsigned long long)r->count,
			       (unsigned long long)r->pc);
			jstr(loc.func);
			printf(",\"off\":%llu,\"file\":", (unsigned long long)loc.off);
			jstr(loc.file);
			printf(",\"line\":%u", loc.line);
			if (loc.object || loc.nowhere) {
				printf(",\"object\":");
				jstr(loc.object);
				printf(",\"object_read\":%s", loc.object && !loc.unread ? "true" : "false");
			}
			if (loc.inlined) {
				printf(",\"inlined\":");
				jstr(loc.inlined);
				printf(",\"call_file\":");
				jstr(loc.call_file);
				printf(",\"call_line\":%u", loc.call_line);
			}
			break;
		}
		char where[600];
		rp_sym_format(&loc, false, where, sizeof where);
		printf("count %-12llu pc %#-8llx %s", (unsigned long long)r->count,
		       (unsigned long long)r->pc, where);
		break;
	}
	case RP_LOG_TIMEOUT:
		printf(json ? ",\"pos\":%llu" : "question %llu", (unsigned long long)r->pos);
		break;
	case RP_LOG_THREAD_END:
		printf(json ? ",\"count\":%llu" : "count %llu", (unsigned long long)r->count);
		break;
	case RP_LOG_INPUT: {
		char what[160];
		rp_dump_input(r->input_kind, r->data, r->len, what, sizeof what);
		if (json) {
			printf(",\"input_kind\":%u,\"len\":%u,\"value\":", r->input_kind, r->len);
			jstr(what);
			printf(",\"hex\":\"");
			hex(r->data, r->len);
			putchar('"');
		} else {
			printf("kind %-2u %5u bytes  %s", r->input_kind, r->len, what);
		}
		break;
	}
	case RP_LOG_END:
		if (json) {
			printf(",\"how\":\"%s\",\"value\":%d,\"threads\":[", end_how(r->how), r->value);
			for (uint32_t k = 0; k < r->nthreads; k++)
				printf("%s{\"tid\":%u,\"count\":%llu}", k ? "," : "", r->threads[k].tid,
				       (unsigned long long)r->threads[k].count);
			putchar(']');
			break;
		}
		if (r->how == RP_LOG_EXITED)
			printf("END         exit status %d;", r->value);
		else if (r->how == RP_LOG_SIGNALED)
			printf("END         killed by signal %d (SIG%s);", r->value,
			       sigabbrev_np(r->value) ? sigabbrev_np(r->value) : "?");
		else if (r->how == RP_LOG_EXECED)
			printf("END         exec (the process image was replaced);");
		else
			printf("END         %s (exit status %d);", end_how(r->how), r->value);
		printf(" final counts:");
		for (uint32_t k = 0; k < r->nthreads; k++)
			printf(" t%u=%llu", r->threads[k].tid, (unsigned long long)r->threads[k].count);
		if (r->how == RP_LOG_DEADLOCK || r->how == RP_LOG_HANG)
			print_outcome(&r->outcome);
		break;
	}
	if (json)
		putchar('}');
	else
		putchar('\n');
}

/* --where EXE PC...: each PC (an offset from the load base, as the log's) as the
 * records show it, one line each. */
static int where_main(int argc, char **argv)
{
	if (argc < 4)
		usage(2);
	struct rp_sym *sym;
	char err[512], buf[600];
	if (rp_sym_open(argv[2], &sym, err, sizeof err) != 0)
		die(2, "%s", err);
	for (int i = 3; i < argc; i++) {
		char *end;
		errno = 0;
		unsigned long long pc = strtoull(argv[i], &end, 0);
		if (errno || *end || end == argv[i])
			die(2, "--where: '%s' is not an address", argv[i]);
		struct rp_sym_loc loc;
		rp_sym_lookup(sym, pc, &loc);
		rp_sym_format(&loc, false, buf, sizeof buf);
		printf("%#llx %s\n", pc, buf);
	}
	rp_sym_close(sym);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--where"))
		return where_main(argc, argv);
	const char *log = NULL, *exe = NULL, *timeline = NULL, *out = NULL;
	bool summary = false;
	enum rp_xaxis xaxis = RP_X_CLOCK;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			json = true;
		else if (!strcmp(a, "--summary"))
			summary = true;
		else if (!strcmp(a, "--time"))
			xaxis = RP_X_TIME;
		else if (!strcmp(a, "--by-switch"))
			xaxis = RP_X_SWITCH;
		else if (!strcmp(a, "--exe") || !strcmp(a, "--timeline") || !strcmp(a, "-o")) {
			if (i + 1 >= argc)
				die(2, "%s needs a value", a);
			*(a[2] == 'e' ? &exe : a[2] == 't' ? &timeline : &out) = argv[++i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage(0);
		else if (a[0] == '-' && a[1])
			die(2, "unknown flag '%s' (see --help)", a);
		else if (!log)
			log = a;
		else if (!exe)
			exe = a;
		else
			die(2, "too many arguments (see --help)");
	}
	if (timeline && !log)
		return rp_timeline(timeline, out, xaxis, NULL, NULL, 0);
	if (!log)
		usage(2);

	char err[RP_LOG_ERRLEN];
	struct rp_log_reader *r;
	if (rp_log_open(log, &r, err, sizeof err) != 0)
		die(2, "%s", err);
	const struct rp_log_header *h = rp_log_header(r);
	if (!exe && h->argc < 1)
		die(2, "%s: no recorded argv[0]: name the executable (--exe PATH)", log);
	bool exe_given = exe != NULL;
	if (!exe)
		exe = h->argv[0];
	struct rp_sym *sym;
	if (rp_sym_open(exe, &sym, err, sizeof err) != 0)
		die(2, "%s%s", err, exe_given ? "" : " (the recorded argv[0]; name the executable with --exe PATH)");
	uint8_t id[RP_LOG_BUILD_ID_MAX];
	size_t idlen = rp_sym_build_id(sym, id, sizeof id);
	bool hashed = h->flags & RP_LOG_F_CODE_HASH; /* no build-id: a hash of what it loads */
	if (hashed)
		idlen = idlen ? 0 : rp_log_code_hash(exe, id) == 0 ? RP_LOG_CODE_HASH_LEN : 0;
	bool checked = idlen && h->build_id_len;
	if (checked && (idlen != h->build_id_len || memcmp(id, h->build_id, idlen))) {
		fprintf(stderr, "%s: %s did not record %s (%s ", prog, exe, log,
			hashed ? "code hash" : "build-id");
		for (size_t i = 0; i < idlen; i++)
			fprintf(stderr, "%02x", id[i]);
		fprintf(stderr, ", the log's ");
		for (size_t i = 0; i < h->build_id_len; i++)
			fprintf(stderr, "%02x", h->build_id[i]);
		fprintf(stderr, ")\n");
		exit(2);
	}

	enum rp_log_status st;
	read_all(r, &st);
	for (size_t i = 0; i < nrecs; i++) /* the shared objects, for the PCs in them */
		if (recs[i].kind == RP_LOG_INPUT && recs[i].input_kind == RP_INPUT_OBJECTS)
			rp_sym_objects(sym, (const char *)recs[i].data, recs[i].len);
	if (timeline) /* the k-th preemption of the trace is the log's k-th PREEMPT */
		return rp_timeline(timeline, out, xaxis, sym, recs, nrecs);
	count_all();
	count_inputs();
	struct layout lay;
	read_layout(log, &lay);
	uint64_t rec_bytes = lay.block_bytes - 24 * lay.blocks;
	double secs = nstamps >= 2 ? (double)(stamp_last - stamp_first) / 1e9 : 0;

	if (json) {
		printf("{\"log\":");
		jstr(log);
		printf(",\"version\":%u,\"executable\":", h->version);
		jstr(exe);
		printf(",\"build_id\":\"");
		hex(h->build_id, h->build_id_len);
		printf("\",\"build_id_checked\":%s,\"chaos\":%s,\"seed\":%llu,\"quantum_ns\":%llu,\"argv\":[",
		       checked ? "true" : "false", h->flags & RP_LOG_F_CHAOS ? "true" : "false",
		       (unsigned long long)h->seed, (unsigned long long)h->quantum_ns);
		for (int i = 0; i < h->argc; i++) {
			printf(i ? "," : "");
			jstr(h->argv[i]);
		}
		printf("]");
		if (!summary) {
			printf(",\"records\":[");
			for (size_t i = 0; i < nrecs; i++)
				print_record(i, sym);
			printf("]");
		}
		printf(",\n\"threads\":[");
		for (size_t i = 0; i < ntstats; i++)
			printf("%s{\"tid\":%u,\"records\":%llu,\"preempt\":%llu,\"timeout\":%llu,"
			       "\"input\":%llu,\"thread_end\":%llu}", i ? "," : "", tstats[i].tid,
			       (unsigned long long)tstats[i].n[0], (unsigned long long)tstats[i].n[1],
			       (unsigned long long)tstats[i].n[2], (unsigned long long)tstats[i].n[3],
			       (unsigned long long)tstats[i].n[4]);
		printf("],\n\"totals\":{\"records\":%llu,\"preempt\":%llu,\"timeout\":%llu,\"input\":%llu,"
		       "\"thread_end\":%llu,\"end\":%llu},\n", (unsigned long long)kind_total[0],
		       (unsigned long long)kind_total[1], (unsigned long long)kind_total[2],
		       (unsigned long long)kind_total[3], (unsigned long long)kind_total[4],
		       (unsigned long long)kind_total[5]);
		printf("\"bytes\":{\"file\":%llu,\"header\":%llu,\"blocks\":%llu,\"records\":%llu,"
		       "\"per_record\":%.3f},\n", (unsigned long long)lay.file,
		       (unsigned long long)lay.header, (unsigned long long)lay.blocks,
		       (unsigned long long)rec_bytes, nrecs ? (double)rec_bytes / (double)nrecs : 0.0);
		printf("\"inputs\":{\"world_calls\":%llu,\"world_bytes\":%llu,\"random_calls\":%llu,"
		       "\"random_bytes\":%llu,\"env_names\":%llu},\n", (unsigned long long)world_calls,
		       (unsigned long long)world_bytes, (unsigned long long)random_calls,
		       (unsigned long long)random_bytes, (unsigned long long)env_names);
		printf("\"seconds\":%.6f,\"preempts_per_second\":", secs);
		if (secs > 0)
			printf("%.1f", (double)kind_total[1] / secs);
		else
			printf("null");
		printf(",\"status\":\"%s\",\"message\":",
		       st == RP_LOG_DONE ? "complete" : st == RP_LOG_TRUNCATED ? "truncated" : "corrupt");
		jstr(rp_log_error(r));
		printf("}\n");
	} else {
		printf("log %s: version %u, recorded by %s (%s ", log, h->version, exe,
		       hashed ? "code hash" : "build-id");
		if (h->build_id_len)
			hex(h->build_id, h->build_id_len);
		else
			printf("none");
		printf(checked ? ", matches)\n" : ", not checked: one side has none)\n");
		printf("argv:");
		for (int i = 0; i < h->argc; i++)
			printf(" %s", h->argv[i]);
		printf("\nquantum %llu ns%s", (unsigned long long)h->quantum_ns,
		       h->flags & RP_LOG_F_CHAOS ? ", chaos scheduler" : "");
		if (h->flags & RP_LOG_F_CHAOS)
			printf(" (seed %llu)", (unsigned long long)h->seed);
		printf("\n");
		if (!summary) {
			printf("records:\n");
			for (size_t i = 0; i < nrecs; i++)
				print_record(i, sym);
		}
		printf("threads:\n");
		for (size_t i = 0; i < ntstats; i++)
			printf("  thread %u: %llu records: %llu preempt, %llu timeout, %llu input, "
			       "%llu thread_end\n", tstats[i].tid, (unsigned long long)tstats[i].n[0],
			       (unsigned long long)tstats[i].n[1], (unsigned long long)tstats[i].n[2],
			       (unsigned long long)tstats[i].n[3], (unsigned long long)tstats[i].n[4]);
		printf("records: %llu (%llu preempt, %llu timeout, %llu input, %llu thread_end, %llu end)\n",
		       (unsigned long long)kind_total[0], (unsigned long long)kind_total[1],
		       (unsigned long long)kind_total[2], (unsigned long long)kind_total[3],
		       (unsigned long long)kind_total[4], (unsigned long long)kind_total[5]);
		printf("bytes: %llu in the file: header %llu, %llu blocks, %llu of records: %.3f per record\n",
		       (unsigned long long)lay.file, (unsigned long long)lay.header,
		       (unsigned long long)lay.blocks, (unsigned long long)rec_bytes,
		       nrecs ? (double)rec_bytes / (double)nrecs : 0.0);
		printf("inputs: %llu bytes from files, sockets and pipes (%llu calls), %llu random "
		       "bytes (%llu calls), %llu environment names (no values)\n",
		       (unsigned long long)world_bytes, (unsigned long long)world_calls,
		       (unsigned long long)random_bytes, (unsigned long long)random_calls,
		       (unsigned long long)env_names);
		if (secs > 0)
			printf("time: %.6f s from the first to the last timestamp, %.1f preemptions per second\n",
			       secs, (double)kind_total[1] / secs);
		else
			printf("time: unknown (fewer than two timestamp records), preemptions per second unknown\n");
		printf("end: %s\n", rp_log_error(r));
	}
	rp_sym_close(sym);
	if (st != RP_LOG_DONE) {
		fprintf(stderr, "%s: %s\n", prog, rp_log_error(r));
		return 1;
	}
	rp_log_close_reader(r);
	return 0;
}
