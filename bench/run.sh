#!/bin/bash
# bench/run.sh: the overhead of the software instruction counter alone (no recording,
# no scheduling): each benchmark built with plain `gcc -O2` and with `sicc -O2`, run
# alternately, compared by the median time of its self-timed kernel.
#
#   bench/run.sh                  (or `make bench`, which builds the tools first)
#
# Environment:
#   RUNS=N            timed runs of each build of each benchmark (default 7)
#   BENCH_CFLAGS=...  flags for both builds (default -O2)
#   FIXED_R15=1       also time `gcc -O2 -ffixed-r15`, to split the overhead into the
#                     cost of losing a register and the cost of the inserted code
#   CALLGRIND=1       also count the kernels' instructions under valgrind --tool=callgrind
#                     (deterministic; at CALLGRIND_SCALE percent of the work, default 5)
#   PIN=1             pin every run to the last CPU with taskset (off by default: on a
#                     small shared machine a pinned run cannot escape a busy neighbour)
#   SICC=PATH         another sicc to measure (default build/bin/sicc; its sicpp is the
#                     one beside it, as sicc itself runs that one)
#
# Numbers only: nothing here is asserted, except that both builds of a benchmark
# compute the same checksum. Results go to stdout and build/bench/sic-overhead.txt.
set -euo pipefail
# SIC-only: the instrumented builds run without recording (no timer ticks).
export LIBREPLAY_OPTS=--no-record

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/bench
SICC=${SICC:-$ROOT/build/bin/sicc}
SICPP=$(dirname "$SICC")/sicpp
RTLIB=$(dirname "$SICC")/../lib/libreplay.a
REPORT=$OUT/sic-overhead.txt

REQUIRED="matmul sort ptrchase interp" # the geometric mean is over these
EXTRA="qsort_cb"                       # shown, but outside the mean
ALL="$REQUIRED $EXTRA"

RUNS=${RUNS:-7}
CFLAGS_B=${BENCH_CFLAGS:--O2}
CALLGRIND=${CALLGRIND:-0}
CALLGRIND_SCALE=${CALLGRIND_SCALE:-5}
FIXED_R15=${FIXED_R15:-0}
PIN=${PIN:-0}

die() {
	echo "bench: $*" >&2
	exit 1
}

case $RUNS in '' | *[!0-9]*) die "RUNS=$RUNS: want a positive number" ;; esac
[ "$RUNS" -ge 1 ] || die "RUNS=$RUNS: want a positive number"
[ "$RUNS" -ge 5 ] || echo "bench: warning: RUNS=$RUNS; medians of fewer than 5 runs are fragile" >&2
if [ ! -x "$SICC" ] || [ ! -x "$SICPP" ] || [ ! -f "$RTLIB" ]; then
	die "$SICC, $SICPP or $RTLIB missing: run make first"
fi
# The toolchain under test, to notice a rebuild half-way through our builds.
toolchain_id() {
	cat "$SICC" "$SICPP" "$RTLIB" | cksum | cut -d' ' -f1
}
TOOLCHAIN=$(toolchain_id)

VARIANTS="plain sic"
[ "$FIXED_R15" = 1 ] && VARIANTS="plain r15 sic"

# PIN=1: every run on the same CPU (the last one), no migrations.
RUNNER=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null 2>&1; then
	CPU=$(($(nproc) - 1))
	if taskset -c "$CPU" true 2>/dev/null; then
		RUNNER=(taskset -c "$CPU")
	fi
fi

mkdir -p "$OUT"

# ---- build -----------------------------------------------------------------------
echo "bench: building into $OUT" >&2
for b in $ALL; do
	src=$ROOT/bench/$b.c
	# shellcheck disable=SC2086 # BENCH_CFLAGS is a list of words
	gcc $CFLAGS_B -o "$OUT/$b.plain" "$src" || die "$b: gcc failed"
	# shellcheck disable=SC2086
	"$SICC" $CFLAGS_B -o "$OUT/$b.sic" "$src" || die "$b: sicc failed"
	if [ "$FIXED_R15" = 1 ]; then
		# shellcheck disable=SC2086
		gcc $CFLAGS_B -ffixed-r15 -o "$OUT/$b.r15" "$src" || die "$b: gcc -ffixed-r15 failed"
	fi
	# The static counts: what sicpp inserted into this file.
	# shellcheck disable=SC2086
	gcc $CFLAGS_B -ffixed-r15 -S -o "$OUT/$b.s" "$src" || die "$b: gcc -S failed"
	"$SICPP" --stats "$OUT/$b.s" -o "$OUT/$b.sic.s" 2>"$OUT/$b.stats" ||
		die "$b: sicpp failed: $(cat "$OUT/$b.stats")"
	# An instrumented binary must carry the counter, or we would measure nothing.
	# (The disassembly stays beside it, for reading the hot loops.)
	objdump -d --no-show-raw-insn "$OUT/$b.sic" >"$OUT/$b.sic.dis"
	grep -Eq '(dec|xchg)[[:space:]]+(%rcx,)?%r15' "$OUT/$b.sic.dis" ||
		die "$b: no counting point in $OUT/$b.sic: is sicc instrumenting?"
done

[ "$(toolchain_id)" = "$TOOLCHAIN" ] ||
	die "sicc, sicpp or libreplay.a changed while the benchmarks were being built: run again"

# One run of a build: sets SECS and SUM; dies loudly on any failure. Not to be run in
# a subshell, or die would leave only that.
run_one() { # bench variant
	local line name rc=0
	line=$("${RUNNER[@]}" "$OUT/$1.$2") || rc=$?
	[ "$rc" = 0 ] || die "$OUT/$1.$2 failed (exit $rc)"
	SECS='' SUM=''
	read -r name SECS SUM <<<"$line"
	if [ "$name" != "$1" ] || [ -z "$SECS" ] || [ -z "$SUM" ]; then
		die "$1.$2: unexpected output '$line'"
	fi
}

# ---- checksums: one untimed warm-up run of each build, which must agree -------------
echo "bench: warm-up and checksum check" >&2
declare -A CHECKSUM
for b in $ALL; do
	for v in $VARIANTS; do
		run_one "$b" "$v"
		if [ "$v" = plain ]; then
			CHECKSUM[$b]=$SUM
		elif [ "$SUM" != "${CHECKSUM[$b]}" ]; then
			die "CHECKSUM MISMATCH: $b.$v computed $SUM but $b.plain ${CHECKSUM[$b]}: the instrumented program computes something else"
		fi
	done
done

# ---- timed runs: rounds, each build once per round, the order rotating --------------
RAW=$OUT/raw.txt # round bench variant seconds checksum
: >"$RAW"
nvar=$(wc -w <<<"$VARIANTS")
for ((r = 1; r <= RUNS; r++)); do
	printf 'bench: round %d/%d\n' "$r" "$RUNS" >&2
	# Rotate the order of the builds by one every round (AB BA AB ... for two), so
	# neither build always runs first after the other's cache and frequency state.
	order=$(tr ' ' '\n' <<<"$VARIANTS" |
		awk -v k=$(((r - 1) % nvar)) -v n="$nvar" '{ v[NR - 1] = $0 } END { for (i = 0; i < n; i++) print v[(i + k) % n] }')
	for b in $ALL; do
		for v in $order; do
			run_one "$b" "$v"
			[ "$SUM" = "${CHECKSUM[$b]}" ] ||
				die "CHECKSUM MISMATCH: $b.$v computed $SUM in round $r, $b.plain ${CHECKSUM[$b]}"
			echo "$r $b $v $SECS $SUM" >>"$RAW"
		done
	done
done

# ---- statistics ----------------------------------------------------------------------
median() { # numbers on stdin
	sort -g | awk '{ x[NR] = $1 } END { if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
times_of() { # bench variant
	awk -v b="$1" -v v="$2" '$2 == b && $3 == v { print $4 }' "$RAW"
}
# Per-round ratios variant/plain: the runs of one round ran back to back.
paired_ratios() { # bench variant
	awk -v b="$1" -v v="$2" '$2 == b && $3 == "plain" { p[$1] = $4 } $2 == b && $3 == v { s[$1] = $4 }
		END { for (r in p) if (r in s && p[r] > 0) print s[r] / p[r] }' "$RAW"
}

machine() {
	local model
	model=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
	[ -n "$model" ] || model=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
	echo "${model:-unknown CPU}, $(nproc) CPUs online, $(uname -sr), $(gcc --version | head -1)"
}

{
	echo "SIC-only overhead: gcc $CFLAGS_B (plain) vs sicc $CFLAGS_B (sic)"
	echo "machine: $(machine)"
	echo "method:  median kernel time of $RUNS runs per build; builds alternated within each round"
	pinned=""
	[ ${#RUNNER[@]} -eq 0 ] || pinned=", every run under ${RUNNER[*]}"
	echo "         (order rotated every round)$pinned; checksums of all runs equal"
	echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	rev=$(git -C "$ROOT" describe --always --dirty 2>/dev/null) || rev="(not a git tree)"
	echo "tree:    $rev; sicc: $SICC (toolchain cksum $TOOLCHAIN)"
	echo
	hdr=$(printf '%-10s %10s' benchmark "plain (s)")
	[ "$FIXED_R15" = 1 ] && hdr+=$(printf ' %10s %8s' "r15 (s)" "r15/pl")
	hdr+=$(printf ' %10s %8s %8s  %s' "sic (s)" "sic/pl" "best" "per-round sic/pl: median [min .. max]")
	echo "$hdr"
	echo "$hdr" | tr -c '\n' '-'
	LOGS=""
	LOGS_R15=""
	LOGS_BEST=""
	FASTER=no
	for b in $ALL; do
		if [ "$b" = "${EXTRA%% *}" ]; then
			echo "extra (outside the mean):"
		fi
		mp=$(times_of "$b" plain | median)
		ms=$(times_of "$b" sic | median)
		ratio=$(awk -v s="$ms" -v p="$mp" 'BEGIN { printf "%.3f", s / p }')
		pr=$(paired_ratios "$b" sic | sort -g)
		prm=$(median <<<"$pr")
		line=$(printf '%-10s %10.4f' "$b" "$mp")
		if [ "$FIXED_R15" = 1 ]; then
			mr=$(times_of "$b" r15 | median)
			rr=$(awk -v s="$mr" -v p="$mp" 'BEGIN { printf "%.3f", s / p }')
			line+=$(printf ' %10.4f %8s' "$mr" "$rr")
			case " $REQUIRED " in *" $b "*) LOGS_R15+=" $rr" ;; esac
		fi
		# best: fastest sic over fastest plain; interference only ever adds time
		best=$(awk -v s="$(times_of "$b" sic | sort -g | head -1)" \
			-v p="$(times_of "$b" plain | sort -g | head -1)" 'BEGIN { printf "%.3f", s / p }')
		line+=$(printf ' %10.4f %8s %8s  %.3f [%.3f .. %.3f]' "$ms" "$ratio" "$best" "$prm" \
			"$(head -1 <<<"$pr")" "$(tail -1 <<<"$pr")")
		if awk -v r="$ratio" 'BEGIN { exit !(r < 0.97) }'; then
			line+=" *"
			FASTER=yes
		fi
		echo "$line"
		case " $REQUIRED " in *" $b "*) LOGS+=" $ratio" LOGS_BEST+=" $best" ;; esac
	done
	if [ "$FASTER" = yes ]; then
		echo "* faster instrumented: machine noise, or the inserted code moved a hot loop or branch"
		echo "  to a luckier address; not a gain (bench/README.md, 'Code layout'; CALLGRIND=1)"
	fi
	gm() { tr ' ' '\n' | awk 'NF { s += log($1); n++ } END { printf "%.3f", exp(s / n) }'; }
	g=$(gm <<<"$LOGS")
	echo
	printf 'geometric mean sic/plain over %s: %s  (overhead %+.1f %%; goal <= +5 %%)\n' \
		"${REQUIRED// /,}" "$g" "$(awk -v g="$g" 'BEGIN { print (g - 1) * 100 }')"
	printf 'geometric mean of the best-run ratios:   %s\n' "$(gm <<<"$LOGS_BEST")"
	if [ "$FIXED_R15" = 1 ]; then
		g15=$(gm <<<"$LOGS_R15")
		printf 'geometric mean r15/plain (the register alone):  %s\n' "$g15"
	fi

	echo
	echo "static counts inserted by sicpp --stats (gcc $CFLAGS_B -ffixed-r15 -S, then sicpp):"
	printf '%-10s %9s %9s %8s %8s %10s\n' benchmark "counting" "flag-" "entry" "local" "publishing"
	printf '%-10s %9s %9s %8s %8s %10s\n' "" "points" "preserv." "checks" "calls" "calls"
	for b in $ALL; do
		s=$(cat "$OUT/$b.stats")
		# sicpp: F: 12 counting points (1 flag-preserving), 2 entry checks, 0 calls kept local, ...
		read -r cp fp ec lc pc <<<"$(sed -n 's/.*: \([0-9]*\) counting points (\([0-9]*\) flag-preserving), \([0-9]*\) entry checks, \([0-9]*\) calls kept local, \([0-9]*\) calls publish.*/\1 \2 \3 \4 \5/p' <<<"$s")"
		if [ -z "${pc:-}" ]; then
			printf '%-10s %s\n' "$b" "$s"
		else
			printf '%-10s %9s %9s %8s %8s %10s\n' "$b" "$cp" "$fp" "$ec" "$lc" "$pc"
		fi
	done

	# ---- hardware instruction counts, when the machine has them ----------------------
	echo
	perf_ok=no
	if command -v perf >/dev/null 2>&1; then
		first=$(perf stat -x, -e instructions:u true 2>&1 >/dev/null | head -1 | cut -d, -f1) || true
		case $first in '' | *[!0-9]*) ;; *) perf_ok=yes ;; esac
	fi
	if [ "$perf_ok" = yes ]; then
		echo "instructions retired (perf stat -e instructions:u, whole program incl. setup, one run):"
		printf '%-10s %16s %16s %8s\n' benchmark plain sic sic/pl
		for b in $ALL; do
			for v in plain sic; do
				perf stat -x, -e instructions:u -o "$OUT/$b.$v.perf" \
					"${RUNNER[@]}" "$OUT/$b.$v" >/dev/null || die "$b.$v failed under perf"
			done
			ip=$(grep instructions "$OUT/$b.plain.perf" | cut -d, -f1)
			is=$(grep instructions "$OUT/$b.sic.perf" | cut -d, -f1)
			printf '%-10s %16s %16s %8s\n' "$b" "$ip" "$is" \
				"$(awk -v s="$is" -v p="$ip" 'BEGIN { printf "%.3f", s / p }')"
		done
	else
		echo "instructions retired: not measured (perf stat -e instructions does not work here)"
	fi

	# ---- callgrind: exact instruction counts of the kernels --------------------------
	if [ "$CALLGRIND" = 1 ]; then
		echo
		if ! command -v valgrind >/dev/null 2>&1 || [ ! -e /usr/include/valgrind/callgrind.h ]; then
			echo "callgrind: not measured (valgrind or valgrind/callgrind.h missing)"
		else
			echo "kernel instructions under callgrind (deterministic, at $CALLGRIND_SCALE % of the work):"
			printf '%-10s %16s %16s %8s\n' benchmark plain sic sic/pl
			for b in $ALL; do
				src=$ROOT/bench/$b.c
				# shellcheck disable=SC2086
				gcc $CFLAGS_B -DBENCH_CALLGRIND -o "$OUT/$b.cg.plain" "$src" || die "$b: gcc failed"
				# shellcheck disable=SC2086
				"$SICC" $CFLAGS_B -DBENCH_CALLGRIND -o "$OUT/$b.cg.sic" "$src" || die "$b: sicc failed"
				for v in plain sic; do
					valgrind --tool=callgrind --collect-atstart=no \
						--callgrind-out-file="$OUT/$b.$v.callgrind" \
						"$OUT/$b.cg.$v" "$CALLGRIND_SCALE" >/dev/null 2>"$OUT/$b.$v.valgrind" ||
						die "$b.cg.$v failed under valgrind: see $OUT/$b.$v.valgrind"
				done
				ip=$(awk '/^(summary|totals):/ { print $2; exit }' "$OUT/$b.plain.callgrind")
				is=$(awk '/^(summary|totals):/ { print $2; exit }' "$OUT/$b.sic.callgrind")
				printf '%-10s %16s %16s %8s\n' "$b" "$ip" "$is" \
					"$(awk -v s="$is" -v p="$ip" 'BEGIN { printf "%.3f", s / p }')"
			done
		fi
	fi
	echo
	echo "raw times: $RAW (round benchmark build seconds checksum)"
} | tee "$REPORT"
echo "bench: report written to $REPORT" >&2
