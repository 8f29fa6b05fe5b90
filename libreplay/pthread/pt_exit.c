/* pt_exit.c: pthread_exit: the cleanup handlers (newest first), the thread_local and
 * thread-specific data destructors, the robust mutexes still held, then sched_exit. */
#include "pthread/pt_impl.h"

/* longjmp, declared for the buffer glibc's macro hands to __sigsetjmp (shorter than a
 * jmp_buf: with savemask 0, only that prefix is used). */
extern void pt_longjmp(struct __cancel_jmp_buf_tag env[1], int val) __asm__("longjmp")
	__attribute__((noreturn));

/* Run the next cleanup handler. An old-style one (_pthread_cleanup_push) is called
 * from here; for one of pthread_cleanup_push's buffers we jump back into the frame
 * that pushed it: its __sigsetjmp returns 1, the macro calls the handler, then
 * __pthread_unwind_next brings us back. Whichever was pushed last lies deeper in the
 * stack (at a lower address) and goes first. */
_Noreturn void pt_unwind(struct pt_thread *self)
{
	for (;;) {
		__pthread_unwind_buf_t *buf = self->cancel_bufs;
		struct _pthread_cleanup_buffer *old = self->cleanup_bufs;
		if (old && (!buf || (uintptr_t)old < (uintptr_t)buf)) {
			self->cleanup_bufs = old->__prev;
			old->__routine(old->__arg);
			continue;
		}
		if (!buf)
			break;
		self->cancel_bufs = buf->__pad[0];
		pt_longjmp(buf->__cancel_jmp_buf, 1);
	}
	pt_finish(self, self->retval);
}

_Noreturn void pt_finish(struct pt_thread *self, void *retval)
{
	if (!self->finishing) {
		self->finishing = true;
		pt_run_tls_dtors(self);
		pt_run_destructors(self);
	}
	pt_robust_release_all(self);
	self->exited = true;
	if (self->detached)
		pt_release(self); /* nobody joins it; its stack is sched's */
	sched_exit(retval);
}

void pthread_exit(void *retval)
{
	struct pt_thread *self = pt_self();
	/* Called again from a destructor: the thread ends now. From a cleanup handler:
	 * the remaining handlers still run. */
	if (self->finishing)
		pt_finish(self, retval);
	self->exiting = true; /* no cancellation from now on */
	self->retval = retval;
	pt_unwind(self);
}

/* glibc's pthread_cleanup_push macro calls this after running a handler on the way
 * out of the thread. */
void __pthread_unwind_next(__pthread_unwind_buf_t *buf)
{
	pt_unwind(pt_self());
}
