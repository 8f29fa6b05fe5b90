/* reverse-next at -O2 -g through a loop whose lines interleave with two inlined calls
 * of a static function (tests/gdb/reverse.sh): each reverse-next lands where a
 * forward next stops, never inside the inlined code. */
#include <pthread.h>
#include <stdio.h>

static volatile int g = 3;
static int out[64];

static inline int helper(int x)
{
	int y = x * g;
	y += g >> 1;
	return y ^ x;
}

static void *work(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 64; i++) {
		int a = helper(i + (int)id);
		out[i] = a + 1;
		out[(i + 1) & 63] += helper(a);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, work, (void *)1);
	pthread_join(t, NULL);
	printf("%d\n", out[5]);
	return 0;
}
