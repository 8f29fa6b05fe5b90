#!/bin/bash
# Where logs go, and what a recording may open (docs/replay.md, "Where recordings go";
# issue 25, part 1). A user's own file is never overwritten, a symbolic link never
# followed, a FIFO never waited on, a device or directory never opened; a log is 0600;
# two recorders never share a file. Without --record FILE each run records a new
# PROG-N.bin in the recording directory, PROG-latest names the newest, --replay (and
# replay-gdb) without a file replay it, and only LIBREPLAY_KEEP of a program's stay.
# replay-hunt keeps each hunt's failures in a new directory. The same as nobody.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS LIBREPLAY_KEEP
P="$ROOT/tests/logpath/progs"
HUNT="$ROOT/build/bin/replay-hunt"
cd "$WORK" || exit 1
export LIBREPLAY_DIR="$WORK/rec"

for p in args linger fails; do
	"$SICC" -O1 -g -o "$p" "$P/$p.c" -lpthread >build.out 2>&1 ||
		{ fail "$p: sicc build: $(head -c 300 build.out)"; summary; exit 1; }
done
"$SICC" -O1 -g -o exec_self "$ROOT/tests/replay/progs/exec_self.c" -lpthread >build.out 2>&1 ||
	fail "exec_self: sicc build: $(head -c 300 build.out)"

# refused NAME REGEX COMMAND...: the command exits 2, saying one line that matches REGEX.
refused() {
	local name=$1 re=$2 rc
	shift 2
	"$@" >r.out 2>r.err
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <r.err)" -eq 1 ] && grep -Eq -e "$re" r.err; then pass "$name"
	else fail "$name: exit $rc, said: $(head -c 300 r.err)"; fi
}
# same_replay NAME WANT REPLAY-COMMAND...: the replay prints WANT and exits 0.
same_replay() {
	local name=$1 want=$2 out rc
	shift 2
	if declare -F "$1" >/dev/null; then out=$("$@" 2>rp.err); else out=$(timeout 60 "$@" 2>rp.err); fi
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then pass "$name"
	else fail "$name: exit $rc, printed '$out' for '$want': $(head -c 300 rp.err)"; fi
}

# ---- the file a recording opens -----------------------------------------------------------
printf 'my notes\n' >log.bin
refused "a user's own log.bin (not a log) is not overwritten" \
	'^libreplay: log\.bin: not a libreplay log, not overwriting$' ./args --record log.bin
check "... it keeps its content" test "$(cat log.bin)" = "my notes"
printf 'x' >short.bin
refused "nor a file shorter than a log's magic" 'short\.bin: not a libreplay log' ./args --record short.bin

printf 'secret\n' >secret && chmod 600 secret && ln -s secret link.bin
refused "a symbolic link at the path is refused" \
	'^libreplay: link\.bin: a symbolic link; not recording through it' ./args --record link.bin
check "... the file it names is untouched" test "$(cat secret)" = secret
ln -s nowhere dangling.bin
refused "a dangling symbolic link is refused" 'dangling\.bin: a symbolic link' ./args --record dangling.bin
check "... nothing is made where it points" test ! -e nowhere

mkfifo fifo.bin
refused "a FIFO is refused at once, not waited on" \
	'^libreplay: fifo\.bin: a FIFO, not a regular file; not recording into it$' \
	timeout 20 ./args --record fifo.bin
mkdir dir.bin
refused "a directory is refused" 'dir\.bin: a directory, not a regular file' ./args --record dir.bin
refused "a device is refused" '/dev/null: a device, not a regular file' ./args --record /dev/null

: >empty.bin
check "an empty file is recorded into" ./args --record empty.bin
same_replay "... and replays" "args 1" ./args --replay empty.bin
./args --record ours.bin one two >/dev/null 2>&1
check "a log of ours is recorded over" ./args --record ours.bin one
same_replay "... the new recording replays" "args 2" ./args --replay ours.bin

(umask 022 && ./args --record mode.bin >/dev/null 2>&1)
check "a new log is 0600 (umask 022)" test "$(stat -c %a mode.bin)" = 600
chmod 644 mode.bin && ./args --record mode.bin >/dev/null 2>&1
check "a log recorded over loses its group and other bits" test "$(stat -c %a mode.bin)" = 600

# Two recorders of one file: the second is refused and names the first, whose log stays
# whole.
./linger --record busy.bin 3 >l1.out 2>l1.err &
lp=$!
for _ in $(seq 100); do [ -s busy.bin ] && break; sleep 0.05; done
refused "a second recorder of one file is refused, naming the first" \
	"^libreplay: busy\.bin: process $lp \(linger\) is recording into it; not recording into it too" \
	./args --record busy.bin
wait "$lp"
check "... the first ran to its end" test "$(cat l1.out)" = lingered
same_replay "... and its log replays" lingered ./linger --replay busy.bin
# A fork child of a recording does not keep its parent's file taken (the lock goes
# with the parent's descriptor).
./linger --record forked.bin fork >/dev/null 2>&1
check "a recording's lingering fork child does not hold its log" ./args --record forked.bin

# ---- the recording directory ------------------------------------------------------------
./args a >/dev/null && ./args a b >/dev/null && ./args a b c >/dev/null
check "each run without --record records a new numbered file" \
	test "$(cd rec && ls | tr '\n' ' ')" = "args-1.bin args-2.bin args-3.bin args-latest "
check "args-latest names the newest" test "$(readlink rec/args-latest)" = args-3.bin
check "the directory is 0700, a recording 0600" \
	test "$(stat -c %a rec) $(stat -c %a rec/args-2.bin)" = "700 600"
same_replay "--replay without a file replays the latest" "args 4" ./args --replay
same_replay "... also with flags after it" "args 4" ./args --replay --quantum 5ms
same_replay "replay-gdb PROGRAM without a log: the latest under gdb" "args 4" \
	bash -c "'$ROOT/build/bin/replay-gdb' ./args -batch -ex run 2>&1 | grep '^args'"
LIBREPLAY_OPTS="--record $WORK/given.bin" ./args x >/dev/null 2>&1
same_replay "--replay without a file, LIBREPLAY_OPTS naming --record FILE: that file" "args 2" \
	env LIBREPLAY_OPTS="--record $WORK/given.bin" ./args --replay
refused "--replay without a file and no recording: one line" \
	'^libreplay: no recording of args to replay in .*/none: record one first, or --replay FILE$' \
	env LIBREPLAY_DIR="$WORK/none" ./args --replay
LIBREPLAY_DIR= ./args --record-dir "$WORK/flagdir" >/dev/null 2>&1
check "--record-dir DIR: the directory" test -f flagdir/args-1.bin
check "XDG_DATA_HOME/libreplay without LIBREPLAY_DIR" \
	bash -c "LIBREPLAY_DIR= XDG_DATA_HOME='$WORK/xdg' ./args >/dev/null && test -f xdg/libreplay/args-1.bin"
check "~/.local/share/libreplay without either" \
	bash -c "mkdir -p h && LIBREPLAY_DIR= XDG_DATA_HOME= HOME='$WORK/h' ./args >/dev/null && test -f h/.local/share/libreplay/args-1.bin"
refused "no HOME and no directory given: one line" '^libreplay: no directory to keep recordings in: HOME is not set' \
	env -u LIBREPLAY_DIR -u XDG_DATA_HOME -u HOME ./args

# Runs at once never share a file.
for i in 1 2 3 4 5 6; do LIBREPLAY_DIR="$WORK/many" ./args $i >/dev/null 2>&1 & done
wait
complete=0
for f in many/args-*.bin; do
	"$ROOT/build/bin/replay-dump" --summary "$f" args 2>&1 | grep -q 'the log is complete' &&
		complete=$((complete + 1))
done
check "six runs at once: six files, each a complete log ($complete)" test "$complete" = 6
# A child exec'ing a sicc program records a file of its own.
LIBREPLAY_DIR="$WORK/ex" timeout 60 ./exec_self >ex.out 2>ex.err
check "a recording's exec'd child records its own numbered file, no note" \
	test "$(cd ex && ls | tr '\n' ' ')/$(cat ex.err)" = "exec_self-1.bin exec_self-2.bin exec_self-latest /"

# LIBREPLAY_KEEP: the oldest beyond it go; not a file that is not a log, not another
# program's.
mkdir -p keep && printf 'not a log\n' >keep/args-1.bin
LIBREPLAY_DIR="$WORK/keep" ./linger 0 >/dev/null
for i in 1 2 3 4 5 6; do LIBREPLAY_DIR="$WORK/keep" LIBREPLAY_KEEP=3 ./args >/dev/null; done
check "LIBREPLAY_KEEP=3: the three newest stay, with files not ours and other programs'" \
	test "$(cd keep && ls | tr '\n' ' ')" = "args-1.bin args-5.bin args-6.bin args-7.bin args-latest linger-1.bin linger-latest "
for i in 1 2 3; do LIBREPLAY_DIR="$WORK/keep0" LIBREPLAY_KEEP=0 ./args >/dev/null; done
check "LIBREPLAY_KEEP=0 keeps every one" test "$(ls keep0 | wc -l)" = 4
for i in $(seq 22); do LIBREPLAY_DIR="$WORK/keep20" ./args >/dev/null; done
check "by default 20 stay" test "$(ls keep20/args-*.bin | wc -l) $(readlink keep20/args-latest)" = "20 args-22.bin"
refused "a bad LIBREPLAY_KEEP: one line" '^libreplay: LIBREPLAY_KEEP=many: want how many recordings' \
	env LIBREPLAY_KEEP=many ./args

# ---- replay-hunt: each hunt's failures in a new directory ----------------------------------
timeout 120 "$HUNT" --runs 2 --jobs 1 --mode default -- ./fails >h1.out 2>&1
sum1=$(cat hunt-logs/run-0.bin hunt-logs/run-1.bin | md5sum)
timeout 120 "$HUNT" --runs 2 --jobs 1 --mode default -- ./fails >h2.out 2>&1
check "a second hunt keeps its failures in hunt-logs-2" \
	grep -qx 'kept: the 2 failing runs in hunt-logs-2/ (run-N.bin, .out, .err)' h2.out
check "... and prints their replay commands" grep -qx 'replay: ./fails --replay hunt-logs-2/run-0.bin' h2.out
check "... the first hunt's failures are untouched" \
	test "$(cat hunt-logs/run-0.bin hunt-logs/run-1.bin | md5sum)" = "$sum1"
mkdir elsewhere && ln -s elsewhere hl && touch elsewhere/run-0.bin
timeout 120 "$HUNT" --runs 1 --mode default --keep hl -- ./fails >h3.out 2>&1
check "a symlinked --keep directory is not followed: hl-2" \
	test "$(ls elsewhere)/$(ls hl-2 | tr '\n' ' ')" = "run-0.bin/run-0.bin run-0.err run-0.out "
timeout 120 "$HUNT" --runs 2 --mode default --keep quiet -- ./args >h4.out 2>&1
check "a hunt that finds nothing leaves no directory" test ! -e quiet

# ---- as nobody ----------------------------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "as nobody: not root here"
else
	T=$(mktemp -d /tmp/logpath.XXXXXX) && chmod 755 "$T" && cp args linger "$T/" &&
		mkdir "$T/home" "$T/w" && chown nobody "$T/home" "$T/w"
	asnobody() { (cd "$T/w" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -u LIBREPLAY_DIR -u XDG_DATA_HOME HOME="$T/home" "$@"); }
	asnobody ../args a >/dev/null 2>&1
	check "nobody with a HOME: records into ~/.local/share/libreplay, its own, 0600" \
		test "$(stat -c '%U %a' "$T/home/.local/share/libreplay/args-1.bin")" = "nobody 600"
	same_replay "nobody: --replay without a file" "args 2" asnobody timeout 60 ../args --replay
	asnobody sh -c 'printf "mine\n" >log.bin && ln -s log.bin link.bin && mkfifo fifo.bin'
	refused "nobody: its own log.bin is not overwritten" 'not a libreplay log, not overwriting' \
		asnobody ../args --record log.bin
	refused "nobody: a symbolic link is refused" 'a symbolic link' asnobody ../args --record link.bin
	refused "nobody: a FIFO is refused at once" 'a FIFO' asnobody timeout 20 ../args --record fifo.bin
	refused "nobody with no writable home: one line naming the way out" \
		'^libreplay: cannot make the recording directory /nonexistent/\.local/share/libreplay: .*; set LIBREPLAY_DIR' \
		asnobody env HOME=/nonexistent ../args
	rm -rf "$T"
fi

summary
