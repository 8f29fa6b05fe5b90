#!/bin/bash
# Packs (replay-pack, docs/tools.md): a threaded program built with sicc that links a
# library of the test's own (progs/mix.c, instrumented) is recorded and packed; the
# pack, copied to a fresh directory with the original library gone (found only in the
# pack: the program alone no longer starts), replays to the recording's output and
# schedule at the recording's addresses, as it is and under gdb; a pack holding the
# library rebuilt with other code refuses on one line naming it; bad input to
# replay-pack (no log, a damaged log, another executable) is one line and exit 1.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS LD_LIBRARY_PATH
P="$ROOT/tests/pack/progs"
PACK="$ROOT/build/bin/replay-pack"
cd "$WORK" || exit 1
FRESH=$(mktemp -d /tmp/pack-test.XXXXXX)
trap 'rm -rf "$FRESH"' EXIT
chmod 755 "$FRESH"

# one_line FILE PATTERN: FILE is one line, matching PATTERN (grep -E).
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && grep -qE "$2" "$1"; }

mkdir -p libdir
if ! { "$SICC" -O1 -g -shared -fPIC -o libdir/libmix.so "$P/mix.c" &&
	"$SICC" -O1 -g -o mixer "$P/mixer.c" -Llibdir -lmix -Wl,-rpath,"$WORK/libdir"; } >build.out 2>&1; then
	fail "build: $(head -n 3 build.out)"
	summary
	exit
fi

# The recording, with the descriptors a pack uses closed, as the replay must see them.
./mixer --record rec.bin --chaos=11 --trace-schedule rec.trace >rec.out 2>rec.err 7<&- 8<&- 9<&-
echo $? >rec.rc
check "the recording ends (exit $(cat rec.rc))" test "$(cat rec.rc)" -eq 0
check "replay-dump names the objects the recording ran with" \
	bash -c "'$ROOT/build/bin/replay-dump' rec.bin | grep -E 'objects: [0-9]+: mixer, libmix.so, libc.so.6'"

"$PACK" rec.bin -o made.pack >pack.out 2>pack.err
rc=$?
check "replay-pack writes the pack (exit $rc)" test $rc -eq 0 -a ! -s pack.err
check "... the log, the executable, the loader, the library, libc and libunwind in it" bash -c \
	'test -f made.pack/log.bin -a -x made.pack/bin/mixer -a -x made.pack/interp -a -f made.pack/lib/libmix.so &&
	 test -f made.pack/system/libc.so.6 -a -f made.pack/system/libunwind.so.8 -a -x made.pack/replay'
check "... its executable names the pack's loader /proc/self/fd/9" \
	bash -c "readelf -lW made.pack/bin/mixer | grep -qF '[Requesting program interpreter: /proc/self/fd/9]'"
if [ -d /usr/lib/debug/.build-id ] && [ -n "$(ls /usr/lib/debug/.build-id)" ]; then
	libc_id=$(readelf -n made.pack/system/libc.so.6 | sed -n 's/.*Build ID: //p')
	if [ -f "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
		check "... with libc's separate debug file (libc6-dbg)" \
			test -f "made.pack/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug"
	fi
fi

# The pack elsewhere, the library gone from where the recording found it.
cp -a made.pack "$FRESH/p"
mv libdir/libmix.so libmix.so.away
./mixer --replay rec.bin >nolib.out 2>&1
rc=$?
check "without the pack the program no longer starts (exit $rc: libmix.so is gone)" \
	bash -c "[ $rc -ne 0 ] && grep -q libmix.so nolib.out"
(cd "$FRESH" && timeout 120 ./p/replay --trace-schedule "$WORK/rep.trace" >"$WORK/rep.out" 2>"$WORK/rep.err")
echo $? >rep.rc
check "the pack replays in a fresh directory: the recorded exit status ($(cat rep.rc))" cmp rec.rc rep.rc
check "... the recorded output ($(tail -n 1 rep.out))" cmp rec.out rep.out
check "... the recorded schedule (trace equal but the times)" \
	cmp <(cut -d' ' -f1,2,4- rec.trace) <(cut -d' ' -f1,2,4- rep.trace)
check "... at the recording's addresses (no refusal, no --any-layout; $(head -c 200 rep.err))" \
	bash -c "! grep -qE 'addresses|diverged|not the' rep.err"
(cd "$FRESH" && LD_LIBRARY_PATH=/nonexistent timeout 120 ./p/replay >"$WORK/llp.out" 2>"$WORK/llp.err")
check "... and with LD_LIBRARY_PATH set, the program sees the caller's value" \
	grep -qx 'descriptors 7-9 open: 0; LD_LIBRARY_PATH /nonexistent' llp.out
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	(cd "$FRESH" && setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 120 ./p/replay \
		>"$WORK/nobody.out" 2>"$WORK/nobody.err")
	check "... and as nobody: the recorded output" cmp rec.out nobody.out
fi

# Another machine's C library and loader, as far as one machine can show it: in a
# mount namespace of its own (nothing outside it changes), the system's libc.so.6 and
# loader are copies with other build-ids. The replay without the pack refuses on one
# line naming libc (and one more object); the pack's does not look at them.
other_id() { # FILE COPY: COPY is FILE with its build-id's bytes changed
	python3 - "$1" "$2" <<'PY'
import subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
note = subprocess.run(["readelf", "-n", src], capture_output=True, text=True).stdout
bid = bytes.fromhex(note.split("Build ID: ")[1].split()[0])
data = bytearray(open(src, "rb").read())
at = data.find(bid)
data[at:at + len(bid)] = bytes(b ^ 0x5a for b in bid)
open(dst, "wb").write(data)
PY
}
libc=$(ldd ./mixer | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')
ldso=$(readelf -lW ./mixer | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
if [ "$(id -u)" -eq 0 ] && unshare --mount --propagation private true 2>/dev/null &&
	[ -n "$libc" ] && [ -n "$ldso" ] && other_id "$libc" other-libc && other_id "$ldso" other-ld &&
	chmod 755 other-libc other-ld; then
	unshare --mount --propagation private bash -c "mount --bind '$WORK/other-libc' '$libc' &&
		mount --bind '$WORK/other-ld' '$ldso' && mv '$WORK/libmix.so.away' '$WORK/libdir/libmix.so' &&
		{ ./mixer --replay rec.bin >other.plain.out 2>other.plain.err; echo \$? >other.plain.rc;
		  mv '$WORK/libdir/libmix.so' '$WORK/libmix.so.away';
		  cd '$FRESH' && timeout 120 ./p/replay >'$WORK/other.out' 2>'$WORK/other.err'; }"
	check "other libc and loader here: the replay without the pack refuses, one line naming them" \
		bash -c "[ \"\$(cat other.plain.rc)\" = 2 ] && grep -q 'libc.so.6 is not the shared library the recording ran with.*, and 1 more objects differ' other.plain.err &&
			[ \$(grep -c . other.plain.err) -eq 1 ]"
	check "... the pack's replay gives the recorded output" cmp rec.out other.out
else
	skip "other libc and loader: needs root and unshare --mount"
fi

# replay-gdb from the pack: a breakpoint in the library, with its file and line.
if command -v gdb >/dev/null; then
	(cd "$FRESH" && timeout 300 "$ROOT/build/bin/replay-gdb" p -batch -ex 'break mix_step' -ex run \
		-ex bt -ex 'info sharedlibrary' -ex kill >"$WORK/gdb.out" 2>&1)
	check "replay-gdb PACK stops in the library's function, at its source line" \
		grep -qE '^Breakpoint 1, mix_step \(.*\) at .*mix\.c:[0-9]+' gdb.out
	check "... the library and libc read from the pack" bash -c \
		"grep -qE 'Yes .*$FRESH/p/lib/libmix.so' gdb.out && grep -qE 'Yes .*/proc/self/fd/8/+libc.so.6' gdb.out"
fi

# A pack holding the library rebuilt with other code.
cp -a made.pack "$FRESH/w"
"$SICC" -O1 -g -shared -fPIC -DMIX_MUL=37 -o "$FRESH/w/lib/libmix.so" "$P/mix.c" >>build.out 2>&1
# (From the recording's directory: elsewhere a warning that it differs comes first.)
timeout 120 "$FRESH/w/replay" >wrong.out 2>wrong.err
rc=$?
check "a pack with another libmix.so: exit 2 (got $rc)" test $rc -eq 2
check "... one line naming it" one_line wrong.err \
	"^libreplay: .*log.bin: .*/w/lib/libmix.so is not the shared library the recording ran with \(build-id [0-9a-f]+ here, [0-9a-f]+ in the recording, at $WORK/libdir/libmix.so\); --any-libraries replays anyway$"
check "... and nothing of the program's" test ! -s wrong.out
timeout 120 "$FRESH/w/replay" --any-libraries >anylib.out 2>anylib.err
check "... --any-libraries warns on one line and runs it" \
	bash -c "head -n 1 anylib.err | grep -q 'warning: .*libmix.so is not the shared library.*(--any-libraries: replayed anyway)' &&
	[ \$(grep -c 'is not the shared library' anylib.err) -eq 1 ] && grep -q 'descriptors 7-9' anylib.out"
mv libmix.so.away libdir/libmix.so

# The same check without a pack: the library at its place replaced.
cp libdir/libmix.so libmix.so.good
"$SICC" -O1 -g -shared -fPIC -DMIX_MUL=37 -o libdir/libmix.so "$P/mix.c" >>build.out 2>&1
./mixer --replay rec.bin >swap.out 2>swap.err
rc=$?
check "the library replaced where it was: exit 2 (got $rc), one line naming it" bash -c \
	"[ $rc -eq 2 ] && [ \$(wc -l <swap.err) -eq 1 ] && grep -q '$WORK/libdir/libmix.so is not the shared library the recording ran with' swap.err"
"$PACK" rec.bin -o swapped.pack >swapped.out 2>swapped.err
rc=$?
check "... replay-pack refuses to pack it: exit 1 (got $rc), one line" bash -c \
	"[ $rc -eq 1 ] && [ ! -e swapped.pack ] && one_line() { [ \$(wc -l <\$1) -eq 1 ] && grep -qE \"\$2\" \$1; } &&
	 one_line swapped.err '^replay-pack: $WORK/libdir/libmix.so is not the shared library the recording ran with'"
mv libmix.so.good libdir/libmix.so

# Bad input to replay-pack: one line, exit 1, nothing written.
bad() { # NAME PATTERN ARGS...: replay-pack ARGS fails with one line matching PATTERN
	local name=$1 pattern=$2 rc
	shift 2
	"$PACK" "$@" >bad.out 2>bad.err
	rc=$?
	check "bad input: $name: exit 1 (got $rc), one line ($(head -c 160 bad.err))" bash -c \
		"[ $rc -eq 1 ] && [ \$(wc -l <bad.err) -eq 1 ] && grep -qE \"\$1\" bad.err && [ ! -s bad.out ]" - "$pattern"
}
bad "a missing log" "^replay-pack: nothere.bin: cannot open: No such file or directory$" nothere.bin -o x1
echo "not a log" >text.bin
bad "not a log" "^replay-pack: text.bin: not a libreplay log \(bad magic\)$" text.bin -o x2
cp rec.bin damaged.bin
printf '\xff\xff\xff\xff' | dd of=damaged.bin bs=1 seek=$(($(stat -c %s rec.bin) / 2)) conv=notrunc status=none
bad "a damaged log" "^replay-pack: damaged.bin: corrupt block [0-9]+ at byte [0-9]+" damaged.bin -o x3
head -c 60 rec.bin >cut.bin
bad "a log cut inside its header" "^replay-pack: cut.bin: truncated header" cut.bin -o x4
"$SICC" -O1 -g -o other "$ROOT/tests/replay/progs/racy_counter.c" >>build.out 2>&1
bad "an executable that is not the log's" \
	"^replay-pack: other is not the executable rec.bin was recorded by \(build-id [0-9a-f]+, the log's [0-9a-f]+\)$" \
	rec.bin --exe other -o x5
bad "a missing executable" "^replay-pack: nothere: cannot open: No such file or directory" rec.bin --exe nothere -o x6
bad "a directory that is not empty" "^replay-pack: made.pack: exists and is not empty" rec.bin -o made.pack
check "... and none of them wrote a pack" bash -c '! ls -d x1 x2 x3 x4 x5 x6 2>/dev/null | grep -q .'
"$PACK" >usage.out 2>usage.err
rc=$?
check "no log named: exit 2, one line of usage" bash -c "[ $rc -eq 2 ] && [ \$(wc -l <usage.err) -eq 1 ]"

summary
