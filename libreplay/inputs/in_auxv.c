/* in_auxv.c: getauxval. The entries that are pointers (AT_RANDOM, AT_PLATFORM,
 * AT_BASE_PLATFORM, AT_EXECFN) point into the kernel's copy at the top of the
 * process stack, which moves with the command line; in a session they point into
 * the runtime's copy (engine/session/startup.c), at the same address in a recording and its
 * replay. The other entries are the same either way. AT_RANDOM's 16 bytes are the
 * kernel's of each run: not recorded. */
#include "inputs/inputs.h"

#include <errno.h>
#include <sys/auxv.h>

extern unsigned long __getauxval(unsigned long type);

unsigned long getauxval(unsigned long type)
{
	unsigned long v;
	if (rp_startup_auxv(type, &v))
		return v;
	return __getauxval(type);
}
