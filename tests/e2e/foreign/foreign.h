#ifndef FOREIGN_H
#define FOREIGN_H
void foreign_foreach(const int *a, int n, void (*cb)(int, void *), void *ctx);
long foreign_reduce(long (*op)(long, long), const long *a, int n, long init);
long foreign_nest(long (*cb)(long, int), long x, int depth);
/* r15.S: foreign code that keeps its own state in %r15 across the callback and
 * returns -1 if the callback changed it. */
long foreign_r15_call(long (*cb)(long), long arg, long magic);
/* Loops n times with its counter in %r15, calling cb(i) each time; returns the sum,
 * or -1 if %r15 was not preserved. */
long foreign_r15_loop(long (*cb)(long), long n);
#endif
