#!/bin/bash
# The demo (examples/demo.sh, what make demo runs) as a suite. It checks itself, so it
# passes if it ends with its line saying every replay reproduced its recording; each
# problem it names is a FAIL. Then its checks, sourced, on runs made to differ: a
# replay of another recording, an exit status, a crash report, a divergence.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
cd "$WORK" || exit 1

DEMO_DIR="$WORK/demo" timeout 600 bash "$ROOT/examples/demo.sh" >demo.out 2>&1
rc=$?
while read -r line; do
	fail "make demo: ${line#demo: failed: }"
done < <(grep '^demo: failed: ' demo.out)
last=$(tail -n 1 demo.out)
if [ $rc -eq 0 ] && [[ $last == *": all reproduced"* ]]; then
	pass "make demo: ${last#demo: }"
elif ! grep -q '^demo: failed: ' demo.out; then
	fail "make demo: exit status $rc: $(tail -n 3 demo.out | tr '\n' ' ')"
fi
if grep -q '^(the bug did not strike' demo.out; then
	skip "make demo: the heisenbug did not strike: its replays, replay-dump and gdb not shown"
fi

# The checks, on the demo's own files where it left them.
. "$ROOT/examples/demo.sh"
cd "$WORK/demo" || exit 1
# caught NAME PATTERN: pass if the last check said one problem, matching PATTERN.
caught() {
	if [ ${#problems[@]} -eq 1 ] && [[ ${problems[0]} =~ $2 ]]; then pass "$1"
	else fail "$1: problems said: ${problems[*]:-none}"; fi
	problems=()
}
if [ -s rec1.out ] && [ -s rec2.out ] && ! cmp -s rec1.out rec2.out; then
	run other "a replay" ./racy_counter --replay run2.bin >/dev/null
	same_run "a replay of run2.bin" rec1 other >/dev/null
	caught "a replay of another recording (run2.bin for run1.bin) is caught" \
		'^a replay of run2.bin printed "counter = .*" where its recording printed "counter = '
else
	fail "the demo's racy_counter recordings 1 and 2: missing, or the same count"
fi
printf 'counter = 5 of 8: 3 updates lost\n' >a.out && echo 0 >a.rc
printf 'counter = 5 of 8: 3 updates lost\n' >b.out && echo 0 >b.rc
same_run "b" a b >/dev/null
check "a replay that prints and exits as its recording: no problem" test ${#problems[@]} -eq 0
echo 1 >b.rc
same_run "b" a b >/dev/null
caught "a replay that exits otherwise is caught" '^b exited with status 1, its recording with 0$'
printf 'counter = 5 of 8: 3 updates lost\ncounter = 6\n' >b.out && echo 0 >b.rc
same_run "b" a b >/dev/null
caught "a replay that prints one line more is caught" '^b printed "counter = 6" where its recording printed "nothing"$'
printf 'libreplay: thread 2 died of SIGSEGV (si_code 1 SEGV_MAPERR: address not mapped, address 0x0)\n' >crash.txt
run c "a run" sh -c 'cat crash.txt >&2' >/dev/null
rc=$?
check "a crash report on stderr makes run's status 1" test $rc -eq 1
caught "a crash report is caught" '^a run: libreplay: thread 2 died of SIGSEGV'
printf 'libreplay: replay diverged: record 18: thread 5 reached count 2000002\n' >d.err
no_crash "a run" a.out d.err >/dev/null
caught "a divergence is caught" '^a run: libreplay: replay diverged: record 18'
summary
