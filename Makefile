# libreplay: record/replay debugging for multithreaded C programs.
#   make            build tools and runtime into build/
#   make check      run every test
#   make bench      run the benchmarks (numbers, never asserted)
#   make stress     kill, full-disk, forged-log and load campaigns (not in check)
#   make install PREFIX=/usr/local
#   make deps       install the Debian packages we need (as root), or say which are missing

PREFIX     ?= /usr/local
BUILD      := build
CC         := gcc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Wno-unused-parameter
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE
# What the runtime links besides the C library: nothing. zstd, which compresses the
# log's INPUT bytes (docs/log-format.md), is a copy of Debian's libzstd.a inside the
# runtime with every name prefixed rp_zstd_ (ZSTD_PRIVATE below): a program may hold
# zstd's functions itself, and the runtime must never call the program's.
ZSTD_PRIVATE = $(BUILD)/zstd/librpzstd.a
RT_LIBS    = $(ZSTD_PRIVATE)
DEB_PKGS   := gcc g++ make binutils binutils-dev libunwind-dev libcmocka-dev gdb csmith \
              libcsmith-dev pkg-config python3 procps zlib1g-dev chromium dpkg-dev tcl valgrind \
              xz-utils libc6-dbg libzstd-dev

SICPP_LIB_SRC := sicpp/parse.c sicpp/classify.c sicpp/analyze.c sicpp/analyze_flags.c \
                 sicpp/analyze_calls.c sicpp/analyze_indirect.c sicpp/analyze_loops.c \
                 sicpp/cfi.c sicpp/rewrite.c sicpp/hunt.c sicpp/races.c sicpp/xcall.c \
                 sicpp/scc.c
SICPP_LIB_OBJ := $(SICPP_LIB_SRC:%.c=$(BUILD)/obj/%.o)
SICPP_LIB_OBJ += $(BUILD)/obj/sicpp/dwarf.o
# The runtime's layers (libreplay/README.md): each folder one concern. The engine's
# files are in its rooms (libreplay/engine/README.md), bottom to top; its headers
# shared by every room are in libreplay/engine/ itself.
ENGINE_ROOMS  := core counter schedule ending hunt races session
RT_DIRS       := base log engine $(ENGINE_ROOMS:%=engine/%) inputs pthread signals io
RT_SRC        := $(wildcard $(RT_DIRS:%=libreplay/%/*.c)) libreplay/main.c
RT_ASM        := $(wildcard $(RT_DIRS:%=libreplay/%/*.S))
RT_HDR        := $(wildcard libreplay/*.h $(RT_DIRS:%=libreplay/%/*.h))
RT_OBJ        := $(RT_SRC:%.c=$(BUILD)/obj/%.o) $(RT_ASM:%.S=$(BUILD)/obj/%.o)
SCHED_SRC     := $(wildcard sched/*.c)
SCHED_ASM     := $(wildcard sched/*.S)
SCHED_OBJ     := $(SCHED_SRC:%.c=$(BUILD)/obj/%.o) $(SCHED_ASM:%.S=$(BUILD)/obj/%.o)
# What unit tests link against: everything but the programs' mains.
UNIT_LINK     := $(SICPP_LIB_OBJ) $(SCHED_OBJ) $(filter-out %/main.o,$(RT_OBJ))

BIN   := $(BUILD)/bin
LIB   := $(BUILD)/lib
LIBEXEC := $(BUILD)/libexec/libreplay
# The gdb extension: libreplay.py and the modules it loads from beside it (docs/gdb.md).
GDBEXT := $(patsubst libreplay/gdb/%,$(BUILD)/share/libreplay/gdb/%,$(wildcard libreplay/gdb/*.py))
TOOLS := $(BIN)/sicpp $(BIN)/sicc $(BIN)/sic++ $(LIBEXEC)/as $(LIB)/libreplay.a \
         $(LIB)/libreplay-log.a $(LIB)/libreplay.ld $(LIB)/libreplay.dynlist \
         $(BUILD)/include/libreplay.h $(BIN)/replay-dump $(BIN)/replay-hunt $(BIN)/replay-doctor $(BIN)/replay-pack \
         $(BIN)/replay-gdb $(GDBEXT)
# The log's reader and writer alone (libreplay/log/ and the allocator it uses), for tools.
LOG_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libreplay/log/*.c) libreplay/base/rp_alloc.c libreplay/base/rp_fd.c libreplay/base/rp_say.c)
# replay-dump (libreplay/tools/): reads logs with libreplay/log/, symbolizes with libbfd.
DUMP_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libreplay/tools/*.c)) $(LIB)/libreplay-log.a
# gdb reads every file in this directory at start-up (Debian's gdb); only a system
# PREFIX installs there by default (GDBINIT_DIR= to skip, or another directory).
GDBINIT_DIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc/gdb/gdbinit.d)

.PHONY: all check unit e2e bench install deps clean demo csmith stress
all: $(TOOLS)

$(BUILD)/obj/%.o: %.c $(wildcard sicpp/*.h sched/*.h) $(RT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isicpp -Ilibreplay -Isched -I$(BUILD)/gen -c $< -o $@

$(BUILD)/obj/libreplay/tools/%.o: libreplay/tools/%.c $(wildcard libreplay/tools/*.h) $(RT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilibreplay/tools -Ilibreplay -Isched -c $< -o $@

$(BIN)/replay-dump: $(DUMP_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -lbfd -lm $(RT_LIBS) -o $@

# replay-hunt (libreplay/tools/hunt/): runs a program many times; needs nothing of ours.
HUNT_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libreplay/tools/hunt/*.c))
$(BUILD)/obj/libreplay/tools/hunt/%.o: libreplay/tools/hunt/%.c libreplay/tools/hunt/hunt.h libreplay/engine/hunt/hunt.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilibreplay -Isched -c $< -o $@
# ... and the runtime's draw of a seed's strategy (strategy.c), pure C of the seed alone.
$(BUILD)/obj/libreplay/tools/hunt/engine-hunt.o: libreplay/engine/hunt/hunt.c libreplay/engine/hunt/hunt.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilibreplay -Isched -c $< -o $@

$(BIN)/replay-hunt: $(HUNT_OBJ) $(BUILD)/obj/libreplay/tools/hunt/engine-hunt.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

# replay-pack (libreplay/tools/pack/): a directory that replays a log elsewhere; reads
# logs with libreplay/log/.
PACK_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libreplay/tools/pack/*.c))
$(BUILD)/obj/libreplay/tools/pack/%.o: libreplay/tools/pack/%.c libreplay/tools/pack/pack.h $(RT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilibreplay -Isched -c $< -o $@

$(BIN)/replay-pack: $(PACK_OBJ) $(LIB)/libreplay-log.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(RT_LIBS)

# replay-doctor (libreplay/tools/doctor/): runs the runtime's own probes, so it links
# the runtime's objects but main.o (which would record it), as the unit tests do.
DOCTOR_OBJ := $(BUILD)/obj/libreplay/tools/doctor/replay-doctor.o
$(BIN)/replay-doctor: $(DOCTOR_OBJ) $(SICPP_LIB_OBJ) $(SCHED_OBJ) $(filter-out %/main.o,$(RT_OBJ)) | $(ZSTD_PRIVATE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ $(RT_LIBS) -o $@

# The overflow's quick path runs with the program's vector registers live (sic_rt.S).
$(BUILD)/obj/libreplay/engine/counter/sic_quick.o: ALL_CFLAGS += -mgeneral-regs-only
# The race checks run between two instructions of the program with its vector
# registers live: general registers only, and no call to the C library's memset.
$(BUILD)/obj/libreplay/engine/races/races.o: ALL_CFLAGS += -mgeneral-regs-only \
	-fno-tree-loop-distribute-patterns

$(BUILD)/obj/%.o: %.S sicpp/rewrite.h $(RT_HDR)
	@mkdir -p $(dir $@)
	$(CC) -g -Ilibreplay -c $< -o $@

# sizeof(glibc's struct pthread), measured by running a probe (sched/sched_tls.c).
$(BUILD)/gen/sched_tcb.h: sched/probe/tcb_size.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pthread $< -o $(BUILD)/gen/tcb_size
	$(BUILD)/gen/tcb_size > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/sched/sched_tls.o: $(BUILD)/gen/sched_tcb.h

$(BIN)/sicpp: $(BUILD)/obj/sicpp/sicpp.o $(SICPP_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

$(BIN)/sicc: $(BUILD)/obj/sicpp/sicc.o $(BUILD)/obj/sicpp/sicc_link.o $(BUILD)/obj/sicpp/scc.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@

# sic++: sicc for C++ (g++ by default), the same program.
$(BIN)/sic++: $(BIN)/sicc
	ln -sf sicc $@

# The assembler gcc runs under sicc (-B): the same program as sicc, named "as".
$(LIBEXEC)/as: $(BIN)/sicc
	@mkdir -p $(dir $@)
	ln -sf ../../bin/sicc $@

# The runtime's zstd: Debian's libzstd.a (libzstd-dev), each object's names (defined,
# and the references between them) renamed rp_zstd_NAME, as an archive: ld takes the
# members the log's calls need (log_store.c).
$(ZSTD_PRIVATE):
	@a=$$(ls /usr/lib/x86_64-linux-gnu/libzstd.a /usr/lib64/libzstd.a /usr/lib/libzstd.a 2>/dev/null | head -n 1); \
	[ -n "$$a" ] || { echo "no libzstd.a: make deps (Debian's libzstd-dev)"; exit 1; }; \
	rm -rf $(BUILD)/zstd && mkdir -p $(BUILD)/zstd/o && (cd $(BUILD)/zstd/o && ar x "$$a") && \
	nm -g --defined-only $(BUILD)/zstd/o/*.o | awk 'NF == 3 { print $$3 " rp_zstd_" $$3 }' | \
	  sort -u >$(BUILD)/zstd/rename.map && \
	for o in $(BUILD)/zstd/o/*.o; do objcopy --redefine-syms=$(BUILD)/zstd/rename.map $$o || exit 1; done
	ar rcs $@ $(BUILD)/zstd/o/*.o

# The runtime is one object in libreplay.a, whose C library names (libreplay.libc) are
# weak, as libc.a's are: a program's own definition of one (a global `send`, its own
# read()) wins and links, and the runtime's own calls still reach its function. ld -r
# binds the calls between the runtime's files; objcopy then makes each such name local
# (those calls keep it) and adds it back, weak, at the same address (docs/io.md).
RT_ONE := $(BUILD)/obj/libreplay-rt.o
$(BUILD)/obj/libreplay-strong.o: $(RT_OBJ) $(SCHED_OBJ) $(ZSTD_PRIVATE)
	ld -r -o $@ $(RT_OBJ) $(SCHED_OBJ) $(ZSTD_PRIVATE)


$(RT_ONE): $(BUILD)/obj/libreplay-strong.o $(LIB)/libreplay.libc
	objdump -t $< | awk 'NR == FNR { libc[$$1]; next } \
	  ($$2 == "g" || $$2 == "w") && $$3 == "F" && ($$6 in libc) { \
	    printf "--localize-symbol %s\n--add-symbol %s=%s:0x%s,function,weak\n", $$6, $$6, $$4, $$1 }' \
	  $(LIB)/libreplay.libc - >$@.args
	objcopy @$@.args $< $@

$(LIB)/libreplay.a: $(RT_ONE)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libreplay-log.a: $(LOG_OBJ) $(ZSTD_PRIVATE)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LOG_OBJ) $(BUILD)/zstd/o/*.o

# The C library functions libreplay replaces (pthread_*, the blocking calls, the
# recorded inputs...): sicc links them all in (libreplay.ld: EXTERN) and exports them
# (libreplay.dynlist), so that uninstrumented libraries reach them too: libstdc++'s
# std::thread, a plain .so's pthread_create. Measured against this machine's libc.
# And libreplay.h's functions, for instrumented shared objects.
$(LIB)/libreplay.libc: $(BUILD)/obj/libreplay-strong.o
	@mkdir -p $(dir $@)
	nm -g --defined-only $< | awk 'NF == 3 && ($$2 == "T" || $$2 == "W") {print $$3}' | sort -u >$@.own
	nm -D --defined-only $$($(CC) -print-file-name=libc.so.6) | \
	  awk '{sub(/@.*/, "", $$3); print $$3}' | sort -u >$@.c
	comm -12 $@.own $@.c >$@.tmp && rm -f $@.own $@.c && mv $@.tmp $@

$(LIB)/libreplay.syms: $(LIB)/libreplay.libc libreplay/libreplay.h
	cp $< $@.tmp
	sed -n 's/^[a-z0-9_]* \**\(rp_[a-z0-9_]*\)(.*/\1/p' libreplay/libreplay.h >>$@.tmp # the API, for .so files
	mv $@.tmp $@

$(LIB)/libreplay.ld: $(LIB)/libreplay.syms
	{ echo '/* Generated (Makefile): the C library functions libreplay replaces. */'; \
	  printf 'EXTERN('; tr '\n' ' ' <$<; echo ')'; } >$@

$(LIB)/libreplay.dynlist: $(LIB)/libreplay.syms
	{ echo '{'; sed 's/.*/	&;/' $<; echo '};'; } >$@

$(BUILD)/include/libreplay.h: libreplay/libreplay.h
	@mkdir -p $(dir $@)
	cp $< $@

# gdb: the extension and the wrapper that loads it (docs/gdb.md).
$(BIN)/replay-gdb: libreplay/gdb/replay-gdb
	@mkdir -p $(dir $@)
	cp $< $@ && chmod 755 $@

$(BUILD)/share/libreplay/gdb/%.py: libreplay/gdb/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# ---- tests ---------------------------------------------------------------
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/tests/%: tests/unit/%.c $(UNIT_LINK) $(wildcard tests/unit/*.h) | $(ZSTD_PRIVATE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isicpp -Ilibreplay -Isched $(filter-out %.h,$^) -lcmocka $(RT_LIBS) -o $@

# Helpers the shell suites run: restrict (tests/lib/restrict.c) runs a command as a
# restricted machine would (tests/restricted, tests/layout, tests/e2e/tls_paths.sh). In
# all, so that a suite run alone has it.
TEST_HELPERS := $(BUILD)/tests/restrict
all: $(TEST_HELPERS)

$(BUILD)/tests/restrict: tests/lib/restrict.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

check: all unit $(TEST_HELPERS)
	tests/run-all.sh

bench: all
	bench/run.sh
	bench/replay.sh
	bench/tls_paths.sh
	bench/stops.sh
	bench/apps.sh
	bench/hunt.sh
	bench/gdb.sh
	bench/realprogs.sh
	bench/codesize.sh
	bench/table1.sh
	bench/table2.sh
	bench/logsize.sh
	bench/world.sh
	bench/logstore.sh
	bench/reverse.sh
	bench/durability.sh
	bench/intercept.sh

# Longer campaigns (issue 12): kills, a full disk, forged logs, pairs under load; the
# software stop's pairs at fine slices and under --hunt (issue 30).
stress: all
	tests/durability/stress.sh
	tests/durability/software_stop.sh

csmith: all
	tests/csmith/run.sh $(N)
	tests/csmith/callgraph.sh $(or $(N),200) 1000

demo: all
	examples/demo.sh

# ---- install -------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/libexec/libreplay
	install -m 755 $(BIN)/sicpp $(BIN)/sicc $(BIN)/replay-dump $(BIN)/replay-hunt \
	  $(BIN)/replay-doctor $(BIN)/replay-pack $(DESTDIR)$(PREFIX)/bin/
	ln -sf sicc $(DESTDIR)$(PREFIX)/bin/sic++
	ln -sf ../../bin/sicc $(DESTDIR)$(PREFIX)/libexec/libreplay/as
	install -m 644 $(LIB)/libreplay.a $(LIB)/libreplay.ld $(LIB)/libreplay.dynlist \
	  $(DESTDIR)$(PREFIX)/lib/
	install -m 644 libreplay/libreplay.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' libreplay/libreplay.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libreplay.pc
	install -d $(DESTDIR)$(PREFIX)/share/libreplay/gdb
	install -m 755 $(BIN)/replay-gdb $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(GDBEXT) $(DESTDIR)$(PREFIX)/share/libreplay/gdb/
	sed -e 's|@DATADIR@|$(PREFIX)/share|g' libreplay/gdb/gdbinit.py.in \
	  > $(DESTDIR)$(PREFIX)/share/libreplay/gdb/gdbinit.py
	@if [ -n "$(GDBINIT_DIR)" ]; then \
	  install -d $(DESTDIR)$(GDBINIT_DIR) && \
	  install -m 644 $(DESTDIR)$(PREFIX)/share/libreplay/gdb/gdbinit.py \
	    $(DESTDIR)$(GDBINIT_DIR)/libreplay.py && \
	  echo "install: gdb loads libreplay's extension ($(GDBINIT_DIR)/libreplay.py)"; \
	else \
	  echo "install: for gdb, use replay-gdb, or add to ~/.config/gdb/gdbinit:" \
	    "source $(PREFIX)/share/libreplay/gdb/gdbinit.py"; \
	fi

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing Debian packages:$$missing (run 'make deps' as root)"; exit 1; fi; \
	echo "deps: installing$$missing"; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } \
	  || { echo "deps: could not install:$$missing"; exit 1; }

clean:
	rm -rf $(BUILD)
