/* map_file.c: hashes input.txt through mmap (tests/hermetic: the mapped pages are an input). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void)
{
	int fd = open("input.txt", O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) return 1;
	unsigned char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) return 2;
	unsigned long h = 0;
	for (off_t i = 0; i < st.st_size; i++) h = h * 31 + p[i];
	printf("%ld bytes hash %lx\n", (long)st.st_size, h);
	return 0;
}
