/* made_file.c: two threads each write a file of their own, then read both back
 * and print what they hold; the files are removed at the end (tests/gdb/reverse.sh:
 * going back in time past the writes and the removal reads the same again). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *writer(void *arg)
{
	const char *name = arg;
	FILE *f = fopen(name, "w");
	for (int i = 0; f && i < 100; i++)
		fprintf(f, "%s line %d\n", name, i);
	if (f)
		fclose(f);
	return NULL;
}

static long count(const char *name)
{
	FILE *f = fopen(name, "r");
	long lines = 0;
	char buf[128];
	while (f && fgets(buf, sizeof buf, f))
		lines++;
	if (f)
		fclose(f);
	return lines;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, "made_a.txt");
	pthread_create(&b, NULL, writer, "made_b.txt");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	long n = count("made_a.txt") + count("made_b.txt");
	unlink("made_a.txt");
	unlink("made_b.txt");
	printf("%ld lines\n", n); /* read back */
	return 0;
}
