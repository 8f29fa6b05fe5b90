/* Reads a file (argv[1]) twice, 8 bytes at a time into one buffer, then 8 random bytes
 * twice into another (getrandom), and prints what each read gave. A log cut between a
 * read's result and its bytes must not hand the second read the first one's bytes,
 * left in the buffer. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[9];
	unsigned char rnd[8];
	int fd = open(argc > 1 ? argv[1] : "two_reads.txt", O_RDONLY);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	for (int i = 1; i <= 2; i++) {
		ssize_t n = read(fd, buf, 8);
		buf[n > 0 ? n : 0] = '\0';
		printf("read %d: %zd bytes '%s'\n", i, n, buf);
	}
	for (int i = 1; i <= 2; i++) {
		ssize_t n = getrandom(rnd, sizeof rnd, 0);
		printf("random %d: %zd bytes ", i, n);
		for (ssize_t k = 0; k < n; k++)
			printf("%02x", rnd[k]);
		printf("\n");
	}
	close(fd);
	return 0;
}
