#!/bin/bash
# bench/tls_paths.sh: what a switch costs on each way of loading a thread's TLS
# (--tls=ldt: a selector load, fsgsbase: wrfsbase, syscall: arch_prctl), side by side
# in one run: bench/switch.c built with sicc, `yield` and `cond`, --no-record, the
# paths alternated round by round; medians of CPU and wall time per handoff. A path
# this machine lacks (libreplay falls back and says so) is shown as such, not timed.
#
#   bench/tls_paths.sh                 # report in build/bench/tls-paths.txt
#   RUNS=15 HANDOFFS=10000000 bench/tls_paths.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/bench
W=$OUT/tls-paths
SICC=${SICC:-$ROOT/build/bin/sicc}
RUNS=${RUNS:-9}
N=${HANDOFFS:-2000000}
PATHS="ldt fsgsbase syscall"
mkdir -p "$W"
rm -f "$W"/*.yield "$W"/*.cond
"$SICC" -O2 -I"$ROOT/bench" -o "$W/switch" "$ROOT/bench/switch.c"

declare -A missing
for p in $PATHS; do
	warn=$("$W/switch" --no-record --tls=$p yield 1000 2>&1 >/dev/null | grep -v '^replay-bench' || true)
	[ -z "$warn" ] || missing[$p]=$warn
done
for r in $(seq "$RUNS"); do
	for mode in yield cond; do
		for p in $PATHS; do
			[ -z "${missing[$p]:-}" ] || continue
			"$W/switch" --no-record --tls=$p $mode "$N" 2>&1 >/dev/null |
				sed -n 's/^replay-bench //p' >>"$W/$p.$mode"
		done
	done
done

# median COLUMN FILE: the median of that column, in ns per handoff
median() {
	awk -v c="$1" -v n="$N" '{print $c * 1e9 / n}' "$2" | sort -g |
		awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m}'
}
{
	echo "# TLS paths: ns per handoff, medians of $RUNS runs of $N handoffs (CPU / wall)"
	printf '%-10s %-22s %-22s\n' path yield cond
	for p in $PATHS; do
		if [ -n "${missing[$p]:-}" ]; then
			printf '%-10s %s\n' $p "not here: ${missing[$p]}"
			continue
		fi
		printf '%-10s %-22s %-22s\n' $p "$(median 2 "$W/$p.yield") / $(median 1 "$W/$p.yield")" \
			"$(median 2 "$W/$p.cond") / $(median 1 "$W/$p.cond")"
	done
} | tee "$OUT/tls-paths.txt"
rm -f "$W"/*.yield "$W"/*.cond
