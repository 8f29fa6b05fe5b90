#!/bin/bash
# realprogs.sh: what the counter costs real open-source C programs, fetched as Debian
# source packages (tests/lib/debsrc.sh, cached under build/debsrc) and built twice from
# the same sources and flags: with gcc and with sicc. Nothing is asserted but that both
# builds give the same answers.
#
#   sqlite   sqlite3's amalgamation (made by its own configure; needs tclsh) and its
#            test/speedtest1.c: `speedtest1 --memdb --singlethread --verify --size N`
#   lua      Lua 5.4's interpreter (its src/*.c) running bench/real/bench.lua
#   zstd     zstd's command (programs/*.c and lib/, no assembly) in benchmark mode:
#            `zstd -b3 -i0` on a fixed input of ZSTD_MB MiB made from its own sources
#
# For each: instructions, D1 and LL misses of one run under valgrind's cachegrind
# (deterministic: the decision metric on a loaded machine), wall and CPU time medians
# of RUNS rounds that alternate the builds, code size (.text and the stubs of the
# program's own objects, summed and as linked), and the compile time of each build (CPU seconds of the
# compiler, summed over the files). Code layout is randomised between rounds: each
# round links the objects in another order behind a padding object of another size
# (LAYOUTS layouts), the same for both builds, so that a lucky or unlucky placement of
# a hot loop is not taken for the counter's cost.
#
#   bench/realprogs.sh                    report in build/bench/realprogs.txt
#   RUNS=9 LAYOUTS=3 bench/realprogs.sh   more rounds (default 5) and layouts (3)
#   PROGS=lua CG=0 bench/realprogs.sh     one program, no cachegrind
#   BENCH_CFLAGS="-O2 -g"                 other flags for both builds (the -O2 -g column);
#                                         each flag set builds in a directory of its own
#   SQLITE_SIZE=25 LUA_SCALE=400          the timed work (cachegrind runs CG_SQLITE_SIZE
#                                         = 10 and CG_LUA_SCALE = 100)
#   SICC=/tmp/old/bin/sicc                another toolchain
#   SICC_BEFORE=/tmp/old/bin/sicc         also a third build, "before", with that toolchain:
#                                         cachegrind, time and code size side by side with sicc's
#   BREAKDOWN=1                           also where the extra instructions go, by kind of
#                                         inserted code (callgrind, bench/breakdown.py)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/lib/debsrc.sh"
SICC=${SICC:-$ROOT/build/bin/sicc}
CFLAGS_B=${BENCH_CFLAGS:--O2}
# each flag set its own objects: -O2 and -O2 -g side by side
OUT=$ROOT/build/bench/real
[ "$CFLAGS_B" = -O2 ] || OUT=$OUT/$(tr -c 'A-Za-z0-9=\n' _ <<<"$CFLAGS_B")
RUNS=${RUNS:-5}
LAYOUTS=${LAYOUTS:-3}
CG=${CG:-1}
PROGS=${PROGS:-"sqlite lua zstd"}
SQLITE_SIZE=${SQLITE_SIZE:-25}
CG_SQLITE_SIZE=${CG_SQLITE_SIZE:-10}
LUA_SCALE=${LUA_SCALE:-400}
CG_LUA_SCALE=${CG_LUA_SCALE:-100}
ZSTD_MB=${ZSTD_MB:-32}
CG_ZSTD_MB=${CG_ZSTD_MB:-8}
SICC_BEFORE=${SICC_BEFORE:-}
BREAKDOWN=${BREAKDOWN:-0}
VARIANTS="plain sic"
[ -n "$SICC_BEFORE" ] && VARIANTS="plain before sic"
REPORT=$ROOT/build/bench/realprogs.txt
RAW=$OUT/raw.txt

die() { echo "realprogs: $*" >&2; exit 1; }
[ -x "$SICC" ] || die "no $SICC (run make first)"
[ -z "$SICC_BEFORE" ] || [ -x "$SICC_BEFORE" ] || die "no $SICC_BEFORE"
mkdir -p "$OUT" || die "cannot make $OUT"
: >"$RAW"
exec > >(tee "$REPORT")

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'; }

# compile SRC OBJ CC FLAGS...: one object, its compiler's CPU seconds appended to $OUT/ctime.<tag>
compile() {
	local src=$1 obj=$2 cc=$3 tag=$4
	shift 4
	local t
	t=$( { TIMEFORMAT='%U %S'; time "$cc" $CFLAGS_B "$@" -c "$src" -o "$obj" 2>"$obj.err"; } 2>&1 ) ||
		die "$cc $src failed: $(head -n 3 "$obj.err")"
	awk -v t="$t" 'BEGIN { split(t, a, " "); print a[1] + a[2] }' >>"$OUT/ctime.$tag"
}

# Objects are rebuilt only when the toolchain or the flags changed.
stamp() {
	local t
	for t in "$SICC" $SICC_BEFORE; do
		cat "$t" "$(dirname "$t")/sicpp" "$(dirname "$t")/../lib/libreplay.a" 2>/dev/null | md5sum | cut -c1-12
	done
	echo "$CFLAGS_B $VARIANTS"
}

# The compiler of build V (plain, before, sic).
cc_of() { case $1 in plain) echo gcc ;; before) echo "$SICC_BEFORE" ;; *) echo "$SICC" ;; esac; }

# ---- sqlite ---------------------------------------------------------------------------
sqlite_build() {
	local src amal
	src=$(debsrc_fetch sqlite3) || die "sqlite3 source"
	amal=$OUT/sqlite-amal
	if [ ! -s "$amal/sqlite3.c" ]; then
		command -v tclsh >/dev/null || die "tclsh missing (tcl): sqlite's amalgamation needs it"
		mkdir -p "$amal" && (cd "$amal" && "$src/configure" >configure.log 2>&1 && make sqlite3.c >make.log 2>&1) ||
			die "sqlite3.c: see $amal/make.log"
	fi
	SQ_SRC="$amal/sqlite3.c $src/test/speedtest1.c"
	SQ_INC="-I$amal"
	SQ_LIBS="-lm -ldl -lpthread"
}

# ---- lua --------------------------------------------------------------------------------
lua_build() {
	local src
	src=$(debsrc_fetch lua5.4) || die "lua5.4 source"
	mkdir -p "$OUT/lua-inc"
	# Debian's luaconf.h includes a header its packaging generates
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$OUT/lua-inc/lua5.4-deb-multiarch.h"
	local f
	LUA_SRC=""
	for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser \
		lstate lstring ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib \
		lmathlib loadlib loslib lstrlib ltablib lutf8lib linit lua; do
		LUA_SRC+=" $src/src/$f.c"
	done
	LUA_INC="-I$OUT/lua-inc -DLUA_USE_LINUX -DLUA_COMPAT_5_3"
	LUA_LIBS="-lm -ldl -Wl,-E"
}

# ---- zstd -------------------------------------------------------------------------------
# The command line tool from libzstd's source, single-threaded, its x86 assembly (Huffman
# decoding) left out: the C fallback is what both compilers build. Its input: the
# library's own C sources, repeated to MB MiB (the same bytes for both builds).
zstd_build() {
	local src f
	src=$(debsrc_fetch libzstd) || die "libzstd source"
	ZSTD_SRC=""
	for f in "$src"/lib/common/*.c "$src"/lib/compress/*.c "$src"/lib/decompress/*.c "$src"/lib/dictBuilder/*.c \
		"$src"/programs/*.c; do
		ZSTD_SRC+=" $f"
	done
	ZSTD_INC="-I$src/lib -I$src/lib/common -I$src/programs -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -DBACKTRACE_ENABLE=0"
	ZSTD_LIBS=""
	local mb
	for mb in "$ZSTD_MB" "$CG_ZSTD_MB"; do
		[ -s "$OUT/zstd-in.$mb" ] && continue
		mkdir -p "$OUT" && cat "$src"/lib/*/*.c >"$OUT/zstd-in.one" &&
			while [ "$(stat -c %s "$OUT/zstd-in.$mb.tmp" 2>/dev/null || echo 0)" -lt $((mb << 20)) ]; do
				cat "$OUT/zstd-in.one" >>"$OUT/zstd-in.$mb.tmp"
			done && head -c $((mb << 20)) "$OUT/zstd-in.$mb.tmp" >"$OUT/zstd-in.$mb" && rm -f "$OUT/zstd-in.$mb.tmp" ||
			die "zstd input"
	done
}

# build_objects PROG SRCS INC: $OUT/PROG/{plain,sic}/*.o, compile times in ctime.*
build_objects() {
	local p=$1 srcs=$2 inc=$3 s
	local st
	st=$(stamp)
	if [ -e "$OUT/$p/stamp" ] && [ "$(cat "$OUT/$p/stamp")" = "$st" ]; then
		return 0
	fi
	rm -rf "${OUT:?}/$p"
	local v
	for v in $VARIANTS; do
		mkdir -p "$OUT/$p/$v" && : >"$OUT/ctime.$p.$v"
	done
	for s in $srcs; do
		local o
		o=$(basename "$s" .c).o
		for v in $VARIANTS; do
			# shellcheck disable=SC2086
			compile "$s" "$OUT/$p/$v/$o" "$(cc_of $v)" "$p.$v" $inc
		done
	done
	echo "$st" >"$OUT/$p/stamp"
}

# link_layouts PROG LIBS: $OUT/PROG/{plain,sic}.L<i>, i < LAYOUTS. Layout 0 links the
# objects in their order; layout i > 0 puts a padding object of 64*i+16*(i%3) bytes
# of code first and shuffles the objects (seed i).
link_layouts() {
	local p=$1 libs=$2 i v
	for ((i = 0; i < LAYOUTS; i++)); do
		local pad=$OUT/$p/pad$i.o objs
		{
			printf '\t.text\n\t.globl\t__bench_pad%d\n__bench_pad%d:\n' "$i" "$i"
			[ "$i" = 0 ] || printf '\t.skip\t%d, 0x90\n' $((64 * i + 16 * (i % 3)))
			printf '\t.section .note.GNU-stack,"",@progbits\n'
		} >"$pad.s"
		as "$pad.s" -o "$pad" || die "pad"
		for v in $VARIANTS; do
			objs=$(cd "$OUT/$p/$v" && ls *.o | awk -v s="$i" 'BEGIN { srand(s + 1) } { print (s ? rand() : NR), $0 }' | sort -g | cut -d' ' -f2 |
				sed "s|^|$OUT/$p/$v/|" | tr '\n' ' ')
			local cc
			cc=$(cc_of $v)
			# shellcheck disable=SC2086
			"$cc" $CFLAGS_B -o "$OUT/$p/$v.L$i" -Wl,-Map="$OUT/$p/$v.L$i.map" "$pad" $objs $libs \
				2>"$OUT/$p/$v.L$i.err" ||
				die "$p $v: link failed: $(head -n 3 "$OUT/$p/$v.L$i.err")"
		done
	done
}

# The command line of PROG's build V (plain, sic) at layout L with work W.
cmdline() {
	local p=$1 v=$2 l=$3 w=$4 exe=$OUT/$1/$2.L$3 pre=""
	[ "$v" != plain ] && pre="--no-record --"
	case $p in
	sqlite) echo "$exe $pre --memdb --singlethread --verify --size $w" ;;
	lua) echo "$exe $pre $ROOT/bench/real/bench.lua $w" ;;
	zstd) echo "$exe $pre -q -b3 -i0 $OUT/zstd-in.$w" ;;
	esac
}

# What must agree between the builds (timings dropped).
answer() {
	case $1 in
	sqlite) grep '^Verification Hash' ;;
	lua) cat ;;
	zstd) sed -E 's/[0-9.]+ *MB\/s//g; s/ +/ /g' ;; # the ratio and sizes, no speeds
	esac
}

work_of() { case $1 in sqlite) echo "$SQLITE_SIZE" ;; lua) echo "$LUA_SCALE" ;; zstd) echo "$ZSTD_MB" ;; esac; }
cg_work_of() { case $1 in sqlite) echo "$CG_SQLITE_SIZE" ;; lua) echo "$CG_LUA_SCALE" ;; zstd) echo "$CG_ZSTD_MB" ;; esac; }

# text_size DIR: bytes of .text* (the stubs' section included) over the objects; and of
# .text.sic_stubs and .eh_frame alone.
text_size() {
	local d=$1
	size -A "$d"/*.o | awk '$1 ~ /^\.text/ { t += $2 } $1 == ".text.sic_stubs" { s += $2 } $1 == ".eh_frame" { e += $2 }
		END { printf "%d %d %d\n", t, s, e }'
}

# linked_text_size MAP DIR: bytes of the .text* input sections of DIR's objects that the
# link kept (ld's map): each shim of a direct call once (a COMDAT group per callee),
# where text_size counts it in every object that calls the callee.
linked_text_size() {
	awk -v dir="$2/" '
		function hex(s,  i, c, v) {
			v = 0
			for (i = 3; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1)))
				v = v * 16 + c - 1
			}
			return v
		}
		function add(size, file) { if (index(file, dir) == 1) t += hex(size) }
		/^Linker script and memory map/ { on = 1; next }
		!on { next }
		pending { pending = 0; if ($1 ~ /^0x/ && NF >= 3) add($2, $3); next }
		/^ \.text/ { if (NF >= 4) add($3, $4); else pending = 1 }
		END { printf "%d\n", t }' "$1"
}

echo "realprogs: the counter on real programs, gcc against sicc ($CFLAGS_B), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) CPUs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for p in $PROGS; do
	case $p in
	sqlite) sqlite_build; build_objects sqlite "$SQ_SRC" "$SQ_INC"; link_layouts sqlite "$SQ_LIBS" ;;
	lua) lua_build; build_objects lua "$LUA_SRC" "$LUA_INC"; link_layouts lua "$LUA_LIBS" ;;
	zstd) zstd_build; build_objects zstd "$ZSTD_SRC" "$ZSTD_INC"; link_layouts zstd "$ZSTD_LIBS" ;;
	*) die "unknown program $p (sqlite, lua, zstd)" ;;
	esac
	# the same answers
	w=$(cg_work_of "$p")
	# shellcheck disable=SC2046
	$(cmdline "$p" plain 0 "$w") 2>/dev/null | answer "$p" >"$OUT/$p/answer.plain"
	# shellcheck disable=SC2046
	$(cmdline "$p" sic 0 "$w") 2>/dev/null | answer "$p" >"$OUT/$p/answer.sic"
	[ -s "$OUT/$p/answer.plain" ] && cmp -s "$OUT/$p/answer.plain" "$OUT/$p/answer.sic" ||
		die "$p: the builds disagree (see $OUT/$p/answer.*)"
	if [ -n "$SICC_BEFORE" ]; then
		# shellcheck disable=SC2046
		$(cmdline "$p" before 0 "$w") 2>/dev/null | answer "$p" >"$OUT/$p/answer.before"
		cmp -s "$OUT/$p/answer.plain" "$OUT/$p/answer.before" || die "$p: the builds disagree (see $OUT/$p/answer.*)"
	fi
done

# ---- cachegrind ----------------------------------------------------------------------------
if [ "$CG" = 1 ]; then
	command -v valgrind >/dev/null || die "valgrind missing"
	echo "1. One run each under cachegrind (whole process, deterministic), layout 0:"
	printf '   %-8s %-6s %16s %12s %12s\n' program build instructions "D1 misses" "LL misses"
	for p in $PROGS; do
		w=$(cg_work_of "$p")
		for v in $VARIANTS; do
			f=$OUT/$p/cg.$v
			# shellcheck disable=SC2046
			valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$f" \
				$(cmdline "$p" $v 0 "$w") >/dev/null 2>"$f.err" || die "$p $v failed under valgrind: $f.err"
			# events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
			read -r ir d1 ll <<<"$(awk '/^summary:/ { print $2, $6 + $9, $4 + $7 + $10 }' "$f")"
			echo "cg $p $v $ir $d1 $ll" >>"$RAW"
			printf '   %-8s %-6s %16s %12s %12s\n' "$p" "$v" "$ir" "$d1" "$ll"
		done
		read -r ip is ib <<<"$(awk -v p="$p" '$1 == "cg" && $2 == p { v[$3] = $4 } END { print v["plain"], v["sic"], v["before"] }' "$RAW")"
		[ -n "$SICC_BEFORE" ] && printf '   %-8s before/plain instructions %s\n' "$p" "$(ratio "$ib" "$ip")"
		printf '   %-8s sic/plain instructions %s\n' "$p" "$(ratio "$is" "$ip")"
	done
	echo "   (work: sqlite --size $CG_SQLITE_SIZE, lua scale $CG_LUA_SCALE %, zstd $CG_ZSTD_MB MiB)"
	[ -n "$SICC_BEFORE" ] && echo "   (before: $SICC_BEFORE; sic: $SICC)"
	echo
fi

# ---- where the extra instructions go ------------------------------------------------------------
if [ "$BREAKDOWN" = 1 ]; then
	command -v valgrind >/dev/null || die "valgrind missing"
	echo "1b. Where the extra instructions go: one run each under callgrind (per instruction),"
	echo "    each of the sicc build's instructions put in a class by what sicpp inserted there"
	echo "    (bench/breakdown.py); per mille of the plain build's instructions."
	for p in $PROGS; do
		w=$(cg_work_of "$p")
		for v in $VARIANTS; do
			# shellcheck disable=SC2046
			valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no --compress-strings=no \
				--callgrind-out-file="$OUT/$p/callgrind.$v" $(cmdline "$p" $v 0 "$w") >/dev/null 2>"$OUT/$p/callgrind.$v.err" ||
				die "$p $v failed under callgrind: $OUT/$p/callgrind.$v.err"
		done
		for v in $VARIANTS; do
			[ $v = plain ] && continue
			echo "   $p, build $v ($(cc_of $v)):"
			LIBREPLAY_A="$(dirname "$(cc_of $v)")/../lib/libreplay.a" python3 "$ROOT/bench/breakdown.py" \
				"$OUT/$p/$v.L0" "$OUT/$p/callgrind.$v" "$OUT/$p/callgrind.plain" || die "$p: breakdown failed"
		done
	done
	echo
fi

# ---- time ----------------------------------------------------------------------------------
echo "2. Time: $RUNS rounds, each runs every build of every program back to back, order"
echo "   rotated each round, layout (round mod $LAYOUTS); wall and CPU (user+sys) seconds."
echo "   Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < RUNS; r++)); do
	l=$((r % LAYOUTS))
	for p in $PROGS; do
		w=$(work_of "$p")
		# the builds in turn, starting one further each round
		read -r -a vs <<<"$VARIANTS"
		order=""
		for ((k = 0; k < ${#vs[@]}; k++)); do order+=" ${vs[(r + k) % ${#vs[@]}]}"; done
		for v in $order; do
			t=$( { TIMEFORMAT='%R %U %S'; time $(cmdline "$p" $v $l "$w") >/dev/null 2>&1; } 2>&1 | tail -n 1)
			echo "time $r $p $v $l $t" >>"$RAW"
		done
	done
done
echo "   Load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
printf '   %-8s %10s %10s %8s %10s %10s %8s %s\n' program "plain wall" "sic wall" ratio "plain cpu" "sic cpu" ratio "per-round cpu ratios"
geo_w="" geo_c=""
for p in $PROGS; do
	pw=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "plain" { print $6 }' "$RAW" | median)
	sw=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "sic" { print $6 }' "$RAW" | median)
	pc=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "plain" { print $7 + $8 }' "$RAW" | median)
	sc=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "sic" { print $7 + $8 }' "$RAW" | median)
	rr=$(awk -v p="$p" '$1 == "time" && $3 == p { c[$2 " " $4] = $7 + $8 } END { for (k in c) { split(k, a, " "); if (a[2] == "sic") printf "%.2f ", c[k] / c[a[1] " plain"] } }' "$RAW")
	printf '   %-8s %10s %10s %8s %10s %10s %8s %s\n' "$p" "$pw" "$sw" "$(ratio "$sw" "$pw")" "$pc" "$sc" "$(ratio "$sc" "$pc")" "$rr"
	if [ -n "$SICC_BEFORE" ]; then
		bw=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "before" { print $6 }' "$RAW" | median)
		bc=$(awk -v p="$p" '$1 == "time" && $3 == p && $4 == "before" { print $7 + $8 }' "$RAW" | median)
		printf '   %-8s %10s %10s %8s %10s %10s %8s (before)\n' "$p" "$pw" "$bw" "$(ratio "$bw" "$pw")" "$pc" "$bc" "$(ratio "$bc" "$pc")"
	fi
	geo_w+=" $(ratio "$sw" "$pw")"
	geo_c+=" $(ratio "$sc" "$pc")"
done
gm() { tr ' ' '\n' | awk 'NF && $1 != "-" { s += log($1); n++ } END { if (n) printf "%.3f", exp(s / n); else print "-" }'; }
echo "   geometric mean sic/plain: wall $(gm <<<"$geo_w"), CPU $(gm <<<"$geo_c")"
if [ "$CG" = 1 ]; then
	geo_i=$(for p in $PROGS; do awk -v p="$p" '$1 == "cg" && $2 == p { v[$3] = $4 } END { printf "%.4f ", v["sic"] / v["plain"] }' "$RAW"; done)
	echo "   geometric mean sic/plain instructions: $(gm <<<"$geo_i")"
fi
echo "   (work: sqlite --size $SQLITE_SIZE, lua scale $LUA_SCALE %, zstd $ZSTD_MB MiB; goal: 1.05 by instructions and by time)"
echo

# ---- code size and compile time ------------------------------------------------------------
echo "3. Code size of the programs' own objects (bytes) and compile time (compiler CPU seconds):"
printf '   %-8s %10s %10s %10s %8s %10s %10s %9s %9s %7s\n' program "plain .text" "sic .text" "of: stubs" ratio \
	".eh_frame" "sic's" "gcc cpu" "sicc cpu" ratio
for p in $PROGS; do
	read -r pt _ pe <<<"$(text_size "$OUT/$p/plain")"
	read -r st ss se <<<"$(text_size "$OUT/$p/sic")"
	if [ -n "$SICC_BEFORE" ]; then
		read -r bt bs be <<<"$(text_size "$OUT/$p/before")"
		printf '   %-8s %10s %10s %10s %8s %10s %10s   (before)\n' "$p" "$pt" "$bt" "$bs" "$(ratio "$bt" "$pt")" "$pe" "$be"
	fi
	gc=$(awk '{ s += $1 } END { printf "%.2f", s }' "$OUT/ctime.$p.plain" 2>/dev/null)
	scc=$(awk '{ s += $1 } END { printf "%.2f", s }' "$OUT/ctime.$p.sic" 2>/dev/null)
	printf '   %-8s %10s %10s %10s %8s %10s %10s %9s %9s %7s\n' "$p" "$pt" "$st" "$ss" "$(ratio "$st" "$pt")" "$pe" "$se" \
		"$gc" "$scc" "$(ratio "$scc" "$gc")"
done
echo "   (.text: every .text* section, the stubs' .text.sic_stubs included; goal 1.4. Compile times are"
echo "   of the last build of the objects, one compile each, on a machine with the load above; goal 1.2)"
echo "   Linked (layout 0): the objects' .text* sections the link kept, each callee's shim once:"
for p in $PROGS; do
	lp=$(linked_text_size "$OUT/$p/plain.L0.map" "$OUT/$p/plain")
	ls=$(linked_text_size "$OUT/$p/sic.L0.map" "$OUT/$p/sic")
	line=$(printf '   %-8s plain %10s  sic %10s  ratio %s' "$p" "$lp" "$ls" "$(ratio "$ls" "$lp")")
	if [ -n "$SICC_BEFORE" ]; then
		lb=$(linked_text_size "$OUT/$p/before.L0.map" "$OUT/$p/before")
		line="$line  (before: $lb, $(ratio "$lb" "$lp"))"
	fi
	echo "$line"
done
