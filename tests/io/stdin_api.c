/* stdin is a stream of libreplay's (libreplay/io/io_stdio.c: its reads park): what a
 * program does with glibc's stdin must work on it the same way.
 *   - freopen of a file onto stdin: fileno stays 0; fgets, ftell, ungetc, scanf,
 *     fseek back to the start, getline, end of file;
 *   - freopen again, then wide-character reads (fgetws, fgetwc), which a cookie
 *     stream cannot do: stdin goes back to glibc's own stream;
 *   - a failing freopen closes the stream and says why. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

static char path[] = "/tmp/stdin_api.XXXXXX";

static void put(const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	put("first line\nsecond 7 x\nthird\n");
	if (!freopen(path, "r", stdin)) {
		perror("freopen");
		return 1;
	}
	char line[64], word[16];
	int n = 0;
	printf("fileno %d\n", fileno(stdin));
	printf("fgets: %s", fgets(line, sizeof line, stdin) ? line : "(null)\n");
	printf("ftell: %ld\n", ftell(stdin));
	int c = getchar();
	printf("getchar %c, ungetc %c\n", c, ungetc(c, stdin));
	printf("scanf: %d", scanf("%15s %d", word, &n));
	printf(" %s %d\n", word, n);
	printf("fseek: %d\n", fseek(stdin, 0, SEEK_SET));
	char *all = NULL;
	size_t cap = 0;
	int lines = 0;
	while (getline(&all, &cap, stdin) > 0)
		lines++;
	printf("getline: %d lines from the start, then %s\n", lines, feof(stdin) ? "EOF" : "no EOF?");
	free(all);

	setlocale(LC_ALL, "C.UTF-8");
	put("gr\xc3\xbc\xc3\x9f dich \xe2\x82\xac\nzwei\n");
	if (!freopen(path, "r", stdin)) {
		perror("freopen");
		return 1;
	}
	wchar_t w[32];
	if (!fgetws(w, 32, stdin))
		printf("fgetws: failed (%s)\n", strerror(errno));
	else
		printf("fgetws: %zu wide characters, the 3rd U+%04X, the 11th U+%04X\n", wcslen(w),
		       (unsigned)w[2], (unsigned)w[10]);
	wint_t wc = fgetwc(stdin);
	printf("fgetwc: U+%04X, fwide %s\n", (unsigned)wc, fwide(stdin, 0) > 0 ? "wide" : "not wide");

	unlink(path);
	errno = 0;
	FILE *f = freopen(path, "r", stdin);
	printf("freopen of a missing file: %s, errno %s\n", f ? "opened?" : "NULL",
	       errno == ENOENT ? "ENOENT" : strerror(errno));
	return 0;
}
