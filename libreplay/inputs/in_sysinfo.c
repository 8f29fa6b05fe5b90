/* in_sysinfo.c: what the program learns about the machine: processor counts (a
 * program sizes its thread pool from them), memory counts, its CPU affinity and
 * uname. They are recorded, so a replay on another machine, or with another
 * affinity, makes the same decisions. Every other sysconf name is a constant of
 * the system and goes straight to the C library. */
#include "inputs/inputs.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

static long (*real_sysconf)(int);
static int (*real_sched_getaffinity)(pid_t, size_t, cpu_set_t *);
static int (*real_uname)(struct utsname *);

__attribute__((constructor(103))) static void find_real(void)
{
	real_sysconf = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	real_sched_getaffinity =
		(int (*)(pid_t, size_t, cpu_set_t *))dlsym(RTLD_NEXT, "sched_getaffinity");
	real_uname = (int (*)(struct utsname *))dlsym(RTLD_NEXT, "uname");
	if (!real_sysconf || !real_sched_getaffinity || !real_uname)
		rp_fatal("cannot find the C library's sysconf, sched_getaffinity or uname");
}

struct sysconf_value {
	int32_t name, err;
	int64_t value;
};

static long recorded_sysconf(int name)
{
	struct sysconf_value v;
	memset(&v, 0, sizeof v);
	if (rp_input_replay(RP_INPUT_SYSCONF, &v, sizeof v)) {
		if (v.name != name)
			rp_diverge("thread %d: sysconf(%d), the recording asked for %d",
					  rp_cur->tid, name, v.name);
	} else {
		if (!real_sysconf)
			find_real();
		v.name = name;
		errno = 0;
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.value = real_sysconf(name);
		rp_audit_release(held);
		v.err = errno;
		rp_input_record(RP_INPUT_SYSCONF, &v, sizeof v);
	}
	if (v.value == -1)
		errno = v.err;
	return (long)v.value;
}

long sysconf(int name)
{
	switch (name) {
	case _SC_NPROCESSORS_ONLN:
	case _SC_NPROCESSORS_CONF:
	case _SC_PHYS_PAGES:
	case _SC_AVPHYS_PAGES:
		return recorded_sysconf(name);
	}
	if (!real_sysconf)
		find_real();
	return real_sysconf(name); /* not recorded: what it calls, the audit names */
}

int get_nprocs(void)
{
	return (int)recorded_sysconf(_SC_NPROCESSORS_ONLN);
}

int get_nprocs_conf(void)
{
	return (int)recorded_sysconf(_SC_NPROCESSORS_CONF);
}

long get_phys_pages(void)
{
	return recorded_sysconf(_SC_PHYS_PAGES);
}

long get_avphys_pages(void)
{
	return recorded_sysconf(_SC_AVPHYS_PAGES);
}

/* The mask is logged at the size of a cpu_set_t (1024 CPUs); a larger set gets
 * zeros beyond it. */
struct affinity_value {
	int32_t rc, err;
	cpu_set_t mask;
};

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
	struct affinity_value v;
	memset(&v, 0, sizeof v);
	if (!rp_input_replay(RP_INPUT_AFFINITY, &v, sizeof v)) {
		if (!real_sched_getaffinity)
			find_real();
		v.rc = real_sched_getaffinity(pid, size < sizeof v.mask ? size : sizeof v.mask,
					      &v.mask);
		v.err = errno;
		rp_input_record(RP_INPUT_AFFINITY, &v, sizeof v);
	}
	if (v.rc != 0) {
		errno = v.err;
		return v.rc;
	}
	memset(mask, 0, size);
	memcpy(mask, &v.mask, size < sizeof v.mask ? size : sizeof v.mask);
	return 0;
}

struct uname_value {
	int32_t rc, err;
	struct utsname u;
};

int uname(struct utsname *u)
{
	struct uname_value v;
	memset(&v, 0, sizeof v);
	if (!rp_input_replay(RP_INPUT_UNAME, &v, sizeof v)) {
		if (!real_uname)
			find_real();
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.rc = real_uname(&v.u);
		rp_audit_release(held);
		v.err = errno;
		rp_input_record(RP_INPUT_UNAME, &v, sizeof v);
	}
	if (v.rc != 0)
		errno = v.err;
	else
		*u = v.u;
	return v.rc;
}
