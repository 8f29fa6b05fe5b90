#!/bin/bash
# Real open-source programs with their own test suites, from Debian's source packages
# (apt-get source, cached under build/debsrc: tests/lib/debsrc.sh), built with CC=sicc:
#
# - xz-utils (liblzma's multithreaded encoder and decoder: worker threads, mutexes,
#   condition variables, timed waits): ./configure CC=sicc && make, then its own
#   `make check` unrecorded and recorded (LIBREPLAY_OPTS: every program the suite
#   runs records); each of the suite's C test programs recorded under the chaos
#   scheduler and replayed to the same output; `xz -T4` compressing and
#   decompressing a file of many blocks, recorded five ways (the chaos scheduler,
#   100 us slices, the hunting scheduler) and replayed byte for byte (the stream
#   also equal to the unrecorded run's and to Debian's own xz's); `xz -v` on a
#   terminal (script(1)'s), whose progress line comes with each alarm(1)'s SIGALRM,
#   recorded and replayed to the same stream and the same terminal output. The race
#   build (sicc --races) replays the 100 us recording with --races: no race.
# - libzstd's thread pool (lib/common/pool.c) and its test program tests/poolTests
#   (job order, waiting, resizing the pool, ending with jobs queued), unrecorded,
#   recorded seven ways (chaos, 50 us slices, --hunt seeds 1-3) and replayed. Its
#   POOL_add ends in a tail jump to pthread_mutex_unlock: the hunt's preemptions
#   before a synchronization call must not take main's call of POOL_add for it.
#   Its race build replays the seven recordings with --races: no race.
#
# A package whose source cannot be fetched is a SKIP line, counted apart.
# The builds are kept under build/apps-build, keyed by the toolchain (sicc, sicpp,
# libreplay.a): a second run with the same toolchain reuses them.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/debsrc.sh"
unset LIBREPLAY_OPTS

TOOLCHAIN=$(cat "$SICC" "$SICPP" "$LIBREPLAY" | md5sum | cut -c1-12)

# build_tree PKG SRC CMD...: copy SRC to build/apps-build/PKG and run CMD there (its
# output in $WORK/PKG.build); reused when it was built with this toolchain. Prints
# the tree's directory.
build_tree() {
	local pkg=$1 src=$2 tree="$ROOT/build/apps-build/$1"
	shift 2
	if [ "$(cat "$tree/.toolchain" 2>/dev/null)" = "$TOOLCHAIN" ]; then
		echo "$tree"
		return 0
	fi
	rm -rf "$tree" && mkdir -p "$(dirname "$tree")" && cp -a "$src" "$tree"
	if ! (cd "$tree" && "$@") >"$WORK/$pkg.build" 2>&1; then
		return 1
	fi
	echo "$TOOLCHAIN" >"$tree/.toolchain"
	echo "$tree"
}

# run OUT CMD...: in $WORK, stdout to OUT, stderr to OUT.err, status to OUT.rc; killed
# after RUN_TIMEOUT seconds (300).
run() {
	local out=$WORK/$1
	shift
	(cd "$WORK" && timeout "${RUN_TIMEOUT:-300}" "$@" >"$out" 2>"$out.err"); echo $? >"$out.rc"
}

# same A B: stdout, stderr and status all equal.
same() { cmp -s "$1" "$2" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"; }

# automake's summary of a `make check` log: "PASS FAIL ERROR" counts.
suite_counts() {
	local p f e
	p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	f=$(sed -n 's/^# FAIL: *\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	e=$(sed -n 's/^# ERROR: *\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	echo "${p:-0} ${f:-?} ${e:-?}"
}

# ---- xz-utils ---------------------------------------------------------------------
xz_configure() {
	# -O2 without -g: calls between its files go to direct entries (docs/sic.md)
	./configure CC="$SICC" CFLAGS=-O2 --disable-shared --disable-doc --disable-nls && make -j2
}
if ! src=$(debsrc_fetch xz-utils 2>"$WORK/xz.fetch"); then
	skip "xz-utils: $(cat "$WORK/xz.fetch")"
elif ! XZT=$(build_tree xz-utils "$src" xz_configure); then
	fail "xz-utils: configure CC=sicc && make: $(tail -n 3 "$WORK/xz-utils.build" | tr '\n' ' ')"
else
	XZ=$XZT/src/xz/xz
	# The suite, unrecorded, then with every program it runs recording (chaos), each
	# run into a file of its own in the recording directory (its scripts run xz in
	# pipes: one --record FILE for all would have the second refused, the file taken).
	for how in "unrecorded:--no-record" "recorded:--chaos=17"; do
		tag=${how%%:*}
		(cd "$XZT" && LIBREPLAY_OPTS=${how#*:} timeout 600 make check) >"$WORK/xz-check.$tag" 2>&1
		rc=$?
		read -r p f e < <(suite_counts "$WORK/xz-check.$tag")
		if [ $rc -eq 0 ] && [ "$p" -ge 18 ] && [ "$f" = 0 ] && [ "$e" = 0 ]; then
			pass "xz-utils: make check, $tag: $p of its tests pass"
		else
			fail "xz-utils: make check, $tag (status $rc): $p passed, $f failed, $e errors: $(grep -E '^(FAIL|ERROR):' "$WORK/xz-check.$tag" | head -n 3 | tr '\n' ' ')"
		fi
	done
	# The suite's C programs, each recorded under the chaos scheduler and replayed.
	bad=0 n=0
	for t in "$XZT"/tests/test_*; do
		[ -x "$t" ] && [ "$(head -c 4 "$t" | tail -c 3)" = ELF ] || continue
		name=$(basename "$t") n=$((n + 1))
		run "xzt.$name.rec" bash -c "cd '$XZT/tests' && srcdir=. '$t' --record '$WORK/xzt.$name.bin' --chaos=$n"
		run "xzt.$name.rep" bash -c "cd '$XZT/tests' && srcdir=. '$t' --replay '$WORK/xzt.$name.bin'"
		if [ "$(cat "$WORK/xzt.$name.rec.rc")" != 0 ] || ! same "$WORK/xzt.$name.rec" "$WORK/xzt.$name.rep"; then
			bad=$((bad + 1))
			fail "xz-utils: tests/$name recorded (status $(cat "$WORK/xzt.$name.rec.rc")) and replayed (status $(cat "$WORK/xzt.$name.rep.rc")): $(head -c 300 "$WORK/xzt.$name.rep.err")"
		fi
	done
	[ $n -ge 10 ] && [ $bad -eq 0 ] && pass "xz-utils: its $n C test programs pass recorded and replay exactly"
	[ $n -ge 10 ] || fail "xz-utils: only $n C test programs built"

	# Multithreaded compression of a file of many blocks, and decompression.
	in=$WORK/xz.in
	{ seq 1 200000; cat "$ROOT"/docs/*.md "$ROOT"/libreplay/*/*.c; } >"$in"
	args=(-T4 --block-size=128KiB -6)
	run xz.plain "$XZ" --no-record -- "${args[@]}" -c "$in"
	check "xz-utils: xz -T4 unrecorded: xz -d gives the input back" \
		sh -c "'$XZ' --no-record -- -d -c '$WORK/xz.plain' | cmp - '$in'"
	if command -v xz >/dev/null && [ "$(xz --version | head -n 1)" = "$("$XZ" --no-record -- --version | head -n 1)" ]; then
		check "xz-utils: xz -T4 built with sicc writes Debian's xz's stream" \
			sh -c "xz ${args[*]} -c '$in' | cmp - '$WORK/xz.plain'"
	fi
	for slices in --chaos=3 --chaos=1009 "--quantum 100us" --hunt=1 --hunt=2; do
		tag=$(echo "${slices#--}" | tr -c 'a-z0-9\n' _)
		run "xz.$tag.rec" "$XZ" --record "xz.$tag.bin" $slices -- "${args[@]}" -c "$in"
		# The replay reads the input from the log (docs/inputs.md): not there.
		mv "$in" "$in.away"
		run "xz.$tag.rep" "$XZ" --replay "xz.$tag.bin"
		mv "$in.away" "$in"
		if ! cmp -s "$WORK/xz.$tag.rec" "$WORK/xz.plain"; then
			fail "xz-utils: xz -T4 $slices: another stream than unrecorded (status $(cat "$WORK/xz.$tag.rec.rc")): $(head -c 300 "$WORK/xz.$tag.rec.err")"
		elif ! same "$WORK/xz.$tag.rec" "$WORK/xz.$tag.rep"; then
			fail "xz-utils: xz -T4 $slices: the replay differs (status $(cat "$WORK/xz.$tag.rep.rc")): $(head -c 300 "$WORK/xz.$tag.rep.err")"
		else
			pass "xz-utils: xz -T4 $slices: the unrecorded stream; the replay, its input deleted, writes it byte for byte"
		fi
		run "xzd.$tag.rec" "$XZ" --record "xzd.$tag.bin" $slices -- -d -T4 -c xz.plain
		mv "$WORK/xz.plain" "$WORK/xz.plain.away"
		run "xzd.$tag.rep" "$XZ" --replay "xzd.$tag.bin"
		mv "$WORK/xz.plain.away" "$WORK/xz.plain"
		if cmp -s "$WORK/xzd.$tag.rec" "$in" && same "$WORK/xzd.$tag.rec" "$WORK/xzd.$tag.rep"; then
			pass "xz-utils: xz -d -T4 $slices: the input back; the replay, its input deleted, gives it again"
		else
			fail "xz-utils: xz -d -T4 $slices (status $(cat "$WORK/xzd.$tag.rec.rc"), replay $(cat "$WORK/xzd.$tag.rep.rc")): $(head -c 300 "$WORK/xzd.$tag.rep.err")"
		fi
	done
	# The schedule decided something: the recordings preempted the workers.
	n=$("$ROOT/build/bin/replay-dump" "$WORK/xz.quantum_100us.bin" 2>/dev/null | grep -c ' PREEMPT ')
	if [ "${n:-0}" -ge 10 ]; then pass "xz-utils: the 100 us recording has $n preemptions"
	else fail "xz-utils: the 100 us recording has ${n:-0} preemptions"; fi

	# The race build (sicc --races, docs/races.md) replays that recording of the
	# ordinary build with --races, its thousands of preemptions at mapped pcs: the same
	# stream, and no race in xz's threads (about 640M accesses checked).
	xz_races() {
		./configure CC="$SICC --races" CFLAGS=-O2 --disable-shared --disable-doc --disable-nls && make -j2
	}
	if ! XZR=$(build_tree xz-utils-races "$src" xz_races); then
		fail "xz-utils: configure CC='sicc --races' && make: $(tail -n 3 "$WORK/xz-utils-races.build" | tr '\n' ' ')"
	else
		mv "$in" "$in.away"
		# (35 s of CPU time: 640M checks; 224 s of wall time at a load of 12 on 2 CPUs)
		RUN_TIMEOUT=900 run xz.races "$XZR/src/xz/xz" --replay xz.quantum_100us.bin --races
		mv "$in.away" "$in"
		if cmp -s "$WORK/xz.races" "$WORK/xz.quantum_100us.rec" &&
		   grep -q '^libreplay: --races: 0 races found in this run$' "$WORK/xz.races.err"; then
			pass "xz-utils: xz -T4 --quantum 100us replayed by the race build with --races: the same stream, no race"
		else
			fail "xz-utils: xz -T4 replayed with --races (status $(cat "$WORK/xz.races.rc")): $(grep -m 3 'race\|diverged' "$WORK/xz.races.err" | tr '\n' ' ')"
		fi
	fi

	# xz -v on a terminal redraws its progress line at each alarm(1): SIGALRM from
	# outside, recorded where it was delivered and delivered there in the replay
	# (docs/inputs.md). The terminal is script(1)'s; the replay's terminal output (the
	# progress lines, their times and speeds) is the recording's, byte for byte.
	if command -v script >/dev/null; then
		head -c 8000000 /dev/urandom >"$WORK/xzv.in" # a few seconds: alarm(1) comes
		for slices in "" --chaos=5; do
			tag=tty${slices:+_chaos}
			(cd "$WORK" && timeout 300 script -qec "'$XZ' --record xz.$tag.bin $slices -- -v -6e -T1 -c xzv.in >xz.$tag.rec" /dev/null >"xz.$tag.rec.tty" 2>&1)
			(cd "$WORK" && timeout 300 script -qec "'$XZ' --replay xz.$tag.bin >xz.$tag.rep" /dev/null >"xz.$tag.rep.tty" 2>&1)
			n=$("$ROOT/build/bin/replay-dump" --exe "$XZ" "$WORK/xz.$tag.bin" 2>/dev/null | grep -c 'signal 14 (SIGALRM) from outside')
			if ! "$XZ" --no-record -- -d -c "$WORK/xz.$tag.rec" 2>/dev/null | cmp -s - "$WORK/xzv.in"; then
				fail "xz-utils: xz -v${slices:+ $slices} on a terminal: the stream does not give the input back: $(tail -c 300 "$WORK/xz.$tag.rec.tty")"
			elif [ "${n:-0}" -lt 1 ]; then
				skip "xz-utils: xz -v${slices:+ $slices} on a terminal: it ended before its first alarm(1)"
			elif cmp -s "$WORK/xz.$tag.rec" "$WORK/xz.$tag.rep" && cmp -s "$WORK/xz.$tag.rec.tty" "$WORK/xz.$tag.rep.tty"; then
				pass "xz-utils: xz -v${slices:+ $slices} on a terminal: SIGALRM $n times, recorded; the replay writes the stream and the terminal's progress lines byte for byte"
			else
				fail "xz-utils: xz -v${slices:+ $slices} on a terminal: the replay differs: $(tail -c 300 "$WORK/xz.$tag.rep.tty")"
			fi
		done
	else
		skip "xz-utils: xz -v on a terminal: no script(1) to make one"
	fi
fi

# ---- libzstd's thread pool ----------------------------------------------------------
zstd_pool() { make -C tests poolTests CC="$SICC"; }
if ! src=$(debsrc_fetch libzstd 2>"$WORK/zstd.fetch"); then
	skip "libzstd: $(cat "$WORK/zstd.fetch")"
elif ! ZT=$(build_tree libzstd-pool "$src" zstd_pool); then
	fail "libzstd: make -C tests poolTests CC=sicc: $(tail -n 3 "$WORK/libzstd-pool.build" | tr '\n' ' ')"
else
	POOL=$ZT/tests/poolTests
	run pool.plain "$POOL" --no-record
	check "libzstd: poolTests unrecorded: all POOL tests pass" \
		sh -c "[ \$(cat '$WORK/pool.plain.rc') = 0 ] && grep -q '^PASS: all POOL tests' '$WORK/pool.plain'"
	for slices in --chaos=5 --chaos=77 --chaos=4242 "--quantum 50us" --hunt=1 --hunt=2 --hunt=3; do
		tag=$(echo "${slices#--}" | tr -c 'a-z0-9\n' _)
		run "pool.$tag.rec" "$POOL" --record "pool.$tag.bin" $slices
		run "pool.$tag.rep" "$POOL" --replay "pool.$tag.bin"
		if [ "$(cat "$WORK/pool.$tag.rec.rc")" != 0 ] || ! grep -q '^PASS: all POOL tests' "$WORK/pool.$tag.rec"; then
			fail "libzstd: poolTests $slices: $(tail -n 2 "$WORK/pool.$tag.rec" | tr '\n' ' ') $(head -c 200 "$WORK/pool.$tag.rec.err")"
		elif ! same "$WORK/pool.$tag.rec" "$WORK/pool.$tag.rep"; then
			fail "libzstd: poolTests $slices: the replay differs (status $(cat "$WORK/pool.$tag.rep.rc")): $(head -c 300 "$WORK/pool.$tag.rep.err")"
		else
			pass "libzstd: poolTests $slices: all POOL tests pass; the replay is the same"
		fi
	done
	# The pool's race build replays each recording with --races: the same output, and
	# no race in pool.c (its mutex and condvars order every job's handover).
	zstd_pool_races() { make -C tests poolTests CC="$SICC --races"; }
	if ! ZR=$(build_tree libzstd-pool-races "$src" zstd_pool_races); then
		fail "libzstd: make -C tests poolTests CC='sicc --races': $(tail -n 3 "$WORK/libzstd-pool-races.build" | tr '\n' ' ')"
	else
		bad=""
		for tag in chaos_5 chaos_77 chaos_4242 quantum_50us hunt_1 hunt_2 hunt_3; do
			run "pool.$tag.races" "$ZR/tests/poolTests" --replay "pool.$tag.bin" --races
			if ! cmp -s "$WORK/pool.$tag.races" "$WORK/pool.$tag.rec" ||
			   ! grep -q '^libreplay: --races: 0 races found in this run$' "$WORK/pool.$tag.races.err"; then
				bad="$tag (status $(cat "$WORK/pool.$tag.races.rc")): $(grep -m 3 'race\|diverged' "$WORK/pool.$tag.races.err" | tr '\n' ' ')"
				break
			fi
		done
		if [ -z "$bad" ]; then pass "libzstd: poolTests' 7 recordings replayed by the race build with --races: the same output, no race"
		else fail "libzstd: poolTests replayed with --races: $bad"; fi
	fi
fi

echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
