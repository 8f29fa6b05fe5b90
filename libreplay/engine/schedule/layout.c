/* layout.c: the address layout a recording ran in, and the replay's check of it.
 *
 * main.c re-executes the program with ASLR off (personality(ADDR_NO_RANDOMIZE)) so
 * that a replay gets the recording's addresses. Where personality() is refused (a
 * container's seccomp profile allows only a few arguments) the run goes on at
 * random addresses, and under valgrind at valgrind's: a program whose work depends
 * on addresses (a table keyed by pointers) then replays to another result without
 * diverging. So a recording notes its layout in a LAYOUT input, after CONTEXT, and
 * a replay compares this run's with it before any constructor of the program runs:
 * where they differ it refuses on one line (exit 2), unless --any-layout.
 *
 * Compared: the executable's load base, the heap's start (the kernel's start_brk),
 * where the C library is mapped (the mmap area; the loader's base without one), the
 * end of the main stack's mapping and the vDSO. With ASLR off each is the same from
 * run to run on one machine, whatever the command line and the environment (they
 * move only what lies inside the stack, which startup.c copies) and under gdb.
 *
 * The payload, little-endian: flags (u32: bit 0 ASLR was on, bit 1 under valgrind),
 * the errno of the personality() call that failed (i32, 0: none), then the five
 * addresses (u64 each, 0: not known). A reader compares the addresses a payload has
 * and ignores what follows them. */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/personality.h>

#define LAYOUT_RANDOM 1u
#define LAYOUT_VALGRIND 2u
#define LAYOUT_ADDRS 5

struct layout {
	uint32_t flags;
	int32_t err;
	uint64_t at[LAYOUT_ADDRS];
};

static const char *const what[LAYOUT_ADDRS][2] = {
	{"the executable", "is loaded at"},
	{"the heap", "starts at"},
	{"the C library", "is mapped at"},
	{"the main stack", "ends at"},
	{"the vDSO", "is at"},
};

extern unsigned long __getauxval(unsigned long type);

static int personality_err; /* main.c's personality() that failed: its errno */
static bool valgrind;
static char differences[480];

/* Field n (from 1) of /proc/self/stat, after the command's name. */
static uint64_t stat_field(int n)
{
	char buf[2048];
	int fd = rp_sys_open("/proc/self/stat", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ssize_t got = rp_sys_read(fd, buf, sizeof buf - 1);
	rp_sys_close(fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	for (int f = 2; p && f < n; f++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The end of the [stack] mapping, from /proc/self/maps. */
static uint64_t stack_end(void)
{
	size_t cap = 1 << 18, got = 0;
	char *buf = rp_malloc(cap);
	if (!buf)
		return 0;
	int fd = rp_sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
	ssize_t n;
	while (fd >= 0 && got < cap - 1 && (n = rp_sys_read(fd, buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	if (fd >= 0)
		rp_sys_close(fd);
	buf[got] = '\0';
	uint64_t end = 0;
	char *s = strstr(buf, " [stack]\n");
	if (s) {
		while (s > buf && s[-1] != '\n')
			s--;
		char *dash = strchr(s, '-');
		if (dash)
			end = strtoull(dash + 1, NULL, 16);
	}
	rp_free(buf);
	return end;
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *name = slash ? slash + 1 : info->dlpi_name;
	if (strncmp(name, "libc.so", 7))
		return 0;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

static void take(struct layout *l)
{
	memset(l, 0, sizeof *l);
	int p = personality(0xffffffff);
	if (p == -1 || !(p & ADDR_NO_RANDOMIZE))
		l->flags |= LAYOUT_RANDOM;
	if (valgrind)
		l->flags |= LAYOUT_VALGRIND;
	l->err = personality_err;
	dl_iterate_phdr(first_object, &l->at[0]);
	l->at[1] = stat_field(47); /* start_brk */
	if (!dl_iterate_phdr(find_libc, &l->at[2]))
		l->at[2] = __getauxval(AT_BASE);
	l->at[3] = stack_end();
	l->at[4] = __getauxval(AT_SYSINFO_EHDR);
}

void rp_layout_start(int err, bool under_valgrind)
{
	personality_err = err;
	valgrind = under_valgrind;
	/* The check comes before the program's constructors: the log is read now. */
	if (rp_opts.mode == RP_MODE_REPLAY)
		rp_replay_load_log();
}

void rp_layout_record(void)
{
	struct layout l;
	take(&l);
	rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_LAYOUT, &l, sizeof l);
}

const char *rp_layout_differences(void)
{
	return differences;
}

/* Why the addresses differ, as far as the two runs tell. */
static void why(const struct layout *rec, const struct layout *now, char *out, size_t cap)
{
	char here[160] = "", there[160] = "";
	if (now->flags & LAYOUT_RANDOM)
		snprintf(here, sizeof here, "ASLR could not be turned off here%s%s",
			 now->err ? ": personality: " : "", now->err ? strerror(now->err) : "");
	if (rec->flags & LAYOUT_VALGRIND)
		snprintf(there, sizeof there, "recorded under valgrind, at addresses of its own");
	else if (rec->flags & LAYOUT_RANDOM)
		snprintf(there, sizeof there, "the recording ran with ASLR on%s%s",
			 rec->err ? ": personality: " : "", rec->err ? strerror(rec->err) : "");
	if (*here && *there)
		snprintf(out, cap, "%s; %s", here, there);
	else if (*here || *there)
		snprintf(out, cap, "%s", *here ? here : there);
	else
		snprintf(out, cap, "both with ASLR off: another kernel, machine or stack limit?");
}

void rp_layout_check(const void *recorded, size_t len)
{
	struct layout rec, now;
	if (len < offsetof(struct layout, at))
		return;
	memset(&rec, 0, sizeof rec);
	memcpy(&rec, recorded, len < sizeof rec ? len : sizeof rec);
	size_t n = (len - offsetof(struct layout, at)) / sizeof rec.at[0];
	take(&now);
	int first = -1, more = 0;
	for (size_t i = 0; i < n && i < LAYOUT_ADDRS; i++)
		if (rec.at[i] != now.at[i] && !(i == 1 && rp_opts.races)) {
			/* (--races: the race build's bigger code puts its heap higher) */
			if (first < 0)
				first = (int)i;
			else
				more++;
		}
	if (first < 0)
		return;
	char reason[360], more_text[64] = "";
	why(&rec, &now, reason, sizeof reason);
	if (more)
		snprintf(more_text, sizeof more_text, ", and %d more addresses differ", more);
	snprintf(differences, sizeof differences, "%s %s %#llx, in the recording at %#llx%s (%s)",
		 what[first][0], what[first][1], (unsigned long long)now.at[first],
		 (unsigned long long)rec.at[first], more_text, reason);
	if (rp_opts.any_layout) {
		rp_say("warning: %s: the replay runs at other addresses than the recording "
		       "(--any-layout): %s", rp_opts.log_path, differences);
		return;
	}
	rp_say("%s: cannot give the replay the recording's addresses: %s; --any-layout "
	       "replays anyway, for a program that does not depend on them",
	       rp_opts.log_path, differences);
	rp_exit(RP_EXIT_USAGE);
}
