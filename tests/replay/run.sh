#!/bin/bash
# Record and replay, rr style: each program in progs/ is built with sicc, recorded
# several times under the chaos scheduler, and every recording must replay to
# exactly its own output and exit status (and its own final per-thread counts: the
# replay checks them against the log's END record and exits 86 if they differ).
# Racy programs must also show more than one outcome across their recordings.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/replay/progs"
RUNS=${REPLAY_RUNS:-12}

build() { # NAME.c with sicc, NAME.cpp with sic++ (PREBUILT=1: already in $WORK)
	if [ -n "${PREBUILT:-}" ]; then return 0
	elif [ -e "$P/$1.cpp" ]; then "$SICXX" -O2 -g -o "$WORK/$1" "$P/$1.cpp" >"$WORK/$1.build" 2>&1
	else "$SICC" -O2 -g -o "$WORK/$1" "$P/$1.c" >"$WORK/$1.build" 2>&1; fi
}

# record_replay NAME RUNS MIN_DISTINCT [SLICES]: record RUNS times, replay each. SLICES
# is --chaos (the default: random slices) or e.g. "--quantum 100us".
record_replay() {
	local name=$1 runs=$2 min_distinct=$3 slices=${4:---chaos} bad=0
	build "$name" || { fail "$name: build: $(head -n 3 "$WORK/$name.build")"; return; }
	for i in $(seq 1 "$runs"); do
		local log="$WORK/$name.$i.bin"
		local how=$slices
		[ "$how" = --chaos ] && how="--chaos=$((i * 7919))"
		(cd "$WORK" && timeout 60 "./$name" --record "$log" $how \
			>"$log.rec.out" 2>"$log.rec.err"); echo $? >"$log.rec.rc"
		(cd "$WORK" && timeout 60 "./$name" --replay "$log" \
			>"$log.rep.out" 2>"$log.rep.err"); echo $? >"$log.rep.rc"
		if ! cmp -s "$log.rec.out" "$log.rep.out" || ! cmp -s "$log.rec.rc" "$log.rep.rc"; then
			bad=$((bad + 1))
			[ $bad -eq 1 ] && fail "$name: recording $i replayed differently (rc $(cat "$log.rec.rc") vs $(cat "$log.rep.rc")): $(head -c 300 "$log.rep.err")"
		fi
	done
	[ $bad -eq 0 ] && pass "$name: $runs recordings replay exactly"
	local distinct
	distinct=$(cat "$WORK/$name".*.bin.rec.out | sort -u | wc -l)
	if [ "$distinct" -ge "$min_distinct" ]; then
		[ "$min_distinct" -gt 1 ] && pass "$name: $distinct different outcomes across $runs recordings"
	else
		fail "$name: only $distinct different outcome(s) across $runs recordings (want $min_distinct)"
	fi
}

record_replay racy_counter 50 3
record_replay spin_flag "$RUNS" 2
record_replay condvar "$RUNS" 2
record_replay sleeps "$RUNS" 1
record_replay thousand_threads 4 1
record_replay crash "$RUNS" 1
record_replay forks 6 1
record_replay clocks "$RUNS" 2
record_replay lone_sleeper "$RUNS" 1
# Each green thread's own TLS (fs base switched by sched): the pthread suite's program.
P=$ROOT/tests/pthread record_replay tls "$RUNS" 1
# Time slices that end in the C library preempt at the thread's next counting point.
record_replay foreign_time "$RUNS" 2
# the default quantum: ticks become aligned preemptions (docs/replay.md)
record_replay aligned_calls 6 2 "--quantum 10ms"
record_replay coroutines 8 2
record_replay ctor_inputs 4 4
# The C library's malloc key (docs/inputs.md, "The malloc key"): a constructor and main
# print a freed chunk's key word, two threads race over a use-after-free whose work
# depends on it. Each recording differs (the key is random), and each replays three
# times to its own output; a log's key is in its TCACHE record.
tcache_key_replays() {
	local bad=0 keys=""
	build tcache_key || { fail "tcache_key: build: $(head -n 3 "$WORK/tcache_key.build")"; return; }
	for i in 1 2 3 4; do
		local log="$WORK/tcache.$i.bin"
		(cd "$WORK" && timeout 60 ./tcache_key --record "$log" --chaos=$((i * 31)) \
			>"$log.rec.out" 2>"$log.rec.err"); echo $? >"$log.rec.rc"
		keys="$keys $(sed -n 's/^main key //p' "$log.rec.out")"
		grep -q "^ctor key $(sed -n 's/^main key //p' "$log.rec.out")$" "$log.rec.out" ||
			{ bad=$((bad + 1)); fail "tcache_key: recording $i: the constructor saw another key: $(head -n 2 "$log.rec.out" | tr '\n' ' ')"; }
		for r in 1 2 3; do
			(cd "$WORK" && timeout 60 ./tcache_key --replay "$log" \
				>"$log.rep$r.out" 2>"$log.rep$r.err"); echo $? >"$log.rep$r.rc"
			if ! cmp -s "$log.rec.out" "$log.rep$r.out" || ! cmp -s "$log.rec.rc" "$log.rep$r.rc" ||
			   [ -s "$log.rep$r.err" ]; then
				bad=$((bad + 1))
				fail "tcache_key: recording $i, replay $r: rc $(cat "$log.rep$r.rc"), key $(sed -n 's/^main key //p' "$log.rep$r.out") for $(sed -n 's/^main key //p' "$log.rec.out"): $(head -c 300 "$log.rep$r.err")"
			fi
		done
	done
	[ $bad -eq 0 ] && pass "tcache_key: 4 recordings each replay 3 times with the recording's malloc key"
	[ "$(echo "$keys" | tr ' ' '\n' | grep -x '[0-9a-f]\{16\}' | sort -u | wc -l)" -eq 4 ] &&
		pass "tcache_key: 4 recordings, 4 different keys" ||
		fail "tcache_key: the recordings' keys are not 4 different ones:$keys"
	"$ROOT/build/bin/replay-dump" --exe "$WORK/tcache_key" "$WORK/tcache.1.bin" 2>&1 |
		grep -q "kind 43 .*malloc key (tcache) $(sed -n 's/^main key //p' "$WORK/tcache.1.bin.rec.out")" &&
		pass "tcache_key: replay-dump shows the recorded key" ||
		fail "tcache_key: replay-dump shows no TCACHE record with the recorded key"
}
tcache_key_replays
record_replay spawn_threads 4 2
# Processes with live threads (docs/inputs.md, "Processes"): the child of fork() has
# one thread; the replay makes no child, its pids and statuses come from the log.
record_replay fork_alone 4 1
check "fork_alone: the child was alone, a mutex another thread held stayed held, handlers ran in order" \
	grep -q 'handlers in the parent: pBpA+A+B; child exit 0 ' "$WORK/fork_alone.1.bin.rec.out"
record_replay fork_held 2 1
check "fork_held: a child locking a mutex a vanished thread holds: the deadlock report, exit 87" \
	grep -q 'deadlock: all 1 live thread is blocked in a child of fork()' "$WORK/fork_held.1.bin.rec.err"
check "... which its parent sees" grep -q 'child: exited 87' "$WORK/fork_held.1.bin.rec.out"
# world NAME RUNS WANT ARGS...: record NAME RUNS times (--chaos), each with its own
# directory (the program's first argument, before ARGS) where its children write
# files; WANT: a line its recordings print. Each directory's files are deleted before
# the replay, which must print and exit as recorded and leave the directory empty.
world() {
	local name=$1 runs=$2 want=$3 bad=0 made=0; shift 3
	build "$name" || { fail "$name: build: $(head -n 3 "$WORK/$name.build")"; return; }
	for i in $(seq 1 "$runs"); do
		local d="$WORK/$name.$i.d" log="$WORK/$name.$i.bin"
		rm -rf "$d" && mkdir -p "$d"
		(cd "$WORK" && timeout 60 "./$name" --record "$log" --chaos=$((i * 7919)) "$d" "$@" \
			>"$log.rec.out" 2>"$log.rec.err"); echo $? >"$log.rec.rc"
		[ -n "$(ls "$d")" ] && made=$((made + 1))
		rm -f "$d"/*
		(cd "$WORK" && timeout 60 "./$name" --replay "$log" "$d" "$@" \
			>"$log.rep.out" 2>"$log.rep.err"); echo $? >"$log.rep.rc"
		if ! grep -qF "$want" "$log.rec.out" || ! cmp -s "$log.rec.out" "$log.rep.out" ||
		   ! cmp -s "$log.rec.rc" "$log.rep.rc" || [ -n "$(ls "$d")" ]; then
			bad=$((bad + 1))
			[ $bad -eq 1 ] && fail "$name $*: recording $i (rc $(cat "$log.rec.rc") vs $(cat "$log.rep.rc"), left: $(ls "$d" | tr '\n' ' ')): $(head -c 300 "$log.rec.out" "$log.rep.err")"
		fi
	done
	[ $bad -eq 0 ] && [ $made -eq "$runs" ] &&
		pass "$name $*: $runs recordings made their children's files; the replays print and exit the same and make none"
	[ $made -ne "$runs" ] && fail "$name $*: only $made of $runs recordings' children made their files"
}
world fork_exec 6 'exec child forked: exit 7; pipe child forked: exit 3'
world fork_exec 3 'exec child forked: exit 7; pipe child forked: exit 3' vfork
world spawn_files 4 'system 4; posix_spawn 5 after polling; posix_spawnp 6 (si_code 1); wait4 9,'
check "replay-dump names the children and their statuses" bash -c \
	"D='$ROOT/build/bin/replay-dump'; cd '$WORK' &&
	 \$D fork_exec.1.bin | grep -q 'INPUT      kind 36    16 bytes  fork: child [0-9]*\$' &&
	 \$D fork_exec.1.bin | grep -q 'wait: pid [0-9]* exited 7\$' &&
	 \$D spawn_files.1.bin | grep -q 'system: the shell exited 4\$' &&
	 \$D spawn_files.1.bin | grep -q 'waitid: pid [0-9]*, si_code 1, si_status 6\$'"
# A child that execs a program built with sicc (itself) records too: to the log.bin its
# parent is writing where LIBREPLAY_OPTS names it for both, so to log.bin.PID instead;
# both logs replay. (By default each records a new file of its own: tests/logpath.)
build exec_self
es="$WORK/es" && rm -rf "$es" && mkdir -p "$es" && cp "$WORK/exec_self" "$es/"
(cd "$es" && LIBREPLAY_OPTS="--record log.bin" timeout 60 ./exec_self >rec.out 2>rec.err); echo $? >"$es/rec.rc"
(cd "$es" && timeout 60 ./exec_self --replay log.bin >rep.out 2>rep.err); echo $? >"$es/rep.rc"
child_log=$(cd "$es" && ls log.bin.* 2>/dev/null | head -1)
if [ "$(cat "$es/rec.rc")" = 0 ] && grep -q 'child exited 5' "$es/rec.out" &&
   grep -q "log.bin is the log process .* (an ancestor) is recording; this one records to $child_log" "$es/rec.err" &&
   cmp -s "$es/rec.out" "$es/rep.out" && cmp -s "$es/rec.rc" "$es/rep.rc"
then pass "a child exec'ing a sicc program: it records to $child_log with a note; log.bin replays"
else fail "a child exec'ing a sicc program: rc $(cat "$es/rec.rc")/$(cat "$es/rep.rc"), log '$child_log': $(head -c 300 "$es/rec.err" "$es/rep.err")"; fi
(cd "$es" && timeout 60 ./exec_self --replay "$child_log" >/dev/null 2>&1); rc=$?
check "... and the child's own log replays it (exit 5, got $rc)" test "$rc" = 5
# Spin-waits yield (docs/sic.md): 2,000 handoffs through flags end without waiting for
# time slices (a preemption per handoff otherwise), unrecorded too, and replay.
record_replay spin_handoff 3 1
stats=$(cd "$WORK" && LIBREPLAY_STATS=1 timeout 60 ./spin_handoff --record "$WORK/sh.bin" 2>&1 >/dev/null)
taken=$(echo "$stats" | sed -n 's/.* \([0-9]*\) preemptions taken.*/\1/p')
if [ -n "$taken" ] && [ "$taken" -lt 200 ]; then pass "spin_handoff: 2000 handoffs with $taken preemptions"
else fail "spin_handoff: $stats"; fi
check "spin_handoff: ends unrecorded" bash -c "cd '$WORK' && timeout 60 ./spin_handoff --no-record | grep -q '2000 handoffs'"
# Indirect tail calls through method tables and comparators (issue 11, item 1).
record_replay tail_dispatch "$RUNS" 2
# C++: std::thread, std::mutex, std::condition_variable, exceptions (item 8).
record_replay cxx_threads "$RUNS" 2

# Shared libraries (item 7): a thread pool built as a .so with sicc -shared -fPIC
# (instrumented: counted, preemptible, replayed) and with plain gcc (foreign code
# whose pthread calls reach the layer), each with its test program built by sicc.
pool_lib() { # KIND(instrumented|plain): build $WORK/pool-KIND and its lib-KIND/libpool.so
	local d="$WORK/lib-$1" cc=$SICC
	[ "$1" = plain ] && cc=gcc
	mkdir -p "$d" &&
		$cc -O2 -g -shared -fPIC -o "$d/libpool.so" "$P/pool/pool.c" &&
		"$SICC" -O2 -g -o "$WORK/pool-$1" "$P/pool/pool_test.c" -L"$d" -lpool -Wl,-rpath,"$d"
}
# "INSIDE ALL": of the PREEMPT records of the logs, those at PCs past the executable's
# last segment (inside a shared object), and all of them.
preempts_outside_exe() { # EXE LOG...
	local exe=$1 top=0 type off vaddr paddr filesz memsz rest n=0 all=0 pc
	shift
	while read -r type off vaddr paddr filesz memsz rest; do
		[ "$type" = LOAD ] && [ $((vaddr + memsz)) -gt $top ] && top=$((vaddr + memsz))
	done < <(readelf -lW "$exe")
	for log in "$@"; do "$ROOT/build/bin/replay-dump" --exe "$exe" "$log" || echo FAILED; done \
		>"$WORK/pool.dump" 2>&1
	grep -q FAILED "$WORK/pool.dump" && { echo "replay-dump failed"; return; }
	for pc in $(sed -n 's/^ *[0-9]* *t[0-9]* *PREEMPT .* pc \(0x[0-9a-f]*\).*/\1/p' "$WORK/pool.dump"); do
		all=$((all + 1))
		[ $((pc)) -gt $top ] && n=$((n + 1))
	done
	echo "$n $all"
}
for kind in instrumented plain; do
	if ! pool_lib $kind >"$WORK/pool-$kind.build" 2>&1; then
		fail "pool-$kind: build: $(head -n 3 "$WORK/pool-$kind.build")"
		continue
	fi
	PREBUILT=1 record_replay pool-$kind "$RUNS" 2
	n=$(preempts_outside_exe "$WORK/pool-$kind" "$WORK/pool-$kind".*.bin)
	inside=${n% *} all=${n#* }
	if [ "$n" = "replay-dump failed" ] || [ "$all" -eq 0 ]; then
		fail "pool-$kind: no preemption to look at ($n)"
	elif [ $kind = instrumented ] && [ "$inside" -gt 0 ]; then
		pass "pool-$kind: $inside of $all preemptions inside the library"
	elif [ $kind = plain ] && [ "$inside" -eq 0 ]; then
		pass "pool-$kind: none of $all preemptions inside the (foreign) library"
	else
		fail "pool-$kind: $inside of $all preemptions inside the library"
	fi
done
# Short slices land everywhere, also between publishing a count and a call (a
# replay once lost track there): a lock-heavy program, many times.
"$SICC" -O2 -g -o "$WORK/rounds" "$ROOT/examples/rounds.c"
for q in 100us 50us; do
	bad=0
	for i in $(seq 1 10); do
		(cd "$WORK" && ./rounds --record "$WORK/rounds.bin" --quantum $q >"$WORK/rounds.rec" 2>&1)
		(cd "$WORK" && ./rounds --replay "$WORK/rounds.bin" >"$WORK/rounds.rep" 2>&1) &&
			cmp -s "$WORK/rounds.rec" "$WORK/rounds.rep" || bad=$((bad + 1))
	done
	[ $bad -eq 0 ] && pass "rounds: 10 recordings with $q slices replay exactly" ||
		fail "rounds: $bad of 10 recordings with $q slices did not replay: $(head -c 200 "$WORK/rounds.rep")"
done

# Preemptions at every counting point around pthread_create (issue 15): a thread
# started or resumed with its stack 8 bytes off dies in a movaps (create_aligned.c).
# LIBREPLAY_SIC_STRESS=N,preempt preempts at every Nth counting point (docs/sic.md);
# with the smallest time slice as well, ticks land inside those preemptions too (a
# tick in the C library there once moved the thread's count: every replay diverged).
"$SICC" -O2 -g -o "$WORK/create_aligned" "$P/create_aligned.c" &&
	"$SICC" -O2 -g -DMISALIGN -o "$WORK/create_misaligned" "$P/create_aligned.c" ||
	fail "create_aligned: build"
(cd "$WORK" && ./create_misaligned --no-record >/dev/null 2>&1); rc=$?
check "create_aligned: the movaps callee dies on a stack 8 bytes off (the check can fail)" test $rc -eq 139
ca_run() { # ENV... -- ARGS: record with ENV, replay; "total 126" both times, same output
	local log="$WORK/ca.bin" env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	(cd "$WORK" && env "${env[@]}" timeout 60 ./create_aligned --record "$log" "$@" >ca.rec 2>&1) || return 1
	(cd "$WORK" && timeout 60 ./create_aligned --replay "$log" >ca.rep 2>&1) || return 1
	grep -qx 'total 126' "$WORK/ca.rec" && cmp -s "$WORK/ca.rec" "$WORK/ca.rep"
}
bad=0 preempts=0
for n in 1 2 3 4 5 6 7 8; do
	if ! ca_run LIBREPLAY_SIC_STRESS=$n,preempt --; then
		bad=$((bad + 1)); [ $bad -eq 1 ] && fail "create_aligned, a preemption every $n counting points: $(head -c 200 "$WORK/ca.rep")"
	fi
	preempts=$((preempts + $("$ROOT/build/bin/replay-dump" --exe "$WORK/create_aligned" "$WORK/ca.bin" |
		grep -c ' PREEMPT ')))
done
if [ $bad -eq 0 ] && [ $preempts -ge 1000 ]; then
	pass "create_aligned: preempted at every 1st..8th counting point ($preempts preemptions), recorded and replayed"
elif [ $bad -eq 0 ]; then fail "create_aligned: only $preempts preemptions at counting points"; fi
bad=0
for i in $(seq 1 10); do
	ca_run LIBREPLAY_OPTS="--quantum 50us" -- || bad=$((bad + 1))
	ca_run LIBREPLAY_SIC_STRESS=50,preempt LIBREPLAY_OPTS="--quantum 50us" -- 20000 || bad=$((bad + 1))
done
[ $bad -eq 0 ] && pass "create_aligned: 10 recordings with 50us slices, 10 more also preempted every 50 counting points: replayed" ||
	fail "create_aligned: $bad of 20 recordings with 50us slices failed or did not replay: $(head -c 200 "$WORK/ca.rep")"
# Ticks inside preemptions at counting points: 4 threads, 6 million counts, a
# preemption every 100 (a tick in the C library there once moved the thread's count,
# and 5 of 5 such replays diverged at the end).
(cd "$WORK" && LIBREPLAY_SIC_STRESS=100,preempt timeout 120 ./racy_counter --record rcs.bin \
	--quantum 50us >rcs.rec 2>&1 && timeout 300 ./racy_counter --replay rcs.bin >rcs.rep 2>&1); rc=$?
check "racy_counter preempted every 100 counting points with 50us slices: replayed" \
	bash -c "test $rc -eq 0 && cmp '$WORK/rcs.rec' '$WORK/rcs.rep'"

# The heisenbug example: record until it strikes; the replay fails identically every
# time, also under gdb with a breakpoint inside the buggy function.
"$SICC" -O2 -g -o "$WORK/heisenbug" "$ROOT/examples/heisenbug.c"
struck=""
for i in $(seq 1 60); do
	if ! (cd "$WORK" && ./heisenbug --record "$WORK/bug.bin" --chaos=$((i * 101)) >"$WORK/bug.rec" 2>&1); then
		struck=$i; break; fi
done
if [ -z "$struck" ]; then fail "heisenbug: did not strike in 60 recordings"
else
	same=0
	for i in 1 2 3; do
		(cd "$WORK" && ./heisenbug --replay "$WORK/bug.bin" >"$WORK/bug.rep" 2>&1) && continue
		cmp -s "$WORK/bug.rec" "$WORK/bug.rep" && same=$((same + 1))
	done
	[ $same -eq 3 ] && pass "heisenbug: struck in recording $struck; 3 replays fail identically" ||
		fail "heisenbug: only $same of 3 replays failed as recorded"
	(cd "$WORK" && timeout 300 gdb -batch -nx -ex 'handle SIGPROF SIG41 SIGILL nostop noprint pass' \
		-ex 'break transfer' -ex run -ex bt -ex 'continue 200' -ex delete -ex continue \
		--args ./heisenbug --replay "$WORK/bug.bin" >"$WORK/bug.gdb" 2>&1)
	if grep -q 'Breakpoint 1, .*transfer' "$WORK/bug.gdb" && grep -qF "$(cat "$WORK/bug.rec")" "$WORK/bug.gdb"; then
		pass "heisenbug: replay under gdb stops in transfer() and fails identically"
	else
		fail "heisenbug under gdb: $(grep -v '^\[' "$WORK/bug.gdb" | tail -n 3 | tr '\n' ' ')"
	fi
fi

# Addresses: the same in the recording, its replay, and its replay under gdb.
build layout
(cd "$WORK" && ./layout --record "$WORK/layout.bin" >"$WORK/layout.rec" 2>&1)
(cd "$WORK" && ./layout --replay "$WORK/layout.bin" >"$WORK/layout.rep" 2>&1)
(cd "$WORK" && gdb -batch -nx -ex 'handle SIGPROF SIG41 SIGILL nostop noprint pass' -ex run \
	--args ./layout --replay "$WORK/layout.bin" 2>&1 | grep -E '^(main|thread) stack' >"$WORK/layout.gdb")
check "address layout: replay prints the recorded addresses" cmp "$WORK/layout.rec" "$WORK/layout.rep"
# The flags from LIBREPLAY_OPTS in one run and from the command line in the other: the
# program's heap is the same (the runtime copies LIBREPLAY_OPTS into its own memory).
(cd "$WORK" && LIBREPLAY_OPTS="--record $WORK/layout-env.bin --quantum 1ms" ./layout >"$WORK/layout-env.rec" 2>&1)
(cd "$WORK" && ./layout --replay "$WORK/layout-env.bin" >"$WORK/layout-env.rep" 2>&1)
check "address layout: flags in LIBREPLAY_OPTS when recording, on the command line when replaying: the same heap" \
	cmp "$WORK/layout-env.rec" "$WORK/layout-env.rep"
check "address layout: so does a replay under gdb" cmp "$WORK/layout.rec" "$WORK/layout.gdb"

# Start-up addresses (argv and its strings, environ, auxv, getauxval's pointers,
# stacks) and a table hashed by them: the same in a recording made with flags before
# and after the program's own arguments and in its replay; in a recording made with
# LIBREPLAY_OPTS=--no-record and --record on the command line (the command line wins:
# a recording, address randomisation off); and in a replay under gdb, told to drop
# the LINES and COLUMNS it adds to the environment (its _ still differs: the
# environment is not interned there, and AT_EXECFN, after its strings, left out).
build startup_addrs
sa() { # OUT ENV... -- ARGS...: run startup_addrs in $WORK with those variables
	local out=$1; shift
	(cd "$WORK" && env "$@" >"$WORK/$out" 2>&1)
}
sa sa1.rec STARTUP_ADDRS_VAR=x ./startup_addrs --record sa1.bin --chaos=5 --quantum 2ms -- one two three
sa sa1.rep STARTUP_ADDRS_VAR=x ./startup_addrs --replay sa1.bin
check "start-up addresses: a replay prints the recording's (argv, environ, auxv, a table hashed by them)" \
	cmp "$WORK/sa1.rec" "$WORK/sa1.rep"
check "start-up addresses: the recording ran with address randomisation off" \
	grep -q "address randomisation off" "$WORK/sa1.rec"
sa sa2.rec STARTUP_ADDRS_VAR=x LIBREPLAY_OPTS=--no-record ./startup_addrs --record sa2.bin -- a b
sa sa2.rep STARTUP_ADDRS_VAR=x LIBREPLAY_OPTS=--no-record ./startup_addrs --replay sa2.bin
check "LIBREPLAY_OPTS=--no-record with --record on the command line: records, randomisation off" \
	grep -q "address randomisation off" "$WORK/sa2.rec"
check "LIBREPLAY_OPTS=--no-record with --record on the command line: replays to the same addresses" \
	cmp "$WORK/sa2.rec" "$WORK/sa2.rep"
sa sa3.plain LIBREPLAY_OPTS="--record $WORK/sa3.bin" ./startup_addrs --no-record
check "LIBREPLAY_OPTS=--record with --no-record on the command line: no recording" \
	bash -c "grep -q 'address randomisation on' '$WORK/sa3.plain' && [ ! -e '$WORK/sa3.bin' ]"
sa sa4.rec ./startup_addrs --record sa4.bin --chaos=9 -- x yy
(cd "$WORK" && gdb -batch -nx -ex 'handle SIGPROF SIG41 SIGILL nostop noprint pass' \
	-ex 'unset environment LINES' -ex 'unset environment COLUMNS' -ex run \
	--args ./startup_addrs --replay sa4.bin 2>&1 | grep -vE '^(\[|Using host)' >"$WORK/sa4.gdb")
check "start-up addresses: a replay under gdb prints the recording's" \
	cmp <(grep -v AT_EXECFN "$WORK/sa4.rec") <(grep -v AT_EXECFN "$WORK/sa4.gdb")

# Replaying twice gives the same thing twice (the log is not consumed or changed).
log="$WORK/racy_counter.1.bin"
(cd "$WORK" && ./racy_counter --replay "$log" >"$WORK/again.out" 2>&1)
check "a log replays again identically" cmp "$log.rep.out" "$WORK/again.out"

# A recording killed with SIGKILL: every block written is readable; the replay runs
# up to the end of the log, says so, and the output matches as far as it went.
build long_run
(cd "$WORK" && exec ./long_run --record "$WORK/killed.bin" --quantum 1ms >"$WORK/killed.out" 2>&1) &
pid=$!
sleep 1.6
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
killed_rc=$?
(cd "$WORK" && timeout 120 ./long_run --replay "$WORK/killed.bin" >"$WORK/killed.rep" 2>"$WORK/killed.err")
rc=$?
if [ $killed_rc -ne 137 ]; then fail "killed recording: the recording ended by itself (status $killed_rc) before the kill"
elif [ $rc -ne 0 ]; then fail "killed recording: replay exit $rc: $(head -c 300 "$WORK/killed.err")"
elif ! grep -q "ends early" "$WORK/killed.err"; then fail "killed recording: replay did not say the log ends early"
elif [ "$(wc -l <"$WORK/killed.out")" -lt 2 ]; then fail "killed recording: the program printed nothing before the kill"
else
	# The replay follows the recording as far as the log goes; the records of the
	# last second before the kill may not have been flushed, so only a prefix
	# of the recorded output is determined.
	rec_lines=$(wc -l <"$WORK/killed.out")
	common=$(cmp "$WORK/killed.out" "$WORK/killed.rep" 2>/dev/null | sed -n 's/.* line \([0-9]*\).*/\1/p')
	common=$(( ${common:-$rec_lines} - 1 ))
	if [ "$common" -lt $((rec_lines / 3)) ]; then
		fail "killed recording: replay follows only $common of $rec_lines recorded lines"
	else pass "SIGKILLed recording replays ($common of $rec_lines lines identical) up to its end and says so"; fi
fi

# A replay that takes another path to a recorded call says which calls differ.
build env_input
(cd "$WORK" && ./env_input --record "$WORK/env.bin" >/dev/null 2>&1)
s="$WORK/env_diverge.sh"
printf '#!/bin/sh\nINPUTS_OTHER_PATH=1 exec ./env_input --replay "$1"\n' >"$s" && chmod +x "$s"
# Bad logs and flags: one line naming the problem, a non-zero exit, no crash.
one_line_error() { # NAME PATTERN COMMAND...
	local name=$1 pattern=$2; shift 2
	(cd "$WORK" && "$@") >"$WORK/err.out" 2>"$WORK/err.err"
	local rc=$?
	if [ $rc -eq 0 ] || [ $rc -gt 128 ]; then fail "$name: exit $rc"
	elif [ "$(grep -c . "$WORK/err.err")" -ne 1 ]; then fail "$name: not one line: $(head -c 300 "$WORK/err.err")"
	elif ! grep -Eq "$pattern" "$WORK/err.err"; then fail "$name: '$(cat "$WORK/err.err")' lacks /$pattern/"
	else pass "$name"; fi
}
good="$WORK/racy_counter.2.bin"
head -c 40 "$good" >"$WORK/trunc.bin"
one_line_error "truncated header" "trunc\.bin" ./racy_counter --replay "$WORK/trunc.bin"
cp "$good" "$WORK/corrupt.bin"
size=$(stat -c %s "$good")
printf '\xff\xff\xff\xff' | dd of="$WORK/corrupt.bin" bs=1 seek=$((size - 12)) conv=notrunc 2>/dev/null
one_line_error "corrupt block" "corrupt|checksum" ./racy_counter --replay "$WORK/corrupt.bin"
head -c 4096 /dev/urandom >"$WORK/random.bin"
one_line_error "not a log" "random\.bin" ./racy_counter --replay "$WORK/random.bin"
one_line_error "missing log" "nope\.bin" ./racy_counter --replay "$WORK/nope.bin"
one_line_error "another program's log" "another executable|build-id" ./spin_flag --replay "$good"
one_line_error "bad quantum" "quantum" ./racy_counter --quantum=abc
one_line_error "quantum too small" "quantum" ./racy_counter --quantum=1us
one_line_error "--replay without a file, none recorded" "no recording of racy_counter to replay in .*/recordings" ./racy_counter --replay
one_line_error "replay with other arguments" "other arguments" ./racy_counter --replay "$good" extra
# LIBREPLAY_OPTS: every word counts (those past the 63rd were dropped without a word),
# a newline separates words like a space, and a message stays one line (issue 25).
many=$(for i in $(seq 1 70); do printf -- '--any-layout '; done)
one_line_error "LIBREPLAY_OPTS: a bad flag as its 71st word is refused" "LIBREPLAY_OPTS: unknown flag '--bogus'" \
	env LIBREPLAY_OPTS="$many--bogus" ./racy_counter
(cd "$WORK" && LIBREPLAY_OPTS="$many--record $WORK/opts71.bin" ./racy_counter >/dev/null 2>&1)
check "LIBREPLAY_OPTS: a --record after 70 words is taken" test -s "$WORK/opts71.bin"
one_line_error "LIBREPLAY_OPTS: words on several lines, a bad one named on one line" "^libreplay: bad --hunt seed 'x'" \
	env LIBREPLAY_OPTS=$'--quantum 1ms\n--hunt=x' ./racy_counter
(cd "$WORK" && LIBREPLAY_OPTS=$'--quantum\n1ms\n--record\n'"$WORK/optsnl.bin" ./racy_counter >/dev/null 2>&1)
check "LIBREPLAY_OPTS: words on several lines are taken" test -s "$WORK/optsnl.bin"
one_line_error "a newline in a flag's value: one line" "^libreplay: bad --quantum '1\?ms'" \
	./racy_counter --quantum $'1\nms'
(cd "$WORK" && "$s" "$WORK/env.bin" >"$WORK/env.out" 2>"$WORK/env.err")
rc=$?
# (the environment differs: a warning at start, and the divergence names it)
if [ $rc -eq 86 ] && [ "$(grep -c . "$WORK/env.err")" -eq 2 ] &&
	grep -q "^libreplay: warning: the replay's context differs from the recording's: the environment (INPUTS_OTHER_PATH set)$" "$WORK/env.err" &&
	grep -q "thread 1 called time, where the recording called getpid.*; the replay's context differs .*INPUTS_OTHER_PATH set" "$WORK/env.err"
then pass "a different recorded call diverges on one line, naming both calls and the environment"
else fail "different recorded call: exit $rc: $(head -c 300 "$WORK/env.err")"; fi
# Recorded inputs (docs/inputs.md): clocks, CPU times, getrandom, /dev/urandom by
# read() and fread(), arc4random, ids, processor counts, from three threads. Each
# recording replays byte for byte (also with fixed slices), and the recordings'
# values all differ: they really come from the log.
record_replay inputs 6 1
for i in 1 2 3 4 5 6; do cp "$WORK/inputs.$i.bin.rec.out" "$WORK/inputs.chaos.$i"; done
record_replay inputs 3 1 "--quantum 100us"
repeats=0
for i in 2 3 4 5 6; do
	cmp -s "$WORK/inputs.chaos.1" "$WORK/inputs.chaos.$i" && repeats=$((repeats + 1))
done
for what in "urandom read" "urandom fread" getrandom "seeded from the clock" " MONOTONIC "; do
	n=$(cat "$WORK"/inputs.chaos.* | grep -F "$what" | sort | uniq -d | wc -l)
	[ "$n" -eq 0 ] || { repeats=$((repeats + 1)); echo "repeated: $what"; }
done
[ $repeats -eq 0 ] && pass "inputs: six recordings print different random bytes, clocks and seeds" ||
	fail "inputs: $repeats outputs or value kinds repeat across recordings"

# Built with _FORTIFY_SOURCE, read() is __read_chk and fread() __fread_chk: recorded too
# (ours, weak like every C library name the runtime defines).
"$SICC" -O2 -g -D_FORTIFY_SOURCE=2 -o "$WORK/inputs_fortified" "$P/inputs.c"
(cd "$WORK" && ./inputs_fortified --record "$WORK/fortified.bin" --chaos >"$WORK/fortified.rec" 2>&1)
(cd "$WORK" && ./inputs_fortified --replay "$WORK/fortified.bin" >"$WORK/fortified.rep" 2>&1)
if nm "$WORK/inputs_fortified" | grep -Eq ' [TW] __read_chk$' && cmp -s "$WORK/fortified.rec" "$WORK/fortified.rep" &&
	! cmp -s "$WORK/fortified.rec" "$WORK/inputs.chaos.1"
then pass "inputs built with _FORTIFY_SOURCE=2 replay exactly"
else fail "inputs with _FORTIFY_SOURCE=2: $(cmp "$WORK/fortified.rec" "$WORK/fortified.rep" 2>&1 | head -c 200)"; fi

# Loud failures: a note on stderr at the call, a non-zero exit, no hang.
loud() { # NAME PATTERN COMMAND...
	local name=$1 pattern=$2; shift 2
	(cd "$WORK" && timeout 60 "$@" >"$WORK/loud.out" 2>"$WORK/loud.err")
	local rc=$?
	if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then fail "$name: exit $rc"
	elif ! grep -Eq "$pattern" "$WORK/loud.err"; then fail "$name: no note /$pattern/: $(head -c 300 "$WORK/loud.err")"
	else pass "$name"; fi
}
build sigprof && build outside_signal
loud "a SIGPROF handler: EINVAL and a note" 'handler for SIGPROF: .*recorder' ./sigprof --record "$WORK/sp.bin"
check "setitimer(ITIMER_PROF): EINVAL and a note" grep -q 'setitimer(ITIMER_PROF): .*time slice' "$WORK/loud.err"
check "SA_ONSTACK: no note" bash -c "! grep -q 'SA_ONSTACK' '$WORK/loud.err'"
check "... and the handler runs on the thread's alternate stack" bash -c "! grep -q 'did not' '$WORK/loud.out'"
check "with --no-record too, SIGPROF stays the time slice's" bash -c "cd '$WORK' && ./sigprof --no-record 2>&1 | grep -q 'handler for SIGPROF: .*recorder'"

# Signals from outside (docs/inputs.md): each is recorded where it was delivered (a
# SIGNAL_AT input: thread, count, pc, or every thread waiting) and delivered there
# again in the replay, with the recorded siginfo; the replay needs no sender.
# async_signals MODE RUNS: record RUNS times while threads race (the chaos scheduler,
# and 100 us slices every other run), replay each: the same output (which thread each
# handler interrupted, how far it was, its siginfo), status 0 (the END check passed),
# the log's SIGNAL_AT records as many as the handler ran (the output's first line).
DUMP_AS() { "$ROOT/build/bin/replay-dump" --exe "$WORK/async_signals" "$@"; }
async_signals() {
	local mode=$1 runs=$2 bad=0 i log how
	for i in $(seq 1 "$runs"); do
		log=$WORK/as.$mode.$i.bin
		how=--chaos=$((i * 31))
		[ $((i % 2)) = 0 ] && how="--quantum 100us"
		(cd "$WORK" && timeout 60 ./async_signals --record "$log" $how "$mode" >"$log.rec" 2>"$log.rec.err"); echo $? >"$log.rec.rc"
		async_replay "$mode" "$log" || bad=$((bad + 1))
	done
	[ $bad -eq 0 ] && pass "signals from outside, $mode: $runs recordings replay exactly, each handler at its recorded point"
}
# async_replay MODE LOG: replay LOG and compare (a FAIL line for the first difference).
async_replay() {
	local mode=$1 log=$2 n at
	(cd "$WORK" && timeout 60 ./async_signals --replay "$log" >"$log.rep" 2>"$log.rep.err"); echo $? >"$log.rep.rc"
	n=$(sed -n "s/^$mode: \([0-9]*\) signals$/\1/p" "$log.rec")
	at=$(DUMP_AS "$log" 2>/dev/null | grep -c "INPUT .* signal [0-9]* (SIG[A-Z0-9+]*) from outside ")
	if [ "$(cat "$log.rec.rc")" != 0 ] || [ -z "$n" ] || [ "$n" -lt 1 ]; then
		fail "signals from outside, $mode: recording (status $(cat "$log.rec.rc")): $(head -c 300 "$log.rec" "$log.rec.err")"
	elif ! cmp -s "$log.rec" "$log.rep" || [ "$(cat "$log.rep.rc")" != 0 ]; then
		fail "signals from outside, $mode: the replay (status $(cat "$log.rep.rc")) differs: $(diff "$log.rec" "$log.rep" | head -n 4 | tr '\n' ' ') $(head -c 200 "$log.rep.err")"
	elif [ "$at" -lt "$n" ]; then
		fail "signals from outside, $mode: $n handled, $at SIGNAL_AT records in the log"
	else
		return 0
	fi
	return 1
}
build async_signals
async_signals itimer 4   # SIGALRM from setitimer(ITIMER_REAL), every 2 ms
async_signals vtimer 4   # SIGVTALRM from ITIMER_VIRTUAL
async_signals timer 4    # a timer_create timer's SIGRTMIN+1, with its value
async_signals child 4    # SIGUSR1 from a child process (sigqueue, a value each)
async_signals alarm 2    # alarm(1) twice: main in pause(), then alone
# From the test script's kill, while the threads race: the replay runs without it.
bad=0
for i in 1 2 3; do
	log=$WORK/as.script.$i.bin
	(cd "$WORK" && exec ./async_signals --record "$log" --chaos=$((i * 17)) script >"$log.rec" 2>"$log.rec.err") &
	pid=$!
	for k in $(seq 1 400); do grep -q ready "$log.rec" 2>/dev/null && break; sleep 0.05; done
	for k in 1 2 3 4; do kill -USR1 "$pid" 2>/dev/null; sleep 0.03; done
	for k in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null # (a signal lost: it would wait for ever)
	wait "$pid"; echo $? >"$log.rec.rc"
	async_replay script "$log" || bad=$((bad + 1))
done
[ $bad -eq 0 ] && pass "signals from outside, SIGUSR1 from the test script: 3 recordings replay exactly, without the sender"
# What the timers say (alarm's seconds left, getitimer...) is recorded: TIMER inputs.
record_replay timer_values 4 2
check "replay-dump prints a SIGNAL_AT with its siginfo" bash -c \
	"'$ROOT/build/bin/replay-dump' --exe '$WORK/async_signals' '$WORK/as.timer.1.bin' | grep -q 'signal 35 (SIGRTMIN+1) from outside at count [0-9]* pc 0x[0-9a-f]*: code -2 SI_TIMER .*value 0x2a'"
check "... and one delivered while every thread waited" bash -c \
	"'$ROOT/build/bin/replay-dump' --exe '$WORK/async_signals' '$WORK/as.alarm.1.bin' | grep -q 'signal 14 (SIGALRM) from outside while every thread waited (question [0-9]*): code 128 SI_KERNEL'"

# A single thread: SIGUSR1 from the script and SIGALRM from alarm() while it sleeps;
# signals it sends itself (raise, kill(getpid())) arrive at the call, in the replay too.
(cd "$WORK" && exec ./outside_signal --record "$WORK/usr1.bin" >"$WORK/usr1.out" 2>"$WORK/usr1.err") &
pid=$!
for i in $(seq 1 400); do grep -q ready "$WORK/usr1.out" 2>/dev/null && break; sleep 0.05; done
kill -USR1 "$pid" 2>/dev/null
wait $pid
rc=$?
(cd "$WORK" && timeout 60 ./outside_signal --replay "$WORK/usr1.bin" >"$WORK/usr1.rep" 2>"$WORK/usr1.rep.err")
rc2=$?
if [ $rc -ne 0 ] || ! grep -q "self-sent: raise 10 kill 10" "$WORK/usr1.out" || ! grep -q "got signal 10" "$WORK/usr1.out"; then
	fail "SIGUSR1 from outside: exit $rc: $(tr '\n' ' ' <"$WORK/usr1.out") $(head -c 200 "$WORK/usr1.err")"
elif [ -s "$WORK/usr1.err" ] || [ $rc2 -ne 0 ] || ! cmp -s "$WORK/usr1.out" "$WORK/usr1.rep"; then
	fail "SIGUSR1 from outside: replay exit $rc2: $(tr '\n' ' ' <"$WORK/usr1.rep") $(head -c 200 "$WORK/usr1.err" "$WORK/usr1.rep.err")"
else pass "SIGUSR1 from outside a lone thread: recorded without a note, replayed"; fi
(cd "$WORK" && timeout 60 ./outside_signal --record "$WORK/alrm.bin" alarm >"$WORK/alrm.out" 2>"$WORK/alrm.err")
(cd "$WORK" && timeout 60 ./outside_signal --replay "$WORK/alrm.bin" >"$WORK/alrm.rep" 2>&1)
if grep -q "got signal 14" "$WORK/alrm.out" && cmp -s "$WORK/alrm.out" "$WORK/alrm.rep" && ! [ -s "$WORK/alrm.err" ]
then pass "alarm(): SIGALRM while sleeping replays"
else fail "alarm(): $(tr '\n' ' ' <"$WORK/alrm.rep") $(head -c 300 "$WORK/alrm.err")"; fi
# The TLS probes' children (sched/sched_tls_probe.c) send the program no SIGCHLD.
build chld_probe
(cd "$WORK" && ./chld_probe --record "$WORK/chld.bin" >"$WORK/chld.rec" 2>"$WORK/chld.err"); rc=$?
(cd "$WORK" && ./chld_probe --replay "$WORK/chld.bin" >"$WORK/chld.rep" 2>&1)
if [ $rc -eq 0 ] && grep -qx "SIGCHLD handled 0 times" "$WORK/chld.rec" && cmp -s "$WORK/chld.rec" "$WORK/chld.rep" &&
	! [ -s "$WORK/chld.err" ]; then pass "a program's SIGCHLD handler never sees the TLS probes' children"
else fail "TLS probes' SIGCHLD: exit $rc, $(cat "$WORK/chld.rec" "$WORK/chld.err" | head -c 300)"; fi
# Only self-sent signals (raise, kill(getpid()): the replay maps the recorded pid to
# its own): no note, and the replay prints the same.
(cd "$WORK" && ./outside_signal --record "$WORK/self.bin" self >"$WORK/self.rec" 2>"$WORK/self.err")
(cd "$WORK" && ./outside_signal --replay "$WORK/self.bin" >"$WORK/self.rep" 2>&1)
if grep -q "self-sent: raise 10 kill 10" "$WORK/self.rec" && cmp -s "$WORK/self.rec" "$WORK/self.rep" && ! [ -s "$WORK/self.err" ]
then pass "signals the program sends itself replay, without a note"
else fail "self-sent signals: $(tr '\n' ' ' <"$WORK/self.rep") $(head -c 200 "$WORK/self.err")"; fi
# The log's INPUT bytes stored compressed or by reference (docs/log-format.md, "Stored
# bytes"), and as they are (LIBREPLAY_LOG_STORE=plain, the measuring aid): both replay,
# the default log smaller by the 78 uname() results stored as references.
build stored_bytes || fail "stored_bytes: build: $(head -n 3 "$WORK/stored_bytes.build")"
for store in zstd+refs plain; do
	(cd "$WORK" && LIBREPLAY_LOG_STORE=$store ./stored_bytes --record "$WORK/stored.$store.bin" --chaos=5 \
		>"$WORK/stored.$store.rec" 2>&1 && ./stored_bytes --replay "$WORK/stored.$store.bin" >"$WORK/stored.$store.rep" 2>&1)
	if cmp -s "$WORK/stored.$store.rec" "$WORK/stored.$store.rep" && grep -q '^t0 ' "$WORK/stored.$store.rec"
	then pass "stored_bytes: INPUT bytes stored $store replay to the same output"
	else fail "stored_bytes $store: $(head -c 300 "$WORK/stored.$store.rep")"; fi
done
a=$(stat -c %s "$WORK/stored.zstd+refs.bin") b=$(stat -c %s "$WORK/stored.plain.bin")
[ "$a" -lt $((b - 78 * 300)) ] && pass "stored_bytes: references save the repeated uname() results ($a bytes, plain $b)" ||
	fail "stored_bytes: $a bytes with references, $b without"
one_line_error "LIBREPLAY_LOG_STORE: an unknown value is refused" "LIBREPLAY_LOG_STORE=zip: not plain, zstd, refs or zstd\+refs" \
	env LIBREPLAY_LOG_STORE=zip ./stored_bytes --record "$WORK/stored.bad.bin"
# A reference whose bytes were damaged (a log of references only, so that the first
# uname() result is stored as it is; its block's checksums made to match): the replay
# says so in one line naming the log.
(cd "$WORK" && LIBREPLAY_LOG_STORE=refs ./stored_bytes --record "$WORK/stored.refs.bin" >/dev/null 2>&1)
python3 - "$WORK/stored.refs.bin" "$WORK/stored.damaged.bin" <<'PY'
import sys, struct, zlib
p = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<I', p, 12)[0]
while off + 24 <= len(p):
	n = struct.unpack_from('<I', p, off + 8)[0]
	i = p.find(b'Linux', off + 24, off + 24 + n)  # the first uname(): its sysname
	if i >= 0:
		p[i] ^= 0x20
		struct.pack_into('<I', p, off + 16, zlib.crc32(bytes(p[off + 24:off + 24 + n])))
		struct.pack_into('<I', p, off + 20, zlib.crc32(bytes(p[off:off + 20])))
		break
	off += 24 + n
open(sys.argv[2], 'wb').write(p)
PY
one_line_error "stored_bytes: a reference to damaged bytes is one line naming the log" \
	"stored\.damaged\.bin: .*INPUT reference to bytes that do not match its hash" \
	./stored_bytes --replay "$WORK/stored.damaged.bin"
check "--replay-help lists the flags" bash -c "cd '$WORK' && ./racy_counter --replay-help | grep -q -- '--chaos'"
check "flags are stripped before main" bash -c "cd '$WORK' && ./racy_counter --no-record -- >/dev/null"
summary
