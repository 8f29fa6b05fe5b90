#!/bin/bash
# replay-hunt, the runner (docs/tools.md): it finds failures, keeps only the failing
# runs' logs, tells outcomes apart (exit status, signal, deadlock, hang, the output
# predicate), kills hangs with all they started, runs --jobs at once, refuses bad
# flags in one line, and prints commands that replay and debug the first failure.
# Then the buggy programs of bugs/ (README.md): the hunting scheduler finds each bug
# within a bounded number of runs, each failure replays to the same outcome 3 times
# (the deadlocks under gdb too), and no bug-free version is reported failing.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
HUNT="$ROOT/build/bin/replay-hunt"
P="$ROOT/tests/hunt/progs"
cd "$WORK" || exit 1

"$SICC" -O2 -g -o oracle.sic "$P/oracle.c" >build.out 2>&1 || fail "oracle: sicc build: $(head -c 300 build.out)"
gcc -O2 -o oracle.gcc "$P/oracle.c" || fail "oracle: gcc build"
cp "$P/fake_runtime.sh" fake

# hunt ARGS...: run replay-hunt; its stdout in h.out, stderr in h.err, status in $rc.
hunt() {
	timeout 120 "$HUNT" "$@" >h.out 2>h.err
	rc=$?
}
field() { sed -n "s/^$1: //p" h.out; }
# has NAME EXTENDED-REGEX: pass if a line of h.out matches.
has() { if grep -Eq -e "$2" h.out; then pass "$1"; else fail "$1: no /$2/ in: $(head -c 600 h.out) $(head -c 200 h.err)"; fi; }

# ---- it finds failures and keeps only theirs ------------------------------------------
# Run I takes ticket I+1 (one job at a time); tickets 3 and 5 fail. An earlier hunt's
# directory is left as it is: this one's failures go to a new one, keep-2.
mkdir -p keep && touch keep/notes.txt keep/run-99.bin keep/run-7.out
hunt --runs 6 --jobs 1 --mode default --keep keep -- ./oracle.sic ticket tickets 3 5
check "finds the failures: exit 1" test "$rc" -eq 1
has "6 runs, 2 failures" '^runs: 6 .*mode default' && has "... 2 failures" '^failures: 2 \(2 non-zero exit\)$'
has "the first failing run is run 2" '^first failing run: 2: exit status 1$'
has "every failing run is listed" '^failed: run 4: exit status 1$'
check "only the failing runs' logs and output are kept, in a new directory" \
	test "$(cd keep-2 && ls | tr '\n' ' ')" = "run-2.bin run-2.err run-2.out run-4.bin run-4.err run-4.out "
check "... an earlier hunt's directory untouched" test "$(ls keep | tr '\n' ' ')" = "notes.txt run-7.out run-99.bin "
has "... and it says where" '^kept: the 2 failing runs in keep-2/ \(run-N\.bin, \.out, \.err\)$'
check "a kept run's output is its own" grep -qx 'ticket 5' keep-2/run-4.out
check "the kept log is a complete recording" bash -c "'$ROOT/build/bin/replay-dump' --summary keep-2/run-2.bin oracle.sic | grep -q 'the log is complete'"

rm -f tickets
hunt --runs 6 --jobs 1 --mode default --stop --keep keep -- ./oracle.sic ticket tickets 3 5
has "--stop: no run starts after the first failure" '^runs: 3 '
check "--stop: exit 1" test "$rc" -eq 1

hunt --runs 4 --mode default --keep keep -- ./oracle.sic exit 0
check "no failure: exit 0" test "$rc" -eq 0
has "no failure: failures: 0" '^failures: 0$'
check "no failure: nothing kept, no directory made" test ! -e keep-4
check "no failure: no first failing run" bash -c "! grep -q 'first failing' h.out"
check "stderr is quiet when it is not a terminal" test ! -s h.err

# ---- the printed commands replay and debug the first failure -------------------------
hunt --runs 2 --mode default --keep cmds -- ./oracle.sic exit 3
replay=$(field replay) debug=$(field debug)
check "the replay command is the program with --replay and the kept log" test "$replay" = "./oracle.sic --replay cmds/run-0.bin"
eval "$replay" >replay.out 2>replay.err
check "... and it replays the failure: exit 3, no divergence" test $? -eq 3 -a ! -s replay.err
eval "$debug -batch -nx -ex run" >gdb.out 2>&1
check "the debug command runs the replay under gdb to the same exit" grep -q 'exited with code 03' gdb.out

# ---- outcomes -----------------------------------------------------------------------
hunt --runs 1 --mode default -- ./oracle.sic signal 6
has "a signal is a failure, named" '^first failing run: 0: killed by SIGABRT$'
hunt --runs 1 --mode default -- ./oracle.sic exit 87
has "exit 87 is a deadlock" '^first failing run: 0: deadlock \(exit status 87\)$'
has "... counted as one" '^failures: 1 \(1 deadlock\)$'
hunt --runs 1 --mode default -- ./oracle.sic exit 88
has "exit 88 is a hang the runtime reported" '^first failing run: 0: hang \(exit status 88'
hunt --runs 1 --mode native -- ./oracle.gcc exit 87
has "a native program's 87 is its own exit status" '^first failing run: 0: exit status 87$'
has "a native run has no replay" '^replay: none'

# A hang: killed past the limit, with what it started (a forked child).
hunt --runs 2 --timeout 300ms --mode native -- ./oracle.gcc spin child.pid
has "a native hang is killed past --timeout" '^failures: 2 \(2 killed\)$'
state=$(ps -o stat= -p "$(cat child.pid)" 2>/dev/null)
check "... and so is the child it forked (state '$state')" test -z "$state" -o "${state:0:1}" = Z
if ./oracle.sic --replay-help | grep -q -- --timeout; then
	hunt --runs 1 --timeout 500ms --mode default -- ./oracle.sic spin
	has "a recorded hang: the runtime's --timeout ends it (88)" '^failures: 1 \(1 hang\)$'
else
	hunt --runs 1 --timeout 500ms --mode default -- ./oracle.sic spin
	has "a recorded hang (a runtime without --timeout): killed" '^failures: 1 \(1 killed\)$'
fi

# --timeout is the run's own time: the wall time less its waits for a CPU (the
# runtime's --timeout-own, and the runner's own kill likewise), so a run a loaded
# machine slows down is no hang. Four busy loops on CPU 0, the runs pinned there too:
# a run of ~0.3 s of work takes 1.5 s of wall time or more, and a wall-time --timeout
# of 1 s called it a hang (88; natively, killed).
if command -v taskset >/dev/null && ./oracle.sic --replay-help | grep -q -- --timeout-own; then
	hogs=""
	for i in 1 2 3 4; do
		taskset -c 0 bash -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	t0=$EPOCHREALTIME
	timeout 120 taskset -c 0 "$HUNT" --runs 2 --jobs 1 --timeout 1s --mode default -- ./oracle.sic work 600 >h.out 2>h.err
	wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) / 2 }')
	has "under load (4 busy loops on its CPU), a recorded run of ${wall} s is no hang at --timeout 1s" '^failures: 0$'
	timeout 120 taskset -c 0 "$HUNT" --runs 1 --jobs 1 --timeout 1s --mode native -- ./oracle.gcc work 600 >h.out 2>h.err
	has "... nor a native one (the runner's own kill counts its own time too)" '^failures: 0$'
	timeout 120 taskset -c 0 "$HUNT" --runs 1 --jobs 1 --timeout 1s --mode default -- ./oracle.sic spin >h.out 2>h.err
	has "... and a spin still is one, the runtime's (88)" '^failures: 1 \(1 hang\)$'
	kill $hogs
	wait $hogs 2>/dev/null
fi

# The output predicate, on stdout and stderr.
rm -f tickets
hunt --runs 5 --jobs 1 --mode default --fail-if '^ticket 4$' -- ./oracle.sic ticket tickets
has "--fail-if: the run whose output matches fails" '^first failing run: 3: output matched --fail-if$'
has "--fail-if: only that one" '^failures: 1 \(1 --fail-if\)$'
hunt --runs 3 --mode default --expect '^ticket [0-9]+$' -- ./oracle.sic ticket tickets
has "--expect: runs whose output matches pass" '^failures: 0$'
hunt --runs 3 --mode default --expect 'no such line' -- ./oracle.sic ticket tickets
has "--expect: runs whose output does not match fail" '^failures: 3 \(3 --expect\)$'
hunt --runs 1 --fail-if 'line on stderr' -- ./fake
has "--fail-if reads stderr too" '^failures: 1 \(1 --fail-if\)$'
# --exit-ok N: a program whose main returns N when it works (SCTBench's ctrace-test: 6).
hunt --runs 2 --mode default --exit-ok 6 --exit-ok 9 -- ./oracle.sic exit 6
has "--exit-ok 6 9: runs that exit 6 pass" '^failures: 0$'
check "--exit-ok: exit 0" test "$rc" -eq 0
hunt --runs 2 --mode default --exit-ok 6 -- ./oracle.sic exit 3
has "--exit-ok 6: runs that exit 3 still fail" '^failures: 2 \(2 non-zero exit\)$'

# ---- what each run is given ---------------------------------------------------------
hunt --runs 3 --jobs 1 --seed 5 --timeout 2s --keep k2 --fail-if . -- ./fake a 'b c'
check "hunt mode: --record DIR/run-I.bin --hunt=S+I --timeout=T -- ARGS" \
	test "$(cat k2/run-0.out k2/run-2.out)" = "args: --record k2/run-0.bin --hunt=5 --timeout=2s -- a b c
args: --record k2/run-2.bin --hunt=7 --timeout=2s -- a b c"
has "the seeds are in the report" '^first failing run: 0 \(seed 5\)'
hunt --runs 1 --mode chaos --pass --x=1 --pass -y --fail-if . --keep kc -- ./fake
check "chaos mode and --pass" grep -qx 'args: --record kc/run-0.bin --chaos=1 --timeout=10s --x=1 -y' kc/run-0.out
hunt --runs 1 --mode quantum=50us --fail-if . --keep kq -- ./fake z
check "quantum mode" grep -qx 'args: --record kq/run-0.bin --quantum 50us --timeout=10s -- z' kq/run-0.out
FAKE_RC=5 hunt --runs 1 -- ./fake
has "a program's exit status through a wrapper" '^first failing run: 0 \(seed 1\): exit status 5$'

# ---- --stdin: each run reads the file; its log holds what it read ------------------
"$SICC" -O2 -g -o stdin_race.sic "$P/stdin_race.c" -lpthread >build.out 2>&1 ||
	fail "stdin_race: sicc build: $(head -c 300 build.out)"
echo 100000 >in.txt
hunt --runs 4 --keep kin -- ./stdin_race.sic
has "without --stdin a run reads /dev/null: no count, nothing to race on" '^failures: 0$'
hunt --runs 8 --stop --stdin in.txt --keep kin -- ./stdin_race.sic
has "--stdin: the runs read the count from the file, and the race shows" \
	'^first failing run: [0-9]+ \(seed [0-9]+\): exit status 1$'
first=$(sed -n 's/^first failing run: \([0-9]*\).*/\1/p' h.out)
check "--stdin: the failing run read the file" grep -qx 'read 100000' "kin/run-$first.out"
replay=$(field replay)
check "--stdin: the replay command gives the file too ('$replay')" \
	test "$replay" = "./stdin_race.sic --replay kin/run-$first.bin < in.txt"
eval "$replay" >rep.out 2>rep.err
check "--stdin: the printed replay fails the same way, quietly" \
	test $? -eq 1 -a ! -s rep.err -a "$(cat rep.out)" = "$(cat "kin/run-$first.out")"
rm in.txt
./stdin_race.sic --replay "kin/run-$first.bin" </dev/null >rep.out 2>rep.err
check "--stdin: the log holds the input (the file gone, stdin /dev/null: the same run)" \
	test $? -eq 1 -a "$(cat rep.out)" = "$(cat "kin/run-$first.out")"

# ---- a campaign in shards: --shard K/N, --seeds A-B, --json, --merge ----------------
# A seed names its schedule, so a run's outcome is the same in any shard: the merge of
# the shards' --json files prints what one replay-hunt running every run printed
# (but for the time). Each campaign in its own directory, all with --keep k.
echo 100000 >in.txt
mkdir -p one two seeds par
(cd one && hunt --runs 16 --jobs 2 --stdin ../in.txt --keep k -- ../stdin_race.sic && cp h.out ../one.out)
sed 's/^runs: \([0-9]*\) ([0-9.]* s, /runs: \1 (T s, /' one.out >one.sum
check "the unsharded campaign finds failures (16 runs)" grep -Eq '^failures: [1-9]' one.sum
(cd two && hunt --runs 16 --jobs 1 --shard 0/2 --json s0.json --stdin ../in.txt --keep k -- ../stdin_race.sic && cp h.out ../shard0.out)
has_in() { if grep -Eq -e "$3" "$2"; then pass "$1"; else fail "$1: no /$3/ in: $(head -c 400 "$2")"; fi; }
has_in "--shard 0/2: its 8 runs, seeds 1 to 15, and it says which shard" shard0.out '^runs: 8 \([0-9.]* s, 1 job, mode hunt, seeds 1 to 15, shard 0/2\)$'
(cd two && hunt --runs 16 --jobs 1 --shard 1/2 --json s1.json --stdin ../in.txt --keep k -- ../stdin_race.sic)
check "a shard removes only its own runs' old files from a shared --keep (shard 0's kept)" \
	bash -c "ls two/k | grep -q 'run-[0-9]*[02468]\.bin'"
(cd two && "$HUNT" --merge s0.json s1.json >merge.out 2>merge.err; echo $? >merge.rc)
sed 's/^runs: \([0-9]*\) ([0-9.]* s, /runs: \1 (T s, /' two/merge.out >two.sum
check "--merge of 2 shards prints the unsharded summary (time aside), exit 1" \
	bash -c "cmp -s one.sum two.sum && test \$(cat two/merge.rc) -eq 1 && test ! -s two/merge.err"
[ -f two.sum ] && ! cmp -s one.sum two.sum && diff one.sum two.sum | head -20
python3 - two/s0.json two/s1.json >json.out 2>&1 <<'PY'
import json, sys, os
runs = {}
for f in sys.argv[1:]:
    lines = [json.loads(l) for l in open(f)]
    assert lines[0]["replay_hunt"] == "campaign" and lines[-1]["replay_hunt"] == "end", f
    assert lines[0]["program"] == "../stdin_race.sic" and lines[0]["stdin"] == "../in.txt"
    for r in lines[1:-1]:
        assert r["seed"] == r["run"] + 1 and r["strategy"] in ("hunt:windows", "hunt:accesses", "hunt:pct", "hunt:quick", "hunt:delays") and r["signal"] is None
        assert (r["outcome"], r["exit_status"]) in (("ok", 0), ("exit", 1)), r
        assert (r["log"] is None) == (r["outcome"] == "ok"), r
        assert r["log"] is None or os.path.exists(os.path.join("two", r["log"])), r
        assert r["time_s"] > 0
        runs[r["run"]] = r
    assert lines[-1]["runs"] == len(lines) - 2
print(sorted(runs) == list(range(16)))
PY
check "--json: a line per run (seed, outcome, exit status, signal, log, time), every run once" \
	test "$(cat json.out)" = True
(cd two && eval "$(sed -n 's/^replay: //p' merge.out)" >/dev/null 2>&1; echo $? >rep.rc)
check "the merged summary's replay command replays the first failure (exit 1)" test "$(cat two/rep.rc)" -eq 1
(cd seeds && hunt --seeds 1-5 --jobs 1 --json a.json --stdin ../in.txt --keep k -- ../stdin_race.sic &&
	hunt --seed 1 --seeds 6-16 --jobs 1 --json b.json --stdin ../in.txt --keep k -- ../stdin_race.sic &&
	"$HUNT" --merge a.json b.json >merge.out 2>&1)
sed 's/^runs: \([0-9]*\) ([0-9.]* s, /runs: \1 (T s, /; s/, 2 jobs, /, 2 jobs, /' seeds/merge.out >seeds.sum
check "--seeds 1-5 and 6-16, merged: the unsharded summary too" cmp -s one.sum seeds.sum
# Two shards at once, as two machines would run them: xargs -P 2, one --keep.
(cd par && printf '0\n1\n' | xargs -P 2 -I K "$HUNT" --runs 16 --jobs 1 --shard K/2 --json sK.json \
	--stdin ../in.txt --keep k -- ../stdin_race.sic >/dev/null 2>&1
	"$HUNT" --merge s0.json s1.json >merge.out 2>&1)
sed 's/^runs: \([0-9]*\) ([0-9.]* s, /runs: \1 (T s, /' par/merge.out >par.sum
check "two shards at once (xargs -P 2, one --keep), merged: the unsharded summary" cmp -s one.sum par.sum
(cd two && "$HUNT" --merge s0.json >merge1.out 2>merge1.err)
check "--merge with a shard missing says so on stderr" grep -q 'shard 1/2 is missing' two/merge1.err
check "... and counts the runs it has" grep -q '^runs: 8 ' two/merge1.out

# ---- --jobs -------------------------------------------------------------------------
# (a rendezvous waits up to 20 s: the runs' own limit is above it)
mkdir -p rv4 rv1 rv2 rvt
hunt --runs 4 --jobs 4 --timeout 60s --mode native -- ./oracle.gcc rendezvous rv4 4 4
has "--jobs 4: four runs are alive at once" '^failures: 0$'
hunt --runs 3 --jobs 1 --timeout 60s --mode native -- ./oracle.gcc rendezvous rv1 1 1
has "--jobs 1: never two at once" '^failures: 0$'
hunt --runs 4 --jobs 2 --timeout 60s --mode native -- ./oracle.gcc rendezvous rv2 2 2
has "--jobs 2: two runs at once, never three" '^failures: 0$'
hunt --time 1s --jobs 2 --mode native -- ./oracle.gcc exit 0
check "--time alone: runs until the limit, then stops" bash -c "test $rc -eq 0 && grep -Eq '^runs: [1-9][0-9]* ' h.out"

# ---- a terminal gets progress; an interrupt stops the hunt --------------------------
script -qec "'$HUNT' --runs 3 --jobs 1 --mode native -- ./oracle.gcc rendezvous rvt 1 1" /dev/null >tty.out 2>&1
check "progress on a terminal" grep -q 'replay-hunt: [0-9]*/3 runs, 0 failed' tty.out
rm -f child.pid
"$HUNT" --runs 5 --jobs 1 --timeout 60s --mode native -- ./oracle.gcc spin child.pid >int.out 2>&1 &
hunter=$!
for _ in $(seq 200); do [ -s child.pid ] && break; sleep 0.05; done
kill -INT $hunter
wait $hunter
rc=$?
check "SIGINT: exit 130 when nothing failed" test "$rc" -eq 130
check "SIGINT: says so" grep -q '^interrupted:' int.out
# The spinning grandchild: killed and reaped (the hunt is its subreaper) before the
# hunt exits, so no process of the run is left, not even a zombie.
state=$(ps -o stat= -p "$(cat child.pid)" 2>/dev/null)
check "SIGINT: the run in flight is killed with what it started, and reaped (state '$state')" test -z "$state"

# ---- bad usage: one line, exit 2 ----------------------------------------------------
one_line_error() { # NAME PATTERN ARGS...
	local name=$1 pattern=$2; shift 2
	"$HUNT" "$@" >err.out 2>err.err
	local r=$?
	if [ $r -ne 2 ]; then fail "$name: exit $r, want 2"
	elif [ "$(grep -c . err.err)" -ne 1 ] || [ -s err.out ]; then fail "$name: not one line: $(head -c 300 err.err)"
	elif ! grep -Eq -e "$pattern" err.err; then fail "$name: '$(cat err.err)' lacks /$pattern/"
	else pass "$name"; fi
}
one_line_error "bad flag: unknown" "unknown flag '--frob'" --frob ./oracle.sic
one_line_error "bad flag: --runs x" "--runs 'x'" --runs x ./oracle.sic
one_line_error "bad flag: --runs 0" "--runs '0'" --runs 0 ./oracle.sic
one_line_error "bad flag: --jobs 0" "--jobs '0'" --jobs 0 ./oracle.sic
one_line_error "bad flag: --timeout soon" "--timeout 'soon'" --timeout soon ./oracle.sic
one_line_error "bad flag: --time 5 parsecs" "--time '5parsecs'" --time 5parsecs ./oracle.sic
one_line_error "bad flag: --mode" "--mode 'fast'" --mode fast ./oracle.sic
one_line_error "bad flag: --mode quantum=x" "--mode 'quantum=x'" --mode quantum=x ./oracle.sic
one_line_error "bad flag: a regular expression" "--fail-if '\(': " --fail-if '(' ./oracle.sic
one_line_error "bad flag: a value missing" "--keep needs a value" --keep
one_line_error "bad flag: --exit-ok 87" "--exit-ok '87': want 1-255 but 86, 87 and 88" --exit-ok 87 ./oracle.sic
one_line_error "bad flag: --exit-ok 256" "--exit-ok '256': want 1-255" --exit-ok 256 ./oracle.sic
one_line_error "bad flag: --exit-ok 0" "--exit-ok '0': want a whole number of at least 1" --exit-ok 0 ./oracle.sic
one_line_error "bad flag: --pass --record" "chooses where" --pass --record=x ./oracle.sic
one_line_error "no program" "no program to run" --runs 3
one_line_error "--shard 2/2" "--shard '2/2': want K/N" --shard 2/2 ./oracle.sic
one_line_error "--shard 1" "--shard '1': want K/N" --shard 1 ./oracle.sic
one_line_error "--seeds 5-3" "--seeds '5-3': want A-B" --seeds 5-3 ./oracle.sic
one_line_error "--mode hunt:sloppy" "--mode 'hunt:sloppy': want hunt:windows, hunt:accesses" --mode hunt:sloppy ./oracle.sic
one_line_error "--mode hunt:pct, a runtime without --hunt-strategy" "has no --hunt-strategy" --mode hunt:pct ./fake
one_line_error "--seeds and --runs" "give one of them" --seeds 1-5 --runs 5 ./oracle.sic
one_line_error "--seeds below --seed" "below --seed 3" --seed 3 --seeds 1-5 ./oracle.sic
echo 'not json' >in.txt.none
sed '1s/"mode":"hunt"/"mode":"chaos"/; 1s/"shard":"0\/2"/"shard":"1\/2"/' two/s0.json >other.json
one_line_error "--merge without files" "--merge needs" --merge
one_line_error "--merge of a file that is not ours" "in.txt.none:1: not a replay-hunt --json line" --merge in.txt.none
one_line_error "--merge of one shard twice" "given twice" --merge two/s0.json two/s0.json
one_line_error "--merge of other campaigns' files" "not one campaign" --merge two/s0.json other.json
one_line_error "--stdin: a file that is not there" "--stdin nothere: No such file" --stdin nothere ./oracle.sic
one_line_error "--stdin: not a regular file" "--stdin \.: not a regular file" --stdin . ./oracle.sic
one_line_error "a program that is not there" "nothere: No such file" --mode native ./nothere
one_line_error "a program not built with sicc" "not built with sicc" ./oracle.gcc exit 0
one_line_error "a script that is not ours" "not built with sicc" /bin/true
touch notdir
one_line_error "--keep under a file" "--keep notdir/k: Not a directory" --keep notdir/k --mode default ./oracle.sic exit 0
"$HUNT" --help >help.out 2>&1
check "--help: exit 0, usage on stdout" grep -q '^usage: replay-hunt' help.out

# ==== the buggy programs of bugs/ ====================================================
# Each has one bug with a window of a few instructions; -DFIXED is the same program
# without it (a negative control). replay-hunt --mode hunt (the default) finds each
# bug within BOUND runs at seeds 1, 2, ...: a seed names a schedule, so these runs are
# the same on every machine. BOUND: over 20 seed lists of 20 (seeds 1-400), the worst
# first failing run was the 17th (check_then_act, one of whose lists had none;
# publish_early's and missing_unlock's the 13th, every other program's by the 8th);
# twice the 17th. From seed 1 the first failing runs are 1, 17, 1, 12, 2, 3, 1.
BOUND=34
B="$ROOT/tests/hunt/bugs"
BUGS="pop_race check_then_act use_before_init publish_early lock_order missing_unlock lost_wakeup split_stores wrong_lock exit_unjoined steal_slot"
BUGS="$BUGS exit_thread sleep_poll worker_start"
# split_stores: a switch between two plain stores, at a new thread's first accesses
# (about 9 runs in 100 fail): over 20 lists of 20 seeds its worst first failing run
# was the 35th (from seed 41; from seed 1 the 28th): twice that.
# wrong_lock: a pair of plain stores after a lock taken through a wrapper, read under
# another lock: a switch at a shared access past the wrapper's return (the strategies
# that switch at any access); 0 of 300 runs failed before, 10 of 400 with the
# portfolio. Over 20 lists of 20 seeds its worst first failing run was the 102nd (from
# seed 1 the 31st; split_stores' the 39th): twice that.
# exit_unjoined: main returns without joining; the bug shows only if the others run
# after main's return (an EXIT_TURN, one run in two where threads are runnable then,
# as SCTBench's account_bad): 0 in 1,000 runs before; 9 of seeds 1-400 fail now, the
# first at the 29th from seed 1: twice that.
# exit_thread: the same, the process ended by exit() in a thread (its exit turn):
# 0 of seeds 1-1,000 failed before exit() was a decision point, 27 now, the first at
# seed 56 (the 56th run from seed 1): twice that.
# steal_slot: a thief switched out between its check and its read of a claimed slot
# while the owner pushes twice (SCTBench's chess WorkStealQueue shape): 31 of seeds
# 1-800 fail; from 20 starting seeds (1, 21, ... 381) the worst first failing run was
# the 70th (from seed 1 the 28th): twice that.
# sleep_poll: a worker stopped between its hand-over and its next lock while a writer's
# usleep ends (pbzip2-0.9.4's shape): the worker is then the only runnable thread, so
# it needs a sleeper's turn (SLEEPER_TURN): 0 of 100 runs before, 18 of seeds 1-400
# now; from 20 starting seeds (1, 21, ... 381) the worst first failing run was the
# 122nd (from seed 261; from seed 1 the 10th): twice that.
# worker_start: a worker that takes its own lock for the first time between the
# dispatcher marking it busy and the dispatcher taking that lock (SCTBench's inspect
# qsort_mt): its first turn ends right after its first call. 58 of seeds 1-400 failed
# before that was a decision, 114 now (23 to 33 in each hundred), the first at the 1st
# run from seed 1 (the 4th before).
declare -A BOUNDS=([split_stores]=70 [wrong_lock]=204 [exit_unjoined]=58 [steal_slot]=140 [exit_thread]=112
	[sleep_poll]=244)
DEADLOCKS="lock_order missing_unlock lost_wakeup"
# What each bug's failure looks like (replay-hunt's words) and prints.
declare -A OUTCOME=(
	[pop_race]='exit status 1' [check_then_act]='exit status 1' [use_before_init]='killed by SIGSEGV'
	[publish_early]='exit status 1' [lock_order]='deadlock (exit status 87)'
	[missing_unlock]='deadlock (exit status 87)' [lost_wakeup]='deadlock (exit status 87)'
	[split_stores]='exit status 1' [wrong_lock]='exit status 1' [exit_unjoined]='exit status 1'
	[steal_slot]='exit status 1' [exit_thread]='exit status 1' [sleep_poll]='exit status 1' [worker_start]='exit status 1')
declare -A SAYS=([pop_race]='^job [0-9]+ done 2 times$' [check_then_act]='^overdrawn: '
	[publish_early]='before it was set$' [split_stores]='^checker saw half the pair$'
	[wrong_lock]='^reader saw a torn pair$' [exit_unjoined]='^audit: balance 70, expected 30$'
	[steal_slot]='^item [0-9]+ done [02] times$' [exit_thread]='^audit: balance 70, expected 30$'
	[sleep_poll]='^worker: queue used after it was closed$'
	[worker_start]='^worker [01]: busy with no job$')
# What gdb's info rthreads says of the deadlock's blocked threads.
declare -A WAITS=([lock_order]='waits for mutex acct.* held by thread'
	[missing_unlock]='waits for mutex lock held by thread' [lost_wakeup]='waits for cond posted_cond')
# build_pair NAME COMPILER SOURCE FLAGS...: NAME.sic, the bug, and NAME.fixed, built
# with -DFIXED.
build_pair() {
	local name=$1 cc=$2 src=$3 v def
	shift 3
	for v in sic fixed; do
		def=""
		[ $v = fixed ] && def=-DFIXED
		"$cc" "$@" $def -o "$name.$v" "$src" >build.out 2>&1 ||
			fail "$name.$v: ${cc##*/} build: $(head -c 300 build.out)"
	done
}
for p in $BUGS; do
	build_pair "$p" "$SICC" "$B/$p.c" -O2 -g -pthread
done

# under_gdb EXE LOG: the deadlocked recording LOG replays under gdb (replay-gdb, batch):
# it stops at the deadlock, info rthreads shows what the threads wait on, and continue
# ends it with the recording's exit status, 87, with no divergence.
under_gdb() {
	local exe=$1 log=$2 prog=${1%.*}
	timeout 120 "$ROOT/build/bin/replay-gdb" "./$exe" "$log" -batch -nx -ex run \
		-ex 'info rthreads' -ex continue >gdb.out 2>&1
	if grep -q diverged gdb.out; then
		fail "$exe: under gdb: $(grep -m1 diverged gdb.out)"
	elif ! grep -q '^libreplay: deadlock: the run ends here' gdb.out; then
		fail "$exe: gdb did not stop at the deadlock: $(grep -m2 'exited\|libreplay' gdb.out | tr '\n' ' ')"
	elif ! grep -Eq "${WAITS[$prog]}" gdb.out; then
		fail "$exe: info rthreads lacks /${WAITS[$prog]}/: $(grep -A8 'Id *State' gdb.out | head -c 600)"
	elif ! grep -q 'exited with code 0127\]' gdb.out; then
		fail "$exe: under gdb, continue did not exit 87: $(grep -m1 exited gdb.out)"
	else
		pass "$exe: under gdb it stops at the deadlock, info rthreads shows the waits, exit 87"
	fi
}

# replays_same EXE DIR RUN RC: the kept log DIR/run-RUN.bin replays 3 times to exit
# status (or 128+signal) RC, its recording's stdout, and no divergence; the deadlocked
# ones under gdb too. (Not "name": check() sets that.)
replays_same() {
	local exe=$1 dir=$2 run=$3 want=$4 bad="" i r
	for i in 1 2 3; do
		# (quiet on stderr: bash's "Segmentation fault" line)
		r=$({ timeout 60 "./$exe" --replay "$dir/run-$run.bin" >rep.out 2>rep.err; echo $?; } 2>/dev/null)
		[ $r -eq "$want" ] || bad="replay $i exited $r, want $want"
		cmp -s rep.out "$dir/run-$run.out" || bad="${bad:+$bad; }replay $i printed another output"
		! grep -q diverged rep.err || bad="${bad:+$bad; }replay $i: $(grep -m1 diverged rep.err)"
	done
	if [ -z "$bad" ]; then pass "$exe: its failure replays 3 times to the same outcome"
	else fail "$exe: $bad"; fi
	case " $DEADLOCKS " in *" ${exe%.*} "*) under_gdb "$exe" "$dir/run-$run.bin" ;; esac
}

# found EXE BOUND: replay-hunt (mode hunt, seeds from 1) finds EXE's bug within BOUND
# runs, as the failure the program has, and its first failure replays.
found() {
	local exe=$1 bound=$2 prog=${1%.*} got rc first
	hunt --runs "$bound" --stop --keep "keep-$exe" -- "./$exe"
	first=$(sed -n 's/^first failing run: \([0-9]*\).*/\1/p' h.out)
	got=$(sed -n 's/^first failing run: [0-9]*\( ([^)]*)\)\{0,1\}: //p' h.out)
	if [ -z "$first" ]; then
		fail "$exe: not found in $bound runs: $(head -n 2 h.out | tr '\n' ' ') $(head -c 200 h.err)"
		return
	fi
	if [ "$got" != "${OUTCOME[$prog]}" ]; then
		fail "$exe: found at run $first, but as '$got', not '${OUTCOME[$prog]}'"
		return
	fi
	pass "$exe: found at run $first of at most $bound: $got"
	if [ -n "${SAYS[$prog]:-}" ]; then
		check "$exe: ... and it says so" grep -Eq "${SAYS[$prog]}" "keep-$exe/run-$first.out"
	fi
	case $got in
	*SIGSEGV) rc=139 ;;
	*'exit status '*) rc=$(echo "$got" | sed 's/.*exit status \([0-9]*\).*/\1/') ;;
	esac
	replays_same "$exe" "keep-$exe" "$first" "$rc"
}

for p in $BUGS; do
	found "$p.sic" "${BOUNDS[$p]:-$BOUND}"
done

# wrong_lock's switch past a return is a trap at the `ret`: the seed that found it
# finds it with the software breakpoint too (debug registers dead, as in some VMs).
first=$(ls keep-wrong_lock.sic/run-*.bin 2>/dev/null | sed -n 's/.*run-\([0-9]*\)\.bin$/\1/p' | head -1)
if [ -n "$first" ]; then
	./wrong_lock.sic --record wl-sw.bin --hunt=$((first + 1)) --breakpoints=software >wl-sw.out 2>&1
	check "wrong_lock --hunt=$((first + 1)) --breakpoints=software: the torn pair too" \
		test $? -eq 1 -a "$(cat wl-sw.out)" = "reader saw a torn pair"
	./wrong_lock.sic --replay wl-sw.bin >wl-sw.rep 2>&1
	check "... and it replays" test $? -eq 1 -a "$(cat wl-sw.rep)" = "reader saw a torn pair"
fi

# exit_unjoined's failure came in the others' turn after main returned: its log has the
# EXIT_TURN input, which the replay took (it replayed above); a seed that draws no turn
# logs none and ends at main's return, as every log did before there was one.
first=$(ls keep-exit_unjoined.sic/run-*.bin 2>/dev/null | sed -n 's/.*run-\([0-9]*\)\.bin$/\1/p' | head -1)
if [ -n "$first" ]; then
	"$ROOT/build/bin/replay-dump" "keep-exit_unjoined.sic/run-$first.bin" exit_unjoined.sic >eu.dump 2>&1
	check "exit_unjoined: the failing run's log has main's EXIT_TURN" \
		grep -q "main's return or exit(): the others. turn first (thread 1, priority" eu.dump
	./exit_unjoined.sic --record eu-none.bin --hunt=3 >eu-none.out 2>&1
	rec=$?
	"$ROOT/build/bin/replay-dump" eu-none.bin exit_unjoined.sic >eu.dump 2>&1
	./exit_unjoined.sic --replay eu-none.bin >eu-none.rep 2>&1
	check "exit_unjoined --hunt=3: no EXIT_TURN drawn, ends at main's return (status $rec), and replays so" \
		test $rec -eq 0 -a $? -eq 0 -a -z "$(grep 'turn first' eu.dump)" -a -z "$(cat eu-none.rep)"
fi
# exit_thread's, in the turn after its closer (thread 2) called exit(): the EXIT_TURN is
# thread 2's (it replayed above).
first=$(ls keep-exit_thread.sic/run-*.bin 2>/dev/null | sed -n 's/.*run-\([0-9]*\)\.bin$/\1/p' | head -1)
if [ -n "$first" ]; then
	"$ROOT/build/bin/replay-dump" "keep-exit_thread.sic/run-$first.bin" exit_thread.sic >et.dump 2>&1
	check "exit_thread: the failing run's log has the closer's EXIT_TURN at its exit()" \
		grep -q "exit(): the others. turn first (thread 2, priority" et.dump
fi

# sleep_poll's failure came after a sleeper's turn: its log has the SLEEPER_TURN input
# (the worker waited for the writer's deadline), which the replay took: it replayed
# above to exit 1, where a replay that ran the worker on would have ended with status 0
# and diverged. A seed whose run never waits logs none.
first=$(ls keep-sleep_poll.sic/run-*.bin 2>/dev/null | sed -n 's/.*run-\([0-9]*\)\.bin$/\1/p' | head -1)
if [ -n "$first" ]; then
	"$ROOT/build/bin/replay-dump" "keep-sleep_poll.sic/run-$first.bin" sleep_poll.sic >sp.dump 2>&1
	check "sleep_poll: the failing run's log has a SLEEPER_TURN (a worker waits for thread 2's deadline)" \
		grep -Eq "a demotion waits for a sleeper: thread [0-9]+ waits until thread 2's deadline" sp.dump
fi

# steal_atomic: steal_slot's bug with atomics alone (SCTBench's chess
# InterlockedWorkStealQueue), the accessors out of line as std::atomic's are at -O0: no
# synchronization call in a steal or in the owner's pushes, so the only steps are
# slices' ends, and a thread's first counts are cut into fine slices (docs/replay.md,
# "A portfolio"). The windows strategy alone: 0 of seeds 1-300 failed with slices of
# 2^6 counts or more, 9 with the fine slices (accesses: 5 -> 13, the drawn mix 2 -> 4).
# At least 3 here; each failure replays to its outcome, and the fixed queue never fails.
build_pair steal_atomic "$SICC" "$B/steal_atomic.c" -O2 -g -pthread
hunt --seeds 1-300 --mode hunt:windows --keep keep-steal_atomic -- ./steal_atomic.sic
n=$(sed -n 's/^failures: \([0-9]*\) (\([0-9]*\) non-zero exit)$/\1 \2/p' h.out)
if [ -n "$n" ] && [ "${n% *}" -ge 3 ] && [ "${n% *}" = "${n#* }" ]; then
	pass "steal_atomic: hunt:windows, seeds 1-300: ${n% *} failures (at least 3), each exit 1"
else
	fail "steal_atomic: hunt:windows, seeds 1-300: $(grep '^failures' h.out) (want at least 3, exit 1)"
fi
bad="" k=0
for log in keep-steal_atomic/run-*.bin; do
	[ -e "$log" ] || continue
	k=$((k + 1))
	grep -Eq "${SAYS[steal_slot]}" "${log%.bin}.out" || bad="$bad $log: not the bug's output;"
	r=$({ timeout 60 ./steal_atomic.sic --replay "$log" >rep.out 2>rep.err; echo $?; } 2>/dev/null)
	[ "$r" -eq 1 ] && cmp -s rep.out "${log%.bin}.out" && ! grep -q diverged rep.err ||
		bad="$bad $log: replay exited $r$(grep -m1 diverged rep.err);"
done
check "steal_atomic: each of its $k failures is the bug (an item done twice) and replays to it${bad:+:$bad}" \
	test -z "$bad" -a "$k" -ge 3
hunt --seeds 1-300 --mode hunt:windows --keep keep-steal_atomic.fixed -- ./steal_atomic.fixed
has "steal_atomic.fixed: hunt:windows, seeds 1-300, no failure" '^failures: 0$'
hunt --runs 100 --keep keep-steal_atomic.fixed -- ./steal_atomic.fixed
has "steal_atomic.fixed: 100 runs, no failure (--mode hunt)" '^failures: 0$'

# registry: SCTBench's State harness shape in C++ at -O0 (bugs/registry.cpp): a thread
# stopped between its check of a shared table's size and its resize must shrink the
# table while another still uses its own entry: two switches, the second while the
# other is at work. Over four lists of 300 seeds, before the others' least turn was
# drawn (2^4 to 2^12 counts, not 2^12 alone) and a fine slice's end outside a loop
# decided where it ended one time in two: windows 10, 10, 10, 9 failures, quick 6, 5,
# 6, 4; since: windows 17, 15, 16, 15, quick 13, 11, 14, 10. At least 12 and 8 here;
# each failure is the bug (a thread's stack used after the resize cut it away: an
# abort, std::out_of_range or length_error, or a segfault), and replays to its signal.
build_pair registry "$ROOT/build/bin/sic++" "$B/registry.cpp" -O0 -g -pthread
for ms in windows:12 quick:8; do
	m=${ms%:*} least=${ms#*:}
	hunt --seeds 1-300 --mode hunt:$m --keep keep-registry-$m -- ./registry.sic
	n=$(sed -n 's/^failures: \([0-9]*\) (\([0-9]*\) signal)$/\1 \2/p' h.out)
	if [ -n "$n" ] && [ "${n% *}" -ge "$least" ] && [ "${n% *}" = "${n#* }" ]; then
		pass "registry: hunt:$m, seeds 1-300: ${n% *} failures (at least $least), each a signal"
	else
		fail "registry: hunt:$m, seeds 1-300: $(grep '^failures' h.out) (want at least $least, signals)"
	fi
	bad="" k=0
	for log in keep-registry-$m/run-*.bin; do
		[ -e "$log" ] || continue
		k=$((k + 1))
		# thread 2's stack cut away: std::out_of_range or length_error (an abort), or
		# a write through what the resize destroyed (a segfault)
		want=134
		grep -q 'thread [23] died of SIGSEGV' "${log%.bin}.err" && want=139
		grep -Eq 'thread [23] died of SIG(ABRT|SEGV)' "${log%.bin}.err" ||
			bad="$bad $log: not the bug: $(grep -m1 died "${log%.bin}.err");"
		[ $k -le 5 ] || continue # five replayed of each
		r=$({ timeout 60 ./registry.sic --replay "$log" >rep.out 2>rep.err; echo $?; } 2>/dev/null)
		[ "$r" -eq "$want" ] && cmp -s rep.out "${log%.bin}.out" && ! grep -q diverged rep.err ||
			bad="$bad $log: replay exited $r, recorded $want$(grep -m1 diverged rep.err);"
	done
	check "registry: hunt:$m: each of its $k failures is the bug, five replay to its signal${bad:+:$bad}" \
		test -z "$bad" -a "$k" -ge "$least"
done
hunt --seeds 1-300 --mode hunt:windows --keep keep-registry.fixed -- ./registry.fixed
has "registry.fixed: hunt:windows, seeds 1-300, no failure" '^failures: 0$'

# No bug-free program fails, in any mode: hunt at the seeds that found the bugs.
for p in $BUGS; do
	hunt --runs $BOUND --keep "keep-$p.fixed" -- "./$p.fixed"
	has "$p.fixed: $BOUND runs, no failure (--mode hunt)" '^failures: 0$'
	for m in default quantum=50us chaos; do
		hunt --runs 6 --mode "$m" --keep "keep-$p.fixed" -- "./$p.fixed"
		has "$p.fixed: 6 runs, no failure (--mode $m)" '^failures: 0$'
	done
done

# The portfolio: without --hunt-strategy each seed draws its strategy (the bugs above
# were found so); --mode hunt:S runs one (--hunt-strategy=S). Each strategy finds,
# within 10 runs, a bug of bugs/ it is strong on (bench/hunt.sh part 4: found in half
# the runs or more, the first at run 1), and that failure replays.
declare -A STRONG=([windows]=lock_order [accesses]=pop_race [pct]=use_before_init [quick]=pop_race
	[delays]=missing_unlock)
for s in windows accesses pct quick delays; do
	p=${STRONG[$s]}
	hunt --runs 10 --stop --mode "hunt:$s" --json "strategy-$s.json" --keep "keep-$s" -- "./$p.sic"
	first=$(sed -n 's/^first failing run: \([0-9]*\).*/\1/p' h.out)
	got=$(sed -n 's/^first failing run: [0-9]*\( ([^)]*)\)\{0,1\}: //p' h.out)
	if [ -z "$first" ] || [ "$got" != "${OUTCOME[$p]}" ]; then
		fail "--mode hunt:$s: $p not found in 10 runs as '${OUTCOME[$p]}': $(head -n 3 h.out | tr '\n' ' ') $(head -c 200 h.err)"
		continue
	fi
	pass "--mode hunt:$s: $p found at run $first: $got"
	check "--mode hunt:$s: the run was given --hunt-strategy=$s (the JSON says hunt:$s)" \
		grep -q "\"strategy\":\"hunt:$s\"" "strategy-$s.json"
	case $got in
	*SIGSEGV) rc=139 ;;
	*'exit status '*) rc=$(echo "$got" | sed 's/.*exit status \([0-9]*\).*/\1/') ;;
	esac
	r=$({ timeout 60 "./$p.sic" --replay "keep-$s/run-$first.bin" >rep.out 2>rep.err; echo $?; } 2>/dev/null)
	check "--mode hunt:$s: its failure replays (status $r)" test "$r" -eq "$rc" -a -z "$(grep diverged rep.err)"
done
# --mode hunt's JSON names each run's drawn strategy (it said "hunt" for every run):
# every run of seeds 1-16 kept (--expect that never matches), each named one of the
# five, at least three of them; and what its log shows agrees: a round-robin strategy
# (quick, delays) gives every thread priority 0, pct (always priorities) does not.
hunt --runs 16 --expect '^never matches$' --json drawn.json --keep keep-drawn -- ./pop_race.fixed
bad="" kinds=""
for run in $(seq 0 15); do
	s=$(grep -o "\"run\":$run,\"seed\":$((run + 1)),\"strategy\":\"[^\"]*\"" drawn.json | sed 's/.*"strategy":"\(.*\)"/\1/')
	case $s in hunt:windows | hunt:accesses | hunt:pct | hunt:quick | hunt:delays) ;;
	*) bad="$bad run $run: '$s'"; continue ;; esac
	case " $kinds " in *" $s "*) ;; *) kinds="$kinds $s" ;; esac
	"$ROOT/build/bin/replay-dump" "keep-drawn/run-$run.bin" pop_race.fixed >drawn.dump 2>&1
	nonzero=$(awk '$3 == "INPUT" && $5 == 17 && substr($NF, 9) != "00000000" { n++ } END { print n + 0 }' drawn.dump)
	case $s in
	hunt:quick | hunt:delays) [ "$nonzero" -eq 0 ] || bad="$bad run $run ($s): $nonzero priorities not 0" ;;
	hunt:pct) [ "$nonzero" -gt 0 ] || bad="$bad run $run ($s): every priority 0" ;;
	esac
done
check "--mode hunt: the JSON names each seed's drawn strategy ($kinds), as its log shows${bad:+:$bad}" \
	test -z "$bad" -a "$(echo $kinds | wc -w)" -ge 3
./pop_race.sic --record ps.bin --hunt=1 --hunt-strategy=sloppy >ps.out 2>ps.err
check "--hunt-strategy=sloppy: one line, exit 2" \
	test $? -eq 2 -a "$(grep -c . ps.err)" -eq 1 -a -n "$(grep "bad --hunt-strategy 'sloppy'" ps.err)"

# Spin-waits under --hunt's priorities: a spinning thread yields to the thread that
# waited longest, whatever its priority (the one it waits for may be lower).
# tests/replay's spin_handoff hands a token back and forth 2,000 times; each run takes
# milliseconds. Before, a spinner yielded only to threads of its priority or above, so
# it spun on until the fairness demotion, up to 2^20 yields per handoff: 5 of seeds
# 1-6 ran past 100 s.
"$SICC" -O2 -g -o spin_handoff.sic "$ROOT/tests/replay/progs/spin_handoff.c" -lpthread >build.out 2>&1 ||
	fail "spin_handoff: sicc build: $(head -c 300 build.out)"
hunt --runs 6 --timeout 20s --expect '^2000 handoffs' --keep keep-spin -- ./spin_handoff.sic
has "spin_handoff: seeds 1-6 under --hunt end, with no hang" '^failures: 0$'
./spin_handoff.sic --record spin.bin --hunt=2 >spin.rec 2>&1
./spin_handoff.sic --replay spin.bin >spin.rep 2>&1
check "spin_handoff --hunt=2: the replay prints what the recording did" cmp -s spin.rec spin.rep

# A spin-wait on work another runnable thread finishes (progs/steal_wait.c, the shape
# of SPLASH-2 VOLREND's work stealing: loops of plain loads waiting for a counter only a
# working thread lowers). The working thread meets windows and is demoted at one after
# a slice; the spinners meet none and ran to their fairness point, up to 2^20 counts
# each a round: seed 5 ran past 10 s (hang), seed 12 4.7 s, where natively it takes
# 0.1 s. Now the others' turns while a demoted thread waits are at most 4 times its
# own: seeds 1-24 took 0.25-0.84 s each. Seeds 1-12 end with the right output, and
# seed 5's recording replays to it.
"$SICC" -O2 -g -o steal_wait.sic "$P/steal_wait.c" -lpthread >build.out 2>&1 ||
	fail "steal_wait: sicc build: $(head -c 300 build.out)"
hunt --runs 12 --timeout 10s --expect '^done: 33 cells done$' --keep keep-steal -- ./steal_wait.sic
has "steal_wait: seeds 1-12 under --hunt end, none hangs (spinners do not starve the worker)" '^failures: 0$'
timeout 60 ./steal_wait.sic --record steal.bin --hunt=5 --timeout=10s >steal.rec 2>&1
rec=$?
timeout 60 ./steal_wait.sic --replay steal.bin >steal.rep 2>&1
check "steal_wait --hunt=5: ends (status $rec) and the replay prints what the recording did" \
	test $rec -eq 0 -a "$(cat steal.rec)" = "$(cat steal.rep)"

# Waiting by yielding (progs/yield_wait.c: spins on sched_yield, a spin lock, a
# try-lock loop). sched_yield and pthread_spin_lock's yield let the thread that has
# waited longest run, whatever --hunt's priorities: a yield to the highest other thread
# let two spinners hand the turn to each other for ever (seeds 4 and 8 of 16 hung).
"$SICC" -O2 -g -o yield_wait.sic "$P/yield_wait.c" -lpthread >build.out 2>&1 ||
	fail "yield_wait: sicc build: $(head -c 300 build.out)"
hunt --runs 16 --timeout 10s --expect '^done: work 500500$' --keep keep-yield -- ./yield_wait.sic
has "yield_wait: seeds 1-16 under --hunt end, none hangs (a yield is not a priority's)" '^failures: 0$'
timeout 60 ./yield_wait.sic --record yield.bin --hunt=4 --timeout=10s >yield.rec 2>&1
rec=$?
timeout 60 ./yield_wait.sic --replay yield.bin >yield.rep 2>&1
check "yield_wait --hunt=4: ends (status $rec) and the replay prints what the recording did" \
	test $rec -eq 0 -a "$(cat yield.rec)" = "$(cat yield.rep)"

# A hot lock loop under --hunt: a call site's preemptions grow with the logarithm of
# its visits (past its first 2^10), so 2 threads x 400,000 lock/unlock pairs take at
# most one preemption per 100 iterations (the fairness demotions and the slices' ends
# give most of them). Before, each site preempted 1 time in 4 to 32 for ever: seed 3
# took one per 7 iterations, at a breakpoint trap each (a 6 MB log and 50 s for 10^7).
# Each replays to the recording's output.
"$SICC" -O2 -g -o lock_loop.sic "$ROOT/bench/hunt/lock_loop.c" -lpthread >build.out 2>&1 ||
	fail "lock_loop: sicc build: $(head -c 300 build.out)"
for seed in 3 6 7; do
	./lock_loop.sic --record loop.bin --hunt=$seed 400000 >loop.rec 2>&1
	rec=$?
	n=$("$ROOT/build/bin/replay-dump" --summary loop.bin lock_loop.sic | sed -n 's/^records: [0-9]* (\([0-9]*\) preempt.*/\1/p')
	check "lock_loop --hunt=$seed: ${n:-?} preemptions for 800,000 iterations, at most 8,000" \
		test "$rec" -eq 0 -a -n "$n" -a "${n:-0}" -le 8000
	./lock_loop.sic --replay loop.bin >loop.rep 2>&1
	check "lock_loop --hunt=$seed: the replay prints what the recording did, exit 0" \
		test $? -eq 0 -a "$(cat loop.rec)" = "$(cat loop.rep)"
done

# A synchronization call reached by a tail jump: tail_sync_queue.c's queue_add and
# queue_take end in `jmp pthread_mutex_unlock`, so the unlock's return address is the
# program's call of queue_add. A preemption before the unlock was logged at that call
# with queue_add's count: 7 of seeds 1-12 diverged ('should have been preempted at count
# C ... but is at count C+1'), as libzstd's POOL_add did (tests/apps/debian.sh).
"$SICC" -O2 -g -o tail_sync.sic "$P/tail_sync.c" "$P/tail_sync_queue.c" -lpthread >build.out 2>&1 ||
	fail "tail_sync: sicc build: $(head -c 300 build.out)"
bad=""
for seed in $(seq 1 12); do
	./tail_sync.sic --record tail.bin --hunt=$seed >tail.rec 2>&1
	rec=$?
	./tail_sync.sic --replay tail.bin >tail.rep 2>&1
	rep=$?
	if [ $rec -ne 0 ] || [ $rep -ne 0 ] || ! cmp -s tail.rec tail.rep; then
		bad="$bad seed $seed (status $rec, replay $rep: $(grep -m1 -o 'diverged.*' tail.rep))"
	fi
done
check "tail_sync --hunt=1..12: every replay prints what its recording did${bad:+:$bad}" test -z "$bad"

# A seed names a schedule with a log or without one, where --no-record leaves ASLR on:
# the call sites' draws (windows, accesses) go by a call's offset in the executable.
# By its absolute address, 11 of lost_wakeup's seeds 1-30 switched elsewhere each run
# without a log (docs/debugging.md's seed 1 deadlocked one run in four).
bad=""
for st in windows accesses; do
	for seed in $(seq 1 6); do
		./lost_wakeup.sic --record same.bin --hunt=$seed --hunt-strategy=$st \
			--trace-schedule same.rec >/dev/null 2>&1
		for i in 1 2; do
			./lost_wakeup.sic --no-record --hunt=$seed --hunt-strategy=$st \
				--trace-schedule same.$i >/dev/null 2>&1
			# (seq, clock, threads and counts, reason: not the time in ns)
			cmp -s <(cut -d' ' -f1,2,4- same.rec) <(cut -d' ' -f1,2,4- same.$i) ||
				bad="$bad $st:$seed"
		done
	done
done
check "lost_wakeup --hunt-strategy=windows, accesses, seeds 1-6: --no-record switches where --record does${bad:+:$bad}" test -z "$bad"

# A bug inside a shared library built with sicc (progs/lib_pop.c; its job list,
# lib_pop_list.c, is libpoplist.so): a pop that reads the head and writes it back, no
# counting point between. The runtime reads the library's sic_memops and sic_repeats
# from its file (engine/counter/sic.c), so the pop is split at its store: 234 of seeds
# 1-400 fail (231 with the library loaded by dlopen()), over 20 lists of 20 seeds the
# first failure by the 5th run: twice that. The same library with those two sections
# renamed (objcopy) is never split: 0 of seeds 1-400, as every library was before.
# Its lock and unlock calls are steps of the hunting scheduler: a seed names the same
# schedule with a log or without one, where --no-record leaves ASLR on and the library
# moves (its call sites and places go by their offset in it; by the executable's
# offset, every seed of windows and accesses 1-6 switched elsewhere without a log).
mkdir -p libpop libpop-off
"$SICC" -O2 -g -shared -fPIC -o libpop/libpoplist.so "$P/lib_pop_list.c" -lpthread >build.out 2>&1 &&
	objcopy --rename-section sic_memops=sic_memops_off --rename-section sic_repeats=sic_repeats_off \
		libpop/libpoplist.so libpop-off/libpoplist.so >>build.out 2>&1 &&
	"$SICC" -O2 -g -o lib_pop.sic "$P/lib_pop.c" -Llibpop -lpoplist -Wl,-rpath,'$ORIGIN/libpop' \
		-lpthread >>build.out 2>&1 &&
	"$SICC" -O2 -g -o lib_pop_off.sic "$P/lib_pop.c" -Llibpop -lpoplist -Wl,-rpath,'$ORIGIN/libpop-off' \
		-lpthread >>build.out 2>&1 &&
	"$SICC" -O2 -g -DDLOPEN -o lib_pop_dl.sic "$P/lib_pop.c" -Wl,-rpath,'$ORIGIN/libpop' -ldl \
		-lpthread >>build.out 2>&1 || fail "lib_pop: build: $(head -c 300 build.out)"
OUTCOME[lib_pop]='exit status 1' SAYS[lib_pop]='^job [0-9]+ done 2 times$'
OUTCOME[lib_pop_dl]='exit status 1' SAYS[lib_pop_dl]='^job [0-9]+ done 2 times$'
found lib_pop.sic 10
found lib_pop_dl.sic 10
hunt --runs 100 --keep keep-libpop-off -- ./lib_pop_off.sic
has "lib_pop without the library's access tables: 100 runs, no failure" '^failures: 0$'
bad=""
for st in windows accesses; do
	for seed in $(seq 1 6); do
		./lib_pop.sic --record same.bin --hunt=$seed --hunt-strategy=$st --trace-schedule same.rec >/dev/null 2>&1
		for i in 1 2; do
			./lib_pop.sic --no-record --hunt=$seed --hunt-strategy=$st --trace-schedule same.$i >/dev/null 2>&1
			cmp -s <(cut -d' ' -f1,2,4- same.rec) <(cut -d' ' -f1,2,4- same.$i) || bad="$bad $st:$seed"
		done
	done
done
check "lib_pop --hunt-strategy=windows, accesses, seeds 1-6: --no-record switches where --record does${bad:+:$bad}" test -z "$bad"

# A library dlclosed and another dlopened at its address (progs/lib_swap.c): libswap_a's
# swap_touch has one store after its entry's counting point, libswap_b's, the same up to
# there, seven more. The places a decision at that counting point may land (count.c's
# cache, by pc) are B's once B is loaded: a PREEMPT at one of B's seven later stores in
# 18 of seeds 1-20 (--hunt-strategy=accesses); when the cache outlived A's code, none
# in any of them. Every run replays to its recording's output.
mkdir -p libswap
"$SICC" -O2 -g -shared -fPIC -o libswap/libswap_a.so "$P/lib_swap_a.c" >build.out 2>&1 &&
	"$SICC" -O2 -g -shared -fPIC -o libswap/libswap_b.so "$P/lib_swap_b.c" >>build.out 2>&1 &&
	"$SICC" -O2 -g -o lib_swap.sic "$P/lib_swap.c" -Wl,-rpath,'$ORIGIN/libswap' -ldl -lpthread \
		>>build.out 2>&1 || fail "lib_swap: build: $(head -c 300 build.out)"
# B's later stores: those to cells[1..7], as offsets in B (swap_touch's own first)
later=$(objdump -d --no-show-raw-insn libswap/libswap_b.so | sed -n '/<swap_touch>:/,/^$/p' |
	sed -n 's/^ *\([0-9a-f]*\):.*<cells+0x.*/\1/p')
sym=$(nm libswap/libswap_b.so | sed -n 's/^\([0-9a-f]*\) T swap_touch$/\1/p')
hits=0 bad=""
for seed in $(seq 1 6); do
	./lib_swap.sic --record swap.bin --hunt=$seed --hunt-strategy=accesses >swap.out 2>swap.err
	rc=$?
	at=$(sed -n 's/^swap_touch at //p' swap.out)
	[ "$rc" -eq 0 ] && [ -n "$at" ] || { bad="$bad $seed:exit-$rc:$(head -c 100 swap.out)"; continue; }
	./lib_swap.sic --replay swap.bin >swap.rep 2>swap.rerr
	[ $? -eq 0 ] && cmp -s swap.out swap.rep || bad="$bad $seed:replay"
	for pc in $("$ROOT/build/bin/replay-dump" swap.bin | awk '$3 == "PREEMPT" { print $7 }'); do
		for a in $later; do
			[ $((pc)) -eq $((at + 0x$a - 0x$sym)) ] && hits=$((hits + 1))
		done
	done
done
check "lib_swap: libswap_b.so loaded where libswap_a.so was, each run replayed${bad:+:$bad}" test -z "$bad" -a -n "$later"
check "lib_swap, seeds 1-6: preempted at libswap_b.so's accesses, not libswap_a.so's ($hits PREEMPTs)" test "$hits" -gt 0

summary
