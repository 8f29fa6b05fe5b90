#!/bin/bash
# The main job on the built-in examples: build with sicc, record runs whose
# interleavings differ, replay each to exactly its own outcome; then record a
# heisenbug until it strikes and replay the failure.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/demo"
rm -rf "$OUT" && mkdir -p "$OUT" && cp "$ROOT"/examples/*.c "$ROOT/examples/Makefile" "$OUT/"
cd "$OUT"
say() { printf '\n$ %s\n' "$*"; }

say "make CC=sicc          # an unmodified Makefile: gcc -S -ffixed-r15 | sicpp | as, + libreplay.a"
make -s CC="$ROOT/build/bin/sicc" >/dev/null || exit 1
echo "built: racy_counter rounds matmul heisenbug sic_demo"

echo
echo "== Three recordings of a racy counter (chaos scheduler: random time slices) =="
for seed in 1 2 3; do
	say "./racy_counter --record run$seed.bin --chaos=$seed"
	./racy_counter --record "run$seed.bin" --chaos=$seed
done
echo
echo "== ...and their replays: each loses exactly the updates its recording lost =="
for seed in 1 2 3; do
	say "./racy_counter --replay run$seed.bin"
	./racy_counter --replay "run$seed.bin"
done

echo
echo "== A heisenbug: record until the invariant fails =="
failed=""
for try in $(seq 1 60); do
	if ! ./heisenbug --record bug.bin --chaos=$((try * 101)) >bug.out 2>&1; then
		failed=$try
		break
	fi
done
if [ -z "$failed" ]; then
	echo "(the bug did not strike in 60 recordings this time)"
else
	say "./heisenbug --record bug.bin --chaos=$((failed * 101))      # recording $failed"
	cat bug.out
	for i in 1 2 3; do
		say "./heisenbug --replay bug.bin"
		./heisenbug --replay bug.bin
		echo "(exit status $?)"
	done
	say "replay-dump bug.bin heisenbug      # the log, symbolized (docs/tools.md)"
	"$ROOT/build/bin/replay-dump" bug.bin heisenbug | awk '/^records:$/ { p = 1 } /^threads:/ { exit } p'
	say "replay-gdb ./heisenbug bug.bin -batch -ex 'break heisenbug.c:33' -ex run -ex 'info rthreads'"
	timeout 120 "$ROOT/build/bin/replay-gdb" ./heisenbug bug.bin -batch -nx -ex 'break heisenbug.c:33' \
		-ex run -ex 'info rthreads' 2>&1 | grep -v '^\[\|libthread_db\|^$'
	echo
	echo "Interactively: replay-gdb ./heisenbug bug.bin (after make install: gdb --args"
	echo "./heisenbug --replay bug.bin); docs/debugging.md walks through such a session."
fi

echo
echo "== What the instruction counter sees (sicpp --stats) =="
gcc -O2 -S -ffixed-r15 -o sic_demo.s sic_demo.c
"$ROOT/build/bin/sicpp" --stats sic_demo.s -o sic_demo.sic.s 2>&1 | sed 's|^.*sicpp: [^:]*: |sicpp: |'
say "./sic_demo --no-record"
./sic_demo --no-record
