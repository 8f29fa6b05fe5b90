/* escapes.c: system calls glibc makes for itself, past libreplay's wrappers: fopen's
 * open and fgets's read of a regular file, mkstemp's open, unlink (not wrapped), and
 * getpwnam reading /etc/nsswitch.conf and /etc/passwd. --syscall-audit names them. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char line[128] = "";
	FILE *f = fopen("input.txt", "r");
	if (!f || !fgets(line, sizeof line, f))
		return 1;
	fclose(f);
	char name[] = "audit-XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		return 1;
	unlink(name);
	close(fd);
	struct passwd *pw = getpwnam("root");
	printf("line %s", line);
	printf("root uid %d\n", pw ? (int)pw->pw_uid : -1);
	return 0;
}
