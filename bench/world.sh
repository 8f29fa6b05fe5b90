#!/bin/bash
# world.sh: what self-contained recordings cost (docs/inputs.md, "The world"): the log
# now holds what the program read, and every call on a file or socket is a record.
# Measured side by side in one run, each recording replayed to the same stdout (a
# difference fails, exit 1; numbers are never asserted):
#   before  LIBREPLAY_BENCH_NO_WORLD=1: files and sockets read for real in both runs,
#           as before (a measuring aid)
#   after   the default: the world's calls logged, replayed from the log
# on three programs:
#   pzip    examples/pzip compressing MB megabytes (default 20) with 4 workers: log
#           bytes per second of recording and per byte of input, recording time
#   calls   bench/world_io.c: 2 threads x CALLS stat + pread of 4 KiB: ns per call
#   server  tests/hermetic's TCP server, recorded, answering REQS requests (default 300)
#           from its client (unrecorded, three requests a run)
# plus each program unrecorded (--no-record). Medians of RUNS (default 5).
#
#   bench/world.sh                 report in build/bench/world.txt
#   RUNS=3 MB=5 bench/world.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
W=$ROOT/build/bench/world
RUNS=${RUNS:-5}
MB=${MB:-20}
CALLS=${CALLS:-50000}
REQS=${REQS:-300}
REPORT=$ROOT/build/bench/world.txt
die() { echo "world: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
mkdir -p "$W" || die "cannot make $W"
exec > >(tee "$REPORT")
unset LIBREPLAY_OPTS

make -s -C "$ROOT/examples/pzip" clean >/dev/null 2>&1
make -s -C "$ROOT/examples/pzip" CC="$SICC" >"$W/pzip.build" 2>&1 || die "pzip: $(head -3 "$W/pzip.build")"
mv "$ROOT/examples/pzip/pzip" "$W/pzip"
make -s -C "$ROOT/examples/pzip" clean >/dev/null 2>&1
"$SICC" -O2 -o "$W/world_io" "$ROOT/bench/world_io.c" || die "sicc world_io.c"
"$SICC" -O2 -o "$W/tcp_client" "$ROOT/tests/hermetic/progs/tcp_client.c" || die "sicc tcp_client.c"
"$SICC" -O2 -o "$W/tcp_server" "$ROOT/tests/hermetic/progs/tcp_server.c" || die "sicc tcp_server.c"
awk -v mb="$MB" 'BEGIN { srand(7); n = 0
	while (n < mb * 1048576) { line = sprintf("%08d %s %.6f\n", NR++, (rand() < 0.5 ? "alpha" : "omega"), rand()); printf "%s", line; n += length(line) } }' \
	>"$W/pzip.in"
head -c 262144 "$W/pzip.in" >"$W/world_io.in"
cd "$W" || die "cd $W"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
failed=0
RAW=$W/raw.txt
: >"$RAW"

# run TAG PROG VARIANT CMD...: time one run (and, recording, its replay); appends
# "PROG VARIANT seconds logbytes" to $RAW.
run() {
	local prog=$1 variant=$2 t0 t1 bytes=0
	shift 2
	local env=()
	[ "$variant" = before ] && env=(LIBREPLAY_BENCH_NO_WORLD=1)
	local exe=$1
	shift
	case $variant in
	plain) t0=$(now); "$exe" --no-record -- "$@" >"$prog.$variant.out" 2>&1; t1=$(now) ;;
	*) rm -f "$prog.$variant.bin"
	   t0=$(now); env "${env[@]}" "$exe" --record "$prog.$variant.bin" -- "$@" >"$prog.$variant.out" 2>&1; t1=$(now)
	   bytes=$(stat -c %s "$prog.$variant.bin")
	   env "${env[@]}" "$exe" --replay "$prog.$variant.bin" >"$prog.$variant.rep" 2>&1
	   if ! cmp -s "$prog.$variant.out" "$prog.$variant.rep"; then
		   echo "FAILED: $prog $variant: the replay differs: $(head -c 200 "$prog.$variant.rep")"
		   failed=1
	   fi ;;
	esac
	echo "$prog $variant $(echo "$t1 - $t0" | bc -l) $bytes" >>"$RAW"
}

# clients: REQS requests to the server whose port is in ./port
clients() {
	for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
	for _ in $(seq 1 $((REQS / 3))); do ./tcp_client --no-record >/dev/null 2>&1 || break; done
}

# serve VARIANT: the server recorded (or not) answering REQS requests; its replay
# needs no client when recordings are self-contained, and gets them again before.
serve() {
	local v=$1 t0 t1 bytes=0 env=()
	[ "$v" = before ] && env=(LIBREPLAY_BENCH_NO_WORLD=1)
	rm -f port
	t0=$(now)
	if [ "$v" = plain ]; then ./tcp_server --no-record -- port $REQS >server.$v.out 2>&1 & spid=$!
	else env "${env[@]}" ./tcp_server --record server.$v.bin -- port $REQS >server.$v.out 2>&1 & spid=$!; fi
	clients
	wait "$spid"
	t1=$(now)
	if [ "$v" != plain ]; then
		bytes=$(stat -c %s server.$v.bin)
		rm -f port
		if [ "$v" = before ]; then
			env "${env[@]}" ./tcp_server --replay server.$v.bin >server.$v.rep 2>&1 & spid=$!
			clients
			wait "$spid"
		else
			./tcp_server --replay server.$v.bin >server.$v.rep 2>&1
		fi
		if ! cmp -s server.$v.out server.$v.rep; then
			echo "FAILED: server $v: the replay differs: $(head -c 200 server.$v.rep)"
			failed=1
		fi
	fi
	echo "server $v $(echo "$t1 - $t0" | bc -l) $bytes" >>"$RAW"
}

for r in $(seq 1 "$RUNS"); do
	for v in plain before after; do
		run pzip "$v" ./pzip -j 4 -b 128 -o /dev/null pzip.in
		run calls "$v" ./world_io "$CALLS"
		serve "$v"
	done
done

col() { awk -v p="$1" -v v="$2" -v c="$3" '$1 == p && $2 == v { print $c }' "$RAW" | median; }
inbytes=$(stat -c %s pzip.in)
echo "world.sh: self-contained recordings, medians of $RUNS runs (this machine: $(nproc) CPUs, shared)"
printf '%-8s %-7s %10s %12s %14s %14s\n' program variant seconds "log bytes" "log B/s" "log B/in B"
for p in pzip calls server; do
	for v in plain before after; do
		s=$(col $p $v 3); b=$(col $p $v 4)
		bps=-; bpi=-
		if [ "$v" != plain ]; then
			bps=$(echo "$b / $s" | bc -l | xargs printf '%.0f')
			[ $p = pzip ] && bpi=$(echo "$b / $inbytes" | bc -l | xargs printf '%.3f')
		fi
		printf '%-8s %-7s %10.3f %12s %14s %14s\n' $p $v "$s" "$b" "$bps" "$bpi"
	done
done
calls_total=$((CALLS * 2 * 2))
for v in plain before after; do
	s=$(col calls $v 3)
	printf 'calls %-7s %8.0f ns per call (stat or pread, %d calls)\n' $v "$(echo "$s * 1000000000 / $calls_total" | bc -l)" $calls_total
done
exit $failed
