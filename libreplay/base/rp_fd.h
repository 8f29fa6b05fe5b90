/* rp_fd.h: the runtime's own descriptors (the log, its timers and breakpoints, the
 * schedule trace, the stderr it writes its messages to). They live at RP_FD_MIN and
 * above, close-on-exec, so the program's open() gets the numbers it would get without
 * us, and they are the program's to leave alone: the inputs layer's close, dup2,
 * dup3, close_range and closefrom treat them as not open (rp_fd_owned), so a program
 * that closes every descriptor it did not open keeps its log, and one that closes
 * stderr still gets the runtime's messages on the stderr it was started with. */
#ifndef RP_FD_H
#define RP_FD_H

#include <stdbool.h>

#define RP_FD_MIN 1000
#define RP_FD_SLOTS 16 /* at most this many at once (the log, timers, trace, stderr) */

/* fd moved to RP_FD_MIN or above (close-on-exec; the old number is closed) and kept
 * as the runtime's: the new number; fd itself, unkept, if it cannot move; fd < 0 is
 * returned as it is. */
int rp_fd_own(int fd);
/* Close a descriptor rp_fd_own returned: 0, or -1 with errno set. */
int rp_fd_close(int fd);
/* Is fd one of the runtime's? Async-signal-safe. */
bool rp_fd_owned(int fd);
/* The runtime's descriptors, ascending, at most max of them: how many. */
unsigned long rp_fd_list(int *out, unsigned long max);
/* Keep a copy of stderr for the runtime's messages (once, before the program's
 * constructors: engine/counter/sic.c). */
void rp_fd_keep_stderr(void);
/* Where the runtime's messages go: the kept stderr, else 2. */
int rp_fd_stderr(void);
/* write(2) of a message to rp_fd_stderr(), all of it (2 if the kept copy is gone):
 * the bytes written, or -1. Async-signal-safe. */
long rp_fd_say(const char *buf, unsigned long len);

#endif
