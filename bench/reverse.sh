#!/bin/bash
# bench/reverse.sh: going back in time under gdb (docs/gdb.md): how long
# reverse-continue takes to a breakpoint 1, 5 and 30 s of replay back, in replays of
# two lengths (the goal: under 2 s each, whatever the length), to milestone 4 (far
# back: where checkpoints are thinned most), and to one set after the fact; what
# the checkpoints cost.
#
#   bench/reverse.sh            (make first)   LENGTHS="45 90" RUNS=3 by default
#
# bench/rewind.c runs LENGTH seconds of CPU time and calls milestone(k) after k of
# them (a recorded clock: B s back is about B s of replay, whatever the load). One
# gdb session per run and length: `break milestone if k == L-1 || k == L-6 || k ==
# L-36 || k == 4` and `break finished`; run and continue to each (the forward run
# sees the four stops), then from the end reverse-continue three times, timed: 1 s
# back (to L-1), 5 s (L-6), 30 s (L-36), each of which must stop at its milestone.
# Then a breakpoint set after the fact, `break milestone if k == L-40`:
# reverse-continue searches the 4 s back to it segment by segment. Then, that one
# deleted, reverse-continue to milestone 4 (L-4 s back from the end, L-44 from
# there: a moment in the oldest, sparsest checkpoints). Each reverse-continue's wall
# time, and the CPU time of the process it ends in (the replay re-executed since
# the restore: a loaded machine slows the wall time, not this; not for the search,
# which restores several). Checkpoints: how
# many kept, each one's time to take (the breakpoint's stop method, gdb's
# checkpoint), and their memory as `replay checkpoints` lists it: the pages only
# each holds (Own), and what they cost in all beyond the live replay's own memory.
# Medians of RUNS sessions. Never asserted.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/bench/reverse"
mkdir -p "$OUT" && cd "$OUT" || exit 1
LENGTHS=${LENGTHS:-45 90}
RUNS=${RUNS:-3}
"$ROOT/build/bin/sicc" -O2 -g -o rewind "$ROOT/bench/rewind.c" || exit 1
cat >rc.py <<'EOF'
# rc NAME: reverse-continue, timed; the CPU time of the process it ends in.
import os, time
def rc(name):
    t0 = time.time()
    gdb.execute("reverse-continue")
    wall = time.time() - t0
    with open("/proc/%d/stat" % gdb.selected_inferior().pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    cpu = (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
    k = int(gdb.parse_and_eval("k"))
    print("RC %s %.3f %.2f %d" % (name, wall, cpu, k))
EOF
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "?"}'; }
status=0
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
for len in $LENGTHS; do
	[ "$len" -ge 45 ] || { echo "length $len: at least 45"; status=1; continue; }
	./rewind --record "rewind$len.bin" "$len" >"rewind$len.rec" 2>&1 || { echo "recording failed"; status=1; continue; }
	a=$((len - 1)) b=$((len - 6)) c=$((len - 36)) d=$((len - 40))
	for run in $(seq "$RUNS"); do
		timeout 3600 "$ROOT/build/bin/replay-gdb" ./rewind "rewind$len.bin" -batch -nx -x rc.py \
			-ex "break milestone if k == $a || k == $b || k == $c || k == 4" -ex 'break finished' \
			-ex run -ex continue -ex continue -ex continue -ex continue \
			-ex 'python rc("1")' -ex 'python rc("5")' -ex 'python rc("30")' \
			-ex "break milestone if k == $d" -ex 'python rc("4new")' \
			-ex 'delete 3' -ex 'python rc("far")' \
			-ex 'replay checkpoints' \
			-ex 'python print("TOOK", " ".join("%.1f" % (c * 1e3) for c in __import__("__main__").timetravel.Store.took))' \
			-ex kill >"s$len-$run.out" 2>&1
	done
	for back in 1 5 30 4new far; do
		case $back in 1) want=$a;; 5) want=$b;; 30) want=$c;; 4new) want=$d;; far) want=4;; esac
		for run in $(seq "$RUNS"); do
			line=$(grep "^RC $back " "s$len-$run.out")
			[ "$(echo "$line" | cut -d' ' -f5)" = "$want" ] ||
				{ echo "length $len back $back run $run: stopped at milestone ${line##* }, not $want (s$len-$run.out)"; status=1; }
		done
		wall=$(cat s"$len"-*.out | sed -n "s/^RC $back \([0-9.]*\) .*/\1/p" | median)
		cpu=$(cat s"$len"-*.out | sed -n "s/^RC $back [0-9.]* \([0-9.]*\) .*/\1/p" | median)
		eval "w_$back=\$wall c_$back=\$cpu"
	done
	n=$(cat s"$len"-*.out | sed -n 's/^\([0-9]*\) checkpoints, .*/\1/p' | median)
	kib=$(cat s"$len"-*.out | sed -n 's/^[0-9]* checkpoints, \([0-9]*\) KiB in all.*/\1/p' | median)
	each=$(cat s"$len"-*.out | sed -n 's/^  [0-9]* *[0-9]* *-*[0-9.]* *\([0-9]*\) KiB.*/\1/p' | median)
	ms=$(cat s"$len"-*.out | sed -n 's/^TOOK //p' | tr ' ' '\n' | median)
	printf "length %ss (%s runs): reverse-continue, median wall s (CPU s of the replay): 1 s back %s (%s), 5 s %s (%s), 30 s %s (%s), %s s %s (%s); set after the fact, 4 s back %s\n" \
		"$len" "$RUNS" "$w_1" "$c_1" "$w_5" "$c_5" "$w_30" "$c_30" "$((len - 4))" "$w_far" "$c_far" "$w_4new"
	printf "length %ss: %s checkpoints kept, %s KiB in all beyond the live replay's, %s KiB only each holds (median), one took %s ms (median)\n" \
		"$len" "$n" "$kib" "$each" "$ms"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
