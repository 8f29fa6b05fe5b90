/* elf.c: an ELF file's sections, read with raw system calls (the program's descriptors
 * stay as they were): for the race build's tables (anchors.c, races_report.c) and the
 * hunting tables of shared objects (counter/sic.c). */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>

bool rp_elf_sections(const char *path, bool (*fn)(const char *name, const void *shdr, int fd, void *arg),
		     void *arg)
{
	int fd = rp_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool ok = false;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	if (rp_sys_pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof *sh || eh.e_shstrndx >= eh.e_shnum)
		goto done;
	sh = rp_malloc((size_t)eh.e_shnum * sizeof *sh);
	if (!sh || rp_sys_pread(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) !=
			   (ssize_t)((size_t)eh.e_shnum * sizeof *sh))
		goto done;
	const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
	names = rp_malloc(ns->sh_size + 1);
	if (!names || rp_sys_pread(fd, names, ns->sh_size, ns->sh_offset) != (ssize_t)ns->sh_size)
		goto done;
	names[ns->sh_size] = '\0';
	ok = true;
	for (int i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_name < ns->sh_size && fn(names + sh[i].sh_name, &sh[i], fd, arg))
			break;
done:
	rp_free(names);
	rp_free(sh);
	rp_sys_close(fd);
	return ok;
}

struct section_read {
	const char *name;
	void *out;
	size_t *len;
};

static bool read_section(const char *name, const void *shdr, int fd, void *arg)
{
	struct section_read *r = arg;
	const Elf64_Shdr *sh = shdr;
	if (strcmp(name, r->name) || sh->sh_type == SHT_NOBITS)
		return false;
	r->out = rp_malloc(sh->sh_size ? sh->sh_size : 1);
	if (r->out && rp_sys_pread(fd, r->out, sh->sh_size, sh->sh_offset) != (ssize_t)sh->sh_size) {
		rp_free(r->out);
		r->out = NULL;
	}
	*r->len = sh->sh_size;
	return true;
}

void *rp_elf_section(const char *path, const char *name, size_t *len)
{
	struct section_read r = {name, NULL, len};
	rp_elf_sections(path, read_section, &r);
	return r.out;
}
