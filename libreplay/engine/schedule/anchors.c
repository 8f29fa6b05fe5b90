/* anchors.c: the recorded build's pcs in the race build (--races, docs/races.md).
 *
 * A recording is made with the ordinary build of a program; its race detection replays
 * it with the race build (sicc --races), whose code has a check before each memory
 * access and so other pcs. The counts are the same (the checks do not count), the pcs
 * of the log are not: sicpp gives every build the same anchors in the same order
 * (sic_anchors, a section that is not loaded: sicpp/races.c), between two of which the
 * bytes are the same, so a pc of the recording maps to the anchor before it in the
 * recorded executable, the same anchor in this one, and the same offset past it.
 * rp_anchors_map_record rewrites each record's pcs so as it is read (replay.c).
 *
 * One pc is not mapped by its offset: an access's own, where the race build has the
 * access's check before the anchor. A preemption recorded there came before the
 * access, and so must the check (an atomic's acquire, a write's): the race build lists
 * where each check begins (sic_anchor_checks: pairs of the check's start and its
 * anchor), and the access's pc maps to the start of its check. */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <stdlib.h>
#include <string.h>

struct pair {
	uint64_t rec, here; /* link-time addresses: offsets from the load base (PIE) */
	uint64_t check;     /* here's check's start (sic_anchor_checks), else here */
};

static struct pair *pairs;
static size_t npairs;
bool rp_anchors_on;

static int by_rec(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

struct check {
	uint64_t start, anchor;
};

static int by_anchor(const void *a, const void *b)
{
	const struct check *x = a, *y = b;
	return x->anchor < y->anchor ? -1 : x->anchor > y->anchor;
}

/* Each pair's check, from the n (start, anchor) pairs of sic_anchor_checks. */
static void set_checks(struct check *checks, size_t n)
{
	qsort(checks, n, sizeof *checks, by_anchor);
	for (size_t i = 0; i < npairs; i++) {
		struct check key = {0, pairs[i].here};
		const struct check *c = n ? bsearch(&key, checks, n, sizeof *checks, by_anchor) : NULL;
		if (c && c->start <= c->anchor)
			pairs[i].check = c->start;
	}
}

int rp_anchors_load(const char *recorded, char *why, size_t whylen)
{
	size_t nrec = 0, nhere = 0;
	uint64_t *rec = rp_elf_section(recorded, "sic_anchors", &nrec);
	uint64_t *here = rp_elf_section("/proc/self/exe", "sic_anchors", &nhere);
	int ret = -1;
	if (!rec)
		snprintf(why, whylen, "%s has no anchors (sic_anchors): not a program built by this "
			 "sicc, or not found", recorded);
	else if (!here)
		snprintf(why, whylen, "this executable has no anchors (sic_anchors)");
	else if (nrec != nhere)
		snprintf(why, whylen, "%s has %zu anchors, this race build %zu: not built from the "
			 "same sources with the same flags", recorded, nrec / 8, nhere / 8);
	else
		ret = 0;
	if (ret == 0) {
		npairs = nrec / 8;
		pairs = rp_malloc(npairs * sizeof *pairs + 1);
		if (!pairs)
			rp_fatal_memory("the anchors");
		for (size_t i = 0; i < npairs; i++)
			pairs[i] = (struct pair){rec[i], here[i], here[i]};
		size_t nchecks = 0;
		struct check *checks = rp_elf_section("/proc/self/exe", "sic_anchor_checks", &nchecks);
		set_checks(checks, checks ? nchecks / sizeof *checks : 0);
		rp_free(checks);
		qsort(pairs, npairs, sizeof *pairs, by_rec);
		rp_anchors_on = true;
	}
	rp_free(rec);
	rp_free(here);
	return ret;
}

uint64_t rp_anchors_map(uint64_t off)
{
	if (!rp_anchors_on || !npairs || off < pairs[0].rec)
		return off;
	size_t lo = 0, hi = npairs; /* the last anchor at or below off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (pairs[mid].rec <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (off == pairs[lo].rec)
		return pairs[lo].check;
	return pairs[lo].here + (off - pairs[lo].rec);
}

/* The other way: a pc of this build as the recording's (for gdb and the reports). */
uint64_t rp_anchors_unmap(uint64_t off)
{
	uint64_t best = 0, at = 0;
	bool found = false;
	for (size_t i = 0; i < npairs; i++) {
		if (pairs[i].check <= off && off < pairs[i].here)
			return pairs[i].rec; /* in an access's check: its anchor's */
		if (pairs[i].here <= off && (!found || pairs[i].here >= best)) {
			best = pairs[i].here;
			at = pairs[i].rec;
			found = true;
		}
	}
	return found ? at + (off - best) : off;
}

void rp_anchors_map_record(struct rp_log_record *r)
{
	if (!rp_anchors_on)
		return;
	uint64_t pc;
	/* The reader's own copy of the record, valid until its next call: rewritten in
	 * place, so that every use of it sees this build's pcs. */
	uint8_t *data = (uint8_t *)r->data;
	if (r->kind == RP_LOG_PREEMPT && r->pc)
		r->pc = rp_anchors_map(r->pc);
	if (r->kind == RP_LOG_END && r->outcome.stop_pc)
		r->outcome.stop_pc = rp_anchors_map(r->outcome.stop_pc);
	if (r->kind != RP_LOG_INPUT || !data)
		return;
	size_t at = 0;
	if (r->input_kind == RP_INPUT_SIGNAL_AT && r->len == RP_SIGNAL_AT_LEN)
		at = 9;
	else if (r->input_kind == RP_INPUT_SIGNAL_STOP && r->len == RP_SIGNAL_STOP_LEN)
		at = 13;
	if (!at)
		return;
	memcpy(&pc, data + at, 8);
	if (pc) {
		pc = rp_anchors_map(pc);
		memcpy(data + at, &pc, 8);
	}
}

/* The anchors, loaded once: from --races=EXE, else from the executable the log's first
 * OBJECTS note names (note, len), else (a record needs them and there was no note)
 * refused. */
void rp_anchors_need(const void *note, size_t len)
{
	static bool tried;
	if (tried)
		return;
	char path[4096] = "";
	if (rp_opts.races_of) {
		snprintf(path, sizeof path, "%s", rp_opts.races_of);
	} else if (note) {
		/* its first line: "exe\t<address>\t<build-id>\t<path>" */
		const char *p = note, *end = (const char *)note + len;
		for (int tabs = 0; p < end && tabs < 3; p++)
			tabs += *p == '\t';
		size_t n = 0;
		while (p + n < end && p[n] != '\n' && n + 1 < sizeof path)
			n++;
		memcpy(path, p, n);
		path[n] = '\0';
	}
	tried = true;
	char why[4400];
	if (!*path) {
		rp_say("%s: --races: the log names no executable; give the recorded one with "
		       "--races=EXE", rp_opts.log_path);
		rp_exit(RP_EXIT_USAGE);
	}
	if (rp_anchors_load(path, why, sizeof why) != 0) {
		rp_say("%s: --races: %s", rp_opts.log_path, why);
		rp_exit(RP_EXIT_USAGE);
	}
}
