#!/bin/bash
# races.sh: the cost of race detection on the replay (docs/races.md) for Table 1's
# programs (bench/table1.sh's list: paper 002's count, synchronised count and matrix
# multiply, and the SPLASH-2 style kernels): each built by sicc (the recorded build)
# and by sicc --races (the race build), recorded once per round, that recording
# replayed by the recorded build and by the race build with --races. CPU seconds
# (user + system: a replay runs on one kernel thread, and other work on the machine
# stretches wall time, not this), wall seconds and peak memory (max RSS) of both
# replays, medians of RUNS rounds; both replays must print what the recording did (a
# difference is a failure, exit 1).
#
#   bench/races.sh                      report in build/bench/races.txt
#   RUNS=5 SCALE=50 bench/races.sh      more rounds (default 3), less work (percent)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
OUT=$ROOT/build/bench/races
RUNS=${RUNS:-3}
SCALE=${SCALE:-100}
WORKLOADS=${WORKLOADS:-"paper_racy paper_rounds paper_matmul radix lu fft cholesky"}
die() { echo "races: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian's time package)"
mkdir -p "$OUT" || die "cannot make $OUT"
exec > >(tee "$ROOT/build/bench/races.txt")
failed=0
src_of() { case $1 in paper_*) echo "$ROOT/bench/$1.c" ;; *) echo "$ROOT/bench/splash/$1.c" ;; esac; }
for w in $WORKLOADS; do
	"$SICC" -O2 -g -o "$OUT/$w" "$(src_of "$w")" -lm -lpthread 2>"$OUT/$w.build" &&
		"$SICC" --races -O2 -g -o "$OUT/$w.races" "$(src_of "$w")" -lm -lpthread 2>>"$OUT/$w.build" ||
		die "$w: $(head -n 3 "$OUT/$w.build")"
done
timed() { # OUT CMD...: "cpu wall maxrss_kb"
	local o=$1; shift
	/usr/bin/time -f '%U %S %e %M' -o "$o.time" "$@" >"$o.out" 2>"$o.err"
	tail -n 1 "$o.time" | awk '{ printf "%.2f %s %s\n", $1 + $2, $3, $4 }'
}
echo "races: the replay with and without --races (scale $SCALE %, $RUNS rounds), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
: >"$OUT/raw.txt"
for ((r = 1; r <= RUNS; r++)); do
	for w in $WORKLOADS; do
		log=$OUT/$w.$r.bin
		(cd "$OUT" && "./$w" --record "$log" -- "$SCALE" >"$OUT/$w.$r.rec.out" 2>/dev/null) ||
			{ echo "races: $w: the recording failed" >&2; failed=1; continue; }
		read -r rc rw rm <<<"$(cd "$OUT" && timed "$OUT/$w.$r.replay" "./$w" --replay "$log")"
		read -r dc dw dm <<<"$(cd "$OUT" && timed "$OUT/$w.$r.races" "./$w.races" --replay "$log" --races)"
		for v in replay races; do
			cmp -s "$OUT/$w.$r.$v.out" "$OUT/$w.$r.rec.out" ||
				{ echo "races: $w round $r: the $v replay printed otherwise than its recording" >&2; failed=1; }
		done
		acc=$(sed -n 's/^libreplay: --races: \([0-9]*\) accesses checked.*/\1/p' "$OUT/$w.$r.races.err")
		n=$(sed -n 's/^libreplay: --races: \([0-9]*\) races\{0,1\} found in this run$/\1/p' "$OUT/$w.$r.races.err")
		echo "run $w $r $rc $rw $rm $dc $dw $dm ${acc:--} ${n:--}" >>"$OUT/raw.txt"
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v w="$1" -v c="$2" '$1 == "run" && $2 == w && $c != "-" { print $c }' "$OUT/raw.txt" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
echo "CPU seconds (user + system), wall seconds, max RSS; medians"
printf '%-13s %8s %8s %7s | %7s %8s | %9s %10s %6s | %11s %5s\n' program "cpu" "--races" ratio wall "--races" "RSS KB" "--races KB" ratio accesses races
for w in $WORKLOADS; do
	rc=$(med "$w" 4) rw=$(med "$w" 5) rm=$(med "$w" 6) dc=$(med "$w" 7) dw=$(med "$w" 8) dm=$(med "$w" 9)
	printf '%-13s %8s %8s %7s | %7s %8s | %9s %10s %6s | %11s %5s\n' "$w" "$rc" "$dc" "$(ratio "$dc" "$rc")" \
		"$rw" "$dw" "$rm" "$dm" "$(ratio "$dm" "$rm")" "$(med "$w" 10)" "$(med "$w" 11)"
done
exit $failed
