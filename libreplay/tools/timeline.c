/* timeline.c: a schedule trace (libreplay/engine/counter/trace.c) as one self-contained SVG, or as
 * an HTML page holding it with pan and zoom (an OUT ending in .html). One lane per
 * thread, a bar while it runs, and a mark where it stopped running: red on top for a
 * preemption, below in a colour per wait kind for a blocking switch, grey for a
 * yield, black for an exit. The end is drawn as what it was (exit status, signal,
 * deadlock); after a failure the last preemptions before it are highlighted and
 * listed. Every element has a hover title: thread, counts, and for a preemption with
 * the log its pc and function:line.
 *
 * The SVG aggregates dense traces instead of drawing sub-pixel shapes: runs narrower
 * than 1.5 px merge into one bar per lane per 2 px whose opacity is the share of time
 * the thread ran, and marks of one kind merge per lane per 2 px. Every mark carries
 * data-n, the switches it stands for: they add up to the trace's switches (one per
 * line whose `from` is a program thread). The HTML page draws every run and every
 * mark (data-n 1 each), so that zooming in shows each switch. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "log/log.h"
#include "sym.h"

#define PLOT_W 1200 /* px of the time axis */
#define LEFT 80
#define RIGHT 20
#define TOP 64
#define WIDTH (LEFT + PLOT_W + RIGHT)
#define NBUCKETS (PLOT_W / 2 + 1) /* aggregation buckets: 2 px, 4 px when dense */
#define LAST_PREEMPTS 3           /* highlighted before a failure */

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

/* The trace's last line: how the run ended. */
static bool is_end(const char *reason)
{
	return !strcmp(reason, "end") || !strncmp(reason, "exit:", 5) || !strncmp(reason, "SIG", 3) ||
	       !strcmp(reason, "deadlock") || !strcmp(reason, "hang") || !strcmp(reason, "exec");
}

static enum mark mark_of(const char *reason)
{
	if (is_end(reason))
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
	long note;        /* a preemption's PREEMPT record in the log, or -1 */
	uint64_t c0, c1;  /* the thread's counts when it started and stopped */
	int last;         /* 1..LAST_PREEMPTS: one of the last preemptions before a failure */
};

static struct {
	char reason[64], label[128];
	unsigned tid;
	double x;
	bool failed;
} end;

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
static bool detail; /* the HTML page: every run and mark drawn, none merged */
static struct rp_sym *sym;
static const struct rp_log_record *recs;

static double px(double x)
{
	return LEFT + (x - x0) / (x1 - x0) * PLOT_W;
}

static double lane_y(unsigned lane)
{
	return TOP + lane * (lane_h + 2);
}

/* Text in SVG: & and < escaped (function names, file names). */
static void put_text(const char *s)
{
	for (; *s; s++)
		fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : (char[2]){*s, 0}, o);
}

/* A label that fits the picture: after x if there is room, else before it, never
 * past either edge (its width estimated from the font size). */
static void label(double x, double y, int size, const char *colour, const char *cls, const char *s)
{
	double w = (double)strlen(s) * size * 0.62;
	const char *anchor = "start";
	if (x + 3 + w <= WIDTH - 2) {
		x += 3;
	} else {
		anchor = "end";
		x = x - 3 < w + 2 ? w + 2 : x - 3;
	}
	fprintf(o, "<text class=\"%s\" data-x=\"%.1f\" data-fixed=\"1\" x=\"%.1f\" y=\"%.1f\" "
		   "font-size=\"%d\" fill=\"%s\" text-anchor=\"%s\" data-w=\"%.0f\">", cls, x, x, y,
		size, colour, anchor, w);
	put_text(s);
	fputs("</text>\n", o);
}

/* Where a PREEMPT record's thread was: "teller+0x8c (heisenbug.c:15)". */
static const char *where(const struct rp_log_record *r)
{
	static char buf[600];
	struct rp_sym_loc loc;
	rp_sym_lookup(sym, r->pc, &loc);
	rp_sym_format(&loc, true, buf, sizeof buf);
	return buf;
}

/* A preemption for a hover title or a label: "t3 count 31807 pc 0x39cc at
 * teller+0x8c (heisenbug.c:15)"; without the log, thread and count. */
static const char *preemption(unsigned tid, const struct seg *s)
{
	static char buf[700];
	int n = snprintf(buf, sizeof buf, "t%u count %llu", tid, (unsigned long long)s->c1);
	if (s->note >= 0 && n > 0)
		snprintf(buf + n, sizeof buf - (size_t)n, " pc %#llx at %s",
			 (unsigned long long)recs[s->note].pc, where(&recs[s->note]));
	return buf;
}

static void bar(unsigned tid, unsigned lane, double a, double b, double busy, size_t n,
		const struct seg *s)
{
	double l = px(a), r = px(b);
	if (r - l < 1)
		r = l + 1;
	fprintf(o, "<rect class=\"run\" data-x=\"%.2f\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#4c78a8\"",
		l, l, lane_y(lane) + lane_h * 0.25, r - l, lane_h * 0.35);
	if (n == 1)
		fprintf(o, "><title>t%u ran @%s %.0f-%.0f, count %llu-%llu, then: %s</title></rect>\n",
			tid, unit, a, b, (unsigned long long)s->c0, (unsigned long long)s->c1,
			s->why == M_EXIT && end.tid == tid && s->b == end.x ? end.label : marks[s->why].label);
	else
		fprintf(o, " fill-opacity=\"%.2f\"><title>t%u: %zu runs @%s %.0f-%.0f, running "
			"%.0f%%</title></rect>\n", busy < 0.25 ? 0.25 : busy, tid, n, unit, a, b,
			100 * busy);
}

/* ---- reading the trace ------------------------------------------------------------- */

static struct seg *segs;
static size_t nsegs, nswitches, count[NMARKS];
/* The trace ends inside a line (a write cut short: a full disk, a file size limit, a
 * kill during a write): that line is left out, and the trace is said to be cut. */
static bool partial_line;
static unsigned *tids;
static size_t ntids;

static int read_trace(const char *trace, enum rp_xaxis xaxis, size_t nrecs)
{
	FILE *in = fopen(trace, "r");
	if (!in) {
		fprintf(stderr, "replay-dump: %s: %s\n", trace, strerror(errno));
		return 2;
	}
	size_t cap = 0, lineno = 0;
	double start = 0;
	bool first = true;
	size_t next_note = 0; /* the log's next record to look at for a PREEMPT */
	uint64_t *started = NULL; /* by tid: its count when it last started running */
	size_t nstarted = 0;
	char line[512];
	while (fgets(line, sizeof line, in)) {
		lineno++;
		if (!strchr(line, '\n') && feof(in)) {
			partial_line = true;
			break;
		}
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
		if (is_end(reason)) {
			snprintf(end.reason, sizeof end.reason, "%s", reason);
			end.tid = from;
			end.x = x;
		}
		size_t need = (from > to ? from : to) + 1;
		if (need > nstarted) {
			started = grow(started, need * sizeof *started);
			memset(started + nstarted, 0, (need - nstarted) * sizeof *started);
			nstarted = need;
		}
		if (from != 0) {
			if (nsegs == cap) {
				cap = cap ? 2 * cap : 4096;
				segs = grow(segs, cap * sizeof *segs);
			}
			segs[nsegs] = (struct seg){from, start, x, mark_of(reason), nsegs, note,
						   started[from], from_count, 0};
			nsegs++;
			nswitches++;
			count[mark_of(reason)]++;
		}
		started[to] = to_count;
		start = x;
		tids = grow(tids, (ntids + 2) * sizeof *tids);
		if (from)
			tids[ntids++] = from;
		if (to)
			tids[ntids++] = to;
	}
	fclose(in);
	free(started);
	if (!nsegs) {
		fprintf(stderr, "replay-dump: %s: no switches in this trace\n", trace);
		return 2;
	}
	return 0;
}

/* How the run ended, in words, and whether that is a failure: a signal, a deadlock,
 * a hang, an exit status other than 0. */
static void describe_end(void)
{
	const char *r = end.reason;
	end.failed = true;
	if (!r[0] || !strcmp(r, "end")) { /* a trace without its end, or of an older runtime */
		snprintf(end.label, sizeof end.label, "%s", r[0] ? "end" : "the trace stops here");
		end.failed = false;
	} else if (!strncmp(r, "exit:", 5)) {
		snprintf(end.label, sizeof end.label, "exit status %.60s", r + 5);
		end.failed = strcmp(r + 5, "0") != 0;
	} else if (!strcmp(r, "deadlock")) {
		snprintf(end.label, sizeof end.label, "deadlock: every thread blocked");
	} else if (!strcmp(r, "hang")) {
		snprintf(end.label, sizeof end.label, "hang: stopped by --timeout");
	} else if (!strcmp(r, "exec")) { /* the process image was replaced */
		snprintf(end.label, sizeof end.label, "exec: the program was replaced");
		end.failed = false;
	} else {
		snprintf(end.label, sizeof end.label, "%.60s in thread %u", r, end.tid);
	}
	if (!end.failed)
		return;
	/* the last preemptions before it, numbered from the last */
	int k = 0;
	for (size_t i = nsegs; i-- > 0 && k < LAST_PREEMPTS;)
		if (segs[i].why == M_PREEMPT)
			segs[i].last = ++k;
}

/* ---- drawing -------------------------------------------------------------------- */

/* A round step for about n ticks over [lo, hi]: 1, 2 or 5 times a power of ten, at
 * least 1 on a counted axis, and small enough for 3 ticks to fall inside (13 switches
 * from 1 once got a step of 5: ticks at 5 and 10 only). */
static double tick_step(double lo, double hi, int n, bool integer)
{
	double raw = (hi - lo) / n, p = pow(10, floor(log10(raw > 0 ? raw : 1)));
	double step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
	if (integer && step < 1)
		step = 1;
	while (floor(hi / step + 1e-9) - ceil(lo / step - 1e-9) < 2 && !(integer && step <= 1)) {
		double q = pow(10, floor(log10(step) + 1e-9)), m = step / q; /* 1, 2 or 5 */
		step = m > 4.5 ? 2 * q : m > 1.5 ? q : q / 2;
	}
	return step;
}

static void axis(double axis_y, enum rp_xaxis xaxis)
{
	fprintf(o, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#333\"/>\n", LEFT,
		axis_y, LEFT + PLOT_W, axis_y);
	double step = tick_step(x0, x1, 6, xaxis != RP_X_TIME);
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	fprintf(o, "<g class=\"ticks\">\n");
	for (double v = ceil(x0 / step - 1e-9) * step; v <= x1 + step * 1e-9; v += step) {
		double p = px(v);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.*f</text>\n",
			p, TOP - 4.0, p, axis_y, p, axis_y + 16, decimals, v);
	}
	fprintf(o, "</g>\n");
}

/* The marks of one lane's bucket: one for preemptions, yields, exits, and one for all
 * its blocking switches (coloured by the most frequent wait kind). */
static void bucket_marks(unsigned tid, double y, int b, unsigned mk[NMARKS], int mark_w, bool labels,
			 const struct seg *one, const struct seg *pre)
{
	unsigned nblk = 0, top = M_OTHER;
	for (int m = M_JOIN; m < NMARKS; m++) {
		nblk += mk[m];
		if (mk[m] > mk[top])
			top = (unsigned)m;
	}
	double mx = detail ? px(one->b) : LEFT + b * bucket;
	double at = detail ? one->b : x0 + (mx - LEFT) / PLOT_W * (x1 - x0);
	for (int m = 0; m <= M_JOIN; m++) {
		unsigned n = m == M_JOIN ? nblk : mk[m];
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
		fprintf(o, "<rect class=\"sw %s\" data-n=\"%u\" data-x=\"%.2f\" data-fixed=\"1\" x=\"%.2f\" "
			   "y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>", cls, n, mx, mx, my,
			mark_w, mh, marks[m == M_JOIN ? top : (unsigned)m].colour);
		bool single = m == M_PREEMPT && n == 1 && pre;
		if (single)
			fprintf(o, "%s, preempted @%s %.0f", preemption(tid, pre), unit, at);
		else if (m == M_EXIT && detail && one->b == end.x && end.tid == tid)
			fprintf(o, "t%u count %llu @%s %.0f: %s", tid, (unsigned long long)one->c1, unit, at, end.label);
		else if (detail)
			fprintf(o, "t%u count %llu @%s %.0f: %s", tid, (unsigned long long)one->c1, unit, at,
				marks[m == M_JOIN ? top : (unsigned)m].label);
		else
			fprintf(o, "t%u @%s %.0f: %u %s", tid, unit, at, n, m == M_JOIN ? "blocking" : marks[m].label);
		for (int k = M_JOIN; !detail && m == M_JOIN && k < NMARKS; k++)
			if (mk[k])
				fprintf(o, ", %s %u", marks[k].word + 8, mk[k]);
		fputs("</title></rect>\n", o);
		if (single && labels && pre->note >= 0)
			label(mx + mark_w, y + 9, 10, marks[M_PREEMPT].colour, "plabel", where(&recs[pre->note]));
	}
}

/* A yellow band behind one of the last preemptions before a failure, and its number. */
static void highlight(unsigned tid, const struct seg *s, double y)
{
	double x = px(s->b);
	fprintf(o, "<rect class=\"last\" data-x=\"%.2f\" data-fixed=\"1\" x=\"%.2f\" y=\"%.1f\" width=\"9\" "
		   "height=\"%.1f\" fill=\"#ffd400\" fill-opacity=\"0.8\"><title>last preemption %d before "
		   "the end: %s</title></rect>\n", x - 4, x - 4, y - 3, lane_h + 6, s->last,
		preemption(tid, s));
	char n[8];
	snprintf(n, sizeof n, "%d", s->last);
	label(x + 2, y + lane_h + 1, 11, "#000", "lastn", n);
}

static void lane(unsigned ln, size_t *i, int mark_w, bool labels)
{
	static unsigned mk[NBUCKETS][NMARKS];
	static const struct seg *mkone[NBUCKETS], *mkpre[NBUCKETS];
	unsigned tid = tids[ln];
	double y = lane_y(ln);
	fprintf(o, "<g class=\"lane\" data-tid=\"%u\">\n<text x=\"%d\" y=\"%.1f\" "
		   "text-anchor=\"end\" dominant-baseline=\"middle\">thread %u</text>\n",
		tid, LEFT - 6, y + lane_h / 2, tid);
	fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#f4f4f4\"/>\n",
		LEFT, y, PLOT_W, lane_h);
	fprintf(o, "<g class=\"plot\" clip-path=\"url(#plot)\">\n");
	memset(mk, 0, sizeof mk);
	memset(mkpre, 0, sizeof mkpre);
	/* highlights under everything else */
	for (size_t k = *i; k < nsegs && segs[k].lane == ln; k++)
		if (segs[k].last)
			highlight(tid, &segs[k], y);
	/* runs: wide ones alone, narrow ones merged per bucket (not in the HTML page) */
	double ba = 0, bb = 0, busy = 0;
	size_t bn = 0;
	const struct seg *bs = NULL;
	for (; *i < nsegs && segs[*i].lane == ln; (*i)++) {
		const struct seg *s = &segs[*i];
		if (detail) {
			unsigned one[NMARKS] = {0};
			one[s->why] = 1;
			bar(tid, ln, s->a, s->b, 1, 1, s);
			bucket_marks(tid, y, 0, one, mark_w, labels, s, s->why == M_PREEMPT ? s : NULL);
			continue;
		}
		int b = (int)((px(s->b) - LEFT) / bucket);
		b = b < 0 ? 0 : b >= NBUCKETS ? NBUCKETS - 1 : b;
		mk[b][s->why]++;
		if (s->why == M_PREEMPT)
			mkpre[b] = s;
		mkone[b] = s;
		bool wide = px(s->b) - px(s->a) >= 1.5;
		if (bn && (wide || px(s->a) >= px(ba) + bucket)) {
			bar(tid, ln, ba, bb, busy / (px(bb) - px(ba) > 1 ? px(bb) - px(ba) : 1), bn, bs);
			bn = 0;
		}
		if (wide) {
			bar(tid, ln, s->a, s->b, 1, 1, s);
			continue;
		}
		if (!bn) {
			ba = s->a;
			busy = 0;
		}
		bb = s->b;
		busy += px(s->b) - px(s->a);
		bs = s;
		bn++;
	}
	if (bn)
		bar(tid, ln, ba, bb, busy / (px(bb) - px(ba) > 1 ? px(bb) - px(ba) : 1), bn, bs);
	for (int b = 0; !detail && b < NBUCKETS; b++)
		if (mkone[b]) {
			bucket_marks(tid, y, b, mk[b], mark_w, labels, mkone[b], mkpre[b]);
			mkone[b] = NULL;
		}
	fprintf(o, "</g>\n</g>\n");
}

/* The end, across every lane, and the list of the last preemptions before a failure. */
static double ending(double axis_y, double ly)
{
	double x = px(end.x);
	const char *colour = end.failed ? "#d62728" : "#000";
	fprintf(o, "<g class=\"plot\" clip-path=\"url(#plotwide)\"><rect class=\"end\" data-x=\"%.2f\" "
		   "data-fixed=\"1\" x=\"%.2f\" y=\"%d\" width=\"2\" height=\"%.0f\" fill=\"%s\">"
		   "<title>the end: %s</title></rect>\n", x - 1, x - 1, TOP - 14, axis_y - TOP + 14,
		colour, end.label);
	label(x, TOP - 16, 12, colour, "endlabel", end.label);
	fputs("</g>\n", o);
	if (!end.failed)
		return ly;
	char line[800];
	for (size_t i = 0; i < nsegs; i++)
		if (segs[i].last) {
			snprintf(line, sizeof line, "%d: %s, @%s %.0f", segs[i].last,
				 preemption(tids[segs[i].lane], &segs[i]), unit, segs[i].b);
			fprintf(o, "<text class=\"lastlist\" x=\"%d\" y=\"%.0f\" data-last=\"%d\">", LEFT,
				ly + 18.0 * segs[i].last, segs[i].last);
			put_text(line);
			fputs("</text>\n", o);
		}
	fprintf(o, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">The last preemptions before the "
		   "end (%s), the last first:</text>\n", LEFT, ly, end.label);
	return ly + 18.0 * (LAST_PREEMPTS + 1);
}

static void legend(double ly)
{
	double lx = LEFT;
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
		   "<text x=\"%.0f\" y=\"%.0f\">running%s</text>\n", lx, ly, lx + 14, ly + 9,
		detail ? "" : " (pale: several short runs)");
}

static void svg(enum rp_xaxis xaxis, size_t nl)
{
	bool labels = recs && count[M_PREEMPT] <= 40; /* few: write where each struck */
	int mark_w = nsegs < 300 || detail ? 3 : bucket; /* wider marks when there are few */
	double axis_y = lane_y((unsigned)nl) + 4;
	double list_y = axis_y + 44, height = list_y + (end.failed ? 18.0 * (LAST_PREEMPTS + 1) : 0) + 60;
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%d\" height=\"%.0f\" "
		   "font-family=\"sans-serif\" font-size=\"12\" data-left=\"%d\" data-plotw=\"%d\" "
		   "data-x0=\"%.17g\" data-x1=\"%.17g\" data-unit=\"%s\">\n", WIDTH, height, LEFT, PLOT_W,
		x0, x1, unit);
	fprintf(o, "<defs><clipPath id=\"plot\"><rect x=\"%d\" y=\"0\" width=\"%d\" height=\"%.0f\"/>"
		   "</clipPath><clipPath id=\"plotwide\"><rect x=\"%d\" y=\"0\" width=\"%d\" height=\"%.0f\"/>"
		   "</clipPath></defs>\n", LEFT - 6, PLOT_W + 12, height, 0, WIDTH, height);
	fprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	size_t nblock = 0;
	for (int m = M_JOIN; m < NMARKS; m++)
		nblock += count[m];
	fprintf(o, "<text x=\"%d\" y=\"18\" font-size=\"14\">Schedule: %zu threads, %zu switches "
		   "(%zu preemptions, %zu blocking, %zu yields, %zu exits); the end: %s</text>\n",
		LEFT, nl, nswitches, count[M_PREEMPT], nblock, count[M_YIELD], count[M_EXIT], end.label);
	fprintf(o, "<text x=\"%d\" y=\"34\" fill=\"#555\">x: %s</text>\n", LEFT,
		xaxis == RP_X_TIME ? "wall-clock time of the traced run, ms"
		: xaxis == RP_X_SWITCH ? "switch number: every run of a thread gets the same width"
		: "logical clock: instructions counted in all threads so far (the same in a recording and its replays)");
	axis(axis_y, xaxis);
	size_t i = 0;
	for (unsigned ln = 0; ln < nl; ln++)
		lane(ln, &i, mark_w, labels);
	legend(ending(axis_y, list_y) + 4);
	fprintf(o, "</svg>\n");
}

/* ---- the HTML page: the SVG, pan and zoom, hover text ------------------------------ */

static const char page_head[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>libreplay schedule</title>\n"
	"<style>body{font-family:sans-serif;margin:8px}#status{font-size:13px;min-height:1.4em;"
	"white-space:pre}svg{cursor:grab;user-select:none}</style></head><body>\n"
	"<div>Wheel: zoom in time; drag: pan; double click: all of it. Hover: thread, count, pc, "
	"function:line.</div>\n<div id=\"status\"></div>\n";

/* Pan and zoom move every element with data-x along x (runs stretch, marks and labels
 * keep their width) and redraw the axis for the range in view; hover shows the title
 * of what is under the mouse. The URL's #view=A,B opens on that range, #probe=X,Y
 * shows the hover text at that point (how tests/tools looks at the page). */
static const char page_script[] =
	"<script>\n"
	"(function () {\n"
	"  var svg = document.querySelector('svg.timeline'), st = document.getElementById('status');\n"
	"  var L = +svg.dataset.left, W = +svg.dataset.plotw, X0 = +svg.dataset.x0, X1 = +svg.dataset.x1;\n"
	"  var NS = 'http://www.w3.org/2000/svg', k = 1, t = 0;\n"
	"  var items = Array.prototype.slice.call(svg.querySelectorAll('[data-x]'));\n"
	"  items.forEach(function (e) {\n"
	"    e._x = +e.dataset.x; e._w = +(e.getAttribute('width') || 0); e._f = e.hasAttribute('data-fixed');\n"
	"  });\n"
	"  var ticks = svg.querySelector('g.ticks'), axisY = +ticks.querySelector('text').getAttribute('y');\n"
	"  function val(sx) { return X0 + ((sx - L - t) / k) / W * (X1 - X0); }\n"
	"  function scr(v) { return L + (v - X0) / (X1 - X0) * W * k + t; }\n"
	"  function step(lo, hi) {\n"
	"    var raw = (hi - lo) / 6, p = Math.pow(10, Math.floor(Math.log10(raw > 0 ? raw : 1)));\n"
	"    var s = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;\n"
	"    var integer = svg.dataset.unit != 'ms';\n"
	"    if (integer && s < 1) s = 1;\n"
	"    while (Math.floor(hi / s + 1e-9) - Math.ceil(lo / s - 1e-9) < 2 && !(integer && s <= 1)) {\n"
	"      var q = Math.pow(10, Math.floor(Math.log10(s) + 1e-9)), m = s / q;\n"
	"      s = m > 4.5 ? 2 * q : m > 1.5 ? q : q / 2;\n"
	"    }\n"
	"    return s;\n"
	"  }\n"
	"  function axis() {\n"
	"    while (ticks.firstChild) ticks.removeChild(ticks.firstChild);\n"
	"    var lo = val(L), hi = val(L + W), s = step(lo, hi);\n"
	"    var d = s >= 1 ? 0 : Math.ceil(-Math.log10(s) - 1e-9);\n"
	"    for (var v = Math.ceil(lo / s - 1e-9) * s; v <= hi + s * 1e-9; v += s) {\n"
	"      var x = scr(v), tx = document.createElementNS(NS, 'text');\n"
	"      tx.setAttribute('x', x); tx.setAttribute('y', axisY); tx.setAttribute('text-anchor', 'middle');\n"
	"      tx.textContent = v.toFixed(d); ticks.appendChild(tx);\n"
	"    }\n"
	"    svg.dataset.view = Math.round(lo) + '-' + Math.round(hi);\n"
	"  }\n"
	"  function draw() {\n"
	"    items.forEach(function (e) {\n"
	"      var x = L + (e._x - L) * k + t;\n"
	"      e.setAttribute('x', x);\n"
	"      if (!e._f) e.setAttribute('width', Math.max(e._w * k, 1));\n"
	"    });\n"
	"    axis();\n"
	"  }\n"
	"  function show(a, b) { k = W / ((b - a) / (X1 - X0) * W); t = -(a - X0) / (X1 - X0) * W * k; draw(); }\n"
	"  function hover(el) {\n"
	"    while (el && el !== svg && !(el.querySelector && el.querySelector(':scope > title'))) el = el.parentNode;\n"
	"    var ti = el && el !== svg ? el.querySelector(':scope > title') : null;\n"
	"    st.textContent = ti ? ti.textContent : '';\n"
	"  }\n"
	"  svg.addEventListener('wheel', function (ev) {\n"
	"    ev.preventDefault();\n"
	"    var r = svg.getBoundingClientRect(), sx = ev.clientX - r.left, f = ev.deltaY < 0 ? 1.25 : 0.8;\n"
	"    if (k * f < 1) f = 1 / k;\n"
	"    t = sx - L - (sx - L - t) * f; k *= f; draw();\n"
	"  }, {passive: false});\n"
	"  var drag = null;\n"
	"  svg.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, t: t}; });\n"
	"  window.addEventListener('mouseup', function () { drag = null; });\n"
	"  svg.addEventListener('mousemove', function (ev) {\n"
	"    if (drag) { t = drag.t + ev.clientX - drag.x; draw(); }\n"
	"    hover(ev.target);\n"
	"  });\n"
	"  svg.addEventListener('dblclick', function () { k = 1; t = 0; draw(); });\n"
	"  var h = location.hash, m = /view=([-0-9.e]+),([-0-9.e]+)/.exec(h), p = /probe=([0-9.]+),([0-9.]+)/.exec(h);\n"
	"  if (m) show(+m[1], +m[2]); else draw();\n"
	"  if (p) { var r = svg.getBoundingClientRect(); hover(document.elementFromPoint(r.left + +p[1], r.top + +p[2])); }\n"
	"  document.body.dataset.ready = items.length;\n"
	"})();\n"
	"</script>\n</body></html>\n";

static bool html_name(const char *out)
{
	size_t n = out ? strlen(out) : 0;
	return n >= 5 && !strcmp(out + n - 5, ".html");
}

int rp_timeline(const char *trace, const char *out, enum rp_xaxis xaxis, struct rp_sym *sym_in,
		const struct rp_log_record *recs_in, size_t nrecs)
{
	sym = sym_in;
	recs = recs_in;
	detail = html_name(out);
	int rc = read_trace(trace, xaxis, nrecs);
	if (rc)
		return rc;
	describe_end();
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
	x1 = end.reason[0] ? end.x : segs[0].b;
	for (size_t i = 0; i < nsegs; i++) {
		if (segs[i].a < x0)
			x0 = segs[i].a;
		if (segs[i].b > x1)
			x1 = segs[i].b;
	}
	if (!end.reason[0])
		end.x = x1;
	if (x1 <= x0)
		x1 = x0 + 1;
	unit = xaxis == RP_X_TIME ? "ms" : xaxis == RP_X_SWITCH ? "switch" : "clock";
	lane_h = recs && count[M_PREEMPT] <= 40 ? 34 : nl <= 40 ? 22 : nl <= 200 ? 8 : 3;
	if (nsegs > 4 * PLOT_W)
		bucket = 4;

	o = out ? fopen(out, "w") : stdout;
	if (!o) {
		fprintf(stderr, "replay-dump: %s: %s\n", out, strerror(errno));
		return 2;
	}
	if (detail)
		fputs(page_head, o);
	svg(xaxis, nl);
	if (detail)
		fputs(page_script, o);
	free(segs);
	free(tids);
	if (out && fclose(o) != 0) {
		fprintf(stderr, "replay-dump: %s: %s\n", out, strerror(errno));
		return 2;
	}
	/* Drawn, but not the whole run: said, and the status of a log cut short (1). */
	if (partial_line || !end.reason[0]) {
		fprintf(stderr, "replay-dump: %s is cut after switch %zu: it ends %s, without the "
				"run's end (a full disk or a file size limit while tracing, or a "
				"kill); drawn up to there\n", trace, nswitches,
			partial_line ? "inside a line" : "after a whole line");
		return 1;
	}
	return 0;
}
