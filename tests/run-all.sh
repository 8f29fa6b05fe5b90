#!/bin/bash
# Every test suite after the unit tests (make check runs those first). Each suite
# prints PASS/FAIL lines and "N passed, M failed"; this adds them up.
#
# The suites run side by side, CHECK_JOBS at a time (default: one per CPU): each works
# in a directory of its own (build/test-work/SUITE), and a recorded program runs on one
# kernel thread; the suites that run jobs of their own (invariant, the two csmith ones)
# run one at a time then, so each suite keeps one CPU busy. Time slices are CPU time
# (ITIMER_PROF), so a suite beside another sees the same preemptions. A suite's output
# is shown whole when it ends (as it goes, with CHECK_JOBS=1). The list is longest
# first, so the last to start are short ones.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
suites=(tests/replay/run.sh tests/invariant/run.sh tests/io/run.sh tests/e2e/run.sh tests/world/run.sh
	tests/apps/debian.sh tests/gdb/reverse.sh tests/docs/run.sh tests/csmith/run.sh
	tests/durability/run.sh tests/gdb/run.sh tests/gdb/direct.sh tests/pthread/run.sh tests/tools/run.sh
	tests/csmith/callgraph.sh tests/hunt/run.sh tests/restricted/run.sh tests/layers/run.sh
	tests/schedule/run.sh tests/apps/run.sh tests/demo/run.sh tests/layout/run.sh
	tests/doctor/run.sh tests/hermetic/run.sh tests/pack/run.sh
	tests/audit/run.sh tests/logpath/run.sh
	tests/gdb/ends.sh tests/races/run.sh)
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
if [ "$jobs" -gt 1 ]; then
	export JOBS=${JOBS:-1} CSMITH_JOBS=${CSMITH_JOBS:-1} CALLGRAPH_JOBS=${CALLGRAPH_JOBS:-1}
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run_suite I: suite I's output, status and seconds into $out/I.{out,rc,time}; its
# output shown as it goes too when the suites run one at a time. The .rc comes last,
# whole (a rename): it says the suite has ended.
run_suite() {
	local start=$SECONDS rc
	if [ "$jobs" -eq 1 ]; then
		echo "=== ${suites[$1]}"
		bash "$ROOT/${suites[$1]}" </dev/null 2>&1 | tee "$out/$1.out"
		rc=${PIPESTATUS[0]}
	else
		bash "$ROOT/${suites[$1]}" </dev/null >"$out/$1.out" 2>&1
		rc=$?
	fi
	echo $((SECONDS - start)) >"$out/$1.time"
	echo "$rc" >"$out/$1.rc.new" && mv "$out/$1.rc.new" "$out/$1.rc"
}

total_pass=0 total_fail=0 failed_suites="" times="" fail_lines=""
declare -A shown=()
# show_ended: print each suite that has ended and was not shown yet, and count it.
show_ended() {
	local i suite counts fails
	for i in "${!suites[@]}"; do
		[ -e "$out/$i.rc" ] && [ -z "${shown[$i]:-}" ] || continue
		shown[$i]=1
		suite=${suites[$i]}
		if [ "$jobs" -gt 1 ]; then
			echo "=== $suite"
			cat "$out/$i.out"
		fi
		counts=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*$/\1 \2/p' "$out/$i.out" | tail -n 1)
		# a long run's middle may be cut from what is shown of it (CI shows the head and
		# the tail), so every failure is said again at the end
		fails=$(grep -E '^(FAIL|not ok)' "$out/$i.out" | cut -c 1-400 | sed "s|^|  ${suite#tests/}: |")
		[ -z "$fails" ] || fail_lines="$fail_lines$fails"$'\n'
		if [ -z "$counts" ]; then
			failed_suites="$failed_suites $suite(no summary)"; total_fail=$((total_fail + 1)); continue
		fi
		total_pass=$((total_pass + ${counts% *})); total_fail=$((total_fail + ${counts#* }))
		times="$times ${suite#tests/}:$(cat "$out/$i.time")s"
		[ "$(cat "$out/$i.rc")" -eq 0 ] || failed_suites="$failed_suites $suite"
	done
}

start=$SECONDS
running=0
for i in "${!suites[@]}"; do
	while [ "$running" -ge "$jobs" ]; do
		wait -n
		running=$((running - 1))
		show_ended
	done
	run_suite "$i" &
	running=$((running + 1))
done
wait
show_ended
echo "=== all suites, $jobs at a time, in $((SECONDS - start)) s (seconds:$times)"
[ -z "$failed_suites" ] || echo "failed:$failed_suites"
[ -z "$fail_lines" ] || printf 'what failed:\n%s' "$fail_lines"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ -z "$failed_suites" ]
