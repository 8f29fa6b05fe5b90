#!/bin/bash
# End-to-end tests of the toolchain: each tests/e2e/NAME.c is built with plain gcc
# and with sicc (NAME.cpp: g++ and sic++) at several optimisation levels; the
# instrumented build must print exactly what the plain one prints, also with the
# counter overflowing every few counts (LIBREPLAY_SIC_STRESS). Programs check their
# own count invariants under #ifdef __SICC__ (-g0 last: code without debug info has
# direct entries, docs/sic.md). NAME.sh, when present, is a test of its own.
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT/tests/e2e"

# Uninstrumented helpers the programs link against (built with plain gcc).
gcc -O2 -fPIC -shared -o "$WORK/libforeign.so" foreign/foreign.c foreign/r15.S
gcc -O2 -c -o "$WORK/foreign_static.o" foreign/foreign.c
gcc -c -o "$WORK/r15_static.o" foreign/r15.S

for src in *.c *.cpp; do
	name=${src%.*}
	cc=gcc sicc=$SICC # C++ (NAME.cpp): g++ against sic++
	[ "$src" = "$name.cpp" ] && cc=g++ sicc=$SICXX
	for opt in -O0 -O2 -O3 "-O2 -fPIC" "-Os -fcf-protection" "-O2 -g0"; do
		tag="$name ${opt// /}"
		exe="$WORK/$name${opt// /}"
		libs="-L$WORK -lforeign -Wl,-rpath,$WORK"
		if ! $cc -g $opt -w -o "$exe.plain" "$src" $libs >"$WORK/build.log" 2>&1; then
			fail "$tag: $cc build: $(head -n 2 "$WORK/build.log")"; continue; fi
		if ! "$sicc" -g $opt -w -o "$exe" "$src" $libs >"$WORK/build.log" 2>&1; then
			fail "$tag: sicc build: $(head -n 2 "$WORK/build.log")"; continue; fi
		"$exe.plain" >"$exe.want" 2>&1; want_rc=$?
		"$exe" >"$exe.got" 2>&1; got_rc=$?
		LIBREPLAY_SIC_STRESS=37 "$exe" >"$exe.stress" 2>&1; stress_rc=$?
		if [ $want_rc -ne $got_rc ] || ! cmp -s "$exe.want" "$exe.got"; then
			fail "$tag: output differs from gcc (rc $want_rc vs $got_rc): $(diff "$exe.want" "$exe.got" | head -n 4 | tr '\n' ' ')"
		elif [ $want_rc -ne $stress_rc ] || ! cmp -s "$exe.want" "$exe.stress"; then
			fail "$tag: output differs under LIBREPLAY_SIC_STRESS: $(diff "$exe.want" "$exe.stress" | head -n 4 | tr '\n' ' ')"
		elif [ ! -s "$exe.want" ]; then
			fail "$tag: printed nothing"
		else
			pass "$tag"
		fi
	done
done

for t in *.sh; do
	[ "$t" = run.sh ] && continue
	bash "$t" | tee "$WORK/$t.out" | grep -v '^[0-9]* passed'
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$WORK/$t.out")
	npass=$((npass + ${p% *})); nfail=$((nfail + ${p#* }))
done
summary
