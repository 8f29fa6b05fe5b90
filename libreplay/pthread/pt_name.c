/* pt_name.c: thread names, kept by the layer (the kernel thread's name is the
 * process's, which a green thread's name does not change). An unnamed thread reports
 * what the kernel would: the program's name, cut to 15 characters. */
#include "pthread/pt_impl.h"

#include <stdio.h>
#include <string.h>

int pthread_setname_np(pthread_t thread, const char *name)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	if (strlen(name) >= sizeof pt->name)
		return ERANGE;
	if (!pt)
		return ESRCH;
	strcpy(pt->name, name);
	return 0;
}

int pthread_getname_np(pthread_t thread, char *buf, size_t len)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	char name[16];
	if (!pt)
		return ESRCH;
	snprintf(name, sizeof name, "%s", pt->name[0] ? pt->name : program_invocation_short_name);
	if (strlen(name) >= len)
		return ERANGE;
	strcpy(buf, name);
	return 0;
}
