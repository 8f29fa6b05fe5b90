/* pt_c11.c: C11 <threads.h> on the layer's pthreads (glibc's own versions call its
 * internal pthreads, which would start kernel threads). */
#include "pthread/pt_impl.h"

#include <stdlib.h>
#include <threads.h>

static int result(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case ENOMEM:
		return thrd_nomem;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	default:
		return thrd_error;
	}
}

struct start {
	thrd_start_t fn;
	void *arg;
};

/* A thrd_start_t returns an int, not a pointer. */
static void *c11_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	return (void *)(intptr_t)s.fn(s.arg);
}

int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
	struct start *s = malloc(sizeof *s);
	if (!s)
		return thrd_nomem;
	s->fn = fn;
	s->arg = arg;
	int err = pthread_create(thr, NULL, c11_start, s);
	if (err)
		free(s);
	return result(err);
}

int thrd_equal(thrd_t a, thrd_t b)
{
	return a == b;
}

thrd_t thrd_current(void)
{
	return pthread_self();
}

int thrd_sleep(const struct timespec *duration, struct timespec *remaining)
{
	int saved = errno;
	int r = nanosleep(duration, remaining);
	int err = errno;
	errno = saved;
	return r == 0 ? 0 : err == EINTR ? -1 : -2;
}

void thrd_exit(int res)
{
	pthread_exit((void *)(intptr_t)res);
}

int thrd_detach(thrd_t thr)
{
	return result(pthread_detach(thr));
}

int thrd_join(thrd_t thr, int *res)
{
	void *value;
	int err = pthread_join(thr, &value);
	if (!err && res)
		*res = (int)(intptr_t)value;
	return result(err);
}

void thrd_yield(void)
{
	sched_yield();
}

int mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t a;
	/* Another type is undefined; glibc makes a plain mutex too. */
	int kind = type & mtx_recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, kind);
	return result(pthread_mutex_init((pthread_mutex_t *)m, &a));
}

int mtx_lock(mtx_t *m)
{
	return result(pthread_mutex_lock((pthread_mutex_t *)m));
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abstime)
{
	return result(pthread_mutex_timedlock((pthread_mutex_t *)m, abstime));
}

int mtx_trylock(mtx_t *m)
{
	return result(pthread_mutex_trylock((pthread_mutex_t *)m));
}

int mtx_unlock(mtx_t *m)
{
	return result(pthread_mutex_unlock((pthread_mutex_t *)m));
}

void mtx_destroy(mtx_t *m)
{
	pthread_mutex_destroy((pthread_mutex_t *)m);
}

void call_once(once_flag *flag, void (*fn)(void))
{
	pthread_once((pthread_once_t *)flag, fn);
}

int cnd_init(cnd_t *c)
{
	return result(pthread_cond_init((pthread_cond_t *)c, NULL));
}

int cnd_signal(cnd_t *c)
{
	return result(pthread_cond_signal((pthread_cond_t *)c));
}

int cnd_broadcast(cnd_t *c)
{
	return result(pthread_cond_broadcast((pthread_cond_t *)c));
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
	return result(pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict abstime)
{
	return result(pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m, abstime));
}

void cnd_destroy(cnd_t *c)
{
	pthread_cond_destroy((pthread_cond_t *)c);
}

int tss_create(tss_t *key, tss_dtor_t destructor)
{
	return result(pthread_key_create(key, destructor));
}

void *tss_get(tss_t key)
{
	return pthread_getspecific(key);
}

int tss_set(tss_t key, void *value)
{
	return result(pthread_setspecific(key, value));
}

void tss_delete(tss_t key)
{
	pthread_key_delete(key);
}
