#!/bin/bash
# replay-doctor (docs/tools.md): its lines on this machine, then on the machines
# tests/lib/restrict.c makes (perf refused, personality refused, LDT selectors that
# fault or are refused) and with debug registers that never fire; --json; and what it
# says agrees with what a program built with sicc meets under the same filter.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
DOCTOR="$ROOT/build/bin/replay-doctor"
RESTRICT="$ROOT/build/tests/restrict"
cd "$WORK" || exit 1

# doctor NAME [restrict flags]: its output in NAME.out, its status in NAME.rc
doctor() {
	local name=$1; shift
	if [ $# -gt 0 ]; then "$RESTRICT" "$@" -- "$DOCTOR" >"$name.out" 2>"$name.err"
	else "$DOCTOR" >"$name.out" 2>"$name.err"; fi
	echo $? >"$name.rc"
}
# line NAME LABEL REGEX: NAME.out's line for LABEL matches REGEX after the label
line() { grep -E "^$2 +$3" "$1.out"; }

doctor plain
check "doctor: exits 0 here, nothing on stderr" test "$(cat plain.rc)" = 0 -a ! -s plain.err
check "doctor: one line for each of the 7 features" bash -c \
	"for l in 'LDT selectors' FSGSBASE 'hardware breakpoints' 'software trap' 'ASLR control' 'ptrace \(for gdb\)' perf_event_paranoid; do
		[ \$(grep -Ec \"^\$l \" plain.out) = 1 ] || exit 1; done; [ \$(wc -l <plain.out) = 7 ]"
check "doctor: the TLS path taken and a switch's cost in ns" \
	line plain 'LDT selectors' '.* -> TLS path: (LDT selectors|wrfsbase|arch_prctl), [0-9]+ ns a switch$'
check "doctor: the software trap fires here" line plain 'software trap' 'fires \(trap byte written through (/proc/self/mem|mprotect)\)$'
check "doctor: perf_event_paranoid as the kernel says it" \
	line plain perf_event_paranoid "$(cat /proc/sys/kernel/perf_event_paranoid)$"

LIBREPLAY_TEST_DEAD_DEBUG_REGS=1 doctor dead
if line plain 'hardware breakpoints' 'refused' >/dev/null; then # perf refused here (paranoid 3, a filter)
	check "doctor, dead debug registers where perf is refused: refused; the software trap taken" \
		line dead 'hardware breakpoints' 'refused \(perf_event_open: [A-Z]+\) +-> replay stops: software trap byte'
else
	check "doctor, dead debug registers: open, never fire; the software trap taken" \
		line dead 'hardware breakpoints' 'open, never fire \(0 of 3 hits\) +-> replay stops: software trap byte \((/proc/self/mem|mprotect)\)$'
fi
check "doctor, dead debug registers: still exits 0" test "$(cat dead.rc)" = 0

doctor noperf --no-perf
check "doctor --no-perf: perf refused, the software trap taken, exit 0" bash -c \
	"$(declare -f line); line noperf 'hardware breakpoints' 'refused \(perf_event_open: EPERM\) +-> replay stops: software trap byte' && [ \$(cat noperf.rc) = 0 ]"

doctor pers --docker-personality
check "doctor --docker-personality: ASLR control refused, a replay refuses where the layout differs" \
	line pers 'ASLR control' 'refused \(personality: EPERM\) +-> a replay refuses where the layout differs \(--any-layout\)$'
if setarch -R true 2>/dev/null; then
	check "doctor: ASLR control works without the filter" \
		line plain 'ASLR control' 'works \(2 re-execs, the same addresses\)'
else skip "ASLR control without the filter: setarch -R refused here"; fi

doctor fake --fake-ldt
check "doctor --fake-ldt: LDT selectors fault in a child; another TLS path taken" \
	line fake 'LDT selectors' 'fault \(SIGSEGV in a child\) +-> TLS path: (wrfsbase|arch_prctl), [0-9]+ ns a switch$'
doctor noldt --no-ldt
check "doctor --no-ldt: modify_ldt refused" \
	line noldt 'LDT selectors' 'refused \(modify_ldt: EPERM\) +-> TLS path: (wrfsbase|arch_prctl)'

# A program built with sicc, under the same filter, takes the path the doctor named.
"$SICC" -O2 -o racy "$ROOT/examples/racy_counter.c" >racy.build 2>&1 || fail "racy_counter: build: $(head -c 300 racy.build)"
"$RESTRICT" --fake-ldt -- ./racy --no-record --tls=ldt >racy.out 2>racy.err
want=$(sed -n 's/.*-> TLS path: \([^,]*\),.*/\1/p' fake.out)
check "doctor --fake-ldt agrees with a sicc program's --tls=ldt ($want)" \
	grep -q "^libreplay: --tls=ldt: this machine's LDT selectors fault; using $want$" racy.err

"$RESTRICT" --no-perf --docker-personality --fake-ldt -- "$DOCTOR" --json >all.json 2>all.err
check "doctor --json: one object that parses, agreeing with the text" python3 - all.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["replay_possible"] is True and j["why_not"] == "", j
assert j["ldt"]["state"] == "faults" and j["tls_path"] in ("fsgsbase", "syscall"), j["ldt"]
assert j["hardware_breakpoint"]["state"] == "refused" and j["breakpoint"] == "software", j
assert j["software_trap"]["state"] == "works" and j["aslr_control"]["state"] == "refused", j
assert j["switch_ns"] > 0 and j["perf_event_paranoid"]["state"] == "value", j
for k in ("fsgsbase", "ptrace"):
    assert j[k]["state"] in ("works", "absent", "refused", "faults"), j[k]
PY
"$DOCTOR" --bogus >bad.out 2>bad.err
rc=$?
check "doctor: an unknown flag is refused on one line, exit 2" bash -c \
	"[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ] && grep -q 'unknown flag' bad.err"
check "doctor --help: usage, exit 0" bash -c "'$DOCTOR' --help | grep -q '^usage: replay-doctor'"
summary
