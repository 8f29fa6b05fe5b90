/*
 * sicc_link.c: sicc's link step, calls between files (docs/sic.md, "Calls between
 * files"). A call to another file's function f goes to f.sic_xcall, which f's object
 * defines as a count right before f's direct entry, or a thunk that counts and jumps
 * there (sicpp/xcall.c). Once the program is linked, its .sic_xcalls section holds,
 * from every object the link took (archive members included, exactly those), which
 * functions' counts there a link may skip (no leaf's), which are called so, and which
 * other files' functions each function reaches through calls that count nowhere. Such
 * a count is needed only where those calls can come back to its function: a cycle of
 * that graph, and one count on each of its cycles is enough (feedback_set). Every other
 * f.sic_xcall that is called is pointed at f.sic_direct
 * (--defsym) and the program linked again: its callers then reach the direct entry
 * with nothing on the way, and f's returns count, as for a caller of f's own file.
 */
#include "sicc_link.h"
#include "analyze.h"
#include "scc.h"

#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contents of section name of the ELF file at path (NUL-terminated), or NULL. */
static char *read_section(const char *path, const char *name, size_t *len)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	char *out = NULL, *names = NULL;
	Elf64_Shdr *sh = NULL;
	if (!f)
		return NULL;
	if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shnum == 0 || eh.e_shnum > 65000 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof *sh);
	if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) || fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
		goto out;
	const Elf64_Shdr *ss = &sh[eh.e_shstrndx];
	names = malloc(ss->sh_size + 1);
	if (!names || fseek(f, (long)ss->sh_offset, SEEK_SET) || fread(names, 1, ss->sh_size, f) != ss->sh_size)
		goto out;
	names[ss->sh_size] = '\0';
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name >= ss->sh_size || strcmp(names + sh[i].sh_name, name) ||
		    sh[i].sh_type != SHT_PROGBITS || sh[i].sh_size > (1u << 30))
			continue;
		out = malloc(sh[i].sh_size + 1);
		if (!out || fseek(f, (long)sh[i].sh_offset, SEEK_SET) ||
		    fread(out, 1, sh[i].sh_size, f) != sh[i].sh_size) {
			free(out);
			out = NULL;
			goto out;
		}
		out[sh[i].sh_size] = '\0';
		*len = sh[i].sh_size;
		break;
	}
out:
	free(names);
	free(sh);
	fclose(f);
	return out;
}

/* The graph: nodes are function names, edges "reaches without a count". */
struct graph {
	char **name;
	int n, cap;
	int *hash;
	int hcap;
	bool *thunk;      /* T: f's cross-file entry has a count a link may skip */
	bool *called;     /* X: some file calls f at its cross-file entry */
	int *efrom, *eto;
	int ne, ecap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("sicc: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static unsigned long hash_of(const char *s)
{
	unsigned long h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int node(struct graph *g, const char *name)
{
	if (2 * (g->n + 1) > g->hcap) {
		int cap = g->hcap ? 2 * g->hcap : 1024;
		int *h = xrealloc(NULL, cap * sizeof *h);
		for (int k = 0; k < cap; k++)
			h[k] = -1;
		for (int k = 0; k < g->n; k++) {
			unsigned long j = hash_of(g->name[k]) & (cap - 1);
			while (h[j] >= 0)
				j = (j + 1) & (cap - 1);
			h[j] = k;
		}
		free(g->hash);
		g->hash = h;
		g->hcap = cap;
	}
	unsigned long j = hash_of(name) & (g->hcap - 1);
	for (; g->hash[j] >= 0; j = (j + 1) & (g->hcap - 1))
		if (!strcmp(g->name[g->hash[j]], name))
			return g->hash[j];
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->name = xrealloc(g->name, g->cap * sizeof *g->name);
		g->thunk = xrealloc(g->thunk, g->cap * sizeof *g->thunk);
		g->called = xrealloc(g->called, g->cap * sizeof *g->called);
	}
	g->name[g->n] = strdup(name);
	if (!g->name[g->n]) {
		fputs("sicc: out of memory\n", stderr);
		exit(1);
	}
	g->thunk[g->n] = g->called[g->n] = false;
	g->hash[j] = g->n;
	return g->n++;
}

static void edge(struct graph *g, int from, int to)
{
	if (g->ne == g->ecap) {
		g->ecap = g->ecap ? 2 * g->ecap : 1024;
		g->efrom = xrealloc(g->efrom, g->ecap * sizeof *g->efrom);
		g->eto = xrealloc(g->eto, g->ecap * sizeof *g->eto);
	}
	g->efrom[g->ne] = from;
	g->eto[g->ne++] = to;
}

/* "T f", "X f" and "R f g h ..." lines (sicpp/xcall.c). */
static void parse_facts(struct graph *g, char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *save, *kind = strtok_r(line, " ", &save), *name = kind ? strtok_r(NULL, " ", &save) : NULL;
		if (!name)
			continue;
		int v = node(g, name);
		if (!strcmp(kind, "T"))
			g->thunk[v] = true;
		else if (!strcmp(kind, "X"))
			g->called[v] = true;
		else if (!strcmp(kind, "R"))
			for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save))
				edge(g, v, node(g, t));
	}
}

/* calloc for scc(), that does not return on failure. */
static void *zalloc(size_t n, size_t size)
{
	return memset(xrealloc(NULL, n * size), 0, n * size);
}

/* cyclic[v]: v lies on a cycle (a strongly connected component of two or more, or an
 * edge to itself) of the graph's live nodes (all when live is NULL), and comp[v] its
 * component (scc.c). */
static bool *cycles(struct graph *g, const bool *live, int *comp)
{
	int n = g->n, ne = 0;
	int *from = zalloc(g->ne, sizeof *from), *to = zalloc(g->ne, sizeof *to);
	bool *cyclic = zalloc(n, sizeof *cyclic);
	for (int e = 0; e < g->ne; e++)
		if (!live || (live[g->efrom[e]] && live[g->eto[e]])) {
			from[ne] = g->efrom[e];
			to[ne++] = g->eto[e];
			cyclic[g->efrom[e]] |= g->efrom[e] == g->eto[e];
		}
	int *size = zalloc(scc(n, ne, from, to, NULL, comp, zalloc), sizeof *size);
	for (int k = 0; k < n; k++)
		size[comp[k]]++;
	for (int k = 0; k < n; k++)
		cyclic[k] |= size[comp[k]] > 1;
	free(from), free(to), free(size);
	return cyclic;
}

/* A name --defsym takes as it is. */
static bool plain(const char *s);

/* The functions whose cross-file entries keep their counts: a set that every cycle of
 * the graph passes (a feedback vertex set), so that no cycle of calls between files
 * goes without a count. A function whose count no link skips (a leaf's, a shim's, one
 * not called so, one --defsym cannot name) breaks every cycle through it already; of
 * the others, each cyclic component gives up the function with the most calls in and
 * out inside it (in x out: the hubs, GC and error paths, which cut the most cycles), the
 * component is searched again without it, and so on until no cycle is left. On Lua
 * that keeps 5 of the 54 counts the whole component kept. */
static bool *feedback_set(struct graph *g)
{
	int n = g->n;
	bool *live = xrealloc(NULL, n * sizeof *live), *kept = xrealloc(NULL, n * sizeof *kept);
	int *comp = xrealloc(NULL, n * sizeof *comp), *in = xrealloc(NULL, n * sizeof *in);
	int *out = xrealloc(NULL, n * sizeof *out), *best = xrealloc(NULL, n * sizeof *best);
	for (int k = 0; k < n; k++) {
		live[k] = g->thunk[k] && g->called[k] && plain(g->name[k]);
		kept[k] = false;
	}
	for (;;) {
		bool *cyclic = cycles(g, live, comp);
		bool any = false;
		for (int k = 0; k < n; k++) {
			in[k] = out[k] = 0;
			best[k] = -1;
			any |= live[k] && cyclic[k];
		}
		if (!any) {
			free(cyclic);
			break;
		}
		for (int e = 0; e < g->ne; e++) {
			int a = g->efrom[e], b = g->eto[e];
			if (live[a] && live[b] && comp[a] == comp[b]) {
				out[a]++;
				in[b]++;
			}
		}
		/* comp[] numbers components below n: the best node of each */
		for (int k = 0; k < n; k++) {
			if (!live[k] || !cyclic[k])
				continue;
			/* ties to the first name: the same choice in any link order */
			int *b = &best[comp[k]];
			long sk = (long)in[k] * out[k], sb = *b < 0 ? -1 : (long)in[*b] * out[*b];
			if (sk > sb || (sk == sb && strcmp(g->name[k], g->name[*b]) < 0))
				*b = k;
		}
		for (int c = 0; c < n; c++)
			if (best[c] >= 0) {
				kept[best[c]] = true;
				live[best[c]] = false;
			}
		free(cyclic);
	}
	free(live), free(comp), free(in), free(out), free(best);
	return kept;
}

/* A name --defsym takes as it is. */
static bool plain(const char *s)
{
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
		    *s != '_' && *s != '.')
			return false;
	return true;
}

char **sicc_link_defsyms(const char *output, int *count)
{
	size_t len = 0;
	char *text = read_section(output, ".sic_xcalls", &len);
	*count = 0;
	if (!text)
		return NULL;
	for (size_t k = 0; k < len; k++) /* the linker may pad between objects' parts */
		if (!text[k])
			text[k] = '\n';
	struct graph g = {0};
	parse_facts(&g, text);
	free(text);
	bool *kept = feedback_set(&g);
	char **out = NULL;
	int n = 0;
	for (int k = 0; k < g.n; k++) {
		if (!g.thunk[k] || !g.called[k] || kept[k] || !plain(g.name[k]))
			continue;
		out = xrealloc(out, (n + 1) * sizeof *out);
		size_t sz = 2 * strlen(g.name[k]) + 64;
		out[n] = xrealloc(NULL, sz);
		snprintf(out[n++], sz, "-Wl,--defsym=%s" SIC_XCALL_SUFFIX "=%s" SIC_DIRECT_SUFFIX, g.name[k], g.name[k]);
	}
	for (int k = 0; k < g.n; k++)
		free(g.name[k]);
	free(g.name), free(g.hash), free(g.thunk), free(g.called), free(g.efrom), free(g.eto), free(kept);
	*count = n;
	return out;
}
