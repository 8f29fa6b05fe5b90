/* The other file of ownpure.c: the program's own strcspn, instrumented. */
#include <stddef.h>

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;
	for (; s[n]; n++)
		for (const char *r = reject; *r; r++)
			if (s[n] == *r)
				return n;
	return n;
}
