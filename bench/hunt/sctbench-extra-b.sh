# shellcheck shell=bash
# bench/hunt/sctbench-extra-b.sh: SCTBench's buggy programs of parsec-2.0, radbench and
# splash2 (benchmarks/buggy.txt), for bench/hunt.sh part 4: the second half of
# bench/hunt/sctbench-extra.sh, whose sct_extra, sct_extra_out and sct_copy it uses (that
# file says what a BUILD function gets: NAME CC CXX EXE RUNDIR). Names carry their
# directory (radbench's bug2 and safestack's bug1 would clash). Each build works in a
# copy of its own, EXE.src (the sicc build's shared libraries are not the gcc build's);
# the libraries a program needs (NSPR, SpiderMonkey, GSL, ImageMagick) are built from
# the sources SCTBench ships, by the same compiler as the program (sicc: counted,
# preemptible, replayed; gcc for the native column). Threads: SCTBench's
# scripts/settings.sh, num_threads=2.

# ---- sctB: splash2, radbench, parsec-2.0 ---------------------------------------------

# splash2/build.sh: each program's makefile (m4 over null_macros/c.m4.null, `cc -O0`),
# hardwired to `cc`: a cc on PATH that is CC. The bug is SCTBench's: WAIT_FOR_END is
# empty, so main's assert(numFinished == P) may run before the other thread's increment
# after the last barrier. FFT declares no malloc (K&R, G_MALLOC is `malloc(n);`): the int
# it returns cuts a PIE's heap pointers to 32 bits (SIGSEGV in InitX at once, natively
# too); -no-pie, as gcc 4.4 built it for SCTBench, keeps the heap below 2 GB.
sct_splash2() {
	local d flags='' cc=$4.src/cc.bin
	case $1 in
	splash2.fft) d=kernels/fft flags="CFLAGS=-O0 -w -no-pie" ;;
	splash2.lu) d=kernels/lu/non_contiguous_blocks ;;
	splash2.barnes) d=apps/barnes ;;
	esac
	sct_copy splash2 "$4.src" && mkdir -p "$cc" &&
		printf '#!/bin/sh\nexec %s "$@"\n' "$2" >"$cc/cc" && chmod +x "$cc/cc" &&
		(cd "$4.src/$d" && PATH=$cc:$PATH make -s ${flags:+"$flags"}) &&
		cp "$4.src/$d/$(sed -n 's/^TARGET *= *//p' "$4.src/$d/makefile")" "$4"
}
# run.sh: FFT -p2 -m2 -n4 -l4, LU -p2 -n2 -b1, BARNES (its parameters: the defaults in
# code.C, NPROC=2).
sct_extra splash2.fft sct_splash2 "-p2 -m2 -n4 -l4"
sct_extra splash2.lu sct_splash2 "-p2 -n2 -b1"
sct_extra splash2.barnes sct_splash2 ""

# radbench bug6 (NSPR bug 526805): a reader takes its read lock again while a writer
# waits: deadlock. scripts/build-nspr.sh and build-testharness.sh: NSPR 4.8 configured
# as shipped (--enable-64bit: this is x86-64; the harness's -Di386=1 is left out for the
# same reason), the harness at its own flags, linked with NSPR's shared libraries.
sct_rad_bug6() {
	sct_copy radbench/Benchmarks/bug6 "$4.src" && cd "$4.src/src" && tar xzf nspr-4.8.tar.gz &&
		mkdir -p nspr-4.8/target && (cd nspr-4.8/target && CC=$2 CXX=$3 \
			../mozilla/nsprpub/configure --enable-64bit >/dev/null && make -s >/dev/null) &&
		local n=$PWD/nspr-4.8 && "$2" -o "$4" -fvisibility=hidden -Wall -pthread -g -fno-inline -fPIC \
			-UNDEBUG -DDEBUG_najalber -DDEBUG=1 -DHAVE_VISIBILITY_HIDDEN_ATTRIBUTE=1 \
			-DHAVE_VISIBILITY_PRAGMA=1 -DXP_UNIX=1 -D_GNU_SOURCE=1 -DHAVE_FCNTL_FILE_LOCKING=1 \
			-DLINUX=1 -DHAVE_LCHOWN=1 -DHAVE_STRERROR=1 -D_REENTRANT=1 -DFORCE_PR_LOG \
			-D_PR_PTHREADS -UHAVE_CVAR_BUILT_ON_SEM -I"$n/target/dist/include/nspr" \
			-I"$n/mozilla/nsprpub/pr/include" -I"$n/mozilla/nsprpub/pr/include/private" \
			rwlock-test.c -Wl,-rpath,"$n/target/dist/lib" -L"$n/target/dist/lib" -lplc4 -lnspr4 -lpthread
}
sct_extra radbench.bug6 sct_rad_bug6 ""

# radbench bug2 (SpiderMonkey bug 476934): js_GC checks acx->thread, then dereferences it;
# JS_ClearContextThread in another thread may set it to NULL between. scripts/build-js.sh:
# NSPR 4.6.7, then JS 1.7.0's Makefile.ref with JS_THREADSAFE=1 (its debug build, -g);
# build-testharness.sh: test-ctxt.cpp against libjs.so. The old DT_RPATH (not RUNPATH)
# so that libjs.so finds this NSPR, not the system's.
sct_rad_bug2() {
	sct_copy radbench/Benchmarks/bug2 "$4.src" && cd "$4.src/src" && tar xzf nspr-4.6.7.tar.gz &&
		tar xzf js-1.7.0.tar.gz && mkdir -p nspr-4.6.7/target && (cd nspr-4.6.7/target &&
			CC=$2 CXX=$3 ../mozilla/nsprpub/configure --enable-64bit >/dev/null && make -s >/dev/null) &&
		local n=$PWD/nspr-4.6.7/target && (cd js/src && make -s -f Makefile.ref CC="$2" CCC="$3" \
			XCFLAGS="-I$n/dist/include/nspr" XLDFLAGS="-L$n/dist/lib -lnspr4" JS_THREADSAFE=1 \
			>/dev/null) &&
		local o && o=$(ls -d "$PWD"/js/src/*.OBJ) && "$3" -g test-ctxt.cpp -o "$4" -I js/src -I "$o" \
			-I "$n/dist/include/nspr" -L "$n/dist/lib" -L "$o" -lpthread -ljs \
			-Wl,--disable-new-dtags,-rpath,"$o:$n/dist/lib"
}
sct_extra radbench.bug2 sct_rad_bug2 ""

# radbench bug1: SpiderMonkey of Firefox 3.6 (mozilla-1.9.2 of 2009-09-09), from
# src/firefox-src-2009-09-09.tar.bz2, which the repository does not hold (SCTBench's
# VirtualBox image did): src/ has only the four files it patches and the harness.
sct_extra_out radbench.bug1 \
	"its src/firefox-src-2009-09-09.tar.bz2 (Firefox 3.6 sources) is not in the repository"

# parsec-2.0 streamcluster, 2, 3: each a copy of the kernel with one of three barriers
# left out (FIX_BUG_1 .. 3 not defined). config/gcc.bldconf and the package's
# gcc-pthreads.bldconf: CXXFLAGS -O0 -g -fno-omit-frame-pointer -fpermissive, version=
# pthreads; test.runconf's input with NTHREADS 2.
sct_streamcluster() {
	sct_copy "parsec-2.0/pkgs/kernels/${1#parsec.}/src" "$4.src" && cd "$4.src" &&
		make -s version=pthreads CXX="$3" LDFLAGS=-O0 \
			CXXFLAGS="-O0 -g -fno-omit-frame-pointer -fpermissive -DPARSEC_VERSION=2.1" &&
		cp streamcluster "$4"
}
sct_extra parsec.streamcluster sct_streamcluster "2 5 1 10 10 5 none output.txt 2"
sct_extra parsec.streamcluster2 sct_streamcluster "2 5 1 10 10 5 none output.txt 2"
sct_extra parsec.streamcluster3 sct_streamcluster "2 5 1 10 10 5 none output.txt 2"

# parsec-2.0 ferret: the output stage signals the end only if the loader's input_end is
# set when it has output as many as were loaded; if the loader is still between its
# last enqueue and input_end = 1 when the last query comes out, main waits for ever.
# Its libraries are PARSEC's own (pkgs/libs: GSL, ImageMagick 6.3.6 configured as
# its parsec/gcc.bldconf says, and --disable-openmp), static, built by CC too;
# libjpeg is the system's (libjpeg62-turbo-dev). glibc no longer defines SVID's HUGE,
# which LSH_query.c uses: -DHUGE as glibc had it (FLT_MAX). Input: input_test.tar.
sct_ferret() {
	local s=$SCTBENCH/benchmarks/parsec-2.0/pkgs i=$4.src/inst
	local f="-O0 -g -fno-omit-frame-pointer"
	mkdir -p "$4.src" && cd "$4.src" && cp -r "$s/libs/gsl/src" gsl &&
		cp -r "$s/libs/imagick/src" imagick && cp -r "$s/apps/ferret/src" ferret &&
		mkdir -p gsl.b imagick.b &&
		(cd gsl.b && CC=$2 CFLAGS=$f ../gsl/configure -q --disable-shared --prefix="$i" LIBS=-lm &&
			make -s && make -s install) >/dev/null &&
		(cd imagick.b && CC=$2 CXX=$3 CFLAGS=$f ../imagick/configure -q --prefix="$i" --disable-openmp \
			--disable-shared --without-perl --without-magick-plus-plus --without-bzlib --without-dps \
			--without-djvu --without-fpx --without-gslib --without-jbig --with-jpeg --without-jp2 \
			--without-tiff --without-wmf --without-zlib --without-x --without-fontconfig \
			--without-freetype --without-lcms --without-png --without-gvc --without-openexr \
			--without-rsvg --without-xml && make -s && make -s install) >/dev/null &&
		(cd ferret && version=pthreads CC=$2 CXX=$3 LDFLAGS="-L$i/lib -O0" \
			CFLAGS="-I$i/include $f -DPARSEC_VERSION=2.1 -DHUGE=3.40282347e+38F" \
			CXXFLAGS="$f -fpermissive" IMAGE_LDLIBS="$("$i/bin/Magick-config" --libs)" make -s) &&
		cp ferret/parsec/bin/ferret-parallel "$4" && tar xf "$s/apps/ferret/inputs/input_test.tar" -C "$5"
}
# test.runconf: corel lsh queries 1 1 NTHREADS output.txt
sct_extra parsec.ferret sct_ferret "corel lsh queries 1 1 2 output.txt"
