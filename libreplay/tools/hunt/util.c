/* util.c: replay-hunt's small helpers: the one-line error, durations, the kept
 * files' names, shell quoting for the commands it prints. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hunt.h"

void hunt_die(int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("replay-hunt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(rc);
}

void *hunt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		hunt_die(2, "out of memory");
	return p;
}

uint64_t hunt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "500ms", "10s", "2m", "1h", "250us"; a bare number is seconds. */
bool hunt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e9}, {"m", 60e9},
		     {"min", 60e9}, {"h", 3600e9}};
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v > 0))
		return false;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(end, units[i].unit))
			continue;
		double t = v * units[i].ns;
		if (t < 1 || t > 1e18)
			return false;
		*ns = (uint64_t)t;
		return true;
	}
	return false;
}

/* The shortest exact form among s, ms, us, ns ("1.5s" is 1500ms). */
void hunt_format_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000u));
	else if (ns % 1000000u == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000u));
	else if (ns % 1000u == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000u));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

/* DIR/run-I.EXT, malloc'd. */
char *hunt_path(const struct hunt_opts *o, uint64_t run, const char *ext)
{
	size_t n = strlen(o->keep) + strlen(ext) + 32;
	char *p = hunt_xmalloc(n);
	snprintf(p, n, "%s/run-%llu.%s", o->keep, (unsigned long long)run, ext);
	return p;
}

/* s as one shell word: bare when it is made of safe characters, else in '...'. */
void hunt_print_quoted(FILE *f, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-+=./:,@%") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}
