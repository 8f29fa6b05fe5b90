#!/bin/bash
# What the counter does not support fails with one line (docs/sic.md, "Not
# supported"): callbacks nested through uninstrumented code deeper than a thread's
# side stack.
. "$(dirname "$0")/../lib/common.sh"
L="$ROOT/tests/e2e/limits"
"$SICC" -O2 -o "$WORK/nested" "$L/nested_callbacks.c" &&
	"$SICC" -O2 -DTHREAD -o "$WORK/nested_thread" "$L/nested_callbacks.c" || fail "build"
for t in "nested 4096" "nested_thread 256"; do
	exe=${t% *} n=${t#* }
	out=$("$WORK/$exe" --no-record 2>&1); rc=$?
	want="libreplay: more than $n nested calls from uninstrumented code into instrumented code"
	if [ $rc -ne 0 ] && [ "$out" = "$want" ]; then
		pass "$exe: one line, exit $rc"
	else
		fail "$exe: exit $rc, said '$(echo "$out" | head -c 200)', want '$want'"
	fi
done
summary
