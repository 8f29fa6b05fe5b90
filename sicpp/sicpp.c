/* sicpp: instrument gcc's x86-64 assembly with a software instruction counter.
 *
 *   gcc -S -ffixed-r15 app.c && sicpp app.s -o app.sic.s && gcc -c app.sic.s
 */
#include "asm.h"
#include "analyze.h"
#include "rewrite.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *o)
{
	fputs("usage: sicpp [options] [INPUT.s] [-o OUTPUT.s]\n"
	      "Instrument x86-64 AT&T assembly from gcc -S -ffixed-r15 with a software\n"
	      "instruction counter in %r15 (see docs/sic.md). Reads stdin and writes stdout\n"
	      "when no file is named.\n"
	      "  -o FILE          write here (written whole or not at all)\n"
	      "  --keep-main      do not rename main to __sic_main\n"
	      "  --pic            code for a shared object: reach the runtime through the\n"
	      "                   GOT and register the module's tables (gcc -fPIC)\n"
	      "  --races          the race build: a call to the race detector before each\n"
	      "                   memory access (docs/races.md); counts as the ordinary build\n"
	      "  --stats          print what was inserted on stderr\n"
	      "  -h, --help       this text\n",
	      o);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"keep-main", no_argument, NULL, 'k'},
		{"stats", no_argument, NULL, 's'},
		{"pic", no_argument, NULL, 'p'},
		{"races", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *outpath = NULL;
	bool stats = false, pic = false;
	struct rewrite_opts opts = {.rename_main = true};
	int c;
	opterr = 0; /* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'k': opts.rename_main = false; break;
		case 's': stats = true; break;
		case 'p': pic = true; break;
		case 'r': opts.races = true; break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "sicpp: option '%s' needs an argument (see sicpp --help)\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "sicpp: unrecognized option '%s' (see sicpp --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "sicpp: one input file at most (got %d)\n", argc - optind);
		return 2;
	}
	const char *inpath = optind < argc ? argv[optind] : "-";
	FILE *in = strcmp(inpath, "-") ? fopen(inpath, "r") : stdin;
	if (!in) {
		fprintf(stderr, "sicpp: %s: %s\n", inpath, strerror(errno));
		return 1;
	}
	struct asm_file f;
	char err[512];
	if (asm_parse(&f, strcmp(inpath, "-") ? inpath : "<stdin>", in, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (in != stdin)
		fclose(in);

	struct analysis an;
	if (analyze(&an, &f, pic) < 0)
		return 1;

	/* Write to a temporary beside the output and rename, so a failure never leaves
	 * a half-instrumented file that a later build step would assemble. Only over a
	 * regular file or none: renaming over /dev/null (sicpp x.s -o /dev/null, as
	 * root) put a regular file in its place, and over a FIFO the reader never saw a
	 * byte; those are written in place. */
	char tmp[4096];
	FILE *out = stdout;
	struct stat ost;
	bool in_place = outpath && strcmp(outpath, "-") && stat(outpath, &ost) == 0 && !S_ISREG(ost.st_mode);
	if (in_place && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "sicpp: %s: %s\n", outpath, strerror(errno));
		return 1;
	}
	if (!in_place && outpath && strcmp(outpath, "-")) {
		snprintf(tmp, sizeof tmp, "%s.sicpp-XXXXXX", outpath);
		int fd = mkstemp(tmp);
		/* mkstemp's 0600 would become the output's: the mode a new file gets. */
		mode_t mask = umask(0);
		umask(mask);
		if (fd >= 0)
			fchmod(fd, 0666 & ~mask);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			fprintf(stderr, "sicpp: %s: %s\n", outpath, strerror(errno));
			return 1;
		}
	}
	int rc = rewrite(out, &an, &opts);
	if (in_place) {
		if (fclose(out) != 0)
			rc = -1;
	} else if (out != stdout) {
		if (fclose(out) != 0)
			rc = -1;
		if (rc == 0 && rename(tmp, outpath) != 0) {
			fprintf(stderr, "sicpp: %s: %s\n", outpath, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(tmp);
	} else if (fflush(stdout) != 0) {
		rc = -1;
	}
	if (rc != 0) {
		fprintf(stderr, "sicpp: %s: write error\n", outpath ? outpath : "<stdout>");
		return 1;
	}
	if (stats)
		fprintf(stderr, "sicpp: %s: %d counting points (%d flag-preserving), %d entry checks, "
			"%d calls kept local, %d calls publish the count, %d calls uncounted (%d of them to C library functions that call "
			"nothing of the program), %d loop counts dropped, %d pauses and %d spin-waits "
			"yield, %d memory accesses listed, %d direct entries, %d calls and %d tail jumps "
			"to direct entries, %d shims, %d leaf functions (%d of their entry checks and %d calls "
			"to them count, their returns not), %d calls to other files' functions count at their "
			"cross-file entry, %d cross-file thunks%s\n",
			f.path, an.n_fast + an.n_safe + an.n_leaf_entries, an.n_safe, an.n_entry, an.n_calls_local,
			an.n_calls_foreign, an.n_calls_uncounted + an.n_calls_pure, an.n_calls_pure, an.n_pruned, an.n_pause, an.n_spin, an.n_memops,
			an.n_direct_entries, an.n_calls_direct, an.n_jumps_direct, an.n_shims,
			an.n_leaves, an.n_leaf_entries, an.n_leaf_calls, an.n_calls_xcall, an.n_xthunks,
			an.already_instrumented ? " (already instrumented)" : "");
	analysis_free(&an);
	asm_free(&f);
	return 0;
}
