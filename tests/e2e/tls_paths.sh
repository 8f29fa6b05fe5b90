#!/bin/bash
# Each thread its own TLS whichever way switches load it (--tls=auto, ldt, fsgsbase,
# syscall), also where LDT selectors do not work: under a seccomp filter that makes
# modify_ldt return 0 without doing anything (loading the selector then faults, as
# on the KVM guest of design.md's "Machines differ") or fail with EPERM (restrict
# --fake-ldt, --no-ldt: tests/lib/restrict.c). A path this machine lacks falls back
# to the next with one line on stderr, never a crash.
. "$(dirname "$0")/../lib/common.sh"
T="$ROOT/tests/e2e/tls"
need_restrict
"$SICC" -O2 -o "$WORK/own_tls" "$T/own_tls.c" || { fail "build"; summary; exit; }
# the filters by name: modify_ldt returns 0 and does nothing, or fails with EPERM
declare -A LDT=([fake]=--fake-ldt [eperm]=--no-ldt)
# the kernel enabled FSGSBASE (AT_HWCAP2 bit 1)?
hwcap2=$(LD_SHOW_AUXV=1 /bin/true | sed -n 's/^AT_HWCAP2: *//p')
if (( ${hwcap2:-0} & 2 )); then base=fsgsbase base_how=wrfsbase; else base=syscall base_how=arch_prctl; fi
lines="thread 0: fresh yes, kept yes, sum yes
thread 1: fresh yes, kept yes, sum yes
thread 2: fresh yes, kept yes, sum yes
thread 3: fresh yes, kept yes, sum yes
thread 4: fresh yes, kept yes, sum yes
thread 5: fresh yes, kept yes, sum yes
main: id 100, others' ids through pointers yes"

# try FILTER TLS PATH [WARNING]: run under FILTER (none, fake, eperm) with --tls=TLS;
# PATH is the path it must use, WARNING its one line on stderr (none if empty).
try() {
	local filter=$1 tls=$2 path=$3 warn=${4:-} run=() out err rc
	[ "$filter" = none ] || run=("$RESTRICT" "${LDT[$filter]}")
	out=$("${run[@]}" "$WORK/own_tls" --no-record --tls="$tls" 2>"$WORK/err"); rc=$?
	err=$(cat "$WORK/err")
	if [ $rc -ne 0 ] || [ "$out" != "$lines"$'\n'"path: $path" ] || [ "$err" != "$warn" ]; then
		fail "$filter --tls=$tls: exit $rc, $(echo "$out" | grep -v yes | tail -n 2 | tr '\n' ' ')stderr '$err'"
	else
		pass "$filter --tls=$tls: $path${warn:+, warned}"
	fi
}
no_fsgsbase="libreplay: --tls=fsgsbase: this CPU or kernel does not offer FSGSBASE (AT_HWCAP2); using arch_prctl"
fsgsbase_warn=
[ $base = fsgsbase ] || fsgsbase_warn=$no_fsgsbase
# without a filter: what this machine's LDT selectors do (replay-doctor runs the
# runtime's own probe), so that a machine whose kernel refuses them, or whose
# selectors fault, passes too
ldt_here=$("$ROOT/build/bin/replay-doctor" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["ldt"]["state"])')
case $ldt_here in
works)
	try none auto ldt
	try none ldt ldt ;;
faults)
	try none auto $base
	try none ldt $base "libreplay: --tls=ldt: this machine's LDT selectors fault; using $base_how" ;;
refused)
	err=$("$ROOT/build/bin/replay-doctor" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["ldt"]["found"])' |
		sed -n 's/^refused (modify_ldt: \(.*\))$/\1/p')
	try none auto $base
	try none ldt $base "libreplay: --tls=ldt: the kernel refuses modify_ldt ($err); using $base_how" ;;
*)
	fail "replay-doctor says this machine's LDT selectors are '$ldt_here'" ;;
esac
try none fsgsbase $base "$fsgsbase_warn"
try none syscall syscall
for filter in fake eperm; do
	case $filter in
	fake) why="this machine's LDT selectors fault" ;;
	eperm) why="the kernel refuses modify_ldt (EPERM)" ;;
	esac
	try $filter auto $base
	try $filter ldt $base "libreplay: --tls=ldt: $why; using $base_how"
	try $filter fsgsbase $base "$fsgsbase_warn"
	try $filter syscall syscall
done

# recorded under the lying filter, replayed under it and without it
"$RESTRICT" --fake-ldt "$WORK/own_tls" --record "$WORK/fake.log" >"$WORK/rec.out" 2>&1
"$RESTRICT" --fake-ldt "$WORK/own_tls" --replay "$WORK/fake.log" >"$WORK/rep.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && cmp -s "$WORK/rec.out" "$WORK/rep.out" && grep -q "^path: $base$" "$WORK/rec.out"; then
	pass "fake: recorded and replayed"
else
	fail "fake: record/replay: exit $rc, $(diff "$WORK/rec.out" "$WORK/rep.out" | head -n 4 | tr '\n' ' ')"
fi
"$WORK/own_tls" --replay "$WORK/fake.log" >"$WORK/rep2.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && diff <(grep -v '^path:' "$WORK/rec.out") <(grep -v '^path:' "$WORK/rep2.out") >/dev/null; then
	pass "fake: replayed without the filter (path $(sed -n 's/^path: //p' "$WORK/rep2.out"))"
else
	fail "fake: replay without the filter: exit $rc, $(tail -n 3 "$WORK/rep2.out" | tr '\n' ' ')"
fi
summary
