#!/bin/bash
# Restricted machines (the design notes, "Machines differ"; issue 30):
# real programs recorded and replayed (a) with the software stop, forced or because
# the debug registers never fire, (b) under a Docker-like seccomp filter, (c) where
# LDT selectors are refused or accepted and fault, (d) as an ordinary user, gdb too,
# and (e) under gdb with the software stop. Every replay must print its recording's
# output, exit with its status, and say neither "replay diverged" nor "died of"; the
# recording must be whole. build/tests/restrict (tests/lib/restrict.c) makes the
# filters: probe.c checks it first.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
DUMP="$ROOT/build/bin/replay-dump"
RGDB="$ROOT/build/bin/replay-gdb"
cd "$WORK" || exit 1
need_restrict

# ==== the launcher ===================================================================
gcc -std=gnu11 -O2 -D_GNU_SOURCE -o probe "$ROOT/tests/restricted/probe.c" || fail "probe: build"
# says NAME OUTPUT COMMAND...: the command prints exactly OUTPUT.
says() {
	local name=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name: '$got', want '$want'"; fi
}
says "--no-perf: perf_event_open fails with EPERM" "perf_event_open: EPERM" "$RESTRICT" --no-perf ./probe perf
says "--no-perf: so it does in what the command runs" "perf_event_open: EPERM" \
	"$RESTRICT" --no-perf sh -c './probe perf'
if [ "$(./probe perf)" = "perf_event_open: opened" ]; then
	says "--docker-personality: perf_event_open opens (only what is asked is refused)" \
		"perf_event_open: opened" "$RESTRICT" --docker-personality ./probe perf
else skip "perf_event_open without restrict: $(./probe perf)"; fi
says "--docker-personality: personality(ADDR_NO_RANDOMIZE) fails with EPERM" "personality(0x40000): EPERM" \
	"$RESTRICT" --docker-personality ./probe personality 0x0040000
says "--docker-personality: personality(0x100000008) fails with EPERM (all 64 bits compared)" \
	"personality(0x100000008): EPERM" "$RESTRICT" --docker-personality ./probe personality 0x100000008
for p in 0 8 0x20000 0x20008 0xffffffff; do
	check "--docker-personality: personality($p) works" "$RESTRICT" --docker-personality ./probe personality $p
done
says "--no-ldt: modify_ldt fails with EPERM" "modify_ldt: EPERM" "$RESTRICT" --no-ldt ./probe ldt
if ./probe ldt >ldt.out 2>&1; then
	# (quiet on stderr: bash's "Segmentation fault" line)
	{ timeout 10 "$RESTRICT" --fake-ldt ./probe ldt >fake.out 2>&1; } 2>/dev/null
	rc=$?
	check "--fake-ldt: modify_ldt returns 0, and loading the selector faults (a selector loads here without it)" \
		test "$rc $(cat fake.out)" = "139 modify_ldt: 0"
else skip "an LDT selector without restrict: $(cat ldt.out)"; fi
"$RESTRICT" --no-prefs ./probe perf >bad.out 2>&1
check "a bad flag: exit 2, one line that names it" test $? -eq 2 -a "$(wc -l <bad.out)" -eq 1 \
	-a "$(grep -c "unknown flag '--no-prefs'; usage: restrict " bad.out)" -eq 1
"$RESTRICT" --no-ldt --fake-ldt ./probe perf >bad.out 2>&1
check "--no-ldt with --fake-ldt: exit 2, one line" test $? -eq 2 -a "$(wc -l <bad.out)" -eq 1

# ==== the programs ===================================================================
G="$ROOT/tests/gdb/progs" B="$ROOT/tests/hunt/bugs"
{ "$SICC" -O1 -g -o racy "$G/racy.c" && "$SICC" -O1 -g -o condsleep "$G/condsleep.c" &&
	"$SICC" -O2 -g -o rounds "$ROOT/examples/rounds.c" &&
	"$SICC" -O2 -g -fstack-protector-strong -o tls "$ROOT/tests/pthread/tls.c" &&
	"$SICC" -O2 -g -o layout "$ROOT/tests/replay/progs/layout.c" &&
	"$SICC" -O2 -g -o lost_wakeup "$B/lost_wakeup.c" && "$SICC" -O2 -g -o pop_race "$B/pop_race.c"
} >build.out 2>&1 || { fail "build: $(head -c 300 build.out)"; summary; exit 1; }

# replays PROG FLAGS...: in $DIR, under RUN (a command prefix: env, restrict, setpriv;
# may be empty), record ./PROG with FLAGS (slices), then replay the log (with
# REPLAY_FLAGS). Sets why to what went wrong, or to nothing; log, rc and rrc to the log
# and the two exit statuses.
RUN=() DIR=$WORK n=0 REPLAY_FLAGS=()
replays() {
	local prog=$1
	log="$DIR/$1.$((n += 1)).bin"
	shift
	# (quiet on stderr: bash's "Segmentation fault" line)
	{ (cd "$DIR" && timeout 60 "${RUN[@]}" "./$prog" --record "$log" "$@" >"$log.rec" 2>"$log.rec.err"); } 2>/dev/null
	rc=$?
	{ (cd "$DIR" && timeout 60 "${RUN[@]}" "./$prog" --replay "$log" "${REPLAY_FLAGS[@]}" >"$log.rep" 2>"$log.rep.err"); } 2>/dev/null
	rrc=$?
	why=""
	if ! "$DUMP" --summary "$log" "$DIR/$prog" 2>&1 | grep -q 'the log is complete'; then
		why="$prog${*:+ $*}: no whole recording (exit $rc): $(head -n 2 "$log.rec.err" | tr '\n' ' ')"
	elif grep -q 'replay diverged\|died of' "$log.rep.err"; then
		why="$prog${*:+ $*}: $(grep -m 1 'replay diverged\|died of' "$log.rep.err")"
	elif [ $rc -ne $rrc ] || ! cmp -s "$log.rec" "$log.rep"; then
		why="$prog${*:+ $*}: the replay exited $rrc (recording: $rc), printed $(head -c 80 "$log.rep" | tr '\n' ' ')$(
			head -n 2 "$log.rep.err" | tr '\n' ' ')"
	fi
}
# replay_all NAME PROG FLAGS...: one recording per FLAGS (a word list), each replays.
replay_all() {
	local name=$1 prog=$2 bad=0 first="" f
	shift 2
	for f in "$@"; do
		replays "$prog" $f
		[ -z "$why" ] || { bad=$((bad + 1)); first=${first:-$why}; }
	done
	if [ $bad -eq 0 ]; then pass "$name: $prog, $# recordings replay exactly"
	else fail "$name: $prog, $bad of $# recordings did not replay: $first"; fi
}
SLICES=("--quantum 100us" "--quantum 50us" "--hunt=1" "--hunt=2" "--hunt=3")
HUNTS=("--hunt=1" "--hunt=2" "--hunt=3" "--hunt=4")

# ==== (a) the software stop ==========================================================
# Fine slices and the hunt's preemptions need a stop between counting points, at the
# logged pc: without a hardware breakpoint, forced, or where it never fires (the
# runtime has to notice). A runtime that does not read LIBREPLAY_TEST_DEAD_DEBUG_REGS
# replays with its hardware breakpoint, which fires here: those pass then.
for how in LIBREPLAY_OPTS=--breakpoints=software LIBREPLAY_TEST_DEAD_DEBUG_REGS=1; do
	RUN=(env "$how")
	for p in racy condsleep rounds; do replay_all "$how" $p "${SLICES[@]}"; done
	for p in lost_wakeup pop_race; do replay_all "$how" $p "${HUNTS[@]}"; done
done

# ==== (b) Docker's default seccomp profile ===========================================
# No perf_event_open, and no ADDR_NO_RANDOMIZE: the layout is not fixed, so a replay
# refuses on one line (below) unless told the program does not depend on addresses
# (--any-layout, as these do not).
RUN=("$RESTRICT" --no-perf --docker-personality) REPLAY_FLAGS=(--any-layout)
for p in racy condsleep rounds; do replay_all "Docker-like filter" $p "--quantum 100us" "--hunt=1" "--chaos=7"; done
replay_all "Docker-like filter" lost_wakeup "${HUNTS[@]}"
REPLAY_FLAGS=()
# layout_replay NAME: layout's addresses come from a layout the runtime could not fix:
# its replay prints the recorded ones, or refuses on one line and exits non-zero.
layout_replay() {
	replays layout
	if [ -z "$why" ]; then pass "$1: layout replays to the recorded addresses"
	elif [[ $why == *"no whole recording"* ]] || [ -s "$log.rep" ] || [ $rrc -eq 0 ] ||
		[ "$(wc -l <"$log.rep.err")" -ne 1 ]; then
		fail "$1: layout: $why"
	else pass "$1: layout's replay refuses on one line: $(cat "$log.rep.err")"; fi
}
layout_replay "Docker-like filter"
RUN=("$RESTRICT" --docker-personality)
layout_replay "personality refused (perf allowed)"

# ==== (c) no LDT selectors ===========================================================
# Refused (EPERM), or accepted and faulting when loaded (a KVM guest's kernel).
for f in --no-ldt --fake-ldt; do
	RUN=("$RESTRICT" "$f")
	for p in tls racy condsleep; do replay_all "restrict $f" $p "--quantum 100us" "--hunt=1" "--hunt=2"; done
done

# ==== (d) an ordinary user ===========================================================
# nobody, when the suite runs as root (CI does), in a directory of its own with copies
# of what it runs (the build tree need not be readable to it); else the suite's user.
if [ "$(id -u)" -eq 0 ]; then
	DIR=$(mktemp -d /tmp/restricted.XXXXXX) && trap "rm -rf '$DIR'" EXIT  # (now: DIR changes below)
	AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$DIR")
	who=nobody
else
	DIR=$WORK/user AS=() who=$(id -un)
	mkdir -p "$DIR"
fi
mkdir -p "$DIR/bin" "$DIR/share/libreplay/gdb"
cp probe racy condsleep lost_wakeup "$RESTRICT" "$DIR/" &&
	cp "$RGDB" "$ROOT/build/bin/replay-hunt" "$DIR/bin/" &&
	cp "$ROOT"/build/share/libreplay/gdb/*.py "$DIR/share/libreplay/gdb/" || fail "copies for $who"
[ "$(id -u)" -ne 0 ] || chown -R nobody:nogroup "$DIR"
# perf_event_open as that user: where it is refused (perf_event_paranoid 3 or 4, as on
# Debian and Ubuntu), these wait for the software stop too.
perf=$(cd "$DIR" && "${AS[@]}" ./probe perf 2>&1)
RUN=("${AS[@]}")
for p in racy condsleep; do replay_all "as $who ($perf)" $p "--quantum 100us" "--hunt=1" "--hunt=2"; done
# ... and where the kernel refuses it to ordinary users (Debian's and Ubuntu's): the
# software stop, chosen by the runtime.
RUN=("${AS[@]}" ./restrict --no-perf)
for p in racy condsleep; do replay_all "as $who, perf_event_open refused" $p "--quantum 100us" "--hunt=1" "--hunt=2"; done
RUN=("${AS[@]}")
(cd "$DIR" && timeout 120 "${AS[@]}" bin/replay-hunt --runs 12 --stop --keep keep -- ./lost_wakeup \
	>hunt.out 2>&1)
first=$(sed -n 's/^first failing run: \([0-9]*\).*deadlock.*/\1/p' "$DIR/hunt.out")
if [ -z "$first" ]; then
	fail "as $who: replay-hunt did not find lost_wakeup's deadlock: $(head -n 3 "$DIR/hunt.out" | tr '\n' ' ')"
else
	(cd "$DIR" && timeout 60 "${AS[@]}" ./lost_wakeup --replay keep/run-$first.bin >hunt.rep 2>hunt.err)
	rc=$?
	if [ $rc -eq 87 ] && cmp -s "$DIR/hunt.rep" "$DIR/keep/run-$first.out" &&
		! grep -q 'replay diverged\|died of' "$DIR/hunt.err"; then
		pass "as $who: replay-hunt finds lost_wakeup's deadlock (run $first), and it replays (exit 87)"
	else fail "as $who: lost_wakeup's run $first replayed with exit $rc: $(head -c 200 "$DIR/hunt.err")"; fi
fi
# gdb on a replay, as that user (and with perf_event_open refused to it): a breakpoint,
# info rthreads, the recorded end.
replays racy --quantum 100us
for how in "" --no-perf; do
	(cd "$DIR" && timeout 300 "${AS[@]}" ${how:+./restrict $how} bin/replay-gdb ./racy "$log" -batch -nx \
		-ex 'break bump' -ex run -ex 'info rthreads' -ex delete -ex continue >gdb.out 2>&1)
	if grep -qxF "$(cat "$log.rec")" "$DIR/gdb.out" && grep -q 'exited normally' "$DIR/gdb.out" &&
		grep -q '^Breakpoint 1, bump' "$DIR/gdb.out" && grep -Eq '^  Id +State +Count +Where' "$DIR/gdb.out" &&
		! grep -q 'replay diverged\|died of' "$DIR/gdb.out"; then
		pass "as $who${how:+, perf_event_open refused}: gdb on a replay stops at a breakpoint, lists the green threads, ends as recorded"
	else fail "as $who${how:+ $how}: gdb on a replay: $(grep -v '^\[' "$DIR/gdb.out" | tail -n 4 | tr '\n' ' ')"; fi
	# ... and says once why its breakpoints are in software, where perf refused them
	[ -n "$how" ] || continue
	n=$(grep -c "^libreplay: perf_event_open refuses a hardware breakpoint (Operation not permitted): the replay's breakpoints are in software, and the runtime follows watchpoints by comparing values\$" "$DIR/gdb.out")
	[ "$n" = 1 ] && pass "as $who, perf_event_open refused: gdb says once, in one line, why the breakpoints are in software" ||
		fail "as $who, perf_event_open refused: $n lines say why the breakpoints are in software: $(grep -m 2 '^libreplay:' "$DIR/gdb.out" | tr '\n' ' ')"
done

# ==== (e) gdb with the software stop ==================================================
# The same session on one recording with the hardware breakpoint (the reference) and
# with the software stop, forced or where the debug registers never fire: the same
# stops, the same values, info rthreads, the recorded end.
RUN=() DIR=$WORK
replays racy --quantum 100us
session=(-ex 'break racy.c:14' -ex run)
for _ in 1 2 3; do session+=(-ex 'continue 3000' -ex 'print total' -ex 'print $rcount(2) + $rcount(3) + $rcount(4)'); done
session+=(-ex 'info rthreads' -ex delete -ex continue)
# stops OUT: what a session saw (its stops and values; the rthreads' table)
stops() { grep -E '^(Breakpoint 1,|\$[0-9]+ = |[* ] +[0-9]+ +(running|runnable|blocked))' "$1"; }
for how in hardware LIBREPLAY_OPTS=--breakpoints=software LIBREPLAY_TEST_DEAD_DEBUG_REGS=1; do
	out=gdb-${how%%=*}.out
	env ${how/hardware/} timeout 300 "$RGDB" ./racy "$log" -batch -nx "${session[@]}" >"$out" 2>&1
	if ! grep -qxF "$(cat "$log.rec")" "$out" || ! grep -q 'exited normally' "$out" ||
		grep -q 'replay diverged\|died of' "$out"; then
		fail "gdb, $how: the replay did not end as recorded: $(grep -m 1 '^libreplay:' "$out" ||
			grep -v '^\[' "$out" | tail -n 3 | tr '\n' ' ')"
	elif [ "$(stops "$out" | grep -c '^\$')" -ne 6 ] || ! stops "$out" | grep -Eq '^\* +[234] +running'; then
		fail "gdb, $how: $(stops "$out" | grep -c '^\$') values printed (want 6), info rthreads: $(grep -c running "$out") running"
	elif [ "$how" != hardware ] && ! cmp -s <(stops gdb-hardware.out) <(stops "$out"); then
		fail "gdb, $how: other stops than with the hardware breakpoint: $(diff <(stops gdb-hardware.out) <(stops "$out") | head -n 3 | tr '\n' ' ')"
	else pass "gdb, $how: break, 3 x continue 3000, info rthreads$([ "$how" = hardware ] ||
		echo ': the hardware session'"'"'s stops and values'), the recorded end"; fi
	# why the breakpoints are in software: once where the debug registers do not
	# fire, never where the user asked for it (or they work)
	n=$(grep -c "^libreplay: .*: the replay's breakpoints are in software, and the runtime follows watchpoints by comparing values\$" "$out")
	want=0
	[ "$how" = LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 ] && want=1 &&
		n=$(grep -c "^libreplay: the debug registers do not fire here (a hardware breakpoint on a function called 3 times saw 0): the replay's breakpoints are in software, and the runtime follows watchpoints by comparing values\$" "$out")
	[ "$n" = $want ] && pass "gdb, $how: $want line$([ $want = 1 ] || echo s) saying why the breakpoints are in software" ||
		fail "gdb, $how: $n lines say why the breakpoints are in software, want $want"
done
summary
