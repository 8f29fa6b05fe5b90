/* tcp_server.c: answers each connection's number n with "n squared is N" and a
 * serial number, then closes it; its port goes to argv[1]'s file; with argv[2], it
 * ends after that many connections. Built with plain gcc, not recorded: the other
 * process of tests/hermetic's client; bench/world.sh records it too. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 16) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return 1;
	FILE *f = fopen(argv[1], "w");
	fprintf(f, "%d\n", ntohs(a.sin_port));
	fclose(f);
	long last = argc > 2 ? atol(argv[2]) : 0;
	for (unsigned serial = 1; !last || serial <= last; serial++) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			continue;
		char buf[64];
		ssize_t r = read(c, buf, sizeof buf - 1);
		if (r > 0) {
			buf[r] = 0;
			long n = atol(buf);
			int k = snprintf(buf, sizeof buf, "%ld squared is %ld (answer %u)\n", n, n * n, serial);
			if (write(c, buf, (size_t)k) != k)
				perror("write");
		}
		close(c);
	}
	printf("served %ld\n", last);
	return 0;
}
