#!/bin/bash
# The counting invariant on real code: build each program in progs/ with sicc at
# several optimisation levels, single-step it with sicstep, and require that no
# (count, PC) pair repeats, that the program exits 0 and that it prints what the same
# source prints when built with plain gcc. Then two controls:
#   - negative: a program whose counting points were deleted from its instrumented
#     assembly must make sicstep report a repeat (the tracer can see a violation);
#   - cross-check: sicstep's fast mode (foreign code runs free between breakpoints)
#     must see exactly the pairs that --step-all (every instruction stepped) sees.
# Prints "PASS name flags" / "FAIL name flags: why" per case, then "N passed, M failed";
# exits 1 if any failed. Needs what `make` builds (build/bin/sicc, build/bin/sicpp,
# build/lib/libreplay.a) and gcc. JOBS=n sets the parallelism (default: CPUs);
# KEEP=1 keeps the work directory even when everything passes.
export LIBREPLAY_OPTS=--no-record # ptrace and re-exec do not mix: this suite checks the counter
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sicc=$root/build/bin/sicc
sicpp=$root/build/bin/sicpp
for f in "$sicc" "$sicpp" "$root/build/lib/libreplay.a"; do
	if [ ! -e "$f" ]; then
		echo "run.sh: $f is missing: run make first" >&2
		exit 2
	fi
done
cc=${CC:-gcc}
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
max_steps=3000000

mkdir -p "$root/build/invariant"
work=$(mktemp -d "$root/build/invariant/run.XXXXXX")
sicstep=$work/sicstep
$cc -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter "$here/sicstep.c" -o "$sicstep"

# name|flags, one per case.
cases=()
for p in "$here"/progs/*.c; do
	name=$(basename "$p" .c)
	case $name in *-*) continue ;; esac # NAME-*.c: another file of NAME's program
	for o in -O0 -O2 -O3; do
		cases+=("$name|$o")
	done
	case $name in
	recursion | callbacks | fnptr | tailcalls) cases+=("$name|-O2 -fPIC") ;;
	leaves) cases+=("$name|-O2 -fPIC" "$name|-O2 -g" "$name|-Os") ;;
	xfiles) cases+=("$name|-O2 -g") ;; # -g: cross-file entries with line rows (sicpp/dwarf.c)
	loops | switch) cases+=("$name|-Os") ;;
	esac
done

# The program's sources besides NAME.c: NAME-*.c, built like it (calls between files);
# hand-written NAME-*.s, which sicc would leave alone, are instrumented with sicpp
# first (into the case's directory).
extra_sources() { # name dir instrument(0/1)
	local s
	for s in "$here/progs/$1"-*.c; do
		case $s in *-foreign.c) continue ;; esac
		[ -e "$s" ] && echo "$s"
	done
	# NAME-foreign.c: foreign code that leaves r15 alone (gcc -ffixed-r15, not
	# instrumented), as a library may: its callbacks find the token (the fast path).
	s=$here/progs/$1-foreign.c
	if [ -e "$s" ]; then
		if [ "$3" = 1 ]; then
			$cc -O2 -ffixed-r15 -c "$s" -o "$2/$1-foreign.o" || return 1
			echo "$2/$1-foreign.o"
		else
			echo "$s"
		fi
	fi
	for s in "$here/progs/$1"-*.s; do
		[ -e "$s" ] || continue
		if [ "$3" = 1 ]; then
			"$sicpp" "$s" -o "$2/$(basename "$s" .s).sic.s" || return 1
			echo "$2/$(basename "$s" .s).sic.s"
		else
			echo "$s"
		fi
	done
}

# What each program prints when built without instrumentation.
reference() { # name -> $work/ref/name.out
	local name=$1 dir=$work/ref/$1 extra
	mkdir -p "$dir"
	extra=$(extra_sources "$name" "$dir" 0)
	# shellcheck disable=SC2086
	if ! $cc -O0 -w "$here/progs/$name.c" $extra -o "$dir/prog" >"$dir/build.log" 2>&1; then
		echo "reference build failed" >"$work/ref/$name.err"
		return 0
	fi
	(cd "$dir" && ./prog >"$work/ref/$name.out" 2>/dev/null) || echo "reference run failed" >"$work/ref/$name.err"
	return 0
}

# One case: build, trace, check. Writes "PASS ..." or "FAIL ...: why" to $dir/result.
run_case() { # index name flags
	local i=$1 name=$2 flags=$3 dir=$work/case$1 extra rc
	mkdir -p "$dir"
	local label="$name $flags"
	if [ -e "$work/ref/$name.err" ]; then
		echo "FAIL $label: $(cat "$work/ref/$name.err") (see $work/ref/$name)" >"$dir/result"
		return 0
	fi
	if ! extra=$(extra_sources "$name" "$dir" 1 2>"$dir/build.log"); then
		echo "FAIL $label: sicpp failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	# Each C file compiled alone, then the objects linked, as make does: sicc's link
	# step sees them and lets calls between files skip counts no cycle needs
	# (docs/sic.md, "Calls between files").
	local objs="" s
	for s in "$here/progs/$name.c" $extra; do
		case $s in
		*.c)
			# shellcheck disable=SC2086
			"$sicc" $flags -c "$s" -o "$dir/$(basename "$s" .c).o" >>"$dir/build.log" 2>&1 ||
				{ echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"; return 0; }
			objs+=" $dir/$(basename "$s" .c).o" ;;
		*) objs+=" $s" ;;
		esac
	done
	# shellcheck disable=SC2086
	if ! "$sicc" $flags $objs -o "$dir/prog" >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	rc=0
	(cd "$dir" && timeout 300 "$sicstep" --max-steps $max_steps ./prog >"$dir/stdout" 2>"$dir/stderr") || rc=$?
	if [ $rc -ne 0 ]; then
		local why
		why=$(grep -m1 -e '^sicstep: FAIL' -e 'stopped at the step limit' "$dir/stderr" | sed 's/^sicstep: \(FAIL: \)\{0,1\}//' || true)
		[ -n "$why" ] || why="sicstep exited with status $rc"
		# The runtime's own complaint, if it made one.
		local said
		said=$(grep -m1 '^libreplay: ' "$dir/stderr" || true)
		[ -z "$said" ] || why="$why; $said"
		echo "FAIL $label: $why (see $dir/stderr)" >"$dir/result"
		return 0
	fi
	if ! cmp -s "$dir/stdout" "$work/ref/$name.out"; then
		echo "FAIL $label: output differs from the uninstrumented build (see $dir/stdout)" >"$dir/result"
		return 0
	fi
	echo "PASS $label" >"$dir/result"
}

# expect_repeat DIR LABEL: single-step DIR/prog, a negative control: sicstep must
# report a (count, PC) repeat. The verdict goes to DIR/result.
expect_repeat() {
	local dir=$1 label=$2 rc=0
	(cd "$dir" && timeout 300 "$sicstep" ./prog >"$dir/stdout" 2>"$dir/stderr") || rc=$?
	if [ $rc -eq 1 ] && grep -q '^sicstep: (count, pc) repeats: ' "$dir/stderr"; then
		echo "PASS $label" >"$dir/result"
	else
		echo "FAIL $label: sicstep did not report a repeat (status $rc, see $dir/stderr)" >"$dir/result"
	fi
}

# The negative control: loops.c at -O2 with every counting point (decq %r15 and its
# jz to the overflow stub) deleted from the instrumented assembly.
negative_control() {
	local dir=$work/negative
	mkdir -p "$dir"
	local label="negative-control (loops -O2, counting points deleted)"
	if ! "$sicc" -O2 -S "$here/progs/loops.c" -o "$dir/broken.s" >"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	local before
	before=$(grep -c '^[[:space:]]*decq[[:space:]]*%r15$' "$dir/broken.s" || true)
	sed -e '/^[[:space:]]*decq[[:space:]]*%r15$/d' -e '/^[[:space:]]*jz[[:space:]]*\.Lsic_ov_[0-9]*$/d' \
		"$dir/broken.s" >"$dir/broken.nocount.s"
	if [ "${before:-0}" -eq 0 ] || grep -q 'decq[[:space:]]*%r15' "$dir/broken.nocount.s"; then
		echo "FAIL $label: found no counting point to delete" >"$dir/result"
		return 0
	fi
	if ! "$sicc" "$dir/broken.nocount.s" -o "$dir/prog" >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	expect_repeat "$dir" "$label"
}

# The leaves' controls: leaves.c at -O2 with the counts that replace a leaf's return
# count deleted from its instrumented assembly (what the script deletes: a perl
# expression over the file), each must make sicstep report a repeat.
leaf_control() { # id what expression
	local dir=$work/leaf-$1
	mkdir -p "$dir"
	local label="leaf control (leaves -O2, $2 deleted)"
	if ! extra=$(extra_sources leaves "$dir" 1 2>"$dir/build.log") ||
		! "$sicc" -O2 -S "$here/progs/leaves.c" -o "$dir/leaves.s" >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	perl -0pe "$3" "$dir/leaves.s" >"$dir/broken.s"
	if cmp -s "$dir/leaves.s" "$dir/broken.s"; then
		echo "FAIL $label: found no count to delete" >"$dir/result"
		return 0
	fi
	# shellcheck disable=SC2086
	if ! "$sicc" "$dir/broken.s" $extra -o "$dir/prog" >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	expect_repeat "$dir" "$label"
}
leaf_count='\tdecq\t%r15\n(\.Lsic_np_\d+:\n)\tjz\t\.Lsic_ov_\d+\n'
# (a global leaf's count is its cross-file entry too: its label stays, sicpp/xcall.c)
leaf_entries='s/(movq\t__sic_home\(%rip\), %r15\n(?:\t\.globl\t\S+\.sic_xcall\n\t\.hidden\t\S+\.sic_xcall\n\S+\.sic_xcall:\n)?)'"$leaf_count"'/$1$2/g'
# (every call has its anchor too, the race build's name for it: sicpp/races.c)
leaf_calls='s/'"$leaf_count"'(\.Lsic_rt_\d+:\n(?:\.Lsic_an_\d+:\n)?\tcall\tbump\n)/$1$2/g'
leaf_pure_calls='s/'"$leaf_count"'(\.Lsic_rt_\d+:\n(?:\.Lsic_an_\d+:\n)?\tcall\tmeasure\n)/$1$2/g'

# The return counts' control: retcount.c's loop passes no count but step's returns (a
# call to a function of the file that is no leaf: sicpp/analyze_loops.c drops the loop
# head's count); with them deleted from the -O2 assembly, pairs must repeat.
retcount_control() {
	local dir=$work/retcount
	mkdir -p "$dir"
	local label="return count control (retcount -O2, the counts before a bare ret deleted)"
	if ! "$sicc" -O2 -S "$here/progs/retcount.c" -o "$dir/retcount.s" >"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	perl -0pe 's/'"$leaf_count"'(\.Lsic_rt_\d+:\n(?:\.Lsic_an_\d+:\n)?\tret\n)/$1$2/g' "$dir/retcount.s" >"$dir/broken.s"
	if cmp -s "$dir/retcount.s" "$dir/broken.s"; then
		echo "FAIL $label: found no count to delete" >"$dir/result"
		return 0
	fi
	if ! "$sicc" "$dir/broken.s" -o "$dir/prog" >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	expect_repeat "$dir" "$label"
}

# The cross-file counts' control: xfiles.c and xfiles-other.c recurse into each other
# (here_down, other_down); sicc's link step keeps the cross-file entry's count of one of
# them (sicpp/sicc_link.c, feedback_set) and points the other's at its direct entry.
# Linked with both pointed there (the kept count skipped too), pairs must repeat. At
# -O2 -g too, where the kept count is a thunk with a line row (sicpp/rewrite.c).
xfiles_control() { # flags dir
	local dir=$work/$2 o
	mkdir -p "$dir"
	local label="cross-file control (xfiles $1, the cycle's kept count skipped)"
	for o in xfiles xfiles-other; do
		"$sicc" $1 -c "$here/progs/$o.c" -o "$dir/$o.o" >>"$dir/build.log" 2>&1 ||
			{ echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"; return 0; }
	done
	if ! "$sicc" $1 "$dir/xfiles.o" "$dir/xfiles-other.o" -o "$dir/prog" \
		-Wl,--defsym=here_down.sic_xcall=here_down.sic_direct \
		-Wl,--defsym=other_down.sic_xcall=other_down.sic_direct >>"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	if objdump -d "$dir/prog" | grep -q 'call.*_down\.sic_xcall>'; then
		echo "FAIL $label: a call still goes to a cross-file entry" >"$dir/result"
		return 0
	fi
	expect_repeat "$dir" "$label"
}

# The cross-check: fast mode and --step-all must agree on the set of pairs.
cross_check() { # index name flags
	local dir=$work/cross$1 name=$2 flags=$3 a b
	mkdir -p "$dir"
	local label="cross-check $name $flags (fast mode vs --step-all)"
	# shellcheck disable=SC2086
	if ! "$sicc" $flags "$here/progs/$name.c" -o "$dir/prog" >"$dir/build.log" 2>&1; then
		echo "FAIL $label: build failed (see $dir/build.log)" >"$dir/result"
		return 0
	fi
	(cd "$dir" && timeout 300 "$sicstep" ./prog >/dev/null 2>"$dir/fast.stderr") || true
	(cd "$dir" && timeout 300 "$sicstep" --step-all ./prog >/dev/null 2>"$dir/all.stderr") || true
	# The summaries without the step counts: how the program ended, its steps in
	# instrumented code, the distinct pairs and their digest, the repeats.
	a=$(sed -n 's/^sicstep: [^ ]* \(.*\); [0-9]* steps ([^)]*), /\1; /p' "$dir/fast.stderr")
	b=$(sed -n 's/^sicstep: [^ ]* \(.*\); [0-9]* steps ([^)]*), /\1; /p' "$dir/all.stderr")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		echo "PASS $label" >"$dir/result"
	else
		echo "FAIL $label: fast: '${a:-no summary}', step-all: '${b:-no summary}' (see $dir)" >"$dir/result"
	fi
}

start=$SECONDS
pool() { # run "$@" in the background, at most $jobs at a time
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	"$@" &
}

# The slow cross-checks first, so they overlap the rest. Between them they leave and
# re-enter instrumented code every way sicstep knows: calls out, callbacks through
# the foreign-entry stub, longjmp, PLT calls, tail calls to libc and through pointers.
crosses=("callbacks|-O2" "longjmp|-O0" "fnptr|-O2 -fPIC" "recursion|-O2" "tailcalls|-O2")
for i in "${!crosses[@]}"; do
	pool cross_check "$i" "${crosses[$i]%%|*}" "${crosses[$i]#*|}"
done
for p in "$here"/progs/*.c; do
	pool reference "$(basename "$p" .c)"
done
wait
pool negative_control
pool leaf_control entries "the leaves' entry checks' counts" "$leaf_entries"
pool leaf_control calls "the counts at calls to a static leaf" "$leaf_calls"
pool leaf_control pure "the counts at calls to a leaf that calls strlen" "$leaf_pure_calls"
pool retcount_control
pool xfiles_control -O2 xfiles-control
pool xfiles_control "-O2 -g" xfiles-control-g
for i in "${!cases[@]}"; do
	pool run_case "$i" "${cases[$i]%%|*}" "${cases[$i]#*|}"
done
wait

passed=0 failed=0
results=()
for i in "${!cases[@]}"; do
	results+=("$work/case$i/result")
done
results+=("$work/negative/result")
results+=("$work/leaf-entries/result" "$work/leaf-calls/result" "$work/leaf-pure/result")
results+=("$work/retcount/result")
results+=("$work/xfiles-control/result" "$work/xfiles-control-g/result")
for i in "${!crosses[@]}"; do
	results+=("$work/cross$i/result")
done
for r in "${results[@]}"; do
	if [ -s "$r" ]; then
		line=$(cat "$r")
	else
		line="FAIL $(dirname "$r"): no result"
	fi
	echo "$line"
	case $line in
	PASS*) passed=$((passed + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done
if [ "$failed" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
	rm -rf "$work"
else
	echo "(work directory kept: $work; $((SECONDS - start))s)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
