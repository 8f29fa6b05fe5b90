#!/bin/bash
# gdb on a replay, rr style: each test is a short gdb session over `gdb -batch -nx`
# with libreplay's extension loaded the way users get it (replay-gdb, or the
# installed gdbinit hook), sending commands and checking what gdb printed. The
# program's output under gdb must equal the recording's.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/gdb/progs"
RGDB="$ROOT/build/bin/replay-gdb"
cd "$WORK" || exit 1

"$SICC" -O1 -g -o racy "$P/racy.c" && "$SICC" -O1 -g -o segv "$P/segv.c" &&
	"$SICC" -O1 -g -o inlined "$P/inlined.c" ||
	{ fail "build"; summary; exit 1; }
# Several checks look at every green thread early on (info rthreads, rthread apply):
# they want main to have created its three workers before its first preemption. A
# tick inside main's creation loop (1 recording in ~20 on this machine) leaves workers
# unstarted at the first stops: record again then. The step checks stop 4 counts
# before the first preemption of a worker: record again too when it comes earlier (a
# tick deferred to a worker's count 3, in its first lock, left 'replay stop-at 2 -1'
# once in 23 suite runs under load).
for try in 1 2 3 4 5; do
	./racy --record racy.bin --quantum 100us >racy.rec 2>&1
	first=$("$ROOT/build/bin/replay-dump" --json racy.bin racy | python3 -c '
import json, sys
r = next((r for r in json.load(sys.stdin)["records"] if r.get("kind") == "PREEMPT"), None)
print("%d %d" % (r["tid"], r["count"]) if r else "0 0")')
	[ "${first% *}" != 1 ] && [ "${first#* }" -ge 5 ] && break
done
# rgdb OUT GDB-ARGS...: replay racy.bin under gdb, transcript in OUT.
rgdb() { local out=$1; shift; timeout 600 "$RGDB" ./racy racy.bin -batch -nx "$@" >"$out" 2>&1; }
# same_output NAME OUT: the program's line in the transcript is the recording's.
same_output() { grep -qxF "$(cat racy.rec)" "$2" && grep -q "exited normally" "$2"; }
# expect NAME OUT PATTERN...: every extended regex matches a line of OUT.
expect() {
	local name=$1 out=$2; shift 2
	for p in "$@"; do
		grep -Eq -- "$p" "$out" || { fail "$name: no /$p/ in: $(grep -v '^\[' "$out" | tail -n 4 | tr '\n' ' ')"; return 1; }
	done
	pass "$name"
}

# Our signals stay silent: no stop, no "Program received signal", and gdb's
# settings say so.
rgdb quiet.out -ex 'info signals SIGPROF' -ex 'info signals SIG41' -ex run
if grep -q "Program received signal" quiet.out; then fail "replay signals: gdb reported one"
else expect "replay runs under gdb silently" quiet.out '^SIGPROF[[:space:]]+No[[:space:]]+No[[:space:]]+Yes' '^SIG41[[:space:]]+No[[:space:]]+No[[:space:]]+Yes' \
	"^$(cat racy.rec)\$" 'exited normally'; fi

# next over a preemption inside an inlined function: gdb single-steps there, so the
# step can end in the counter's stub (no line there) or, when the replay's breakpoint
# signal arrives during the step, in our handler (gdb's own stop line shows it); the
# extension's hookpost goes on and the step ends in the program. Stop a count
# before a logged preemption of thread 2 in work, then next until it is consumed
# (one at count 10 or more: a tick deferred to thread 2's first counting point, count
# 1, left 'replay stop-at 2 0' once in ~12 suite runs under load).
./inlined --record inl.bin --quantum 100us >inl.rec 2>&1
inl=$("$ROOT/build/bin/replay-dump" --json inl.bin inlined | python3 -c '
import json, sys
for r in json.load(sys.stdin)["records"]:
    if r.get("kind") == "PREEMPT" and r.get("tid") == 2 and r["count"] >= 10:
        print(r["count"]); break')
if [ -z "$inl" ]; then fail "next in an inlined function: no preemption of thread 2 in the log"
else
	inl_session=(-ex 'break work' -ex run -ex delete -ex "replay stop-at 2 $((inl - 1))" -ex continue)
	for n in 1 2 3 4 5 6; do inl_session+=(-ex next); done
	inl_session+=(-ex 'info line *$pc' -ex 'print $rcount(2)' -ex 'replay status' -ex continue)
	timeout 600 "$RGDB" ./inlined inl.bin -batch -nx "${inl_session[@]}" >inl.out 2>&1
	if ! grep -qxF "$(cat inl.rec)" inl.out || ! grep -q "exited normally" inl.out; then
		fail "next in an inlined function: the program did not end as recorded: $(grep -v '^\[' inl.out | tail -n 3 | tr '\n' ' ')"
	elif grep -q "Single stepping until exit\|in the instruction counter's stub" inl.out; then
		fail "next in an inlined function: a step ended in a counter stub or our handler: $(grep -m1 "Single stepping\|counter's stub" inl.out)"
	elif ! grep -Eq '^Line [0-9]+ of ".*inlined\.c"' inl.out; then
		fail "next in an inlined function: the steps did not end in the program: $(grep -E '^Line|^No line' inl.out)"
	elif ! grep -q "records done" inl.out || [ "$(sed -n 's/^\$1 = //p' inl.out)" -le "$inl" ]; then
		fail "next in an inlined function: thread 2 did not get past its preemption: $(grep -v '^\[' inl.out | tail -n 4 | tr '\n' ' ')"
	else pass "next over a preemption in an inlined function steps on in the program"; fi
fi

# A breakpoint in the racy function, several continues: every stop sees the same
# state in two sessions, and the program ends as recorded.
session=(-ex 'break racy.c:14' -ex run)
for n in 1 2 3 4; do session+=(-ex 'continue 3000' -ex 'print total' -ex 'print $rcount(2) + $rcount(3) + $rcount(4)'); done
session+=(-ex delete -ex continue)
rgdb brk1.out "${session[@]}"
rgdb brk2.out "${session[@]}"
if ! same_output x brk1.out; then fail "breakpoint in bump: output differs: $(tail -n 3 brk1.out | tr '\n' ' ')"
elif [ "$(grep -c '^\$' brk1.out)" -ne 8 ]; then fail "breakpoint in bump: $(grep -c '^\$' brk1.out) values printed, want 8"
elif ! cmp -s <(grep -E '^(\$|Breakpoint)' brk1.out) <(grep -E '^(\$|Breakpoint)' brk2.out); then
	fail "breakpoint in bump: two sessions saw different values"
else pass "breakpoint in bump, 4 x continue 3000: identical stops in two sessions, recorded output"; fi

# info rthreads, and bt/info locals on another green thread; continue while looking
# at it (the real registers must come back first).
rgdb rth.out -ex 'break racy.c:14' -ex run -ex 'continue 5000' -ex 'info rthreads' \
	-ex 'rthread 1' -ex bt -ex 'info locals' -ex 'info rthreads' -ex continue -ex 'rthread 1' \
	-ex 'rthread' -ex delete -ex continue
expect "info rthreads lists every green thread" rth.out \
	'^  Id +State +Count +Where' '^  1 +blocked \(join\) +[0-9]+ +main at .*racy\.c:3[0-9]' \
	'^\* [234] +running +[0-9]+ +bump at .*racy\.c:14' '^  [234] +runnable +[0-9]+ '
expect "rthread 1: bt and info locals on main's stack" rth.out \
	'^\[looking at green thread 1\]' '^#[0-9]+ +0x[0-9a-f]+ in main \(\) at .*racy\.c:3[0-9]' \
	'^t = \{' '^> 1 +blocked'
same_output x rth.out && [ "$(grep -c '^Breakpoint 1, bump' rth.out)" -eq 3 ] &&
	pass "continue while looking at green thread 1 resumes the real thread" ||
	fail "continue while switched: $(grep -v '^\[' rth.out | tail -n 3 | tr '\n' ' ')"

# The story between stops: a continue that let other green threads run says which
# and how many preemptions passed (the log's PREEMPT records between the two stops);
# bt of a preempted green thread starts at the program's interrupted frame and ends
# at its thread function (the runtime's frames are filtered; bt -no-filters has
# them); continue while looking at one says the schedule decides. The stop in
# thread 4 is asked by its count, which the runtime decides: gdb evaluating
# `id == 3` at every call of bump until thread 4's first (some 30,000 stops of
# threads 2 and 3) took 106 s of a 180 s suite run under load 9, 72 s alone.
rgdb story.out -ex 'break racy.c:14' -ex run -ex delete -ex 'replay status' -ex 'break racy.c:14 if $rcount(4) > 0' \
	-ex continue -ex 'replay status' -ex 'info rthreads' -ex 'rthread 2' -ex bt -ex 'bt -no-filters' \
	-ex delete -ex continue
"$ROOT/build/bin/replay-dump" --json racy.bin racy >racy.json
story_check() {
	python3 - story.out racy.json <<'EOF'
import json, re, sys
out = open(sys.argv[1]).read()
recs = json.load(open(sys.argv[2]))["records"]
done = [int(x) for x in re.findall(r"^replaying racy\.bin: (\d+) of \d+ records done", out, re.M)]
m = re.search(r"^\[green threads? ([0-9, ]+) ran; (\d+) preemptions? passed; now in thread (\d+)\]$", out, re.M)
assert len(done) == 2 and m, "no announcement after the continue"
ran = [int(t) for t in m.group(1).split(", ")]
want = sum(1 for r in recs[done[0]:done[1]] if r["kind"] == "PREEMPT")
assert int(m.group(2)) == want, "announced %s preemptions, the log has %d" % (m.group(2), want)
assert 2 not in ran and int(m.group(3)) in ran, "ran %s, now %s" % (ran, m.group(3))
# green thread 2 was preempted: its filtered bt starts at work, the unfiltered one
# at the scheduler's switch, through the signal frame
bt = out.split("[looking at green thread 2]")[1]
filtered, full = bt.split("\n#0 ", 1)
frames = re.findall(r"^#\d+ .*", filtered, re.M)
assert frames and all(re.match(r"#\d+ +(0x[0-9a-f]+ in )?(work|bump) \(.*racy\.c:\d+$", f) for f in frames), frames
# (stopped by the replay's breakpoint, a signal frame; at the counter's overflow, the
# runtime's frames without one: either way the runtime's frames are there)
assert "sched_switch" in full.split("\n")[0] and "pt_start" in full
assert "<signal handler called>" in full or re.search(r"^#\d+ .*\b(rp_|__sic_)\w*", full, re.M), full
EOF
}
check "after a continue, one line says which green threads ran and how many preemptions passed (the log's)" story_check
expect "bt of a preempted green thread shows the program's frames only; bt -no-filters all" story.out \
	'^#[0-9]+ +(0x[0-9a-f]+ in )?work \(arg=0x1\) at .*racy\.c:' '^#0  sched_switch \(\)' '^#[0-9]+ +(<signal handler called>|0x[0-9a-f]+ in (rp_|__sic_))'
same_output x story.out && grep -q '^libreplay: continue resumes green thread [0-9], the running one: green thread 2 runs when the recorded schedule says' story.out &&
	pass "continue while looking at a green thread says the schedule decides; the program ends as recorded" ||
	fail "continue after rthread 2: $(grep -v '^\[' story.out | tail -n 3 | tr '\n' ' ')"

# Stop at (thread, count): thread 3 has not started yet when it is asked.
rgdb stop.out -ex 'break work' -ex run -ex delete -ex 'replay stop-at 3 50000' -ex 'replay status' \
	-ex continue -ex 'print $rcount(3)' -ex 'info rthreads' -ex 'replay stop-at 3 10' \
	-ex 'replay stop-at 3 60001' -ex next -ex continue -ex 'print $rcount(3)' -ex continue
expect "replay stop-at 3 50000: stops in the program with count exactly 50000" stop.out \
	'^stop 1: green thread 3 at count 50000' '^replay: green thread 3 reached count 50000' \
	'^#0 .* in work \(arg=.*\) at .*racy\.c:[0-9]+' '^\$1 = 50000$' '^\* 3 +running +50000 +work at' \
	'Green thread 3 is at count 50000 already' '^replay: green thread 3 reached count 60001' \
	'^\$2 = 60001$'
same_output x stop.out && pass "after two stop-at stops the program ends as recorded" ||
	fail "stop-at: output differs: $(tail -n 3 stop.out | tr '\n' ' ')"

# Stop-at on the running thread, asked at its entry check in work (where %r15 is
# still its caller's) and again in bump: its live counter is reloaded.
rgdb run.out -ex 'break work' -ex run -ex delete -ex 'set $want = $rcount(2) + 777' \
	-ex 'eval "replay stop-at 2 %d", $want' -ex continue -ex 'print $rcount(2) - $want' \
	-ex 'break bump' -ex continue -ex delete -ex 'set $want = $rcount(2) + 123456' \
	-ex 'eval "replay stop-at 2 %d", $want' -ex continue -ex 'print $rcount(2) - $want' -ex continue
expect "replay stop-at on the running thread stops at exactly its count" run.out \
	'^replay: green thread 2 reached count [0-9]+' '^\$1 = 0$' '^\$2 = 0$'
same_output x run.out && pass "stop-at on the running thread keeps the replay exact" ||
	fail "stop-at on the running thread: $(grep -v '^\[' run.out | tail -n 3 | tr '\n' ' ')"

# rthread apply: a command on each green thread, back to the running one after. The
# breakpoint's condition keeps the stop in thread 2 whatever the recorded schedule
# (one recording preempted thread 2 after 1934 counts: the 4001st stop was thread 3's);
# 40 stops, not 4000: each other thread's call to bump is a stop gdb must resume.
rgdb apply.out -ex 'break racy.c:14 if id == 1' -ex run -ex 'continue 40' -ex 'rthread apply all bt 1' \
	-ex 'info rthreads' -ex delete -ex continue
expect "rthread apply all bt 1" apply.out '^Green thread 1:' '^Green thread 4:' '^#0 +bump \(id=(id@entry=)?1\)' \
	'^\* 2 +running'
same_output x apply.out || fail "rthread apply: output differs"

# Count conditions are decided by the runtime: while `$rcount(3) > 100000` cannot
# hold, the breakpoint is out and gdb never stops at it; the runtime stops where thread
# 3's count enters the window. Tens of thousands of passes go by with gdb evaluating
# the condition at the one stop only ($rcount's calls are counted), whatever the
# schedule (an iteration is 4 counts: thread 3 alone passes 25,000 times before it),
# and the stop is the one a condition gdb evaluates at every pass finds (`+ 0` keeps
# it from the runtime).
"$SICC" -O1 -g -o passes "$P/passes.c" && ./passes --record passes.bin --quantum 100us >passes.rec 2>&1
pgdb() { local out=$1; shift; timeout 600 "$RGDB" ./passes passes.bin -batch -nx "$@" >"$out" 2>&1; }
pgdb cond.out -ex 'break passes.c:11 if $rcount(3) > 100000' -ex run -ex 'print passes' \
	-ex 'python print("rcount calls: %d" % Rcount.calls)' -ex 'print $rcount(3)' -ex 'info breakpoints' -ex delete -ex continue
passes=$(sed -n 's/^\$1 = //p' cond.out) calls=$(sed -n 's/^rcount calls: //p' cond.out)
if ! grep -qxF "$(cat passes.rec)" cond.out; then fail "count condition: the program did not end as recorded: $(tail -n 3 cond.out | tr '\n' ' ')"
elif [ -z "$passes" ] || [ "$passes" -lt 10000 ] || [ "$calls" != 1 ]; then
	fail "count condition: $passes passes before the stop (want >= 10000), gdb evaluated \$rcount $calls times (want 1)"
elif ! grep -Eq '^\$2 = 10000[1-9]$' cond.out || ! grep -Eq '^1 +breakpoint +keep y ' cond.out; then
	fail "count condition: stopped with \$rcount(3) $(sed -n 's/^\$2 = //p' cond.out), or the breakpoint is not shown enabled"
else pass "break if \$rcount(3) > 100000: $passes passes went by, gdb evaluated the condition once, at the stop"; fi
# the same stops as a condition gdb evaluates at every pass: a window, a reversed term
# and a conjunction with a term of the program's
# (8 of the window's ~20 stops, then kill: gdb's own evaluation is slow at every pass)
win=(-ex run)
for n in 1 2 3 4 5 6 7 8; do win+=(-ex 'print $rcount(2) * 1000000 + passes' -ex continue); done
win+=(-ex 'print $rcount(2) * 1000000 + passes' -ex kill)
pgdb win.out -ex 'break passes.c:11 if 300 < $rcount(2) && $rcount(2) <= 340 && id == 1' "${win[@]}"
pgdb win0.out -ex 'break passes.c:11 if 300 < $rcount(2) + 0 && $rcount(2) + 0 <= 340 && id == 1' "${win[@]}"
stops=$(grep -c '^\$[0-9]* = ' win.out)
if [ "$stops" -ne 9 ] || ! cmp -s <(grep '^\$' win.out) <(grep '^\$' win0.out); then
	fail "count window: $stops stops; the runtime's and gdb's evaluation differ: $(diff <(grep '^\$' win.out) <(grep '^\$' win0.out) | head -n 4 | tr '\n' ' ')"
else pass "a count window (300 < \$rcount(2) <= 340 && id == 1): the same $stops stops as gdb's own evaluation"; fi
# a conditional watchpoint, gated the same way
pgdb watch.out -ex 'break work' -ex run -ex delete -ex 'watch passes if $rcount(3) > 1000' -ex continue \
	-ex 'python print("rcount calls: %d" % Rcount.calls)' -ex 'print $rcount(3)' -ex delete -ex continue
expect "watch passes if \$rcount(3) > 1000: stops at the first change after the count, gdb evaluating it once" watch.out \
	'^Hardware watchpoint [0-9]+: passes' '^Old value = [0-9]+' '^\$1 = 100[1-9]$' '^rcount calls: 1$' "^$(cat passes.rec)\$"

# The documented example at -O1 (debugging.md): a line in the loop gcc inlined
# transfer() into, with a count condition, stops in transfer once the count is past.
"$SICC" -O1 -g -o heisenbug "$ROOT/examples/heisenbug.c" && { ./heisenbug --record hb.bin >/dev/null 2>&1; true; }
timeout 300 "$RGDB" ./heisenbug hb.bin -batch -nx -ex 'break heisenbug.c:15 if $rcount(3) > 1000' -ex run \
	-ex 'print $rcount(3)' -ex kill >hb.out 2>&1
expect "break heisenbug.c:15 if \$rcount(3) > 1000 at -O1 stops in the inlined transfer, just past the count" hb.out \
	'^Breakpoint 1, transfer \(.*\) at .*heisenbug\.c:15$' '^\$1 = 100[1-4]$'

# replay stop-at checks thread and count against the log; several stops at once,
# listed, deleted; each stops once, at its count.
pgdb stops.out -ex 'break work' -ex run -ex delete -ex 'replay stop-at 9 100' -ex 'replay stop-at 3 99999999' \
	-ex 'replay stop-at 3 2000' -ex 'replay stop-at 2 5000' -ex 'replay stop-at 4 3000' -ex 'replay stop-at' \
	-ex 'replay stop-at delete 3' -ex 'replay status' -ex continue -ex 'print $rcount(2)' -ex 'print $rcount(3)' \
	-ex continue -ex 'print $rcount(2)' -ex 'print $rcount(3)' -ex 'replay stop-at' -ex continue
expect "replay stop-at: a thread the recording does not have, a count past its end: one line each" stops.out \
	'^replay stop-at: the recording has no green thread 9 \(it has 1, 2, 3, 4\)$' \
	'^replay stop-at: green thread 3 ends at count [0-9]+ in the recording: it never reaches 99999999$'
expect "replay stop-at: three stops set, listed, one deleted, the other two taken in turn" stops.out \
	'^stop 1: will stop when green thread 3 reaches count 2000' '^stop 3: will stop when green thread 4 reaches count 3000' \
	'^stop 2: green thread 2 at count 5000$' '^replay: green thread 2 reached count 5000$' \
	'^replay: green thread 3 reached count 2000$' '^No stops requested\.$' "^$(cat passes.rec)\$"
# which comes first is the schedule's: at each stop its thread is at its count
v=($(sed -n 's/^\$[1-4] = //p' stops.out))
if ! { [ "${v[0]:-}" = 5000 ] && [ "${v[3]:-}" = 2000 ]; } && ! { [ "${v[1]:-}" = 2000 ] && [ "${v[2]:-}" = 5000 ]; }; then
	fail "replay stop-at: at the two stops, \$rcount(2) and \$rcount(3) were ${v[*]:-none}"
fi
if grep -q 'green thread 4 reached' stops.out; then fail "replay stop-at: the deleted stop was taken"; fi

# Recording under gdb: the time slice signal is silent too, and the log replays.
timeout 300 gdb -batch -nx -iex "source $ROOT/build/share/libreplay/gdb/libreplay.py" -ex run \
	--args ./racy --record undergdb.bin --quantum 100us >undergdb.out 2>&1
./racy --replay undergdb.bin >undergdb.rep 2>&1
if grep -q "Program received signal" undergdb.out; then fail "recording under gdb: a signal stopped gdb"
elif ! grep -qxF "$(cat undergdb.rep)" undergdb.out; then fail "recording under gdb: replay printed $(cat undergdb.rep)"
else pass "recording under gdb is silent and replays to the same output"; fi

# A user breakpoint exactly where the replay's trap is armed: stop at the count
# before a logged preemption, break on its pc, continue to it.
rgdb st.out -ex 'break work' -ex run -ex 'replay status'
pre=$(sed -n 's/^next preemption: record [0-9]* of [0-9]*: thread \([0-9]*\) at count \([0-9]*\), pc \(0x[0-9a-f]*\).*/\1 \2 \3/p' st.out)
if [ -z "$pre" ]; then fail "trap address: replay status named no preemption: $(tail -n 3 st.out | tr '\n' ' ')"
else
	set -- $pre
	rgdb trap.out -ex 'break work' -ex run -ex delete -ex "replay stop-at $1 $(($2 - 1))" -ex continue \
		-ex "break *$3" -ex continue \
		-ex "python while gdb.parse_and_eval('\$rcount($1)') < $2: gdb.execute('continue')" \
		-ex 'print $pc' -ex "print \$rcount($1)" -ex 'replay status' -ex 'printf "bp mode %d\n", (int)rp_bp_mode' \
		-ex delete -ex continue
	expect "a breakpoint on the armed trap's pc stops there at the logged count" trap.out \
		"^Breakpoint [0-9]+, (0x0*${3#0x} in )?(work|bump) " "^\\\$[0-9]+ = \\(void \\(\\*\\)\\(\\)\\) $3 " "^\\\$[0-9]+ = $2\$"
	# With the hardware breakpoint the trap's record is consumed at that stop (the debug
	# register fires before gdb's int3): one more record done than at the start. With
	# the software trap (rp_bp_mode 2) gdb's breakpoint comes first and the trap is
	# taken when the program resumes (docs/gdb.md): none more.
	done0=$(sed -n 's/^replaying .*: \([0-9]*\) of [0-9]* records done$/\1/p' st.out | head -n 1)
	more=1
	grep -q '^bp mode 2$' trap.out && more=0
	same_output x trap.out && grep -q "^replaying .*: $((done0 + more)) of [0-9]* records done$" trap.out &&
		pass "the replay takes the trap after the user's breakpoint and ends as recorded" ||
		fail "trap address: $(grep -v '^\[' trap.out | tail -n 4 | tr '\n' ' ')"
fi

# next, step and finish across a logged preemption: stop a few counts before it,
# step over it (the replay goes on: a record is consumed), into bump and out again;
# the program ends as recorded. The nexts go on until the thread's count is past the
# preemption's (at most 40): how many lines that takes depends on where sicpp counts.
# finish returns to line 22 (mid-line) when a reload follows the call, else to line 23's
# first instruction, as in gcc's build; gdb shows bump's id as id@entry=1 in gcc's build too.
if [ -n "$pre" ]; then
	set -- $pre
	rgdb step.out -ex 'break work' -ex run -ex delete -ex "replay stop-at $1 $(($2 - 4))" -ex continue \
		-ex "python [gdb.execute('next') for _ in range(40) if gdb.parse_and_eval('\$rcount($1)') <= $2]" \
		-ex 'replay status' \
		-ex 'maint info breakpoints' -ex 'print rp_debug' \
		-ex 'break racy.c:22' -ex continue -ex delete -ex step -ex step -ex finish -ex next -ex continue
	expect "next across a preemption, step into bump, finish" step.out \
		'^replaying racy.bin: [1-9][0-9]* of [0-9]+ records done' '^bump \(id=(id@entry=)?[0-9]\) at .*racy\.c:14$' \
		'^15	' '^(0x[0-9a-f]+ in )?work \(arg=0x[0-9]\) at .*racy\.c:2[23]$'
	# The step went through the runtime's stops (debug.c), not through gdb's breakpoint
	# at the interrupted pc that every thread runs (a minute of stops), and left no
	# request behind.
	if grep -A1 ' in rp_debug_preempting at ' step.out | grep -q 'already hit [1-9]' &&
		grep -A1 ' in rp_debug_resumed at ' step.out | grep -q 'already hit [1-9]' &&
		grep -Eq 'step_tid = 0, resume_tid = 0[,}]' step.out; then
		pass "the next across the preemption stopped in rp_debug_preempting and rp_debug_resumed"
	else
		fail "next across a preemption: the runtime's step stops were not used: $(grep -A1 'rp_debug_pre\|rp_debug_res\|step_tid' step.out | tr '\n' ' ' | head -c 300)"
	fi
	same_output x step.out && pass "the program ends as recorded after stepping" ||
		fail "stepping: $(grep -v '^\[' step.out | tail -n 3 | tr '\n' ' ')"
fi

# The same when the logged preemption is where a counting point's stub resumes (its
# counter ran out on the preemption's count): a timer tick lands there now and then
# (1 recording in ~40 of racy.c), every preemption of LIBREPLAY_SIC_STRESS=N,preempt
# does. A next ends in the stub; going back to the program, the thread is preempted
# at once: the runtime's stops take it, not a breakpoint of gdb's on a pc of the loop
# every other thread runs through (22 s of stops before; CI's one failure, once). Two
# counts before it: a pass of work's loop counts once, at its call of bump (a leaf, at
# its direct entry), and the nexts go through about three passes.
LIBREPLAY_SIC_STRESS=50000,preempt ./racy --record stub.bin >stub.rec 2>&1
rgdb_stub() { timeout 600 "$RGDB" ./racy stub.bin -batch -nx "$@" >stubstep.out 2>&1; }
rgdb_stub -ex 'break work' -ex run -ex delete -ex 'replay stop-at 2 49998' -ex continue \
	-ex next -ex next -ex next -ex next -ex next -ex next -ex next -ex next -ex 'replay status' -ex 'maint info breakpoints' \
	-ex 'print rp_debug' -ex continue
if ! grep -q ' in work\.sic_stub ' stubstep.out; then
	fail "next into a stub at a preemption: no next ended in the stub: $(grep -v '^\[' stubstep.out | head -n 12 | tail -n 6 | tr '\n' ' ')"
elif ! grep -A1 ' in rp_debug_preempting at ' stubstep.out | grep -q 'already hit [1-9]' ||
	! grep -A1 ' in rp_debug_resumed at ' stubstep.out | grep -q 'already hit [1-9]'; then
	fail "next into a stub at a preemption: the runtime's step stops were not used"
elif ! grep -qxF "$(cat stub.rec)" stubstep.out || ! grep -q "exited normally" stubstep.out; then
	fail "next into a stub at a preemption: $(grep -v '^\[' stubstep.out | tail -n 3 | tr '\n' ' ')"
else pass "a next that ends in a stub whose thread is preempted where it resumes goes on through the runtime's stops"; fi

# Stopped inside a counting point's stub (a breakpoint on its entry, then a stepi to
# the next entry of its run): r15 there is 0 at the jump and one less an entry, the
# counter is 0 and the thread's count is the preemption's the counter ran out for, not
# one computed from __sic_home (published at the last call out: one less, 49999).
stubs=(); for s in $(nm racy | sed -n 's/^[0-9a-f]* t \(\(work\|bump\)\.sic_stub\.[0-9]*\)$/\1/p'); do stubs+=(-ex "break *'$s'"); done
rgdb_stub -ex 'break work' -ex run -ex delete -ex 'replay stop-at 2 49998' -ex continue -ex 'replay status' \
	"${stubs[@]}" -ex continue -ex 'info rthreads' -ex delete -ex stepi -ex 'info registers r15' -ex 'info rthreads' -ex kill
want=$(sed -n 's/^next preemption: record [0-9]* of [0-9]*: thread 2 at count \([0-9]*\),.*/\1/p' stubstep.out | head -n 1)
counts=$(sed -n 's/^\* 2 *running *\([0-9]*\) .*/\1/p' stubstep.out | tr '\n' ' ')
if [ ${#stubs[@]} -eq 0 ] || [ -z "$want" ] || ! grep -q ' in work\.sic_stub ()' stubstep.out; then
	fail "info rthreads in a stub: no stop in work's stubs ($((${#stubs[@]} / 2)) breakpoints): $(grep -v '^\[' stubstep.out | tail -n 4 | tr '\n' ' ')"
elif ! grep -Eq '^r15 +0xffffffffffffffff ' stubstep.out; then
	fail "info rthreads in a stub: the stepi did not end on the run's next entry (r15 -1): $(grep -A1 '^r15' stubstep.out | tr '\n' ' ')"
elif [ "$counts" != "$want $want " ]; then
	fail "info rthreads in a stub: thread 2's count at the stub's entry and one entry on is '$counts', not the preemption's $want"
else pass "info rthreads in a counting point's stub, at its entry and one on: the preemption's count ($want), not __sic_home's"; fi

# Where a stub is, in a run of stubs that several functions share: the function its
# counting point goes back to, not the nearest entry's (another function's). A stop
# at second's entry entered from the one before it (r15 -1), a stepi to the next.
"$SICC" -O2 -g -o stub_run "$ROOT/tests/tools/progs/stub_run.c" &&
	LIBREPLAY_SIC_STRESS=1000,preempt ./stub_run --record sr.bin >sr.rec 2>&1
read -r at entry < <(nm stub_run | sed -n 's/^\([0-9a-f]*\) t \(second\.sic_stub\.[0-9]*\)$/\1 \2/p')
before=$(nm stub_run | awk -v a="$(printf %016x $((16#${at:-0} - 3)))" '$1 == a && $3 ~ /\.sic_stub\./ { sub(/\.sic_stub\..*/, "", $3); print $3 }')
timeout 600 "$RGDB" ./stub_run sr.bin -batch -nx -ex "break *'$entry' if \$r15 == -1" -ex run -ex delete -ex stepi \
	-ex 'info rthreads' -ex kill >srgdb.out 2>&1
if [ -z "$before" ]; then fail "a shared stub run under gdb: no entry before second's in stub_run's run"
else expect "a shared stub run under gdb: the stop and info rthreads name $before, whose counting point jumped in" srgdb.out \
	"^libreplay: in the instruction counter's stub of $before at .*stub_run\.c:[0-9]+; " \
	"^\* 1 +running +[0-9]+ +$before at .*stub_run\.c:[0-9]+\$"; fi

# A hardware watchpoint on the shared variable, next to the replay's breakpoint.
wsession=(-ex 'break bump' -ex run -ex delete -ex 'watch total' -ex continue -ex continue -ex continue
	-ex 'replay stop-at 2 300000' -ex continue -ex continue -ex delete -ex continue -ex continue)
rgdb w1.out "${wsession[@]}"
rgdb w2.out "${wsession[@]}"
expect "watch total: hardware watchpoint stops with old and new values" w1.out \
	'^Hardware watchpoint [0-9]+: total' '^Old value = [0-9]+' '^New value = [0-9]+' \
	'^replay: green thread 2 reached count 300000'
if ! same_output x w1.out; then fail "watchpoint: output differs: $(tail -n 3 w1.out | tr '\n' ' ')"
elif ! cmp -s <(grep -E '^(Old|New) value' w1.out) <(grep -E '^(Old|New) value' w2.out); then
	fail "watchpoint: two sessions saw different values"
else pass "watchpoint: the same values in two sessions; the program ends as recorded"; fi

# A genuine SIGSEGV stops gdb at the faulting line, during replay.
(./segv --record segv.bin --quantum 100us >/dev/null 2>&1; true) 2>/dev/null
timeout 300 "$RGDB" ./segv segv.bin -batch -nx -ex run -ex 'bt 1' -ex 'info rthreads' \
	-ex continue -ex continue >segv.out 2>&1
expect "a SIGSEGV in the program stops gdb at the faulting line" segv.out \
	'^Program received signal SIGSEGV' '^#0 .* in work \(arg=0x0\) at .*segv\.c:16' \
	'^\* 2 +running +[0-9]+ +work at .*segv\.c:16'

expect "after the fault, the crash handler's own raise is named, then the program dies" segv.out \
	'^libreplay: the crash handler has finished the log and raised SIGSEGV again' \
	'^Program terminated with signal SIGSEGV'

# Zero setup: the hook `make install` puts in gdb's gdbinit.d loads the extension
# for a program linked with libreplay, and does nothing for other programs.
make -s -C "$ROOT" install PREFIX="$WORK/prefix" GDBINIT_DIR="$WORK/gdbinit.d" >install.out 2>&1
hook="$WORK/gdbinit.d/libreplay.py"
if [ ! -f "$hook" ]; then fail "install: no gdbinit.d hook: $(tail -n 2 install.out)"
else
	timeout 300 gdb -batch -nx -iex "source $hook" -ex run -ex 'info rthreads' \
		--args ./racy --replay racy.bin >zero.out 2>&1
	if grep -q "Program received signal" zero.out; then fail "gdbinit.d hook: a replay signal stopped gdb"
	else expect "gdbinit.d hook: plain gdb replays silently" zero.out "^$(cat racy.rec)\$" 'exited normally'; fi
	timeout 60 gdb -batch -nx -iex "source $hook" -ex 'info signals SIG41' -ex 'info rthreads' \
		--args /bin/true >other.out 2>&1
	expect "gdbinit.d hook: other programs are left alone" other.out '^SIG41[[:space:]]+Yes[[:space:]]+Yes[[:space:]]+Yes' \
		'Undefined info command: "rthreads"'
	timeout 60 "$WORK/prefix/bin/replay-gdb" ./racy racy.bin -batch -nx -ex run >inst.out 2>&1
	same_output x inst.out && pass "installed replay-gdb replays" || fail "installed replay-gdb: $(tail -n 2 inst.out)"
fi
check "replay-gdb without arguments: usage, exit 2" bash -c "'$RGDB' 2>&1 | grep -q '^usage: replay-gdb'; [ \${PIPESTATUS[0]} -eq 2 ]"
# Without a log: the program's latest recording (tests/logpath), here none.
check "replay-gdb PROGRAM without a log, none recorded: the runtime says where it looked" \
	bash -c "LIBREPLAY_DIR='$WORK/none' '$RGDB' ./racy -batch -nx -ex run 2>&1 | grep -q 'no recording of racy to replay in $WORK/none'"
summary
