#!/bin/bash
# bench/apps.sh: the pthread layer on real-style programs, against glibc.
#
#   bench/apps.sh                (make first: it uses build/bin/sicc)
#
#   1. mutex + condvar handoffs (bench/switch.c cond, the same source for both):
#      ours (sicc: --no-record and --record) against glibc's threads pinned to one
#      CPU (taskset -c 0); ns per handoff and the ratio (goal: glibc/ours >= 10);
#   2. examples/pzip and examples/ocean, each built from its own Makefile with gcc
#      and with sicc: gcc + glibc pinned to one CPU and unpinned, sicc --no-record,
#      --record (default quantum) and --replay of that recording.
#
# Wall-clock medians of RUNS runs (default 5), the variants of a round back to back.
# Every replay must reproduce its recording's output file and stdout (checked; a
# difference is reported and makes the exit status 1). Timings are never asserted.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
W=$ROOT/build/bench/apps
RUNS=${RUNS:-5}
SWITCH_OURS=${SWITCH_OURS:-5000000}
SWITCH_GLIBC=${SWITCH_GLIBC:-200000}
PZIP_MB=${PZIP_MB:-12}
OCEAN_ARGS=${OCEAN_ARGS:-"-n 512 -p 4 -i 500"}
REPORT=$ROOT/build/bench/apps.txt
rm -rf "$W" && mkdir -p "$W"
[ -x "$SICC" ] || { echo "bench/apps.sh: $SICC missing: run make first" >&2; exit 1; }
PIN=(taskset -c 0)
command -v taskset >/dev/null || { PIN=(); echo "bench/apps.sh: no taskset: glibc runs unpinned" >&2; }
failures=0

die() { echo "bench/apps.sh: $*" >&2; exit 1; }

# ---- builds ------------------------------------------------------------------------------
CF="-O2 -g"
gcc $CF -pthread -o "$W/switch.glibc" "$ROOT/bench/switch.c" || die "switch: gcc failed"
"$SICC" $CF -o "$W/switch.sic" "$ROOT/bench/switch.c" || die "switch: sicc failed"
for app in pzip ocean; do
	for cc in gcc "$SICC"; do
		tag=gcc
		[ "$cc" = gcc ] || tag=sic
		make -s -C "$ROOT/examples/$app" clean >/dev/null 2>&1
		make -s -C "$ROOT/examples/$app" CC="$cc" >"$W/$app.$tag.build" 2>&1 ||
			die "$app: make CC=$cc failed: $(head -n 3 "$W/$app.$tag.build")"
		mv "$ROOT/examples/$app/$app" "$W/$app.$tag"
	done
	make -s -C "$ROOT/examples/$app" clean >/dev/null 2>&1
done
# pzip's input: compressible text, the same every time.
awk -v mb="$PZIP_MB" 'BEGIN { srand(7); n = 0
	while (n < mb * 1048576) { line = sprintf("%08d %s %.6f\n", NR++, (rand() < 0.5 ? "alpha" : "omega"), rand()); printf "%s", line; n += length(line) } }' \
	>"$W/pzip.in"

# ---- timing --------------------------------------------------------------------------------
RAW=$W/raw.txt
: >"$RAW"
now() { date +%s.%N; }
# timed NAME CMD...: run in $W, record the wall time as "NAME seconds rc"
timed() {
	local name=$1
	shift
	local t0 t1 rc
	t0=$(now)
	(cd "$W" && "$@" >"$W/$name.out" 2>"$W/$name.err")
	rc=$?
	t1=$(now)
	echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') $rc" >>"$RAW"
	return $rc
}
# the switch program prints its own wall time (stderr: replay-bench WALL CPU)
switch_run() { # name cmd...
	local name=$1
	shift
	(cd "$W" && "$@" >"$W/$name.out" 2>"$W/$name.err") || { echo "$name failed" >&2; failures=$((failures + 1)); return; }
	echo "$name $(awk '/^replay-bench/ { print $2 }' "$W/$name.err") 0" >>"$RAW"
}
pzip_args=(-j 4 -b 128 -o pzip.out.gz pzip.in)
for ((r = 1; r <= RUNS; r++)); do
	echo "bench/apps.sh: round $r/$RUNS" >&2
	switch_run cond-ours "$W/switch.sic" --no-record cond "$SWITCH_OURS"
	switch_run cond-ours-rec "$W/switch.sic" --record "$W/switch.bin" cond "$SWITCH_OURS"
	switch_run cond-glibc-pinned "${PIN[@]}" "$W/switch.glibc" cond "$SWITCH_GLIBC"
	switch_run cond-glibc "$W/switch.glibc" cond "$SWITCH_GLIBC"

	timed pzip-gcc-pinned "${PIN[@]}" ./pzip.gcc "${pzip_args[@]}"
	cp "$W/pzip.out.gz" "$W/pzip.want.gz"
	timed pzip-gcc ./pzip.gcc "${pzip_args[@]}"
	timed pzip-norec ./pzip.sic --no-record -- "${pzip_args[@]}"
	timed pzip-rec ./pzip.sic --record pzip.bin -- "${pzip_args[@]}"
	cmp -s "$W/pzip.out.gz" "$W/pzip.want.gz" || { echo "pzip: recorded output differs from gcc's" >&2; failures=$((failures + 1)); }
	rm -f "$W/pzip.out.gz"
	timed pzip-rep ./pzip.sic --replay pzip.bin
	cmp -s "$W/pzip.out.gz" "$W/pzip.want.gz" || { echo "pzip: replayed output differs" >&2; failures=$((failures + 1)); }

	timed ocean-gcc-pinned "${PIN[@]}" ./ocean.gcc $OCEAN_ARGS
	cp "$W/ocean-gcc-pinned.out" "$W/ocean.want"
	timed ocean-gcc ./ocean.gcc $OCEAN_ARGS
	timed ocean-norec ./ocean.sic --no-record -- $OCEAN_ARGS
	timed ocean-rec ./ocean.sic --record ocean.bin -- $OCEAN_ARGS
	timed ocean-rep ./ocean.sic --replay ocean.bin
	for v in norec rec rep; do
		cmp -s "$W/ocean-$v.out" "$W/ocean.want" || { echo "ocean $v: checksums differ from gcc's" >&2; failures=$((failures + 1)); }
	done
done

median() {
	sort -g | awk '{ x[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
med() { awk -v n="$1" '$1 == n && $3 == 0 { print $2 }' "$RAW" | median; }
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf f, a / b }'; }

{
	echo "libreplay: the pthread layer on real-style programs (bench/apps.sh)"
	echo "machine: $(nproc) CPUs, $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "method:  wall-clock medians of $RUNS rounds, every variant once per round, back to back"
	echo
	echo "1. mutex + condvar handoffs (bench/switch.c cond: the same source for both)"
	o=$(med cond-ours) orec=$(med cond-ours-rec) gp=$(med cond-glibc-pinned) g=$(med cond-glibc)
	ns() { awk -v t="$1" -v n="$2" 'BEGIN { if (t == "-") print "-"; else printf "%.1f", t / n * 1e9 }'; }
	printf '   %-40s %10s ns per handoff\n' "ours, sicc --no-record ($SWITCH_OURS)" "$(ns "$o" "$SWITCH_OURS")"
	printf '   %-40s %10s ns per handoff\n' "ours, sicc --record" "$(ns "$orec" "$SWITCH_OURS")"
	printf '   %-40s %10s ns per handoff\n' "glibc, gcc -pthread, ${PIN[*]:-unpinned} ($SWITCH_GLIBC)" "$(ns "$gp" "$SWITCH_GLIBC")"
	printf '   %-40s %10s ns per handoff\n' "glibc, gcc -pthread, unpinned" "$(ns "$g" "$SWITCH_GLIBC")"
	gpn=$(ns "$gp" "$SWITCH_GLIBC") on=$(ns "$o" "$SWITCH_OURS") orn=$(ns "$orec" "$SWITCH_OURS")
	echo "   glibc pinned / ours: $(div "$gpn" "$on" %.0fx) (--no-record), $(div "$gpn" "$orn" %.0fx) (--record); goal >= 10x"
	echo
	echo "2. applications, built from their Makefiles (CC=gcc, CC=sicc), wall seconds (ratio to gcc pinned)"
	printf '   %-8s %14s %14s %14s %14s %14s\n' app "gcc pinned" "gcc" "sicc norec" "sicc record" "sicc replay"
	for app in pzip ocean; do
		base=$(med $app-gcc-pinned)
		line=$(printf '   %-8s %14s' $app "$(div "$base" 1 %.3f)")
		for v in gcc norec rec rep; do
			m=$(med $app-$v)
			line+=$(printf ' %14s' "$(div "$m" 1 %.3f) ($(div "$m" "$base"))")
		done
		echo "$line"
	done
	echo "   pzip: $PZIP_MB MiB of text, -j 4 -b 128; ocean: $OCEAN_ARGS"
	echo "   (sicc runs all threads on one CPU; gcc unpinned may use both)"
	[ $failures -eq 0 ] && echo "every recording gave gcc's output and its replay reproduced it" ||
		echo "FAILURES: $failures (see above)"
} | tee "$REPORT"
[ $failures -eq 0 ]
