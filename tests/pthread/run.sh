#!/bin/bash
# The pthread layer against glibc: each tests/pthread/NAME.c uses only standard
# pthread, semaphore, C11 thread and time calls and prints the same whatever the
# interleaving. It is built with gcc -pthread (glibc's kernel threads) and with sicc
# (green threads through libreplay's pthread layer); both builds must print exactly
# the same on stdout and exit the same way. The sicc build runs three times, each
# recorded: with the default time slice, with 50 us slices so that preemptions land
# everywhere, and under the chaos scheduler (random slices); each recording is then
# replayed and must print the same again (and end with the recorded per-thread
# instruction counts: the replay checks them against the log's END record).
#
#   tests/pthread/run.sh [--no-replay] [NAME...]
#     --no-replay  only compare with glibc (--replay, the old flag, is the default)
#     NAME         only these programs (default: every *.c here)
#
# A program whose header comment has a line "XFAIL: why" is a known gap: its failure
# prints "XFAIL name: why" and is not counted; if it passes, it says so (drop the note).
# A line "CFLAGS: flags" there adds compiler flags to both of its builds; a line
# "OLEVELS: -O0 -O2 ..." builds and checks it at each of those levels instead of OPT;
# a line "STDERR: same" wants its stderr equal to glibc's too (libreplay says nothing).
# OPT="-O0" changes the optimisation level of both builds (default -O2).
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT/tests/pthread"
SICC=${PTHREAD_SICC:-$SICC} # another build's sicc (its ../lib/libreplay.a comes along)

replay=true
case "${1:-}" in
--replay) shift ;;
--no-replay) replay=false; shift ;;
esac
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for src in *.c; do names+=("${src%.c}"); done
fi
OPT=${OPT:--O2}
TIMEOUT=60
CHAOS_SEED=${CHAOS_SEED:-4242}
nxfail=0

# run TAG EXE OUT [ARGS...]: run with a timeout; OUT gets stdout, OUT.err stderr and
# OUT.rc the exit status.
run() {
	local tag=$1 exe=$2 out=$3
	shift 3
	timeout $TIMEOUT "$exe" "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}

# same WANT GOT: stdout and exit status match (and stderr, if $stderr_same).
same() {
	cmp -s "$1" "$2" && cmp -s "$1.rc" "$2.rc" && { ! $stderr_same || cmp -s "$1.err" "$2.err"; }
}

# why WANT GOT: one line on how GOT differs.
why() {
	local rc_want rc_got
	rc_want=$(cat "$1.rc") rc_got=$(cat "$2.rc")
	echo "exit $rc_want vs $rc_got; $(diff "$1" "$2" | head -n 6 | tr '\n' ' ')" \
		"stderr: $(tail -n 3 "$2.err" | tr '\n' ' ')"
}

# verdict NAME XFAIL_REASON OK WHY...
verdict() {
	local name=$1 xfail=$2 ok=$3
	shift 3
	if $ok; then
		if [ -n "$xfail" ]; then pass "$name (XPASS: drop its XFAIL note)"; else pass "$name"; fi
	elif [ -n "$xfail" ]; then
		echo "XFAIL $name: $xfail"
		nxfail=$((nxfail + 1))
	else
		fail "$name: $*"
	fi
}

# check_one NAME OLEVEL LABEL_SUFFIX XFAIL CFLAGS: both builds, the recordings, the replays.
check_one() {
	local name=$1 opt=$2 sfx=$3 xfail=$4 cflags=$5
	local src=$name.c exe=$WORK/$name${sfx// /}
	# shellcheck disable=SC2086 # opt and cflags are lists of words
	if ! gcc $opt $cflags -g -w -pthread -o "$exe.plain" "$src" >"$WORK/build.log" 2>&1; then
		fail "$name$sfx: gcc build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$SICC" $opt $cflags -g -w -o "$exe" "$src" >"$WORK/build.log" 2>&1; then
		fail "$name$sfx: sicc build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
		return
	fi
	run plain "$exe.plain" "$exe.want"

	# tag, then the flags of the recording
	for how in "default:" "50us:--quantum 50us" "chaos:--chaos=$CHAOS_SEED"; do
		tag=${how%%:*} flags=${how#*:}
		LIBREPLAY_OPTS="$flags --record $exe.$tag.log" run sicc "$exe" "$exe.$tag"
		if same "$exe.want" "$exe.$tag"; then ok=true; else ok=false; fi
		label="$name$sfx $tag"
		[ $tag = default ] && label=$name$sfx
		verdict "$label" "$xfail" $ok "$(why "$exe.want" "$exe.$tag")"
		$replay || continue
		LIBREPLAY_OPTS="" run replay "$exe" "$exe.$tag.replay" --replay "$exe.$tag.log"
		if same "$exe.$tag" "$exe.$tag.replay"; then ok=true; else ok=false; fi
		verdict "$name$sfx replay($tag)" "$xfail" $ok "$(why "$exe.$tag" "$exe.$tag.replay")"
	done
}

for name in "${names[@]}"; do
	src=$name.c
	xfail=$(sed -n '1,/\*\//s/^.*XFAIL: *\(.*[^/* ]\)[/* ]*$/\1/p' "$src" | head -n 1)
	cflags=$(sed -n '1,/\*\//s/^.*CFLAGS: *\(.*[^/* ]\)[/* ]*$/\1/p' "$src" | head -n 1)
	levels=$(sed -n '1,/\*\//s/^.*OLEVELS: *\(.*[^/* ]\)[/* ]*$/\1/p' "$src" | head -n 1)
	stderr_same=false
	grep -q '^ \* STDERR: same' "$src" && stderr_same=true
	if [ -z "$levels" ]; then
		check_one "$name" "$OPT" "" "$xfail" "$cflags"
		continue
	fi
	for opt in $levels; do
		check_one "$name" "$opt" " $opt" "$xfail" "$cflags"
	done
done
[ $nxfail -eq 0 ] || echo "($nxfail expected failures)"
summary
