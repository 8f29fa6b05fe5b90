/* crash_sym.c: function names for the crash report's frames in shared objects.
 *
 * libunwind names a frame by the nearest symbol before it that it can see; in a
 * stripped library that is the nearest *exported* one, however far away: glibc's
 * abort raises the signal in __pthread_kill_implementation, which libunwind calls
 * pthread_key_delete+0x14c. Here a frame gets a name only from a symbol whose range
 * [value, value + size) holds it: from the library's detached debug file when one is
 * installed (Debian's libc6-dbg: DIR/.build-id/NN/REST.debug, DIR /usr/lib/debug or
 * LIBREPLAY_DEBUG_DIR), else from the library's own .symtab or .dynsym. None holds
 * it: no name, the object and offset say where it is.
 *
 * It runs in the crash handler: system calls only (openat, fstat, mmap), no malloc,
 * and every offset read from a file is checked against the file's size. */
#include "engine/ending/crash_sym.h"
#include "base/rp_syscall.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* A section of the image, or NULL if its header or contents fall outside it. */
static const Elf64_Shdr *section(const unsigned char *img, size_t size, unsigned i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	if (i >= eh->e_shnum || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) <= i)
		return NULL;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff) + i;
	if (sh->sh_type != SHT_NOBITS && (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset))
		return NULL;
	return sh;
}

/* The image's first section of type `type` with contents (a debug file keeps the
 * allocated sections' headers but not their bytes: SHT_NOBITS). */
static const Elf64_Shdr *find_table(const unsigned char *img, size_t size, unsigned type)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = section(img, size, i);
		if (sh && sh->sh_type == type && sh->sh_entsize == sizeof(Elf64_Sym))
			return sh;
	}
	return NULL;
}

/* How good a name a matching symbol gives: an exported one over a local alias, and
 * never glibc's internal __GI_ aliases when there is another. */
static int rank(const Elf64_Sym *s, const char *name)
{
	int r = ELF64_ST_BIND(s->st_info) == STB_LOCAL ? 1 : 3;
	return strncmp(name, "__GI_", 5) ? r + 1 : r;
}

/* Copy a symbol's name without its version (glibc's .symtab says foo@@GLIBC_2.34). */
static void copy_name(char *out, size_t len, const char *name, const char *end)
{
	size_t n = 0;
	while (name + n < end && name[n] && name[n] != '@' && n + 1 < len)
		n++;
	memcpy(out, name, n);
	out[n] = 0;
}

/* The function symbol of one table that holds `at`: true, its name and start. */
static bool lookup_table(const unsigned char *img, size_t size, const Elf64_Shdr *tab,
			 uintptr_t at, char *name, size_t len, uintptr_t *start)
{
	const Elf64_Shdr *strs = section(img, size, tab->sh_link);
	if (!strs || strs->sh_type != SHT_STRTAB)
		return false;
	const char *str = (const char *)img + strs->sh_offset, *str_end = str + strs->sh_size;
	const Elf64_Sym *sym = (const Elf64_Sym *)(img + tab->sh_offset);
	size_t n = tab->sh_size / sizeof *sym;
	const Elf64_Sym *best = NULL;
	int best_rank = 0;
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *s = &sym[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
		    at < s->st_value || at - s->st_value >= s->st_size || s->st_name >= strs->sh_size)
			continue;
		int r = rank(s, str + s->st_name);
		if (r > best_rank) {
			best = s;
			best_rank = r;
		}
	}
	if (!best)
		return false;
	copy_name(name, len, str + best->st_name, str_end);
	*start = best->st_value;
	return name[0] != 0;
}

static bool lookup(const unsigned char *img, size_t size, uintptr_t at, char *name, size_t len,
		   uintptr_t *start)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	const Elf64_Shdr *tab = find_table(img, size, SHT_SYMTAB);
	if (tab && lookup_table(img, size, tab, at, name, len, start))
		return true;
	tab = find_table(img, size, SHT_DYNSYM);
	return tab && lookup_table(img, size, tab, at, name, len, start);
}

int rp_crash_sym_file(const char *path, uintptr_t at, char *name, size_t len, uintptr_t *start)
{
	int fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct stat st;
	int found = 0;
	if (rp_raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && st.st_size > 0) {
		long m = rp_raw_syscall(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m < 0 && m >= -4095)
			m = 0;
		if (m) {
			found = lookup((const unsigned char *)m, (size_t)st.st_size, at, name, len, start);
			rp_raw_syscall(SYS_munmap, m, st.st_size, 0, 0, 0, 0);
		}
	}
	rp_sys_close(fd);
	return found;
}

void rp_crash_debug_path(char *out, size_t len, const char *dir, const unsigned char *id,
			 size_t idlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(dir), need = n + sizeof "/.build-id/" + 2 * idlen + sizeof ".debug";
	if (idlen < 2 || need > len) {
		out[0] = 0;
		return;
	}
	memcpy(out, dir, n);
	memcpy(out + n, "/.build-id/", 11);
	n += 11;
	for (size_t i = 0; i < idlen; i++) {
		out[n++] = hex[id[i] >> 4];
		out[n++] = hex[id[i] & 15];
		if (i == 0)
			out[n++] = '/';
	}
	memcpy(out + n, ".debug", sizeof ".debug");
}
