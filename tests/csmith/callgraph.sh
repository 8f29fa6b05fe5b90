#!/bin/bash
# Differential testing of sicc against gcc on the call-graph shapes csmith does not
# produce (callgraph.py: function-pointer tables, indirect tail calls through
# pointers and method tables, mutual recursion through pointers, switch and computed
# goto dispatch, comparators that qsort and bsearch call back and that forward
# through pointers).
#
#   tests/csmith/callgraph.sh [N] [FIRST_SEED]     (defaults: 24 programs from seed 1)
#
# Program i is `callgraph.py FIRST_SEED+i`, built with the i-th flag set of CONFIGS
# (they rotate) by gcc and by sicc. The sicc build must print what gcc's prints and
# exit the same way: run plainly, with LIBREPLAY_SIC_STRESS at 1..8 and at 100..500
# (the overflow path at nearly every counting point, and at scattered ones), and
# recorded then replayed. The first INV programs (default 4) are also generated
# --small and single-stepped at -O2 and -O3 -fPIC by tests/invariant's sicstep: no
# (count, PC) pair may repeat. Prints PASS/FAIL lines, then "N passed, M failed";
# failures keep their directory under build/callgraph/. CALLGRAPH_JOBS sets the
# parallelism (default 2), SICC the sicc to test. `make check` runs the defaults,
# `make csmith N=...` more.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
N=${1:-24}
FIRST=${2:-1}
INV=${INV:-4}
JOBS=${CALLGRAPH_JOBS:-2}
case "$N$FIRST$INV" in *[!0-9]*)
	echo "usage: $0 [N] [FIRST_SEED]" >&2; exit 2 ;;
esac
for f in "$SICC" "$ROOT/build/lib/libreplay.a"; do
	[ -e "$f" ] || { echo "FAIL: $f is missing: run make first"; echo "0 passed, 1 failed"; exit 1; }
done
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed (make deps)"; echo "0 passed, 1 failed"; exit 1; }

CONFIGS=(
	"-O2"
	"-O3"
	"-O0"
	"-O1"
	"-Os"
	"-O2 -fPIC"
	"-O3 -fPIC"
	"-O2 -fcf-protection"
	"-O2 -fno-pie -no-pie"
	"-Og"
	"-O3 -fno-omit-frame-pointer"
	"-Os -fPIC -fcf-protection"
)

mkdir -p "$ROOT/build/callgraph"
W=$(mktemp -d "$ROOT/build/callgraph/run.XXXXXX") || exit 1
gcc -std=gnu11 -O2 -w "$ROOT/tests/invariant/sicstep.c" -o "$W/sicstep" || {
	echo "FAIL: cannot build sicstep"; echo "0 passed, 1 failed"; exit 1; }

# run NAME CMD...: stdout+stderr to NAME.out, then the exit status appended
run() {
	local name=$1
	shift
	{ timeout -k 1 60 "$@" >"$name.out" 2>&1 </dev/null; } 2>/dev/null
	echo "exit $?" >>"$name.out"
}

# one SEED FLAGS: the differential test of one program; writes $W/SEED.result
one() {
	local seed=$1 flags=$2 d="$W/$1" why=""
	mkdir -p "$d" && cd "$d" || return
	python3 "$HERE/callgraph.py" "$seed" >p.c
	if ! gcc $flags -w p.c -o plain >build.log 2>&1; then
		why="gcc build: $(head -n 1 build.log)"
	elif ! "$SICC" $flags -w p.c -o sic >build.log 2>&1; then
		why="sicc build: $(head -n 2 build.log | tr '\n' ' ')"
	else
		run plain ./plain
		run sic ./sic --no-record
		LIBREPLAY_SIC_STRESS=$((1 + seed % 8)) run tiny ./sic --no-record
		LIBREPLAY_SIC_STRESS=$((100 + seed * 7919 % 401)) run stress ./sic --no-record
		run rec ./sic --record "$d/log.bin"
		run rep ./sic --replay "$d/log.bin"
		for r in sic tiny stress rec rep; do
			if ! cmp -s plain.out $r.out; then
				why="$r: '$(head -c 150 $r.out | tr '\n' ' ')', gcc: '$(head -c 150 plain.out | tr '\n' ' ')'"
				break
			fi
		done
	fi
	if [ -z "$why" ]; then
		echo "PASS seed=$seed flags=\"$flags\"" >"$W/$seed.result"
		cd "$W" && rm -rf "$d"
	else
		echo "FAIL seed=$seed flags=\"$flags\": $why (kept in $d)" >"$W/$seed.result"
	fi
}

# invariant SEED FLAGS: the small program single-stepped; writes $W/inv-SEED-FLAGS.result
invariant() {
	local seed=$1 flags=$2 tag="inv-$1${2// /}" d="$W/inv-$1${2// /}" why=""
	mkdir -p "$d" && cd "$d" || return
	python3 "$HERE/callgraph.py" "$seed" --small >p.c
	if ! gcc -O0 -w p.c -o plain >build.log 2>&1 || ! "$SICC" $flags -w p.c -o sic >>build.log 2>&1; then
		why="build: $(head -n 2 build.log | tr '\n' ' ')"
	else
		./plain >plain.out 2>&1
		LIBREPLAY_OPTS=--no-record timeout 300 "$W/sicstep" --max-steps 3000000 ./sic >sic.out 2>step.err
		local rc=$?
		if [ $rc -ne 0 ]; then
			why="$(grep -m1 -e '^sicstep: FAIL' -e 'repeats' -e '^libreplay:' step.err || echo "sicstep exit $rc")"
		elif ! cmp -s plain.out sic.out; then
			why="output differs under sicstep"
		fi
	fi
	if [ -z "$why" ]; then
		echo "PASS invariant seed=$seed --small flags=\"$flags\": no (count, pc) repeats" >"$W/$tag.result"
		cd "$W" && rm -rf "$d"
	else
		echo "FAIL invariant seed=$seed --small flags=\"$flags\": $why (kept in $d)" >"$W/$tag.result"
	fi
}

pool() { # at most $JOBS at a time
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	"$@" &
}
start=$SECONDS
for ((i = 0; i < N; i++)); do
	pool one $((FIRST + i)) "${CONFIGS[i % ${#CONFIGS[@]}]}"
done
for ((i = 0; i < INV && i < N; i++)); do
	for flags in -O2 "-O3 -fPIC"; do
		pool invariant $((FIRST + i)) "$flags"
	done
done
wait
npass=0 nfail=0
for r in "$W"/*.result; do
	[ -e "$r" ] || continue
	line=$(cat "$r")
	case $line in
	PASS*) npass=$((npass + 1)) ;;
	*) echo "$line"; nfail=$((nfail + 1)) ;;
	esac
done
want=$((N + 2 * (INV < N ? INV : N)))
if [ $((npass + nfail)) -ne $want ]; then
	echo "FAIL: $((npass + nfail)) verdicts for $want cases (a job died)"
	nfail=$((nfail + 1))
fi
echo "callgraph: $N programs from seed $FIRST, $((2 * (INV < N ? INV : N))) single-stepped, in $((SECONDS - start))s"
if [ "$nfail" -eq 0 ]; then
	rm -rf "$W"
	rmdir "$ROOT/build/callgraph" 2>/dev/null
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
