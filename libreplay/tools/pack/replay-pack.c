/* replay-pack LOG [-o DIR] [--exe EXE] [--debug-dir DIR]: one directory that replays
 * LOG on another machine (docs/tools.md): the log, the executable, the dynamic loader
 * and the shared libraries the recording ran with (the log's OBJECTS input names them
 * with their build-ids; each file is checked against it before anything is written),
 * the separate debug files this machine has for them, and a launcher, DIR/replay,
 * which replay-gdb DIR also goes through.
 *
 * How the pack's loader and libraries are used without root: the executable's copy
 * has its PT_INTERP rewritten in place to /proc/self/fd/9 (the kernel opens the
 * loader by that path at exec, in the process that execs, before it closes anything:
 * the launcher opens fd 9 on the pack's loader), and the launcher puts the pack's
 * libraries in LD_LIBRARY_PATH. The kernel maps the executable and the loader as for
 * the recording (running the loader as a program would map the executable elsewhere),
 * so the replay has the recording's addresses. The runtime closes fd 9 and gives
 * LD_LIBRARY_PATH back before the program runs (engine/schedule/objects.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/session.h"
#include "log/log.h"
#include "pack.h"

#define OBJECTS_MAX 512

struct object {
	const char *role; /* exe, interp, lib, syslib, cache (engine/schedule/objects.c) */
	const char *addr; /* the load address (hex); a cache's size */
	const char *id;   /* hex, or "-" */
	const char *path;
	const char *name; /* the last part of path */
	bool debug;       /* a separate debug file was packed */
};

static struct object objs[OBJECTS_MAX];
static int nobjs;

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	fputs("replay-pack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static _Noreturn void usage(const char *why)
{
	if (why)
		fprintf(stderr, "replay-pack: %s (usage: replay-pack LOG [-o DIR] [--exe EXE] "
			"[--debug-dir DIR])\n", why);
	else
		printf("usage: replay-pack LOG [-o DIR] [--exe EXE] [--debug-dir DIR]\n"
		       "Writes DIR (default LOG.pack): the log, the executable, the dynamic loader and\n"
		       "the shared libraries the recording ran with (checked by build-id), their\n"
		       "separate debug files from DIR/.build-id (default /usr/lib/debug), and a\n"
		       "launcher. Replay with DIR/replay, debug with replay-gdb DIR.\n"
		       "  --exe EXE   the executable, if not at the path the recording ran it from\n");
	exit(why ? 2 : 0);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (!s)
		die("out of memory");
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* The log's OBJECTS notes, one after the other (a copy: the one taken at the start,
 * the one after the session loaded its own), having read the whole log: damage is
 * said now, not on the other machine. NULL if it has none. */
static char *read_log(const char *path, const struct rp_log_header **hp, struct rp_log_reader **rp)
{
	char err[RP_LOG_ERRLEN];
	struct rp_log_reader *r;
	struct rp_log_record rec;
	enum rp_log_status st;
	char *note = NULL;
	size_t have = 0;
	if (rp_log_open(path, &r, err, sizeof err) < 0)
		die("%s", err);
	while ((st = rp_log_next(r, &rec)) == RP_LOG_OK) {
		if (rec.kind != RP_LOG_INPUT || rec.input_kind != RP_INPUT_OBJECTS)
			continue;
		char *more = realloc(note, have + rec.len + 2);
		if (!more)
			die("out of memory");
		note = more;
		memcpy(note + have, rec.data, rec.len);
		have += rec.len;
		if (have && note[have - 1] != '\n')
			note[have++] = '\n';
		note[have] = '\0';
	}
	if (st == RP_LOG_CORRUPT || st == RP_LOG_IO_ERROR)
		die("%s", rp_log_error(r));
	*hp = rp_log_header(r);
	*rp = r;
	return note;
}

static void parse(char *text, const char *log)
{
	for (char *line = text; *line;) {
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
		if (k != 4 || !*f[3])
			die("%s: its list of objects is damaged", log);
		if (nobjs == OBJECTS_MAX)
			die("%s: more than %d objects", log, OBJECTS_MAX);
		const char *slash = strrchr(f[3], '/');
		bool seen = false;
		for (int i = 0; i < nobjs; i++)
			seen |= !strcmp(objs[i].role, f[0]) && !strcmp(objs[i].path, f[3]);
		if (!seen)
			objs[nobjs++] = (struct object){f[0], f[1], f[2], f[3], slash ? slash + 1 : f[3], false};
		if (!end)
			break;
		line = end + 1;
	}
	if (!nobjs || strcmp(objs[0].role, "exe"))
		die("%s: its list of objects does not start with the executable", log);
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

/* Every object is the file the recording ran with: checked before anything is written. */
static void check(const char *log, const char *exe, const struct rp_log_header *h)
{
	char id[2 * PACK_BUILD_ID_MAX + 1], want[2 * RP_LOG_BUILD_ID_MAX + 1], err[600];
	if (h->flags & RP_LOG_F_CODE_HASH)
		die("%s: its executable has no build-id (linked with --build-id=none): a pack "
		    "rewrites the executable's loader path, which its code hash would not survive", log);
	if (pack_build_id(exe, id, err, sizeof err) < 0)
		die("%s%s", err, exe == objs[0].path ? " (the executable the log names; --exe EXE names another)" : "");
	hex(want, h->build_id, h->build_id_len);
	if (!h->build_id_len || strcmp(id, want))
		die("%s is not the executable %s was recorded by (build-id %s, the log's %s)", exe, log,
		    id, h->build_id_len ? want : "none");
	for (int i = 1; i < nobjs; i++) {
		if (!strcmp(objs[i].role, "cache"))
			continue;
		if (pack_build_id(objs[i].path, id, err, sizeof err) < 0)
			die("%s (a %s the recording ran with)", err,
			    strcmp(objs[i].role, "interp") ? "shared library" : "dynamic loader");
		if (strcmp(objs[i].id, "-") && strcmp(id, objs[i].id))
			die("%s is not the %s the recording ran with (build-id %s, in the log %s): it "
			    "changed since", objs[i].path,
			    strcmp(objs[i].role, "interp") ? "shared library" : "dynamic loader", id, objs[i].id);
		for (int j = 1; j < i; j++)
			if (strcmp(objs[j].role, "interp") && strcmp(objs[i].role, "interp") &&
			    !strcmp(objs[j].name, objs[i].name))
				die("%s and %s have the same name: one directory cannot hold both",
				    objs[j].path, objs[i].path);
	}
}

static void copy(const char *from, const char *to, mode_t mode)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		die("%s: cannot open: %s", from, strerror(errno));
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0)
		die("%s: cannot create: %s", to, strerror(errno));
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0)
				die("%s: cannot write: %s", to, strerror(errno));
			done += w;
		}
	if (n < 0)
		die("%s: cannot read: %s", from, strerror(errno));
	if (close(out) < 0)
		die("%s: cannot write: %s", to, strerror(errno));
	close(in);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("%s: cannot create: %s", path, strerror(errno));
}

/* The directory: new, or empty. */
static void new_dir(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return;
	if (errno != EEXIST)
		die("%s: cannot create: %s", dir, strerror(errno));
	if (rmdir(dir) < 0 || mkdir(dir, 0755) < 0)
		die("%s: exists and is not empty (-o names another directory)", dir);
}

/* A library the recording's loader found in one of its own directories (or through
 * its cache, in one of them): the loader's copy names that directory
 * /proc/self/fd/8///..., the same length (the loader keeps the lengths apart), which
 * the launcher opens on DIR/system. Searched after the cache as in the recording, so
 * the cache's hole is where it was. False if the loader does not name it. */
static bool system_dir(const char *loader, const char *path)
{
	char dir[512], repl[512], err[600];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) + 1 : 0;
	if (len < sizeof RP_PACK_SYSTEM || len >= sizeof dir)
		return false;
	memcpy(dir, path, len);
	dir[len] = '\0';
	snprintf(repl, sizeof repl, "%s", RP_PACK_SYSTEM);
	memset(repl + strlen(RP_PACK_SYSTEM), '/', len - strlen(RP_PACK_SYSTEM));
	repl[len] = '\0';
	static char done[32][512];
	static int ndone;
	for (int i = 0; i < ndone; i++)
		if (!strcmp(done[i], dir))
			return true;
	int n = 0;
	if (pack_patch_string(loader, dir, repl, &n, err, sizeof err) < 0)
		die("%s", err);
	if (n > 0 && ndone < 32)
		memcpy(done[ndone++], dir, len + 1);
	return n > 0;
}

/* An empty cache in the new format (glibc's dl-cache.h: "glibc-ld.so.cache1.1",
 * no entries, little-endian) of the recording's cache's size. */
static void empty_cache(const char *dir, uint64_t size)
{
	unsigned char head[48] = "glibc-ld.so.cache1.1";
	head[28] = 2; /* flags: little-endian */
	if (size < sizeof head + 1 || size > (64u << 20))
		return;
	char *path = join(dir, "ld.so.cache");
	FILE *f = fopen(path, "w");
	if (!f || fwrite(head, sizeof head, 1, f) != 1)
		die("%s: cannot create: %s", path, strerror(errno));
	for (uint64_t i = sizeof head; i < size; i++)
		putc(0, f);
	if (fclose(f) != 0)
		die("%s: cannot write: %s", path, strerror(errno));
	free(path);
}

/* Quoted for bash, between single quotes. */
static void quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static void launcher(const char *dir, const char *log, const char *exe_name, bool interp,
		     bool system, const struct rp_log_header *h)
{
	char *path = join(dir, "replay");
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: cannot create: %s", path, strerror(errno));
	fprintf(f, "#!/bin/bash\n"
		"# Written by replay-pack from ");
	quoted(f, log);
	fprintf(f, ": replays it with the executable, dynamic loader and\n"
		"# shared libraries of this directory (docs/tools.md, \"replay-pack\").\n"
		"#   DIR/replay [libreplay flags]      the replay\n"
		"#   replay-gdb DIR [gdb arguments]    under gdb (it runs DIR/replay --gdb EXT ...)\n"
		"# The executable names its loader %s, the loader its cache %s\n"
		"# and its system directories %s: opened here, closed by the runtime\n"
		"# before the program runs; LD_LIBRARY_PATH (the libraries found before the\n"
		"# cache) is given back its value then (LIBREPLAY_PACK_LD_LIBRARY_PATH).\n"
		"pack=$(cd \"$(dirname \"$0\")\" && pwd) || exit 2\n"
		"exec %d<&- %d<&-\n", RP_PACK_INTERP, RP_PACK_CACHE, RP_PACK_SYSTEM, RP_PACK_CACHE_FD,
		RP_PACK_SYSTEM_FD);
	if (interp)
		fprintf(f, "exec %d<\"$pack/interp\" || exit 2\n"
			"[ ! -e \"$pack/ld.so.cache\" ] || exec %d<\"$pack/ld.so.cache\" || exit 2\n",
			RP_PACK_INTERP_FD, RP_PACK_CACHE_FD);
	if (system)
		fprintf(f, "exec %d<\"$pack/system\" || exit 2\n", RP_PACK_SYSTEM_FD);
	fprintf(f, "args=(\"$pack/bin/%s\" --replay \"$pack/log.bin\")\n", exe_name);
	fprintf(f, "argv=(--"); /* the recorded arguments, after the flags */
	for (int i = 1; i < h->argc; i++) {
		fputc(' ', f);
		quoted(f, h->argv[i]);
	}
	fprintf(f, ")\n");
	fprintf(f, "if [ \"${1-}\" = --gdb ] && [ $# -ge 2 ]; then\n"
		"\text=$2\n"
		"\tshift 2\n"
		"\tgdbargs=(-iex \"source $ext\" -iex 'set startup-with-shell off'\n"
		"\t\t-iex \"set environment LIBREPLAY_PACK $pack\"\n"
		"\t\t-iex \"set environment LD_LIBRARY_PATH $pack/lib\"\n"
		"\t\t-iex \"set solib-search-path $pack/lib:$pack/system\"\n"
		"\t\t-iex \"set debug-file-directory $pack/debug:/usr/lib/debug\")\n"
		"\t[ -z \"${LD_LIBRARY_PATH+set}\" ] || gdbargs+=(-iex \"set environment "
		"LIBREPLAY_PACK_LD_LIBRARY_PATH $LD_LIBRARY_PATH\")\n"
		"\texec gdb \"${gdbargs[@]}\" \"$@\" --args \"${args[@]}\" \"${argv[@]}\"\n"
		"fi\n"
		"[ -z \"${LD_LIBRARY_PATH+set}\" ] || export LIBREPLAY_PACK_LD_LIBRARY_PATH=$LD_LIBRARY_PATH\n"
		"export LIBREPLAY_PACK=$pack LD_LIBRARY_PATH=$pack/lib\n"
		"exec -a ");
	quoted(f, h->argc > 0 ? h->argv[0] : exe_name);
	fprintf(f, " \"${args[@]}\" \"$@\" \"${argv[@]}\"\n");
	if (fclose(f) != 0 || chmod(path, 0755) < 0)
		die("%s: cannot write: %s", path, strerror(errno));
	free(path);
}

/* DIR/debug/.build-id/ab/cdef.debug from debug_dir's, where it has one. */
static int debug_files(const char *dir, const char *debug_dir)
{
	int found = 0;
	for (int i = 0; i < nobjs; i++) {
		const char *id = objs[i].id;
		if (strlen(id) < 4)
			continue;
		char rel[2 * PACK_BUILD_ID_MAX + 32], sub[64];
		snprintf(rel, sizeof rel, ".build-id/%.2s/%s.debug", id, id + 2);
		char *from = join(debug_dir, rel);
		if (access(from, R_OK) == 0) {
			char *d = join(dir, "debug");
			make_dir(d);
			char *b = join(d, ".build-id");
			make_dir(b);
			snprintf(sub, sizeof sub, "%.2s", id);
			char *s = join(b, sub);
			make_dir(s);
			char *to = join(dir, "debug");
			char *to2 = join(to, rel);
			copy(from, to2, 0644);
			objs[i].debug = true;
			found++;
			free(d), free(b), free(s), free(to), free(to2);
		}
		free(from);
	}
	return found;
}

static void readme(const char *dir, const char *log)
{
	char *path = join(dir, "README");
	FILE *f = fopen(path, "w");
	if (!f)
		die("%s: cannot create: %s", path, strerror(errno));
	fprintf(f, "A pack of %s, written by replay-pack (docs/tools.md):\n"
		"  ./replay                 the replay, with the files below\n"
		"  replay-gdb DIR           the replay under gdb\n\n"
		"role    build-id                                  debug  recorded as\n", log);
	for (int i = 0; i < nobjs; i++)
		fprintf(f, "%-7s %-41s %-6s %s\n", objs[i].role, objs[i].id, objs[i].debug ? "yes" : "-",
			objs[i].path);
	if (fclose(f) != 0)
		die("%s: cannot write: %s", path, strerror(errno));
	free(path);
}

int main(int argc, char **argv)
{
	const char *log = NULL, *dir = NULL, *exe = NULL, *debug_dir = "/usr/lib/debug";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage(NULL);
		else if (!strcmp(a, "-o") || !strcmp(a, "--exe") || !strcmp(a, "--debug-dir")) {
			if (i + 1 == argc)
				usage("a flag needs a value");
			const char **to = a[1] == 'o' ? &dir : a[2] == 'e' ? &exe : &debug_dir;
			*to = argv[++i];
		} else if (a[0] == '-' && a[1])
			usage("unknown flag");
		else if (log)
			usage("one log at a time");
		else
			log = a;
	}
	if (!log)
		usage("no log named");

	const struct rp_log_header *h;
	struct rp_log_reader *r;
	char *note = read_log(log, &h, &r);
	if (!note)
		die("%s: names no executable and libraries (written by a libreplay before OBJECTS "
		    "records, or cut short before its start): nothing to pack by", log);
	parse(note, log);
	if (!exe)
		exe = objs[0].path;
	check(log, exe, h);

	char *def = NULL;
	if (!dir) {
		size_t n = strlen(log) + 6;
		def = malloc(n);
		if (!def)
			die("out of memory");
		snprintf(def, n, "%s.pack", log);
		dir = def;
	}
	new_dir(dir);
	char *bin = join(dir, "bin"), *lib = join(dir, "lib");
	make_dir(bin);
	make_dir(lib);
	char *to = join(dir, "log.bin");
	copy(log, to, 0644);
	free(to);
	const char *slash = strrchr(exe, '/');
	const char *exe_name = slash ? slash + 1 : exe;
	to = join(bin, exe_name);
	copy(exe, to, 0755);
	bool interp = false, had;
	char err[600];
	char *system = join(dir, "system"), *loader = join(dir, "interp");
	uint64_t cache_size = 0;
	int nsys = 0, nlibs = 0;
	for (int i = 1; i < nobjs; i++)
		if (!strcmp(objs[i].role, "interp")) {
			copy(objs[i].path, loader, 0755);
			interp = true;
		} else if (!strcmp(objs[i].role, "cache")) {
			cache_size = strtoull(objs[i].addr, NULL, 16);
		}
	for (int i = 1; i < nobjs; i++) {
		if (strcmp(objs[i].role, "lib") && strcmp(objs[i].role, "syslib"))
			continue;
		nlibs++;
		const char *into = lib;
		if (!strcmp(objs[i].role, "syslib") && interp && system_dir(loader, objs[i].path)) {
			make_dir(system);
			into = system;
			nsys++;
		} else if (!strcmp(objs[i].role, "syslib")) {
			printf("warning: %s: found through the loader's cache or a directory of its own "
			       "in the recording, through LD_LIBRARY_PATH from the pack: the replay may "
			       "run at other addresses (--any-layout)\n", objs[i].path);
		}
		char *p = join(into, objs[i].name);
		copy(objs[i].path, p, 0755);
		free(p);
	}
	if (interp) {
		/* The loader's cache, where the recording had one and went to it: the same
		 * size (the loader maps it whole, below what it mapped before), no entries. */
		int n;
		if (pack_patch_string(loader, "/etc/ld.so.cache", RP_PACK_CACHE, &n, err, sizeof err) < 0)
			die("%s", err);
		if (nsys && cache_size)
			empty_cache(dir, cache_size);
		if (pack_set_interp(to, RP_PACK_INTERP, &had, err, sizeof err) < 0)
			die("%s", err);
	}
	free(to);
	int ndebug = debug_files(dir, debug_dir);
	launcher(dir, log, exe_name, interp, nsys > 0, h);
	readme(dir, log);
	printf("%s: the log, %s, %s%d shared libraries; %d separate debug files\n", dir, exe_name,
	       interp ? "the dynamic loader, " : "", nlibs, ndebug);
	printf("  replay: %s/replay\n  debug:  replay-gdb %s\n", dir, dir);
	rp_log_close_reader(r);
	free(note);
	free(def);
	free(bin);
	free(lib);
	free(system);
	free(loader);
	return 0;
}
