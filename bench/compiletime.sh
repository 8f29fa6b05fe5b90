#!/bin/bash
# compiletime.sh: sicc's compile time against gcc's on one large file (issue 31: within
# 1.2x), at each flag set: PAIRS alternating compiles (gcc then sicc, then sicc then
# gcc, ...), the CPU seconds (user+sys) of each, and the ratio of the minimums and of
# the medians. The object is thrown away; only the compiler's time counts.
#
#   bench/compiletime.sh                     sqlite3.c (realprogs.sh's amalgamation)
#   FILE=x.c PAIRS=5 bench/compiletime.sh    another file, more pairs (default 3)
#   FLAGSETS="-O2;-O2 -g"                    the flag sets, ';'-separated (that default)
#   SICC=/tmp/old/bin/sicc                   another toolchain
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
PAIRS=${PAIRS:-3}
FLAGSETS=${FLAGSETS:-"-O2;-O2 -g"}
FILE=${FILE:-$ROOT/build/bench/real/sqlite-amal/sqlite3.c}
die() { echo "compiletime: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
[ -r "$FILE" ] || die "no $FILE (bench/realprogs.sh makes sqlite's amalgamation, or give FILE=)"
tmp=$(mktemp -d) || die "mktemp"
trap 'rm -rf "$tmp"' EXIT

# cpu CC FLAGS: the CPU seconds of one compile of $FILE
cpu() {
	local cc=$1 t
	shift
	# shellcheck disable=SC2068
	t=$( { TIMEFORMAT='%U %S'; time "$cc" $@ -c "$FILE" -o "$tmp/o.o" 2>"$tmp/err"; } 2>&1 ) ||
		die "$cc $* failed: $(head -n 3 "$tmp/err")"
	awk -v t="$t" 'BEGIN { split(t, a, " "); print a[1] + a[2] }'
}
stat2() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m }'; }

echo "compiletime: $(basename "$FILE") ($(wc -c <"$FILE") bytes), $PAIRS alternating pairs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %9s %9s %9s %9s %8s %8s\n' flags "gcc min" "sicc min" "gcc med" "sicc med" "min" "median"
IFS=';' read -r -a sets <<<"$FLAGSETS"
for fl in "${sets[@]}"; do
	: >"$tmp/gcc" && : >"$tmp/sicc"
	for ((r = 0; r < PAIRS; r++)); do
		if ((r % 2)); then order="sicc gcc"; else order="gcc sicc"; fi
		for c in $order; do
			if [ $c = gcc ]; then cc=gcc; else cc=$SICC; fi
			# shellcheck disable=SC2086
			cpu "$cc" $fl >>"$tmp/$c"
		done
	done
	read -r gmin gmed <<<"$(stat2 <"$tmp/gcc")"
	read -r smin smed <<<"$(stat2 <"$tmp/sicc")"
	printf '%-10s %9s %9s %9s %9s %8s %8s\n' "$fl" "$gmin" "$smin" "$gmed" "$smed" \
		"$(awk -v a="$smin" -v b="$gmin" 'BEGIN { printf "%.3f", a / b }')" \
		"$(awk -v a="$smed" -v b="$gmed" 'BEGIN { printf "%.3f", a / b }')"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(sicc/gcc, CPU seconds of the compiler: gcc -S, sicpp and as for sicc; goal 1.2)"
