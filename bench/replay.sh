#!/bin/bash
# bench/replay.sh: what green threads, recording and replaying cost.
#
#   bench/replay.sh               (make first: it uses build/bin/sicc and libreplay.a)
#
#   1. voluntary switches: two threads hand a token back and forth with sched_yield,
#      and with a mutex + condition variable (bench/switch.c), on our green threads
#      (sicc, --no-record) and on glibc's kernel threads pinned to one CPU;
#   2. the cost of a recorded preemption: bench/preempt.c (4 CPU-bound threads) with
#      --record --quantum 100us against --no-record, divided by the preemptions taken
#      (LIBREPLAY_STATS=1);
#   3. the cost of a replayed preemption: the replay of that log against --no-record;
#      with the platform's floor under both (bench/sigfloor.c: a timer signal, a
#      hardware breakpoint trap, the breakpoint's ioctls, without libreplay);
#   4. log size: bytes per preemption, and bytes per second at the default 10 ms
#      quantum for a ~2 s run;
#   5. paper 002's workloads (bench/paper_*.c, scaled copies of examples/): sicc-built,
#      --no-record / --record / --replay, against the same source built with plain gcc
#      on libreplay (gcc -O2 -Dmain=__sic_main prog.c libreplay.a) run --no-record.
#
# Every replay's stdout and exit status must equal its recording's: a replay that
# differs (diverges) is the failure this script reports, with its log kept. Exit
# status: 0, or 1 when something did not build, a run failed (crashed or exited
# non-zero when it should not) or a replay differed from its recording. Timings are
# never asserted: the goals are printed next to the numbers.
#
# Environment:
#   RUNS=N            rounds of timed runs (default 5); medians are over them
#   LOG_RUNS=N        ~2 s recordings at the default quantum for the log size (default 3)
#   FAST_QUANTUM=T    the short quantum of parts 2-3 (default 100us)
#   BENCH_CFLAGS=...  compiler flags of every build (default -O2)
#   SICC=PATH         another sicc (its libreplay.a is ../lib/ beside it)
#
# Results: stdout and build/bench/replay.txt; one line per run in
# build/bench/replay-raw.txt; binaries, logs and outputs in build/bench/replay/.
set -euo pipefail
export LC_ALL=C # a '.' in EPOCHREALTIME and in awk's numbers

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/bench
W=$OUT/replay
SICC=${SICC:-$ROOT/build/bin/sicc}
RTLIB=$(dirname "$SICC")/../lib/libreplay.a
REPORT=$OUT/replay.txt
RAW=$OUT/replay-raw.txt

RUNS=${RUNS:-5}
LOG_RUNS=${LOG_RUNS:-3}
FAST_QUANTUM=${FAST_QUANTUM:-100us}

# Work sizes, tuned for about 0.5 s per run on a 2.6 GHz Zen 4 (README.md).
SWITCH_OURS=10000000 # handoffs per run on green threads (~15-40 ns each)
SWITCH_GLIBC=100000  # on kernel threads (~1-4 us each)
PREEMPT_SCALE=200    # bench/preempt.c, percent: ~0.5 s
LOG_SCALE=800        # ~2 s, for the bytes per second at the default quantum
FLOOR_TRAPS=20000    # sigfloor trap / arm
FLOOR_MASKS=200000   # sigfloor mask
WORKLOADS="paper_racy paper_rounds paper_matmul"

die() {
	echo "replay-bench: $*" >&2
	exit 1
}

case $RUNS in '' | *[!0-9]*) die "RUNS=$RUNS: want a positive number" ;; esac
case $LOG_RUNS in '' | *[!0-9]*) die "LOG_RUNS=$LOG_RUNS: want a positive number" ;; esac
if [ "$RUNS" -lt 1 ] || [ "$LOG_RUNS" -lt 1 ]; then die "RUNS and LOG_RUNS must be at least 1"; fi
# (sigfloor's tick needs it in whole microseconds)
case ${FAST_QUANTUM%us} in '' | *[!0-9]* | "$FAST_QUANTUM") die "FAST_QUANTUM=$FAST_QUANTUM: give it in us, e.g. 100us" ;; esac
[ "$RUNS" -ge 5 ] || echo "replay-bench: warning: RUNS=$RUNS; medians of fewer than 5 runs are fragile" >&2
if [ ! -x "$SICC" ] || [ ! -f "$RTLIB" ]; then die "$SICC or $RTLIB missing: run make first"; fi
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (EPOCHREALTIME)"

toolchain_id() {
	cat "$SICC" "$(dirname "$SICC")/sicpp" "$RTLIB" 2>/dev/null | cksum | cut -d' ' -f1
}
TOOLCHAIN=$(toolchain_id)

mkdir -p "$W"
rm -f "$W"/*.bin "$W"/*.out "$W"/*.err "$W"/*.dis

# ---- build -------------------------------------------------------------------------
echo "replay-bench: building into $W" >&2
CFLAGS_B=${BENCH_CFLAGS:--O2}
CF="$CFLAGS_B -Wall -Wno-unused-parameter"
for p in switch preempt $WORKLOADS; do
	# shellcheck disable=SC2086 # CF is a list of words
	"$SICC" $CF -o "$W/$p.sic" "$ROOT/bench/$p.c" || die "$p: sicc failed"
	# It must carry the counter. (Through a file: grep -q on a pipe would leave objdump
	# a SIGPIPE, which pipefail reports.)
	objdump -d --no-show-raw-insn "$W/$p.sic" >"$W/$p.sic.dis"
	grep -Eq '(dec|xchg)[[:space:]]+(%rcx,)?%r15' "$W/$p.sic.dis" ||
		die "$p: no counting point in $W/$p.sic: is sicc instrumenting?"
done
for p in $WORKLOADS; do
	# The baseline: the same source, not instrumented, on the same library (its main()
	# runs __sic_main as green thread 1; plain code leaves %r15 alone).
	# shellcheck disable=SC2086
	gcc $CF -Dmain=__sic_main -o "$W/$p.base" "$ROOT/bench/$p.c" "$RTLIB" ||
		die "$p: gcc (uninstrumented, on libreplay.a) failed"
done
# shellcheck disable=SC2086
gcc $CF -pthread -o "$W/switch.glibc" "$ROOT/bench/switch.c" || die "switch: gcc -pthread failed"
# shellcheck disable=SC2086
gcc $CF -o "$W/sigfloor" "$ROOT/bench/sigfloor.c" || die "sigfloor: gcc failed"
[ "$(toolchain_id)" = "$TOOLCHAIN" ] ||
	die "sicc, sicpp or libreplay.a changed while the programs were being built: run again"

# glibc's threads on one CPU, as ours are.
PIN=()
PIN_NOTE="not pinned: taskset unavailable"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	PIN=(taskset -c 0)
	PIN_NOTE="taskset -c 0"
fi

# ---- running -------------------------------------------------------------------------
: >"$RAW"
FAILURES=()
fail() {
	FAILURES+=("$*")
	echo "replay-bench: FAILURE: $*" >&2
}

# run NAME VAR... -- CMD...: run CMD with the environment assignments VAR..., stdout and
# stderr into $W/NAME.out and .err. Sets RC, WALL and CPU (the program's own timing),
# XWALL (the whole process, as seen from here), PRE and DEF (LIBREPLAY_STATS).
run() {
	local name=$1 t0 t1
	shift
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	RC=0
	t0=$EPOCHREALTIME
	env "${envs[@]}" "$@" >"$W/$name.out" 2>"$W/$name.err" </dev/null || RC=$?
	t1=$EPOCHREALTIME
	XWALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	read -r WALL CPU PRE DEF <<<"$(awk '
		$1 == "replay-bench" { w = $2; c = $3 }
		/^libreplay: [0-9]+ preemptions taken, [0-9]+ ticks deferred$/ { p = $2; d = $5 }
		END { print (w == "" ? "-" : w), (c == "" ? "-" : c), (p == "" ? "-" : p), (d == "" ? "-" : d) }' "$W/$name.err")"
}

# Log the last run: section round variant status; status is ok or bad (not counted).
raw() {
	echo "$1 $2 $3 $4 $RC $WALL $CPU $XWALL $PRE $DEF" >>"$RAW"
}

# The last run must have exited 0 and timed itself.
must_succeed() { # name
	if [ "$RC" != 0 ] || [ "$WALL" = - ]; then
		fail "$1 exited $RC: $(head -c 300 "$W/$1.err" | tr '\n' ' ')"
		return 1
	fi
}

# A replay must print what its recording printed and exit as it did.
check_replay() { # record-name replay-name record-rc log binary
	local why=""
	[ "$RC" = "$3" ] || why="exited $RC, the recording $3"
	cmp -s "$W/$1.out" "$W/$2.out" || why="${why:+$why; }stdout differs from the recording's"
	if [ -n "$why" ]; then
		cp "$4" "$W/diverged-$2.bin"
		fail "replay $2 differs from its recording ($why): $(grep -m1 '^libreplay' "$W/$2.err" || true)" \
			"[log kept until the next run; again: $5 --replay $W/diverged-$2.bin]"
		return 1
	fi
}

# Rotate the words of a list by k: the order of the variants in round k+1.
rotate() { # k words...
	local k=$1
	shift
	local a=("$@") n=$# i
	for ((i = 0; i < n; i++)); do
		printf '%s ' "${a[(i + k) % n]}"
	done
}

# ---- 1. voluntary switches ----------------------------------------------------------
switch_unit() { # round unit
	local prog
	case $2 in
	ours-yield) prog=("$W/switch.sic" --no-record yield "$SWITCH_OURS") ;;
	ours-cond) prog=("$W/switch.sic" --no-record cond "$SWITCH_OURS") ;;
	glibc-yield) prog=("${PIN[@]}" "$W/switch.glibc" yield "$SWITCH_GLIBC") ;;
	glibc-cond) prog=("${PIN[@]}" "$W/switch.glibc" cond "$SWITCH_GLIBC") ;;
	esac
	run "switch-$2-r$1" -- "${prog[@]}"
	if must_succeed "switch-$2-r$1"; then
		# the handoffs and the sched_yield calls, from "switch MODE handoffs N yields Y"
		local n y
		read -r n y <<<"$(awk '{ print $4, $6 }' "$W/switch-$2-r$1.out")"
		WALL=$(awk -v w="$WALL" -v n="$n" 'BEGIN { printf "%.3f", w / n * 1e9 }') # ns
		PRE=$n DEF=$y
		raw switch "$1" "$2" ok
	fi
}

# ---- 2-3. preemption, and the platform's floor ------------------------------------------
preempt_unit() { # round unit
	local r=$1 log
	case $2 in
	norec)
		run "preempt-norec-r$r" -- "$W/preempt.sic" --no-record "$PREEMPT_SCALE"
		if must_succeed "preempt-norec-r$r"; then raw preempt "$r" norec ok; fi
		;;
	recrep)
		log=$W/preempt-r$r.bin
		run "preempt-rec-r$r" LIBREPLAY_STATS=1 -- "$W/preempt.sic" --record "$log" \
			--quantum "$FAST_QUANTUM" "$PREEMPT_SCALE"
		must_succeed "preempt-rec-r$r" || return 0
		local rrc=$RC pre=$PRE
		raw preempt "$r" rec ok
		echo "logsize $r $FAST_QUANTUM $(stat -c %s "$log") $PRE $WALL $CPU" >>"$RAW"
		run "preempt-rep-r$r" -- "$W/preempt.sic" --replay "$log"
		PRE=$pre # what the replay reproduced
		if check_replay "preempt-rec-r$r" "preempt-rep-r$r" "$rrc" "$log" "$W/preempt.sic"; then
			raw preempt "$r" rep ok
		else
			raw preempt "$r" rep bad
		fi
		;;
	spin | tick)
		if [ "$2" = spin ]; then
			run "floor-spin-r$r" -- "$W/sigfloor" spin "$PREEMPT_SCALE"
		else
			run "floor-tick-r$r" -- "$W/sigfloor" tick "${FAST_QUANTUM%us}" "$PREEMPT_SCALE"
		fi
		floor_done "$r" "$2"
		;;
	trap | arm | cycle)
		run "floor-$2-r$r" -- "$W/sigfloor" "$2" "$FLOOR_TRAPS"
		floor_done "$r" "$2"
		;;
	mask)
		run "floor-mask-r$r" -- "$W/sigfloor" mask "$FLOOR_MASKS"
		floor_done "$r" "$2"
		;;
	esac
}

floor_done() { # round mode
	if [ "$RC" = 3 ]; then # the mechanism is not available here: not our failure
		raw floor "$1" "$2" bad
	elif must_succeed "floor-$2-r$1"; then
		PRE=$(awk '{ print $4 }' "$W/floor-$2-r$1.out")
		raw floor "$1" "$2" ok
	fi
}

# ---- 5. paper 002's workloads ----------------------------------------------------------
workload_unit() { # round workload unit
	local r=$1 p=$2 log
	case $3 in
	base)
		run "$p-base-r$r" -- "$W/$p.base" --no-record
		if must_succeed "$p-base-r$r"; then raw "$p" "$r" base ok; fi
		;;
	sic)
		run "$p-sic-r$r" -- "$W/$p.sic" --no-record
		if must_succeed "$p-sic-r$r"; then raw "$p" "$r" sic ok; fi
		;;
	recrep)
		log=$W/$p-r$r.bin
		run "$p-rec-r$r" LIBREPLAY_STATS=1 -- "$W/$p.sic" --record "$log"
		must_succeed "$p-rec-r$r" || return 0
		local rrc=$RC pre=$PRE
		raw "$p" "$r" rec ok
		echo "logsize $r $p $(stat -c %s "$log") $PRE $WALL $CPU" >>"$RAW"
		run "$p-rep-r$r" -- "$W/$p.sic" --replay "$log"
		PRE=$pre # what the replay reproduced
		if check_replay "$p-rec-r$r" "$p-rep-r$r" "$rrc" "$log" "$W/$p.sic"; then
			raw "$p" "$r" rep ok
		else
			raw "$p" "$r" rep bad
		fi
		;;
	esac
}

echo "replay-bench: warm-up" >&2
for p in $WORKLOADS; do
	run "$p-warm" -- "$W/$p.base" --no-record
	must_succeed "$p-warm" || true
	run "$p-warm" -- "$W/$p.sic" --no-record
	must_succeed "$p-warm" || true
done
run preempt-warm -- "$W/preempt.sic" --no-record "$PREEMPT_SCALE"
must_succeed preempt-warm || true

for ((r = 1; r <= RUNS; r++)); do
	printf 'replay-bench: round %d/%d\n' "$r" "$RUNS" >&2
	for u in $(rotate $((r - 1)) ours-yield glibc-yield ours-cond glibc-cond); do
		switch_unit "$r" "$u"
	done
	for u in $(rotate $((r - 1)) norec recrep spin tick trap arm mask cycle); do
		preempt_unit "$r" "$u"
	done
	for p in $WORKLOADS; do
		for u in $(rotate $((r - 1)) base sic recrep); do
			workload_unit "$r" "$p" "$u"
		done
	done
done

# ---- 4. the log at the default quantum, ~2 s --------------------------------------------
for ((i = 1; i <= LOG_RUNS; i++)); do
	printf 'replay-bench: log size at the default quantum, run %d/%d\n' "$i" "$LOG_RUNS" >&2
	log=$W/log10ms-$i.bin
	run "log10ms-rec-$i" LIBREPLAY_STATS=1 -- "$W/preempt.sic" --record "$log" "$LOG_SCALE"
	must_succeed "log10ms-rec-$i" || continue
	rrc=$RC
	echo "logsize $i default $(stat -c %s "$log") $PRE $WALL $CPU" >>"$RAW"
	run "log10ms-rep-$i" -- "$W/preempt.sic" --replay "$log"
	check_replay "log10ms-rec-$i" "log10ms-rep-$i" "$rrc" "$log" "$W/preempt.sic" || true
done

# ---- statistics -------------------------------------------------------------------------
median() { # numbers on stdin, other lines ignored; "-" when none
	awk '$1 ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ { print $1 }' | sort -g |
		awk '{ x[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
# column of the ok runs of one section and variant: 6 wall, 7 cpu, 8 whole process,
# 9 preemptions (handoffs for switch, events for floor), 10 deferred (yields)
col() { # section variant column
	awk -v s="$1" -v v="$2" -v c="$3" '$1 == s && $3 == v && $4 == "ok" { print $c }' "$RAW"
}
med() { col "$@" | median; }
# per-round paired values: f(a, b) over rounds where both variants are ok
paired() { # section variant-a variant-b column awk-expression-of-a-b-and-n
	awk -v s="$1" -v va="$2" -v vb="$3" -v c="$4" '
		$1 == s && $4 == "ok" && $3 == va { a[$2] = $c; n[$2] = $9 }
		$1 == s && $4 == "ok" && $3 == vb { b[$2] = $c }
		END { for (r in a) if (r in b) { x = a[r]; y = b[r]; m = n[r]; print '"$5"' } }' "$RAW"
}
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.3f}" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf f, a / b }'; }
fmt() { awk -v a="$1" -v f="$2" 'BEGIN { if (a == "-") print "-"; else printf f, a }'; }
nok() { awk -v s="$1" -v v="$2" '$1 == s && $3 == v && $4 == "ok"' "$RAW" | wc -l; }
nall() { awk -v s="$1" -v v="$2" '$1 == s && $3 == v' "$RAW" | wc -l; }

machine() {
	local model
	model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
	[ -n "$model" ] || model=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
	local hv
	hv=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p' | head -1)
	echo "${model:-unknown CPU}, $(nproc) CPUs online${hv:+, $hv guest}, $(uname -sr), $(gcc --version | head -1)"
}

# A log's parts: header bytes, blocks, payload bytes, records (docs/log-format.md).
log_parts() { # file
	od -An -v -tu1 "$1" | awk '
		{ for (i = 1; i <= NF; i++) b[n++] = $i }
		function le32(o) { return b[o] + 256 * (b[o + 1] + 256 * (b[o + 2] + 256 * b[o + 3])) }
		END {
			h = le32(12); pos = h
			while (pos + 24 <= n && b[pos] == 82 && b[pos + 1] == 80 && b[pos + 2] == 66 && b[pos + 3] == 75) {
				blocks++; p = le32(pos + 8); payload += p; recs += le32(pos + 12); pos += 24 + p
			}
			print h, blocks + 0, payload + 0, recs + 0, n
		}'
}

{
	echo "libreplay: green threads, recording and replay (bench/replay.sh)"
	echo "machine: $(machine)"
	echo "method:  medians of $RUNS rounds; in each round every variant runs once, back to back, the"
	echo "         order rotated every round. Times are the programs' own, around their threaded part:"
	echo "         CPU time (CLOCK_PROCESS_CPUTIME_ID: one kernel thread, so what other tenants of the"
	echo "         machine take is left out) unless marked wall (CLOCK_MONOTONIC) or process (exec to exit)"
	echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	rev=$(git -C "$ROOT" describe --always --dirty 2>/dev/null) || rev="(not a git tree)"
	echo "tree:    $rev; sicc: $SICC (toolchain cksum $TOOLCHAIN)"

	echo
	echo "1. Voluntary switches: 2 threads hand a token back and forth (bench/switch.c), wall clock"
	echo "   ours: sicc, --no-record, $SWITCH_OURS handoffs; glibc: gcc -pthread, $PIN_NOTE, $SWITCH_GLIBC handoffs"
	printf '   %-26s %14s %14s %12s  %s\n' "ns per switch (handoff)" ours glibc glibc/ours goal
	for m in yield cond; do
		o=$(med switch "ours-$m" 6)
		g=$(med switch "glibc-$m" 6)
		if [ $m = yield ]; then label="sched_yield spin"; goal="ours <= 20 ns"; else label="mutex + condvar"; goal="glibc/ours >= 10"; fi
		printf '   %-26s %14s %14s %12s  %s\n' "$label" "$(fmt "$o" %.1f)" "$(fmt "$g" %.0f)" "$(div "$g" "$o" %.0fx)" "$goal"
	done
	oy=$(med switch ours-yield 10)
	gy=$(med switch glibc-yield 10)
	echo "   sched_yield calls per handoff: ours $(div "$oy" "$SWITCH_OURS" %.3f), glibc $(div "$gy" "$SWITCH_GLIBC" %.3f) (above 1: a yield that did not switch)"

	echo
	echo "2-3. Preemption: bench/preempt.c, 4 CPU-bound threads ($PREEMPT_SCALE % scale), quantum $FAST_QUANTUM"
	printf '   %-28s %8s %9s %20s %22s\n' variant "cpu (s)" "wall (s)" preemptions "us per preemption"
	printf '   %-28s %8s %9s %20s %22s\n' "--no-record" "$(fmt "$(med preempt norec 7)" %.4f)" \
		"$(fmt "$(med preempt norec 6)" %.4f)" 0 ""
	for v in rec rep; do
		n=$(med preempt $v 9)
		# per round: (this variant - no-record) / the preemptions of the round's recording
		cc=$(paired preempt $v norec 7 '(x - y) / m * 1e6' | median)
		cw=$(paired preempt $v norec 6 '(x - y) / m * 1e6' | median)
		if [ $v = rec ]; then
			label="--record --quantum $FAST_QUANTUM"
			n="$(fmt "$n" %.0f) (+$(fmt "$(med preempt rec 10)" %.0f) deferred)"
			REC_COST=$cc
		else
			label="--replay (that log)"
			n=$(fmt "$n" %.0f)
			REP_COST=$cc
		fi
		printf '   %-28s %8s %9s %20s %22s\n' "$label" "$(fmt "$(med preempt $v 7)" %.4f)" \
			"$(fmt "$(med preempt $v 6)" %.4f)" "$n" "$(fmt "$cc" %.1f) (wall $(fmt "$cw" %.1f))"
	done
	bad=$(($(nall preempt rep) - $(nok preempt rep)))
	[ "$bad" = 0 ] || echo "   ($bad of $(nall preempt rep) replays differed from their recording: not counted)"
	echo "   us per preemption: (variant - no-record) / preemptions, per round, median; CPU time (wall clock)"
	echo
	echo "   the platform's floor (bench/sigfloor.c: the same mechanisms without libreplay):"
	tick=$(paired floor tick spin 7 '(x - y) / m * 1e6' | median)
	trap=$(paired floor trap trap 7 'x / m * 1e6' | median)
	arm=$(paired floor arm arm 7 'x / m * 1e6' | median)
	mask=$(paired floor mask mask 7 'x / m * 1e6' | median)
	cycle=$(paired floor cycle cycle 7 'x / m * 1e6' | median)
	printf '   %-66s %7s us\n' "timer signal: perf task-clock -> SIGPROF, every $FAST_QUANTUM of CPU time" "$(fmt "$tick" %.1f)"
	printf '   %-66s %7s us\n' "hardware execute breakpoint -> SIGRTMIN+7 (the replay's trap)" "$(fmt "$trap" %.1f)"
	printf '   %-66s %7s us\n' "the breakpoint moved + enabled + disabled (3 ioctls)" "$(fmt "$arm" %.2f)"
	printf '   %-66s %7s us\n' "sigprocmask(SIG_UNBLOCK)" "$(fmt "$mask" %.2f)"
	printf '   %-66s %7s us\n' "replay's all together: arm, trap; disarm + unblock in the handler" "$(fmt "$cycle" %.1f)"
	own_rec=$(awk -v a="$REC_COST" -v t="$tick" -v m="$mask" 'BEGIN { if (a == "-" || t == "-" || m == "-") print "-"; else printf "%.1f", a - t - m }')
	own_rep=$(awk -v a="$REP_COST" -v c="$cycle" 'BEGIN { if (a == "-" || c == "-") print "-"; else printf "%.1f", a - c }')
	echo "   left to libreplay itself (its handler, the log, the switch, the counter's overflow path):"
	echo "     recording: $(fmt "$REC_COST" %.1f) - timer signal - sigprocmask = $own_rec us per preemption"
	echo "     replay:    $(fmt "$REP_COST" %.1f) - all of replay's = $own_rep us per preemption"

	echo
	echo "4. Log size (docs/log-format.md)"
	bpp=$(awk -v q="$FAST_QUANTUM" '$1 == "logsize" && $3 == q && $5 > 0 { print $4 / $5 }' "$RAW" | median)
	echo "   quantum $FAST_QUANTUM (part 2's logs): $(fmt "$bpp" %.2f) bytes per preemption, whole file (median)"
	# the default-quantum logs: median of field a, or of a / b (fields: 4 bytes, 5 preemptions,
	# 6 wall seconds, 7 CPU seconds)
	lg() { awk -v a="$1" -v b="${2:-0}" '$1 == "logsize" && $3 == "default" && $6 > 0 && $7 > 0 { print b ? $a / $b : $a }' "$RAW" | median; }
	sz=$(lg 4)
	np=$(lg 5)
	echo "   default quantum (10 ms), bench/preempt.c at $LOG_SCALE % (4 threads), $LOG_RUNS runs, medians:"
	echo "     $(fmt "$(lg 7)" %.2f) s of CPU ($(fmt "$(lg 6)" %.2f) s wall), $(fmt "$np" %.0f) preemptions, $(fmt "$sz" %.0f) bytes:" \
		"$(div "$sz" "$np" %.1f) bytes per preemption"
	echo "     $(fmt "$(lg 4 7)" %.0f) bytes per CPU second, $(fmt "$(lg 4 6)" %.0f) per wall-clock second (goal <= 300)"
	last=$W/log10ms-$LOG_RUNS.bin
	if [ -s "$last" ]; then
		read -r h nb pl nr tot <<<"$(log_parts "$last")"
		echo "     the last one, $tot bytes: a header of $h, $nb blocks (one per $(div "$(awk -v i="$LOG_RUNS" '$1 == "logsize" && $2 == i && $3 == "default" { print $6 }' "$RAW")" "$nb" %.2f) s)"
		echo "     whose headers take $((nb * 24)) bytes, and $pl bytes of records ($nr of them, $(div "$pl" "$nr" %.1f) bytes each)"
	fi

	echo
	echo "5. Paper 002's workloads (bench/paper_*.c), sicc-built, default quantum (10 ms), against base:"
	echo "   the same source built with plain gcc, linked with libreplay.a, run --no-record ($CFLAGS_B). CPU time:"
	printf '   %-13s %8s %9s %12s %12s %11s %11s %8s %8s %8s\n' workload "base (s)" "sic/base" "record/base" "replay/base" \
		"record/sic" "replay/sic" preempt "log (B)" replays
	LAYOUT=""
	for p in $WORKLOADS; do
		b=$(med "$p" base 7)
		s=$(med "$p" sic 7)
		rc=$(med "$p" rec 7)
		rp=$(med "$p" rep 7)
		sb=$(div "$s" "$b")
		if awk -v s="$s" -v b="$b" 'BEGIN { exit !(s != "-" && b != "-" && s < 0.97 * b) }'; then
			sb="*$sb"
			LAYOUT+=" $p"
		fi
		printf '   %-13s %8s %9s %12s %12s %11s %11s %8s %8s %8s\n' "$p" "$(fmt "$b" %.4f)" "$sb" \
			"$(div "$rc" "$b")" "$(div "$rp" "$b")" "$(div "$rc" "$s")" "$(div "$rp" "$s")" \
			"$(fmt "$(med "$p" rec 9)" %.0f)" \
			"$(fmt "$(awk -v p="$p" '$1 == "logsize" && $3 == p { print $4 }' "$RAW" | median)" %.0f)" \
			"$(nok "$p" rep)/$(nall "$p" rep)"
	done
	if [ -n "$LAYOUT" ]; then
		echo "   * faster instrumented (${LAYOUT# }): not a gain. Where the inserted code moves a hot loop"
		echo "     decides its speed (bench/README.md, 'Code layout'); try BENCH_CFLAGS=\"-O2 -falign-loops=64\""
	fi
	echo "   goals: record/base <= 1.07, replay/base <= 1.10. Ratios of medians. sic/base is the counter's own"
	echo "   share; record/sic and replay/sic compare runs of one binary (no code-layout difference)."
	echo "   replays: how many reproduced their recording (only those are timed)."
	echo "   Other views of the same runs, as sic/base record/base replay/base: per-round ratios of CPU"
	echo "   time, median [min .. max]; the fastest run of each (interference only ever adds time); wall-"
	echo "   clock medians; whole processes, exec to exit (adds the re-exec, reading and writing the log):"
	fastest() { col "$@" | sort -g | head -1; }
	for p in $WORKLOADS; do
		line=$(printf '   %-13s per round' "$p")
		for v in sic rec rep; do
			pr=$(paired "$p" $v base 7 'x / y' | sort -g)
			line+=$(printf ' %s [%s..%s]' "$(fmt "$(median <<<"$pr")" %.3f)" \
				"$(fmt "$(head -1 <<<"$pr")" %.2f)" "$(fmt "$(tail -1 <<<"$pr")" %.2f)")
		done
		echo "$line"
		b=$(fastest "$p" base 7)
		bw=$(med "$p" base 6)
		bx=$(med "$p" base 8)
		printf '   %-13s fastest %s %s %s; wall %s %s %s; process %s %s %s\n' "" \
			"$(div "$(fastest "$p" sic 7)" "$b")" "$(div "$(fastest "$p" rec 7)" "$b")" "$(div "$(fastest "$p" rep 7)" "$b")" \
			"$(div "$(med "$p" sic 6)" "$bw")" "$(div "$(med "$p" rec 6)" "$bw")" "$(div "$(med "$p" rep 6)" "$bw")" \
			"$(div "$(med "$p" sic 8)" "$bx")" "$(div "$(med "$p" rec 8)" "$bx")" "$(div "$(med "$p" rep 8)" "$bx")"
	done

	echo
	if [ ${#FAILURES[@]} -eq 0 ]; then
		echo "every replay printed what its recording printed and exited as it did"
	else
		echo "FAILURES (${#FAILURES[@]}):"
		for f in "${FAILURES[@]}"; do
			echo "  - $f"
		done
	fi
	echo "raw: $RAW (section round variant status rc wall cpu process preemptions deferred)"
} | tee "$REPORT"
echo "replay-bench: report written to $REPORT" >&2
[ ${#FAILURES[@]} -eq 0 ]
