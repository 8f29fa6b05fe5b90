#!/bin/bash
# bench/hunt.sh: how soon each scheduling mode finds the bugs of tests/hunt/bugs/, and
# what spin-waiting and loops of clock reads or locks cost a recording (issue 10).
#
#   bench/hunt.sh                 (make first: it uses build/bin/sicc and replay-hunt)
#
#   1. per buggy program and per mode, replay-hunt's failures per RUNS runs and the
#      first failing run (counted from 1): default 10 ms slices, --quantum 50us,
#      --chaos (count-based), --hunt (when the runtime has it), and native threads on
#      every core (the same source built with gcc -pthread, for reference);
#   2. spin-waiting (bench/hunt/spin_flag.c, spin_tas.c, spin_barrier.c): the median
#      wall time of a recording against the same source built with gcc -pthread
#      run natively, both pinned to one CPU (taskset -c 0), in alternating rounds;
#   3. log bytes per second of a loop of clock reads (bench/hunt/clock_loop.c) and of
#      lock/unlock (bench/hunt/lock_loop.c), recorded, medians;
#   4. a benchmark of published bugs: SCTBench's concurrent-software-benchmarks (the
#      bugs its benchmarks/buggy.txt lists; github.com/mc-imperial/sctbench, fetched
#      outside the repository, SCTBENCH=DIR), its other buggy programs (how each builds
#      and runs: bench/hunt/sctbench-extra.sh) and our tests/hunt programs: per program
#      and per strategy (MODES4), failures per RUNS4 runs and the first failing run;
#      and what a hunted run costs: the median wall time of --record --hunt=S against
#      --no-record (the default slices), each program's seeds 1..COST_RUNS;
#   5. the cost of hunting on Table 1's workloads (bench/table1.sh's: paper 002's three,
#      the four SPLASH-2 kernels of bench/splash) at SCALE5 % of their work: user+sys
#      CPU and wall time of --record --hunt=S against --no-record, seeds 1..RUNS5 in
#      turn, medians; and that every hunted run ends (no livelock) with the answer.
#
# Numbers only: nothing here is asserted (the issue's goals are printed beside them).
# Exit 1 only when something does not build or a spin program fails.
#
# Environment:
#   RUNS=N        runs per program and mode in part 1 (default 100)
#   SPIN_RUNS=N   rounds of parts 2 and 3 (default 5); medians are over them
#   TIMEOUT=T     replay-hunt --timeout in part 1 (default 2s): a deadlock natively
#                 (or a hang) costs that much
#   PROGS="..."   the buggy programs of part 1 (default: all of tests/hunt/bugs)
#   MODES="..."   the modes of part 1 (default: default quantum=50us chaos hunt native)
#   PARTS="..."   the parts to run (default: 1 2 3 5, and 4 when SCTBENCH is set)
#   SCTBENCH=DIR  a checkout of mc-imperial/sctbench (part 4; not needed otherwise)
#   RUNS4=N       runs per program and strategy in part 4 (default 100)
#   MODES4="..."  part 4's strategies (default: hunt, each of hunt:S, chaos, quantum=50us,
#                 native: the gcc build, where there is one)
#   COST_RUNS=N   runs of each kind for part 4's cost column (default 5)
#   SCALE5=P, RUNS5=N, TIMEOUT5=T  part 5's work (25 %), seeds (3), --timeout-own (60s)
#   T1="..."      part 5's workloads (default: table1.sh's seven)
#
# Results: stdout and build/bench/hunt.txt; part 1's kept failing runs in
# build/bench/hunt/keep-PROGRAM-MODE/.
set -euo pipefail
export LC_ALL=C
unset LIBREPLAY_OPTS

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/bench
W=$OUT/hunt
SICC=$ROOT/build/bin/sicc
HUNT=$ROOT/build/bin/replay-hunt
REPORT=$OUT/hunt.txt
RUNS=${RUNS:-100}
SPIN_RUNS=${SPIN_RUNS:-5}
TIMEOUT=${TIMEOUT:-2s}
BUGS=$ROOT/tests/hunt/bugs
PROGS=${PROGS:-$(cd "$BUGS" && ls ./*.c | sed 's|^\./||; s|\.c$||' | tr '\n' ' ')}
MODES=${MODES:-default quantum=50us chaos hunt native}
SCTBENCH=${SCTBENCH:-}
PARTS=${PARTS:-1 2 3${SCTBENCH:+ 4} 5}
RUNS4=${RUNS4:-100}
MODES4=${MODES4:-hunt hunt:windows hunt:accesses hunt:pct hunt:quick hunt:delays chaos quantum=50us native}
COST_RUNS=${COST_RUNS:-5}
SCALE5=${SCALE5:-25}
RUNS5=${RUNS5:-3}
TIMEOUT5=${TIMEOUT5:-60s}
T1=${T1:-paper_racy paper_rounds paper_matmul radix lu fft cholesky}

die() {
	echo "hunt-bench: $*" >&2
	exit 1
}
case $RUNS$SPIN_RUNS in '' | *[!0-9]*) die "RUNS=$RUNS SPIN_RUNS=$SPIN_RUNS: want positive numbers" ;; esac
[ "$RUNS" -ge 1 ] && [ "$SPIN_RUNS" -ge 1 ] || die "RUNS and SPIN_RUNS must be at least 1"
[ -x "$SICC" ] && [ -x "$HUNT" ] || die "$SICC or $HUNT missing: run make first"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (EPOCHREALTIME)"
command -v taskset >/dev/null || die "needs taskset (util-linux)"

rm -rf "$W" && mkdir -p "$W"
exec > >(tee "$REPORT")

# ---- build ------------------------------------------------------------------------
echo "hunt-bench: building into $W" >&2
for p in $PROGS; do
	"$SICC" -O2 -g -o "$W/$p.sic" "$BUGS/$p.c" -lpthread || die "$p: sicc failed"
	gcc -O2 -g -pthread -o "$W/$p.gcc" "$BUGS/$p.c" || die "$p: gcc failed"
done
for p in spin_flag spin_tas spin_barrier clock_loop lock_loop; do
	"$SICC" -O2 -g -o "$W/$p.sic" "$ROOT/bench/hunt/$p.c" -lpthread || die "$p: sicc failed"
	gcc -O2 -g -pthread -o "$W/$p.gcc" "$ROOT/bench/hunt/$p.c" || die "$p: gcc failed"
done
HAS_HUNT=0
"$W/spin_flag.sic" --replay-help | grep -q -- '--hunt' && HAS_HUNT=1

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# part N: true if part N is to run.
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- 1. finding the bugs --------------------------------------------------------------
if part 1; then
echo
echo "== 1. Failures per $RUNS runs, and the first failing run (1 = the first run)"
echo "   replay-hunt --runs $RUNS --timeout $TIMEOUT --mode MODE, $(nproc) jobs; native: gcc -pthread, every core"
printf '%-18s' program
for m in $MODES; do printf ' %16s' "$m"; done
echo
for p in $PROGS; do
	printf '%-18s' "$p"
	for m in $MODES; do
		if [ "$m" = hunt ] && [ $HAS_HUNT = 0 ]; then
			printf ' %16s' "(no --hunt)"
			continue
		fi
		exe=$W/$p.sic
		[ "$m" = native ] && exe=$W/$p.gcc
		"$HUNT" --runs "$RUNS" --timeout "$TIMEOUT" --mode "$m" --keep "$W/keep-$p-${m%%=*}" \
			-- "$exe" >"$W/$p-${m%%=*}.report" 2>&1 || true
		f=$(sed -n 's/^failures: \([0-9]*\).*/\1/p' "$W/$p-${m%%=*}.report")
		first=$(sed -n 's/^first failing run: \([0-9]*\).*/\1/p' "$W/$p-${m%%=*}.report")
		[ -n "$f" ] || die "$p, mode $m: no report: $(head -c 300 "$W/$p-${m%%=*}.report")"
		printf ' %16s' "$f/$RUNS${first:+ @$((first + 1))}"
	done
	echo
done
echo "   (N/$RUNS @K: N runs of $RUNS failed, the first at run K; goal for --hunt: every bug by run 20,"
echo "    and more failures than native on every program)"
fi

# ---- 2. spin-waiting ------------------------------------------------------------------
# wall CMD...: seconds the command took (its stdout and stderr to $W/last.*).
wall() {
	local t0=$EPOCHREALTIME rc=0
	"$@" >"$W/last.out" 2>"$W/last.err" </dev/null || rc=$?
	local t1=$EPOCHREALTIME
	[ $rc -eq 0 ] || die "$* exited $rc: $(head -c 300 "$W/last.err")"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

if part 2; then
echo
echo "== 2. Spin-waiting: median wall seconds of $SPIN_RUNS runs, every run pinned to CPU 0"
variants="native recorded"
[ $HAS_HUNT = 1 ] && variants="$variants hunt"
printf '%-14s' program
for v in $variants; do printf ' %10s' "$v"; done
[ $HAS_HUNT = 1 ] && printf ' %16s' "hunt/native"
printf ' %16s\n' "recorded/native"
for p in spin_flag spin_tas spin_barrier; do
	: >"$W/$p.times"
	for r in $(seq "$SPIN_RUNS"); do
		for v in $variants; do
			case $v in
			native) t=$(wall taskset -c 0 "$W/$p.gcc") ;;
			recorded) t=$(wall taskset -c 0 "$W/$p.sic" --record "$W/$p.bin") ;;
			hunt) t=$(wall taskset -c 0 "$W/$p.sic" --record "$W/$p.bin" --hunt="$r") ;;
			esac
			echo "$v $t" >>"$W/$p.times"
		done
	done
	printf '%-14s' "$p"
	declare -A med=()
	for v in $variants; do
		med[$v]=$(awk -v v="$v" '$1 == v { print $2 }' "$W/$p.times" | median)
		printf ' %10s' "${med[$v]}"
	done
	[ $HAS_HUNT = 1 ] && printf ' %16s' "$(awk -v a="${med[hunt]}" -v b="${med[native]}" 'BEGIN { printf "%.2fx", a / b }')"
	printf ' %16s\n' "$(awk -v a="${med[recorded]}" -v b="${med[native]}" 'BEGIN { printf "%.2fx", a / b }')"
	unset med
done
echo "   (recorded: --record, the default 10 ms slices; hunt: --record --hunt=ROUND; goal: within 2x of native)"
fi

# ---- 3. log bytes per second ------------------------------------------------------------
if part 3; then
echo
echo "== 3. Log written per second of recording: median of $SPIN_RUNS runs"
lvariants="recorded"
[ $HAS_HUNT = 1 ] && lvariants="$lvariants hunt"
for p in clock_loop lock_loop; do
	for v in $lvariants; do
		: >"$W/$p-$v.rates"
		for r in $(seq "$SPIN_RUNS"); do
			flags=(--record "$W/$p.bin")
			[ "$v" = hunt ] && flags+=(--hunt="$r")
			t=$(wall "$W/$p.sic" "${flags[@]}")
			b=$(stat -c %s "$W/$p.bin")
			echo "$b $t" | awk '{ printf "%.1f %d %s\n", $1 / $2, $1, $2 }' >>"$W/$p-$v.rates"
		done
		rate=$(awk '{ print $1 }' "$W/$p-$v.rates" | median)
		bytes=$(awk '{ print $2 }' "$W/$p-$v.rates" | median)
		secs=$(awk '{ print $3 }' "$W/$p-$v.rates" | median)
		printf '%-12s %-9s %12s bytes/s  (median log %s bytes, median run %s s)\n' "$p" "$v" \
			"$(awk -v r="$rate" 'BEGIN { printf "%.0f", r }')" "$bytes" "$secs"
	done
done
echo "   (goal: at most a few KB/s)"
fi

# ---- 4. a benchmark of published bugs -------------------------------------------------
if part 4; then
CS=$SCTBENCH/benchmarks/concurrent-software-benchmarks
[ -n "$SCTBENCH" ] && [ -f "$SCTBENCH/benchmarks/buggy.txt" ] && [ -d "$CS" ] ||
	die "part 4 needs SCTBENCH=DIR, a checkout of github.com/mc-imperial/sctbench"
W4=$W/sctbench
mkdir -p "$W4"
# SCTBench's own flags (its build.py: -pthread -g -O0); ours as tests/hunt builds them.
progs4=""
for p in $(awk '$1 == "concurrent-software-benchmarks" { print $2 }' "$SCTBENCH/benchmarks/buggy.txt"); do
	"$SICC" -g -O0 -pthread -o "$W4/$p.sic" "$CS/$p.c" >"$W4/$p.build" 2>&1 ||
		{ echo "   $p: does not build with sicc: $(head -c 200 "$W4/$p.build")"; continue; }
	gcc -g -O0 -pthread -o "$W4/$p.gcc" "$CS/$p.c" >>"$W4/$p.build" 2>&1 || rm -f "$W4/$p.gcc"
	progs4="$progs4 $p"
done
# The other directories' buggy programs (bench/hunt/sctbench-extra.sh): each built by its
# own function, hunted in its own working directory with its own arguments.
. "$ROOT/bench/hunt/sctbench-extra.sh"
. "$ROOT/bench/hunt/sctbench-extra-b.sh"
declare -A cwd4=() args4=() flags4=()
for p in $SCT_EXTRA; do
	mkdir -p "$W4/$p.run"
	if ! (cd "$W4" && "${SCT_EXTRA_BUILD[$p]}" "$p" "$SICC" "$ROOT/build/bin/sic++" "$W4/$p.sic" \
		"$W4/$p.run") >"$W4/$p.build" 2>&1; then
		echo "   $p: does not build with sicc: $(tail -c 300 "$W4/$p.build")"
		continue
	fi
	(cd "$W4" && "${SCT_EXTRA_BUILD[$p]}" "$p" gcc g++ "$W4/$p.gcc" "$W4/$p.run") >>"$W4/$p.build" 2>&1 ||
		rm -f "$W4/$p.gcc"
	cwd4[$p]=$W4/$p.run args4[$p]=${SCT_EXTRA_ARGS[$p]} flags4[$p]=${SCT_EXTRA_FLAGS[$p]}
	progs4="$progs4 $p"
done
for p in $PROGS; do
	"$SICC" -O2 -g -o "$W4/$p.sic" "$BUGS/$p.c" -lpthread >"$W4/$p.build" 2>&1 || die "$p: sicc failed"
	gcc -O2 -g -pthread -o "$W4/$p.gcc" "$BUGS/$p.c" >>"$W4/$p.build" 2>&1 || rm -f "$W4/$p.gcc"
	progs4="$progs4 $p"
done
# seconds CMD...: the wall time of a run, whatever its exit status.
seconds() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 </dev/null || true
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}
echo
echo "== 4. Published bugs (SCTBench's buggy.txt) and tests/hunt's:"
echo "   failures per $RUNS4 runs and the first failing run, per strategy (replay-hunt --mode);"
echo "   cost: median wall time of --record --hunt=S over --no-record, seeds 1-$COST_RUNS"
printf '%-34s' program
for m in $MODES4; do printf ' %14s' "$m"; done
printf ' %8s\n' cost
declare -A found4=()
n4=0
for p in $progs4; do
	n4=$((n4 + 1))
	printf '%-34s' "$p"
	for m in $MODES4; do
		exe=$W4/$p.sic
		if [ "$m" = native ]; then
			exe=$W4/$p.gcc
			[ -x "$exe" ] || { printf ' %14s' -; continue; }
		fi
		# shellcheck disable=SC2086 # args4 and flags4 are word lists
		(cd "${cwd4[$p]:-$W4}" && "$HUNT" --runs "$RUNS4" --timeout "$TIMEOUT" --mode "$m" \
			--keep "$W4/keep-$p-${m%%=*}" --json "$W4/$p-${m%%=*}.json" ${flags4[$p]:-} \
			-- "$exe" ${args4[$p]:-}) >"$W4/$p-${m%%=*}.report" 2>&1 || true
		f=$(sed -n 's/^failures: \([0-9]*\).*/\1/p' "$W4/$p-${m%%=*}.report")
		first=$(sed -n 's/^first failing run: \([0-9]*\).*/\1/p' "$W4/$p-${m%%=*}.report")
		[ -n "$f" ] || die "$p, mode $m: no report: $(head -c 300 "$W4/$p-${m%%=*}.report")"
		[ "$f" -gt 0 ] && found4[$m]=$((${found4[$m]:-0} + 1))
		printf ' %14s' "$f/$RUNS4${first:+ @$((first + 1))}"
	done
	: >"$W4/$p.cost"
	for r in $(seq "$COST_RUNS"); do
		# shellcheck disable=SC2086
		echo "plain $(cd "${cwd4[$p]:-$W4}" && seconds "$W4/$p.sic" --no-record -- ${args4[$p]:-})" >>"$W4/$p.cost"
		# shellcheck disable=SC2086
		echo "hunt $(cd "${cwd4[$p]:-$W4}" && seconds "$W4/$p.sic" --record "$W4/cost.bin" --hunt="$r" \
			--timeout="$TIMEOUT" -- ${args4[$p]:-})" >>"$W4/$p.cost"
	done
	plain=$(awk '$1 == "plain" { print $2 }' "$W4/$p.cost" | median)
	hunted=$(awk '$1 == "hunt" { print $2 }' "$W4/$p.cost" | median)
	printf ' %8s\n' "$(awk -v a="$hunted" -v b="$plain" 'BEGIN { printf "%.2fx", a / b }')"
done
for p in "${!SCT_EXTRA_OUT[@]}"; do printf '%-34s %s\n' "$p" "not built: ${SCT_EXTRA_OUT[$p]}"; done
printf '%-34s' "found (of $n4)"
for m in $MODES4; do printf ' %14s' "${found4[$m]:-0}"; done
echo
echo "   (N/$RUNS4 @K: N runs failed, the first at run K (from 1); cost over medians of short runs"
echo "    is dominated by start-up; goal: every bug within 100 runs, hunting at most 2x --no-record)"
fi

# ---- 5. the cost of hunting on Table 1's workloads ------------------------------------
if part 5; then
W5=$W/table1
mkdir -p "$W5"
# Does the answer depend on the schedule? (table1.sh's: the racy count, the lock order)
schedule_dependent() { case $1 in paper_racy | paper_rounds) return 0 ;; *) return 1 ;; esac; }
echo
echo "== 5. The cost of hunting on Table 1's workloads (bench/table1.sh's, $SCALE5 % of its work):"
echo "   --record --hunt=S against --no-record, seeds 1-$RUNS5, in turn; medians of user+sys CPU"
echo "   and of wall time; ended: hunted runs that ended (--timeout-own=$TIMEOUT5) with exit 0 and"
echo "   --no-record's answer (but the racy count's and the lock order's)"
printf '%-13s %9s %9s %7s %9s %9s %7s %6s\n' workload "sic cpu" "hunt cpu" ratio "sic wall" "hunt wall" ratio ended
for w in $T1; do
	case $w in paper_*) src=$ROOT/bench/$w.c ;; *) src=$ROOT/bench/splash/$w.c ;; esac
	"$SICC" -O2 -o "$W5/$w.sic" "$src" -lm >"$W5/$w.build" 2>&1 || die "$w: sicc failed: $(head -c 300 "$W5/$w.build")"
	: >"$W5/$w.t"
	ended=0
	for s in $(seq "$RUNS5"); do
		t=$( { TIMEFORMAT='%R %U %S'; time "$W5/$w.sic" --no-record -- "$SCALE5" >"$W5/$w.sic.out" 2>"$W5/$w.sic.err"; } 2>&1 )
		echo "sic $t" >>"$W5/$w.t"
		t=$( { TIMEFORMAT='%R %U %S'; time "$W5/$w.sic" --record "$W5/$w.bin" --hunt="$s" \
			--timeout-own="$TIMEOUT5" -- "$SCALE5" >"$W5/$w.hunt.out" 2>"$W5/$w.hunt.err"; } 2>&1 )
		rc=$?
		echo "hunt $t" >>"$W5/$w.t"
		if [ $rc -eq 0 ] && { schedule_dependent "$w" || cmp -s "$W5/$w.sic.out" "$W5/$w.hunt.out"; }; then
			ended=$((ended + 1))
		else
			echo "   $w --hunt=$s: status $rc: $(tail -n 2 "$W5/$w.hunt.err" | tr '\n' ' ')"
		fi
	done
	col() { awk -v k="$1" -v c="$2" '$1 == k { print c == 2 ? $2 : $3 + $4 }' "$W5/$w.t" | median; }
	sc=$(col sic 3) hc=$(col hunt 3) sw=$(col sic 2) hw=$(col hunt 2)
	printf '%-13s %9.3f %9.3f %6.2fx %9.3f %9.3f %6.2fx %6s\n' "$w" "$sc" "$hc" \
		"$(awk -v a="$hc" -v b="$sc" 'BEGIN { print a / b }')" "$sw" "$hw" \
		"$(awk -v a="$hw" -v b="$sw" 'BEGIN { print a / b }')" "$ended/$RUNS5"
done
echo "   (goal: hunting at most 2x --no-record, and every hunted run ends)"
fi
