# shellcheck shell=bash disable=SC2034 # its tables are read by bench/hunt.sh
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

# conc-bugs/*/build.sh: each program's own Makefile (g++ -g; pbzip2 -O0 -g, its libbz2 too).
# stringbuffer-jdk1.4: no arguments.
sct_stringbuffer() {
	sct_copy conc-bugs/stringbuffer-jdk1.4 "$1.src" && cd "$1.src" &&
		make -s CXX="$3" main && cp main "$4"
}
sct_extra stringbuffer-jdk1.4 sct_stringbuffer ""
# aget-bug2: run.sh: aget -l dl.txt http://www.gnu.org/licenses/gpl.txt; SCTBench's copy
# reads the two "downloads" from the files 0 and 17573 (Download.c's socket_m) and saves
# its log at once (signal_waiter calls sigint_handler). Each run writes dl.txt: one job.
sct_aget() {
	sct_copy conc-bugs/aget-bug2/aget-devel "$1.src" && cd "$1.src" &&
		make -s CC="$2" aget && cp aget "$4" && cp 0 17573 "$5/"
}
sct_extra aget-bug2 sct_aget "-l dl.txt http://www.gnu.org/licenses/gpl.txt" "--jobs 1"
# pbzip2-0.9.4: run.sh: pbzip2 -k -f -p$num_threads -1 -b1 test.tar, which writes
# test.tar.bz2: one job.
sct_pbzip2() {
	sct_copy conc-bugs/pbzip2-0.9.4 "$1.src" && cd "$1.src" &&
		make -s -C bzip2-1.0.6 CC="$2" libbz2.a &&
		make -s -C pbzip2-0.9.4 CC="$3" pbzip2 && cp pbzip2-0.9.4/pbzip2 "$4" && cp test.tar "$5/"
}
sct_extra pbzip2-0.9.4 sct_pbzip2 "-k -f -p2 -1 -b1 test.tar" "--jobs 1"

# inspect_examples and inspect_benchmarks build.py: gcc FILE -pthread -g; run.py passes
# the file's first line's "args:" with {NUMTHREADS} 2.
sct_inspect() {
	case $1 in ctrace-test) d=inspect_examples ;; *) d=inspect_benchmarks ;; esac
	"$2" -o "$4" "$SCTBENCH/benchmarks/$d/$1.c" -pthread -g
}
# ctrace-test: its main returns 6 (TRC_RETURN(..., i) with i = 6) when it works.
sct_extra ctrace-test sct_inspect 2 "--exit-ok 6"
sct_extra qsort_mt sct_inspect "-n 32 -f 4 -h 2 -v"

# safestack/build.sh: g++ -std=c++0x -g -O0 SafeStack.cpp -pthread; no arguments.
sct_safestack() {
	"$3" -std=c++0x -g -O0 -o "$4" "$SCTBENCH/benchmarks/safestack/SafeStack.cpp" -pthread
}
sct_extra safestack-bug1 sct_safestack ""
