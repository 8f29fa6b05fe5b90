/* pt_read_inputs.c: read() for recorded inputs: a read of a random device is
 * recorded (rp_input_fd_read, pt_random_dev.c); any other goes to the kernel.
 * To be merged with the io engineer's read() wrapper (blocking reads on pipes and
 * sockets): that one calls rp_input_fd_read first, and this file goes away. */
#include "rp_impl.h"

#include <sys/syscall.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r;
	if (rp_input_fd_read(fd, buf, n, &r))
		return r;
	return syscall(SYS_read, fd, buf, n);
}

/* _FORTIFY_SOURCE's checked read: the same, after the buffer check glibc makes. */
extern void __chk_fail(void) __attribute__((noreturn));

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return read(fd, buf, n);
}
