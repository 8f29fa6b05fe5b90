#!/bin/bash
# Going back in time under gdb (docs/gdb.md): on four programs (a racy counter, the
# heisenbug example, condition variables with sleeps and timed waits, a blocking
# pipe), `replay goto` to random times in a shuffled order (backwards and forwards,
# from checkpoints) and the reverse commands land on states equal to those a fresh
# forward replay reaches at the same moment: registers, `info rthreads` and the
# program's variables are compared. Then `watch` + `reverse-continue` finds the last
# write in the heisenbug's failing run.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/gdb/progs"
RGDB="$ROOT/build/bin/replay-gdb"
cd "$WORK" || exit 1
SEED=${REVERSE_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "reverse.sh: random times from seed $SEED (REVERSE_SEED=$SEED to repeat)"
RANDOM=$SEED

# rgdb PROG OUT GDB-ARGS...: replay PROG.bin under gdb, stopped at the program's main
# first, checkpoints every 10 ms of replay (these programs run for a few hundred ms).
rgdb() {
	local prog=$1 out=$2; shift 2
	timeout 600 "$RGDB" "./$prog" "$prog.bin" -batch -nx -ex 'replay checkpoints every 0.01' \
		-ex 'break __sic_main' -ex run -ex delete "$@" >"$out" 2>&1
}
# state VARS...: gdb commands printing the state compared (no $N numbering).
state() {
	local args=(-ex 'echo <<\n' -ex 'replay when' -ex 'info registers rip rsp rbp rax rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 eflags' -ex 'info rthreads')
	for v in "$@"; do args+=(-ex "output $v" -ex 'echo \n'); done
	args+=(-ex 'echo >>\n')
	printf '%s\n' "${args[@]}"
}
# blocks OUT: each "@@ KEY" block of OUT as "KEY<TAB>line", gdb's own notes dropped.
blocks() {
	awk '/^@@ /{key=$2; on=0; next} /^<<$/{on=1; next} /^>>$/{on=0; next}
		on && key != "" && !/^\[/ && !/^libreplay: descriptor/ {print key "\t" $0}' "$1"
}
# at OUT: the "replay goto T:C@PC" of each block's moment.
at_of() { blocks "$1" | sed -n 's/^\([^\t]*\)\tthis instruction: replay goto \(.*\)$/\1 \2/p'; }

# reverse_suite NAME VARS...: build, record, and compare going back with going forward.
reverse_suite() {
	local name=$1; shift
	local src="$P/$name.c"
	[ -f "$src" ] || src="$ROOT/examples/$name.c"
	"$SICC" -O1 -g -o "$name" "$src" || { fail "$name: build"; return; }
	./"$name" --record "$name.bin" --quantum 100us >"$name.rec" 2>&1
	local end
	end=$("$ROOT/build/bin/replay-dump" --json "$name.bin" "$name" | python3 -c '
import json, sys
recs = json.load(sys.stdin)["records"]
ends = [r for r in recs if r.get("kind") == "END"]
print(sum(t["count"] for t in ends[-1]["threads"]) if ends else 0)')
	if [ -z "$end" ] || [ "$end" -lt 1000 ]; then fail "$name: no END record with counts in the log"; return; fi
	mapfile -t state_cmds < <(state "$@")
	# Five times at random in the run, in time order for the forward replay.
	local times=() t
	for k in 1 2 3 4 5; do times+=($((end / 20 + (RANDOM * 32768 + RANDOM) % (end * 9 / 10)))); done
	mapfile -t sorted < <(printf '%s\n' "${times[@]}" | sort -n)
	mapfile -t shuffled < <(printf '%s\n' "${times[@]}" | shuf --random-source=<(yes "$SEED"))
	local fwd=() rev=(-ex "replay goto ${sorted[4]}")
	for t in "${sorted[@]}"; do fwd+=(-ex "echo @@ $t\\n" -ex "replay goto $t"); for c in "${state_cmds[@]}"; do fwd+=("$c"); done; done
	for t in "${shuffled[@]}"; do rev+=(-ex "echo @@ $t\\n" -ex "replay goto $t"); for c in "${state_cmds[@]}"; do rev+=("$c"); done; done
	# The reverse commands, from the middle time: forward steps, then back.
	rev+=(-ex "replay goto ${sorted[2]}" -ex step -ex "echo @@ A\\n<<\\n" -ex 'replay when' -ex 'echo >>\n' -ex step -ex "echo @@ B\\n<<\\n" -ex 'replay when' -ex 'echo >>\n'
		-ex step -ex reverse-step -ex "echo @@ B2\\n<<\\n" -ex 'replay when' -ex 'echo >>\n' -ex reverse-step -ex "echo @@ A2\\n<<\\n" -ex 'replay when' -ex 'echo >>\n'
		-ex stepi -ex "echo @@ D\\n<<\\n" -ex 'replay when' -ex 'echo >>\n' -ex stepi -ex reverse-stepi -ex "echo @@ D2\\n<<\\n" -ex 'replay when' -ex 'echo >>\n')
	for cmd in reverse-next reverse-finish reverse-step reverse-stepi reverse-next; do
		rev+=(-ex "$cmd" -ex "echo @@ $cmd-$RANDOM\\n"); for c in "${state_cmds[@]}"; do rev+=("$c"); done
	done
	rgdb "$name" "$name.fwd" "${fwd[@]}" -ex continue
	rgdb "$name" "$name.rev" "${rev[@]}" -ex continue
	for f in fwd rev; do
		if ! grep -qxF "$(tail -n 1 "$name.rec")" "$name.$f" || ! grep -Eq "exited (normally|with code)" "$name.$f"; then
			fail "$name: the $f session did not end as recorded: $(grep -v '^\[' "$name.$f" | tail -n 3 | tr '\n' ' ')"; return
		fi
	done
	if [ "$(grep -c '^time [0-9]*: green thread' "$name.rev")" -lt 10 ]; then
		fail "$name: the reverse session stopped early: $(grep -iE 'error|no |cannot' "$name.rev" | head -n 3 | tr '\n' ' ')"; return
	fi
	# goto: each time's state backwards as forwards.
	local bad=0
	for t in "${sorted[@]}"; do
		if ! cmp -s <(blocks "$name.fwd" | grep "^$t	") <(blocks "$name.rev" | grep "^$t	"); then
			bad=1; diff <(blocks "$name.fwd" | grep "^$t	") <(blocks "$name.rev" | grep "^$t	") | head -n 6
		fi
	done
	[ $bad -eq 0 ] && [ "$(blocks "$name.fwd" | grep -c 'this instruction')" -eq 5 ] &&
		pass "$name: replay goto to 5 random times, shuffled, equals the forward replay (registers, rthreads, ${*})" ||
		fail "$name: replay goto backwards differs from forwards (seed $SEED)"
	# reverse-step and reverse-stepi retrace the forward steps.
	local w
	w() { blocks "$name.rev" | grep "^$1	this instruction"; }
	if [ -n "$(w A)" ] && [ "$(w A | cut -f2)" = "$(w A2 | cut -f2)" ] && [ "$(w B | cut -f2)" = "$(w B2 | cut -f2)" ] &&
		[ "$(w D | cut -f2)" = "$(w D2 | cut -f2)" ]; then
		pass "$name: reverse-step twice and reverse-stepi land where the steps forward stopped"
	else
		fail "$name: reverse-step/stepi: A=$(w A | cut -f2) A2=$(w A2 | cut -f2) B=$(w B | cut -f2) B2=$(w B2 | cut -f2) D=$(w D | cut -f2) D2=$(w D2 | cut -f2)"
	fi
	# Every reverse command's stop, reached again by a fresh forward replay.
	mapfile -t marks < <(at_of "$name.rev" | grep '^reverse' | sort -t: -k1,1)
	if [ ${#marks[@]} -ne 5 ]; then fail "$name: ${#marks[@]} of 5 reverse commands stopped: $(grep -iE 'error|cannot|No ' "$name.rev" | head -n 3 | tr '\n' ' ')"; return; fi
	local check=()
	# In time order, so that this replay only goes forward.
	mapfile -t marks < <(for m in "${marks[@]}"; do
		key=${m%% *} pos=${m#* }
		tm=$(blocks "$name.rev" | sed -n "s/^$key	time \([0-9]*\):.*/\1/p")
		echo "$tm $key $pos"; done | sort -n)
	for m in "${marks[@]}"; do
		set -- $m
		check+=(-ex "echo @@ $2\\n" -ex "replay goto $3"); for c in "${state_cmds[@]}"; do check+=("$c"); done
	done
	rgdb "$name" "$name.chk" -ex 'replay checkpoints off' "${check[@]}"
	bad=0
	for m in "${marks[@]}"; do
		set -- $m
		cmp -s <(blocks "$name.rev" | grep "^$2	") <(blocks "$name.chk" | grep "^$2	") ||
			{ bad=1; diff <(blocks "$name.rev" | grep "^$2	") <(blocks "$name.chk" | grep "^$2	") | head -n 6; }
	done
	[ $bad -eq 0 ] && pass "$name: reverse-next, -finish, -step, -stepi stop in states a forward replay reaches" ||
		fail "$name: a reverse command's stop differs from the forward replay's (seed $SEED)"
}

only=${REVERSE_ONLY:-racy condsleep pipe heisenbug}
want() { case " $only " in *" $1 "*) return 0;; esac; return 1; }
want racy && reverse_suite racy total turns
want condsleep && reverse_suite condsleep sum consumed timeouts head tail
want pipe && reverse_suite pipe bytes checksum
want heisenbug && reverse_suite heisenbug account done

# The walkthrough (docs/debugging.md): stop at the failure, watch the bad value, go
# back. Record the heisenbug until it fails.
[ -x heisenbug ] || "$SICC" -O1 -g -o heisenbug "$ROOT/examples/heisenbug.c"
failed=""
for try in $(seq 1 60); do
	./heisenbug --record bug.bin --chaos=$((try * 101)) >bug.rec 2>&1 || { failed=$try; break; }
done
if [ -z "$failed" ]; then fail "heisenbug: no failing recording in 60 tries"
else
	timeout 600 "$RGDB" ./heisenbug bug.bin -batch -nx -ex 'break heisenbug.c:33' -ex run \
		-ex 'print account' -ex 'watch account' -ex 'reverse-continue' -ex bt -ex 'replay when' \
		-ex 'print account' -ex 'delete 1' -ex continue -ex 'break heisenbug.c:33' -ex continue \
		-ex 'print account' -ex 'delete' -ex continue >watch.out 2>&1
	# Going forward from there, the write happens, and the next stop is the failure
	# again: no other write came between.
	if grep -q "^Old value = {" watch.out && grep -Eq '^#0 .* in transfer \(.*\) at .*heisenbug\.c:1[45]' watch.out &&
		grep -Eq '^#1 .* teller \(arg=' watch.out &&
		[ "$(grep -c "^Breakpoint 3, auditor" watch.out)" -eq 1 ] &&
		[ "$(grep -c '^Hardware watchpoint 2: account' watch.out)" -eq 3 ] &&
		[ "$(sed -n 's/^\$1 = //p' watch.out)" = "$(sed -n 's/^\$3 = //p' watch.out)" ]; then
		pass "heisenbug: watch account + reverse-continue stops at the last write, in transfer, in the teller's thread"
	else
		fail "heisenbug: watch + reverse-continue: $(grep -v '^\[' watch.out | grep -E 'value|#0|#1|Breakpoint|\$' | head -n 12 | tr '\n' ' ')"
	fi
	grep -qxF "$(tail -n 1 bug.rec)" watch.out && pass "heisenbug: the failing replay ends as recorded after going back" ||
		fail "heisenbug: output after going back: $(tail -n 3 watch.out | tr '\n' ' ')"
fi

# gdb's own checkpoint and restart work in a replay.
timeout 600 "$RGDB" ./racy racy.bin -batch -nx -ex 'replay checkpoints off' -ex 'break __sic_main' -ex run \
	-ex 'replay goto 3:200000' -ex checkpoint -ex 'print total' -ex 'replay goto 3:400000' -ex 'restart 1' \
	-ex 'print total' -ex 'replay goto 3:400000' -ex continue >own.out 2>&1
v1=$(sed -n 's/^\$1 = //p' own.out) v2=$(sed -n 's/^\$2 = //p' own.out)
[ -n "$v1" ] && [ "$v1" = "$v2" ] && grep -qxF "$(tail -n 1 racy.rec)" own.out &&
	pass "gdb's checkpoint and restart N in a replay: the same state, and the replay goes on exactly" ||
	fail "checkpoint/restart: $(grep -v '^\[' own.out | tail -n 6 | tr '\n' ' ')"
check "replay goto with a bad time: one line, an error" bash -c \
	"timeout 120 '$RGDB' ./racy racy.bin -batch -nx -ex 'break __sic_main' -ex run -ex 'replay goto soon' 2>&1 | grep -qx 'Usage: replay goto TIME | replay goto THREAD:COUNT\[@PC\]'"
summary
