/* scc.c: the strongly connected components of a directed graph (scc.h). */
#include "scc.h"

#include <stdlib.h>

int scc(int n, int ne, const int *from, const int *to, const bool *root, int *comp,
	void *(*zalloc)(size_t n, size_t size))
{
	/* Adjacency in compressed rows: v's edges are adj[first[v] .. first[v + 1]). */
	int *first = zalloc(n + 1, sizeof *first), *adj = zalloc(ne, sizeof *adj);
	for (int e = 0; e < ne; e++)
		first[from[e] + 1]++;
	for (int k = 0; k < n; k++)
		first[k + 1] += first[k];
	int *fill = zalloc(n, sizeof *fill);
	for (int e = 0; e < ne; e++)
		adj[first[from[e]] + fill[from[e]]++] = to[e];
	int *index = zalloc(n, sizeof *index), *low = zalloc(n, sizeof *low);
	int *stack = zalloc(n, sizeof *stack), *work = zalloc(n, sizeof *work);
	int *edge = zalloc(n, sizeof *edge);
	bool *on = zalloc(n, sizeof *on);
	int next = 1, sp = 0, ncomp = 0;
	for (int k = 0; k < n; k++)
		comp[k] = -1;
	for (int r = 0; r < n; r++) {
		if (index[r] || (root && !root[r]))
			continue;
		int wp = 0;
		work[wp++] = r;
		index[r] = low[r] = next++;
		stack[sp++] = r;
		on[r] = true;
		edge[r] = first[r];
		while (wp) {
			int v = work[wp - 1];
			if (edge[v] < first[v + 1]) {
				int w = adj[edge[v]++];
				if (!index[w]) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on[w] = true;
					edge[w] = first[w];
					work[wp++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			wp--;
			if (wp && low[v] < low[work[wp - 1]])
				low[work[wp - 1]] = low[v];
			if (low[v] == index[v]) {
				int w;
				do {
					w = stack[--sp];
					on[w] = false;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
		}
	}
	free(first), free(adj), free(fill), free(index), free(low);
	free(stack), free(work), free(edge), free(on);
	return ncomp;
}
