# Shared helpers for the shell tests: sourced, never run.
# Every test script prints "PASS name" or "FAIL name: why" lines through these.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SICC="$ROOT/build/bin/sicc"
SICXX="$ROOT/build/bin/sic++"
SICPP="$ROOT/build/bin/sicpp"
LIBREPLAY="$ROOT/build/lib/libreplay.a"
# tests/lib/restrict.c: runs a command as a restricted machine would (make builds it).
RESTRICT="$ROOT/build/tests/restrict"
WORK="$ROOT/build/test-work/$(basename "$(dirname "$0")")-$(basename "$0" .sh)"
# Programs built with sicc record by default: keep their logs out of the tree and out
# of $HOME (a run given no --record FILE records into the recording directory).
export LIBREPLAY_OPTS="${LIBREPLAY_OPTS:---record $WORK/log.bin}"
export LIBREPLAY_DIR="$WORK/recordings"
rm -rf "$WORK" && mkdir -p "$WORK"
# Whatever stdin the suite was started with (a terminal, a pipe from a CI runner), its
# programs read none of it: a recording notes its stdin, and one recorded on a pipe and
# replayed on another warns; replay-hunt under script(1) waited on a pipe for ever.
exec </dev/null
npass=0
nfail=0
nskip=0

pass() { echo "PASS $*"; npass=$((npass + 1)); }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $*"; nskip=$((nskip + 1)); }

# gdb_cannot_call: what gdb says when it cannot call a function in a program on this
# machine, or nothing. gdb 13 cannot write the extended state of a CPU whose XSAVE
# area it does not know (AMX's: Xeon Sapphire Rapids and later), which every call (and
# so every checkpoint, a fork() called in the program) saves and restores; the
# extension then refuses to checkpoint (libreplay/gdb/timetravel.py, fpu_refusal).
gdb_cannot_call() {
	gdb -nx -batch -ex starti -ex 'set $mxcsr = $mxcsr ^ 0x40' /bin/true 2>&1 </dev/null |
		sed -n "s/^\(Couldn't write extended state[^.]*\)\.*$/\1/p" | head -n 1
}

# check NAME COMMAND...: pass if the command succeeds.
check() {
	name=$1; shift
	if "$@" >"$WORK/last.out" 2>&1; then pass "$name"; else
		fail "$name: $(tail -n 3 "$WORK/last.out" | tr '\n' ' ')"; fi
}

# need_restrict: the suite runs commands under $RESTRICT; without it, one FAIL and the end.
need_restrict() {
	[ -x "$RESTRICT" ] || { fail "no $RESTRICT: make builds it"; summary; exit 1; }
}

summary() {
	if [ "$nskip" -gt 0 ]; then echo "$npass passed, $nfail failed, $nskip skipped"
	else echo "$npass passed, $nfail failed"; fi
	[ "$nfail" -eq 0 ]
}
