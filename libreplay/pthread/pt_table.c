/* pt_table.c: the layer's per-thread records, found by thread id (struct
 * sched_thread's ext belongs to the runtime). Ids count up from 1 and are never
 * reused within a run, so the table is a growing array. */
#include "pthread/pt_impl.h"
#include "base/rp_alloc.h"

#include <stdlib.h>
#include <string.h>

static struct pt_thread **table;
static size_t table_len;
static int highest = 1; /* the highest id registered */

/* Thread 1 and the host (id 0) share one record, never freed: the host runs the
 * program's constructors before main and its atexit handlers after. */
static struct pt_thread main_record = {.id = 1};

static int reserve(int id)
{
	if ((size_t)id < table_len)
		return 0;
	size_t n = table_len ? table_len : 64;
	while (n <= (size_t)id)
		n *= 2;
	struct pt_thread **t = realloc(table, n * sizeof *t);
	if (!t)
		return ENOMEM;
	memset(t + table_len, 0, (n - table_len) * sizeof *t);
	table = t;
	table_len = n;
	return 0;
}

int pt_table_reserve_next(void)
{
	return reserve(highest + 1);
}

void pt_register(struct pt_thread *pt)
{
	if (reserve(pt->id))
		rp_fatal_memory("a new thread");
	table[pt->id] = pt;
	if (pt->id > highest)
		highest = pt->id;
}

struct pt_thread *pt_find(struct sched_thread *t)
{
	int id = sched_thread_id(t);
	if (id <= 1)
		return &main_record;
	return (size_t)id < table_len ? table[id] : NULL;
}

struct pt_thread *pt_self(void)
{
	struct sched_thread *cur = sched_current();
	struct pt_thread *pt = pt_find(cur);
	if (pt)
		return pt;
	/* A thread the layer did not create (the runtime's own). */
	pt = calloc(1, sizeof *pt);
	if (!pt)
		rp_fatal_memory("a new thread");
	pt->id = sched_thread_id(cur);
	pt_register(pt);
	return pt;
}

void pt_release(struct pt_thread *pt)
{
	if (pt == &main_record)
		return;
	if ((size_t)pt->id < table_len && table[pt->id] == pt)
		table[pt->id] = NULL;
	free(pt->spec);
	free(pt->robust);
	pt_sigq_drop(pt);
	free(pt);
}

/* The signal queues belong to the records (the signals layer fills them). */
unsigned pt_signals_queued;
enum pt_handled (*pt_deliver_hook)(struct pt_thread *self);

void pt_sigq_drop(struct pt_thread *pt)
{
	while (pt->sigq) {
		struct pt_sigq *q = pt->sigq;
		pt->sigq = q->next;
		pt_signals_queued--;
		free(q);
	}
	pt->sigpending = 0;
}
