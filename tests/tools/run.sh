#!/bin/bash
# The debugging tools on real recordings: replay-dump (symbols, totals, --json, bad
# input), the schedule trace and its timeline (10 threads, every switch marked, the
# recording's trace equal to its replay's), and crash reports (recorded, replayed).
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
DUMP="$ROOT/build/bin/replay-dump"
P="$ROOT/tests/tools/progs"
cd "$WORK" || exit 1

build() { "$SICC" -O2 -g -o "$WORK/$1" "$2" >"$WORK/$1.build" 2>&1 || fail "$1: build: $(head -c 300 "$WORK/$1.build")"; }
build racy_counter "$ROOT/examples/racy_counter.c"
build ten_threads "$P/ten_threads.c"
build crash_report "$P/crash_report.c"
build foreign_time "$ROOT/tests/replay/progs/foreign_time.c"
build deadlock_exited "$P/deadlock_exited.c"
build lock_crash "$P/lock_crash.c"

# ---- replay-dump on a real recording ------------------------------------------------
./racy_counter --record rc.bin --quantum 200us >rc.out 2>&1
"$DUMP" rc.bin >rc.txt 2>rc.err
check "replay-dump: a complete log exits 0" test $? -eq 0 -a ! -s rc.err
check "replay-dump: preemptions are symbolized to the program's function and line" \
	grep -Eq 'PREEMPT +count [0-9]+ +pc 0x[0-9a-f]+ +add\+0x[0-9a-f]+ \(.*racy_counter\.c:[0-9]+\)' rc.txt
# per-thread totals + the END record = the record count; the kinds add up too
totals() { # FILE: "records kinds_sum threads_sum end"
	python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'^records: (\d+) \((\d+) preempt, (\d+) timeout, (\d+) input, (\d+) thread_end, (\d+) end\)', t, re.M)
per = [int(x) for x in re.findall(r'^  thread \d+: (\d+) records', t, re.M)]
listed = len(re.findall(r'^ +\d+  ', t, re.M))
n = [int(x) for x in m.groups()]
print(n[0], sum(n[1:]), sum(per) + n[5], listed)
EOF
}
read -r n kinds threads listed < <(totals rc.txt)
check "replay-dump: per-thread totals + END = the $n records = the records listed" \
	test "$n" -gt 10 -a "$kinds" = "$n" -a "$threads" = "$n" -a "$listed" = "$n"
check "replay-dump: preemptions per second from the log's timestamps" \
	grep -Eq '^time: [0-9.]+ s from the first to the last timestamp, [1-9][0-9.]* preemptions per second' rc.txt
"$DUMP" --json rc.bin >rc.json
check "replay-dump --json parses and agrees with the text form" python3 - rc.json rc.txt <<'EOF'
import json, re, sys
j = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
tot = j["totals"]
assert tot["records"] == len(j["records"]), "records listed"
assert tot["records"] == sum(x["records"] for x in j["threads"]) + tot["end"], "per thread"
m = re.search(r'^records: (\d+) \((\d+) preempt, (\d+) timeout, (\d+) input, (\d+) thread_end, (\d+) end\)', t, re.M)
assert [int(x) for x in m.groups()] == [tot[k] for k in ("records", "preempt", "timeout", "input", "thread_end", "end")]
for th in j["threads"]:
    assert re.search(r'^  thread %d: %d records: %d preempt' % (th["tid"], th["records"], th["preempt"]), t, re.M), th
pre = [r for r in j["records"] if r["kind"] == "PREEMPT"]
assert pre and all(r["func"] == "add" and r["file"].endswith("racy_counter.c") for r in pre), "symbols"
assert j["status"] == "complete" and j["preempts_per_second"] > 0
EOF
check "replay-dump: the executable as a second argument, from elsewhere" \
	bash -c "cd / && '$DUMP' --summary '$WORK/rc.bin' '$WORK/racy_counter' | grep -q 'build-id .*matches'"

# INPUT kinds replay-dump does not know (others add them) print as kind, length, hex.
gcc -O2 -I"$ROOT/libreplay" -o write_log "$P/write_log.c" "$ROOT/build/lib/libreplay-log.a" &&
	./write_log odd.bin
"$DUMP" odd.bin >odd.txt 2>&1
check "replay-dump: unknown INPUT kinds as kind, length and hex bytes" bash -c \
	"grep -Eq 't1 +INPUT +kind 17 +3 bytes +0102ff$' odd.txt && grep -Eq 't2 +INPUT +kind 29 +0 bytes +\(empty\)$' odd.txt &&
	 grep -Eq 'kind 4 +8 bytes +time = 1234567890$' odd.txt && grep -Eq 'kind 4 +3 bytes +0102ff$' odd.txt &&
	 grep -q 'not checked' odd.txt"

# ---- names and lines: the program's main, an inlined function's own line ------------------
build order "$P/order.c"
addrs=$(objdump -d --no-show-raw-insn order | awk '/<worker>:/,/^$/' | sed -n 's/^ *\([0-9a-f]*\):.*/0x\1/p')
"$DUMP" --where order $addrs >where.txt
lines=(); for a in $addrs; do lines+=(-ex "info line *$a"); done
gdb -batch -nx "${lines[@]}" order >where.gdb 2>&1
addr2line -e order $addrs >where.a2l
check "replay-dump --where: every instruction of worker at gdb's line (is_stmt rows), where libbfd's own lookup is not" python3 - where.txt where.gdb where.a2l <<'EOF'
import re, sys
ours = [re.search(r":(\d+)(?: in (\w+), inlined at .*:(\d+))?\)$", l) for l in open(sys.argv[1])]
gdb = [re.match(r'Line (\d+) of', l) for l in open(sys.argv[2]) if l.startswith(("Line", "No line"))]
bfd = [l.rsplit(":", 1)[1].split()[0] for l in open(sys.argv[3])]
assert len(ours) == len(gdb) == len(bfd) > 20, (len(ours), len(gdb), len(bfd))
differ = [i for i, (o, g) in enumerate(zip(ours, gdb)) if g and (not o or o.group(1) != g.group(1))]
assert not differ, "%d lines differ from gdb's" % len(differ)
naive = sum(1 for b, g in zip(bfd, gdb) if g and b != g.group(1))
assert naive > 0, "libbfd's lookup agrees with gdb everywhere: the test no longer exercises the case"
inl = [o for o in ours if o and o.group(2)]
assert inl and all(o.group(2) == "take" and o.group(3) == "21" for o in inl), "inlined take at line 21"
print("%d addresses, %d where libbfd alone says otherwise, %d in inlined take" % (len(ours), naive, len(inl)))
EOF
main_at=$(printf '0x%x' "$(nm order | sed -n 's/^\([0-9a-f]*\) T __sic_main$/0x\1/p')")
check "replay-dump: the program's main is main, not __sic_main" bash -c \
	"'$DUMP' --where order $main_at | grep -q '^$main_at main+0x0 (.*order\.c:[0-9]*)$'"

# ---- PCs in shared objects: object!function+offset, found by the log's OBJECTS ---------
# tests/hunt's lib_pop: two workers pop jobs off a list in a library built with sicc,
# linked (so the log's OBJECTS note names it) or loaded by dlopen() (named nowhere).
H="$ROOT/tests/hunt/progs"
mkdir -p libpop
"$SICC" -O2 -g -shared -fPIC -o libpop/libpoplist.so "$H/lib_pop_list.c" -lpthread >lib_pop.build 2>&1 &&
	"$SICC" -O2 -g -o lib_pop "$H/lib_pop.c" -Llibpop -lpoplist -Wl,-rpath,'$ORIGIN/libpop' -lpthread \
		>>lib_pop.build 2>&1 &&
	"$SICC" -O2 -g -DDLOPEN -o lib_pop_dl "$H/lib_pop.c" -Wl,-rpath,'$ORIGIN/libpop' -ldl -lpthread \
		>>lib_pop.build 2>&1 || fail "lib_pop: build: $(head -c 300 lib_pop.build)"
# a seed whose hunt preempts inside the library (each of seeds 1-6 does, measured)
for seed in 1 2 3 4 5 6; do
	./lib_pop --record pop.bin --hunt=$seed --hunt-strategy=accesses >/dev/null 2>&1
	"$DUMP" pop.bin >pop.txt 2>pop.err
	grep -q 'PREEMPT .* libpoplist\.so!' pop.txt && break
done
# each one's function+offset, by nm and addr2line on the library, at the line named,
# and every one at one load address (the pc less the offset in the library)
check "replay-dump: a PC in a linked library as libpoplist.so!function+offset (file:line), addr2line's line" \
	python3 - pop.txt libpop/libpoplist.so <<'EOF2'
import re, subprocess, sys
lib = sys.argv[2]
syms = {l.split()[2]: int(l.split()[0], 16) for l in subprocess.check_output(["nm", lib], text=True).splitlines()
        if len(l.split()) == 3}
hits = [m for m in (re.search(r"PREEMPT +count \d+ +pc (0x[0-9a-f]+) +libpoplist\.so!(\w+)\+(0x[0-9a-f]+) \((.*):(\d+)\)$", l)
                    for l in open(sys.argv[1])) if m]
assert hits, "no PREEMPT named in libpoplist.so"
bases = set()
for m in hits:
    at = syms[m.group(2)] + int(m.group(3), 16)
    bases.add(int(m.group(1), 16) - at)
    a2l = subprocess.check_output(["addr2line", "-e", lib, hex(at)], text=True).strip()
    assert a2l.endswith("lib_pop_list.c:" + m.group(5)) and m.group(4).endswith("lib_pop_list.c"), (m.group(0), a2l)
assert len(bases) == 1, "load addresses %s" % bases
print("%d PREEMPTs in libpoplist.so" % len(hits))
EOF2
first=$(sed -n 's/.*PREEMPT .* libpoplist\.so!\([a-z_]*\)+\(0x[0-9a-f]*\) .*/\1 \2/p' pop.txt | head -n 1)
at=none # where the first lies in the library
[ -n "$first" ] && at=$(printf '0x%x' $((0x$(nm libpop/libpoplist.so | sed -n "s/^\([0-9a-f]*\) T ${first% *}\$/\1/p") + ${first#* })))
"$DUMP" --json pop.bin >pop.json
check "replay-dump --json: such a PC's object, read" grep -q '"object":"libpoplist.so","object_read":true' pop.json
check "replay-dump: the executable's PCs as before, no object named" \
	grep -Eq 'PREEMPT +count [0-9]+ +pc 0x[0-9a-f]+ +worker\+0x[0-9a-f]+ \(.*lib_pop\.c:[0-9]+\)$' pop.txt
# Another build of the library at the recorded path (another build-id), then none:
# the object's name and the PC's offset in it, said so.
mv libpop/libpoplist.so libpoplist.so.recorded
"$SICC" -O1 -g -shared -fPIC -o libpop/libpoplist.so "$H/lib_pop_list.c" -lpthread >>lib_pop.build 2>&1
"$DUMP" pop.bin >pop.other 2>&1
"$DUMP" --json pop.bin >pop.other.json 2>&1
rm -f libpop/libpoplist.so
"$DUMP" pop.bin >pop.none 2>&1
check "replay-dump: the library rebuilt at its path (another build-id): (libpoplist.so+$at), unread" bash -c \
	"grep -Eq 'PREEMPT .* \(libpoplist\.so\+$at\)\$' pop.other && ! grep -q 'libpoplist\.so!' pop.other &&
	 grep -q '\"object\":\"libpoplist.so\",\"object_read\":false' pop.other.json"
check "replay-dump: the library gone: (libpoplist.so+$at)" bash -c \
	"grep -Eq 'PREEMPT .* \(libpoplist\.so\+$at\)\$' pop.none && ! grep -q 'libpoplist\.so!' pop.none"
mv libpoplist.so.recorded libpop/libpoplist.so
# The C library: a PREEMPT written by hand at its
# pthread_mutex_lock + 4, the note naming it at the recorded path with its build-id.
libc=$(gcc -print-file-name=libc.so.6)
libc=$(readlink -f "$libc")
libc_id=$(readelf -n "$libc" | sed -n 's/^ *Build ID: *//p')
lock=$(nm -D "$libc" | sed -n 's/^\([0-9a-f]*\) T pthread_mutex_lock@@.*/\1/p' | head -n 1)
./write_log libc.bin "$(printf 'exe\t0\t-\t%s\nsyslib\t7f0000000000\t%s\t%s\n' "$WORK/write_log" "$libc_id" "$libc")" \
	$((0x7f0000000000 + 0x$lock + 4))
"$DUMP" libc.bin >libc.txt 2>&1
named=$(sed -n 's/.* PREEMPT .* libc\.so\.6!\([A-Za-z_0-9]*\)+0x4\( (.*)\)*$/\1/p' libc.txt)
check "replay-dump: a PC in the C library as libc.so.6!function+0x4, a function at pthread_mutex_lock's address" \
	bash -c "[ -n '$lock' ] && [ -n '$named' ] && nm -D '$libc' | grep -Eq '^0*$lock [TtWi] $named(@|\$)'"
# dlopen()ed: not in the log's OBJECTS (docs/log-format.md), so named as nowhere, not
# as the executable's last symbol with an offset of terabytes
for seed in 1 2 3 4 5 6; do
	./lib_pop_dl --record popdl.bin --hunt=$seed --hunt-strategy=accesses >/dev/null 2>&1
	"$DUMP" popdl.bin >popdl.txt 2>&1
	grep -q 'PREEMPT .*(in no object the log names)$' popdl.txt && break
done
check "replay-dump: a PC in a dlopen()ed library: (in no object the log names)" bash -c \
	"grep -q 'PREEMPT .*(in no object the log names)\$' popdl.txt && ! grep -Eq 'PREEMPT .*\+0x[0-9a-f]{9,}' popdl.txt"

# ---- bad input: one line, non-zero ---------------------------------------------------
one_line_error() { # NAME WANT_RC PATTERN COMMAND...
	local name=$1 want=$2 pattern=$3; shift 3
	"$@" >err.out 2>err.err
	local rc=$?
	if [ $rc -ne "$want" ]; then fail "$name: exit $rc, want $want"
	elif [ "$(grep -c . err.err)" -ne 1 ]; then fail "$name: not one line: $(head -c 300 err.err)"
	elif ! grep -Eq -e "$pattern" err.err; then fail "$name: '$(cat err.err)' lacks /$pattern/"
	else pass "$name"; fi
}
size=$(stat -c %s rc.bin)
cp rc.bin bad.bin
printf '\xff\xff\xff\xff' | dd of=bad.bin bs=1 seek=$((size - 12)) conv=notrunc 2>/dev/null
one_line_error "replay-dump: a damaged block" 1 "corrupt" "$DUMP" bad.bin racy_counter
head -c 4096 /dev/urandom >random.bin
one_line_error "replay-dump: not a log" 2 "random\.bin" "$DUMP" random.bin racy_counter
one_line_error "replay-dump: the wrong executable" 2 "did not record .*build-id" "$DUMP" rc.bin ten_threads
one_line_error "replay-dump: the recorded argv[0] not found" 2 "--exe" bash -c "cd / && '$DUMP' '$WORK/rc.bin'"
one_line_error "replay-dump: not an executable" 2 "not an executable" "$DUMP" rc.bin rc.txt
one_line_error "replay-dump: unknown flag" 2 "unknown flag" "$DUMP" --frobnicate rc.bin
# A recorded argv[0] that names a FIFO: opening it would wait for a writer for ever.
rm -f fifo_exe && mkfifo fifo_exe
(exec -a "$WORK/fifo_exe" ./racy_counter --record fifo.bin >/dev/null 2>&1)
one_line_error "replay-dump: the recorded argv[0] is a FIFO" 2 "fifo_exe: not a regular file \(a FIFO\)" \
	timeout 20 "$DUMP" fifo.bin

# ---- the schedule trace and the timeline -----------------------------------------------
./ten_threads --record ten.bin --quantum 100us --trace-schedule ten.rec.trace >ten.rec.out 2>&1
./ten_threads --replay ten.bin --trace-schedule ten.rep.trace >ten.rep.out 2>&1
# (a log of several blocks: the whole ones before the cut are printed)
head -c $(($(stat -c %s ten.bin) - 5)) ten.bin >cut.bin
one_line_error "replay-dump: a log cut short prints its records, then says so" 1 "ends early" "$DUMP" cut.bin ten_threads
check "replay-dump: ... the records of its whole blocks" grep -q PREEMPT err.out
check "trace: the replay traces the recording's schedule (all but the times)" \
	cmp <(cut -d' ' -f1,2,4- ten.rec.trace) <(cut -d' ' -f1,2,4- ten.rep.trace)
switches=$(awk '!/^#/ && $4 != 0' ten.rep.trace | wc -l)
preempts=$(grep -c ' preempt$' ten.rep.trace)
logged=$("$DUMP" --json --summary ten.bin | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["preempt"])')
check "trace: $preempts preemption switches = the log's $logged PREEMPT records" test "$preempts" -eq "$logged" -a "$logged" -gt 0
# Time slices that end in the C library preempt at the next counting point, switching
# from there rather than from the signal: the recording's trace says preempt all the
# same (it once said yield there, where the replay, stopped by its trap, said preempt).
./foreign_time --record ft.bin --quantum 100us --trace-schedule ft.rec.trace >ft.rec.out 2>&1
./foreign_time --replay ft.bin --trace-schedule ft.rep.trace >ft.rep.out 2>&1
ft_logged=$("$DUMP" --json --summary ft.bin | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["preempt"])')
ft_rec=$(grep -c ' preempt$' ft.rec.trace)
check "trace: preemptions at the next counting point are preempt in the recording's trace too ($ft_rec = $ft_logged)" \
	test "$ft_rec" -eq "$ft_logged" -a "$ft_logged" -gt 10
check "trace: ... and the replay traces the same schedule" \
	cmp <(cut -d' ' -f1,2,4- ft.rec.trace) <(cut -d' ' -f1,2,4- ft.rep.trace)
check "trace: mutex, condvar, join, yield and exit switches are there" bash -c \
	"for r in blocked:mutex blocked:cond blocked:join yield exit exit:0; do grep -q \" \$r\$\" ten.rep.trace || exit 1; done"
"$DUMP" --timeline ten.rep.trace -o ten.svg
lanes=$(grep -c '<g class="lane"' ten.svg)
marks=$(grep -o 'class="sw [a-z]*" data-n="[0-9]*"' ten.svg | awk -F'"' '{s += $4} END {print s}')
pmarks=$(grep -o 'class="sw preempt" data-n="[0-9]*"' ten.svg | awk -F'"' '{s += $4} END {print s}')
check "timeline: 10 lanes for 10 threads" test "$lanes" -eq 10
check "timeline: its marks stand for the trace's $switches switches" test "$marks" -eq "$switches" -a "$switches" -ge 10000
check "timeline: and its preemption marks for the $preempts preemptions" test "$pmarks" -eq "$preempts"
elements=$(grep -c '<rect' ten.svg)
check "timeline: $switches switches aggregate into $elements shapes (< 12000)" test "$elements" -lt 12000
check "timeline: a well-formed, self-contained SVG" python3 -c "
import sys, xml.etree.ElementTree as E
t = open('ten.svg').read(); E.fromstring(t)
assert 'http://www.w3.org/2000/svg' in t and 'href' not in t and '<script' not in t"
for x in --time --by-switch; do
	"$DUMP" --timeline ten.rep.trace $x -o ten$x.svg
	n=$(grep -o 'class="sw [a-z]*" data-n="[0-9]*"' ten$x.svg | awk -F'"' '{s += $4} END {print s}')
	check "timeline $x: the marks stand for the $switches switches too" test "$n" -eq "$switches"
done
"$DUMP" --timeline ten.rep.trace -o ten.log.svg ten.bin ten_threads 2>ten.log.err || rm -f ten.log.svg
check "trace: each preemption is the log's next PREEMPT, at its count (checked by the timeline)" \
	test -s ten.log.svg
check "timeline with the log: preemptions say where they struck" \
	grep -Eq '<title>t[0-9]+ count [0-9]+ pc 0x[0-9a-f]+ at (worker|compute)\+0x[0-9a-f]+ \(ten_threads\.c:[0-9]+( in compute, inlined at ten_threads\.c:[0-9]+)?\), preempted @clock [0-9]+<' ten.log.svg
one_line_error "timeline: a trace of another log" 2 "not the log's next" "$DUMP" --timeline ten.rep.trace rc.bin racy_counter
one_line_error "timeline: not a trace" 2 "not a schedule trace" "$DUMP" --timeline rc.txt
# A trace cut short (a full disk, a file size limit, a kill): drawn up to there, and
# said (issue 25: it was drawn cut without a word, exit 0).
# (half the file, one byte less where half ends a line: a cut inside a line it must be)
cut=$(($(stat -c %s ten.rep.trace) / 2))
[ "$(head -c "$cut" ten.rep.trace | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ] && cut=$((cut - 1))
head -c "$cut" ten.rep.trace >cut.trace
one_line_error "timeline: a trace cut inside a line is drawn and said to be cut" 1 \
	"^replay-dump: cut\.trace is cut after switch [0-9]+: it ends inside a line, without the run's end" \
	"$DUMP" --timeline cut.trace -o cut.svg
check "... drawn up to there" grep -q '<g class="lane"' cut.svg
head -n 200 ten.rep.trace >cut_lines.trace
one_line_error "timeline: a trace cut after a whole line: said too" 1 \
	"^replay-dump: cut_lines\.trace is cut after switch [0-9]+: it ends after a whole line" \
	"$DUMP" --timeline cut_lines.trace -o cut_lines.svg
# --trace-schedule where no file can be written: one line, exit 2 (it aborted: 134).
mkdir -p trace_dir
one_line_error "--trace-schedule to a directory: one line, exit 2" 2 \
	"^libreplay: --trace-schedule trace_dir: Is a directory$" ./ten_threads --no-record --trace-schedule trace_dir
one_line_error "--trace-schedule in a missing directory: one line, exit 2" 2 \
	"^libreplay: --trace-schedule nowhere/t\.trace: No such file or directory$" \
	./ten_threads --replay ten.bin --trace-schedule nowhere/t.trace
# A trace that cannot be written whole: said at once, the program goes on (its own
# exit status), and the timeline says the trace is cut.
one_line_error "--trace-schedule past the file size limit: said, the program's status" 0 \
	"^libreplay: cannot write the schedule trace fsize\.trace: File too large; it stops here \(cut\)$" \
	bash -c "ulimit -f 32 && exec ./ten_threads --replay ten.bin --trace-schedule fsize.trace"
one_line_error "... and its timeline says it is cut" 1 "^replay-dump: fsize\.trace is cut after switch" \
	"$DUMP" --timeline fsize.trace -o fsize.svg
one_line_error "--trace-schedule to a full disk (/dev/full): said, the program's status" 0 \
	"^libreplay: cannot write the schedule trace /dev/full: No space left on device; it stops here \(cut\)$" \
	./ten_threads --replay ten.bin --trace-schedule /dev/full

# ---- crash reports ----------------------------------------------------------------------
# report FILE: the report's lines only (the program's own output is elsewhere)
report() { grep -E '^(libreplay: thread|  #)' "$1"; }
crash_case() { # NAME ARG SIGNAL STATUS
	local c=$1 arg=$2 sig=$3 want=$4
	./crash_report --record "$c.bin" --quantum 200us $arg >"$c.rec.out" 2>"$c.rec.err"
	local rc=$?
	./crash_report --replay "$c.bin" >"$c.rep.out" 2>"$c.rep.err"
	local rc2=$?
	report "$c.rec.err" >"$c.rec.report"
	report "$c.rep.err" >"$c.rep.report"
	check "crash ($sig): the recording dies of $sig (status $want)" test $rc -eq "$want"
	local faulted
	faulted=$(sed -n "s/^libreplay: thread \([0-9]*\) died of $sig .*/\1/p" "$c.rec.report")
	check "crash ($sig): the report names the faulting thread" test -n "$faulted"
	check "crash ($sig): its backtrace shows fault_here, called by faults" bash -c \
		"grep -A5 '^libreplay: thread $faulted (faulted)' '$c.rec.report' | grep -q 'fault_here' &&
		 grep -A6 '^libreplay: thread $faulted (faulted)' '$c.rec.report' | grep -q 'faults+'"
	check "crash ($sig): every thread is in the report, with the program's functions" bash -c "
		test \$(grep -c '^libreplay: thread [0-9]* (' '$c.rec.report') -eq 5 &&
		grep -A12 '(blocked on mutex)' '$c.rec.report' | grep -q waits_on_mutex &&
		grep -A12 '(blocked on condvar)' '$c.rec.report' | grep -q waits_on_cond &&
		grep -A12 '(blocked on join)' '$c.rec.report' | grep -q '  main+' &&
		grep -A3 '(preempted)\|(runnable)' '$c.rec.report' | grep -q 'spins+'"
	check "crash ($sig): the replay dies of it too" test $rc2 -eq "$want"
	check "crash ($sig): and prints the same report" cmp "$c.rec.report" "$c.rep.report"
	check "crash ($sig): replay-dump shows the END record's signal" \
		bash -c "'$DUMP' '$c.bin' crash_report | grep -q 'END .*killed by signal .*($sig)'"
}
crash_case segv "" SIGSEGV 139
crash_case abort abort SIGABRT 134
# A tick deferred before the crash: a thread in memset is preempted at its next counting
# point (rp_record_overflow), not from the timer's signal; the replay preempts it there
# by its trap. Both reports show it preempted at the program's instruction.
LIBREPLAY_STATS=1 ./crash_report --record def.bin --quantum 200us deferred >def.rec.out 2>def.rec.err
rc=$?
./crash_report --replay def.bin >def.rep.out 2>def.rep.err
rc2=$?
report def.rec.err >def.rec.report
report def.rep.err >def.rep.report
check "crash after a deferred tick: ticks were deferred, the recording died of SIGSEGV" bash -c \
	"test $rc -eq 139 && grep -Eq 'preemptions taken, [1-9][0-9]* ticks deferred' def.rec.err"
check "crash after a deferred tick: the thread in memset is preempted at the program's instruction" \
	bash -c "grep -A1 '(preempted)' def.rec.report | grep -q '#0  in_library+'"
check "crash after a deferred tick: the replay's report is the recording's" \
	bash -c "test $rc2 -eq 139 && cmp def.rec.report def.rep.report"
# file:line (issue 28): each frame of the executable ends as gdb's bt does, "at FILE:LINE"
# (addr2line, run once per report); the faulting frame's is the faulting line.
line_of() { grep -n "$2" "$P/$1" | head -n 1 | cut -d: -f1; }
check "crash reports: the faulting frame is at crash_report.c:$(line_of crash_report.c 'nowhere = 1'), its caller at its call" bash -c \
	"grep -A1 '(faulted)' segv.rec.report | grep -Eq '#0  fault_here\+0x[0-9a-f]+ \(exe\+0x[0-9a-f]+\) at crash_report\.c:$(line_of crash_report.c 'nowhere = 1')\$' &&
	 grep -A2 '(faulted)' segv.rec.report | grep -Eq '#1  faults\+0x[0-9a-f]+ \(exe\+0x[0-9a-f]+\) at crash_report\.c:$(line_of crash_report.c '^	fault_here();')\$'"
# A hunting preemption just before a lock call (the call's counting point): the
# recording's report showed the thread inside pthread_mutex_lock (runnable, the
# runtime's frames), the replay's at the call site (preempted). Both show the call
# site now, as gdb does. Seeds until one preempts a worker there when the other faults.
lockline=$(line_of lock_crash.c 'the lock call')
at_lock="" differ=""
for seed in $(seq 1 60); do
	( ./lock_crash --record lc.bin --hunt=$seed >lc.rec.out 2>lc.rec.err ) 2>/dev/null
	( ./lock_crash --replay lc.bin >lc.rep.out 2>lc.rep.err ) 2>/dev/null
	report lc.rec.err >lc.rec.report
	report lc.rep.err >lc.rep.report
	cmp -s lc.rec.report lc.rep.report || differ="$differ $seed"
	grep -A1 '(preempted)' lc.rec.report | grep -Eq "#0  work\+0x[0-9a-f]+ \(exe\+0x[0-9a-f]+\) at lock_crash\.c:$lockline\$" &&
		at_lock="$at_lock $seed"
	[ -n "$at_lock" ] && [ "$seed" -ge 20 ] && break
done
if [ -n "$at_lock" ] && [ -z "$differ" ]; then
	pass "crash report with a thread preempted just before pthread_mutex_lock (hunt seeds$at_lock): at the call site, lock_crash.c:$lockline, in the recording's report and the replay's, the same reports (seeds 1-$seed)"
else
	fail "crash reports and a preemption before a lock call: at the call site with seeds${at_lock:- none}, the recording's and the replay's differ with seeds${differ:- none}"
fi
check "crash reports name the program's main main, never __sic_main" bash -c \
	"! grep -q __sic_main segv.rec.report abort.rec.report def.rec.report"
# A crash inside a run of overflow stubs that several functions share (docs/sic.md,
# "Stubs"): the pc is named after the function whose counting point jumped into the
# run (r15 counts the entries passed), not after the nearest entry, another function's.
# gdb stops at second's entry entered from the entry before it (r15 = -1), steps to the
# next entry (or to the run's call), and sends SIGSEGV there; the counter overflows
# every 1000 counts.
build stub_run "$P/stub_run.c"
read -r at entry < <(nm stub_run | sed -n 's/^\([0-9a-f]*\) t \(second\.sic_stub\.[0-9]*\)$/\1 \2/p')
before=$(nm stub_run | awk -v a="$(printf %016x $((16#${at:-0} - 3)))" '$1 == a && $3 ~ /\.sic_stub\./ { sub(/\.sic_stub\..*/, "", $3); print $3 }')
for steps in 1 2; do
	LIBREPLAY_SIC_STRESS=1000 timeout 120 gdb -nx -batch -ex "break *'$entry' if \$r15 == -1" -ex run \
		-ex delete -ex "stepi $steps" -ex 'info symbol $pc' -ex 'signal SIGSEGV' \
		--args ./stub_run --record sr$steps.bin >sr$steps.out 2>&1
	report sr$steps.out >sr$steps.report
	if [ -z "$at" ] || [ -z "$before" ]; then
		fail "crash in a shared stub run: no entry before second's in stub_run's run: $(nm stub_run | grep -c sic_stub) stubs"
	else check "crash in a shared stub run at $(sed -n "s/ in section.*//p" sr$steps.out), entered at the entry before second's: frame #0 names $before, whose counting point jumped in" \
		grep -Eq "^  #0  $before\.sic_stub \(exe\+0x[0-9a-f]+\)\$" sr$steps.report; fi
done
# Frames in the C library (issue 15): abort raises the signal in a function glibc does
# not export; libunwind alone named it after the nearest exported symbol. Names come
# from libc6-dbg's debug file (what addr2line reads in it), else from a symbol whose
# range holds the address, else none: "?? (libc.so.6+0x...)".
LIBC=$(gcc -print-file-name=libc.so.6)
LIBC_ID=$(readelf -n "$LIBC" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
LIBC_DBG=/usr/lib/debug/.build-id/${LIBC_ID:0:2}/${LIBC_ID:2}.debug
# libc_frames REPORT: "N NAME OFFSET ADDR" for each frame in libc.so.6
libc_frames() {
	sed -n 's/^  #\([0-9]*\) *\([^ ]*\) (libc\.so\.6+0x\([0-9a-f]*\))$/\1 \2 \3/p' "$1" |
		while read -r n what addr; do echo "$n ${what%+0x*} ${what##*+0x} $addr"; done
}
# held_by FRAMES ELF: every named frame's symbol (in ELF's .symtab or .dynsym) holds its
# address (a caller's return address minus one), at the offset the frame says
held_by() {
	local n name off addr line
	while read -r n name off addr; do
		[ "$name" = "??" ] && continue
		line=$(readelf -sW "$2" | awk -v s="$name" '$4 == "FUNC" && ($8 == s || index($8, s "@") == 1) { print $2, $3; exit }')
		[ -n "$line" ] || { echo "frame $n: no symbol $name in $2"; return 1; }
		local v=$((16#${line% *})) z=${line#* } a=$((16#$addr)) o=$((16#$off))
		local at=$((a - (n > 0)))
		[ $at -ge $v ] && [ $at -lt $((v + z)) ] && [ $((a - v)) -eq $o ] ||
			{ echo "frame $n: $name ($v, size $z) does not hold 0x$addr"; return 1; }
	done <"$1"
}
libc_frames abort.rec.report >abort.libc
check "crash (SIGABRT): the report has frames in libc.so.6" test -s abort.libc
if [ -f "$LIBC_DBG" ]; then
	first=$(head -n 1 abort.libc)
	want=$(addr2line -f -e "$LIBC_DBG" "0x${first##* }" | head -n 1)
	check "crash (SIGABRT): the frame that raises it is named from libc6-dbg's debug file ($want)" \
		test "$(echo "$first" | cut -d' ' -f2)" = "$want"
	check "crash (SIGABRT): every libc frame's name holds its address (debug file)" held_by abort.libc "$LIBC_DBG"
else
	fail "crash (SIGABRT): no debug file for libc.so.6 at $LIBC_DBG (libc6-dbg: make deps)"
fi
LIBREPLAY_DEBUG_DIR=/nonexistent ./crash_report --record abnd.bin --quantum 200us abort >abnd.rec.out 2>abnd.rec.err
report abnd.rec.err >abnd.rec.report
libc_frames abnd.rec.report >abnd.libc
check "crash (SIGABRT) without debug files: the frame that raises it has no name, only libc.so.6+OFFSET" \
	bash -c "head -n 1 abnd.libc | grep -q '^0 ?? '"
check "crash (SIGABRT) without debug files: the names given are exported symbols that hold the address" \
	held_by abnd.libc "$LIBC"
check "crash (SIGABRT) without debug files: abort is still named" grep -q ' abort ' abnd.libc
# A deadlock report counts the live threads it lists as blocked, and says apart how many
# exited unjoined (issue 15: "all 2 threads blocked", then 3 listed, one exited).
./deadlock_exited --record dx.bin >dx.out 2>dx.err
live=$(sed -n 's/.*deadlock: all \([0-9]*\) live threads* \(is\|are\) blocked.*/\1/p' dx.err)
exited=$(sed -n 's/.*deadlock: .*(\([0-9]*\) more exited, not joined).*/\1/p' dx.err)
check "deadlock: all 2 live threads blocked, 1 more exited unjoined" test "$live/$exited" = 2/1
check "deadlock: it lists as many blocked threads and exited ones" bash -c \
	"test \$(grep -Ec 'thread [0-9]+.*blocked (on|joining)' dx.err) -eq 2 &&
	 test \$(grep -Ec 'thread [0-9]+.*exited, not joined' dx.err) -eq 1"
# A stack overflow: no stack is left for a handler, so the fatal handlers have their own.
./crash_report --record ov.bin --quantum 200us overflow >ov.rec.out 2>ov.rec.err
rc=$?
./crash_report --replay ov.bin >ov.rep.out 2>ov.rep.err
rc2=$?
report ov.rec.err >ov.rec.report
report ov.rep.err >ov.rep.report
check "stack overflow: the recording dies of SIGSEGV (status 139)" test $rc -eq 139
check "stack overflow: the report says so and shows recurse, called by fault_here" bash -c \
	"grep -q \"guard page below thread [0-9]*'s stack: a stack overflow\" ov.rec.err &&
	 grep -A3 '(faulted)' ov.rec.report | grep -q 'recurse+'"
check "stack overflow: the log is complete, its END says SIGSEGV" \
	bash -c "'$DUMP' ov.bin crash_report | grep -q 'END .*killed by signal .*(SIGSEGV)'"
check "stack overflow: the replay dies of it too, with the same report" \
	bash -c "test $rc2 -eq 139 && cmp -s ov.rec.report ov.rep.report"
# Under gdb, the genuine fault stops gdb at the faulting instruction, before our handler.
timeout 120 gdb -batch -nx -ex 'handle SIGPROF SIG41 SIGILL nostop noprint pass' -ex run -ex bt \
	--args ./crash_report --replay segv.bin >gdb.out 2>&1
check "crash under gdb: gdb stops at the fault, in fault_here, before the report" bash -c \
	"grep -q 'Program received signal SIGSEGV' gdb.out && grep -A1 'Program received signal SIGSEGV' gdb.out | grep -q fault_here && ! grep -q 'died of' gdb.out"
./crash_report --replay segv.bin --trace-schedule crash.trace >/dev/null 2>&1
check "trace: a crash ends the trace with the signal" bash -c "tail -n 1 crash.trace | grep -q ' SIGSEGV$'"
# The end as what it was, the last preemptions before a failure, labels inside the
# picture, round integer ticks: on a normal exit, a crash (with few preemptions, so
# that each is labelled: at most 40, and 8 ms slices give 10 to 20 on these machines),
# an abort and a deadlock.
./crash_report --replay segv.bin --trace-schedule segv.trace >/dev/null 2>&1
./crash_report --record few.bin --quantum 8ms >/dev/null 2>&1
./crash_report --replay few.bin --trace-schedule few.trace >/dev/null 2>&1
./crash_report --replay abort.bin --trace-schedule abort.trace >/dev/null 2>&1
build deadlock "$P/deadlock.c"
./deadlock --record dl.bin --quantum 1ms --trace-schedule dl.trace >/dev/null 2>&1
"$DUMP" --timeline segv.trace -o segv.svg segv.bin crash_report
"$DUMP" --timeline few.trace --by-switch -o few.svg few.bin crash_report
"$DUMP" --timeline abort.trace -o abort.svg abort.bin crash_report
"$DUMP" --timeline dl.trace -o dl.svg
timeline_check() { # SVG END-LABEL FAILED: the end, the highlights, label bounds, ticks
	python3 - "$@" <<'EOF'
import re, sys, xml.etree.ElementTree as E
path, want, failed = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
t = open(path).read()
svg = E.fromstring(t)
ns = "{http://www.w3.org/2000/svg}"
W = float(svg.get("width"))
texts = svg.iter(ns + "text")
ends = [x.text for x in svg.iter(ns + "text") if x.get("class") == "endlabel"]
assert ends == [want], "end drawn as %s, want %s" % (ends, want)
last = [x for x in svg.iter(ns + "rect") if x.get("class") == "last"]
listed = [x.text for x in svg.iter(ns + "text") if x.get("class") == "lastlist"]
pre = t.count('class="sw preempt"')
if failed:
    assert len(last) == min(3, pre) == len(listed) and pre > 0, (len(last), len(listed), pre)
    assert all(re.match(r"\d: t\d+ count \d+( pc 0x[0-9a-f]+ at \S+\+0x[0-9a-f]+ \(.*:\d+.*\))?, @\w+ \d+$", l) for l in listed), listed
else:
    assert not last and not listed, "highlights after a normal end"
for x in svg.iter(ns + "text"):
    if x.get("data-w"):
        w, at = float(x.get("data-w")), float(x.get("x"))
        lo, hi = (at, at + w) if x.get("text-anchor") == "start" else (at - w, at)
        assert 0 <= lo and hi <= W, "label %r spans %.0f-%.0f of %.0f" % (x.text, lo, hi, W)
ticks = [x for x in next(g for g in svg.iter(ns + "g") if g.get("class") == "ticks").iter(ns + "text")]
vals = [float(x.text) for x in ticks]
xs = [float(x.get("x")) for x in ticks]
assert len(vals) >= 3 and all(v == int(v) for v in vals), vals
steps = {round(b - a, 6) for a, b in zip(vals, vals[1:])}
assert len(steps) == 1 and re.match(r"^[125]0*$", str(int(steps.pop()))), vals
assert max(b - a for a, b in zip(xs, xs[1:])) - min(b - a for a, b in zip(xs, xs[1:])) < 0.5, xs
EOF
}
check "timeline: a normal end is drawn as its exit status, nothing highlighted" timeline_check ten.svg "exit status 0" 0
check "timeline: a crash is drawn as its signal; its last 3 preemptions highlighted and listed" \
	timeline_check segv.svg "SIGSEGV in thread $(sed -n 's/^libreplay: thread \([0-9]*\) died of SIGSEGV.*/\1/p' segv.rep.report)" 1
check "timeline: with few preemptions each is labelled, inside the picture" bash -c \
	"grep -q 'class=\"plabel\"' few.svg && $(declare -f timeline_check); timeline_check few.svg 'SIGSEGV in thread $(sed -n 's/^libreplay: thread \([0-9]*\) died of SIGSEGV.*/\1/p' segv.rep.report)' 1"
check "timeline: an abort is drawn as SIGABRT" timeline_check abort.svg "SIGABRT in thread $(sed -n 's/^libreplay: thread \([0-9]*\) died of SIGABRT.*/\1/p' abort.rep.report)" 1
check "timeline: a deadlock is drawn as one" bash -c "tail -n 1 dl.trace | grep -q ' deadlock$' && $(declare -f timeline_check); timeline_check dl.svg 'deadlock: every thread blocked' 1"
# Every axis gets at least 3 round, evenly spaced ticks: traces of 3 to 60 switches, by
# switch and by count (14 switches by switch once got only 5 and 10, 19-21 by count two).
mkdir -p axes && for n in $(seq 3 60); do
	{ echo '# libreplay schedule trace 1: seq clock ns from to from_count to_count reason'
	  for i in $(seq 1 "$n"); do echo "$i $((i * 7)) $((i * 1000)) $((i % 2 + 1)) $(((i + 1) % 2 + 1)) $((i * 7)) $((i * 7)) preempt"; done
	} >axes/$n.trace
	"$DUMP" --timeline axes/$n.trace --by-switch -o axes/$n-switch.svg 2>/dev/null # (cut: no end)
	"$DUMP" --timeline axes/$n.trace -o axes/$n-count.svg 2>/dev/null
done
check "timeline: 3 or more round ticks on every axis of 3 to 60 switches" python3 - axes/*.svg <<'EOF'
import re, sys
bad = []
for path in sys.argv[1:]:
    t = open(path).read()
    g = t[t.index('class="ticks"'):]
    g = g[:g.index('</g>')]
    v = [float(x) for x in re.findall(r'>(-?[0-9.]+)</text>', g)]
    if len(v) < 3 or len({round(b - a, 6) for a, b in zip(v, v[1:])}) != 1:
        bad.append("%s: %s" % (path, v))
assert not bad, bad
EOF

# The HTML page, loaded in headless Chromium: its script ran over every shape, the
# view opened on the range the URL names (the axis redrawn for it), and hovering a
# preemption mark shows its thread, count, pc and function:line.
"$DUMP" --timeline ten.rep.trace -o ten.html ten.bin ten_threads
chrome() { # URL: the DOM after the page's scripts ran
	rm -rf "$WORK/chromium" && timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$WORK/chromium" --window-size=1400,1000 --dump-dom "$1" 2>/dev/null
}
# The probe: the first preemption mark with a point of its own, one that no shape drawn
# after it covers (the topmost shape takes the hover). At 100 us slices two preemptions
# of a thread are often less than a pixel apart: the first mark's point was under the
# second's in 3 recordings of 40, and the hover rightly showed the second's title.
probe=$(python3 - ten.html <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
rects = [(m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5)), m.group(6))
         for m in re.finditer(r'<rect class="([^"]*)"[^>]*? x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"[^>]*>(?:<title>([^<]*)</title>)?', t)]
def inside(r, px, py):
    return r[1] <= px <= r[1] + r[3] and r[2] <= py <= r[2] + r[4]
for i, r in enumerate(rects):
    if r[0] != "sw preempt" or not r[5]:
        continue
    px, py = round(r[1] + 1.5), round(r[2] + 2)
    if inside(r, px, py) and not any(inside(o, px, py) for o in rects[i + 1:]):
        print("%d,%d %s" % (px, py, r[5]))
        break
EOF
)
[ -n "$probe" ] || fail "timeline page: no preemption mark with a point of its own in ten.html"
chrome "file://$WORK/ten.html#probe=${probe%% *}" >ten.dom
chrome "file://$WORK/ten.html#view=1000000,2000000" >ten.view.dom
items=$(grep -c 'data-x=' ten.html)
check "timeline page in Chromium: the script ran over its $items shapes" grep -q "<body data-ready=\"$((items))\"" ten.dom
check "timeline page in Chromium: hover over a preemption: thread, count, pc, function:line" bash -c \
	"grep -qF '<div id=\"status\">${probe#* }</div>' ten.dom && echo '${probe#* }' | grep -Eq '^t[0-9]+ count [0-9]+ pc 0x[0-9a-f]+ at [a-z_]+\+0x[0-9a-f]+ \(ten_threads\.c:[0-9]+'"
check "timeline page in Chromium: #view=1000000,2000000 zooms there, the axis redrawn" bash -c \
	"grep -q 'data-view=\"1000000-2000000\"' ten.view.dom && grep -o '<g class=\"ticks\">.*</g>' ten.view.dom | grep -q '>1200000<'"

summary
