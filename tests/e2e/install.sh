#!/bin/bash
# make install PREFIX=DIR gives a working toolchain outside the build tree.
. "$(dirname "$0")/../lib/common.sh"
P="$WORK/prefix"
check "make install" make -s -C "$ROOT" install PREFIX="$P"
for f in bin/sicc bin/sic++ bin/sicpp bin/replay-dump bin/replay-hunt bin/replay-gdb libexec/libreplay/as \
	lib/libreplay.a lib/libreplay.ld lib/libreplay.dynlist include/libreplay.h \
	lib/pkgconfig/libreplay.pc share/libreplay/gdb/gdbinit.py; do
	check "installed $f" test -e "$P/$f"
done
for f in "$ROOT"/libreplay/gdb/*.py; do  # the gdb extension: libreplay.py and its modules
	check "installed share/libreplay/gdb/${f##*/}" test -e "$P/share/libreplay/gdb/${f##*/}"
done
check "a user PREFIX leaves gdb's gdbinit.d alone and says what to do" bash -c \
	"make -s -C '$ROOT' install PREFIX='$P' | grep -q 'source $P/share/libreplay/gdb/gdbinit.py'"
check "installed sicc builds" "$P/bin/sicc" -O2 -o "$WORK/app" "$ROOT/tests/e2e/callbacks_libc.c"
check "installed build is instrumented" bash -c "readelf -S '$WORK/app' | grep -q note.libreplay"
check "installed build runs" "$WORK/app"
check "installed sic++ builds" "$P/bin/sic++" -O2 -o "$WORK/cxx" "$ROOT/tests/e2e/cxx_thread_local.cpp"
check "installed C++ build runs" "$WORK/cxx"
check "installed replay-hunt runs it" bash -c "cd '$WORK' && '$P/bin/replay-hunt' --runs 2 --mode default ./app | grep -qx 'failures: 0'"
check "pkg-config finds libreplay" bash -c "PKG_CONFIG_PATH='$P/lib/pkgconfig' pkg-config --cflags --libs libreplay | grep -q '$P/lib/libreplay.a'"
summary
