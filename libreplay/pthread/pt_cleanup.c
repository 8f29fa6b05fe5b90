/* pt_cleanup.c: what glibc's pthread_cleanup_push/pop macros call. In C without
 * -fexceptions they keep a __pthread_unwind_buf_t in the caller's frame (its jmp_buf
 * filled by __sigsetjmp) and register it here; pt_unwind jumps back to it when the
 * thread exits. __pad[0] links the buffers, newest first; __pad[2] keeps the
 * cancellation type of the _defer variants. The old interface, _pthread_cleanup_push
 * and friends, keeps a struct _pthread_cleanup_buffer instead.
 *
 * Code built with -fexceptions (and C++) expands the macros to a cleanup attribute or
 * a destructor, which only a forced unwind runs: pthread_exit does not do one, so
 * those handlers run only through pthread_cleanup_pop. */
#include "pthread/pt_impl.h"

void __pthread_register_cancel(__pthread_unwind_buf_t *buf)
{
	struct pt_thread *self = pt_self();
	buf->__pad[0] = self->cancel_bufs;
	self->cancel_bufs = buf;
}

void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf)
{
	pt_self()->cancel_bufs = buf->__pad[0];
}

void __pthread_register_cancel_defer(__pthread_unwind_buf_t *buf)
{
	struct pt_thread *self = pt_self();
	__pthread_register_cancel(buf);
	buf->__pad[2] = (void *)(uintptr_t)self->cancel_async;
	self->cancel_async = false;
}

void __pthread_unregister_cancel_restore(__pthread_unwind_buf_t *buf)
{
	struct pt_thread *self = pt_self();
	__pthread_unregister_cancel(buf);
	self->cancel_async = buf->__pad[2] != NULL;
	if (self->cancel_async)
		pt_testcancel(self);
}

void _pthread_cleanup_push(struct _pthread_cleanup_buffer *buf, void (*routine)(void *),
			   void *arg)
{
	struct pt_thread *self = pt_self();
	buf->__routine = routine;
	buf->__arg = arg;
	buf->__prev = self->cleanup_bufs;
	self->cleanup_bufs = buf;
}

void _pthread_cleanup_pop(struct _pthread_cleanup_buffer *buf, int execute)
{
	pt_self()->cleanup_bufs = buf->__prev;
	if (execute)
		buf->__routine(buf->__arg);
}

void _pthread_cleanup_push_defer(struct _pthread_cleanup_buffer *buf,
				 void (*routine)(void *), void *arg)
{
	struct pt_thread *self = pt_self();
	_pthread_cleanup_push(buf, routine, arg);
	buf->__canceltype = self->cancel_async ? PTHREAD_CANCEL_ASYNCHRONOUS
					       : PTHREAD_CANCEL_DEFERRED;
	self->cancel_async = false;
}

void _pthread_cleanup_pop_restore(struct _pthread_cleanup_buffer *buf, int execute)
{
	struct pt_thread *self = pt_self();
	self->cleanup_bufs = buf->__prev;
	self->cancel_async = buf->__canceltype == PTHREAD_CANCEL_ASYNCHRONOUS;
	if (self->cancel_async)
		pt_testcancel(self);
	if (execute)
		buf->__routine(buf->__arg);
}
