#!/bin/bash
# Instrumented shared libraries (issue 11, item 7): `sicc -shared -fPIC` builds them,
# a program built with sicc links or dlopens them, and everything prints what the
# same sources built with gcc print, also with the counter overflowing every few
# counts; the library's count checks and the program's hold across the calls. The
# module registers its tables from a constructor (sicpp --pic). Also C++ (sic++)
# and a library built by plain gcc (foreign code).
. "$(dirname "$0")/../lib/common.sh"
S="$ROOT/tests/e2e/shlib"
W="$WORK"
same() { # NAME WANT_CMD... -- GOT_CMD...: both print the same, also under stress
	local name=$1 want got
	shift
	want=$("$@" 2>&1)
	got=$("$W/prog" "${ARGS[@]}" 2>&1)
	[ "$got" = "$want" ] || { fail "$name: '$got', gcc: '$want'"; return; }
	got=$(LIBREPLAY_SIC_STRESS=23 "$W/prog" "${ARGS[@]}" 2>&1)
	[ "$got" = "$want" ] || { fail "$name under LIBREPLAY_SIC_STRESS: '$got', gcc: '$want'"; return; }
	pass "$name"
}
for opt in -O0 -O2 "-O3 -fcf-protection"; do
	mkdir -p "$W/gcc" "$W/sic"
	gcc $opt -w -shared -fPIC -o "$W/gcc/libshl.so" "$S/lib.c" &&
		gcc $opt -w -o "$W/gcc/prog" "$S/main.c" -L"$W/gcc" -lshl -Wl,-rpath,"$W/gcc" &&
		gcc $opt -w -DDLOPEN -o "$W/gcc/prog_dl" "$S/main.c" || { fail "gcc build ($opt)"; continue; }
	if ! "$SICC" $opt -w -shared -fPIC -o "$W/sic/libshl.so" "$S/lib.c" 2>"$W/build.log"; then
		fail "sicc -shared -fPIC ($opt): $(head -n 2 "$W/build.log")"; continue; fi
	check "the library is instrumented ($opt)" bash -c "readelf -S '$W/sic/libshl.so' | grep -q note.libreplay"
	check "the library registers its tables ($opt)" bash -c \
		"readelf -sW '$W/sic/libshl.so' | grep -q __sic_module_tables && readelf -S '$W/sic/libshl.so' | grep -q init_array"
	"$SICC" $opt -w -o "$W/prog" "$S/main.c" -L"$W/sic" -lshl -Wl,-rpath,"$W/sic" || { fail "sicc link ($opt)"; continue; }
	ARGS=(--no-record)
	same "linked instrumented .so ($opt)" "$W/gcc/prog"
	"$SICC" $opt -w -DDLOPEN -o "$W/prog" "$S/main.c" || { fail "sicc dlopen build ($opt)"; continue; }
	ARGS=(--no-record "$W/sic/libshl.so")
	same "dlopened instrumented .so, twice ($opt)" "$W/gcc/prog_dl" "$W/gcc/libshl.so"
	# A plain library: foreign code, calling back into the program.
	"$SICC" $opt -w -o "$W/prog" "$S/main.c" -L"$W/gcc" -lshl -Wl,-rpath,"$W/gcc" || { fail "sicc link, plain .so ($opt)"; continue; }
	ARGS=(--no-record)
	same "plain .so ($opt)" "$W/gcc/prog"
done
# C++: exceptions across the library's boundary, both ways.
g++ -O2 -shared -fPIC -o "$W/gcc/libcxl.so" "$S/cxxlib.cpp" &&
	g++ -O2 -o "$W/gcc/cxxprog" "$S/cxxmain.cpp" -L"$W/gcc" -lcxl -Wl,-rpath,"$W/gcc" &&
	"$SICXX" -O2 -shared -fPIC -o "$W/sic/libcxl.so" "$S/cxxlib.cpp" &&
	"$SICXX" -O2 -o "$W/prog" "$S/cxxmain.cpp" -L"$W/sic" -lcxl -Wl,-rpath,"$W/sic" &&
	{ ARGS=(--no-record); same "C++ .so built with sic++: exceptions both ways" "$W/gcc/cxxprog"; } ||
	fail "C++ .so: build"
# The library's objects compiled apart (-c -fPIC), linked by sicc -shared.
(cd "$W" && "$SICC" -O2 -fPIC -c "$S/lib.c" -o lib.o) &&
	check "sicc -c -fPIC then -shared" "$SICC" -shared -o "$W/libsep.so" "$W/lib.o"
check "...registers its tables" bash -c "readelf -sW '$W/libsep.so' | grep -q __sic_module_tables"
# An instrumented library needs an instrumented program: the link names what is missing.
check "gcc will not link an instrumented library into a plain program" bash -c \
	"gcc -O2 -o '$W/plainprog' '$S/main.c' -L'$W/sic' -lshl 2>&1 | grep -q 'undefined reference to .__sic_home'"
summary
