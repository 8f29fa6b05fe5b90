#!/bin/bash
# The pthread layer against glibc: each tests/pthread/NAME.c uses only standard
# pthread, semaphore, C11 thread and time calls and prints the same whatever the
# interleaving. It is built with gcc -pthread (glibc's kernel threads) and with sicc
# (green threads through libreplay's pthread layer); both builds must print exactly
# the same on stdout and exit the same way. The sicc build runs twice: with the
# default time slice, and with 50 us slices so that preemptions land everywhere.
#
#   tests/pthread/run.sh [--replay] [NAME...]
#     --replay  also replay each recorded sicc run: it must print the same again
#     NAME      only these programs (default: every *.c here)
#
# A program whose header comment has a line "XFAIL: why" is a known gap: its failure
# prints "XFAIL name: why" and is not counted; if it passes, it says so (drop the note).
# A line "CFLAGS: flags" there adds compiler flags to both of its builds.
# OPT="-O0" changes the optimisation level of both builds (default -O2).
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT/tests/pthread"
SICC=${PTHREAD_SICC:-$SICC} # another build's sicc (its ../lib/libreplay.a comes along)

replay=false
if [ "${1:-}" = --replay ]; then
	replay=true
	shift
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for src in *.c; do names+=("${src%.c}"); done
fi
OPT=${OPT:--O2}
TIMEOUT=60
nxfail=0

# run TAG EXE OUT [ARGS...]: run with a timeout; OUT gets stdout, OUT.err stderr and
# OUT.rc the exit status.
run() {
	local tag=$1 exe=$2 out=$3
	shift 3
	timeout $TIMEOUT "$exe" "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}

# same WANT GOT: stdout and exit status match.
same() {
	cmp -s "$1" "$2" && cmp -s "$1.rc" "$2.rc"
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

for name in "${names[@]}"; do
	src=$name.c
	exe=$WORK/$name
	xfail=$(sed -n '1,/\*\//s/^.*XFAIL: *\(.*[^/* ]\)[/* ]*$/\1/p' "$src" | head -n 1)
	cflags=$(sed -n '1,/\*\//s/^.*CFLAGS: *\(.*[^/* ]\)[/* ]*$/\1/p' "$src" | head -n 1)
	# shellcheck disable=SC2086 # OPT and cflags are lists of words
	if ! gcc $OPT $cflags -g -w -pthread -o "$exe.plain" "$src" >"$WORK/build.log" 2>&1; then
		fail "$name: gcc build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
		continue
	fi
	# shellcheck disable=SC2086
	if ! "$SICC" $OPT $cflags -g -w -o "$exe" "$src" >"$WORK/build.log" 2>&1; then
		fail "$name: sicc build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
		continue
	fi
	run plain "$exe.plain" "$exe.want"

	LIBREPLAY_OPTS="--record $exe.log" run sicc "$exe" "$exe.got"
	if same "$exe.want" "$exe.got"; then ok=true; else ok=false; fi
	verdict "$name" "$xfail" $ok "$(why "$exe.want" "$exe.got")"

	LIBREPLAY_OPTS="--quantum 50us --record $exe.50us.log" run sicc "$exe" "$exe.50us"
	if same "$exe.want" "$exe.50us"; then ok=true; else ok=false; fi
	verdict "$name 50us" "$xfail" $ok "$(why "$exe.want" "$exe.50us")"

	if $replay; then
		for rec in got 50us; do
			log=$exe.log
			[ $rec = 50us ] && log=$exe.50us.log
			LIBREPLAY_OPTS="" run replay "$exe" "$exe.$rec.replay" --replay "$log"
			if same "$exe.$rec" "$exe.$rec.replay"; then ok=true; else ok=false; fi
			verdict "$name replay($rec)" "$xfail" $ok "$(why "$exe.$rec" "$exe.$rec.replay")"
		done
	fi
done
[ $nxfail -eq 0 ] || echo "($nxfail expected failures)"
summary
