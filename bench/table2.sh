#!/bin/bash
# table2.sh: paper 002's Table 2 (../shared/papers/002_*.txt), measured: for its three
# programs (bench/paper_*.c: count, synchronised count, matrix multiply), what an
# optimal event-based trace would monitor (the accesses to shared memory) and log (the
# inter-thread dependences of the run) against what repeatable scheduling monitors
# (synchronization operations and preemptions) and logs (preemptions). Each program is
# recorded by its ordinary build (sicc), then that recording replayed twice: by the
# same build, and by its race build (sicc --races) with --races, whose end says what
# the detector saw (engine/races/races.c, struct rp_race_stats). Also the cost of race
# detection: the two replays' wall time and peak memory, medians of RUNS rounds.
# Every replay's stdout must be its recording's (else exit 1); timings are never
# asserted. The paper's row (Mach 3.0, 10 threads, 10^6 iterations; two 400x400
# matrices) is printed beside.
#
#   bench/table2.sh                  report in build/bench/table2.txt
#   RUNS=5 bench/table2.sh           more rounds (default 3)
#   COUNT_ARGS="1 10" ROUNDS_ARGS=1 MATMUL_ARGS=1 bench/table2.sh   the programs' arguments
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
DUMP=$ROOT/build/bin/replay-dump
OUT=$ROOT/build/bench/table2
RUNS=${RUNS:-3}
REPORT=$ROOT/build/bench/table2.txt
# count: 10 threads as in the paper, 2.5M increments each (the least paper_racy does);
# sync. count: 200 rounds of 4 threads' locked adds; matrix multiply: 5% of its passes.
COUNT_ARGS=${COUNT_ARGS:-"1 10"}
ROUNDS_ARGS=${ROUNDS_ARGS:-1}
MATMUL_ARGS=${MATMUL_ARGS:-5}

die() { echo "table2: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian's time package)"
mkdir -p "$OUT" || die "cannot make $OUT"
exec > >(tee "$REPORT")
failed=0

args_of() { case $1 in paper_racy) echo "$COUNT_ARGS" ;; paper_rounds) echo "$ROUNDS_ARGS" ;; *) echo "$MATMUL_ARGS" ;; esac; }
label() { case $1 in paper_racy) echo "count" ;; paper_rounds) echo "sync. count" ;; *) echo "matrix multiply" ;; esac; }
paper() {
	case $1 in
	paper_racy) echo "10^6 10 10 10" ;;
	paper_rounds) echo "10^6 10^6 10^6 10" ;;
	*) echo "12.8x10^6 6x10^3 6x10^3 6x10^3" ;;
	esac
}

for w in paper_racy paper_rounds paper_matmul; do
	"$SICC" -O2 -g -I"$ROOT/bench" -o "$OUT/$w" "$ROOT/bench/$w.c" -lpthread 2>"$OUT/$w.build" ||
		die "$w: sicc: $(head -n 3 "$OUT/$w.build")"
	"$SICC" --races -O2 -g -I"$ROOT/bench" -o "$OUT/$w.races" "$ROOT/bench/$w.c" -lpthread 2>"$OUT/$w.build" ||
		die "$w: sicc --races: $(head -n 3 "$OUT/$w.build")"
done

# timed OUTFILE CMD...: run it; print "WALL MAXRSS_KB STATUS"
timed() {
	local o=$1 rc; shift
	/usr/bin/time -f '%e %M' -o "$o.time" "$@" >"$o.out" 2>"$o.err"
	rc=$?
	echo "$(tail -n 1 "$o.time") $rc"
}

echo "table2: paper 002's Table 2, measured ($RUNS rounds), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
: >"$OUT/raw.txt"
for ((r = 1; r <= RUNS; r++)); do
	for w in paper_racy paper_rounds paper_matmul; do
		log=$OUT/$w.$r.bin
		# shellcheck disable=SC2046
		(cd "$OUT" && "./$w" --record "$log" -- $(args_of "$w") >"$OUT/$w.$r.rec.out" 2>/dev/null) ||
			{ echo "table2: $w: the recording failed" >&2; failed=1; continue; }
		read -r rw rm rs <<<"$(cd "$OUT" && timed "$OUT/$w.$r.replay" "./$w" --replay "$log")"
		read -r dw dm ds <<<"$(cd "$OUT" && timed "$OUT/$w.$r.races" "./$w.races" --replay "$log" --races)"
		for v in replay races; do
			if ! cmp -s "$OUT/$w.$r.$v.out" "$OUT/$w.$r.rec.out"; then
				echo "table2: $w round $r: the $v replay printed otherwise than its recording" >&2
				failed=1
			fi
		done
		stats=$(sed -n 's/^libreplay: --races: \([0-9]*\) accesses checked, \([0-9]*\) of them to shared memory, \([0-9]*\) inter-thread dependences, \([0-9]*\) synchronization operations$/\1 \2 \3 \4/p' "$OUT/$w.$r.races.err")
		races=$(sed -n 's/^libreplay: --races: \([0-9]*\) races\{0,1\} found in this run$/\1/p' "$OUT/$w.$r.races.err")
		pre=$("$DUMP" --exe "$OUT/$w" "$log" 2>/dev/null | sed -n 's/^records: \([0-9]*\) (\([0-9]*\) preempt.*/\2 \1/p')
		echo "run $w $r $rw $rm $rs $dw $dm $ds ${stats:-- - - -} ${pre:-- -} ${races:--}" >>"$OUT/raw.txt"
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v w="$1" -v c="$2" '$1 == "run" && $2 == w && $c != "-" { print $c }' "$OUT/raw.txt" | median; }

echo "Events, medians of the rounds (each round its own recording: the preemptions differ)."
echo "optimal trace: monitored = accesses to memory two threads touch, logged = the"
echo "inter-thread dependences among them (per pair of threads, not reduced transitively);"
echo "repeatable scheduling (ours): monitored = synchronization operations + preemptions,"
echo "logged = PREEMPT records (the log's records of every kind in brackets)."
printf '%-16s | %14s %12s | %14s %14s | %s\n' "" "optimal trace" "" "repeatable" "scheduling" "paper 002 (opt. mon., opt. log., RS mon., RS log.)"
printf '%-16s | %14s %12s | %14s %14s |\n' application monitored logged monitored logged
for w in paper_racy paper_rounds paper_matmul; do
	shared=$(med "$w" 11) deps=$(med "$w" 12) syncs=$(med "$w" 13) pre=$(med "$w" 14) recs=$(med "$w" 15)
	ours=$(awk -v a="$syncs" -v b="$pre" 'BEGIN { if (a == "-" || b == "-") print "-"; else print a + b }')
	printf '%-16s | %14s %12s | %14s %14s | %s\n' "$(label "$w")" "$shared" "$deps" "$ours" "$pre ($recs)" "$(paper "$w")"
done
echo
echo "The replay with race detection: wall seconds and peak memory (max RSS), medians;"
echo "accesses checked; races reported (the count's are real: it has no lock)."
printf '%-16s %10s %10s %8s %10s %10s %8s %14s %6s\n' application replay "--races" ratio "RSS KB" "--races KB" ratio accesses races
for w in paper_racy paper_rounds paper_matmul; do
	rw=$(med "$w" 4) dw=$(med "$w" 7) rm=$(med "$w" 5) dm=$(med "$w" 8)
	printf '%-16s %10s %10s %8s %10s %10s %8s %14s %6s\n' "$(label "$w")" "$rw" "$dw" \
		"$(awk -v a="$dw" -v b="$rw" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')" "$rm" "$dm" \
		"$(awk -v a="$dm" -v b="$rm" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')" \
		"$(med "$w" 10)" "$(med "$w" 16)"
done
exit $failed
