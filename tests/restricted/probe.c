/* What a restricted machine lets a process do, one question per run:
 *   probe perf         a hardware execute breakpoint on itself (perf_event_open)
 *   probe personality P   personality(P)
 *   probe ldt          an LDT entry (modify_ldt), then its selector loaded into %gs
 * Each prints one line; a selector that does not load kills it (SIGSEGV). */
#include <errno.h>
#include <asm/ldt.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *said(long r)
{
	static char buf[32];
	if (r == -1)
		return strerrorname_np(errno);
	snprintf(buf, sizeof buf, "%#lx", r);
	return buf;
}

static int perf(void)
{
	struct perf_event_attr a = {
		.size = sizeof a,
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_X,
		.bp_addr = (uintptr_t)&perf,
		.bp_len = sizeof(long),
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	printf("perf_event_open: %s\n", fd >= 0 ? "opened" : strerrorname_np(errno));
	return fd >= 0 ? 0 : 1;
}

static int ldt(void)
{
	uint32_t *area = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (area == MAP_FAILED)
		return perror("mmap"), 2;
	area[0] = 0x5e1ec7;
	struct user_desc d = {
		.entry_number = 0,
		.base_addr = (unsigned)(uintptr_t)area,
		.limit = 0xfffff,
		.seg_32bit = 1,
		.limit_in_pages = 1,
		.useable = 1,
	};
	long r = syscall(SYS_modify_ldt, 0x11, &d, sizeof d);
	printf("modify_ldt: %s\n", said(r));
	fflush(stdout);
	if (r != 0)
		return 1;
	uint32_t seen;
	unsigned short sel = 0 << 3 | 4 | 3; /* entry 0, LDT, user privilege */
	__asm__ volatile("movw %1, %%gs\n\tmovl %%gs:0, %0\n\tmovw %2, %%gs"
			 : "=r"(seen) : "r"(sel), "r"((unsigned short)0) : "memory");
	printf("selector: %s\n", seen == area[0] ? "loads, its base is the entry's" : "loads, another base");
	return seen == area[0] ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "perf"))
		return perf();
	if (argc == 2 && !strcmp(argv[1], "ldt"))
		return ldt();
	if (argc == 3 && !strcmp(argv[1], "personality")) {
		unsigned long p = strtoul(argv[2], NULL, 0);
		long r = personality(p);
		printf("personality(%#lx): %s\n", p, said(r));
		return r == -1;
	}
	fprintf(stderr, "usage: probe perf | probe personality P | probe ldt\n");
	return 2;
}
