#!/bin/bash
# A program's own definitions win over libreplay's wrappers, as they win over libc's
# (issue 15; docs/pthread.md): libreplay.a defines the C library names it wraps weak,
# and binds its own calls to its own functions.
# 1. Every wrapped name (build/lib/libreplay.libc, the list the Makefile derives the
#    link and export lists from) defined as a global of the program in one file and
#    read from another: the link succeeds and each holds the program's value, and the
#    runtime, whose own calls under those names must not land in the program's data,
#    records the run and replays it.
# 2. names/own.c: its own send, poll, accept, read, sleep, time and pthread_create
#    next to C11 threads, a pipe, syscall(SYS_read) and stdin, which the runtime
#    serves (with its own pthread_create, read...): gcc's output, recorded, replayed.
. "$(dirname "$0")/../lib/common.sh"
W="$WORK/own_names"
mkdir -p "$W"
LIST="$ROOT/build/lib/libreplay.libc"
[ -s "$LIST" ] || { fail "own names: no $LIST (run make)"; summary; exit; }
n=$(wc -l <"$LIST")
weak=$(nm "$LIBREPLAY" | awk '$2 == "W" {print $3}' | sort -u | comm -12 - "$LIST" | wc -l)
if [ "$weak" -eq "$n" ]; then pass "libreplay.a defines all $n wrapped names weak"
else fail "libreplay.a defines $weak of the $n wrapped names weak"; fi

# 1. Every name a global of the program.
awk '{ printf "long %s = %d;\n", $1, NR }' "$LIST" >"$W/defs.c"
{
	echo 'int printf(const char *, ...);'
	awk '{ printf "extern long %s;\n", $1 }' "$LIST"
	echo 'static long *const value[] = {'
	awk '{ printf "\t&%s,\n", $1 }' "$LIST"
	echo '};'
	echo 'static const char *const name[] = {'
	awk '{ printf "\t\"%s\",\n", $1 }' "$LIST"
	echo '};'
	cat <<'MAIN'
int main(void)
{
	int n = sizeof value / sizeof value[0], own = 0;
	for (int i = 0; i < n; i++) {
		if (*value[i] == i + 1)
			own++;
		else
			printf("%s = %ld, not the program's %d\n", name[i], *value[i], i + 1);
		*value[i] = -*value[i];
	}
	printf("%d of %d names are the program's own\n", own, n);
	return own != n;
}
MAIN
} >"$W/uses.c"
if ! "$SICC" -O2 -fno-builtin -w -o "$W/all" "$W/defs.c" "$W/uses.c" >"$W/all.build" 2>&1; then
	fail "every wrapped name a global: sicc link: $(grep -m 2 -i 'multiple\|error' "$W/all.build" | tr '\n' ' ')"
else
	pass "every wrapped name a global: sicc links"
	(cd "$W" && ./all --record all.bin >all.rec 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -qx "$n of $n names are the program's own" "$W/all.rec"; then
		pass "... each is the program's own, recorded"
	else fail "... recording: exit $rc: $(head -n 3 "$W/all.rec" | tr '\n' ' ')"; fi
	(cd "$W" && ./all --replay all.bin >all.rep 2>&1); rc=$?
	if [ $rc -eq 0 ] && cmp -s "$W/all.rec" "$W/all.rep"; then pass "... replayed"
	else fail "... replay: exit $rc: $(head -n 3 "$W/all.rep" | tr '\n' ' ')"; fi
fi

# 2. The program's functions and the runtime's, side by side.
S="$ROOT/tests/e2e/names/own.c"
gcc -O2 -w -o "$W/own.gcc" "$S" -pthread && echo "a line" | "$W/own.gcc" >"$W/own.want" 2>&1 ||
	fail "own.c: gcc build or run"
if ! "$SICC" -O2 -g -w -o "$W/own" "$S" >"$W/own.build" 2>&1; then
	fail "own.c: sicc link: $(grep -m 2 -i 'multiple\|error' "$W/own.build" | tr '\n' ' ')"
else
	for i in 1 2 3; do
		(cd "$W" && echo "a line" | ./own --record own$i.bin --chaos=$i >own$i.rec 2>&1); rc=$?
		if [ $rc -ne 0 ] || ! cmp -s "$W/own.want" "$W/own$i.rec"; then
			fail "own.c, recording $i: exit $rc: $(diff "$W/own.want" "$W/own$i.rec" | head -n 4 | tr '\n' ' ')"
			continue
		fi
		(cd "$W" && echo "a line" | ./own --replay own$i.bin >own$i.rep 2>&1); rc=$?
		if [ $rc -ne 0 ] || ! cmp -s "$W/own$i.rec" "$W/own$i.rep"; then
			fail "own.c, replay $i: exit $rc: $(diff "$W/own$i.rec" "$W/own$i.rep" | head -n 4 | tr '\n' ' ')"
		else pass "own.c: the program's send, poll, read, sleep, time, pthread_create and the runtime's calls: as gcc, replayed ($i)"; fi
	done
fi
summary
