/* A small thread pool, the way libraries ship one: built as a shared object. */
#ifndef POOL_H
#define POOL_H
struct pool;
struct pool *pool_create(int nthreads);
/* Run fn(arg) on a worker; each task also mixes `work` rounds into the pool's
 * checksum, inside the library. */
int pool_submit(struct pool *p, void (*fn)(void *), void *arg, long work);
void pool_wait(struct pool *p);           /* until every submitted task has run */
unsigned long pool_checksum(const struct pool *p);
void pool_destroy(struct pool *p);
#endif
