#!/bin/bash
# The real-style applications in examples/ (pzip: zlib + a pthread work queue; ocean:
# a SPLASH-2 style kernel with a mutex+condvar barrier), built from their own
# unchanged Makefiles with plain gcc and with sicc (make CC=sicc). The sicc build
# must produce what the gcc build produces (pzip: the same gzip stream, which gunzip
# turns back into the input; ocean: the same checksums), and every recording under
# the chaos scheduler must replay to the same output files, stdout, stderr (the
# per-thread counts, -v) and exit status; the replay itself checks every thread's
# final instruction count against the log's END record (exit 86 if one differs).
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
SEEDS=${APPS_SEEDS:-"11 2027 40961"}

# build APP CC TAG: make -C examples/APP CC=..., keep the program as $WORK/APP.TAG.
build() {
	local app=$1 cc=$2 tag=$3
	make -s -C "$ROOT/examples/$app" clean >/dev/null 2>&1
	if ! make -s -C "$ROOT/examples/$app" CC="$cc" >"$WORK/$app.$tag.build" 2>&1; then
		fail "$app: make CC=$cc: $(head -n 3 "$WORK/$app.$tag.build" | tr '\n' ' ')"
		return 1
	fi
	mv "$ROOT/examples/$app/$app" "$WORK/$app.$tag"
	make -s -C "$ROOT/examples/$app" clean >/dev/null 2>&1
}

# run OUT EXE ARGS...: in $WORK, stdout to $WORK/OUT, stderr to OUT.err, status in OUT.rc.
run() {
	local out=$WORK/$1
	shift
	(cd "$WORK" && timeout 120 "$@" >"$out" 2>"$out.err"); echo $? >"$out.rc"
}

# same A B: stdout, stderr and status all equal.
same() { cmp -s "$1" "$2" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"; }

# ---- pzip -----------------------------------------------------------------------
# Input: compressible text and numbers, made the same way every time (~1.4 MB).
in=$WORK/pzip.in
{ seq 1 150000; for f in "$ROOT"/docs/*.md "$ROOT"/libreplay/*/*.c; do cat "$f"; done; } >"$in"
if build pzip gcc gcc && build pzip "$SICC" sicc; then
	args=(-v -j 3 -b 16 -l 6)
	run pzip.gcc.out "$WORK/pzip.gcc" "${args[@]}" -o pzip.gcc.gz "$in"
	check "pzip gcc: gunzip gives the input back" \
		sh -c "gzip -t '$WORK/pzip.gcc.gz' && gunzip -c '$WORK/pzip.gcc.gz' | cmp - '$in'"
	run pzip.sicc.out "$WORK/pzip.sicc" --no-record -- "${args[@]}" -o pzip.sicc.gz "$in"
	check "pzip sicc: the same gzip stream as gcc's" cmp "$WORK/pzip.gcc.gz" "$WORK/pzip.sicc.gz"
	# Standard input to standard output, a one-block file, an empty file.
	(cd "$WORK" && ./pzip.sicc --no-record <"$in" >pzip.pipe.gz 2>pzip.pipe.err)
	check "pzip sicc: stdin to stdout, gunzip gives the input back" \
		sh -c "gunzip -c '$WORK/pzip.pipe.gz' | cmp - '$in'"
	: >"$WORK/empty"
	(cd "$WORK" && ./pzip.sicc --no-record empty >empty.gz && ./pzip.gcc empty >empty.gcc.gz)
	check "pzip sicc: an empty file gives gcc's empty gzip stream" \
		sh -c "cmp '$WORK/empty.gz' '$WORK/empty.gcc.gz' && gunzip -c '$WORK/empty.gz' | cmp - '$WORK/empty'"
	for slices in $(printf -- '--chaos=%s ' $SEEDS) "--quantum 100us"; do
		rec=pzip.rec.$(echo "${slices#--}" | tr -c 'a-z0-9\n' _)
		run $rec.out "$WORK/pzip.sicc" --record $rec.bin $slices -- "${args[@]}" -o $rec.gz "$in"
		mv "$WORK/$rec.gz" "$WORK/$rec.recorded.gz"
		# A replay reads the input from its log and writes no file (docs/inputs.md).
		mv "$in" "$in.away"
		run $rec.replay "$WORK/pzip.sicc" --replay $rec.bin
		mv "$in.away" "$in"
		if ! cmp -s "$WORK/$rec.recorded.gz" "$WORK/pzip.gcc.gz"; then
			fail "pzip $slices: recorded stream differs from gcc's (rc $(cat "$WORK/$rec.out.rc"): $(head -c 200 "$WORK/$rec.out.err"))"
		elif [ -e "$WORK/$rec.gz" ] || ! same "$WORK/$rec.out" "$WORK/$rec.replay"; then
			fail "pzip $slices: the replay differs or wrote $rec.gz (rc $(cat "$WORK/$rec.replay.rc")): $(head -c 300 "$WORK/$rec.replay.err")"
		else
			pass "pzip $slices: recorded = gcc's stream; the replay, its input deleted, the same (stdout, per-worker counts) and writes no file"
		fi
	done
	# Time slices end inside zlib too (preempted at the next counting point): the
	# schedule decides which worker compresses which block.
	n=$(for f in "$WORK"/pzip.rec.*.out.err; do md5sum <"$f"; done | sort -u | wc -l)
	if [ "$n" -ge 2 ]; then pass "pzip: $n different shares of the blocks among the workers across the recordings"
	else fail "pzip: every recording gave the workers the same blocks"; fi
	# Errors: a clear line and a non-zero status, never a crash.
	run pzip.missing "$WORK/pzip.sicc" --no-record -- no/such/file
	check "pzip: a missing input is one line and status 1" \
		sh -c "[ \$(cat '$WORK/pzip.missing.rc') = 1 ] && grep -q '^pzip: no/such/file: No such file' '$WORK/pzip.missing.err'"
	run pzip.badopt "$WORK/pzip.sicc" --no-record -- -j 0 "$in"
	check "pzip: -j 0 is refused with status 2" \
		sh -c "[ \$(cat '$WORK/pzip.badopt.rc') = 2 ] && grep -q '^pzip: -j wants' '$WORK/pzip.badopt.err'"
	run pzip.full "$WORK/pzip.sicc" --no-record -- -o /dev/full "$in"
	check "pzip: a failed write is reported, status 1" \
		sh -c "[ \$(cat '$WORK/pzip.full.rc') = 1 ] && grep -q '^pzip: write: ' '$WORK/pzip.full.err'"
fi

# ---- ocean ----------------------------------------------------------------------
if build ocean gcc gcc && build ocean "$SICC" sicc; then
	args=(-v -n 256 -p 4 -i 300)
	run ocean.gcc.out "$WORK/ocean.gcc" "${args[@]}"
	run ocean.sicc.out "$WORK/ocean.sicc" --no-record -- "${args[@]}"
	check "ocean sicc: gcc's checksums" cmp "$WORK/ocean.gcc.out" "$WORK/ocean.sicc.out"
	# Three chaos recordings and one with 100 us slices (many preemptions, whatever
	# the machine's load: slices are CPU time).
	for slices in $(printf -- '--chaos=%s ' $SEEDS) "--quantum 100us"; do
		rec=ocean.rec.$(echo "${slices#--}" | tr -c 'a-z0-9\n' _)
		run $rec.out "$WORK/ocean.sicc" --record $rec.bin $slices -- "${args[@]}"
		run $rec.replay "$WORK/ocean.sicc" --replay $rec.bin
		if ! cmp -s "$WORK/$rec.out" "$WORK/ocean.gcc.out"; then
			fail "ocean $slices: checksums differ from gcc's: $(diff "$WORK/ocean.gcc.out" "$WORK/$rec.out" | head -n 3 | tr '\n' ' ')"
		elif ! same "$WORK/$rec.out" "$WORK/$rec.replay"; then
			fail "ocean $slices: the replay differs (rc $(cat "$WORK/$rec.replay.rc")): $(head -c 300 "$WORK/$rec.replay.err")"
		else
			pass "ocean $slices: gcc's checksums; replay identical (stdout, per-thread counts)"
		fi
	done
	# The schedule decides who arrives last at each barrier (-v): the recordings differ
	# there (the checksums never do), and each replay followed its own.
	n=$(for f in "$WORK"/ocean.rec.*.out.err; do md5sum <"$f"; done | sort -u | wc -l)
	if [ "$n" -ge 2 ]; then pass "ocean: $n different barrier schedules across the recordings"
	else fail "ocean: every recording had the same barrier arrivals"; fi
	run ocean.bad "$WORK/ocean.sicc" --no-record -- -n 4 -p 8
	check "ocean: more threads than rows is refused with status 2" \
		sh -c "[ \$(cat '$WORK/ocean.bad.rc') = 2 ] && grep -q '^ocean: more threads' '$WORK/ocean.bad.err'"
fi
summary
