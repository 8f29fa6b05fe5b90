#!/bin/bash
# bench/reverse.sh: going back in time under gdb (docs/gdb.md): how long
# reverse-continue takes to a breakpoint 1, 5 and 30 s of replay back, in replays of
# two lengths (the goal: under 2 s each, whatever the length), to milestone 4 (far
# back: where checkpoints are thinned most), and to one set after the fact; what
# the checkpoints cost.
#
#   bench/reverse.sh            (make first)   LENGTHS="45 90" RUNS=3 by default
#   LENGTHS= RUNS=5 bench/reverse.sh           only the hot and conditional breakpoints
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
#
# Then hot and conditional breakpoints (issue 28; LENGTHS= runs only these):
# bench/hot.c's three threads call hop() 100,000 times each, some 3,000 counts apart.
# From thread 3's count 200,000,000 (about 200,000 passes of `break hop` since the
# start), reverse-continue to the previous pass, timed; then from a later moment
# `replay goto` to the same stop, timed: going forward to it from the nearest
# checkpoint. The same with `break hop if $rcount(3) == C`, from 1,000 counts after
# C (C: the first pass at or after count 150,000,000, found going forward). Each
# reverse-continue must stop where the forward one did (the pass, the same in every
# run). Medians of RUNS sessions, and their ratio (the goal: within 2x). Then `watch
# passes` with the debug registers dead (the runtime finds the last write) the same
# way: reverse-continue from count 200,000,000 against going forward to its stop;
# and with them working, the runtime's search (the default) against gdb's hardware
# watchpoints (set replay-watch gdb).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/bench/reverse"
mkdir -p "$OUT" && cd "$OUT" || exit 1
LENGTHS=${LENGTHS-45 90}
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
"$ROOT/build/bin/sicc" -O2 -g -o hot "$ROOT/bench/hot.c" || exit 1
./hot --record hot.bin >hot.rec 2>&1 || { echo "recording hot failed"; exit 1; }
cat >hot.py <<'EOF'
# timed CMD NAME: wall time of a command; at(): this stop as replay goto names it.
import time
def timed(cmd, name):
    t0 = time.time()
    gdb.execute(cmd)
    print("T %s %.3f" % (name, time.time() - t0))
def at():
    return gdb.execute("replay when", to_string=True).split("replay goto ")[1].strip()
def hot_count(tid):
    return int(gdb.parse_and_eval("$rcount(%d)" % tid))
EOF
for run in $(seq "$RUNS"); do
	timeout 3600 "$ROOT/build/bin/replay-gdb" ./hot hot.bin -batch -nx -x hot.py \
		-ex 'break __sic_main' -ex run -ex delete -ex 'replay goto 3:200000000' -ex 'break hop' \
		-ex 'python timed("reverse-continue", "hot")' -ex 'python P = at(); print("AT hot", P)' \
		-ex 'replay goto 3:250000000' -ex 'python timed("replay goto " + P, "hotfwd")' \
		-ex delete -ex 'break hop if $rcount(3) >= 150000000' -ex 'replay goto 3:100000000' -ex continue \
		-ex 'python C = hot_count(3); Q = at(); print("AT want", Q)' -ex delete \
		-ex 'python gdb.execute("replay goto 3:%d" % (C + 1000)); gdb.execute("break hop if $rcount(3) == %d" % C)' \
		-ex 'python timed("reverse-continue", "cond")' -ex 'python print("AT cond", at())' \
		-ex 'replay goto 3:250000000' -ex 'python timed("replay goto " + Q, "condfwd")' \
		-ex kill >"hot-$run.out" 2>&1
done
for run in $(seq "$RUNS"); do
	[ "$(sed -n 's/^AT cond //p' "hot-$run.out")" = "$(sed -n 's/^AT want //p' "hot-$run.out")" ] &&
		[ "$(sed -n 's/^AT hot //p' "hot-$run.out")" = "$(sed -n 's/^AT hot //p' hot-1.out)" ] ||
		{ echo "hot run $run: reverse-continue stopped elsewhere (hot-$run.out)"; status=1; }
done
# A watchpoint without debug registers (LIBREPLAY_TEST_DEAD_DEBUG_REGS=1): `watch
# passes` (hop() writes it at each pass) from thread 3's count 200,000,000,
# reverse-continue to its last write, timed (the runtime compares the bytes:
# reverse.py's last-write); then forward to that stop from a later moment, timed.
for run in $(seq "$RUNS"); do
	LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 timeout 3600 "$ROOT/build/bin/replay-gdb" ./hot hot.bin -batch -nx -x hot.py \
		-ex 'break __sic_main' -ex run -ex delete -ex 'replay goto 3:200000000' -ex 'watch passes' \
		-ex 'python timed("reverse-continue", "watch")' -ex 'python W = at(); print("AT watch", W)' -ex delete \
		-ex 'replay goto 3:250000000' -ex 'python timed("replay goto " + W, "watchfwd")' \
		-ex kill >"watch-$run.out" 2>&1
	[ "$(sed -n 's/^AT watch //p' "watch-$run.out")" = "$(sed -n 's/^AT watch //p' watch-1.out)" ] &&
		grep -q '^Hardware watchpoint 2: passes' "watch-$run.out" ||
		{ echo "watch run $run: reverse-continue stopped elsewhere (watch-$run.out)"; status=1; }
done
# The same where the debug registers work: the runtime's search (the default) and
# gdb's hardware watchpoints (set replay-watch gdb: a stop of gdb's at each write
# counted in the segments searched), each to the same stop.
for run in $(seq "$RUNS"); do
	for how in runtime gdb; do
		timeout 3600 "$ROOT/build/bin/replay-gdb" ./hot hot.bin -batch -nx -x hot.py -ex "set replay-watch $how" \
			-ex 'break __sic_main' -ex run -ex delete -ex 'replay goto 3:200000000' -ex 'watch passes' \
			-ex "python timed(\"reverse-continue\", \"watch_$how\")" -ex 'python print("AT watch", at())' \
			-ex kill >"watch-$how-$run.out" 2>&1
		[ "$(sed -n 's/^AT watch //p' "watch-$how-$run.out")" = "$(sed -n 's/^AT watch //p' watch-1.out)" ] ||
			{ echo "watch ($how) run $run: reverse-continue stopped elsewhere (watch-$how-$run.out)"; status=1; }
	done
done
m_watch_runtime=$(cat watch-runtime-*.out | sed -n 's/^T watch_runtime \([0-9.]*\)$/\1/p' | median)
m_watch_gdb=$(cat watch-gdb-*.out | sed -n 's/^T watch_gdb \([0-9.]*\)$/\1/p' | median)
m_watch=$(cat watch-*.out | sed -n 's/^T watch \([0-9.]*\)$/\1/p' | median)
m_watchfwd=$(cat watch-*.out | sed -n 's/^T watchfwd \([0-9.]*\)$/\1/p' | median)
for k in hot hotfwd cond condfwd; do
	eval "m_$k=\$(cat hot-*.out | sed -n 's/^T $k \([0-9.]*\)$/\1/p' | median)"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'; }
printf "hot breakpoint (%s runs): reverse-continue to the previous pass %s s, forward to it from the nearest checkpoint %s s: %sx\n" \
	"$RUNS" "$m_hot" "$m_hotfwd" "$(ratio "$m_hot" "$m_hotfwd")"
printf "count condition, 1,000 counts back (%s runs): reverse-continue %s s, forward %s s: %sx\n" \
	"$RUNS" "$m_cond" "$m_condfwd" "$(ratio "$m_cond" "$m_condfwd")"
printf "watchpoint, no debug registers (%s runs): reverse-continue to the last write %s s, forward to it from the nearest checkpoint %s s: %sx\n" \
	"$RUNS" "$m_watch" "$m_watchfwd" "$(ratio "$m_watch" "$m_watchfwd")"
printf "watchpoint, debug registers working (%s runs): reverse-continue to the last write %s s by the runtime's search, %s s by gdb's hardware watchpoints\n" \
	"$RUNS" "$m_watch_runtime" "$m_watch_gdb"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
