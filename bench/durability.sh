#!/bin/bash
# bench/durability.sh: what writing the log every 2 ms costs (a SIGKILL then loses at
# most the last 2 ms of schedule), against writing it every second (before issue 12:
# a SIGKILL lost up to a second), side by side in one run: the CPU time (user + sys)
# of a recording, median of RUNS alternating runs of each, and the writes of the log
# (pwrite(2) calls, counted by strace -c when it is installed).
#   1. preemption-heavy: tests/durability/progs/clock_trail at --quantum 50us (two
#      threads, a few thousand preemptions a second, a clock read every ~0.5 ms);
#   2. input-heavy: tests/durability/progs/clock_loop, 1,000,000 clock reads.
# LIBREPLAY_FLUSH_NS sets the writer's interval (a bench knob). Never asserted.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-7}
W=$ROOT/build/bench/durability
mkdir -p "$W" && cd "$W" || exit 1
"$ROOT/build/bin/sicc" -O2 -o clock_trail "$ROOT/tests/durability/progs/clock_trail.c" || exit 1
"$ROOT/build/bin/sicc" -O2 -o clock_loop "$ROOT/tests/durability/progs/clock_loop.c" || exit 1
cpu() { # CMD...: user+sys seconds of CMD (and its re-exec)
	local TIMEFORMAT='%U %S'
	{ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.4f\n", $1 + $2 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for work in "clock_trail --record t.bin --quantum 50us -- 500" "clock_loop --record c.bin -- 1000000"; do
	: >fast.txt; : >slow.txt
	for i in $(seq 1 "$RUNS"); do
		LIBREPLAY_FLUSH_NS=2000000 cpu ./$work >>fast.txt
		LIBREPLAY_FLUSH_NS=1000000000 cpu ./$work >>slow.txt
	done
	f=$(median <fast.txt) s=$(median <slow.txt)
	writes=""
	if command -v strace >/dev/null; then
		wf=$(LIBREPLAY_FLUSH_NS=2000000 strace -f -c -e trace=pwrite64 ./$work 2>&1 >/dev/null | awk '/pwrite64/ { print $4 }')
		ws=$(LIBREPLAY_FLUSH_NS=1000000000 strace -f -c -e trace=pwrite64 ./$work 2>&1 >/dev/null | awk '/pwrite64/ { print $4 }')
		writes=", $wf vs $ws pwrite calls"
	fi
	printf '%-40s every 2 ms: %s s CPU, every 1 s: %s s (ratio %s)%s\n' "${work%% *}" "$f" "$s" \
		"$(awk -v a="$f" -v b="$s" 'BEGIN { printf "%.3f", a / b }')" "$writes"
done
