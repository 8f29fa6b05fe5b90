#!/bin/bash
# The recording's addresses (libreplay/engine/schedule/layout.c): a program whose output depends
# on addresses (progs/ptr_table.c: four threads fill a table keyed by heap pointers)
# replays to its recording's output, or the replay refuses on one line (exit 2) where
# it cannot have the recording's addresses: never another output with exit 0.
# restrict --docker-personality (tests/lib/restrict.c) refuses
# personality(ADDR_NO_RANDOMIZE) as Docker's default seccomp profile does, so ASLR
# stays on.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
T="$ROOT/tests/layout"
cd "$WORK" || exit 1
need_restrict
NOPERSONA=("$RESTRICT" --docker-personality)
REFUSAL="^libreplay: [^ ]*: cannot give the replay the recording's addresses: .*; --any-layout replays anyway"

"$SICC" -O2 -g -o ptr_table "$T/progs/ptr_table.c" >build.out 2>&1 || { fail "ptr_table: build: $(head -n 3 build.out)"; summary; exit; }

# replayed NAME LOG [RUNNER...]: the replay of LOG (run by RUNNER) gave the recording's
# output and status, or one line of refusal and exit 2; says which in $WORK/NAME.how.
replayed() {
	local name=$1 log=$2; shift 2
	timeout 60 "$@" ./ptr_table --replay "$log" >"$name.out" 2>"$name.err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$name.err")" -eq 1 ] && grep -qE "$REFUSAL" "$name.err"; then
		echo refused >"$name.how"
	elif [ $rc -eq "$(cat "$log.rc")" ] && cmp -s "$name.out" "$log.out"; then
		echo same >"$name.how"
	else
		echo "rc $rc, $(head -c 200 "$name.out") (recorded: $(head -c 200 "$log.out")) $(head -c 300 "$name.err")" >"$name.how"
		return 1
	fi
}

# 1. Recorded as usual (ASLR off): the log notes the layout, the replay gives the output.
timeout 60 ./ptr_table --record plain.bin >plain.bin.out 2>plain.bin.err; echo $? >plain.bin.rc
check "a normal recording notes its layout, ASLR off" \
	bash -c "'$ROOT/build/bin/replay-dump' plain.bin | grep -q 'layout: ASLR off, exe'"
for i in 1 2; do
	replayed plain$i plain.bin
	check "... replay $i gives the recorded output" grep -qx same plain$i.how
done
if command -v gdb >/dev/null && [ -x "$ROOT/build/bin/replay-gdb" ]; then
	timeout 120 "$ROOT/build/bin/replay-gdb" ./ptr_table plain.bin -batch -ex run \
		>gdb.out 2>&1 </dev/null
	check "... and so does a replay under gdb (its environment differs)" \
		grep -qxF "$(cat plain.bin.out)" gdb.out
fi

# 2. Recorded and replayed where ASLR cannot be turned off: the recorded output or
# the refusal, every time.
"${NOPERSONA[@]}" ./ptr_table --record sec.bin >sec.bin.out 2>sec.bin.err; echo $? >sec.bin.rc
check "under the filter, the recording notes that ASLR stayed on" \
	bash -c "'$ROOT/build/bin/replay-dump' sec.bin | grep -q 'layout: ASLR on, personality failed'"
for i in 1 2 3; do
	replayed sec$i sec.bin "${NOPERSONA[@]}"
	check "... replay $i under the filter: the recorded output or one line of refusal ($(cat sec$i.how))" \
		grep -qxE "same|refused" sec$i.how
done
replayed sec4 sec.bin
check "... replayed where ASLR is off: the recorded output or one line of refusal ($(cat sec4.how))" \
	grep -qxE "same|refused" sec4.how

# 3. Recorded with ASLR off, replayed where it cannot be: refused, and why.
"${NOPERSONA[@]}" ./ptr_table --replay plain.bin >off.out 2>off.err
rc=$?
check "a log recorded with ASLR off, replayed under the filter: exit 2 (got $rc)" test $rc -eq 2
check "... one line naming what differs and why" bash -c "[ \$(wc -l <off.err) -eq 1 ] &&
	grep -qE \"\$1\" off.err && grep -qE \"\$2\" off.err" - "$REFUSAL" \
	"at 0x[0-9a-f]+, in the recording at 0x[0-9a-f]+.* \(ASLR could not be turned off here: personality: Operation not permitted\)"
check "... and nothing of the program's" test ! -s off.out
"${NOPERSONA[@]}" ./ptr_table --replay plain.bin --any-layout >any.out 2>any.err
rc=$?
check "... with --any-layout it runs, exit 0 (got $rc), and warns on one line" bash -c \
	"[ $rc -eq 0 ] && [ \$(wc -l <any.err) -eq 1 ] && grep -q 'warning: plain.bin: the replay runs at other addresses' any.err"
check "--any-layout is in --replay-help" bash -c "./ptr_table --replay-help | grep -q -- --any-layout"

summary
