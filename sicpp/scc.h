/* scc.h: the strongly connected components of a directed graph (scc.c), for the call
 * graphs of sicpp (a file's direct calls, analyze_calls.c) and of sicc's link step
 * (the calls between files that count nowhere, sicc_link.c). */
#ifndef SICPP_SCC_H
#define SICPP_SCC_H

#include <stdbool.h>
#include <stddef.h>

/* Tarjan's algorithm, iteratively (a chain of calls may be thousands deep), on nodes
 * 0 .. n-1 and the edges from[e] -> to[e], e < ne, each node's taken in their order.
 * Every node reached from a root (every node when root is NULL, else those with
 * root[v]) gets its component in comp[v], numbered from 0 in the order they close;
 * the others get -1. Returns the number of components. zalloc: the caller's calloc,
 * which does not return on failure. */
int scc(int n, int ne, const int *from, const int *to, const bool *root, int *comp,
	void *(*zalloc)(size_t n, size_t size));

#endif
