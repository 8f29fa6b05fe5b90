#!/bin/bash
# logsize.sh: how big the log grows (issue 16's two log goals), each recording replayed
# to the same stdout or it fails (exit 1); sizes are never asserted.
#
#   1. CPU-bound threads at the default quantum (10 ms): bench/preempt.c (4 threads
#      that never block) recorded RUNS times, SCALE percent of its work (~8 s of CPU at
#      2000): log bytes per second of the recording's CPU and of its wall clock, bytes
#      per preemption (LIBREPLAY_STATS), and past what every recording pays once (the
#      header, the CONTEXT input, the threads' first records, END: a recording of 1 %
#      of the work, subtracted in bytes and CPU). Goal: at most 300 bytes a second.
#   2. Clock reads in a loop: bench/clock_reads.c, READS reads by each of 1 and 2
#      threads of each clock (monotonic, realtime, time, gettimeofday: predicted,
#      docs/inputs.md; cputime: logged at every read): log bytes per read.
#      Goal: at most 4.
#
#   bench/logsize.sh                          report in build/bench/logsize.txt
#   RUNS=5 SCALE=1000 READS=200000 bench/logsize.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
OUT=$ROOT/build/bench/logsize
RUNS=${RUNS:-3}
SCALE=${SCALE:-2000}
READS=${READS:-1000000}
REPORT=$ROOT/build/bench/logsize.txt

die() { echo "logsize: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
mkdir -p "$OUT" || die "cannot make $OUT"
exec > >(tee "$REPORT")
failed=0
"$SICC" -O2 -o "$OUT/preempt" "$ROOT/bench/preempt.c" || die "sicc preempt.c"
"$SICC" -O2 -o "$OUT/clock_reads" "$ROOT/bench/clock_reads.c" || die "sicc clock_reads.c"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# record NAME EXE ARGS...: record, then replay and compare stdout; sets BYTES WALL CPU
record() {
	local name=$1 exe=$2 t rc
	shift 2
	local log=$OUT/$name.bin
	t=$( { TIMEFORMAT='%R %U %S'; time LIBREPLAY_STATS=1 "$exe" --record "$log" -- "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; } 2>&1 )
	rc=$?
	BYTES=$(stat -c %s "$log" 2>/dev/null || echo 0)
	read -r WALL u s <<<"$t"
	CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	if [ "$rc" != 0 ] || ! "$exe" --replay "$log" >"$OUT/$name.rep" 2>"$OUT/$name.rep.err" ||
		! cmp -s "$OUT/$name.out" "$OUT/$name.rep"; then
		echo "logsize: $name: the recording failed or its replay differs ($OUT/$name.*)" >&2
		failed=1
		return 1
	fi
}

# The header: the file's bytes before the first block (its length field, bytes 12..15).
header_bytes() { od -An -tu4 -j12 -N4 "$1" | tr -d ' '; }

echo "logsize: the log's size, $(date -u +%Y-%m-%dT%H:%MZ); load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
echo
echo "1. bench/preempt.c, 4 CPU-bound threads, default quantum, scale $SCALE %, $RUNS recordings:"
record preempt0 "$OUT/preempt" 1 || die "the 1 % recording failed"
B0=$BYTES C0=$CPU
echo "   a recording of 1 %: $B0 bytes, $C0 s of CPU (header $(header_bytes "$OUT/preempt0.bin") bytes)"
printf '   %-4s %9s %8s %8s %12s %9s %9s %11s %14s\n' run bytes "cpu s" "wall s" preemptions "B/cpu s" "B/wall s" "B/preempt" "past the 1 %"
: >"$OUT/preempt.raw"
for ((r = 1; r <= RUNS; r++)); do
	record "preempt$r" "$OUT/preempt" "$SCALE" || continue
	pre=$(sed -n 's/^libreplay: \([0-9]*\) preemptions taken.*/\1/p' "$OUT/preempt$r.err")
	line=$(awk -v b="$BYTES" -v c="$CPU" -v w="$WALL" -v p="${pre:-0}" -v b0="$B0" -v c0="$C0" 'BEGIN {
		printf "%d %.2f %.2f %d %.0f %.0f %.2f %.0f", b, c, w, p, b / c, b / w, p ? b / p : 0, (b - b0) / (c - c0) }')
	echo "$line" >>"$OUT/preempt.raw"
	# shellcheck disable=SC2086
	printf '   %-4s %9s %8s %8s %12s %9s %9s %11s %14s\n' "$r" $line
done
med() { awk -v c="$1" '{ print $c }' "$OUT/preempt.raw" | median; }
printf '   %-4s %9s %8s %8s %12s %9s %9s %11s %14s\n' median "$(med 1)" "$(med 2)" "$(med 3)" "$(med 4)" "$(med 5)" "$(med 6)" "$(med 7)" "$(med 8)"
echo "   (goal: at most 300 bytes a second; the last column is (bytes - the 1 % recording's) / (CPU - its CPU))"
echo
echo "2. Clock reads in a loop, $READS reads per thread (bench/clock_reads.c):"
printf '   %-13s %8s %10s %10s %12s\n' clock threads reads "log bytes" "bytes/read"
for k in monotonic realtime time gettimeofday cputime; do
	for th in 1 2; do
		record "clock-$k-$th" "$OUT/clock_reads" "$k" "$READS" "$th" || continue
		n=$((READS * th))
		printf '   %-13s %8s %10s %10s %12s\n' "$k" "$th" "$n" "$BYTES" "$(awk -v b="$BYTES" -v n="$n" 'BEGIN { printf "%.4f", b / n }')"
	done
done
echo "   (goal: at most 4 bytes per read; the file's header and blocks included)"
exit $failed
