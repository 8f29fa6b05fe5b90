#!/bin/bash
# make stress: the software stop's campaign (issue 30). A replay stops at a logged pc
# between counting points with a breakpoint; where the debug registers never fire it
# must take the software trap (libreplay/engine/schedule/breakpoint.c). For each program, PAIRS
# record/replay pairs under CPU load (one busy loop), rotating the recording's mode
# over --quantum 50us, 100us, 200us, 500us, 1ms, --hunt=SEED and --chaos=SEED (seeds
# vary with the pair), and the stop's kind over:
#   software: recorded and replayed with LIBREPLAY_OPTS=--breakpoints=software (both:
#             the runtime copies LIBREPLAY_OPTS into the program's heap, so a replay
#             with it of a recording without moves later allocations, and a deadlock,
#             compared by address, "left the threads in other states");
#   dead:     recorded and replayed with LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 (a VM whose
#             debug registers never fire: the runtime must notice and take the trap).
# Each replay must print its recording's stdout, exit with its status, never say
# "replay diverged", say "died of" only where its recording did, and (LIBREPLAY_STATS)
# stop at the software breakpoint, never the hardware one. A failing pair's log is kept
# in $WORK/fail and a line says how to replay it; then "N passed, M failed" (pairs).
# The default, 15 programs x 42 pairs (each mode x kind 3 times; --hunt seeds 1-6):
# 630 pairs, about 3 minutes on a shared 2-core machine (load average 5-6).
#   tests/durability/software_stop.sh [PAIRS]
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
PAIRS=${1:-42}
cd "$WORK" || exit 1
mkdir -p fail

# name:source:arguments after --
B="$ROOT/tests/hunt/bugs" S="$ROOT/bench/splash"
progs=(racy_counter:$ROOT/examples: heisenbug:$ROOT/examples: condsleep:$ROOT/tests/gdb/progs:
	check_then_act:$B: lock_order:$B: lost_wakeup:$B: missing_unlock:$B: pop_race:$B:
	publish_early:$B: use_before_init:$B: preempt:$ROOT/bench:5 radix:$S:5 lu:$S:20
	fft:$S:5 cholesky:$S:20)
for p in "${progs[@]}"; do
	IFS=: read -r name dir args <<<"$p"
	"$SICC" -O2 -g -o "$name" "$dir/$name.c" -lpthread -lm >build.out 2>&1 ||
		{ fail "build $name: $(head -c 300 build.out)"; summary; exit 1; }
done
modes=(50us 100us 200us 500us 1ms hunt chaos) # odd: with 2 kinds, 14 pairs see every mix

# The load: one busy loop, bounded by a timeout, stopped however the script ends.
timeout 3600 bash -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; wait $hog 2>/dev/null' EXIT
trap 'exit 130' INT TERM

declare -A pairs bad stops
start=$SECONDS
for p in "${progs[@]}"; do
	IFS=: read -r name dir args <<<"$p"
	extra=()
	[ -n "$args" ] && extra=(-- $args)
	for i in $(seq 1 "$PAIRS"); do
		mode=${modes[$((i % ${#modes[@]}))]}
		case $mode in
		hunt) how=(--hunt=$((i / 7 + 1))) ;;
		chaos) how=(--chaos=$((i * 977))) ;;
		*) how=(--quantum "$mode") ;;
		esac
		if [ $((i % 2)) -eq 0 ]; then
			kind=software renv=(LIBREPLAY_OPTS=--breakpoints=software) recenv=(LIBREPLAY_OPTS=--breakpoints=software)
		else
			kind=dead renv=(LIBREPLAY_TEST_DEAD_DEBUG_REGS=1) recenv=(LIBREPLAY_TEST_DEAD_DEBUG_REGS=1)
		fi
		pairs[$name $mode $kind]=$((${pairs[$name $mode $kind]:-0} + 1))
		# (bash's own "Segmentation fault" lines, for use_before_init's, left out)
		{ timeout 300 env "${recenv[@]}" ./"$name" --record pair.bin "${how[@]}" "${extra[@]}" \
			>pair.rec 2>pair.rec.err; } 2>/dev/null
		rc=$?
		{ timeout 300 env "${renv[@]}" LIBREPLAY_STATS=1 ./"$name" --replay pair.bin \
			>pair.rep 2>pair.err; } 2>/dev/null
		rrc=$?
		sw=$(sed -n 's/^libreplay: .*, \([0-9]*\) at the software breakpoint$/\1/p' pair.err)
		stops[$name]=$((${stops[$name]:-0} + ${sw:-0}))
		why=""
		if [ $rc -eq 124 ]; then why="the recording hung"
		elif [ $rrc -eq 124 ]; then why="the replay hung"
		elif grep -q 'replay diverged' pair.err; then why=$(grep -m1 'replay diverged' pair.err)
		elif grep -q 'died of' pair.err && ! grep -q 'died of' pair.rec.err; then
			why=$(grep -m1 'died of' pair.err)
		elif [ $rc -ne $rrc ]; then why="exit $rrc, the recording's $rc: $(head -c 200 pair.err)"
		elif ! cmp -s pair.rec pair.rep; then why="stdout differs from the recording's"
		elif grep -q 'at the hardware breakpoint$' pair.err; then why="the replay took the hardware breakpoint"
		fi
		if [ -z "$why" ]; then npass=$((npass + 1)); continue; fi
		bad[$name]=$((${bad[$name]:-0} + 1))
		keep="fail/$name-$i-$mode-$kind"
		mv pair.bin "$keep.bin"
		cp pair.rec "$keep.rec.out"; cp pair.rec.err "$keep.rec.err"
		cp pair.rep "$keep.rep.out"; cp pair.err "$keep.rep.err"
		fail "pair $i ($name, ${how[*]}, $kind): $why; replay: (cd $WORK && ${renv[*]} ./$name --replay $keep.bin)"
	done
done

# What ran: per program, pairs by mode (software + dead), failures and software stops.
printf '%-16s' program; printf ' %6s' "${modes[@]}"; printf ' %6s %6s %8s\n' pairs failed sw-stops
for p in "${progs[@]}"; do
	name=${p%%:*} n=0
	printf '%-16s' "$name"
	for m in "${modes[@]}"; do
		c="${pairs[$name $m software]:-0}+${pairs[$name $m dead]:-0}"
		n=$((n + c))
		printf ' %6s' "$c"
	done
	printf ' %6d %6d %8d\n' "$n" "${bad[$name]:-0}" "${stops[$name]:-0}"
done
echo "$((npass + nfail)) pairs under one busy loop in $((SECONDS - start)) s"
summary
