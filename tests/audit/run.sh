#!/bin/bash
# --syscall-audit (libreplay/engine/ending/audit.c, docs/inputs.md): while recording,
# the system calls glibc makes past libreplay's wrappers are named, once each, with the
# program's function they came from; a program of wrapped calls gets no line; recording
# and replay still match with the audit on, through signals with glibc's restorer,
# fork, popen, system and preempted threads; off (the default), nothing is set up.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
cd "$WORK" || exit 1
need_restrict
T="$ROOT/tests/audit"
for p in escapes wrapped processes; do
	"$SICC" -O1 -g -o $p "$T/$p.c" -lpthread 2>build.err || { fail "$p: build: $(head -n 2 build.err)"; summary; exit 1; }
done
echo "hello audit" >input.txt
LINE='^libreplay: syscall audit: [a-z0-9_]+ in [^ ]+ \([^ ]+\+0x[0-9a-f]+\), called from [^ ]+: not recorded$'

# same NAME PROG LOG WANT: the replay of LOG prints WANT, exits 0, and does not diverge
same() {
	local name=$1 prog=$2 log=$3 want=$4 got rc
	got=$(./$prog --replay "$log" 2>replay.err)
	rc=$?
	if [ "$got" = "$want" ] && [ $rc -eq 0 ] && ! grep -q "diverged" replay.err; then pass "$name"
	else fail "$name: rc $rc, '$got' vs '$want': $(head -n 2 replay.err | tr '\n' ' ')"; fi
}

# ==== glibc's own calls are named ========================================================
want=$(./escapes --no-record 2>/dev/null)
got=$(./escapes --syscall-audit --record esc.bin 2>esc.err)
rc=$?
check "escapes: the audited recording prints what an unrecorded run prints, exit 0" \
	test "$got" = "$want" -a $rc -eq 0 -a -n "$want"
audit() { grep 'syscall audit' esc.err; }
check "escapes: every line of the audit has the form 'CALL in FUNCTION (OBJECT+OFFSET), called from CALLER'" \
	test "$(audit | grep -cvE "$LINE")" -eq 0 -a "$(audit | wc -l)" -gt 0
# fopen+fgets, mkstemp and unlink are the world's (docs/inputs.md): recorded, so not
# named, the C library's calls inside our fopen and mkstemp included; getpwnam's
# reads of /etc/passwd are glibc's own and escape.
check "escapes: fopen, fgets, mkstemp and unlink are recorded (the world's): not named" \
	test "$(grep -cE 'audit: (unlink|openat|read) in .*called from (fopen|real_mkostemps|unlink)' esc.err)" -eq 0
check "escapes: getpwnam's open and read of /etc/passwd are named, called from main" \
	sh -c "grep -qE 'audit: openat in [^ ]+ \(libc[^ ]*\), called from main:' esc.err &&
	       grep -qE 'audit: read in [^ ]+ \(libc[^ ]*\), called from main:' esc.err"
check "escapes: no line twice" test "$(audit | sort | uniq -d | wc -l)" -eq 0
check "escapes: the runtime's own calls are not named (log, timer, symbolizer)" \
	test "$(audit | grep -cE 'called from (rp_|sched_|in_|io_|pt_|sig_)')" -eq 0
same "escapes: the audited recording replays" escapes esc.bin "$want"
./escapes --syscall-audit --replay esc.bin >/dev/null 2>rep.err
check "escapes: a replay with --syscall-audit names nothing (the audit is the recording's)" \
	test "$(grep -c 'syscall audit' rep.err)" -eq 0
./escapes --syscall-audit --no-record >/dev/null 2>off.err
check "escapes: --no-record --syscall-audit names nothing" test "$(grep -c 'syscall audit' off.err)" -eq 0
./escapes --record plain.bin >/dev/null 2>plain.err
check "escapes: without the flag, nothing is named" test "$(grep -c 'syscall audit' plain.err)" -eq 0
if command -v strace >/dev/null; then
	strace -f -e trace=prctl -o strace.out ./escapes --record plain.bin >/dev/null 2>&1
	check "escapes: without the flag, no dispatch is set up (strace: no prctl of it)" \
		test "$(grep -cE 'SYSCALL_USER_DISPATCH|prctl\(0x3b' strace.out)" -eq 0
	strace -f -e trace=prctl -o strace.out ./escapes --record plain.bin --syscall-audit >/dev/null 2>&1
	check "escapes: with it, one is (the strace check above can see it)" \
		test "$(grep -cE 'SYSCALL_USER_DISPATCH|prctl\(0x3b' strace.out)" -eq 1
else skip "no strace: the flag-off check of what is set up"; fi

# ==== wrapped calls only: nothing ========================================================
want=$(./wrapped --no-record 2>/dev/null)
got=$(./wrapped --syscall-audit --record wr.bin 2>wr.err)
check "wrapped: the audited recording prints what an unrecorded run prints" test "$got" = "$want" -a -n "$want"
check "wrapped: nothing named (threads, a pipe, getpid, clocks, sysconf: all wrapped)" \
	test "$(grep -c 'syscall audit' wr.err)" -eq 0
same "wrapped: the audited recording replays" wrapped wr.bin "$want"

# ==== what the audit must survive ========================================================
want=$(./processes --no-record 2>/dev/null)
check "processes: an unrecorded run prints the signal, the child's status, popen's line, the sum" \
	test "$want" = "signals 1, child 3, from popen
sum 3000000, system 5"
for i in 1 2 3; do
	got=$(./processes --syscall-audit --record pr$i.bin 2>pr.err)
	rc=$?
	check "processes ($i): the audited recording prints the same, exit 0 (sigset's handler returned, the fork child lived)" \
		test "$got" = "$want" -a $rc -eq 0
	same "processes ($i): the audited recording replays" processes pr$i.bin "$want"
done

# ==== restricted machines ================================================================
got=$("$RESTRICT" --no-perf ./escapes --syscall-audit --record r.bin 2>r.err)
check "under a Docker-like seccomp filter (restrict --no-perf): the audit names the same calls" \
	test "$got" = "$(./escapes --no-record 2>/dev/null)" -a \
	"$(grep -c 'syscall audit' r.err)" -eq "$(grep -c 'syscall audit' esc.err)"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p nobody && cp escapes input.txt nobody/ && chmod 777 nobody
	got=$(cd nobody && setpriv --reuid=nobody --regid=nogroup --clear-groups ./escapes --syscall-audit --record n.bin 2>n.err)
	check "as nobody: the audit names glibc's calls and the recording replays" \
		test "$got" = "$(./escapes --no-record 2>/dev/null)" -a "$(grep -c 'syscall audit' nobody/n.err)" -gt 3 -a \
		"$(cd nobody && setpriv --reuid=nobody --regid=nogroup --clear-groups ./escapes --replay n.bin 2>/dev/null)" = "$got"
else skip "not root or no setpriv: the ordinary user's run"; fi
summary
