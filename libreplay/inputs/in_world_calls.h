/* in_world_calls.h: the calls a WORLD input (kind 41) names, by number (the log's
 * meaning: numbers are never reused) and by name for messages: the runtime's
 * (inputs/in_world.c) and replay-dump's (tools/input.c). X(NAME, number, "text"). */
#ifndef IN_WORLD_CALLS_H
#define IN_WORLD_CALLS_H

#define IN_WORLD_CALLS(X) \
	X(INHERITED, 1, "(the descriptors the program started with)") \
	X(OPEN, 2, "open") \
	X(READ, 3, "read") \
	X(PREAD, 4, "pread") \
	X(WRITE, 5, "write") \
	X(PWRITE, 6, "pwrite") \
	X(LSEEK, 7, "lseek") \
	X(FSTAT, 8, "fstat") \
	X(STAT, 9, "stat") \
	X(ACCESS, 10, "access") \
	X(READLINK, 11, "readlink") \
	X(GETDENTS, 12, "getdents64") \
	X(UNLINK, 13, "unlink") \
	X(RENAME, 14, "rename") \
	X(MKDIR, 15, "mkdir") \
	X(RMDIR, 16, "rmdir") \
	X(LINK, 17, "link") \
	X(SYMLINK, 18, "symlink") \
	X(CHMOD, 19, "chmod") \
	X(CHOWN, 20, "chown") \
	X(TRUNCATE, 21, "truncate") \
	X(UTIMES, 22, "utimensat") \
	X(SYNC, 23, "fsync") \
	X(GETCWD, 24, "getcwd") \
	X(CHDIR, 25, "chdir") \
	X(MKSTEMP, 26, "mkstemp") \
	X(REALPATH, 27, "realpath") \
	X(SOCKET, 28, "socket") \
	X(CONNECT, 29, "connect") \
	X(BIND, 30, "bind") \
	X(LISTEN, 31, "listen") \
	X(ACCEPT, 32, "accept") \
	X(SEND, 33, "send") \
	X(RECV, 34, "recv") \
	X(SOCKNAME, 35, "getsockname") \
	X(PEERNAME, 36, "getpeername") \
	X(SOCKOPT, 37, "getsockopt") \
	X(SHUTDOWN, 38, "shutdown") \
	X(POLL, 39, "poll") \
	X(EPOLL, 40, "epoll_wait") \
	X(MMAP, 41, "mmap") \
	X(FCNTL, 42, "fcntl") \
	X(IOCTL, 43, "ioctl") \
	X(STATFS, 44, "statfs") \
	X(XATTR, 45, "getxattr") \
	X(OTHER, 46, "a call") \
	X(STATX, 47, "statx") \
	X(SETXATTR, 48, "setxattr") \
	X(MKDTEMP, 49, "mkdtemp") \
	X(TMPNAM, 50, "tmpnam, tempnam or mktemp") \
	X(POPEN, 51, "popen") \
	X(PCLOSE, 52, "pclose")

#endif
