#!/bin/bash
# logstore.sh: the log's size when a program's inputs are data (issue 29, "Small logs"):
# INPUT bytes stored as they are, compressed (zstd), by reference to an identical earlier
# payload, or both (the default). Never asserted; every log is read back and compared.
#
#   Data, 20 MB each (SIZE): text (man pages of sections 1 and 3, roff), source
#   (/usr/include), binary (gcc's cc1),
#   xz (an xz -1 file: incompressible).
#   1. bench/log_zstd.c: zstd's levels on each, per record (what the log does), per
#      256 KiB block and as one stream, for reads of 64 KiB and of 4 KiB (stdio's).
#   2. bench/log_store.c: each file read twice in 64 KiB reads through the log's writer
#      and reader alone: log bytes per byte read, first and second reading; writer and
#      reader MB/s, medians of RUNS runs.
#   3. bench/readtwice.c built with sicc: the same read() by a recorded program, with
#      LIBREPLAY_LOG_STORE=plain and by default, against the program built with gcc
#      and the sicc build run unrecorded (--no-record):
#      wall time (median of RUNS), log bytes per byte read and per second; each
#      recording replayed to the same output. (Until file reads are recorded inputs,
#      their bytes are not in this log: the numbers then measure only the rest; SIZE
#      bytes of /dev/urandom read twice are recorded today: the worst case, bytes
#      that neither compress nor repeat.)
#
#   bench/logstore.sh                       report in build/bench/logstore.txt
#   RUNS=5 SIZE=20000000 bench/logstore.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SICC=${SICC:-$ROOT/build/bin/sicc}
OUT=$ROOT/build/bench/logstore
RUNS=${RUNS:-3}
SIZE=${SIZE:-20000000}
REPORT=$ROOT/build/bench/logstore.txt

die() { echo "logstore: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
mkdir -p "$OUT" || die "cannot make $OUT"
exec > >(tee "$REPORT")
failed=0
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

gcc -O2 -o "$OUT/log_zstd" "$ROOT/bench/log_zstd.c" -lzstd || die "log_zstd.c"
gcc -std=gnu11 -O2 -D_GNU_SOURCE -I"$ROOT/libreplay" -o "$OUT/log_store" "$ROOT/bench/log_store.c" \
	"$ROOT/build/lib/libreplay-log.a" -lzstd || die "log_store.c"
"$SICC" -O2 -o "$OUT/readtwice" "$ROOT/bench/readtwice.c" || die "sicc readtwice.c"
gcc -O2 -o "$OUT/readtwice.gcc" "$ROOT/bench/readtwice.c" || die "gcc readtwice.c"

# The data, made once per SIZE.
D=$OUT/data-$SIZE
if [ ! -s "$D/xz" ]; then
	mkdir -p "$D"
	find /usr/share/man/man1 /usr/share/man/man3 -name '*.gz' 2>/dev/null | LC_ALL=C sort |
		xargs zcat 2>/dev/null | head -c "$SIZE" >"$D/text"
	find /usr/include -name '*.h' | LC_ALL=C sort | xargs cat 2>/dev/null | head -c "$SIZE" >"$D/source"
	head -c "$SIZE" "$(gcc -print-prog-name=cc1)" >"$D/binary"
	{ cat "$D/text" "$D/source" "$D/binary"; cat /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null; } |
		head -c $((SIZE * 5)) | xz -1 -T2 -c | head -c "$SIZE" >"$D/xz"
fi
for f in text source binary xz; do [ -s "$D/$f" ] || die "could not make $D/$f"; done

echo "logstore: INPUT bytes in the log, $(date -u +%Y-%m-%dT%H:%MZ); load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
echo "data: $(for f in text source binary xz; do printf '%s %s bytes; ' $f "$(stat -c %s "$D/$f")"; done)"
echo
echo "1. zstd per record, per 256 KiB block, one stream (out bytes per in byte, MB/s; median of $RUNS):"
for rd in 65536 4096; do
	for f in text source binary xz; do
		"$OUT/log_zstd" "$D/$f" "$rd" "$RUNS" | sed 's/^/   /'
	done
done
echo
echo "2. each file read twice in 64 KiB reads, the log's writer and reader alone (median of $RUNS):"
"$OUT/log_store" "$OUT" "$RUNS" "$D/text" "$D/source" "$D/binary" "$D/xz" | sed 's/^/   /' || failed=1
echo
echo "3. bench/readtwice.c (sicc -O2), each file read twice with read(2) in 64 KiB pieces (median of $RUNS):"
printf '   %-8s %-10s %9s %9s %12s %12s\n' file stored wall_s vs_gcc log_bytes per_byte_read
for f in text source binary xz urandom; do
	src=$D/$f max=
	[ "$f" = urandom ] && src=/dev/urandom max=$SIZE
	size=${max:-$(stat -c %s "$src")}
	g=$(for i in $(seq "$RUNS"); do { TIMEFORMAT=%R; time "$OUT/readtwice.gcc" "$src" $max >/dev/null; } 2>&1; done | median)
	for store in plain zstd+refs; do
		ts=
		for i in $(seq "$RUNS"); do
			log=$OUT/readtwice.$f.$store.bin
			t=$( { TIMEFORMAT=%R; time LIBREPLAY_LOG_STORE=$store "$OUT/readtwice" --record "$log" "$src" $max >"$log.out" 2>"$log.err"; } 2>&1 ) ||
				{ echo "logstore: readtwice $f $store: the recording failed ($log.err)" >&2; failed=1; }
			ts="$ts $t"
		done
		if ! "$OUT/readtwice" --replay "$log" "$src" $max >"$log.rep" 2>"$log.rep.err" || ! cmp -s "$log.out" "$log.rep"; then
			echo "logstore: readtwice $f $store: the replay differs ($log.*)" >&2
			failed=1
		fi
		w=$(printf '%s\n' $ts | median)
		b=$(stat -c %s "$log")
		printf '   %-8s %-10s %9.3f %9.2f %12d %12.4f\n' "$f" "$store" "$w" \
			"$(awk -v a="$w" -v b="$g" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$b" \
			"$(awk -v a="$b" -v b="$size" 'BEGIN { print a / (2 * b) }')"
	done
	n=$(for i in $(seq "$RUNS"); do { TIMEFORMAT=%R; time "$OUT/readtwice" --no-record "$src" $max >/dev/null; } 2>&1; done | median)
	printf '   %-8s %-10s %9.3f %9.2f\n' "$f" "(no record)" "$n" "$(awk -v a="$n" -v b="$g" 'BEGIN { print (b > 0 ? a / b : 0) }')"
	printf '   %-8s %-10s %9.3f\n' "$f" "(gcc)" "$g"
done
exit $failed
