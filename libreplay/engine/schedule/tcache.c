/* tcache.c: the C library's malloc key, the recording's in its replay.
 *
 * glibc 2.34 and later draw a random word at their first malloc (tcache_key, by an
 * internal getrandom that no wrapper of ours sees) and write it into every chunk freed
 * into the thread cache, as the second word of the chunk's user data (double-free
 * detection). A program that reads freed memory (a use-after-free, the kind of bug a
 * user replays) reads that word: another value in each run, so its replay took another
 * path. All green threads share one kernel thread, hence one thread cache and one key.
 *
 * So, before the program's constructors (main.c's early(), after the replay has read
 * its log's first records), a recording learns the key as a program would (malloc two
 * small chunks, free them, read their second words: the same in both) and logs it, a
 * TCACHE input after LAYOUT; a replay of a log that has one learns its own key the
 * same way, finds the one word holding it in the C library's writable data (its rw
 * PT_LOAD segments, the executable's if it is static, RELRO left out), writes the
 * recorded key there, and checks it by freeing the chunks again. Both runs make the
 * same malloc and free calls (the replay's second probe gets the chunks back and
 * frees them again: the heap is as the recording left it); a log without the record
 * (an older writer, a C library without the key) makes none, as before.
 *
 * The payload (u64): the key, 0 where the recording found none (the tcache turned off
 * by a tunable, another malloc: its probe freed chunks all the same, so the replay
 * makes it too, but sets nothing). */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_SIZE 24 /* the smallest chunk: the key is its user data's second word */

static bool probed;       /* recording: the probe ran, a record is due */
static uint64_t key;      /* recording: the key it read */
static bool noted;        /* replaying: the log has the record */
static uint64_t recorded; /* ... and its key */

/* glibc 2.34 or later: the versions with tcache_key. (2.29 to 2.33 keep the tcache's
 * own address there, the same in both runs with ASLR off.) */
static bool has_key(void)
{
	unsigned major = 0, minor = 0;
	return sscanf(gnu_get_libc_version(), "%u.%u", &major, &minor) == 2 &&
	       (major > 2 || (major == 2 && minor >= 34));
}

/* Reading freed memory is what the program does; here it must reach the load, not be
 * reasoned about by the compiler: the address goes through an opaque register. */
static uint64_t freed_word(uintptr_t at)
{
	__asm__ volatile("" : "+r"(at));
	return *(volatile uint64_t *)(at + sizeof(uint64_t));
}

/* malloc two chunks of two sizes and free them: the key, which glibc writes into both
 * (0 where they differ: another malloc, one that writes no key); *chunk, the first's
 * address. In a replay the second probe gets both back from the thread cache and
 * frees them again: the heap is as after the first. */
static uint64_t probe(uintptr_t *chunk)
{
	void *p = malloc(PROBE_SIZE), *q = malloc(2 * PROBE_SIZE);
	if (!p || !q)
		rp_fatal_memory("the malloc key's probe");
	uintptr_t at = (uintptr_t)p, at2 = (uintptr_t)q;
	free(q);
	free(p);
	if (chunk)
		*chunk = at;
	uint64_t k = freed_word(at);
	return k == freed_word(at2) ? k : 0;
}

struct search {
	uint64_t want;
	bool exe_only;       /* a static executable: the C library is in it */
	bool seen;           /* an object searched */
	int found;           /* words equal to want */
	uint64_t *at;        /* the first */
};

static void search_object(const struct dl_phdr_info *info, struct search *s)
{
	uintptr_t relro = 0, relro_end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
			relro = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			relro_end = relro + info->dlpi_phdr[i].p_memsz;
		}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uintptr_t at = (info->dlpi_addr + ph->p_vaddr + 7) & ~(uintptr_t)7;
		uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		for (; at + 8 <= end; at += 8) {
			if (at >= relro && at < relro_end) /* read-only since relocation */
				continue;
			if (*(const uint64_t *)at == s->want && s->found++ == 0)
				s->at = (uint64_t *)at;
		}
	}
	s->seen = true;
}

static int search_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct search *s = data;
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *name = slash ? slash + 1 : info->dlpi_name;
	if (s->exe_only ? *info->dlpi_name != '\0' : strcmp(name, "libc.so.6") != 0)
		return 0;
	search_object(info, s);
	return 1;
}

static void replay_key(void)
{
	uintptr_t chunk, again;
	uint64_t own = probe(&chunk);
	if (!recorded || own == recorded)
		return;
	struct search s = {.want = own};
	if (!own || !has_key()) { /* another C library (--any-libraries): no key to set */
		rp_say("this run's C library has no malloc key (tcache) to set to the recording's: "
		       "a replay that reads freed memory may diverge");
		return;
	}
	dl_iterate_phdr(search_libc, &s);
	if (!s.seen) { /* no libc.so.6: a static executable */
		s.exe_only = true;
		dl_iterate_phdr(search_libc, &s);
	}
	if (s.found != 1) {
		rp_say("the C library's malloc key (tcache) is in %d places of its data, not one: "
		       "not set to the recording's; a replay that reads freed memory may diverge",
		       s.found);
		return;
	}
	*s.at = recorded;
	/* The chunks come back from the thread cache and go into it again, with the key
	 * now set: the heap as the recording left it, and the proof. */
	uint64_t now = probe(&again);
	if (again != chunk || now != recorded)
		rp_say("the C library's malloc key (tcache) could not be set to the recording's: "
		       "a replay that reads freed memory may diverge");
}

void rp_tcache_start(void)
{
	if (rp_opts.mode == RP_MODE_RECORD && has_key()) {
		key = probe(NULL);
		probed = true;
	} else if (rp_opts.mode == RP_MODE_REPLAY && noted) {
		replay_key();
	}
}

void rp_tcache_record(void)
{
	if (probed)
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_TCACHE, &key, sizeof key);
}

void rp_tcache_note(const void *data, size_t len)
{
	if (len < sizeof recorded)
		return;
	memcpy(&recorded, data, sizeof recorded);
	noted = true;
}
