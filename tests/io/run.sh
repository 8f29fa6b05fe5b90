#!/bin/bash
# Blocking system calls between green threads (docs/io.md). Each NAME.c here passes
# data between threads through pipes, sockets, poll/select or raw futexes and prints
# the same whatever the interleaving. It is built with gcc -pthread (glibc's kernel
# threads) and with sicc; the sicc build is recorded with the default slices, with
# 50 us slices and with --chaos (several seeds), and every recording must print what
# glibc's build printed and replay to exactly its own output and exit status (the
# replay itself checks the final per-thread counts against the log and exits 86 if
# they differ).
# outside_input.c reads stdin fed by the shell after a delay: its output depends on
# timing, so it is compared only with its own replays, fed early, on time and late.
# TCP splits its bytes by the kernel's timing (docs/io.md): tcp_chunks.c prints how many
# reads and EAGAIN answers it took, so it too is compared only with its own replays; and
# tcp_loopback is recorded under TCP_SEEDS more --chaos seeds, each replayed.
#
#   tests/io/run.sh [NAME...]      (default: every *.c here but outside_input, tcp_chunks)
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
cd "$ROOT/tests/io"
SEEDS=${IO_SEEDS:-"101 202 303"}
TCP_SEEDS=${IO_TCP_SEEDS:-$(seq 1 30)}
TIMEOUT=60

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for src in *.c; do
		case $src in outside_input.c | tcp_chunks.c) ;; *) names+=("${src%.c}") ;; esac
	done
fi

# run OUT CMD...: OUT gets stdout, OUT.err stderr, OUT.rc the exit status.
run() {
	local out=$1
	shift
	timeout $TIMEOUT "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}

# record_flags EXE HOW: the flags that record EXE's run HOW (default, 50us, or a seed).
record_flags() {
	case $2 in
	default) echo "--record $1.$2.bin" ;;
	50us) echo "--record $1.$2.bin --quantum 50us" ;;
	*) echo "--record $1.$2.bin --chaos=$2" ;;
	esac
}

# same A B: stdout and exit status match.
same() { cmp -s "$1" "$2" && cmp -s "$1.rc" "$2.rc"; }
why() {
	echo "exit $(cat "$1.rc") vs $(cat "$2.rc"); $(diff "$1" "$2" | head -n 4 | tr '\n' ' ')" \
		"stderr: $(tail -n 2 "$2.err" | tr '\n' ' ')"
}

for name in "${names[@]}"; do
	exe=$WORK/$name
	if ! gcc -O2 -g -w -pthread -o "$exe.plain" "$name.c" >"$WORK/build.log" 2>&1 ||
		! "$SICC" -O2 -g -w -o "$exe" "$name.c" >>"$WORK/build.log" 2>&1; then
		fail "$name: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
		continue
	fi
	run "$exe.want" "$exe.plain"
	if [ "$(cat "$exe.want.rc")" != 0 ]; then
		fail "$name: the glibc build exits $(cat "$exe.want.rc")"
		continue
	fi
	bad=""
	for how in default 50us $SEEDS; do
		(cd "$WORK" && run "$exe.$how" "$exe" $(record_flags "$exe" "$how"))
		if ! same "$exe.want" "$exe.$how"; then
			bad="$bad recording $how: $(why "$exe.want" "$exe.$how");"
			continue
		fi
		(cd "$WORK" && run "$exe.$how.rep" "$exe" --replay "$exe.$how.bin")
		same "$exe.$how" "$exe.$how.rep" ||
			bad="$bad replay $how: $(why "$exe.$how" "$exe.$how.rep");"
	done
	[ -z "$bad" ] && pass "$name: as with glibc, recorded (default, 50us slices, --chaos $SEEDS) and replayed" ||
		fail "$name:$bad"
done

# A socketpair between green threads carries the program's own pieces: its transfers'
# counts are not logged (a socket to another process's are: tests/durability).
if [ -e "$WORK/socketpair_pingpong.101.bin" ]; then
	n=$("$ROOT/build/bin/replay-dump" "$WORK/socketpair_pingpong.101.bin" 2>/dev/null | grep -c 'INPUT *kind 22 ')
	check "socketpair_pingpong: no transfer count logged between green threads (${n:-?})" test "${n:-1}" = 0
fi

# Readiness from outside: the line arrives 0.2 s late while the worker runs. Replays
# get it on time, at once (the replay must still wait for the logged moment) and late
# (the replay waits in the kernel for it). Read with read(), then with stdio's fgets:
# either way the worker must have run while main waited.
if [ $# -eq 0 ]; then
	exe=$WORK/outside_input
	if "$SICC" -O2 -g -w -o "$exe" outside_input.c >"$WORK/build.log" 2>&1; then
		for api in read stdio; do
			arg=""
			[ $api = stdio ] && arg=stdio
			for seed in 0 $SEEDS; do
				chaos=""
				[ $seed = 0 ] || chaos="--chaos=$seed"
				out=$exe.$api.$seed
				(sleep 0.2; echo "hello from outside") | run "$out" "$exe" --record "$out.bin" $chaos $arg
				if ! grep -q "^read: hello from outside" "$out" || [ "$(cat "$out.rc")" != 0 ] ||
					grep -q "rounds while waiting: 0$" "$out"; then
					fail "outside_input $api $seed: recording: $(why "$out" "$out")"
					continue
				fi
				bad=""
				for feed in "sleep 0.2" "true" "sleep 0.6"; do
					(eval "$feed"; echo "hello from outside") |
						run "$out.rep" "$exe" --replay "$out.bin" $arg
					same "$out" "$out.rep" || bad="$bad fed after '$feed': $(why "$out" "$out.rep");"
				done
				[ -z "$bad" ] && pass "outside_input $api ${chaos:-default}: $(tail -n 1 "$out"), replayed with the line on time, early and late" ||
					fail "outside_input $api $seed:$bad"
			done
		done
	else
		fail "outside_input: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
	fi
fi
# The chunking of TCP: every recording replays to its own output, however the kernel
# splits the bytes this time (without IO_COUNT records about 1 tcp_loopback recording
# in 20 diverged: one read more or less).
if [ $# -eq 0 ]; then
	# recorded NAME HOW... : record $WORK/NAME with each HOW (default, 50us, a seed) and
	# replay it; prints the failures, and the distinct first lines of the recordings.
	recorded() {
		local name=$1 exe=$WORK/$1 bad="" how
		shift
		for how in "$@"; do
			(cd "$WORK" && run "$exe.$how" "$exe" $(record_flags "$exe" "$how"))
			if [ "$(cat "$exe.$how.rc")" != 0 ]; then
				bad="$bad recording $how: $(why "$exe.$how" "$exe.$how");"
				continue
			fi
			(cd "$WORK" && run "$exe.$how.rep" "$exe" --replay "$exe.$how.bin")
			same "$exe.$how" "$exe.$how.rep" ||
				bad="$bad replay $how: $(why "$exe.$how" "$exe.$how.rep");"
		done
		echo "$bad"
	}
	if "$SICC" -O2 -g -w -o "$WORK/tcp_chunks" tcp_chunks.c >"$WORK/build.log" 2>&1; then
		bad=$(recorded tcp_chunks default 50us $SEEDS)
		reads=$(for how in default 50us $SEEDS; do
			sed -n 's/^blocking: .* in \([0-9]*\) reads.*/\1/p' "$WORK/tcp_chunks.$how"
		done | sort -un | tr '\n' ' ')
		[ -z "$bad" ] && pass "tcp_chunks: recorded (default, 50us, --chaos $SEEDS) and replayed to the same counts (reads: $reads)" ||
			fail "tcp_chunks:$bad"
	else
		fail "tcp_chunks: build: $(head -n 3 "$WORK/build.log" | tr '\n' ' ')"
	fi
	if [ -x "$WORK/tcp_loopback" ]; then
		bad=$(recorded tcp_loopback $TCP_SEEDS)
		[ -z "$bad" ] && pass "tcp_loopback: recorded with --chaos $(echo $TCP_SEEDS | cut -d' ' -f1)..$(echo $TCP_SEEDS | rev | cut -d' ' -f1 | rev) and replayed, every one" ||
			fail "tcp_loopback (chaos seeds):$bad"
	fi
fi

summary
