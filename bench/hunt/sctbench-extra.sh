# bench/hunt/sctbench-extra.sh: SCTBench's buggy programs outside its
# concurrent-software-benchmarks (benchmarks/buggy.txt's other lines), for bench/hunt.sh
# part 4, which sources this file. Each program is one line:
#
#   sct_extra NAME BUILD "ARGS" ["HUNT-FLAGS"]
#
# NAME is the table's row; BUILD a function called as
#
#   BUILD NAME CC CXX EXE RUNDIR
#
# that builds the executable EXE from $SCTBENCH/benchmarks with the compilers CC and CXX
# (build/bin/sicc and sic++ for the hunted build, gcc and g++ for the native column) at
# SCTBench's own flags (its build.py / build.sh), works in a copy (the checkout is never
# written), and puts the input files a run needs into RUNDIR, the runs' working directory.
# It returns non-zero when the program does not build, its output saying why. ARGS are
# the program's arguments (SCTBench's run.py / run.sh, num_threads=2 as its settings.sh);
# HUNT-FLAGS more replay-hunt flags (--jobs 1 for a program whose runs share a file).
#
# A program that cannot be built here is a line `sct_extra_out NAME "why"`: part 4
# prints it under the table.

SCT_EXTRA=""
declare -A SCT_EXTRA_BUILD=() SCT_EXTRA_ARGS=() SCT_EXTRA_FLAGS=() SCT_EXTRA_OUT=()
sct_extra() {
	SCT_EXTRA="$SCT_EXTRA $1"
	SCT_EXTRA_BUILD[$1]=$2
	SCT_EXTRA_ARGS[$1]=$3
	SCT_EXTRA_FLAGS[$1]=${4:-}
}
sct_extra_out() { SCT_EXTRA_OUT[$1]=$2; }

# sct_copy SUBDIR DEST: a fresh copy of benchmarks/SUBDIR to build in.
sct_copy() {
	rm -rf "$2" && mkdir -p "$2" && cp -r "$SCTBENCH/benchmarks/$1/." "$2/"
}

# ---- sctA: chess, conc-bugs, inspect_examples, inspect_benchmarks, safestack ---------

# chess/build.py: g++ FILE -std=c++0x -pthread -g -O0; run.py passes {NUMTHREADS}
# (the stealers: 2 and main, buggy.txt's 3 threads).
sct_chess() {
	"$3" -o "$4" "$SCTBENCH/benchmarks/chess/$1.cpp" -std=c++0x -pthread -g -O0
}
sct_extra InterlockedWorkStealQueue sct_chess 2
sct_extra InterlockedWorkStealQueueWithState sct_chess 2
sct_extra StateWorkStealQueue sct_chess 2
sct_extra WorkStealQueue sct_chess 2
