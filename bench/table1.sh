#!/bin/bash
# table1.sh: our row of paper 002's Table 1 (../shared/papers/002_*.txt), measured side
# by side: paper 002's three synthetic workloads (bench/paper_*.c: count, synchronised
# count, matrix multiply) and four SPLASH-2 style kernels written here
# (bench/splash/*.c: radix sort, LU, FFT, Cholesky), each run
#   native1   gcc -O2 -pthread, glibc's threads, pinned to one CPU (taskset -c 0)
#   native    the same, on every CPU
#   sic       built with sicc, run --no-record (the counter and our scheduler)
#   record    --record, the default quantum (10 ms)
#   replay    --replay of that recording
# and the log's bytes per second of recording. Medians of RUNS rounds; a round runs
# every variant of a workload back to back, the order of the first three rotated, a
# replay right after its recording. Times are of whole processes, exec to exit, taken
# here (wall and user+sys CPU): they include our start-up (the re-exec without ASLR)
# and reading or writing the log. Every run's answer must equal native's (but the
# racy count's and the lock order's, which the schedule decides), and every replay's
# stdout its recording's: a difference is a failure (exit 1); timings are never
# asserted. The paper's figures (Mach 3.0, 90 MHz Pentium, 8 threads) are printed beside.
#
#   bench/table1.sh                  report in build/bench/table1.txt
#   RUNS=5 SCALE=50 bench/table1.sh  more rounds (default 3), less work (percent, 100)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
OUT=$ROOT/build/bench/table1
RUNS=${RUNS:-3}
SCALE=${SCALE:-100}
CFLAGS_B=${BENCH_CFLAGS:--O2}
WORKLOADS=${WORKLOADS:-"paper_racy paper_rounds paper_matmul radix lu fft cholesky"}
REPORT=$ROOT/build/bench/table1.txt
RAW=$OUT/raw.txt

die() { echo "table1: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
command -v taskset >/dev/null || die "taskset missing (util-linux)"
mkdir -p "$OUT" || die "cannot make $OUT"
: >"$RAW"
exec > >(tee "$REPORT")
failed=0

src_of() { case $1 in paper_*) echo "$ROOT/bench/$1.c" ;; *) echo "$ROOT/bench/splash/$1.c" ;; esac; }

# The paper's row: native, instrumented (overhead), replay (overhead), trace size.
paper_row() {
	case $1 in
	paper_racy) echo "count: 8.47 s, 9.16 (8.1%), 9.44 (11.5%), 11KB" ;;
	paper_rounds) echo "sync. count: 0.24/6.42 s, 3.32, 3.58, 3KB" ;;
	paper_matmul) echo "matrix multiply: 27.59 s, 30.05 (8.9%), 31.35 (13.6%), 26KB" ;;
	radix) echo "Radix: 4.94 s, 5.22 (5.7%), 5.37 (8.7%), 6KB" ;;
	lu) echo "LU-contiguous: 10.58 s, 12.33 (16.5%), 12.20 (15.3%), 14KB" ;;
	fft) echo "FFT: 1.65 s, 1.82 (10.3%), 1.85 (12.1%), 1KB" ;;
	cholesky) echo "Cholesky: 1.66/16.48 s, 2.63, 2.66, 2KB" ;;
	esac
}

for w in $WORKLOADS; do
	src=$(src_of "$w")
	[ -e "$src" ] || die "no $src"
	gcc $CFLAGS_B -pthread -o "$OUT/$w.gcc" "$src" -lm 2>"$OUT/$w.build" || die "$w: gcc: $(head -n 3 "$OUT/$w.build")"
	"$SICC" $CFLAGS_B -o "$OUT/$w.sic" "$src" -lm 2>"$OUT/$w.build" || die "$w: sicc: $(head -n 3 "$OUT/$w.build")"
done

# Does the workload's answer depend on the schedule? (the racy count loses updates,
# the synchronised count prints the order the threads took the lock)
schedule_dependent() { case $1 in paper_racy | paper_rounds) return 0 ;; *) return 1 ;; esac; }

# one W VARIANT ROUND: run it, timed from here (a replay re-reads the recorded clock, so
# the program's own timing would be the recording's), and append
# "run W VARIANT ROUND ok|bad WALL CPU BYTES" to RAW.
one() {
	local w=$1 v=$2 r=$3 o=$OUT/$1.$2.$3 log=$OUT/$1.$3.bin cmd
	case $v in
	native1) cmd=(taskset -c 0 "./$w.gcc" "$SCALE") ;;
	native) cmd=("./$w.gcc" "$SCALE") ;;
	sic) cmd=("./$w.sic" --no-record -- "$SCALE") ;;
	record) cmd=("./$w.sic" --record "$log" -- "$SCALE") ;;
	replay) cmd=("./$w.sic" --replay "$log") ;;
	esac
	local t rc ok=ok bytes=0
	t=$( { TIMEFORMAT='%R %U %S'; time { (cd "$OUT" && "${cmd[@]}") >"$o.out" 2>"$o.err"; }; } 2>&1 )
	rc=$?
	[ "$rc" = 0 ] || ok=bad
	# every answer is native's (pinned), unless the schedule decides it; a replay's
	# stdout is its recording's
	if [ "$v" != native1 ] && ! schedule_dependent "$w" && ! cmp -s "$o.out" "$OUT/$w.native1.$r.out"; then ok=bad; fi
	if [ "$v" = replay ] && ! cmp -s "$o.out" "$OUT/$w.record.$r.out"; then ok=bad; fi
	[ "$v" = record ] && bytes=$(stat -c %s "$log" 2>/dev/null || echo 0)
	if [ $ok = bad ]; then
		echo "table1: $w $v round $r failed (status $rc): $(grep -m1 -v '^replay-bench' "$o.err")" >&2
		failed=1
	fi
	echo "run $w $v $r $ok $(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%s %.3f", a[1], a[2] + a[3] }') $bytes" >>"$RAW"
}

echo "table1: paper 002's Table 1, our row ($CFLAGS_B, scale $SCALE %, $RUNS rounds, 4 threads), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
for ((r = 1; r <= RUNS; r++)); do
	for w in $WORKLOADS; do
		one "$w" native1 "$r" # first: the reference answer
		case $((r % 3)) in
		0) order="native sic" ;;
		1) order="sic native" ;;
		*) order="native sic" ;;
		esac
		for v in $order record replay; do
			one "$w" "$v" "$r"
		done
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v w="$1" -v v="$2" -v c="$3" '$1 == "run" && $2 == w && $3 == v && $5 == "ok" && $c != "-" { print $c }' "$RAW" | median; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%+.1f%%", 100 * (a / b - 1) }'; }
fmt() { awk -v a="$1" 'BEGIN { if (a == "-") print "-"; else printf "%.3f", a }'; }

echo "Wall-clock seconds of whole processes, medians; overheads against sic (--no-record);"
echo "log bytes per second of recording (log size over the recording's wall time)."
printf '%-13s %9s %9s %9s %9s %8s %9s %8s %8s %9s\n' workload native1 native sic record "rec/sic" replay "rep/sic" "log B" "log B/s"
for w in $WORKLOADS; do
	n1=$(med "$w" native1 6)
	na=$(med "$w" native 6)
	s=$(med "$w" sic 6)
	rc=$(med "$w" record 6)
	rp=$(med "$w" replay 6)
	b=$(med "$w" record 8)
	bps=$(awk -v w="$w" '$1 == "run" && $2 == w && $3 == "record" && $5 == "ok" && $6 > 0 { print $8 / $6 }' "$RAW" | median)
	printf '%-13s %9s %9s %9s %9s %8s %9s %8s %8s %9s\n' "$w" "$(fmt "$n1")" "$(fmt "$na")" "$(fmt "$s")" "$(fmt "$rc")" \
		"$(pct "$rc" "$s")" "$(fmt "$rp")" "$(pct "$rp" "$s")" "$b" "$(awk -v x="$bps" 'BEGIN { if (x == "-") print x; else printf "%.0f", x }')"
done
echo
echo "CPU seconds (user+sys) of the same runs (native's summed over its CPUs), medians:"
printf '%-13s %9s %9s %9s %9s %9s\n' workload native1 native sic record replay
for w in $WORKLOADS; do
	printf '%-13s %9s %9s %9s %9s %9s\n' "$w" "$(fmt "$(med "$w" native1 7)")" "$(fmt "$(med "$w" native 7)")" \
		"$(fmt "$(med "$w" sic 7)")" "$(fmt "$(med "$w" record 7)")" "$(fmt "$(med "$w" replay 7)")"
done
echo
echo "Paper 002, Table 1 (Mach 3.0, native / instrumented (overhead) / replay (overhead) / trace):"
for w in $WORKLOADS; do
	printf '  %-13s %s\n' "$w" "$(paper_row "$w")"
done
echo "Goal (issue 16): record and replay within 10 % of --no-record (sic) on every row."
exit $failed
