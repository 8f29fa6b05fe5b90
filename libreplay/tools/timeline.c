/* timeline.c: a schedule trace (libreplay/trace.c) as one self-contained SVG: one
 * lane per thread, a bar while it runs, and a mark where it stopped running: red on
 * top for a preemption, below in a colour per wait kind for a blocking switch, grey
 * for a yield, black for an exit. Every element has a hover title.
 *
 * Dense traces aggregate instead of drawing sub-pixel shapes: runs narrower than
 * 1.5 px merge into one bar per lane per 2 px whose opacity is the share of time the
 * thread ran, and marks of one kind merge per lane per 2 px. Every mark carries
 * data-n, the switches it stands for: they add up to the trace's switches (one per
 * line whose `from` is a program thread). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "log.h"
#include "sym.h"

#define PLOT_W 1200 /* px of the time axis */
#define LEFT 80
#define TOP 56
#define NBUCKETS (PLOT_W / 2 + 1) /* aggregation buckets: 2 px, 4 px when dense */

enum mark { M_PREEMPT, M_YIELD, M_EXIT, M_JOIN, M_MUTEX, M_COND, M_SEM, M_BARRIER, M_RDLOCK,
	    M_WRLOCK, M_SLEEP, M_QUEUE, M_IO, M_OTHER, NMARKS };
static const struct {
	const char *word, *label, *colour;
} marks[NMARKS] = {
	[M_PREEMPT] = {"preempt", "preemption", "#d62728"},
	[M_YIELD] = {"yield", "yield", "#999999"},
	[M_EXIT] = {"exit", "exit", "#000000"},
	[M_JOIN] = {"blocked:join", "blocked on join", "#2ca02c"},
	[M_MUTEX] = {"blocked:mutex", "blocked on a mutex", "#1f77b4"},
	[M_COND] = {"blocked:cond", "blocked on a condvar", "#9467bd"},
	[M_SEM] = {"blocked:sem", "blocked on a semaphore", "#8c564b"},
	[M_BARRIER] = {"blocked:barrier", "blocked at a barrier", "#e377c2"},
	[M_RDLOCK] = {"blocked:rdlock", "blocked on an rwlock (read)", "#bcbd22"},
	[M_WRLOCK] = {"blocked:wrlock", "blocked on an rwlock (write)", "#bcbd22"},
	[M_SLEEP] = {"blocked:sleep", "blocked in a sleep", "#17becf"},
	[M_QUEUE] = {"blocked:queue", "blocked on a wait queue", "#7f7f7f"},
	[M_IO] = {"blocked:io", "blocked in a system call (io.md)", "#ff7f0e"},
	[M_OTHER] = {"blocked:other", "blocked (other)", "#444444"},
};

static enum mark mark_of(const char *reason)
{
	if (!strcmp(reason, "end") || !strncmp(reason, "SIG", 3))
		return M_EXIT;
	for (int m = 0; m < M_OTHER; m++)
		if (!strcmp(reason, marks[m].word))
			return (enum mark)m;
	return M_OTHER;
}

struct seg {
	unsigned lane;
	double a, b; /* x while the thread ran */
	enum mark why;
	size_t order;
	long note; /* a preemption's PREEMPT record in the log, or -1 */
};

static int by_lane(const void *p, const void *q)
{
	const struct seg *x = p, *y = q;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_uint(const void *p, const void *q)
{
	unsigned x = *(const unsigned *)p, y = *(const unsigned *)q;
	return x < y ? -1 : x > y;
}

static void *grow(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "replay-dump: out of memory\n");
		exit(2);
	}
	return p;
}

static FILE *o;
static double x0, x1, lane_h;
static int bucket = 2;
static const char *unit;

static double px(double x)
{
	return LEFT + (x - x0) / (x1 - x0) * PLOT_W;
}

static double lane_y(unsigned lane)
{
	return TOP + lane * (lane_h + 2);
}

static void bar(unsigned tid, unsigned lane, double a, double b, double busy, size_t n,
		enum mark why)
{
	double l = px(a), r = px(b);
	if (r - l < 1)
		r = l + 1;
	fprintf(o, "<rect class=\"run\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4c78a8\"",
		l, lane_y(lane) + lane_h * 0.25, r - l, lane_h * 0.35);
	if (n == 1)
		fprintf(o, "><title>t%u ran @%s %.0f-%.0f, then: %s</title></rect>\n", tid, unit,
			a, b, marks[why].label);
	else
		fprintf(o, " fill-opacity=\"%.2f\"><title>t%u: %zu runs @%s %.0f-%.0f, running "
			"%.0f%%</title></rect>\n", busy < 0.25 ? 0.25 : busy, tid, n, unit, a, b,
			100 * busy);
}

/* Where a PREEMPT record's thread was: "teller+0x8c (heisenbug.c:15)". */
static const char *where(struct rp_sym *sym, const struct rp_log_record *r)
{
	static char buf[600];
	struct rp_sym_loc loc;
	rp_sym_lookup(sym, r->pc, &loc);
	rp_sym_format(&loc, true, buf, sizeof buf);
	return buf;
}

int rp_timeline(const char *trace, const char *out, enum rp_xaxis xaxis, struct rp_sym *sym,
		const struct rp_log_record *recs, size_t nrecs)
{
	FILE *in = fopen(trace, "r");
	if (!in) {
		fprintf(stderr, "replay-dump: %s: %s\n", trace, strerror(errno));
		return 2;
	}
	struct seg *segs = NULL;
	size_t nsegs = 0, cap = 0, lineno = 0, nswitches = 0, count[NMARKS] = {0};
	unsigned *tids = NULL;
	size_t ntids = 0;
	double start = 0, last = 0;
	bool first = true;
	size_t next_note = 0; /* the log's next record to look at for a PREEMPT */
	char line[512];
	while (fgets(line, sizeof line, in)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		unsigned long long seq, clk, ns, from_count, to_count;
		unsigned from, to;
		char reason[64];
		if (sscanf(line, "%llu %llu %llu %u %u %llu %llu %63s", &seq, &clk, &ns, &from, &to,
			   &from_count, &to_count, reason) != 8) {
			fprintf(stderr, "replay-dump: %s:%zu: not a schedule trace line "
					"(from --trace-schedule)\n", trace, lineno);
			fclose(in);
			return 2;
		}
		double x = xaxis == RP_X_TIME ? (double)ns / 1e6 : xaxis == RP_X_SWITCH ? (double)seq : (double)clk;
		if (first)
			start = x;
		first = false;
		last = x;
		long note = -1;
		if (recs && !strcmp(reason, "preempt")) {
			while (next_note < nrecs && recs[next_note].kind != RP_LOG_PREEMPT)
				next_note++;
			if (next_note == nrecs || recs[next_note].tid != from ||
			    recs[next_note].count != from_count) {
				fprintf(stderr, "replay-dump: %s:%zu: thread %u's preemption at count %llu is "
						"not the log's next (the trace is not of this log)\n", trace,
					lineno, from, from_count);
				fclose(in);
				return 2;
			}
			note = (long)next_note++;
		}
		if (from != 0) {
			if (nsegs == cap) {
				cap = cap ? 2 * cap : 4096;
				segs = grow(segs, cap * sizeof *segs);
			}
			segs[nsegs] = (struct seg){from, start, x, mark_of(reason), nsegs, note};
			nsegs++;
			nswitches++;
			count[mark_of(reason)]++;
		}
		start = x;
		tids = grow(tids, (ntids + 2) * sizeof *tids);
		if (from)
			tids[ntids++] = from;
		if (to)
			tids[ntids++] = to;
	}
	fclose(in);
	if (!nsegs) {
		fprintf(stderr, "replay-dump: %s: no switches in this trace\n", trace);
		return 2;
	}
	/* The lanes: thread ids, sorted, once each. */
	qsort(tids, ntids, sizeof *tids, by_uint);
	size_t nl = 0;
	for (size_t i = 0; i < ntids; i++)
		if (!nl || tids[nl - 1] != tids[i])
			tids[nl++] = tids[i];
	for (size_t i = 0; i < nsegs; i++) {
		unsigned *p = bsearch(&segs[i].lane, tids, nl, sizeof *tids, by_uint);
		segs[i].lane = (unsigned)(p - tids);
	}
	qsort(segs, nsegs, sizeof *segs, by_lane);

	x0 = segs[0].a;
	x1 = last;
	for (size_t i = 0; i < nsegs; i++)
		if (segs[i].a < x0)
			x0 = segs[i].a;
	if (x1 <= x0)
		x1 = x0 + 1;
	unit = xaxis == RP_X_TIME ? "ms" : xaxis == RP_X_SWITCH ? "switch" : "clock";
	bool labels = recs && count[M_PREEMPT] <= 40; /* few: write where each struck */
	lane_h = labels ? 34 : nl <= 40 ? 22 : nl <= 200 ? 8 : 3;
	if (nsegs > 4 * PLOT_W)
		bucket = 4;
	int mark_w = nsegs < 300 ? 3 : bucket; /* wider marks when there are few */
	double height = lane_y((unsigned)nl) + 90;

	o = out ? fopen(out, "w") : stdout;
	if (!o) {
		fprintf(stderr, "replay-dump: %s: %s\n", out, strerror(errno));
		return 2;
	}
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", LEFT + PLOT_W + 20, height);
	fprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	size_t nblock = 0;
	for (int m = M_JOIN; m < NMARKS; m++)
		nblock += count[m];
	fprintf(o, "<text x=\"%d\" y=\"18\" font-size=\"14\">Schedule: %zu threads, %zu switches "
		   "(%zu preemptions, %zu blocking, %zu yields, %zu exits)</text>\n",
		LEFT, nl, nswitches, count[M_PREEMPT], nblock, count[M_YIELD], count[M_EXIT]);
	fprintf(o, "<text x=\"%d\" y=\"36\" fill=\"#555\">x: %s</text>\n", LEFT,
		xaxis == RP_X_TIME ? "wall-clock time of the traced run, ms"
		: xaxis == RP_X_SWITCH ? "switch number: every run of a thread gets the same width"
		: "logical clock: instructions counted in all threads so far (the same in a recording and its replays)");

	/* axis */
	double axis_y = lane_y((unsigned)nl) + 4;
	fprintf(o, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#333\"/>\n", LEFT,
		axis_y, LEFT + PLOT_W, axis_y);
	for (int k = 0; k <= 6; k++) {
		double x = x0 + (x1 - x0) * k / 6, p = px(x);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.*f</text>\n",
			p, TOP - 4.0, p, axis_y, p, axis_y + 16, xaxis == RP_X_TIME ? 2 : xaxis == RP_X_SWITCH, x);
	}

	static unsigned mk[NBUCKETS][NMARKS];
	static long mknote[NBUCKETS];
	size_t i = 0;
	for (unsigned lane = 0; lane < nl; lane++) {
		unsigned tid = tids[lane];
		double y = lane_y(lane);
		fprintf(o, "<g class=\"lane\" data-tid=\"%u\">\n<text x=\"%d\" y=\"%.1f\" "
			   "text-anchor=\"end\" dominant-baseline=\"middle\">thread %u</text>\n",
			tid, LEFT - 6, y + lane_h / 2, tid);
		fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#f4f4f4\"/>\n",
			LEFT, y, PLOT_W, lane_h);
		memset(mk, 0, sizeof mk);
		memset(mknote, 0xff, sizeof mknote);
		/* runs: wide ones alone, narrow ones merged per bucket */
		double ba = 0, bb = 0, busy = 0;
		size_t bn = 0;
		enum mark bwhy = M_OTHER;
		for (; i < nsegs && segs[i].lane == lane; i++) {
			struct seg *s = &segs[i];
			int b = (int)((px(s->b) - LEFT) / bucket);
			b = b < 0 ? 0 : b >= NBUCKETS ? NBUCKETS - 1 : b;
			mk[b][s->why]++;
			if (s->note >= 0)
				mknote[b] = s->note;
			bool wide = px(s->b) - px(s->a) >= 1.5;
			if (bn && (wide || px(s->a) >= px(ba) + bucket)) {
				bar(tid, lane, ba, bb, busy / (px(bb) - px(ba) > 1 ? px(bb) - px(ba) : 1), bn, bwhy);
				bn = 0;
			}
			if (wide) {
				bar(tid, lane, s->a, s->b, 1, 1, s->why);
				continue;
			}
			if (!bn) {
				ba = s->a;
				busy = 0;
			}
			bb = s->b;
			busy += px(s->b) - px(s->a);
			bwhy = s->why;
			bn++;
		}
		if (bn)
			bar(tid, lane, ba, bb, busy / (px(bb) - px(ba) > 1 ? px(bb) - px(ba) : 1), bn, bwhy);
		/* marks: per bucket, one for preemptions, yields, exits, and one for all the
		 * blocking switches (coloured by the most frequent wait kind) */
		for (int b = 0; b < NBUCKETS; b++) {
			unsigned nblk = 0, top = M_OTHER;
			for (int m = M_JOIN; m < NMARKS; m++) {
				nblk += mk[b][m];
				if (mk[b][m] > mk[b][top])
					top = (unsigned)m;
			}
			double mx = LEFT + b * bucket, at = x0 + (mx - LEFT) / PLOT_W * (x1 - x0);
			for (int m = 0; m <= M_JOIN; m++) {
				unsigned n = m == M_JOIN ? nblk : mk[b][m];
				if (!n)
					continue;
				/* top: preemptions; middle: the runs; below: yields, then blocking */
				double my = y, mh = lane_h * 0.25;
				const char *cls = m == M_PREEMPT ? "preempt" : m == M_YIELD ? "yield"
						: m == M_EXIT ? "exit" : "block";
				if (m == M_EXIT)
					mh = lane_h;
				else if (m == M_YIELD)
					my = y + lane_h * 0.6, mh = lane_h * 0.15;
				else if (m == M_JOIN)
					my = y + lane_h * 0.75;
				fprintf(o, "<rect class=\"sw %s\" data-n=\"%u\" x=\"%.1f\" y=\"%.1f\" "
					   "width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>t%u @%s %.0f: %u %s",
					cls, n, mx, my, mark_w, mh, marks[m == M_JOIN ? top : (unsigned)m].colour,
					tid, unit, at, n, m == M_JOIN ? "blocking" : marks[m].label);
				for (int k = M_JOIN; m == M_JOIN && k < NMARKS; k++)
					if (mk[b][k])
						fprintf(o, ", %s %u", marks[k].word + 8, mk[b][k]);
				bool at = m == M_PREEMPT && n == 1 && mknote[b] >= 0;
				if (at)
					fprintf(o, " at %s", where(sym, &recs[mknote[b]]));
				fprintf(o, "</title></rect>\n");
				if (at && labels)
					fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%s</text>\n",
						mx + mark_w + 2, y + 8, marks[M_PREEMPT].colour, where(sym, &recs[mknote[b]]));
			}
		}
		fprintf(o, "</g>\n");
	}

	/* legend: the kinds that occur */
	double lx = LEFT, ly = axis_y + 40;
	for (int m = 0; m < NMARKS; m++) {
		if (!count[m])
			continue;
		fprintf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%.0f\" y=\"%.0f\">%s (%zu)</text>\n", lx, ly, marks[m].colour,
			lx + 14, ly + 9, marks[m].label, count[m]);
		lx += 20 + 7.0 * (double)(strlen(marks[m].label) + 8);
		if (lx > LEFT + PLOT_W - 200) {
			lx = LEFT;
			ly += 18;
		}
	}
	fprintf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"#4c78a8\"/>"
		   "<text x=\"%.0f\" y=\"%.0f\">running (pale: several short runs)</text>\n", lx, ly,
		lx + 14, ly + 9);
	fprintf(o, "</svg>\n");
	free(segs);
	free(tids);
	if (out && fclose(o) != 0) {
		fprintf(stderr, "replay-dump: %s: %s\n", out, strerror(errno));
		return 2;
	}
	return 0;
}
