#!/bin/bash
# Differential testing of sicc against gcc with csmith-generated programs.
#
#   tests/csmith/run.sh [N] [FIRST_SEED]      (defaults: 60 programs from seed 1000)
#
# Program i is `csmith --seed FIRST_SEED+i` with the options in CSMITH_OPTS, built
# with the i-th flag set of CONFIGS (they rotate) by gcc and by sicc. The plain gcc
# build is the reference: if it does not build, crashes or runs past the timeout, the
# seed is skipped. The sicc build must print the same stdout and stderr and exit with
# the same status, run plainly and with LIBREPLAY_SIC_STRESS: once with the counter
# overflowing every 100..500 counts, so the runtime's overflow path runs constantly at
# scattered points, and once every 1..8 counts, so that nearly every counting point
# takes its stub (both values vary with the seed). That one is some 200 times slower
# than gcc's build, so it is left out for programs that run longer than 50 ms.
#
# The (seed, flags) pairs in regress/cases run first, every time.
# Prints one FAIL line per failure, "K skipped" when seeds were skipped, then
# "N passed, M failed". Exits non-zero on a failure or when fewer than 80% of the
# programs were usable. Failures keep their directory under build/csmith/.
#
# Environment: CSMITH_JOBS (parallel jobs, default 2), SICC (the sicc to test, default
# build/bin/sicc), CSMITH_TIMEOUT (seconds the gcc build may run, default 5).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SELF="$HERE/$(basename "$0")"
SICC=${SICC:-$ROOT/build/bin/sicc}
JOBS=${CSMITH_JOBS:-2}
CSMITH_TIMEOUT=${CSMITH_TIMEOUT:-5}
CSMITH_INC=/usr/include/csmith

# Keep programs small and quick to build. Changing these changes every seed's program,
# and with it the meaning of regress/cases: do not change them casually.
# --no-jumps: csmith's gotos make about one program in eight loop forever; without them
# it is about one in thirty.
CSMITH_OPTS="--no-jumps --max-funcs 8 --max-block-depth 4 --max-expr-complexity 8"

# The flag sets, in rotation: program i gets CONFIGS[i % ${#CONFIGS[@]}].
CONFIGS=(
	"-O0"
	"-O1"
	"-O2"
	"-O3"
	"-Os"
	"-O2 -fPIC"
	"-O3 -fPIC"
	"-O2 -fcf-protection"
	"-O1 -ffunction-sections -fcf-protection"
	"-Os -fPIC -ffunction-sections"
	"-O2 -fno-pie -no-pie"
	"-O3 -march=x86-64-v3"
	"-O2 -g"
	"-O1 -fno-asynchronous-unwind-tables"
	"-O0 -fPIC -fstack-protector-all"
	"-O3 -funroll-loops -fno-omit-frame-pointer"
	"-Og"
	"-O2 -fPIC -fno-plt"
	"-O2 -mcmodel=large -fno-pie -no-pie"
)
# Not here: -mcmodel=large with -fPIC or PIE, where the psABI gives %r15 to the GOT
# pointer and gcc uses it in spite of -ffixed-r15, so sicpp rightly refuses the code.

# ---- one program: "--one IDX|SEED|FLAGS" writes its verdict to results/IDX ----------

# status FILE: the exit status in FILE, in words when it is not a plain exit
status() {
	local rc
	rc=$(cat "$1")
	case $rc in
	124 | 137) echo "$rc (timed out)" ;;
	129 | 1[3-9][0-9] | 2[0-5][0-9]) echo "$rc (signal $((rc - 128)))" ;;
	*) echo "$rc" ;;
	esac
}

# same NAME A B: compare runs A and B (files A.out, A.err, A.rc); on a difference,
# print what differed.
same() {
	local name=$1 a=$2 b=$3 ra rb
	ra=$(status "$a.rc") rb=$(status "$b.rc")
	if ! cmp -s "$a.out" "$b.out"; then
		printf '%s: stdout "%s" (exit %s%s), gcc: "%s" (exit %s)' "$name" \
			"$(head -c 200 "$b.out" | tr '\n' ' ')" "$rb" \
			"$([ -s "$b.err" ] && printf ', stderr "%s"' "$(head -c 200 "$b.err" | tr '\n' ' ')")" \
			"$(head -c 200 "$a.out" | tr '\n' ' ')" "$ra"
		return 1
	fi
	if [ "$ra" != "$rb" ]; then
		printf '%s: exit status %s, gcc: %s; stderr: %s' "$name" "$rb" "$ra" \
			"$(head -c 200 "$b.err" | tr '\n' ' ')"
		return 1
	fi
	if ! cmp -s "$a.err" "$b.err"; then
		printf '%s: stderr "%s", gcc: "%s"' "$name" \
			"$(head -c 200 "$b.err" | tr '\n' ' ')" "$(head -c 200 "$a.err" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# runit NAME TIMEOUT CMD...: run with stdout/stderr/status to NAME.{out,err,rc}
runit() {
	local name=$1 t=$2
	shift 2
	# (the braces keep bash's "Segmentation fault" notices out of the report)
	{ timeout -k 1 "$t" "$@" >"$name.out" 2>"$name.err" </dev/null; } 2>/dev/null
	echo $? >"$name.rc"
}

# After a mismatch: things that tell where it comes from, on one line.
triage() {
	local flags=$1 stress=$2 note=""
	# The same code without the instrumentation: does reserving r15 alone change it?
	if gcc $flags -ffixed-r15 -w -I"$CSMITH_INC" t.c -o fixed >/dev/null 2>&1; then
		runit fixed "$CSMITH_TIMEOUT" ./fixed
		if same x plain fixed >/dev/null; then
			note="gcc -ffixed-r15 (uninstrumented) agrees with gcc"
		else
			note="gcc -ffixed-r15 (uninstrumented) differs too: not sicpp's doing?"
		fi
	fi
	# csmith's main prints every global's checksum when given "1": the first that differs.
	runit plain1 "$CSMITH_TIMEOUT" ./plain 1
	runit sicc1 $((4 * CSMITH_TIMEOUT)) ./sicc 1
	LIBREPLAY_SIC_STRESS=$stress runit stress1 $((8 * CSMITH_TIMEOUT)) ./sicc 1
	local d
	d=$(diff plain1.out sicc1.out | grep -m1 '^>' | cut -c3-)
	[ -n "$d" ] && note="$note; first differing global: $d"
	d=$(diff plain1.out stress1.out | grep -m1 '^>' | cut -c3-)
	[ -n "$d" ] && note="$note; under stress: $d"
	printf '%s' "$note"
}

one() {
	local idx seed flags stress tiny dir why v t0 ms
	IFS='|' read -r idx seed flags <<<"$1"
	stress=$((100 + (seed * 7919) % 401))
	tiny=$((1 + seed % 8))
	dir="$WORKDIR/$seed${flags// /}"
	verdict() {
		echo "$1 seed=$seed flags=\"$flags\"${2:+: $2}" >"$WORKDIR/results/$idx"
		if [ "$1" = FAIL ]; then
			echo "$dir" >"$WORKDIR/results/$idx.dir"
		else
			cd "$WORKDIR" && rm -rf "$dir"
		fi
	}
	rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || { verdict FAIL "cannot make $dir"; return; }

	if ! csmith --seed "$seed" $CSMITH_OPTS -o t.c >csmith.log 2>&1; then
		verdict SKIP "csmith failed"; return
	fi
	# The reference. Objects first, then a link, the way builds use sicc.
	if ! { timeout 120 gcc $flags -w -I"$CSMITH_INC" -c t.c -o plain.o &&
		gcc $flags plain.o -o plain; } >gcc.log 2>&1; then
		verdict SKIP "gcc build failed: $(head -n 1 gcc.log)"; return
	fi
	t0=$(date +%s%N)
	runit plain "$CSMITH_TIMEOUT" ./plain
	ms=$((($(date +%s%N) - t0) / 1000000))
	v=$(cat plain.rc)
	if [ "$v" = 124 ] || [ "$v" = 137 ]; then
		verdict SKIP "gcc build runs past ${CSMITH_TIMEOUT}s"; return
	elif [ "$v" != 0 ] || ! grep -q '^checksum = ' plain.out; then
		verdict SKIP "gcc build fails (exit $v)"; return
	fi

	mkdir -p keep
	if ! { SICC_KEEP="$dir/keep" timeout 120 "$SICC" $flags -w -I"$CSMITH_INC" -c t.c -o sicc.o &&
		"$SICC" $flags sicc.o -o sicc; } >sicc.log 2>&1; then
		verdict FAIL "sicc build failed: $(grep -m2 . sicc.log | tr '\n' ' ')"; return
	fi
	# Instrumented code is slower, and much slower when the counter overflows often.
	runit sicc $((4 * CSMITH_TIMEOUT)) ./sicc
	LIBREPLAY_SIC_STRESS=$stress runit stress $((8 * CSMITH_TIMEOUT)) ./sicc
	if [ "$ms" -le 50 ]; then
		LIBREPLAY_SIC_STRESS=$tiny runit tiny 60 ./sicc
	else
		cp plain.out tiny.out && cp plain.err tiny.err && cp plain.rc tiny.rc
	fi
	if ! why=$(same sicc plain sicc); then
		verdict FAIL "$why [$(triage "$flags" "$stress")] (kept in $dir)"
	elif ! why=$(same "LIBREPLAY_SIC_STRESS=$stress" plain stress); then
		verdict FAIL "$why [$(triage "$flags" "$stress")] (kept in $dir)"
	elif ! why=$(same "LIBREPLAY_SIC_STRESS=$tiny" plain tiny); then
		verdict FAIL "$why [$(triage "$flags" "$tiny")] (kept in $dir)"
	else
		verdict PASS
	fi
}

if [ "${1:-}" = --one ]; then
	trap 'exit 130' INT TERM
	one "$2"
	exit 0
fi

# ---- the driver -------------------------------------------------------------------

N=${1:-60}
FIRST=${2:-1000}
case "$N$FIRST" in *[!0-9]*)
	echo "usage: $0 [N] [FIRST_SEED]" >&2; exit 2 ;;
esac
for tool in csmith gcc timeout; do
	command -v $tool >/dev/null || { echo "FAIL: $tool is not installed (make deps)"; exit 1; }
done
[ -f "$CSMITH_INC/csmith.h" ] || { echo "FAIL: $CSMITH_INC/csmith.h missing (libcsmith-dev)"; exit 1; }
[ -x "$SICC" ] || { echo "FAIL: $SICC missing: run make first"; exit 1; }
SICC=$(cd "$(dirname "$SICC")" && pwd)/$(basename "$SICC")

mkdir -p "$ROOT/build/csmith"
WORKDIR=$(mktemp -d "$ROOT/build/csmith/run.XXXXXX") || exit 1
mkdir -p "$WORKDIR/results"
trap 'rm -rf "$WORKDIR"; rmdir "$ROOT/build/csmith" 2>/dev/null; exit 130' INT TERM

# Test a snapshot of the toolchain, so that a rebuild while we run (make in another
# shell) cannot mix old and new parts. sicc finds sicpp, its "as", the header and the
# runtime relative to itself.
tools=$(cd "$(dirname "$SICC")/.." && pwd)
mkdir -p "$WORKDIR/sicc/bin" "$WORKDIR/sicc/lib" "$WORKDIR/sicc/libexec/libreplay"
if ! { cp "$tools/bin/sicc" "$tools/bin/sicpp" "$WORKDIR/sicc/bin/" &&
	cp "$tools/lib/libreplay.a" "$tools/lib/libreplay.ld" "$tools/lib/libreplay.dynlist" \
		"$WORKDIR/sicc/lib/" &&
	cp -r "$tools/include" "$WORKDIR/sicc/" &&
	ln -s ../../bin/sicc "$WORKDIR/sicc/libexec/libreplay/as"; }; then
	echo "FAIL: cannot copy the toolchain from $tools"
	exit 1
fi
SICC="$WORKDIR/sicc/bin/sicc"
export WORKDIR SICC CSMITH_OPTS CSMITH_INC CSMITH_TIMEOUT

start=$(date +%s)
{
	idx=0
	# Regressions first: "SEED FLAGS..." per line, # comments.
	if [ -f "$HERE/regress/cases" ]; then
		while read -r seed flags; do
			case "$seed" in '' | '#'*) continue ;; esac
			printf '%05d|%s|%s\n' $idx "$seed" "$flags"
			idx=$((idx + 1))
		done <"$HERE/regress/cases"
	fi
	for ((i = 0; i < N; i++)); do
		printf '%05d|%s|%s\n' $idx $((FIRST + i)) "${CONFIGS[i % ${#CONFIGS[@]}]}"
		idx=$((idx + 1))
	done
} >"$WORKDIR/jobs"

xargs -d '\n' -P "$JOBS" -I{} "$SELF" --one {} <"$WORKDIR/jobs"

npass=0 nfail=0 nskip=0 total=0
while IFS='|' read -r idx seed flags; do
	total=$((total + 1))
	r="$WORKDIR/results/$idx"
	if [ ! -s "$r" ]; then
		echo "FAIL seed=$seed flags=\"$flags\": no verdict (the job died)"
		nfail=$((nfail + 1))
		continue
	fi
	case $(cut -d' ' -f1 "$r") in
	PASS) npass=$((npass + 1)) ;;
	SKIP) nskip=$((nskip + 1)); [ -n "${CSMITH_VERBOSE:-}" ] && cat "$r" ;;
	*) cat "$r"; nfail=$((nfail + 1)) ;;
	esac
done <"$WORKDIR/jobs"

echo "csmith: $total programs in $(($(date +%s) - start))s with $JOBS jobs"
[ "$nfail" -gt 0 ] && echo "csmith: failures kept in ${WORKDIR#$ROOT/} with the sicc they used"
usable=true
if [ $((5 * (npass + nfail))) -lt $((4 * total)) ]; then
	echo "FAIL: only $((npass + nfail)) of $total programs were usable (want 80%)"
	usable=false
fi
[ "$nskip" -gt 0 ] && echo "$nskip skipped"
echo "$npass passed, $nfail failed"
if [ "$nfail" -eq 0 ]; then
	rm -rf "$WORKDIR"
	rmdir "$ROOT/build/csmith" 2>/dev/null
fi
$usable && [ "$nfail" -eq 0 ]
