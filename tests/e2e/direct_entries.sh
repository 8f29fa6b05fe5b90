#!/bin/bash
# Direct entries (docs/sic.md): an instrumented call to another file's function goes to
# the callee's cross-file entry, then its direct entry, after its entry check, with the
# count in r15 (sicc's link step skips the cross-file entry's count where no cycle needs
# it); the caller's object carries a weak shim (count, publish, token, jump) for a
# callee that has none. Every
# way a callee can come into a link, each built with gcc and with sicc from the same
# sources (tests/e2e/direct/), must print what gcc's build prints, also with the
# counter overflowing every few counts: objects, an archive member (pulled in by the
# shim's reference), `ld -r`, a weak definition with and without a plain object's
# strong one, a shared library, code compiled with -g (its checks moved in front of
# .text: gdb's `break f` sees every call), and the names gdb gives the code after a
# direct entry.
. "$(dirname "$0")/../lib/common.sh"
S="$ROOT/tests/e2e/direct"
W="$WORK"
O="-O2 -w"

# same NAME EXE...: the sicc-built EXE prints what $W/ref prints, also under stress.
same() {
	local name=$1 exe=$2 got
	got=$("$exe" --no-record 2>&1)
	[ "$got" = "$(cat "$W/ref.out")" ] || { fail "$name: '$got', gcc: '$(cat "$W/ref.out")'"; return 1; }
	got=$(LIBREPLAY_SIC_STRESS=29 "$exe" --no-record 2>&1)
	[ "$got" = "$(cat "$W/ref.out")" ] || { fail "$name under LIBREPLAY_SIC_STRESS: '$got'"; return 1; }
	pass "$name"
}

# is_inside EXE SYM FN: SYM's address lies inside function FN (FN's own direct entry,
# not a shim).
is_inside() {
	local a lo size
	a=$(nm "$1" | awk -v s="$2" '$NF == s { print $1 }')
	read -r lo size <<<"$(nm -S "$1" | awk -v f="$3" '$NF == f && NF == 4 { print $1, $2 }')"
	[ -n "$a" ] && [ -n "$lo" ] && (( 0x$a > 0x$lo && 0x$a < 0x$lo + 0x$size ))
}

gcc $O -o "$W/ref" "$S/main.c" "$S/callee.c" "$S/plain.c" && "$W/ref" >"$W/ref.out" ||
	{ fail "gcc reference build"; summary; exit 1; }
gcc $O -c "$S/plain.c" -o "$W/plain.o" &&
	"$SICC" $O -c "$S/main.c" -o "$W/main.o" &&
	"$SICC" $O -c "$S/callee.c" -o "$W/callee.o" || { fail "sicc -c"; summary; exit 1; }

check "the caller calls leaf's cross-file entry" bash -c "objdump -dr '$W/main.o' | grep -q 'R_X86_64_PLT32.leaf.sic_xcall'"
check "the caller carries weak shims (leaf, plain_fn)" bash -c \
	"readelf -sW '$W/main.o' | grep -E 'WEAK +HIDDEN .* leaf\.sic_xcall$' >/dev/null &&
	 readelf -sW '$W/main.o' | grep -E 'WEAK +HIDDEN .* plain_fn\.sic_xcall$' >/dev/null"
check "the callee defines the cross-file entries of leaf (its entry count) and bounce (a thunk)" bash -c \
	"readelf -sW '$W/callee.o' | grep -E 'NOTYPE +GLOBAL +HIDDEN .* leaf\.sic_xcall$' >/dev/null &&
	 readelf -sW '$W/callee.o' | grep -E 'NOTYPE +GLOBAL +HIDDEN .* bounce\.sic_xcall$' >/dev/null"
check "the callee defines leaf's direct entry (global, hidden, no type)" bash -c \
	"readelf -sW '$W/callee.o' | grep -E 'NOTYPE +GLOBAL +HIDDEN .* leaf\.sic_direct$' >/dev/null"
check "a weak function has no direct entry" bash -c "! nm '$W/callee.o' | grep -q 'weak_fn.sic_direct'"

# objects, linked by sicc
"$SICC" $O -o "$W/objs" "$W/main.o" "$W/callee.o" "$W/plain.o" &&
	same "objects" "$W/objs" &&
	check "objects: leaf's own direct entry won over the shim" is_inside "$W/objs" leaf.sic_direct leaf &&
	check "objects: plain_fn is reached through its shim" bash -c \
		"objdump -d '$W/objs' | awk '/<plain_fn.sic_xcall>:/ { s = 1; next } s && /jmp/ { print; exit }' | grep -q '<plain_fn>'"

# Calls between files (docs/sic.md, "Calls between files"): sicc's link step points the
# cross-file entries of functions no cycle of uncounted calls passes (non_leaf,
# taken_fn) at their direct entries; bounce and ping call each other across the files
# and keep the count of bounce's entry check's fast path; leaf's is its entry count;
# plain.c (gcc) calls leaf at its checked entry. Each way, recorded with a preemption
# every few counts and replayed.
xcalls() { # NAME EXE
	check "$1: main calls non_leaf's and taken_fn's direct entries" bash -c \
		"objdump -d '$2' | grep -q 'call.*<non_leaf.sic_direct>' && ! objdump -d '$2' | grep -q 'call.*<non_leaf.sic_xcall>' &&
		 objdump -d '$2' | grep -q 'call.*<taken_fn.sic_direct>' && ! objdump -d '$2' | grep -q 'call.*<taken_fn.sic_xcall>'"
	check "$1: the call to bounce goes to its cross-file entry, which counts" bash -c \
		"objdump -d '$2' | grep -q 'call.*<bounce.sic_xcall>' &&
		 objdump -d '$2' | awk '/<bounce.sic_xcall>:/ { s = 1; next } s { print; if (++n == 2) exit }' |
		 tr '\\n' ' ' | grep -Eq 'dec +%r15.*je .*<bounce.sic_stub'"
	# one count breaks the cycle (sicpp/sicc_link.c, feedback_set): bounce's, so ping's goes
	check "$1: the cycle keeps one count: bounce calls ping's direct entry" bash -c \
		"objdump -d '$2' | grep -q 'call.*<ping.sic_direct>' && ! objdump -d '$2' | grep -q 'call.*<ping.sic_xcall>'"
	check "$1: plain_fn (gcc) calls leaf at its checked entry" bash -c \
		"objdump -d '$2' | awk '/<plain_fn>:/ { s = 1; next } s && /call/ { print; exit }' | grep -q '<leaf>'"
	local log=$W/$1.log out rout
	out=$(LIBREPLAY_SIC_STRESS=29,preempt "$2" --record "$log" 2>&1) &&
		rout=$("$2" --replay "$log" 2>&1) &&
		[ "$out" = "$(cat "$W/ref.out")" ] && [ "$rout" = "$out" ] &&
		pass "$1: recorded with a preemption every 29 counts and replayed" ||
		fail "$1: record '$out', replay '$rout'"
}
xcalls objects "$W/objs"

# an archive: the member that defines leaf is pulled in by the shim's reference to leaf
rm -f "$W/libcallee.a" && ar rcs "$W/libcallee.a" "$W/callee.o" &&
	"$SICC" $O -o "$W/arch" "$W/main.o" "$W/plain.o" -L"$W" -lcallee &&
	same "archive member" "$W/arch" &&
	check "archive: leaf's own direct entry won" is_inside "$W/arch" leaf.sic_direct leaf &&
	xcalls archive "$W/arch"
# linked by hand (no link step of sicc's): every cross-file entry stays the callee's own
gcc $O -o "$W/byhand" "$W/main.o" "$W/callee.o" "$W/plain.o" "$ROOT/build/lib/libreplay.ld" \
	"$ROOT/build/lib/libreplay.a" -Wl,--dynamic-list="$ROOT/build/lib/libreplay.dynlist" \
	-Wl,--export-dynamic-symbol='__sic_*' &&
	same "linked by gcc" "$W/byhand" &&
	check "linked by gcc: main calls non_leaf's and taken_fn's cross-file entries" bash -c \
		"objdump -d '$W/byhand' | grep -q 'call.*<non_leaf.sic_xcall>' &&
		 objdump -d '$W/byhand' | grep -q 'call.*<taken_fn.sic_xcall>'" &&
	check "linked by gcc: taken_fn's is a thunk that counts" bash -c \
		"objdump -d '$W/byhand' | awk '/<taken_fn.sic_xcall>:/ { s = 1; next } s { print; if (++n == 4) exit }' |
		 tr '\\n' ' ' | grep -Eq 'dec +%r15.*jne.*__sic_overflow.*jmp.*<taken_fn.sic_direct>'"

# -oFILE, and an older a.out beside: the link step reads the program just linked
cp "$W/objs" "$W/a.out" 2>/dev/null
(cd "$W" && "$SICC" $O -o"$W/ofile" "$W/main.o" "$W/callee.o" "$W/plain.o") &&
	same "linked with -oFILE" "$W/ofile" &&
	check "-oFILE: main calls non_leaf's direct entry" bash -c \
		"objdump -d '$W/ofile' | grep -q 'call.*<non_leaf.sic_direct>'"
rm -f "$W/a.out"

# compiled and linked by one command: no second link (it would compile again), the
# thunks stay
"$SICC" $O -o "$W/onestep" "$S/main.c" "$S/callee.c" "$W/plain.o" &&
	same "compiled and linked by one command" "$W/onestep" &&
	check "one command: main calls non_leaf's thunk" bash -c \
		"objdump -d '$W/onestep' | grep -q 'call.*<non_leaf.sic_xcall>'"

# ld -r, then a link
ld -r "$W/main.o" "$W/callee.o" -o "$W/both.o" &&
	"$SICC" $O -o "$W/relo" "$W/both.o" "$W/plain.o" &&
	same "ld -r" "$W/relo" &&
	check "ld -r: leaf's own direct entry won" is_inside "$W/relo" leaf.sic_direct leaf

# a plain object's strong weak_fn wins over the instrumented weak one: the shim reaches it
gcc $O -DSTRONG_WEAK_FN -o "$W/ref" "$S/main.c" "$S/callee.c" "$S/plain.c" && "$W/ref" >"$W/ref.out" &&
	gcc $O -DSTRONG_WEAK_FN -c "$S/plain.c" -o "$W/plain_strong.o" &&
	"$SICC" $O -o "$W/strong" "$W/main.o" "$W/callee.o" "$W/plain_strong.o" &&
	same "a plain strong definition over an instrumented weak one" "$W/strong"
gcc $O -o "$W/ref" "$S/main.c" "$S/callee.c" "$S/plain.c" && "$W/ref" >"$W/ref.out"

# a shared library (its calls to global functions keep the token; the program reaches
# it through its shims)
"$SICC" $O -shared -fPIC -o "$W/libcallee.so" "$S/callee.c" &&
	"$SICC" $O -o "$W/shlib" "$W/main.o" "$W/plain.o" -L"$W" -Wl,-Bdynamic -lcallee -Wl,-rpath,"$W" &&
	same "shared library" "$W/shlib" &&
	check "shared library: no direct entry exported" bash -c "! nm -D '$W/libcallee.so' | grep -q sic_direct"
rm -f "$W/libcallee.so"

# -g: direct entries where the entry check moves in front of .text (sicpp/dwarf.c: gdb
# puts `break f` on the body, which calls by name and through the symbol both reach;
# tests/gdb/direct.sh), mixed with objects built without
"$SICC" $O -g -c "$S/callee.c" -o "$W/callee_g.o" &&
	"$SICC" $O -g -c "$S/main.c" -o "$W/main_g.o" &&
	check "-g: direct entries, the symbol in front of .text" bash -c \
		"nm '$W/callee_g.o' | grep -q ' T leaf.sic_direct$' && [ \$(nm -n '$W/callee_g.o' | grep -m1 ' [Tt] ' | cut -c1-16) = 0000000000000000 ]" &&
	"$SICC" $O -o "$W/mixed" "$W/main.o" "$W/callee_g.o" "$W/plain.o" &&
	same "callees built with -g, callers without" "$W/mixed" &&
	"$SICC" $O -o "$W/mixed_g" "$W/main_g.o" "$W/callee_g.o" "$W/plain.o" &&
	same "callers and callees built with -g" "$W/mixed_g"

# gdb names the code after a direct entry after its function
if command -v gdb >/dev/null; then
	out=$(gdb -batch -nx -ex "x/2i 'leaf.sic_direct'" -ex "info symbol 'leaf.sic_direct'+1" "$W/objs" 2>&1)
	check "gdb: the instruction after leaf's direct entry is leaf+N" bash -c \
		"grep -q '<leaf+[0-9]*>:' <<<'$out' && grep -q '^leaf + [0-9]* in section' <<<'$out'"
	g=$(gdb -batch -nx -ex 'set startup-with-shell off' -ex 'break leaf' -ex 'run --no-record' -ex 'bt 2' "$W/mixed" 2>&1)
	check "gdb: break leaf (built with -g) stops the first call, from main" bash -c "grep -q 'in main ()' <<<'$g' || grep -q 'in by_value ()' <<<'$g'"
fi
summary
