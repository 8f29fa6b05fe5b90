#!/bin/bash
# Input sicpp cannot instrument faithfully is refused with one line naming the file
# and line, a non-zero exit, and no output file left behind.
. "$(dirname "$0")/../lib/common.sh"
B="$ROOT/tests/e2e/bad"

# refuse NAME PATTERN COMMAND...: exits non-zero, one line on stderr matching PATTERN.
refuse() {
	name=$1 pattern=$2; shift 2
	if "$@" >"$WORK/out" 2>"$WORK/err"; then fail "$name: accepted"; return; fi
	lines=$(grep -c . "$WORK/err")
	if [ "$lines" -ne 1 ]; then fail "$name: $lines lines of error: $(head -c 300 "$WORK/err")"
	elif ! grep -Eq "$pattern" "$WORK/err"; then fail "$name: message '$(cat "$WORK/err")' lacks /$pattern/"
	else pass "$name"; fi
}

refuse "r15 in an instruction" 'uses_r15\.s:7: .*-ffixed-r15' "$SICPP" "$B/uses_r15.s" -o "$WORK/o.s"
check "no output file after an error" test ! -e "$WORK/o.s"
refuse "32-bit code" 'i386\.s:5: .*32-bit' "$SICPP" "$B/i386.s"
refuse "Intel syntax function" 'intel_fn\.s:[0-9]+: .*AT&T' "$SICPP" "$B/intel_fn.s"
refuse "another architecture" 'arm\.s:1: .*not x86-64' "$SICPP" "$B/arm.s"
refuse "missing input" 'nonexistent\.s: No such file' "$SICPP" "$WORK/nonexistent.s"
refuse "two inputs" 'one input' "$SICPP" "$B/arm.s" "$B/i386.s"
refuse "unknown flag" 'unrecognized|invalid' "$SICPP" --frobnicate "$B/arm.s"
# What gas reads otherwise than sicpp would: a label defined twice, a NUL byte (sicpp's
# line would end there), a control character outside a string.
gcc -O2 -S -ffixed-r15 -o "$WORK/f.s" "$ROOT/examples/racy_counter.c"
sed '0,/^main:$/s//main:\nmain:/' "$WORK/f.s" >"$WORK/dup_label.s"
refuse "a label defined twice" 'dup_label\.s:[0-9]+: .*label main defined twice \(first at line [0-9]+\)' \
	"$SICPP" "$WORK/dup_label.s" -o "$WORK/o.s"
sed '0,/^\tret$/s//\tret\x00\tnop/' "$WORK/f.s" >"$WORK/nul.s"
refuse "a NUL byte" 'nul\.s:[0-9]+: .*0x00 at column 5: a NUL byte' "$SICPP" "$WORK/nul.s" -o "$WORK/o.s"
sed '0,/^\tret$/s//\x0bret/' "$WORK/f.s" >"$WORK/vt.s"
refuse "a vertical tab" 'vt\.s:[0-9]+: .*0x0b at column 1: a control character' "$SICPP" "$WORK/vt.s" -o "$WORK/o.s"
check "no output file after them" test ! -e "$WORK/o.s"
printf '\t.section .rodata\ns:\t.string "a\vb"\n' >"$WORK/vt_string.s"
check "a vertical tab inside a string is kept" bash -c "'$SICPP' '$WORK/vt_string.s' | grep -q \$'\"a\\vb\"'"
# Through sicc the error also names the C line (gcc -g emits .loc).
if "$SICC" -g -c "$B/r15_inline.c" -o "$WORK/r.o" 2>"$WORK/err"; then fail "sicc: inline asm using r15 accepted"
elif grep -q 'inline assembly uses %r15.*(at .*r15_inline\.c:3)' "$WORK/err"; then pass "sicc: inline asm using r15, with C line"
else fail "sicc: message '$(cat "$WORK/err")'"; fi
check "sicc: no object after an error" test ! -e "$WORK/r.o"
# Inline assembly that leaves r15 alone passes through untouched.
printf 'int f(int x){ __asm__ volatile("1: decl %%0; jnz 1b" : "+r"(x)); return x; }\n' >"$WORK/ok.c"
check "inline asm without r15 accepted" "$SICC" -O2 -S "$WORK/ok.c" -o "$WORK/ok.s"
check "inline asm kept verbatim" grep -q '1: decl' "$WORK/ok.s"
printf 'int g;\nint main(void){ return g; }\n' >"$WORK/large.c"
refuse "sicc: large code model with PIE" 'mcmodel=large.*-fno-pie' "$SICC" -O2 -mcmodel=large -c "$WORK/large.c" -o "$WORK/large.o"
check "sicc: large code model without PIE" "$SICC" -O2 -mcmodel=large -fno-pie -no-pie -o "$WORK/large" "$WORK/large.c"
summary
