#!/bin/bash
# bench/reverse.sh: going back in time under gdb (docs/gdb.md): what a checkpoint
# costs, and how long reverse-continue takes to a breakpoint 1, 5 and 30 s of replay
# back, in replays of two lengths (the goal: under 2 s each, whatever the length).
#
#   bench/reverse.sh            (make first)   LENGTHS="32 64" by default
#
# bench/rewind.c runs LENGTH seconds of CPU time and calls milestone(k) after k of
# them (so B s back is about B s of replay, whatever the machine's load). Each
# measurement is one gdb session on its replay: `break milestone if k == LENGTH-1-B`
# and `break finished`; run (stops at the milestone), continue (stops at the end),
# then reverse-continue, timed, must stop at that milestone again. The forward run
# saw that stop, so going back is: restore the checkpoint before it, replay to it.
# Checkpoints: each one's time (the breakpoint's stop method, gdb's checkpoint) and
# its memory (Pss) as `replay checkpoints` lists them. Never asserted.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/bench/reverse"
mkdir -p "$OUT" && cd "$OUT" || exit 1
LENGTHS=${LENGTHS:-32 64}
"$ROOT/build/bin/sicc" -O2 -g -o rewind "$ROOT/bench/rewind.c" || exit 1
status=0
echo "reverse-continue to a breakpoint B s of replay back (one gdb session each)"
printf "%-8s %-6s %-10s %-12s %-12s %s\n" length back seconds checkpoints "ckpt ms" "ckpt KiB (median)"
for len in $LENGTHS; do
	./rewind --record "rewind$len.bin" "$len" >"rewind$len.rec" 2>&1 || { echo "recording failed"; status=1; continue; }
	for back in 1 5 30; do
		[ "$back" -lt "$len" ] || continue
		k=$((len - 1 - back))
		timeout 1800 "$ROOT/build/bin/replay-gdb" ./rewind "rewind$len.bin" -batch -nx \
			-ex "break milestone if k == $k" -ex 'break finished' -ex run -ex continue \
			-ex 'python import time; t0 = time.time(); gdb.execute("reverse-continue"); print("RC %.3f" % (time.time() - t0))' \
			-ex 'print k' -ex 'replay checkpoints' -ex 'python print("TOOK", " ".join("%.1f" % (c * 1e3) for c in __import__("__main__").timetravel.Store.took))' \
			-ex kill >"s$len-$back.out" 2>&1
		rc=$(sed -n 's/^RC //p' "s$len-$back.out")
		landed=$(sed -n 's/^\$1 = //p' "s$len-$back.out")
		n=$(sed -n 's/^\([0-9]*\) checkpoints, .*/\1/p' "s$len-$back.out")
		ms=$(sed -n 's/^TOOK //p' "s$len-$back.out" | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}')
		kib=$(sed -n 's/^  [0-9]* *[0-9]* *[0-9.]* *\([0-9]*\) KiB.*/\1/p' "s$len-$back.out" | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}')
		if [ "$landed" != "$k" ]; then echo "length $len back $back: stopped at milestone ${landed:-?}, not $k (s$len-$back.out)"; status=1; fi
		printf "%-8s %-6s %-10s %-12s %-12s %s\n" "${len}s" "${back}s" "${rc:-?}" "${n:-?}" "${ms:-?}" "${kib:-?}"
	done
done
exit $status
