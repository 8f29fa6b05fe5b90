/* objects.c: the executable, dynamic loader and shared libraries a recording ran with,
 * and the replay's check of them; and the start of a replay run from a pack.
 *
 * The log's header names the executable by build-id; the libraries it loaded were
 * not named, so a replay with another libc (another machine, an upgrade) ran other
 * code under the same counts and diverged far from the cause, or not at all. A
 * recording notes every object loaded at its start in an OBJECTS input (after
 * CONTEXT, before LAYOUT, so that a library that differs is named before the
 * addresses it moves are), and once more the objects the session loads itself
 * (rp_crash_init's libunwind); a replay compares this run's objects with the first
 * before any constructor of the program runs, with the second once the session has
 * loaded its own, and refuses on one line where one differs (exit 2), unless
 * --any-libraries. replay-pack (libreplay/tools/pack/) reads the notes to copy the
 * objects.
 *
 * The note is text, one object a line: "<role>\t<load address, hex>\t<build-id, hex,
 * or ->\t<path>", role exe (first; its path from /proc/self/exe), interp (the dynamic
 * loader: AT_BASE), lib (a library found before the loader's cache, below) or syslib
 * (one found through it or in the loader's own directories); then "cache", its
 * address field the size of /etc/ld.so.cache. The vDSO is the kernel's and
 * valgrind's preloaded objects are valgrind's: left out. Libraries are told apart by the last part of their path (the name the loader
 * searched for), the loader by its role: a pack's have other paths. A library loaded
 * later by the program's dlopen() is not noted (docs/log-format.md).
 *
 * A pack's launcher (docs/tools.md, "replay-pack") gives the pack's loader to the
 * kernel as /proc/self/fd/9 (the executable's PT_INTERP is rewritten so), its cache
 * and its own directories as fds 7 and 8, and the other libraries through
 * LD_LIBRARY_PATH; rp_objects_pack_start gives LD_LIBRARY_PATH back before the
 * program's constructors, rp_objects_started closes the descriptors before its main,
 * so that it sees the descriptors and the environment of a replay without a pack. */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#define OBJECTS_MAX 512

extern unsigned long __getauxval(unsigned long type);

/* Recording: the load addresses noted so far: a later note names only the objects
 * loaded since. */
static uint64_t noted[OBJECTS_MAX];
static int nnoted;

extern char **environ;

struct object {
	char role[8];
	char id[2 * RP_LOG_BUILD_ID_MAX + 1];
	const char *path; /* into the text parsed */
};

struct walk {
	char *buf;
	size_t cap, n;
	bool full;
	int seen;
	uint64_t interp, vdso;
	const char *dirs; /* searched before the loader's cache, each followed by '\n' */
	bool record;      /* a recording's note: the objects not noted before */
};

static void put(struct walk *w, const char *role, uint64_t addr, const uint8_t *id, size_t idlen,
		const char *path)
{
	char hex[2 * RP_LOG_BUILD_ID_MAX + 1] = "-";
	for (size_t i = 0; i < idlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	int k = snprintf(w->buf + w->n, w->cap - w->n, "%s\t%llx\t%s\t%s\n", role,
			 (unsigned long long)addr, hex, path);
	if (k < 0 || (size_t)k >= w->cap - w->n) {
		w->full = true; /* the objects past it are left out, as CONTEXT's variables */
		return;
	}
	w->n += (size_t)k;
}

static bool holds(const struct dl_phdr_info *info, uint64_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= at && addr < at + ph->p_memsz)
			return true;
	}
	return false;
}

/* The length of path's directory, trailing slashes left out. */
static size_t dir_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* Was the library at path found in a directory searched before the loader's cache
 * (LD_LIBRARY_PATH, an object's DT_RPATH or DT_RUNPATH)? The loader maps its cache
 * (/etc/ld.so.cache) at the first search that gets that far and keeps it mapped to
 * the end of its start: the libraries found before then lie above that hole, the
 * others below it. A pack reproduces it (docs/tools.md). */
static bool before_cache(const char *dirs, const char *path)
{
	size_t n = dir_len(path, strlen(path));
	for (const char *d = dirs; d && *d;) {
		const char *end = strchr(d, '\n');
		size_t len = (size_t)(end - d);
		while (len > 1 && d[len - 1] == '/')
			len--;
		if (len == n && !strncmp(d, path, n))
			return true;
		d = end + 1;
	}
	return false;
}

static int walk_one(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct walk *w = data;
	uint8_t id[RP_LOG_BUILD_ID_MAX];
	if (w->full)
		return 1;
	size_t idlen = rp_log_object_build_id(info, id);
	bool again = false;
	for (int i = 0; i < nnoted; i++)
		again |= noted[i] == info->dlpi_addr;
	if (w->record && again) {
		w->seen++;
		return 0;
	}
	if (w->record && nnoted < OBJECTS_MAX)
		noted[nnoted++] = info->dlpi_addr;
	if (w->seen++ == 0) {
		char exe[4096];
		long n = rp_raw_syscall(SYS_readlink, (long)"/proc/self/exe", (long)exe,
					sizeof exe - 1, 0, 0, 0);
		exe[n > 0 ? n : 0] = '\0';
		put(w, "exe", info->dlpi_addr, id, idlen, n > 0 ? exe : "?");
	} else if (w->vdso && holds(info, w->vdso)) {
		return 0;
	} else if (!info->dlpi_name || !*info->dlpi_name) {
		return 0; /* nothing to name it by */
	} else if (strstr(info->dlpi_name, "/vgpreload_")) {
		return 0; /* valgrind's own, there only under it (the LAYOUT says valgrind) */
	} else {
		const char *role = info->dlpi_addr == w->interp ? "interp"
				   : before_cache(w->dirs, info->dlpi_name) ? "lib" : "syslib";
		put(w, role, info->dlpi_addr, id, idlen, info->dlpi_name);
	}
	return 0;
}

/* Append the ':'-separated list to the directories, one a line, $ORIGIN (the
 * object's own directory) expanded. */
static void add_dirs(struct walk *w, const char *list, const char *origin, size_t olen)
{
	char *out = (char *)w->dirs;
	size_t have = strlen(out), cap = RP_LOG_INPUT_MAX;
	for (const char *p = list; *p && have + 2 < cap; p++) {
		if (*p == ':' || *p == ';') {
			out[have++] = '\n';
		} else if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
			if (have + olen + 2 >= cap)
				break;
			memcpy(out + have, origin, olen);
			have += olen;
			p += p[1] == '{' ? 8 : 6;
		} else {
			out[have++] = *p;
		}
	}
	out[have++] = '\n';
	out[have] = '\0';
}

static int collect_dirs(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct walk *w = data;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn || (w->vdso && holds(info, w->vdso)))
		return 0;
	uintptr_t strtab = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
	/* Some loaders relocate .dynamic's pointers in place, others leave them as
	 * offsets from the load base. */
	if (!strtab)
		return 0;
	if (strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	char exe[4096];
	const char *self = info->dlpi_name;
	if (w->seen++ == 0 || !self || !*self) {
		long n = rp_raw_syscall(SYS_readlink, (long)"/proc/self/exe", (long)exe,
					sizeof exe - 1, 0, 0, 0);
		exe[n > 0 ? n : 0] = '\0';
		self = exe;
	}
	size_t olen = dir_len(self, strlen(self));
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_RPATH || d->d_tag == DT_RUNPATH)
			add_dirs(w, (const char *)strtab + d->d_un.d_val, self, olen);
	return 0;
}

/* This run's note into buf (cap bytes): its length. Recording: the objects not noted
 * before only. */
static size_t note(char *buf, size_t cap, bool record)
{
	struct walk w = {buf, cap, 0, false, 0, __getauxval(AT_BASE), __getauxval(AT_SYSINFO_EHDR),
			 NULL, record};
	bool first = nnoted == 0;
	char *dirs = rp_malloc(RP_LOG_INPUT_MAX);
	buf[0] = '\0';
	if (dirs) {
		dirs[0] = '\0';
		w.dirs = dirs;
		const char *env = getenv("LIBREPLAY_PACK") ? NULL : getenv("LD_LIBRARY_PATH");
		if (env)
			add_dirs(&w, env, "", 0);
		dl_iterate_phdr(collect_dirs, &w);
		w.seen = 0;
	}
	dl_iterate_phdr(walk_one, &w);
	struct stat st;
	if ((!record || first) &&
	    rp_raw_syscall(SYS_stat, (long)"/etc/ld.so.cache", (long)&st, 0, 0, 0, 0) == 0)
		put(&w, "cache", (uint64_t)st.st_size, NULL, 0, "/etc/ld.so.cache");
	rp_free(dirs);
	return w.n;
}

void rp_objects_record(void)
{
	size_t cap = RP_LOG_INPUT_MAX;
	char *buf = rp_malloc(cap);
	if (!buf)
		return;
	size_t n = note(buf, cap, true);
	if (n)
		rp_log_input(rp_writer, (uint32_t)rp_cur->tid, RP_INPUT_OBJECTS, buf, n);
	rp_free(buf);
}

/* ---- replay: the comparison -------------------------------------------------------------- */

/* Split text (NUL-terminated, changed in place) into objects: how many. */
static int parse(char *text, struct object *o, int max)
{
	int n = 0;
	for (char *line = text; *line && n < max;) {
		char *end = strchr(line, '\n'), *f[4];
		if (end)
			*end = '\0';
		int k = 0;
		for (char *p = line; k < 4 && p; k++) {
			f[k] = p;
			p = k < 3 ? strchr(p, '\t') : NULL;
			if (p)
				*p++ = '\0';
		}
		if (k == 4) {
			snprintf(o[n].role, sizeof o[n].role, "%s", f[0]);
			snprintf(o[n].id, sizeof o[n].id, "%s", f[2]);
			o[n].path = f[3];
			n++;
		}
		if (!end)
			break;
		line = end + 1;
	}
	return n;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A library, found before the loader's cache or not: matched by name either way (a
 * pack finds them otherwise). */
static bool library(const struct object *o)
{
	return !strcmp(o->role, "lib") || !strcmp(o->role, "syslib");
}

/* The object of list that plays the part of o: the loader for the loader, the library
 * of the same name for a library. */
static struct object *counterpart(const struct object *o, struct object *list, int n)
{
	bool loader = !strcmp(o->role, "interp");
	for (int i = 0; i < n; i++) {
		if (loader ? strcmp(list[i].role, "interp") != 0 : !library(&list[i]))
			continue;
		if (loader || !strcmp(base_name(o->path), base_name(list[i].path)))
			return &list[i];
	}
	return NULL;
}

static const char *kind(const struct object *o)
{
	return !strcmp(o->role, "interp") ? "dynamic loader" : "shared library";
}

/* Compare a note with now; first: the note of the objects loaded at the start, where
 * one loaded now and not then differs too (a later note, taken once the session has
 * loaded its own, libunwind for crash reports, only needs its objects present). */
static void compare(const void *recorded, size_t len, bool first)
{
	size_t cap = RP_LOG_INPUT_MAX + 1;
	char *was = rp_malloc(cap), *now = rp_malloc(cap);
	struct object *rec = rp_malloc(2 * OBJECTS_MAX * sizeof *rec), *cur = rec + OBJECTS_MAX;
	if (!was || !now || !rec) {
		rp_free(was);
		rp_free(now);
		rp_free(rec);
		return; /* not checked: the replay goes on as before this check */
	}
	memcpy(was, recorded, len < cap - 1 ? len : cap - 1);
	was[len < cap - 1 ? len : cap - 1] = '\0';
	note(now, cap, false);
	int nrec = parse(was, rec, OBJECTS_MAX), ncur = parse(now, cur, OBJECTS_MAX);
	char what[640] = "";
	int differ = 0;
	for (int i = 0; i < nrec; i++) { /* the executable: the header's build-id checks it */
		if (!library(&rec[i]) && strcmp(rec[i].role, "interp"))
			continue;
		struct object *o = counterpart(&rec[i], cur, ncur);
		if (o && (!strcmp(o->id, rec[i].id) || !strcmp(o->id, "-") || !strcmp(rec[i].id, "-")))
			continue;
		if (!differ++) {
			if (o)
				snprintf(what, sizeof what, "%s is not the %s the recording ran with "
					 "(build-id %s here, %s in the recording, at %s)", o->path,
					 kind(o), o->id, rec[i].id, rec[i].path);
			else
				snprintf(what, sizeof what, "the recording ran with the %s %s "
					 "(build-id %s), this replay has none of that name", kind(&rec[i]),
					 rec[i].path, rec[i].id);
		}
	}
	for (int i = 0; first && i < ncur; i++) {
		if ((library(&cur[i]) || !strcmp(cur[i].role, "interp")) &&
		    !counterpart(&cur[i], rec, nrec) && !differ++)
			snprintf(what, sizeof what, "this replay loaded the %s %s, which the "
				 "recording did not", kind(&cur[i]), cur[i].path);
	}
	if (differ) {
		char more[48] = "";
		if (differ > 1)
			snprintf(more, sizeof more, ", and %d more objects differ", differ - 1);
		if (rp_opts.any_libraries)
			rp_say("warning: %s: %s%s (--any-libraries: replayed anyway)", rp_opts.log_path,
			       what, more);
		else
			rp_say("%s: %s%s; --any-libraries replays anyway", rp_opts.log_path, what, more);
	}
	rp_free(was);
	rp_free(now);
	rp_free(rec);
	if (differ && !rp_opts.any_libraries)
		rp_exit(RP_EXIT_USAGE);
}

/* The executable's own PT_INTERP, or NULL. */
static const char *own_interp(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)__getauxval(AT_PHDR);
	unsigned long n = __getauxval(AT_PHNUM);
	uintptr_t base = 0;
	if (!ph)
		return NULL;
	for (unsigned long i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			base = (uintptr_t)ph - ph[i].p_vaddr;
	for (unsigned long i = 0; i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			return (const char *)(base + ph[i].p_vaddr);
	return NULL;
}

static int notes_seen;
static bool started;
static void *deferred;
static size_t deferred_len;

void rp_objects_check(const void *recorded, size_t len)
{
	if (notes_seen++ == 0 || started) {
		compare(recorded, len, notes_seen == 1);
		return;
	}
	rp_free(deferred); /* (a log has two notes; a third would replace the second) */
	deferred = rp_malloc(len ? len : 1);
	if (deferred)
		memcpy(deferred, recorded, len);
	deferred_len = len;
}

void rp_objects_started(void)
{
	started = true;
	if (deferred) {
		compare(deferred, deferred_len, false);
		rp_free(deferred);
		deferred = NULL;
	}
	/* A pack's descriptors: the session's own dlopen() went through 7 and 8. */
	const char *interp = own_interp();
	if (interp && !strcmp(interp, RP_PACK_INTERP)) {
		rp_sys_close(RP_PACK_CACHE_FD);
		rp_sys_close(RP_PACK_SYSTEM_FD);
		rp_sys_close(RP_PACK_INTERP_FD);
	}
}

/* ---- a replay run from a pack ------------------------------------------------------------- */

static void unset_var(const char *name)
{
	size_t len = strlen(name);
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, name, len) || (*e)[len] != '=')
			continue;
		char **d = e;
		do
			d[0] = d[1];
		while (*d++);
		return;
	}
}

void rp_objects_pack_start(void)
{
	if (!getenv("LIBREPLAY_PACK"))
		return;
	/* The launcher put the pack's libraries first and kept the caller's value (if
	 * any) here. Set back without the program's heap: setenv() would allocate. */
	const char *kept = getenv("LIBREPLAY_PACK_LD_LIBRARY_PATH");
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "LD_LIBRARY_PATH=", 16))
			continue;
		if (!kept) {
			unset_var("LD_LIBRARY_PATH");
			break;
		}
		size_t n = strlen(kept) + 17;
		char *s = rp_malloc(n);
		if (s) {
			snprintf(s, n, "LD_LIBRARY_PATH=%s", kept);
			*e = s;
		}
		break;
	}
}
