#!/bin/bash
# codesize.sh: where sicc's code size goes (issue 16), on the programs of realprogs.sh
# (Lua 5.4's src/*.c and sqlite3's sqlite3.c amalgamation, fetched the same way).
# Each file is compiled at -O2 by gcc and by sicc (SICC_KEEP keeps sicpp's output),
# both assembled with a listing (as -aln), and bench/codesize.py sums the bytes of
# .text (every .text* section, the stubs included) by kind of instruction: gcc's own,
# alignment, and each kind sicpp inserts; then .eh_frame, with the stubs' FDEs apart.
# Deterministic (bytes); about 2 minutes.
#
#   bench/codesize.sh                     report in build/bench/codesize.txt
#   PROGS=lua SICC=/tmp/old/bin/sicc bench/codesize.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/lib/debsrc.sh"
SICC=${SICC:-$ROOT/build/bin/sicc}
OUT=$ROOT/build/bench/codesize
PROGS=${PROGS:-"lua sqlite"}
REPORT=$ROOT/build/bench/codesize.txt

die() { echo "codesize: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
command -v python3 >/dev/null || die "python3 missing"
rm -rf "$OUT" && mkdir -p "$OUT" || die "cannot make $OUT"
exec > >(tee "$REPORT")

# one PROG SRC FLAGS...: listings and objects of SRC by gcc and by sicc
one() {
	local p=$1 src=$2 b
	shift 2
	b=$(basename "$src" .c)
	mkdir -p "$OUT/$p/plain" "$OUT/$p/sic" "$OUT/$p/keep/$b"
	gcc -O2 "$@" -S "$src" -o "$OUT/$p/plain/$b.s" &&
		as -aln="$OUT/$p/plain/$b.lst" "$OUT/$p/plain/$b.s" -o "$OUT/$p/plain/$b.o" ||
		die "gcc $src failed"
	SICC_KEEP=$OUT/$p/keep/$b "$SICC" -O2 "$@" -c "$src" -o "$OUT/$p/keep/$b.o" ||
		die "sicc $src failed"
	as -aln="$OUT/$p/sic/$b.lst" "$OUT/$p/keep/$b"/*.s -o "$OUT/$p/sic/$b.o" ||
		die "as of sicpp's $b.s failed"
}

for p in $PROGS; do
	case $p in
	lua)
		src=$(debsrc_fetch lua5.4) || die "lua5.4 source"
		mkdir -p "$OUT/lua-inc"
		echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$OUT/lua-inc/lua5.4-deb-multiarch.h"
		for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser \
			lstate lstring ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib \
			lmathlib loadlib loslib lstrlib ltablib lutf8lib linit lua; do
			one lua "$src/src/$f.c" -I"$OUT/lua-inc" -DLUA_USE_LINUX -DLUA_COMPAT_5_3
		done ;;
	sqlite)
		amal=$ROOT/build/bench/real/sqlite-amal
		if [ ! -s "$amal/sqlite3.c" ]; then
			src=$(debsrc_fetch sqlite3) || die "sqlite3 source"
			command -v tclsh >/dev/null || die "tclsh missing (tcl): sqlite's amalgamation needs it"
			mkdir -p "$amal" && (cd "$amal" && "$src/configure" >configure.log 2>&1 && make sqlite3.c >make.log 2>&1) ||
				die "sqlite3.c: see $amal/make.log"
		fi
		one sqlite "$amal/sqlite3.c" -I"$amal" ;;
	*) die "unknown program $p (lua, sqlite)" ;;
	esac
	python3 "$ROOT/bench/codesize.py" "$OUT/$p/plain"/*.lst >"$OUT/$p/plain.kinds" || die "codesize.py"
	python3 "$ROOT/bench/codesize.py" "$OUT/$p/sic"/*.lst >"$OUT/$p/sic.kinds" || die "codesize.py"
	python3 "$ROOT/bench/codesize.py" --eh "$OUT/$p/plain"/*.o >"$OUT/$p/plain.eh" || die "codesize.py --eh"
	python3 "$ROOT/bench/codesize.py" --eh "$OUT/$p/sic"/*.o >"$OUT/$p/sic.eh" || die "codesize.py --eh"
	# the listings must account for every byte of .text
	for v in plain sic; do
		want=$(size -A "$OUT/$p/$v"/*.o | awk '$1 ~ /^\.text/ { t += $2 } END { print t }')
		got=$(awk -F'\t' '$1 !~ /^n\./ { t += $2 } END { print t }' "$OUT/$p/$v.kinds")
		[ "$want" = "$got" ] || die "$p $v: the kinds add up to $got bytes, .text has $want"
	done
done

echo "codesize: bytes of .text (every .text* section, stubs included), gcc -O2 and sicc -O2, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "(Lua 5.4: its src/*.c; sqlite: sqlite3.c alone; each kind's bytes as sicc adds them)"
for p in $PROGS; do
	echo
	awk -F'\t' -v p="$p" '
		FILENAME ~ /plain.kinds$/ { plain[$1] = $2; next }
		FILENAME ~ /sic.kinds$/ { sic[$1] = $2; next }
		FILENAME ~ /plain.eh$/ { peh[$1] = $2; next }
		{ seh[$1] = $2 }
		END {
			for (k in plain) if (k !~ /^n\./) pt += plain[k]
			for (k in sic) if (k !~ /^n\./) st += sic[k]
			printf "%-8s %-40s %10s %10s\n", p, "kind", "bytes", "of growth"
			printf "%-8s %-40s %10d\n", "", "gcc .text", pt
			n = split("token protocol at calls|count|count (flag-preserving)|stub:counting point|entry check|return protocol|stub:foreign entry|tail jump protocol|landing pad|yield jump|stub:yield|data in .text", ks, "|")
			for (i = 1; i <= n; i++)
				if (sic[ks[i]])
					printf "%-8s %-40s %10d %9.1f%%\n", "", ks[i], sic[ks[i]], 100 * sic[ks[i]] / (st - pt)
			split("gcc:jump|gcc:other|alignment", gs, "|")
			for (i = 1; i <= 3; i++)
				printf "%-8s %-40s %10d %9.1f%%\n", "", gs[i] " (change)", sic[gs[i]] - plain[gs[i]], 100 * (sic[gs[i]] - plain[gs[i]]) / (st - pt)
			printf "%-8s %-40s %10d  ratio %.3f\n", "", "sicc .text", st, st / pt
			printf "%-8s (%d counting points, %d entry checks)\n", "", sic["n.counting points"], sic["n.entry checks"]
			pe = peh["eh.CIE"] + peh["eh.FDEs of code"]
			se = seh["eh.CIE"] + seh["eh.FDEs of code"] + seh["eh.FDEs of stubs"]
			printf "%-8s %-40s %10d -> %d (stubs%s FDEs: %d bytes, %d FDEs)\n", "", ".eh_frame gcc -> sicc", pe, se, "\047", seh["eh.FDEs of stubs"], seh["n.FDEs of stubs"]
		}' "$OUT/$p/plain.kinds" "$OUT/$p/sic.kinds" "$OUT/$p/plain.eh" "$OUT/$p/sic.eh"
done
