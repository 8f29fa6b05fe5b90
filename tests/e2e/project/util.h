long collatz_steps(long n);
int cmp_long(const void *a, const void *b);
