/* elf.c: what replay-pack reads and changes in ELF files: the build-id note; the
 * dynamic loader's path (PT_INTERP), rewritten in place in the executable's copy; and
 * strings of the loader's copy (its cache's path, its system directories). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pack.h"

/* The ELF header and program headers of fd: 0, or -1 with why in err. */
static int headers(int fd, const char *path, Elf64_Ehdr *eh, Elf64_Phdr **ph, char *err, size_t errlen)
{
	*ph = NULL;
	if (pread(fd, eh, sizeof *eh, 0) != (ssize_t)sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phnum == 0 || eh->e_phnum > 4096) {
		snprintf(err, errlen, "%s: not a 64-bit ELF file", path);
		return -1;
	}
	size_t size = (size_t)eh->e_phnum * sizeof **ph;
	*ph = malloc(size);
	if (!*ph || pread(fd, *ph, size, (off_t)eh->e_phoff) != (ssize_t)size) {
		snprintf(err, errlen, "%s: cannot read its program headers", path);
		free(*ph);
		*ph = NULL;
		return -1;
	}
	return 0;
}

int pack_build_id(const char *path, char *hex, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	strcpy(hex, "-");
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (headers(fd, path, &eh, &ph, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < eh.e_phnum && !strcmp(hex, "-"); i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > (1u << 20))
			continue;
		size_t align = ph[i].p_align == 8 ? 8 : 4, len = ph[i].p_filesz;
		unsigned char *buf = malloc(len ? len : 1), *p = buf, *end = buf + len;
		if (!buf || pread(fd, buf, len, (off_t)ph[i].p_offset) != (ssize_t)len) {
			free(buf);
			continue;
		}
		while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr nh;
			memcpy(&nh, p, sizeof nh);
			size_t name = (nh.n_namesz + align - 1) & ~(align - 1);
			size_t desc = (nh.n_descsz + align - 1) & ~(align - 1);
			unsigned char *np = p + sizeof nh;
			if ((size_t)(end - np) < name + desc)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(np, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= PACK_BUILD_ID_MAX) {
				for (unsigned k = 0; k < nh.n_descsz; k++)
					sprintf(hex + 2 * k, "%02x", np[name + k]);
				break;
			}
			p = np + name + desc;
		}
		free(buf);
	}
	free(ph);
	close(fd);
	return 0;
}

int pack_set_interp(const char *path, const char *interp, bool *had, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	int fd = open(path, O_RDWR | O_CLOEXEC), rc = 0;
	*had = false;
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (headers(fd, path, &eh, &ph, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_INTERP)
			continue;
		*had = true;
		/* The kernel reads p_filesz bytes and wants the last one NUL: the new path,
		 * then NULs to the end of the old one's room. */
		size_t room = ph[i].p_filesz, len = strlen(interp) + 1;
		char *buf = room >= len && room < 4096 ? calloc(1, room) : NULL;
		if (!buf) {
			snprintf(err, errlen, "%s: its loader's path has room for %zu bytes, %zu needed",
				 path, room, len);
			rc = -1;
			break;
		}
		memcpy(buf, interp, len);
		if (pwrite(fd, buf, room, (off_t)ph[i].p_offset) != (ssize_t)room) {
			snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
			rc = -1;
		}
		free(buf);
		break;
	}
	free(ph);
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* A byte that can be part of a path: an occurrence after one is the tail of a longer
 * string ("/lib/x86_64-linux-gnu/" inside "/usr/lib/x86_64-linux-gnu/"). */
static bool path_byte(unsigned char c)
{
	return c == '/' || c == '.' || c == '-' || c == '_' || c == '+' ||
	       (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int pack_patch_string(const char *path, const char *from, const char *to, int *count, char *err,
		      size_t errlen)
{
	size_t len = strlen(from) + 1; /* with its NUL: a whole string, not a prefix */
	*count = 0;
	if (strlen(to) + 1 > len) {
		snprintf(err, errlen, "%s: no room for %s in place of %s", path, to, from);
		return -1;
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf || pread(fd, buf, size, 0) != (ssize_t)size) {
		snprintf(err, errlen, "%s: cannot read it", path);
		free(buf);
		close(fd);
		return -1;
	}
	char *repl = calloc(1, len);
	int rc = 0;
	if (!repl) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		memcpy(repl, to, strlen(to));
	}
	for (size_t at = 0; rc == 0 && at + len <= size; at++) {
		if (buf[at] != (unsigned char)from[0] || memcmp(buf + at, from, len) ||
		    (at > 0 && path_byte(buf[at - 1])))
			continue;
		if (pwrite(fd, repl, len, (off_t)at) != (ssize_t)len) {
			snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
			rc = -1;
		}
		(*count)++;
		at += len - 1;
	}
	free(repl);
	free(buf);
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}
