#!/bin/bash
# The toolchain on one example: build with gcc and with sicc, show what sicpp
# inserted, and that the instrumented program computes the same, counting, also
# when the counter overflows every 10 counts.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/demo"
mkdir -p "$OUT"
src="$ROOT/examples/sic_demo.c"
echo "\$ gcc -O2 sic_demo.c -o sic_demo.plain && ./sic_demo.plain"
gcc -O2 -o "$OUT/sic_demo.plain" "$src" && "$OUT/sic_demo.plain"
echo
echo "\$ sicc -O2 sic_demo.c -o sic_demo        # gcc -S -ffixed-r15 | sicpp | as, + libreplay.a"
gcc -O2 -S -ffixed-r15 -o "$OUT/sic_demo.s" "$src"
"$ROOT/build/bin/sicpp" --stats "$OUT/sic_demo.s" -o "$OUT/sic_demo.sic.s" 2>&1 | sed 's|^.*sicpp: [^:]*: |  sicpp: |'
"$ROOT/build/bin/sicc" -O2 -o "$OUT/sic_demo" "$src"
echo "\$ ./sic_demo"
"$OUT/sic_demo"
echo "\$ LIBREPLAY_SIC_STRESS=10 ./sic_demo     # the overflow path every 10 counts"
LIBREPLAY_SIC_STRESS=10 "$OUT/sic_demo"
