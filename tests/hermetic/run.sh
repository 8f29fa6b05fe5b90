#!/bin/bash
# A recording is self-contained (issue 29): the replay takes the program's file and
# socket inputs from the log and changes nothing outside the process. Each program is
# recorded in a directory of its own; then its inputs are changed or deleted, or its
# server is gone, or the replay runs in an empty directory elsewhere: the replay must
# print the recorded output, exit as recorded, and leave every file as it found it.
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/hermetic/progs"

# snapshot DIR: every file under DIR with its size, mode and contents' hash.
snapshot() {
	(cd "$1" && find . -type f -printf '%p %s %m\n' | sort && find . -type f -exec md5sum {} + | sort)
}

# replay_in DIR NAME LOG TAG: replay ./NAME from DIR, compare with the recording's
# output and exit status, and check that DIR is as it was.
replay_in() {
	local dir=$1 name=$2 log=$3 tag=$4
	snapshot "$dir" >"$WORK/$tag.before"
	(cd "$dir" && timeout 60 "./$name" --replay "$log" >"$WORK/$tag.out" 2>"$WORK/$tag.err"); echo $? >"$WORK/$tag.rc"
	snapshot "$dir" >"$WORK/$tag.after"
	if cmp -s "$WORK/$tag.out" "$log.out" && cmp -s "$WORK/$tag.rc" "$log.rc"; then
		pass "$tag: the replay printed the recorded output and exit status $(cat "$log.rc")"
	else
		fail "$tag: replay rc $(cat "$WORK/$tag.rc") (recorded $(cat "$log.rc")): $(diff "$log.out" "$WORK/$tag.out" | head -3 | tr '\n' ' ') $(head -c 300 "$WORK/$tag.err")"
	fi
	if cmp -s "$WORK/$tag.before" "$WORK/$tag.after"; then
		pass "$tag: the replay left every file as it found it"
	else
		fail "$tag: the replay changed files: $(diff "$WORK/$tag.before" "$WORK/$tag.after" | head -4 | tr '\n' ' ')"
	fi
}

# ---- files: sum_files reads input.txt, appends to out.txt, removes scratch.tmp ----
"$SICC" -O2 -g -o "$WORK/sum_files" "$P/sum_files.c" -lpthread >"$WORK/build.log" 2>&1 ||
	fail "sum_files: build: $(head -3 "$WORK/build.log")"
R="$WORK/rec"
mkdir -p "$R"
cp "$WORK/sum_files" "$R/"
for i in 1 2 3; do
	seq 1 $((700 * i)) >"$R/input.txt"
	echo "an earlier line" >"$R/out.txt"
	: >"$R/scratch.tmp"
	log="$WORK/sum.$i.bin"
	(cd "$R" && timeout 60 ./sum_files --record "$log" --chaos=$((i * 31)) >"$log.out" 2>"$log.err"); echo $? >"$log.rc"
	# The recording's own effects happened.
	if [ "$(tail -n 1 "$R/out.txt")" = "$(cat "$log.out")" ] && [ ! -e "$R/scratch.tmp" ]; then
		pass "sum_files $i: recording appended the total and removed scratch.tmp"
	else
		fail "sum_files $i: recording: out.txt ends '$(tail -n 1 "$R/out.txt")', output '$(cat "$log.out")'"
	fi
	: >"$R/scratch.tmp"
	case $i in
	1) echo 12345 >>"$R/input.txt"; replay_in "$R" sum_files "$log" "sum_files $i, input edited" ;;
	2) rm -f "$R/input.txt" "$R/out.txt"; replay_in "$R" sum_files "$log" "sum_files $i, input and output deleted" ;;
	3) E="$WORK/empty.$i"; mkdir -p "$E"; cp "$R/sum_files" "$E/"
	   replay_in "$E" sum_files "$log" "sum_files $i, an empty directory elsewhere" ;;
	esac
done
# Without a log the program runs on the files as they are now.
(cd "$R" && seq 1 10 >input.txt && ./sum_files --no-record >"$WORK/nr.out" 2>&1)
[ "$(cat "$WORK/nr.out")" = "total 46" ] && pass "sum_files --no-record reads the file as it is" ||
	fail "sum_files --no-record: $(cat "$WORK/nr.out")"

# ---- a file read through mmap, deleted before the replay ----
"$SICC" -O2 -g -o "$WORK/map_file" "$P/map_file.c" >"$WORK/build.log" 2>&1 || fail "map_file: build"
M="$WORK/map"
mkdir -p "$M"
cp "$WORK/map_file" "$M/"
seq 1 30000 >"$M/input.txt"
log="$WORK/map.bin"
(cd "$M" && ./map_file --record "$log" >"$log.out" 2>"$log.err"); echo $? >"$log.rc"
rm "$M/input.txt"
replay_in "$M" map_file "$log" "map_file, the mapped file deleted"

# ---- a server on 127.0.0.1, gone when the client is replayed ----
gcc -O2 -o "$WORK/tcp_server" "$P/tcp_server.c" >"$WORK/build.log" 2>&1 || fail "tcp_server: build"
"$SICC" -O2 -g -o "$WORK/tcp_client" "$P/tcp_client.c" -lpthread >"$WORK/build.log" 2>&1 ||
	fail "tcp_client: build: $(head -3 "$WORK/build.log")"
C="$WORK/client"
mkdir -p "$C"
cp "$WORK/tcp_client" "$C/"
for i in 1 2; do
	rm -f "$C/port"
	"$WORK/tcp_server" "$C/port" & spid=$!
	for _ in $(seq 50); do [ -s "$C/port" ] && break; sleep 0.1; done
	log="$WORK/tcp.$i.bin"
	(cd "$C" && timeout 60 ./tcp_client --record "$log" --chaos=$((i * 17)) >"$log.out" 2>"$log.err"); echo $? >"$log.rc"
	kill "$spid"; wait "$spid" 2>/dev/null
	rm -f "$C/port"
	if [ "$(cat "$log.rc")" = 0 ] && [ "$(grep -c 'squared is' "$log.out")" = 3 ]; then
		pass "tcp_client $i: recorded three answers from the server"
	else
		fail "tcp_client $i: recording rc $(cat "$log.rc"): $(head -c 300 "$log.err")"
	fi
	replay_in "$C" tcp_client "$log" "tcp_client $i, the server gone"
done
summary
