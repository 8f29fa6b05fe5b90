#!/bin/bash
# Going back from where a replay ends (issue 28): a crash (SIGSEGV, SIGABRT), a
# deadlock, a hang past --timeout, and the end of a log cut short. From each end,
# each reverse command (reverse-stepi, -step, -next, -continue, -finish, replay goto)
# lands before it without the stop's signal delivered again (which made the replay
# diverge) and without the deadlock's report printed again; going forward from there
# reaches the same end. ENDS_OPTS=--breakpoints=software (LIBREPLAY_OPTS) or
# LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 runs it with the software stops. Then the same from an
# IDE: gdb's MI with reverse (replay-gdb --interpreter=mi2).
. "$(dirname "$0")/../lib/common.sh"
MODE_OPTS=${ENDS_OPTS:-}
unset LIBREPLAY_OPTS
[ -n "$MODE_OPTS" ] && export LIBREPLAY_OPTS="$MODE_OPTS"
P="$ROOT/tests/gdb/progs"
S="$ROOT/tests/schedule/progs"
RGDB="$ROOT/build/bin/replay-gdb"
cd "$WORK" || exit 1
nocall=$(gdb_cannot_call)
if [ -n "$nocall" ]; then
	skip "going back from a replay's end: this gdb cannot call functions in a program on this CPU ($nocall)"
	summary
	exit
fi
"$SICC" -O1 -g -o ends "$P/ends.c" && "$SICC" -O1 -g -o always_deadlock "$S/always_deadlock.c" &&
	"$SICC" -O1 -g -o livelock "$S/livelock.c" || { fail "build"; summary; exit 1; }
./ends --record segv.bin --quantum 100us segv >/dev/null 2>&1
[ $? -eq 139 ] || fail "ends segv: the recording did not die of SIGSEGV"
./ends --record abort.bin --quantum 100us abort >/dev/null 2>&1
[ $? -eq 134 ] || fail "ends abort: the recording did not die of SIGABRT"
./always_deadlock --record deadlock.bin >/dev/null 2>&1
[ $? -eq 87 ] || fail "always_deadlock: the recording did not deadlock"
./livelock --record hang.bin --timeout=200ms >/dev/null 2>&1
[ $? -eq 88 ] || fail "livelock: the recording did not hang"
# A log cut short: the recording killed while it runs (its blocks written so far).
./livelock --record cut.bin --quantum 1ms >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -9 $pid
wait $pid 2>/dev/null

# session NAME PROG LOG END-LINE FORWARD COMMAND [GDB ARGS BEFORE run...]: replay LOG
# to its end, run COMMAND, then FORWARD.
session() {
	local name=$1 prog=$2 log=$3 cmd=$4 fwd=$5; shift 5
	timeout 300 "$RGDB" "./$prog" "$log" -batch -nx "$@" -ex run -ex 'echo @@END\n' -ex 'replay when' \
		-ex "$cmd" -ex 'echo @@BACK\n' -ex 'replay when' -ex 'echo @@FWD\n' -ex "$fwd" >"$name.out" 2>&1
}
at() { sed -n "/^@@$2\$/,/^@@/s/^time \([0-9]*\): green thread.*/\1/p" "$1" | head -n 1; }
part() { sed -n "/^@@$2\$/,/^@@/p" "$1"; } # OUT MARK: from the line @@MARK to the next @@
# end_count OUT: green thread 2's count at the stop a session shows after @@END.
end_count() { part "$1" END | sed -n 's/^time [0-9]*: green thread 2 at count \([0-9]*\),.*/\1/p' | head -n 1; }
# built_end EXE SOURCE FLAGS STATUS LOG [ARGS...]: build $P/SOURCE as EXE with FLAGS and
# record LOG with ARGS; true if the recording ended with exit status STATUS.
built_end() {
	local exe=$1 src=$2 flags=$3 status=$4 log=$5; shift 5
	"$SICC" $flags -o "$exe" "$P/$src" || return 1
	"./$exe" --record "$log" "$@" >/dev/null 2>&1
	[ $? -eq "$status" ]
}
# check_end NAME PROG LOG END-REGEX STILL [GDB ARGS...]: every reverse command from the
# end, then continue; END-REGEX matches one line at the end, and one more after the
# continue. A reverse-finish refused in the outermost frame moves nothing: STILL then
# (continue, or kill where the run would go on unrecorded for ever).
check_end() {
	local name=$1 prog=$2 log=$3 end=$4 still=$5 fwd=continue n=1; shift 5
	local cmd k=0 bad=""
	for cmd in reverse-stepi reverse-step reverse-next reverse-continue reverse-finish 'replay goto 3'; do
		k=$((k + 1))
		local out="$name-$k"
		local go=$fwd
		[ "$cmd" = reverse-finish ] && go=$still
		session "$out" "$prog" "$log" "$cmd" "$go" "$@"
		local t0 t1
		t0=$(at "$out.out" END) t1=$(at "$out.out" BACK)
		local why=""
		if grep -Eq 'replay diverged|Python Exception|The program ended|exited with code 0126|Program terminated' "$out.out"; then
			why="$(grep -Em1 'replay diverged|Python Exception|The program ended|exited with code|terminated' "$out.out")"
		elif [ -z "$t0" ] || [ -z "$t1" ]; then why="no time before or after"
		elif [ "$t1" -gt "$t0" ]; then
			why="time $t0 at the end, $t1 after"
		elif [ "$(grep -c '^this instruction: replay goto' "$out.out")" -ne 2 ] ||
			{ [ "$(grep '^this instruction' "$out.out" | sort -u | wc -l)" -ne 2 ] &&
				! grep -q '"finish" not meaningful in the outermost frame' "$out.out"; }; then
			why="it did not move: $(grep -m1 -A2 '^@@BACK' "$out.out" | tail -n 2 | tr '\n' ' ')"
		elif grep -q '"finish" not meaningful in the outermost frame' "$out.out"; then
			: # (the running thread's function is its outermost: it did not move)
		elif [ "$(grep -Ec "$end" "$out.out")" -ne $((n + 1)) ]; then
			why="$(grep -Ec "$end" "$out.out") lines /$end/, not $((n + 1)): the end reported again going back, or not reached going forward"
		elif [ "$(sed -n '/^@@FWD$/,$p' "$out.out" | grep -Ec "$end")" -ne 1 ]; then
			why="going forward did not reach the end again"
		fi
		[ -n "$why" ] && bad="$bad $cmd: $why;"
	done
	[ -z "$bad" ] && pass "$name: every reverse command from the end lands before it, once; forward reaches the same end" ||
		fail "$name:$bad"
}
check_end "SIGSEGV" ends segv.bin '^Program received signal SIGSEGV' continue
check_end "SIGABRT" ends abort.bin '^Program received signal SIGABRT' continue
check_end "deadlock" always_deadlock deadlock.bin 'deadlock: all 2 live threads are blocked' continue
check_end "hang" livelock hang.bin 'hang: the run went on past --timeout' continue
check_end "log cut short" livelock cut.bin 'the log ends here, after record' kill
# To the hang's own count, then one before it: the stop at that count was taken where
# the hang's end came first, and its way back into the program (a breakpoint at the
# thread's pc) was left armed; restored, it stopped the thread at its first pass.
end=$(sed -n 's/^time [0-9]*: green thread 2 at count \([0-9]*\).*/\1/p' hang-1.out | head -n 1)
timeout 300 "$RGDB" ./livelock hang.bin -batch -nx -ex run -ex "replay goto 2:$end" -ex 'echo @@A\n' -ex 'replay when' \
	-ex "replay goto 2:$((end - 1))" -ex 'echo @@B\n' -ex 'replay when' >hang-goto.out 2>&1
a=$(at hang-goto.out A) b=$(at hang-goto.out B)
grep -q "^time $a: green thread 2 at count $end," hang-goto.out &&
	grep -q "^time $b: green thread 2 at count $((end - 1))," hang-goto.out &&
	pass "hang: replay goto its end's count, then the count before: each lands there" ||
	fail "hang: goto $end, then $((end - 1)): $(grep '^time' hang-goto.out | tr '\n' ' ')"
# A hang whose --timeout interrupted the thread right where a counting point goes on
# (the pc after its `je` to the counter's stub; one recording in about a hundred here):
# the instruction before the end, that `je`, comes at the end's count too, between the
# counting point and the stop there, so going back to it passes the end first (a
# reverse-stepi continued past it: the replay exited 88, or landed at another count).
# The log is this hang's, its END moved to that pc of the same count (forge endpc).
gcc -std=gnu11 -O2 -D_GNU_SOURCE -I"$ROOT/libreplay" -I"$ROOT/sched" -o forge \
	"$ROOT/tests/durability/forge.c" "$ROOT/build/lib/libreplay-log.a" || fail "forge: build"
rel=$("$ROOT/build/bin/replay-dump" hang.bin | sed -n 's/^ *stopped t2 at count [0-9]*, pc 0x\([0-9a-f]*\)$/\1/p')
pc_of() { part "$1" "$2" | sed -n "s/^time [0-9]*: green thread 2 at count $3, .* pc 0x\([0-9a-f]*\) in .*/\1/p" | head -n 1; }
abs=$(pc_of hang-1.out END "$end")            # the end's pc, in the process
resume=$(pc_of hang-goto.out B $((end - 1))) # where the stop at a count goes on
if [ -n "$rel" ] && [ -n "$abs" ] && [ -n "$resume" ] &&
	./forge hang.bin resume.bin 1 "endpc:$(printf %x $((0x$resume - 0x$abs + 0x$rel)))" >forged.txt; then
	check_end "hang where a counting point goes on ($(cat forged.txt))" livelock resume.bin \
		'hang: the run went on past --timeout' continue
else
	fail "hang where a counting point goes on: no log (END pc '$rel' at '$abs', count $((end - 1)) at '$resume')"
fi
# A crash right where a counting point goes on (walk_off.c): reverse-stepi lands on the
# jump to the counter's stub at the fault's count, then on the decrement at the count
# before; every reverse command from there, as from the other ends.
if built_end walk_off walk_off.c "-O1 -g" 139 walk.bin; then
	timeout 300 "$RGDB" ./walk_off walk.bin -batch -nx -ex run -ex 'echo @@END\n' -ex 'replay when' -ex reverse-stepi \
		-ex 'echo @@A\n' -ex 'replay when' -ex 'x/i $pc' -ex reverse-stepi -ex 'echo @@B\n' -ex 'replay when' \
		-ex 'x/i $pc' >walk-back.out 2>&1
	n=$(end_count walk-back.out)
	if [ -n "$n" ] && part walk-back.out A | grep -q "^time [0-9]*: green thread 2 at count $n," &&
		part walk-back.out A | grep -Eq '^=> 0x[0-9a-f]+ <walker\+[0-9]+>:.*(je|jz) .*walker\.sic_stub' &&
		part walk-back.out B | grep -q "^time [0-9]*: green thread 2 at count $((n - 1))," &&
		part walk-back.out B | grep -Eq '^=> 0x[0-9a-f]+ <walker\+[0-9]+>:.*dec +%r15' &&
		! grep -q 'The program ended\|diverged' walk-back.out; then
		pass "a crash where a counting point goes on: reverse-stepi lands on the jump to the stub at its count $n, then on the decrement at $((n - 1))"
	else
		fail "a crash where a counting point goes on: $(grep -E '^time|^=>|ended|diverged' walk-back.out | tr '\n' ' ')"
	fi
	check_end "a crash where a counting point goes on" walk_off walk.bin '^Program received signal SIGSEGV' continue
else
	fail "walk_off: build, or the recording did not die of SIGSEGV"
fi
# A crash inside the C library at -O2 (libc_crash.c: strlen inside fputs), the count at
# the crash made in fputs's shim after the call ran: reverse-stepi lands on the call at
# the count before, with debug information and without (the call found from the
# function's symbol); every reverse command from there (-g).
for flags in "-O2 -g" -O2; do
	name="a crash inside the C library ($flags)"
	if ! built_end libc_crash libc_crash.c "$flags" 139 libc.bin; then
		fail "$name: build, or the recording did not die of SIGSEGV"
		continue
	fi
	timeout 300 "$RGDB" ./libc_crash libc.bin -batch -nx -ex run -ex 'echo @@END\n' -ex 'replay when' -ex reverse-stepi \
		-ex 'echo @@A\n' -ex 'replay when' -ex 'x/i $pc' >libc-back.out 2>&1
	n=$(end_count libc-back.out)
	if [ -n "$n" ] && part libc-back.out A | grep -q "^time [0-9]*: green thread 2 at count $((n - 1))," &&
		part libc-back.out A | grep -Eq '^=> 0x[0-9a-f]+ <work\+[0-9]+>:.*call .*<fputs' &&
		! grep -q 'The program ended\|diverged\|terminated' libc-back.out; then
		pass "$name: reverse-stepi lands on the call of fputs at count $((n - 1))"
	else
		fail "$name: $(grep -E '^time|^=>|ended|diverged|terminated' libc-back.out | tr '\n' ' ')"
	fi
	[ "$flags" = "-O2 -g" ] && check_end "$name" libc_crash libc.bin '^Program received signal SIGSEGV' continue
done
# A crash in a function qsort calls back (callback_crash.c): reverse-finish stops at the
# comparison's entry and says its caller is not the program's; reverse-stepi from there
# lands on the `ret` of the call before; every reverse command from the crash.
if built_end callback_crash callback_crash.c "-O2 -g" 139 callback.bin; then
	timeout 300 "$RGDB" ./callback_crash callback.bin -batch -nx -ex run -ex reverse-finish -ex 'echo @@A\n' -ex 'x/i $pc' \
		-ex reverse-stepi -ex 'echo @@B\n' -ex 'x/i $pc' >callback-back.out 2>&1
	if grep -q "^libreplay: cmp was called by [^ ]*, which is not the program's: stopped at its entry$" callback-back.out &&
		part callback-back.out A | grep -Eq '^=> 0x[0-9a-f]+ <cmp>:' &&
		part callback-back.out B | grep -Eq '^=> 0x[0-9a-f]+ <cmp\+[0-9]+>:[[:space:]]+ret' &&
		! grep -q 'The program ended\|diverged\|terminated\|No earlier' callback-back.out; then
		pass "a crash in qsort's callback: reverse-finish stops at its entry (its caller is foreign), reverse-stepi then on the ret of the call before"
	else
		fail "a crash in qsort's callback: $(grep -E '^=>|^libreplay: cmp|ended|diverged|terminated|No earlier' callback-back.out | tr '\n' ' ')"
	fi
	check_end "a crash in qsort's callback" callback_crash callback.bin '^Program received signal SIGSEGV' continue
else
	fail "callback_crash: build, or the recording did not die of SIGSEGV"
fi

# From the crash, where each lands: reverse-stepi on the store that faults or the call
# of abort, reverse-finish on the call of check(), reverse-continue at the breakpoint
# passed on the way (the line before the end).
ln() { grep -n "$1" "$P/ends.c" | head -n 1 | cut -d: -f1; }
before=$(ln 'the line before the end') call=$(ln 'check(id);')
for kind in segv abort; do
	line=$(ln 'the fault'); [ $kind = abort ] && line=$(ln 'the failed check')
	timeout 300 "$RGDB" ./ends $kind.bin -batch -nx -ex "break ends.c:$before" -ex run -ex continue -ex reverse-stepi \
		-ex 'echo @@A\n' -ex 'bt 1' -ex 'replay goto 3' -ex continue -ex continue -ex reverse-finish -ex 'echo @@B\n' -ex 'bt 1' \
		-ex continue -ex continue -ex reverse-continue -ex 'echo @@C\n' -ex 'bt 1' >where-$kind.out 2>&1
	frame() { sed -n "/^@@$1\$/,/^@@/p" where-$kind.out | grep -m1 '^#0'; }
	if frame A | grep -Eq "^#0  (0x[0-9a-f]+ in )?check \(id=0\) at .*ends\.c:$line$" &&
		frame B | grep -Eq " work \(arg=0x0\) at .*ends\.c:$call$" && frame C | grep -Eq " check \(id=0\) at .*ends\.c:$before$" &&
		! grep -q 'replay diverged' where-$kind.out; then
		pass "$kind: from the crash, reverse-stepi lands on line $line, reverse-finish at the call of check(), reverse-continue at its breakpoint"
	else
		fail "$kind: A=$(frame A) B=$(frame B) C=$(frame C) $(grep -m1 'diverged' where-$kind.out)"
	fi
done
# At -O2 gcc moves check()'s call of abort to check.cold, below the other functions:
# reverse-finish from the abort lands on the call of check in work (it took the cold
# part's start for check's entry, and landed on check's jump to it).
if built_end ends_o2 ends.c "-O2 -g" 134 abort_o2.bin --quantum 100us abort; then
	timeout 300 "$RGDB" ./ends_o2 abort_o2.bin -batch -nx -ex run -ex reverse-finish -ex 'echo @@A\n' -ex 'x/i $pc' >cold.out 2>&1
	part cold.out A | grep -Eq '^=> 0x[0-9a-f]+ <work\+[0-9]+>:[[:space:]]+call +0x[0-9a-f]+ <check' &&
		! grep -q 'The program ended\|diverged\|terminated' cold.out &&
		pass "abort in check.cold (-O2): reverse-finish lands on the call of check in work" ||
		fail "abort in check.cold (-O2): reverse-finish: $(grep -E '^=>|ended|diverged|terminated' cold.out | tr '\n' ' ')"
else
	fail "ends -O2: build, or the recording did not abort"
fi
# An abort in a function gcc inlined (inline_abort.c at -O2 -g; the stop in the C
# library, the program's frame gdb's for the inlined check): reverse-next lands on the
# line before in check, reverse-step on the start of the abort's line, each in the
# abort's iteration (they landed in the loop's first iterations).
if built_end inline_abort inline_abort.c "-O2 -g" 134 inline.bin; then
	timeout 300 "$RGDB" ./inline_abort inline.bin -batch -nx -ex run -ex 'echo @@END\n' -ex 'replay when' \
		-ex reverse-next -ex 'echo @@A\n' -ex 'replay when' -ex 'replay goto 3' -ex continue \
		-ex reverse-step -ex 'echo @@B\n' -ex 'replay when' >inline.out 2>&1
	n=$(end_count inline.out)
	l_if=$(grep -n 'the line before the end' "$P/inline_abort.c" | cut -d: -f1)
	if [ -n "$n" ] && part inline.out A | grep -q "^time [0-9]*: green thread 2 at count $((n - 1)), .* in check at .*inline_abort\.c:$l_if$" &&
		part inline.out B | grep -q "^time [0-9]*: green thread 2 at count $((n - 1)), .* in check at .*inline_abort\.c:$((l_if + 1))$" &&
		! grep -q 'The program ended\|diverged\|terminated' inline.out; then
		pass "an abort in an inlined function: reverse-next lands on line $l_if, reverse-step on line $((l_if + 1)), at count $((n - 1))"
	else
		fail "an abort in an inlined function: $(grep -E '^time|ended|diverged|terminated' inline.out | tr '\n' ' ')"
	fi
else
	fail "inline_abort: build, or the recording did not abort"
fi
# A checkpoint restored gets back its descriptors' file status flags (nonblock.c sets
# O_NONBLOCK on its standard output, which the checkpoint at main shares with the live
# process): after going back, the program reaches after() at the same count as before.
if built_end nonblock nonblock.c "-O1 -g" 0 nonblock.bin; then
	timeout 300 "$RGDB" ./nonblock nonblock.bin -batch -nx -ex 'break after' -ex 'run >/dev/null' -ex 'echo @@A\n' \
		-ex 'replay when' -ex 'replay goto 1:1' -ex continue -ex 'echo @@B\n' -ex 'replay when' -ex continue >nonblock.out 2>&1
	a=$(part nonblock.out A | grep -m1 '^time') b=$(part nonblock.out B | grep -m1 '^time')
	[ -n "$a" ] && [ "$a" = "$b" ] && grep -q 'exited normally' nonblock.out && ! grep -q diverged nonblock.out &&
		pass "a checkpoint restored gets back its descriptors' flags: after() at the same moment again (${a%%,*})" ||
		fail "descriptors' flags after going back: '$a' then '$b' $(grep -m1 diverged nonblock.out)"
else
	fail "nonblock: build, or the recording did not end with status 0"
fi
# An IDE's MI (replay-gdb --interpreter=mi2, driven as VS Code does: a command once the
# last is answered, a resume's *stopped awaited): -list-target-features says
# "reverse", and -exec-continue, -exec-next, -exec-finish, -exec-step with --reverse
# each answer ^running, then one *stopped where they landed; forward again from there
# reaches the same crash.
printf '%s\n' -list-target-features "-break-insert ends.c:$before" -exec-run -exec-continue '-exec-continue --reverse' \
	-exec-next '-exec-next --reverse' -exec-continue '-exec-finish --reverse' '-exec-step --reverse --thread 1 --frame 0' \
	-exec-continue -exec-continue -gdb-exit |
	timeout 300 python3 "$ROOT/tests/gdb/mi_ide.py" "$RGDB" ./ends segv.bin --interpreter=mi2 -nx >mi.out 2>&1
mi() { sed -n "/^@@ $1 /,/^@@/p" mi.out | grep -E "$2" >/dev/null; }
stop_at() { mi "$1" "^\*stopped,reason=\"$2\".*func=\"$3\".*line=\"$4\""; }
if mi 1 '^1\^done,features=\[.*"reverse"' && stop_at 4 signal-received check "$(ln 'the fault')" &&
	stop_at 5 breakpoint-hit check "$before" && mi 5 '^5\^running' && stop_at 6 end-stepping-range check "$((before + 1))" &&
	stop_at 7 end-stepping-range check "$before" && stop_at 8 signal-received check "$(ln 'the fault')" &&
	stop_at 9 function-finished work "$call" && stop_at 10 end-stepping-range work '[0-9]+' &&
	stop_at 12 signal-received check "$(ln 'the fault')" && ! grep -q 'diverged' mi.out; then
	pass "MI: -list-target-features says reverse; -exec-continue, -next, -finish, -step --reverse from a crash land as the CLI's do"
else
	fail "MI reverse: $(grep -E '^@@|^\*stopped|\^error' mi.out | cut -c1-120 | tr '\n' ' ')"
fi
# The small ones (issue 28, item 6). bt at a deadlock's stop starts at the program's
# frame (the runtime's frames of the stop are left out, as for a switched-out thread).
timeout 120 "$RGDB" ./always_deadlock deadlock.bin -batch -nx -ex run -ex 'echo @@BT\n' -ex bt >bt.out 2>&1
first=$(sed -n '/^@@BT$/,$p' bt.out | grep -m1 '^#')
echo "$first" | grep -Eq '^#[0-9]+ .* main \(\) at .*always_deadlock\.c:[0-9]+$' &&
	pass "bt at a deadlock's stop: the program's frame first ($first)" || fail "bt at a deadlock: $first"
# replay stop-at before run: kept, checked against the log when the program starts (one
# the recording never reaches is said and deleted), taken.
timeout 120 "$RGDB" ./ends segv.bin -batch -nx -ex 'replay stop-at 2 1000' -ex 'replay stop-at 2 999999999' \
	-ex run -ex 'print $rcount(2)' -ex 'replay stop-at' >early.out 2>&1
grep -q '^stop 1: will stop when green thread 2 reaches count 1000 (run starts the replay)$' early.out &&
	grep -q '^replay stop-at: green thread 2 ends at count [0-9]* in the recording: it never reaches 999999999 (stop 2 deleted)$' early.out &&
	grep -q '^replay: green thread 2 reached count 1000$' early.out && grep -qx '\$1 = 1000' early.out &&
	grep -qx 'No stops requested.' early.out &&
	pass "replay stop-at before run: kept, checked against the log at the start, taken" ||
	fail "replay stop-at before run: $(grep -v '^\[' early.out | grep -E 'stop|count|\$1' | head -n 5 | tr '\n' ' ')"
# A replay whose time goes into the C library (a few hundred counts in all) gets its
# checkpoints through the replay, by CPU time, once the extension has seen that time
# pass with no tick (it kept only the one at main: ticks came every 65536 counts). Every
# 0.04 s: the replay to count 290 takes about 0.3 s here, and at every 0.1 s two of
# four runs of this file made only one checkpoint before it (CPU time varies).
if "$SICC" -O1 -g -o foreign "$P/foreign.c" && ./foreign --record foreign.bin >foreign.rec 2>&1; then
	timeout 120 "$RGDB" ./foreign foreign.bin -batch -nx -ex 'replay checkpoints every 0.04' -ex 'break exit' -ex run \
		-ex 'replay goto 1:150' -ex 'replay goto 1:290' -ex 'replay checkpoints' >foreign.out 2>&1
	n=$(grep -Ec '^  [0-9]+ +[1-9][0-9]* +-?[0-9.]+ ' foreign.out)
	[ "$n" -ge 2 ] && pass "a replay in the C library: $n checkpoints after main's, by CPU time" ||
		fail "a replay in the C library: $n checkpoints after main's: $(grep -A5 '^  Num' foreign.out | tr '\n' ' ')"
else
	fail "foreign: build or recording"
fi
# Mutexes in the heap, in info rthreads: by the program's pointer that holds them (they
# were addresses only).
if "$SICC" -O1 -g -o heap_mutex "$P/heap_mutex.c" && { ./heap_mutex --record heap_mutex.bin >/dev/null 2>&1; [ $? -eq 87 ]; }; then
	timeout 120 "$RGDB" ./heap_mutex heap_mutex.bin -batch -nx -ex run -ex 'info rthreads' >heap_mutex.out 2>&1
	grep -Eq '^ +waits for thread 2 to exit; holds mutex \*other$' heap_mutex.out &&
		grep -Eq '^ +waits for mutex \*other held by thread 1; holds mutex jobs->lock$' heap_mutex.out &&
		pass "info rthreads names a heap mutex by its pointer (*other, jobs->lock)" ||
		fail "heap mutexes: $(grep -E 'waits|holds' heap_mutex.out | tr '\n' ' ')"
else
	fail "heap_mutex: build, or the recording did not deadlock"
fi
# run with a redirection (new arguments) inside replay-gdb still replays the log.
timeout 120 "$RGDB" ./ends segv.bin -batch -nx -ex 'run >/dev/null' -ex 'replay status' >runargs.out 2>&1
grep -q '^replaying segv.bin: ' runargs.out && grep -q '^Program received signal SIGSEGV' runargs.out &&
	pass "run >/dev/null inside replay-gdb replays the log (--replay kept)" ||
	fail "run >/dev/null: $(grep -v '^\[' runargs.out | tail -n 3 | tr '\n' ' ')"
summary
