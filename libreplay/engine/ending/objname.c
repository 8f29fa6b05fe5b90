/* objname.c: a name for an address the deadlock and hang reports mention (a mutex, a
 * condition variable, a semaphore): the executable's object symbol that holds it
 * ("lock_a", "locks+24"), else the shared object's exported one, else which thread's
 * stack it is on, else the address alone. The executable's symbol table (.symtab,
 * which dladdr does not read) comes from /proc/self/exe, mapped on first use; nothing
 * here allocates or uses stdio, so a report from a signal handler may call it. */
#include "engine/engine.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static struct {
	bool tried;
	const Elf64_Sym *syms;
	size_t nsyms;
	const char *strs;
	size_t strs_len;
	uintptr_t base; /* the executable's load address */
} tab;

static int exe_base(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

/* Map /proc/self/exe and find .symtab and its strings (the file stays mapped). */
static void load(void)
{
	tab.tried = true;
	long fd = rp_raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/exe", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	struct stat st;
	long map = -1;
	if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr))
		map = rp_raw_syscall(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (map < 0 && map > -4096)
		return;
	const unsigned char *f = (const unsigned char *)map;
	size_t size = (size_t)st.st_size;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > size || str->sh_offset + str->sh_size > size)
			return;
		tab.syms = (const Elf64_Sym *)(f + sh[i].sh_offset);
		tab.nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
		tab.strs = (const char *)(f + str->sh_offset);
		tab.strs_len = str->sh_size;
		break;
	}
	dl_iterate_phdr(exe_base, &tab.base);
}

/* The executable's data object holding addr: its name and addr's offset in it. */
static const char *exe_object(uintptr_t addr, uintptr_t *off)
{
	if (!tab.tried)
		load();
	for (size_t i = 0; i < tab.nsyms; i++) {
		const Elf64_Sym *s = &tab.syms[i];
		int type = ELF64_ST_TYPE(s->st_info);
		if ((type != STT_OBJECT && type != STT_COMMON) || s->st_shndx == SHN_UNDEF ||
		    s->st_name >= tab.strs_len)
			continue;
		uintptr_t lo = tab.base + s->st_value;
		if (addr >= lo && addr < lo + (s->st_size ? s->st_size : 1)) {
			*off = addr - lo;
			return tab.strs + s->st_name;
		}
	}
	return NULL;
}

/* The executable's code symbol nearest at or below pc (at: exactly at pc), or NULL. */
static const Elf64_Sym *code_symbol(uintptr_t pc, bool at)
{
	const Elf64_Sym *best = NULL;
	for (size_t i = 0; i < tab.nsyms; i++) {
		const Elf64_Sym *s = &tab.syms[i];
		int type = ELF64_ST_TYPE(s->st_info);
		uintptr_t a = tab.base + s->st_value;
		if ((type == STT_FUNC || type == STT_NOTYPE) && s->st_shndx != SHN_UNDEF &&
		    s->st_name < tab.strs_len && tab.strs[s->st_name] && a <= pc && (!at || a == pc) &&
		    (!best || s->st_value > best->st_value))
			best = s;
	}
	return best;
}

/* The entry a counting point jumped to, for a pc at or past entry `at` of a stub run
 * (each entry a `decq %r15`, 3 bytes; r15 is 0 at the jump and one less for each
 * entry passed, so the entry is 3 * -r15 bytes back: docs/sic.md, "Stubs"); at itself
 * if r15 says no such entry, as in a stub of another form, where r15 is not that. */
static uintptr_t stub_entry(uintptr_t at, const uint64_t *r15)
{
	static const unsigned char dec_r15[] = {0x49, 0xff, 0xcf};
	int64_t passed = r15 ? -(int64_t)*r15 : 0;
	if (passed <= 0 || passed >= 64)
		return at;
	uintptr_t entry = at;
	while (passed-- > 0) /* back from at: no byte before the run's first entry is read */
		if (memcmp((const void *)(entry -= 3), dec_r15, 3) != 0)
			return at;
	return entry;
}

/* Is pc in one of sicpp's stubs ("fn.sic_stub.N", in .text.sic_stubs: the nearest
 * symbol of the executable below it)? Then fn, the function whose frame it is, in
 * buf; libunwind names it after the nearest function instead. Counting points of
 * several functions share a run of entries: given r15 at pc (NULL: unknown), the
 * function is the one of the entry its counting point jumped to, else the entry's at
 * or below pc. */
const char *rp_stub_function(uintptr_t pc, const uint64_t *r15, char *buf, size_t len)
{
	if (!tab.tried)
		load();
	const Elf64_Sym *best = code_symbol(pc, false);
	const char *name = best ? tab.strs + best->st_name : NULL;
	if (!name || !strstr(name, ".sic_stub.") || pc - (tab.base + best->st_value) > 64)
		return NULL;
	uintptr_t entry = stub_entry(tab.base + best->st_value, r15);
	const Elf64_Sym *in = entry != tab.base + best->st_value ? code_symbol(entry, true) : NULL;
	if (in && strstr(tab.strs + in->st_name, ".sic_stub."))
		name = tab.strs + in->st_name;
	const char *stub = strstr(name, ".sic_stub.");
	snprintf(buf, len, "%.*s.sic_stub", (int)(stub - name), name);
	return buf;
}

/* Append "name", "name+0x18" to buf. */
static void put_name(char *buf, size_t len, const char *name, uintptr_t off)
{
	if (off)
		snprintf(buf, len, "%s+%#lx", name, (unsigned long)off);
	else
		snprintf(buf, len, "%s", name);
}

const char *rp_objname(const void *p, char *buf, size_t len)
{
	uintptr_t addr = (uintptr_t)p, off;
	const char *name = exe_object(addr, &off);
	if (name) {
		put_name(buf, len, name, off);
		return buf;
	}
	Dl_info di;
	if (dladdr(p, &di) && di.dli_sname && di.dli_saddr) {
		put_name(buf, len, di.dli_sname, addr - (uintptr_t)di.dli_saddr);
		return buf;
	}
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info in;
		sched_thread_info(t, &in);
		if (addr >= (uintptr_t)in.stack_lo && addr < (uintptr_t)in.stack_hi) {
			snprintf(buf, len, "%#lx (on thread %d's stack)", (unsigned long)addr, in.id);
			return buf;
		}
	}
	snprintf(buf, len, "%#lx", (unsigned long)addr);
	return buf;
}
