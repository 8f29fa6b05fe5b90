/* pt_key.c: thread-specific data. A key is an index into one global table; its
 * sequence number is odd while it exists and changes at every create and delete, so
 * a thread's value set under an earlier key of the same index reads as NULL. */
#include "pthread/pt_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct {
	unsigned seq;
	void (*destructor)(void *);
} keys[PTHREAD_KEYS_MAX];

static bool key_live(pthread_key_t key)
{
	return key < PTHREAD_KEYS_MAX && (keys[key].seq & 1);
}

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
	for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; k++) {
		/* A free slot whose sequence number has room to go round again. */
		if (!(keys[k].seq & 1) && keys[k].seq < UINT_MAX - 1) {
			keys[k].seq++;
			keys[k].destructor = destructor;
			*key = k;
			return 0;
		}
	}
	return EAGAIN;
}

int pthread_key_delete(pthread_key_t key)
{
	if (!key_live(key))
		return EINVAL;
	keys[key].seq++;
	keys[key].destructor = NULL;
	return 0;
}

void *pthread_getspecific(pthread_key_t key)
{
	struct pt_thread *self = pt_self();
	if (key >= self->nspec || !key_live(key) || self->spec[key].seq != keys[key].seq)
		return NULL;
	return self->spec[key].value;
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
	if (!key_live(key))
		return EINVAL;
	struct pt_thread *self = pt_self();
	if (key >= self->nspec) {
		unsigned n = self->nspec ? self->nspec : 16;
		while (n <= key)
			n *= 2;
		struct pt_specific *s = realloc(self->spec, n * sizeof *s);
		if (!s)
			return ENOMEM;
		memset(s + self->nspec, 0, (n - self->nspec) * sizeof *s);
		self->spec = s;
		self->nspec = n;
	}
	self->spec[key].seq = keys[key].seq;
	self->spec[key].value = (void *)value;
	return 0;
}

/* At thread exit: call the destructor of every non-NULL value (set to NULL first),
 * again while destructors set new values, at most PTHREAD_DESTRUCTOR_ITERATIONS
 * rounds. A destructor may create, delete or set keys: everything is re-read. */
void pt_run_destructors(struct pt_thread *self)
{
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		bool called = false;
		for (pthread_key_t k = 0; k < self->nspec; k++) {
			struct pt_specific *s = &self->spec[k];
			if (!s->value || !key_live(k) || s->seq != keys[k].seq ||
			    !keys[k].destructor)
				continue;
			void *value = s->value;
			s->value = NULL;
			keys[k].destructor(value);
			called = true;
		}
		if (!called)
			break;
	}
	free(self->spec);
	self->spec = NULL;
	self->nspec = 0;
}

PT_ALIAS(__pthread_key_create, pthread_key_create);
PT_ALIAS(__pthread_getspecific, pthread_getspecific);
PT_ALIAS(__pthread_setspecific, pthread_setspecific);
