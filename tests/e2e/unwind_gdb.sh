#!/bin/bash
# gdb walks through instrumented frames: stopped inside the counter's overflow
# routine (reached from an out-of-line stub with its own FDE), `bt` reaches main;
# stopped in a callback entered from foreign code through __sic_foreign_entry (its
# CFI finds the caller's return address in the side stack), too.
. "$(dirname "$0")/../lib/common.sh"
if ! command -v gdb >/dev/null; then fail "gdb is not installed (make deps)"; summary; exit; fi
for opt in -O0 -O2 "-O2 -fPIC"; do
	exe="$WORK/deep${opt// /}"
	"$SICC" $opt -g -o "$exe" "$ROOT/tests/e2e/unwind/deep.c"
	LIBREPLAY_SIC_STRESS=50 gdb -batch -nx -ex 'break rp_sic_overflow_quick' -ex 'ignore 1 5' -ex run -ex bt \
		--args "$exe" >"$exe.gdb" 2>&1
	frames=$(grep -E '^#[0-9]+' "$exe.gdb")
	if echo "$frames" | grep -q 'leaf3' && echo "$frames" | grep -q 'mid2' &&
	   echo "$frames" | grep -q 'top1' && echo "$frames" | grep -qE ' (__sic_)?main '; then
		pass "gdb bt from the overflow routine reaches main ($opt)"
	else
		fail "gdb bt ($opt): $(echo "$frames" | tr '\n' ' ' | head -c 400)"
	fi
	if grep -q 'Backtrace stopped' "$exe.gdb"; then
		fail "gdb bt ($opt) stopped early: $(grep 'Backtrace stopped' "$exe.gdb")"
	fi
	exe="$WORK/callback${opt// /}"
	"$SICC" $opt -g -o "$exe" "$ROOT/tests/e2e/unwind/callback.c"
	# line 11: at -O2 the first line rows of cmp (line 10's among them) are at its entry
	# check, before the slow path; gdb stops there, as at a gcc build's entry
	gdb -batch -nx -ex 'break callback.c:11' -ex 'ignore 1 20' -ex run -ex bt \
		--args "$exe" --no-record >"$exe.gdb" 2>&1
	frames=$(grep -E '^#[0-9]+' "$exe.gdb")
	if echo "$frames" | grep -q 'cmp' && echo "$frames" | grep -q '__sic_foreign_entry' &&
	   echo "$frames" | grep -q 'qsort' && echo "$frames" | grep -qE ' (__sic_)?main '; then
		pass "gdb bt from a callback of qsort reaches main through the slow path ($opt)"
	else
		fail "gdb bt in a callback ($opt): $(echo "$frames" | tr '\n' ' ' | head -c 400)"
	fi
done
summary
