#!/bin/bash
# sicc behaves like gcc: -c, -S, -o, several sources, -fPIC, links of .o files,
# CC=sicc make on an unmodified Makefile, and paper 002's three-step manual flow.
. "$(dirname "$0")/../lib/common.sh"
P="$ROOT/tests/e2e/project"
W="$WORK"
instrumented() { readelf -S "$1" | grep -q '\.note\.libreplay'; }

# CC=sicc make, against CC=gcc make, in copies of the project.
cp -r "$P" "$W/plain" && cp -r "$P" "$W/sic"
make -s -C "$W/plain" CC=gcc >/dev/null 2>&1
check "CC=sicc make builds" make -s -C "$W/sic" CC="$SICC"
check "CC=sicc make: objects are instrumented" instrumented "$W/sic/util.o"
check "CC=sicc make: same output" cmp <("$W/plain/app" a b) <("$W/sic/app" a b)

# -c with several sources, then a plain link of the .o files through sicc.
(cd "$W" && "$SICC" -O1 -c "$P/main.c" "$P/util.c") && check "sicc -c two sources" test -f "$W/main.o" -a -f "$W/util.o"
check "sicc links .o files" "$SICC" -o "$W/linked" "$W/main.o" "$W/util.o"
check "linked program runs" cmp <("$W/plain/app") <("$W/linked")

# -S writes instrumented assembly, which plain gcc then assembles and links.
check "sicc -S" "$SICC" -O2 -S "$P/util.c" -o "$W/util.s"
check "sicc -S output is instrumented" grep -q 'decq	%r15' "$W/util.s"
(cd "$W" && "$SICC" -O2 -S "$P/main.c") && check "sicc -S without -o writes main.s" grep -q '__sic_main' "$W/main.s"
check "gcc links sicc -S output" gcc -o "$W/from_s" "$W/main.s" "$W/util.s" "$LIBREPLAY"
check "program from .s runs" cmp <("$W/plain/app") <("$W/from_s")

# Paper 002's flow by hand: gcc -S -ffixed-r15, sicpp, link with libreplay.a.
gcc -O2 -S -ffixed-r15 -o "$W/m.s" "$P/main.c" && gcc -O2 -S -ffixed-r15 -o "$W/u.s" "$P/util.c"
check "manual: sicpp main.s" "$SICPP" "$W/m.s" -o "$W/m.sic.s"
check "manual: sicpp util.s" "$SICPP" "$W/u.s" -o "$W/u.sic.s"
check "manual: link" gcc -o "$W/manual" "$W/m.sic.s" "$W/u.sic.s" "$LIBREPLAY"
check "manual: runs" cmp <("$W/plain/app") <("$W/manual")
# An output that is not a regular file is written in place, never renamed over: a FIFO
# stays a FIFO and its reader gets the code (sicpp -o /dev/null, as root, once put a
# regular file in /dev/null's place).
mkfifo "$W/out.fifo" && (timeout 20 cat "$W/out.fifo" >"$W/fifo.s" &) &&
	timeout 20 "$SICPP" "$W/u.s" -o "$W/out.fifo" && sleep 0.2
check "sicpp -o FIFO: written in place, the FIFO is still one" test -p "$W/out.fifo"
check "... and its reader got the instrumented code" cmp -s "$W/fifo.s" "$W/u.sic.s"
check "a new output gets the mode the umask gives, not mkstemp's 0600" \
	bash -c "umask 022 && rm -f '$W/mode.s' && '$SICPP' '$W/u.s' -o '$W/mode.s' && test \$(stat -c %a '$W/mode.s') = 644"

# An already instrumented file passes through sicpp unchanged in meaning.
check "sicpp is idempotent" "$SICPP" "$W/u.sic.s" -o "$W/u.twice.s"
check "second pass inserted nothing" test "$(grep -c 'decq	%r15' "$W/u.sic.s")" = "$(grep -c 'decq	%r15' "$W/u.twice.s")"

# -fPIC objects linked into an executable; -pipe (assembly on the assembler's stdin).
check "sicc -fPIC" "$SICC" -O2 -fPIC -o "$W/pic" "$P/main.c" "$P/util.c"
check "-fPIC program runs" cmp <("$W/plain/app") <("$W/pic")
check "sicc -pipe" "$SICC" -O2 -pipe -c "$P/util.c" -o "$W/pipe.o"
check "-pipe object is instrumented" instrumented "$W/pipe.o"

# Hand-written assembly is foreign code: assembled as written.
printf '\t.text\n\t.globl f\nf:\n\tmovq $1, %%r15\n\tret\n\t.section .note.GNU-stack,"",@progbits\n' >"$W/hand.s"
check "hand-written .s assembles untouched" "$SICC" -c "$W/hand.s" -o "$W/hand.o"
check "hand-written .o carries no marker" bash -c "! readelf -S '$W/hand.o' | grep -q libreplay"

# Source on stdin with -x c, as configure scripts do; the library stays a library.
check "sicc -x c - links" bash -c "echo 'int main(void){return 0;}' | '$SICC' -x c -O2 -pipe - -o '$W/stdin_app'"
check "program from stdin runs" "$W/stdin_app" --no-record

# Queries and preprocessing pass straight through.
check "sicc --version" bash -c "'$SICC' --version | grep -qi gcc"
check "sicc -E" bash -c "echo 'int x = __SICC__;' | '$SICC' -E -x c - | grep -q 'int x = 1'"
check "sicc reports compile errors like gcc" bash -c "echo 'int f( {' > '$W/bad.c'; ! '$SICC' -c '$W/bad.c' -o '$W/bad.o' 2>/dev/null"
summary
