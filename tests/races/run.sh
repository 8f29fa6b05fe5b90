#!/bin/bash
# The race detector of the replay (--races, docs/races.md): programs of our own with a
# race each, recorded by the ordinary build and replayed by the race build (sicc
# --races), must have that race reported with both of its lines (the lines marked
# RACE in the source; "RACE RACE": both accesses on one line); properly synchronized
# programs (condvar queue, barrier, once, C11 atomics, join, rwlock, semaphores,
# spinlock, the __sync and __atomic builtins), recorded under several schedules of
# the hunting scheduler (preemptions at memory accesses and synchronization calls,
# whose pcs the race build has elsewhere: the anchors map them), must replay by the
# race build to the same output and be reported clean. Then the refusals: --races
# with the ordinary build, while recording, with another program's anchors.
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT/tests/races"

build() { # SRC: $WORK/NAME (ordinary) and $WORK/NAME.races
	local name=${1%.c}
	"$SICC" -g -O1 -o "$WORK/$name" "$1" -lpthread >"$WORK/build.log" 2>&1 &&
		"$SICC" --races -g -O1 -o "$WORK/$name.races" "$1" -lpthread >>"$WORK/build.log" 2>&1
}

# races_of SRC LOG: the replay's race reports, one line per race ("race N: ...
# | access | access"), in $WORK/NAME.report; the replay's output in NAME.replay.
replay_races() {
	local name=${1%.c}
	"$WORK/$name.races" --replay "$2" --races >"$WORK/$name.replay" 2>&1
}

for src in rmw.c check_then_act.c publish.c use_after_free.c memcpy_race.c rwlock_readers.c report.c; do
	name=${src%.c}
	if ! build "$src"; then fail "$name: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"; continue; fi
	"$WORK/$name" --record "$WORK/$name.bin" >"$WORK/$name.out" 2>&1
	if ! replay_races "$src" "$WORK/$name.bin"; then
		fail "$name: the replay with --races failed: $(tail -n 3 "$WORK/$name.replay" | tr '\n' ' ')"; continue; fi
	if ! diff <(grep -v '^libreplay: ' "$WORK/$name.replay") "$WORK/$name.out" >/dev/null; then
		fail "$name: the race build's replay printed otherwise than the recording"; continue; fi
	# The marked lines: both must be named in one report (its two access lines).
	mapfile -t lines < <(grep -n 'RACE' "$src" | while IFS=: read -r n text; do
		c=$(grep -o 'RACE' <<<"$text" | wc -l); for _ in $(seq "$c"); do echo "$n"; done; done)
	a="$src:${lines[0]}" b="$src:${lines[1]}"
	found=$(awk -v a="($a)" -v b="($b)" '
		/^libreplay: race [0-9]+/ { if (n == 2 && ((x ~ a && y ~ b) || (x ~ b && y ~ a))) ok = 1; n = 0; next }
		/^libreplay:   (read|write|free) / { if (n == 0) x = $0; else y = $0; n++ }
		END { if (n == 2 && ((x ~ a && y ~ b) || (x ~ b && y ~ a))) ok = 1; print ok + 0 }' \
		<(sed 's/(discriminator [0-9]*)//' "$WORK/$name.replay"))
	if [ "$found" = 1 ] && grep -q "^libreplay: race 1 (the first in this run): " "$WORK/$name.replay" &&
	   grep -q 'replay goto [0-9]*:[0-9]*' "$WORK/$name.replay"; then
		pass "$name: the race between $a and $b reported, with replay goto for each"
	else
		fail "$name: no race reported between $a and $b: $(grep -E 'race|thread' "$WORK/$name.replay" | head -n 6 | tr '\n' ' ')"
	fi
done

# Reported once: the unlocked counter's 1000 increments per thread are one race.
n=$(grep -c '^libreplay: race [0-9]' "$WORK/rmw.replay" 2>/dev/null)
if [ "$n" = 1 ]; then pass "rmw: one report for a race repeated 1000 times"
else fail "rmw: $n reports, want 1"; fi

# The report's contents (report.c): both accesses' callers (the earlier access's from
# its cell: its frames are gone), the locks each thread held at its access, where
# each thread was created, and the first race in the run; the lines are the source's
# marked ones.
line() { grep -n "$1" report.c | head -n 1 | cut -d: -f1; }
r=$WORK/report.replay
want=("called from pay (report.c:$(line 'CALLER pay')) <- teller (report.c:$(line 'CALLER teller'))"
	"called from auditor (report.c:$(line 'CALLER auditor'))"
	"locks held: till (0x" "locks held: ledger (0x"
	"created by thread 1 at count [0-9]*: main (report.c:$(line 'CREATE teller'))   replay goto 1:[0-9]*$"
	"created by thread 1 at count [0-9]*: main (report.c:$(line 'CREATE auditor'))   replay goto 1:[0-9]*$"
	"--races: the first in the run is race 1, at thread [23]'s count [0-9]*: the run is correct up to there")
miss=""
for w in "${want[@]}"; do
	grep -q -- "$w" "$r" 2>/dev/null || miss="$miss [$w]"
done
if [ -z "$miss" ] && [ "$(grep -c '^libreplay:     called from' "$r")" = 2 ]; then
	pass "report: both accesses' callers, the locks each thread held, where each thread was created, the first race"
else fail "report: missing$miss: $(grep '^libreplay:  ' "$r" 2>/dev/null | head -n 9 | tr '\n' ' ')"; fi

# A failing run (abort after its race): the replay dies as the recording did, and
# says before the crash report how many races the run had and which came first.
if build abort_race.c; then
	{ "$WORK/abort_race" --record "$WORK/abort_race.bin" >/dev/null 2>&1; } 2>/dev/null
	{ "$WORK/abort_race.races" --replay "$WORK/abort_race.bin" --races >"$WORK/abort_race.replay" 2>&1; } 2>/dev/null
	rc=$?
	r=$WORK/abort_race.replay
	if [ $rc = 134 ] && grep -q '^libreplay: --races: 1 race found in this run$' "$r" &&
	   grep -q "^libreplay: --races: the first in the run is race 1, at thread [12]'s count" "$r" &&
	   [ "$(grep -n 'races found\|race found' "$r" | cut -d: -f1)" -lt "$(grep -n 'died of SIGABRT' "$r" | cut -d: -f1)" ]; then
		pass "abort_race: a failing run's replay names its races and the first before the crash report"
	else fail "abort_race: rc $rc: $(grep -E 'races|SIGABRT' "$r" | head -n 4 | tr '\n' ' ')"; fi
else fail "abort_race: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"; fi

for src in clean_condvar_queue.c clean_barrier.c clean_once.c clean_atomics.c clean_join.c \
	clean_rwlock.c clean_sem.c clean_spin.c clean_sync_builtins.c; do
	name=${src%.c}
	if ! build "$src"; then fail "$name: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"; continue; fi
	bad="" preempts=0
	for seed in 1 2 3; do
		# (pthread_spin_lock yields while it spins, which the hunting scheduler's
		# priorities can turn into a livelock: clean_spin is recorded with 50 us
		# slices, three times.)
		how=--hunt=$seed
		[ "$name" = clean_spin ] && how=--quantum=50us
		"$WORK/$name" --record "$WORK/$name.$seed.bin" $how >"$WORK/$name.out" 2>&1
		p=$("$ROOT/build/bin/replay-dump" "$WORK/$name.$seed.bin" 2>/dev/null |
			sed -n 's/^records: [0-9]* (\([0-9]*\) preempt.*/\1/p')
		preempts=$((preempts + ${p:-0}))
		if ! replay_races "$src" "$WORK/$name.$seed.bin"; then
			bad="seed $seed: the replay failed: $(tail -n 2 "$WORK/$name.replay" | tr '\n' ' ')"; break; fi
		if ! diff <(grep -v '^libreplay: ' "$WORK/$name.replay") "$WORK/$name.out" >/dev/null; then
			bad="seed $seed: the race build's replay printed otherwise than the recording"; break; fi
		if ! grep -q '^libreplay: --races: 0 races found in this run$' "$WORK/$name.replay"; then
			bad="seed $seed: $(grep 'race' "$WORK/$name.replay" | head -n 3 | tr '\n' ' ')"; break; fi
	done
	if [ -z "$bad" ] && [ "$preempts" -gt 0 ]; then
		pass "$name: clean in three recordings (${how%=*}: $preempts preemptions replayed)"
	elif [ -z "$bad" ]; then fail "$name: the recordings have no preemption: nothing mapped"
	else fail "$name: $bad"; fi
done

# A preemption recorded at an atomic access itself (clean_sync_builtins' xchg of
# __sync_lock_test_and_set, line 24): the race build has the access's check before it,
# and must stop before the check, or the thread's acquire is taken before the others'
# releases that come while it is stopped (a false race on `counter`: the replay mapped
# the pc to the access, past its check). Seeds of --hunt-strategy=windows until one
# preempts there; each that does replays clean (seed 3 reported one before).
name=clean_sync_builtins at="" bad=""
for seed in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	[ -x "$WORK/$name.races" ] || break
	"$WORK/$name" --record "$WORK/xchg.bin" --hunt=$seed --hunt-strategy=windows >"$WORK/xchg.out" 2>&1
	"$ROOT/build/bin/replay-dump" "$WORK/xchg.bin" "$WORK/$name" 2>/dev/null |
		grep -q 'PREEMPT .*clean_sync_builtins.c:24)$' || continue
	at="$at $seed"
	if ! replay_races "$name.c" "$WORK/xchg.bin"; then
		bad="$bad seed $seed: the replay failed: $(tail -n 2 "$WORK/$name.replay" | tr '\n' ' ');"
	elif ! grep -q '^libreplay: --races: 0 races found in this run$' "$WORK/$name.replay"; then
		bad="$bad seed $seed: $(grep 'race' "$WORK/$name.replay" | head -n 1);"
	fi
done
if [ -z "$at" ]; then fail "$name: no seed of 1-16 (windows) preempts at the xchg (line 24)"
elif [ -n "$bad" ]; then fail "$name: preempted at its xchg:$bad"
else pass "$name: preemptions at an atomic access (xchg; seeds$at) replay clean: the race build stops before the access's check"; fi

# Without debug registers (the breakpoint a trap byte in the code): the preemptions at
# mapped pcs are reached the same way.
name=clean_atomics
if [ -x "$WORK/$name.races" ] && LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 \
	"$WORK/$name.races" --replay "$WORK/$name.1.bin" --races --breakpoints=software >"$WORK/sw.out" 2>&1 &&
	grep -q '^libreplay: --races: 0 races found in this run$' "$WORK/sw.out"; then
	pass "$name: replayed by the race build with software breakpoints"
else fail "$name: with software breakpoints: $(tail -n 2 "$WORK/sw.out" | tr '\n' ' ')"; fi

# gdb: replay-gdb passes --races for a race build; `replay races stop` stops at the
# race's instruction, `info races` lists it, and `replay goto` of the earlier access
# goes back to that very instruction, before it ran.
then=$(sed -n 's/^libreplay:   write thread 2 .*replay goto \([0-9]*:[0-9]*@0x[0-9a-f]*\)$/\1/p' "$WORK/rmw.replay" | head -n 1)
(cd "$WORK" && timeout 300 "$ROOT/build/bin/replay-gdb" ./rmw.races rmw.bin -batch -nx \
	-ex 'replay races stop' -ex run -ex 'info races' -ex "replay goto $then" -ex 'replay when' \
	-ex 'print hits' -ex 'info races') >"$WORK/gdb.out" 2>&1
if [ -n "$then" ] && grep -q '^libreplay: stopped at a data race, before its access runs:' "$WORK/gdb.out" &&
   grep -q "^race 1 at 0x[0-9a-f]* (hits)" "$WORK/gdb.out" &&
   grep -q "^this instruction: replay goto $then\$" "$WORK/gdb.out" &&
   grep -q '^\$1 = 999$' "$WORK/gdb.out" &&
   grep -q '^No race found so far in this replay.$' "$WORK/gdb.out"; then
	pass "gdb: replay races stop, info races, replay goto back to the earlier access ($then)"
else fail "gdb: races: $(grep -v '^\[' "$WORK/gdb.out" | tail -n 8 | tr '\n' ' ')"; fi

# The refusals, each one line and exit 2.
out=$("$WORK/rmw" --replay "$WORK/rmw.bin" --races 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'not a race build' <<<"$out"; then pass "refused: --races by the ordinary build"
else fail "refused: --races by the ordinary build: rc $rc: $out"; fi
out=$("$WORK/rmw.races" --record "$WORK/x.bin" --races 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'goes with --replay' <<<"$out"; then pass "refused: --races while recording"
else fail "refused: --races while recording: rc $rc: $out"; fi
out=$("$WORK/rmw.races" --replay "$WORK/rmw.bin" --races="$WORK/clean_once" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'anchors' <<<"$out"; then pass "refused: --races= another program's executable"
else fail "refused: --races= another program's executable: rc $rc: $out"; fi

summary
