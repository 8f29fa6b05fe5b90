#!/bin/bash
# bench/stops.sh: what the replay's software breakpoint costs against the hardware one
# (docs/replay.md, "The breakpoint"), on a preemption-heavy program.
#
#   bench/stops.sh                (make first: it uses build/bin/sicc)
#
# bench/preempt.c (4 CPU-bound threads, no blocking: every switch is a preemption) is
# recorded with short time slices (--quantum 100us and 50us) and with --hunt, and each
# log is replayed with --breakpoints=hardware and --breakpoints=software in turn, the
# order swapped every round. Times are the whole process's wall clock, taken here (the
# program's own clock reads are replayed from the log); medians over RUNS rounds, the
# ratio software/hardware from the medians, and the cost of one software stop over a
# hardware one: (software - hardware) / stops taken at the breakpoint (LIBREPLAY_STATS).
# Every replay must print its recording's output: one that does not is a failure, exit 1.
#
# Environment: RUNS=N rounds (default 7); SCALE=P preempt.c's work in percent (100).
# Where the hardware breakpoint is not to be had (perf refused, debug registers that do
# not fire), only the software column is printed.
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
W=$ROOT/build/bench/stops
RUNS=${RUNS:-7}
SCALE=${SCALE:-100}
[ -x "$SICC" ] || { echo "stops-bench: $SICC missing: run make first" >&2; exit 1; }
mkdir -p "$W"
rm -f "$W"/*.bin "$W"/*.out
"$SICC" -O2 -I"$ROOT/bench" -o "$W/preempt" "$ROOT/bench/preempt.c" -lpthread

status=0
hw=hardware
if ! "$W/preempt" --replay-help >/dev/null 2>&1; then echo "stops-bench: preempt does not run" >&2; exit 1; fi
"$W/preempt" --record "$W/probe.bin" 1 >/dev/null 2>&1
if ! "$W/preempt" --replay "$W/probe.bin" --breakpoints=hardware >/dev/null 2>"$W/probe.err"; then
	echo "stops-bench: no hardware breakpoint here ($(head -n 1 "$W/probe.err")): software only"
	hw=""
fi

# one_replay LOG MODE: the replay's wall seconds in $T, its stops at the breakpoint in $N.
one_replay() {
	local t0 t1
	t0=$EPOCHREALTIME
	LIBREPLAY_STATS=1 "$W/preempt" --replay "$1" --breakpoints="$2" >"$1.$2.out" 2>"$1.$2.err" || true
	t1=$EPOCHREALTIME
	T=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	N=$(sed -n 's/^libreplay: [0-9]* preemptions replayed at a counting point, \([0-9]*\) at the .*/\1/p' "$1.$2.err")
	if ! cmp -s "$1.rec.out" "$1.$2.out"; then
		echo "stops-bench: FAILURE: the $2 replay of $1 differs: $(grep -m1 '^libreplay' "$1.$2.err" || true)" >&2
		status=1
	fi
}

median() { sort -g | awk '{ x[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }

printf '%-16s %8s %10s %10s %8s %12s\n' recording stops hardware software ratio "per stop"
for how in "--quantum 100us" "--quantum 50us" "--hunt=1" "--hunt=2"; do
	tag=$(echo "${how#--}" | tr -c 'a-z0-9\n' _)
	: >"$W/$tag.hardware.t"
	: >"$W/$tag.software.t"
	for ((r = 1; r <= RUNS; r++)); do
		log=$W/$tag.$r.bin
		# shellcheck disable=SC2086 # how is a flag and its value
		"$W/preempt" --record "$log" $how "$SCALE" >"$log.rec.out" 2>/dev/null
		modes="software $hw"
		[ $((r % 2)) -eq 0 ] && modes="$hw software"
		for m in $modes; do
			one_replay "$log" "$m"
			echo "$T $N" >>"$W/$tag.$m.t"
		done
	done
	stops=$(cut -d' ' -f2 "$W/$tag.software.t" | median)
	sw=$(cut -d' ' -f1 "$W/$tag.software.t" | median)
	if [ -n "$hw" ]; then
		h=$(cut -d' ' -f1 "$W/$tag.hardware.t" | median)
		awk -v t="$how" -v n="$stops" -v h="$h" -v s="$sw" 'BEGIN {
			printf "%-16s %8d %9.3fs %9.3fs %8.2f ", t, n, h, s, s / h
			if (n >= 100) printf "%10.1fus\n", (s - h) / n * 1e6; else printf "%12s\n", "-" }'
	else
		printf '%-16s %8d %10s %9.3fs\n' "$how" "$stops" - "$sw"
	fi
done
echo "(medians of $RUNS rounds; per stop: the software replay's extra time over the hardware one's, per stop at the breakpoint; - under 100 stops)"
exit $status
