/* ocean: the red-black relaxation at the heart of SPLASH-2's Ocean, on threads.
 *
 * Solves the Poisson equation  -laplace(psi) = f  on the unit square (psi = 0 on the
 * border; f a wind-stress-like forcing) by red-black successive over-relaxation on
 * an N x N interior grid. The rows are split into contiguous bands, one per thread,
 * as SPLASH-2 partitions its grids. Each sweep updates the red points (i + j even),
 * then, after a barrier, the black ones; then every thread publishes its part of the
 * squared change, and after another barrier thread 0 adds the parts up in thread
 * order and decides whether to stop. The barrier is the classic one built from a
 * mutex and a condition variable with a generation count.
 *
 * The result does not depend on the threads' timing: each point is computed from
 * the same neighbours in every run, and the sums are added in a fixed order. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reusable barrier: the last of `count` arrivals starts a new generation. */
struct barrier {
	pthread_mutex_t lock;
	pthread_cond_t turn;
	unsigned count, arrived, generation;
};

/* Returns true in the thread that arrived last (it released the others). */
static bool barrier_wait(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned gen = b->generation;
	bool last = ++b->arrived == b->count;
	if (last) {
		b->arrived = 0;
		b->generation++;
		pthread_cond_broadcast(&b->turn);
	} else {
		/* The generation, not the arrival count, says when to go: a wakeup that
		 * comes late (after the next round began) must still leave. */
		while (gen == b->generation)
			pthread_cond_wait(&b->turn, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return last;
}

struct ocean {
	int n;        /* interior points per side */
	int nthreads;
	int maxiter;
	double omega; /* over-relaxation factor, 0 < omega < 2 */
	double tol;   /* stop when the RMS change of a sweep falls below this */
	double h2;    /* grid spacing squared */
	double *psi;  /* (n + 2) x (n + 2), the border stays 0 */
	double *f;    /* forcing, same shape */
	double *part; /* each thread's sum of squared changes in the last sweep */
	struct barrier bar;
	bool stop;    /* written by thread 0 between two barriers */
	int iters;    /* sweeps done */
	double rms;   /* RMS change of the last sweep */
};

struct worker {
	pthread_t thread;
	struct ocean *o;
	int id;
	int row_lo, row_hi; /* rows [lo, hi) of the interior, 1-based */
	long updates;       /* points updated */
	long last_arrivals; /* barriers at which this thread arrived last */
};

#define AT(o, a, i, j) ((a)[(size_t)(i) * ((o)->n + 2) + (j)])

/* Update the points of one colour (0 red, 1 black) in rows [lo, hi); returns the
 * sum of their squared changes. */
static double relax(struct ocean *o, int lo, int hi, int colour, long *updates)
{
	double sum = 0;
	for (int i = lo; i < hi; i++) {
		for (int j = 1 + ((i + colour + 1) & 1); j <= o->n; j += 2) {
			double gs = 0.25 * (AT(o, o->psi, i - 1, j) + AT(o, o->psi, i + 1, j) +
					    AT(o, o->psi, i, j - 1) + AT(o, o->psi, i, j + 1) +
					    o->h2 * AT(o, o->f, i, j));
			double d = o->omega * (gs - AT(o, o->psi, i, j));
			AT(o, o->psi, i, j) += d;
			sum += d * d;
			(*updates)++;
		}
	}
	return sum;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ocean *o = w->o;
	for (;;) {
		double sum = relax(o, w->row_lo, w->row_hi, 0, &w->updates);
		w->last_arrivals += barrier_wait(&o->bar);
		sum += relax(o, w->row_lo, w->row_hi, 1, &w->updates);
		o->part[w->id] = sum;
		w->last_arrivals += barrier_wait(&o->bar);
		if (w->id == 0) {
			double total = 0;
			for (int t = 0; t < o->nthreads; t++)
				total += o->part[t];
			o->iters++;
			o->rms = sqrt(total / ((double)o->n * o->n));
			o->stop = o->rms < o->tol || o->iters >= o->maxiter;
		}
		w->last_arrivals += barrier_wait(&o->bar);
		if (o->stop)
			return NULL;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ocean [-n N] [-p THREADS] [-i ITERS] [-w OMEGA] [-t TOL] [-v]\n"
		   "  red-black SOR on an N x N grid (256) with THREADS threads (4), at most\n"
		   "  ITERS sweeps (500) or until the RMS change is below TOL (1e-9);\n"
		   "  OMEGA is the over-relaxation factor (1.9); -v: per-thread counts on\n"
		   "  standard error\n");
}

static double number(const char *s, char opt, double lo, double hi, bool whole)
{
	char *end;
	errno = 0;
	double v = whole ? (double)strtol(s, &end, 10) : strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "ocean: -%c wants a%s number from %g to %g, not '%s'\n", opt,
			whole ? " whole" : "", lo, hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct ocean o = {.n = 256, .nthreads = 4, .maxiter = 500, .omega = 1.9, .tol = 1e-9};
	bool verbose = false;
	int c;
	while ((c = getopt(argc, argv, "n:p:i:w:t:vh")) != -1) {
		switch (c) {
		case 'n': o.n = number(optarg, c, 2, 8192, true); break;
		case 'p': o.nthreads = number(optarg, c, 1, 256, true); break;
		case 'i': o.maxiter = number(optarg, c, 1, 1e7, true); break;
		case 'w': o.omega = number(optarg, c, 0.01, 1.99, false); break;
		case 't': o.tol = number(optarg, c, 0, 1, false); break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (o.nthreads > o.n) {
		fprintf(stderr, "ocean: more threads (%d) than rows (%d)\n", o.nthreads, o.n);
		return 2;
	}

	size_t side = (size_t)o.n + 2;
	o.psi = calloc(side * side, sizeof *o.psi);
	o.f = calloc(side * side, sizeof *o.f);
	o.part = calloc(o.nthreads, sizeof *o.part);
	struct worker *w = calloc(o.nthreads, sizeof *w);
	if (!o.psi || !o.f || !o.part || !w) {
		fprintf(stderr, "ocean: out of memory for a %d x %d grid\n", o.n, o.n);
		return 1;
	}
	double h = 1.0 / (o.n + 1);
	o.h2 = h * h;
	/* A double gyre: the curl of a wind stress that changes sign across the basin. */
	for (int i = 1; i <= o.n; i++)
		for (int j = 1; j <= o.n; j++)
			AT(&o, o.f, i, j) = sin(2 * M_PI * i * h) * (1 + 0.5 * sin(M_PI * j * h));
	pthread_mutex_init(&o.bar.lock, NULL);
	pthread_cond_init(&o.bar.turn, NULL);
	o.bar.count = o.nthreads;

	int started = 0, err = 0;
	for (; started < o.nthreads; started++) {
		w[started] = (struct worker){
			.o = &o,
			.id = started,
			.row_lo = 1 + (int)((long)o.n * started / o.nthreads),
			.row_hi = 1 + (int)((long)o.n * (started + 1) / o.nthreads),
		};
		err = pthread_create(&w[started].thread, NULL, worker_main, &w[started]);
		if (err)
			break;
	}
	if (err) {
		/* The barrier counts on every thread: those started would wait for ever. */
		fprintf(stderr, "ocean: pthread_create: %s\n", strerror(err));
		exit(1);
	}
	for (int t = 0; t < o.nthreads; t++)
		pthread_join(w[t].thread, NULL);

	double sum = 0, weighted = 0, peak = 0;
	for (int i = 1; i <= o.n; i++)
		for (int j = 1; j <= o.n; j++) {
			double v = AT(&o, o.psi, i, j);
			sum += v;
			weighted += v * ((i * 31 + j * 17) % 101);
			if (fabs(v) > fabs(peak))
				peak = v;
		}
	printf("grid %dx%d, %d threads, %d sweeps, rms change %.6e\n", o.n, o.n, o.nthreads,
	       o.iters, o.rms);
	printf("sum %.15e weighted %.15e peak %.15e\n", sum, weighted, peak);
	if (verbose)
		for (int t = 0; t < o.nthreads; t++)
			fprintf(stderr, "ocean: thread %d: rows %d-%d, %ld updates, last at %ld barriers\n",
				t, w[t].row_lo, w[t].row_hi - 1, w[t].updates, w[t].last_arrivals);
	free(o.psi);
	free(o.f);
	free(o.part);
	free(w);
	return 0;
}
