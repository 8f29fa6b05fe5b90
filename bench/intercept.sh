#!/bin/bash
# bench/intercept.sh: what seeing a system call costs (issue 29): wrappers, Syscall User
# Dispatch, seccomp, measured side by side.
#
#   bench/intercept.sh            (make first: it uses build/bin/sicc)
#   RUNS=9 N=400000 bench/intercept.sh
#
#   1. bench/intercept.c (gcc): ns per getppid and per 4 KiB pread, made raw, through
#      a libreplay-style wrapper that logs the result, trapped by SUD and by seccomp
#      RET_TRAP with a handler that makes the call from an allowed range and logs it;
#   2. bench/intercept_prog.c, N getpid (libreplay's recorded wrapper) and N preads
#      (glibc's, not wrapped): gcc, and sicc with --no-record, --record, and --record
#      --syscall-audit (where every pread traps: the audit's cost on a call that
#      escapes the wrappers).
# Medians of RUNS runs (default 5), the variants of a round back to back. Numbers only:
# a run that fails or prints a wrong checksum is reported and makes the exit status 1.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
W=$ROOT/build/bench/intercept
RUNS=${RUNS:-5}
N=${N:-100000}
REPORT=$ROOT/build/bench/intercept.txt
[ -x "$SICC" ] || { echo "bench/intercept.sh: $SICC missing: run make first" >&2; exit 1; }
rm -rf "$W" && mkdir -p "$W"
failures=0
gcc -O2 -g -Wall -o "$W/intercept" "$ROOT/bench/intercept.c" || exit 1
gcc -O2 -g -o "$W/prog.gcc" "$ROOT/bench/intercept_prog.c" || exit 1
"$SICC" -O2 -g -o "$W/prog.sic" "$ROOT/bench/intercept_prog.c" || exit 1
head -c 65536 /dev/zero >"$W/data"

RAW=$W/raw.txt
: >"$RAW"
# run TAG CMD...: its "prog CALL NS" / "intercept WAY CALL NS" lines into $RAW as "TAG CALL NS"
run() {
	local tag=$1
	shift
	if ! (cd "$W" && "$@" >"$W/out" 2>"$W/err"); then
		echo "bench/intercept.sh: $tag failed: $(head -n 2 "$W/err")" >&2
		failures=$((failures + 1))
		return
	fi
	if grep -q '^checksum' "$W/out" && ! grep -qx "checksum $((4096 * N))" "$W/out"; then
		echo "bench/intercept.sh: $tag: wrong checksum: $(grep checksum "$W/out")" >&2
		failures=$((failures + 1))
	fi
	awk -v t="$tag" '$1 == "prog" { print t, $2, $3 }
		$1 == "intercept" && $3 != "unavailable" { print $2, $3, $4 }
		$1 == "intercept" && $3 == "unavailable" { print "unavailable", $2 > "/dev/stderr" }' \
		"$W/out" >>"$RAW"
}
for ((r = 1; r <= RUNS; r++)); do
	echo "bench/intercept.sh: round $r/$RUNS" >&2
	run micro "$W/intercept" "$W/data" $((2 * N))
	run gcc "$W/prog.gcc" "$W/data" "$N"
	run sicc-no-record "$W/prog.sic" --no-record "$W/data" "$N"
	run sicc-record "$W/prog.sic" --record "$W/rec.bin" "$W/data" "$N"
	run sicc-audit "$W/prog.sic" --record "$W/audit.bin" --syscall-audit "$W/data" "$N"
done

# medians, one line per (way, call), in the order first seen
{
	echo "bench/intercept.sh: ns per system call, medians of $RUNS runs ($(uname -r), $(nproc) CPUs)"
	awk '{ k = $1 " " $2; if (!(k in n)) order[++m] = k; v[k, ++n[k]] = $3 }
	END {
		for (i = 1; i <= m; i++) {
			k = order[i]; c = n[k]
			for (a = 1; a <= c; a++) s[a] = v[k, a]
			for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
			med[k] = (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
			split(k, p, " "); base = (p[1] == "raw" || p[1] == "wrapper" || p[1] == "sud" || p[1] == "seccomp") ? "raw " p[2] : "gcc " p[2]
			printf "  %-16s %-8s %9.1f ns", p[1], p[2], med[k]
			if (base in med && base != k) printf "   %6.2fx %s", med[k] / med[base], (p[1] == "raw" || p[1] == "wrapper" || p[1] == "sud" || p[1] == "seccomp") ? "raw" : "gcc"
			printf "\n"
		}
	}' "$RAW"
} | tee "$REPORT"
[ "$failures" -eq 0 ] || { echo "bench/intercept.sh: $failures failures" >&2; exit 1; }
