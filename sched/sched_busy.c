/* sched_busy.c: is the scheduler's own code running? */
#include "sched_impl.h"

/* True from entering a sched_* call until the thread it resumes leaves one: the
 * current thread may be half switched (sched_current() already names the next one).
 * Async-signal-safe. */
bool sched_busy(void)
{
	return sched_g.busy != 0;
}
