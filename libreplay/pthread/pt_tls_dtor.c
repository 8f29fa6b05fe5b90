/* pt_tls_dtor.c: thread_local destructors. C++ registers each thread_local object's
 * destructor with __cxa_thread_atexit_impl when the object is built; glibc keeps
 * them in a list in the thread's TLS and runs them, newest first, when its pthread
 * ends, or in exit() for the thread that calls it. A green thread's TLS is its own
 * copy (sched_tls.c), whose end glibc never sees: the layer keeps the list in the
 * thread's record and runs it in pt_finish, before the thread-specific data
 * destructors, as glibc does. Thread 1's TLS is glibc's own: its destructors stay
 * glibc's, which runs them in exit() after main returns. */
#include "pthread/pt_impl.h"
#include "base/rp_alloc.h"

#include <dlfcn.h>
#include <stdlib.h>

struct pt_tls_dtor {
	struct pt_tls_dtor *next;
	void (*fn)(void *);
	void *obj;
};

int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso)
{
	struct pt_thread *self = pt_self();
	if (self->id <= 1) {
		static int (*glibc)(void (*)(void *), void *, void *);
		if (!glibc)
			glibc = (int (*)(void (*)(void *), void *, void *))dlvsym(
				RTLD_NEXT, "__cxa_thread_atexit_impl", "GLIBC_2.18");
		if (!glibc)
			rp_fatal("the C library has no __cxa_thread_atexit_impl (GLIBC_2.18)");
		return glibc(fn, obj, dso);
	}
	struct pt_tls_dtor *d = malloc(sizeof *d);
	if (!d) /* glibc's gives up the same way */
		rp_fatal_memory("a thread_local destructor");
	d->fn = fn;
	d->obj = obj;
	d->next = self->tls_dtors;
	self->tls_dtors = d;
	return 0;
}

void pt_run_tls_dtors(struct pt_thread *self)
{
	while (self->tls_dtors) { /* a destructor may register more: re-read */
		struct pt_tls_dtor *d = self->tls_dtors;
		self->tls_dtors = d->next;
		d->fn(d->obj);
		free(d);
	}
}
