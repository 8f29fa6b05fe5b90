#!/bin/bash
# Draw the heisenbug's schedule (docs/heisenbug-timeline.svg): record under the chaos
# scheduler until the bug strikes, replay that recording with --trace-schedule (the
# replay follows the recorded schedule exactly, blocking switches included), and
# draw the trace with replay-dump --timeline, once by switch number (every run the same
# width: the story is readable) and once on the logical clock (widths are the work done:
# the auditor's spinning dwarfs the tellers). The log labels each preemption with where
# it struck. Usage: examples/heisenbug-timeline.sh [OUT_DIR]. Runs differ: docs/tools.md
# tells the story of the committed picture, so a new one needs its text updated.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/docs}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$ROOT/build/bin/sicc" -O2 -g -o heisenbug "$ROOT/examples/heisenbug.c"
for seed in $(seq 101 101 10100); do
	if ! ./heisenbug --record bug.bin --chaos=$seed >bug.out 2>&1; then
		echo "struck with --chaos=$seed: $(cat bug.out)"
		./heisenbug --replay bug.bin --trace-schedule bug.trace >/dev/null 2>&1 || true
		"$ROOT/build/bin/replay-dump" --summary bug.bin | grep -E '^(records|time):'
		"$ROOT/build/bin/replay-dump" --timeline bug.trace --by-switch -o "$OUT/heisenbug-timeline.svg" bug.bin
		"$ROOT/build/bin/replay-dump" --timeline bug.trace -o "$OUT/heisenbug-timeline-clock.svg" bug.bin
		echo "$(grep -vc '^#' bug.trace) trace lines drawn into $OUT/heisenbug-timeline{,-clock}.svg"
		exit 0
	fi
done
echo "the bug did not strike in 100 recordings" >&2
exit 1
