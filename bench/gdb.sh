#!/bin/bash
# bench/gdb.sh: what a `$rcount` breakpoint condition costs per pass under gdb.
#
#   bench/gdb.sh                  (make first: it uses build/bin/sicc and replay-gdb)
#
# tests/gdb/progs/passes.c, recorded with --quantum 100us, replayed under gdb with
# `break passes.c:11 if $rcount(3) > 1000` (the runtime decides it: gdb stops once
# the count is there) and with `... if $rcount(3) + 0 > 1000` (a condition gdb
# evaluates at every pass: how every $rcount condition was evaluated before), side by
# side in each round; and a session that only runs to the program's main, for gdb's
# own start-up. Both conditional sessions must stop at the same pass. Per pass:
# (time - start-up) / passes before the stop (it can come out below zero: the
# passes then cost less than the start-up's noise). Medians over RUNS rounds
# (default 3).
# Nothing is asserted but the equal stops.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W="$ROOT/build/bench/gdb"
RUNS=${RUNS:-3}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
"$ROOT/build/bin/sicc" -O1 -g -o passes "$ROOT/tests/gdb/progs/passes.c" || exit 1
./passes --record passes.bin --quantum 100us >/dev/null || exit 1
session() { # OUT GDB-ARGS...: seconds on stdout
	local out=$1 t0 t1; shift
	t0=$(date +%s.%N)
	"$ROOT/build/bin/replay-gdb" ./passes passes.bin -batch -nx "$@" -ex kill >"$out" 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
: >fast.t; : >slow.t; : >base.t
for r in $(seq "$RUNS"); do
	session base.out -ex 'break work' -ex run >>base.t
	session fast.out -ex 'break passes.c:11 if $rcount(3) > 1000' -ex run -ex 'print passes' >>fast.t
	session slow.out -ex 'break passes.c:11 if $rcount(3) + 0 > 1000' -ex run -ex 'print passes' >>slow.t
	if ! cmp -s <(grep '^\$1' fast.out) <(grep '^\$1' slow.out) || ! grep -q '^\$1' fast.out; then
		echo "bench/gdb: the two conditions stopped at different passes:" \
			"$(grep '^\$1' fast.out) / $(grep '^\$1' slow.out)"
		exit 1
	fi
done
passes=$(sed -n 's/^\$1 = //p' fast.out)
b=$(median <base.t) f=$(median <fast.t) s=$(median <slow.t)
printf 'gdb start-up and run to work(): %.2f s (median of %d)\n' "$b" "$RUNS"
printf 'break if $rcount(3) > 1000, decided by the runtime: %.2f s for %d passes: %.1f us a pass\n' \
	"$f" "$passes" "$(awk -v t="$f" -v b="$b" -v n="$passes" 'BEGIN {print (t - b) * 1e6 / n}')"
printf 'break if $rcount(3) + 0 > 1000, gdb evaluating it at every pass: %.2f s: %.1f us a pass\n' \
	"$s" "$(awk -v t="$s" -v b="$b" -v n="$passes" 'BEGIN {print (t - b) * 1e6 / n}')"
