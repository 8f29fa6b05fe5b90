#!/bin/bash
# gdb on -g code with direct entries (sicpp/dwarf.c, docs/sic.md "Direct entries"): the
# same program built `gcc -O2 -g` and `sicc -O2 -g`, the same gdb sessions on both (the
# sicc build run --no-record, and replayed under replay-gdb; again with
# -fcf-protection, whose endbr64 is where gdb breaks in a function without a frame),
# and what gdb says of the program's functions and lines must be the same: `break f` (one location, the same
# line), the stop, bt, finish and its value, info frame, stepping into a function by a
# direct call and through a pointer, and out of it. And the sicc build must have the
# direct entries: calls by name skip the entry check.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/gdb/progs/direct"
cd "$WORK" || exit 1
command -v gdb >/dev/null || { skip "no gdb"; summary; exit 0; }

gcc -O2 -g -o plain "$P/main.c" "$P/lib.c" && "$SICC" -O2 -g -o sic "$P/main.c" "$P/lib.c" ||
	{ fail "build"; summary; exit 1; }
[ "$(./plain)" = "$(./sic --no-record)" ] && pass "same output" || fail "the builds' outputs differ"

# The direct entries: work (called by name from the other file) has one, and the calls
# go there; its DWARF describes it by ranges, the body first.
check "-g: work has a direct entry" bash -c "nm sic | grep -q ' work.sic_direct$'"
# from another file, at its cross-file entry: a count and a jump to the direct entry,
# with a line row (a link that compiles too keeps the count: sicpp/xcall.c)
check "-g: main and twice call work's cross-file entry" bash -c \
	"[ \$(objdump -d --no-show-raw-insn sic | grep -c 'call.*<work.sic_xcall>') -ge 3 ]"
check "-g: work's DIE has DW_AT_ranges" bash -c \
	"readelf --debug-dump=info sic 2>/dev/null | grep -A12 'DW_AT_name.*: work$' | grep -q DW_AT_ranges"
# by_ptr's address is taken in its file: its check stays in its body (a call through the
# pointer must land where `step` goes in)
check "-g: checked (hot and cold parts) has a direct entry" bash -c "nm sic | grep -q ' checked.sic_direct$'"
check "-g: by_ptr (address taken) has none" bash -c "! nm sic | grep -q 'by_ptr.sic_direct'"

# norm: what gdb said of the program, without addresses, argument values (gcc's entry
# values differ with -ffixed-r15) or the runtime's frames under main.
norm() {
	sed -E -e 's#/[^ :]*/##g' "$1" | awk '
	/^Breakpoint [0-9]+ at 0x[0-9a-f]+: file / { sub(/,$/, "", $6); sub(/\.$/, "", $8); print "break", $6 ":" $8; next }
	/^Breakpoint [0-9]+ at .*locations\)/ { print "break: several locations"; next }
	/^Breakpoint [0-9]+, / { f = $3; for (i = 4; i <= NF; i++) if ($i == "at") l = $(i + 1); print "stop", f, l; next }
	/^#[0-9]+ / { if (main) next; f = ($3 == "in") ? $4 : $2; for (i = 3; i <= NF; i++) if ($i == "at") l = $(i + 1)
		print "frame", f, l; if (f == "main") main = 1; next }
	/^Run till exit from/ { main = 0; print "finish"; next }
	/^Value returned is/ { print "value", $NF; next }
	/^ rip = / { print "rip", $5, $6; next }
	/^[0-9]+\t/ { print "line", $1; next }
	/^(0x[0-9a-f]+ in )?[A-Za-z_][A-Za-z0-9_]* \(.*\) at [^ ]+:[0-9]+$/ {
		f = ($2 == "in") ? $3 : $1; main = 0; print "at", f, $NF; next }
	/^(Continuing|Starting program)/ { main = 0 }'
}

cat >s1.gdb <<'EOF'
set startup-with-shell off
break work
run
bt
info frame
finish
continue
bt
EOF
cat >s2.gdb <<'EOF'
set startup-with-shell off
break main.c:26
break main.c:28
run
step
bt
step
step
step
step
step
step
step
step
step
continue
step
bt
step
step
EOF
cat >s3.gdb <<'EOF'
set startup-with-shell off
break by_ptr
break square
run
bt
finish
continue
bt
finish
EOF
# scale: a leaf of lib.c that main.c's by_ptr calls by name (its count at its body's
# start in the sicc -g build, where every call comes)
cat >s4.gdb <<'EOF'
set startup-with-shell off
break scale
run
bt
finish
continue
EOF
cat >s5.gdb <<'EOF'
set startup-with-shell off
break main.c:12
run
step
bt
step
step
EOF
# checked: split by gcc into hot and cold parts, called from main.c's twice
cat >s6.gdb <<'EOF'
set startup-with-shell off
break checked
run
bt
finish
EOF
cat >s7.gdb <<'EOF'
set startup-with-shell off
break main.c:21
run
step
bt
step
step
EOF
# sessions TAG: the sessions on ./plain, ./sic and a replay of ./sic
sessions() {
	local tag=$1 s b
	./sic --record sic.log >/dev/null 2>&1 || fail "record ($tag)"
	for s in s1 s2 s3 s4 s5 s6 s7; do
		timeout 300 gdb -batch -nx -x $s.gdb ./plain >$s.plain.out 2>&1
		timeout 300 gdb -batch -nx -x $s.gdb --args ./sic --no-record >$s.sic.out 2>&1
		timeout 600 "$ROOT/build/bin/replay-gdb" ./sic sic.log -batch -nx -x $s.gdb >$s.replay.out 2>&1
		norm $s.plain.out >$s.plain.n
		norm $s.sic.out >$s.sic.n
		norm $s.replay.out >$s.replay.n
		[ "$(grep -c . $s.plain.n)" -ge 5 ] || { fail "$s ($tag): gcc's session says too little: $(tr '\n' ' ' <$s.plain.n)"; continue; }
		for b in sic replay; do
			if cmp -s $s.plain.n $s.$b.n; then pass "$s ($tag, $b): gdb says what it says of gcc's build"
			else fail "$s ($tag, $b): $(diff $s.plain.n $s.$b.n | grep '^[<>]' | head -n 6 | tr '\n' ' ')"; fi
		done
	done
}
sessions -O2
# What the sessions went through, so a pass means something.
grep -q '^break lib.c:15$' s1.sic.n && grep -q '^value 15$' s1.sic.n && grep -q '^frame twice main.c:20$' s1.sic.n &&
	pass "s1: break work, finish, bt through twice" || fail "s1: $(tr '\n' ' ' <s1.sic.n)"
grep -q '^at work lib.c:15$' s2.sic.n && grep -q '^at square lib.c:7$' s2.sic.n && grep -q '^at by_ptr main.c:12$' s2.sic.n &&
	grep -q '^at scale lib.c:24$' s2.sic.n && grep -q '^at by_ptr main.c:13$' s2.sic.n &&
	pass "s2: step into work (direct entry), square, by_ptr (pointer), scale and out" || fail "s2: $(tr '\n' ' ' <s2.sic.n)"
grep -q '^break lib.c:24$' s4.sic.n && grep -q '^frame by_ptr main.c:12$' s4.sic.n && grep -Eq '^value [0-9]+$' s4.sic.n &&
	grep -q '^at scale lib.c:24$' s5.sic.n && grep -q '^at by_ptr main.c:13$' s5.sic.n && grep -q '^at main main.c:29$' s5.sic.n &&
	pass "s4, s5: break scale, bt, finish, step into a leaf of another file and out" ||
	fail "s4, s5: $(tr '\n' ' ' <s4.sic.n) / $(tr '\n' ' ' <s5.sic.n)"
grep -q '^break lib.c:31$' s6.sic.n && grep -q '^frame twice main.c:21$' s6.sic.n && grep -Eq '^value [0-9]+$' s6.sic.n &&
	grep -q '^at checked lib.c:31$' s7.sic.n &&
	pass "s6, s7: break checked (hot and cold), bt, finish, step into it from another file" ||
	fail "s6, s7: $(tr '\n' ' ' <s6.sic.n) / $(tr '\n' ' ' <s7.sic.n)"

# Compiled, then linked by sicc: its link step points work's cross-file entry at the
# direct entry (no cycle needs its count), where a step from main.c comes.
"$SICC" -O2 -g -c -o main.o "$P/main.c" && "$SICC" -O2 -g -c -o lib.o "$P/lib.c" && "$SICC" -O2 -g -o sic main.o lib.o ||
	{ fail "build from objects"; summary; exit 1; }
direct_calls() {
	local d
	d=$(nm sic | sed -n 's/^0*\([0-9a-f]*\) T work.sic_direct$/\1/p')
	[ -n "$d" ] && objdump -d --no-show-raw-insn sic | grep -cE "call +$d "
}
check "-g objects: main's calls to work go to its direct entry" bash -c "[ $(direct_calls) -ge 3 ]"
sessions "-O2, objects"

gcc -O2 -g -fcf-protection -o plain "$P/main.c" "$P/lib.c" &&
	"$SICC" -O2 -g -fcf-protection -o sic "$P/main.c" "$P/lib.c" || { fail "build -fcf-protection"; summary; exit 1; }
check "-fcf-protection: work's check and body start with endbr64" bash -c \
	"objdump -d --no-show-raw-insn sic | grep -A1 -E '^[0-9a-f]+ <work(.sic_direct)?>:' | grep -c endbr64 | grep -qx 2"
sessions "-O2 -fcf-protection"
summary
