#!/bin/bash
# Every test suite after the unit tests (make check runs those first). Each suite
# prints PASS/FAIL lines and "N passed, M failed"; this adds them up.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
total_pass=0 total_fail=0 failed_suites="" times="" fail_lines=""
for suite in tests/layers/run.sh tests/e2e/run.sh tests/invariant/run.sh tests/replay/run.sh tests/schedule/run.sh tests/durability/run.sh tests/pthread/run.sh tests/apps/run.sh tests/apps/debian.sh tests/io/run.sh tests/gdb/run.sh tests/gdb/reverse.sh tests/tools/run.sh tests/docs/run.sh tests/hunt/run.sh tests/csmith/run.sh tests/csmith/callgraph.sh; do
	echo "=== $suite"
	start=$SECONDS
	out=$(mktemp)
	bash "$ROOT/$suite" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	counts=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*$/\1 \2/p' "$out" | tail -n 1)
	# a long run's middle may be cut from what is shown of it (CI shows the head and
	# the tail), so every failure is said again at the end
	fails=$(grep -E '^(FAIL|not ok)' "$out" | cut -c 1-400 | sed "s|^|  ${suite#tests/}: |")
	[ -z "$fails" ] || fail_lines="$fail_lines$fails"$'\n'
	rm -f "$out"
	if [ -z "$counts" ]; then
		failed_suites="$failed_suites $suite(no summary)"; total_fail=$((total_fail + 1)); continue
	fi
	total_pass=$((total_pass + ${counts% *})); total_fail=$((total_fail + ${counts#* }))
	times="$times ${suite#tests/}:$((SECONDS - start))s"
	[ "$rc" -eq 0 ] || failed_suites="$failed_suites $suite"
done
echo "=== all suites (seconds:$times)"
[ -z "$failed_suites" ] || echo "failed:$failed_suites"
[ -z "$fail_lines" ] || printf 'what failed:\n%s' "$fail_lines"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ -z "$failed_suites" ]
