/* A heisenbug: transfers between two accounts keep the total constant... unless a
 * time slice ends inside transfer(), between the debit and the credit, while the
 * auditor is looking. It fails in some runs only, and never the same way twice;
 * record until it fails, then replay the failing run under gdb as often as needed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long account[2] = {500000, 500000};
static volatile int done;

static void transfer(int from, int to, long amount)
{
	account[from] -= amount; /* the bug: no lock, so the money is in flight here */
	account[to] += amount;
}

static void *teller(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 300000; i++)
		transfer((int)(id ^ (i & 1)), (int)!(id ^ (i & 1)), 1 + i % 10);
	return NULL;
}

static void *auditor(void *arg)
{
	long audits = 0;
	while (!done) {
		long total = account[0] + account[1];
		audits++;
		if (total != 1000000) {
			printf("invariant violated after %ld audits: total = %ld\n", audits, total);
			exit(1);
		}
	}
	printf("books balanced over %ld audits\n", audits);
	return NULL;
}

int main(void)
{
	pthread_t t[2], a;
	pthread_create(&a, NULL, auditor, NULL);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, teller, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	done = 1;
	pthread_join(a, NULL);
	return 0;
}
