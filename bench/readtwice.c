/* readtwice.c: a program whose input is data: reads FILE twice with read(2) in 64 KiB
 * pieces (at most MAX bytes each time) and prints a checksum of what it read
 * (bench/logstore.sh records it). Until file reads are recorded inputs (issue 29), its
 * log holds none of these bytes; reads of /dev/urandom are recorded (incompressible,
 * never the same twice: what storing them costs at worst).
 *
 *   readtwice FILE [MAX] */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	uint64_t sum = 0, total = 0, max = argc > 2 ? strtoull(argv[2], NULL, 10) : UINT64_MAX;
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: readtwice FILE [MAX]\n");
		return 2;
	}
	for (int pass = 0; pass < 2; pass++) {
		int fd = open(argv[1], O_RDONLY);
		ssize_t n;
		uint64_t got = 0;
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		while (got < max && (n = read(fd, buf, max - got < sizeof buf ? max - got : sizeof buf)) > 0) {
			got += (uint64_t)n;
			for (ssize_t i = 0; i < n; i++)
				sum = sum * 31 + buf[i];
			total += (uint64_t)n;
		}
		close(fd);
	}
	printf("%llu bytes, checksum %016llx\n", (unsigned long long)total, (unsigned long long)sum);
	return 0;
}
