#!/bin/bash
# The world outside the process (docs/inputs.md): programs that stat, list, read,
# create, rename and remove files from racing threads are recorded in a directory of
# their own; then the directory is changed (a file edited, one deleted, one added, a
# directory the recording made removed) and the recording replayed there, and again
# in an empty directory elsewhere. Each replay must print what its recording printed,
# exit as it did, and leave every file as it found it (names, sizes, times, modes);
# the recording's own effects must be there; --no-record must do what the recording
# did. Each program is recorded under several --chaos seeds.
#
#   tests/world/run.sh          (WORLD_SEEDS="1 2 3" by default)
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
P="$ROOT/tests/world/progs"
SEEDS=${WORLD_SEEDS:-"1 2 3"}
TIMEOUT=60

# build NAME SRC FLAGS...
build() {
	local name=$1 src=$2
	shift 2
	"$SICC" -O2 -g "$@" -o "$WORK/$name" "$P/$src.c" >"$WORK/$name.build" 2>&1 ||
		{ fail "$name: build: $(head -n 3 "$WORK/$name.build")"; return 1; }
}

# setup DIR: the files the programs expect in DIR/d.
setup() {
	rm -rf "$1" && mkdir -p "$1/d/sub"
	printf '1 2 3\n4\n' >"$1/d/a.txt"
	echo bee >"$1/d/b.txt"
	ln -s a.txt "$1/d/link"
}

# change DIR: what a user does between the recording and the replay.
change() {
	echo '9 9 9' >"$1/d/a.txt"
	rm -f "$1/d/b.txt"
	echo new >"$1/d/c.txt"
	rm -rf "$1/d/moved0"
}

# snapshot DIR: every file under DIR with its size, modification time and mode.
snapshot() {
	(cd "$1" && find . -printf '%p %s %T@ %m %l\n' | sort)
}

# run DIR OUT EXE ARGS...: EXE run in DIR; OUT, OUT.err, OUT.rc.
run() {
	local dir=$1 out=$2 exe=$3
	shift 3
	(cd "$dir" && timeout $TIMEOUT "$exe" "$@" >"$out" 2>"$out.err"); echo $? >"$out.rc"
}

same_run() { # A B: the same output and exit status
	cmp -s "$1" "$2" && cmp -s "$1.rc" "$2.rc"
}

# The recording's effects, seen in the directory itself (paths.c's changes).
effects_done() { # DIR OUT
	local dir=$1 out=$2
	[ "$(sed -n 's/^at the end: //p' "$out")" = "$(cd "$dir" && LC_ALL=C ls -d d/*)" ] &&
		[ -d "$dir/d/moved0" ] && [ ! -e "$dir/d/moved1" ] && [ ! -e "$dir/d/made0" ] &&
		[ "$(stat -c '%s %a %h %Y' "$dir/d/renamed.txt")" = "5 640 2 1000000000" ] &&
		[ "$(cat "$dir/d/new.txt")" = "made " ] &&
		[ -z "$(cd "$dir/d" && ls | grep -E '^(tmp|dir|sfx)\.')" ] && [ ! -e "$dir/d/soft" ]
}

# replay_checks EXE SEED: record EXE under --chaos=SEED, then replay it changed and
# elsewhere.
replay_checks() {
	local exe=$1 seed=$2 dir="$WORK/$1.$2" log="$WORK/$1.$2.bin" bad=""
	setup "$dir"
	run "$dir" "$log.rec" "$WORK/$exe" --record "$log" --chaos="$seed"
	if [ "$(cat "$log.rec.rc")" != 0 ]; then
		fail "$exe seed $seed: the recording exited $(cat "$log.rec.rc"): $(grep -m 2 unexpected "$log.rec" | tr '\n' ' ')$(head -c 200 "$log.rec.err")"
		return
	fi
	if [ "$exe" = paths ]; then
		if effects_done "$dir" "$log.rec"; then pass "$exe seed $seed: the recording's effects are in the directory"
		else fail "$exe seed $seed: the recording's effects are not all there: $(ls "$dir/d" | tr '\n' ' ')"; fi
	fi

	change "$dir"
	snapshot "$dir" >"$log.before"
	run "$dir" "$log.rep" "$WORK/$exe" --replay "$log"
	snapshot "$dir" >"$log.after"
	same_run "$log.rec" "$log.rep" ||
		bad="prints or exits otherwise (rc $(cat "$log.rep.rc")): $(diff "$log.rec" "$log.rep" | head -n 3 | tr '\n' ' ') $(grep -v warning "$log.rep.err" | head -c 200)"
	cmp -s "$log.before" "$log.after" ||
		bad="$bad changed the directory: $(diff "$log.before" "$log.after" | head -n 4 | tr '\n' ' ')"
	if [ -z "$bad" ]; then pass "$exe seed $seed: replays in the changed directory and leaves it as it was"
	else fail "$exe seed $seed: in the changed directory the replay $bad"; fi

	local empty="$WORK/$exe.$seed.empty"
	rm -rf "$empty" && mkdir -p "$empty"
	run "$empty" "$log.far" "$WORK/$exe" --replay "$log"
	bad=""
	same_run "$log.rec" "$log.far" ||
		bad="prints or exits otherwise (rc $(cat "$log.far.rc")): $(diff "$log.rec" "$log.far" | head -n 3 | tr '\n' ' ') $(grep -v warning "$log.far.err" | head -c 200)"
	[ -z "$(ls -A "$empty")" ] || bad="$bad left files: $(ls -A "$empty" | tr '\n' ' ')"
	if [ -z "$bad" ]; then pass "$exe seed $seed: replays in an empty directory elsewhere and leaves it empty"
	else fail "$exe seed $seed: in an empty directory the replay $bad"; fi
}

build paths paths || { summary; exit 1; }
build names names || { summary; exit 1; }
build names_fortify names -D_FORTIFY_SOURCE=2 || { summary; exit 1; }

for exe in paths names names_fortify; do
	for seed in $SEEDS; do
		replay_checks "$exe" "$seed"
	done
done

# The threads race: the seeds' recordings saw the directory at different moments.
distinct=$(for seed in $SEEDS; do
	grep -v -e '^cwd ends' -e 'hash' "$WORK/paths.$seed.bin.rec" | md5sum; done | sort -u | wc -l)
if [ "$distinct" -ge 2 ]; then pass "paths: $distinct different interleavings across the seeds"
else fail "paths: every seed printed the same: the threads did not race"; fi

# The replay makes none of the program's effects: no file system call that changes
# anything, no getdents64 (strace, where there is one).
if command -v strace >/dev/null 2>&1; then
	seed=${SEEDS%% *}
	empty="$WORK/strace.empty"
	rm -rf "$empty" && mkdir -p "$empty"
	(cd "$empty" && strace -f -o "$WORK/replay.strace" "$WORK/paths" --replay "$WORK/paths.$seed.bin" >/dev/null 2>&1)
	made=$(grep -E '^[0-9]+ +(unlink|unlinkat|rename|renameat2?|mkdir|mkdirat|rmdir|link|linkat|symlink|symlinkat|chmod|fchmod|fchmodat|truncate|utimensat|getdents64|statx|readlink|readlinkat)\(' "$WORK/replay.strace" |
		grep -v 'readlink("/proc/self/exe"' | head -n 3) # (the runtime's own: which executable runs)
	if [ -s "$WORK/replay.strace" ] && [ -z "$made" ]; then pass "paths: the replay makes no file system call of the program's (strace)"
	else fail "paths: the replay made: $(echo "$made" | tr '\n' ' ')"; fi
else
	skip "paths: no strace here"
fi

# --no-record: the calls are the kernel's, as before: the same effects as a recording.
for exe in paths names; do
	dir="$WORK/$exe.norec"
	setup "$dir"
	run "$dir" "$WORK/$exe.norec.out" "$WORK/$exe" --no-record
	ok=$(cat "$WORK/$exe.norec.out.rc")
	if [ "$exe" = paths ] && [ "$ok" = 0 ]; then
		effects_done "$dir" "$WORK/$exe.norec.out" || ok="effects missing: $(ls "$dir/d" | tr '\n' ' ')"
		grep -q '^mkstemp: 200 made, 200 removed' "$WORK/$exe.norec.out" || ok="no mkstemp line"
	fi
	if [ "$ok" = 0 ]; then pass "$exe --no-record: runs as before"
	else fail "$exe --no-record: $ok $(grep -m 2 unexpected "$WORK/$exe.norec.out" | tr '\n' ' ')"; fi
done

summary
