/* sched_create.c: a new thread, its first frame, and its life up to sched_exit. */
#include "sched_impl.h"

#include <stdlib.h>

int sched_new_thread(struct sched_thread **out, const struct sched_thread_attr *attr,
		     size_t default_size, void *(*start)(void *), void *arg)
{
	static const struct sched_thread_attr none;
	if (!attr)
		attr = &none;
	size_t size = attr->stack_size ? attr->stack_size : default_size;
	if (size < SCHED_MIN_STACK_SIZE || (attr->stack_addr && !attr->stack_size))
		return EINVAL;
	struct sched_thread *t = calloc(1, sizeof *t);
	if (!t)
		return EAGAIN;
	int err = 0;
	if (attr->stack_addr) {
		t->stack_lo = attr->stack_addr;
		t->stack_hi = (char *)attr->stack_addr + size;
	} else {
		err = sched_stack_alloc(t, size);
	}
	if (!err && sched_g.next_id == 1)
		t->tp = sched_g.host.tp; /* thread 1, main: keeps the process's TLS */
	else if (!err)
		err = sched_tls_alloc(t);
	if (err) {
		sched_stack_free(t);
		free(t);
		return err;
	}
	t->id = sched_g.next_id++;
	t->start = start;
	t->arg = arg;
	t->detached = attr->detached;
	t->tm_slot = -1;

	/* The frame sched_switch restores (see sched_switch.S): zero registers but
	 * %r12 = t, the creator's MXCSR and x87 control word (POSIX: the floating-point
	 * environment is inherited), and a return into sched_trampoline_entry with %rsp
	 * 16-byte aligned. */
	uint64_t *frame = (uint64_t *)((uintptr_t)t->stack_hi & ~(uintptr_t)15) - 8;
	uint16_t fpucw;
	__asm__("fnstcw %0" : "=m"(fpucw));
	frame[0] = __builtin_ia32_stmxcsr() | (uint64_t)fpucw << 32;
	frame[1] = frame[2] = frame[3] = 0; /* r15 r14 r13 */
	frame[4] = (uintptr_t)t;            /* r12 */
	frame[5] = frame[6] = 0;            /* rbx rbp */
	frame[7] = (uintptr_t)sched_trampoline_entry;
	t->sp = frame;

	t->all_prev = sched_g.all_tail;
	if (sched_g.all_tail)
		sched_g.all_tail->all_next = t;
	else
		sched_g.all_head = t;
	sched_g.all_tail = t;
	sched_g.live++;
	if (sched_g.hooks.on_thread_create)
		sched_g.hooks.on_thread_create(t);
	rq_push(t);
	*out = t;
	return 0;
}

void sched_free_thread(struct sched_thread *t)
{
	if (t->all_prev)
		t->all_prev->all_next = t->all_next;
	else if (sched_g.all_head == t)
		sched_g.all_head = t->all_next;
	if (t->all_next)
		t->all_next->all_prev = t->all_prev;
	else if (sched_g.all_tail == t)
		sched_g.all_tail = t->all_prev;
	sched_stack_free(t);
	free(t);
}

/* Called by sched_trampoline, on the new thread's stack: finish the switch that
 * brought us here (sched_schedule's tail), then run. */
_Noreturn void sched_thread_main(struct sched_thread *self)
{
	errno = 0; /* its own (thread 1's: the host's, saved by sched_run_main) */
	sched_reap();
	if (sched_g.hooks.on_thread_start)
		sched_g.hooks.on_thread_start(self);
	sched_leave();
	sched_exit(self->start(self->arg));
}

int sched_create(struct sched_thread **out, const struct sched_thread_attr *attr,
		 void *(*start)(void *), void *arg)
{
	int err = EPERM;
	sched_enter();
	if (sched_g.running)
		err = sched_new_thread(out, attr, SCHED_DEFAULT_STACK_SIZE, start, arg);
	sched_leave();
	return err;
}
