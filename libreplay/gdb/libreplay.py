# libreplay.py: gdb support for programs linked with libreplay (docs/gdb.md).
#
#   info rthreads              every green thread: id, state, count, where it is
#   rthread N                  look at green thread N (bt, frame, info locals ...)
#   rthread                    back to the running thread
#   rthread apply N|all CMD    run CMD on green thread N (or on each), then come back
#   replay status              position in the log: record n of N, next preemption
#   replay stop-at T C         stop when green thread T reaches count C
#   $rcount(T)                 green thread T's count (for breakpoint conditions)
#
# `bt` leaves out the runtime's frames above and below the program's (a frame filter;
# `bt -no-filters` shows them), and a stop after other green threads ran says which.
#
# It reads the runtime's state through the DWARF of libreplay.a (compiled with -g, so
# in every program linked with it) and writes only rp_debug (libreplay/engine/schedule/debug.c). It
# makes our signals silent: SIGPROF (the recording's time slice), SIG41 (SIGRTMIN+7,
# the hardware breakpoint, RP_BP_SIGNAL in engine/schedule/replay.c) and SIG40 (SIGRTMIN+6,
# the recording's --timeout). A run that ends in a deadlock or a hang stops in
# rp_debug_outcome first, every green thread where it stopped.
#
# Looking at another green thread loads its saved stack pointer and resume address
# into the one kernel thread's registers; the real ones are put back before anything
# resumes the program (hooks on every command that resumes it) and on `rthread`.
#
# The extension's files, all in one directory (share/libreplay/gdb/ once built):
#   libreplay.py   this one, the entry point: the runtime's state, the hook before every
#                  resume, loading the others
#   rthreads.py    green threads: info rthreads, rthread, the frame filter, $rcount
#   stepping.py    next and step over a preemption
#   stops.py       replay status and stop-at, count conditions, the outcome's and the
#                  log end's stops, the software breakpoint's trap
#   races.py       info races, replay races stop (a replay by the race build)
#   timetravel.py  going back in time: time, checkpoints, replay when/goto/checkpoints
#   reverse.py     reverse-continue, reverse-stepi, -finish, -next, -step
# Each of the others is a module of its own, loaded from beside this file and handed
# this module (`lr`, see load); the names the families (FAMILIES) define are this
# module's too, so each file reaches what another defines as lr.NAME. reverse.py's
# are timetravel.py's (and it reaches timetravel.py's as tt.NAME).

import importlib.util
import os
import re
import sys
import types

import gdb

SIGNALS = ("SIGPROF", "SIG41", "SIG40")
# A caller in instrumented code passes this in %r15 (sic_rt.S, RP_SIC_TOKEN).
SIC_TOKEN = (-0x61A53F22) & (2**64 - 1)
REG_R15 = 7  # index in ucontext's gregs (<sys/ucontext.h>)
STATES = ["runnable", "running", "blocked", "exited", "abandoned"]


class ReplayError(gdb.GdbError):
    pass


# ---- the runtime's state ---------------------------------------------------------

def static(name, source):
    """The static variable name defined in the runtime's file source (e.g. replay.c)."""
    for sym in gdb.lookup_static_symbols(name):
        if sym.symtab and sym.symtab.filename.endswith("/" + source):
            return sym.value()
    raise ReplayError("libreplay: no %s in %s (is this program linked with libreplay, "
                      "and not stripped?)" % (name, source))


def glob(name):
    sym = gdb.lookup_global_symbol(name)
    if sym is None:
        raise ReplayError("libreplay: no symbol %s: not a program linked with libreplay" % name)
    return sym.value()


def u64(v):
    return int(v) & (2**64 - 1)


def live():
    return gdb.selected_inferior().pid != 0 and gdb.selected_thread() is not None


def need_live():
    if not live():
        raise ReplayError("The program is not being run.")


def green_threads():
    t = glob_sched()["all_head"]
    while int(t) != 0:
        yield t
        t = t["all_next"]


def glob_sched():
    # sched_g is hidden but global: its DWARF is in the sched/ object that defines it.
    sym = gdb.lookup_global_symbol("sched_g") or gdb.lookup_static_symbol("sched_g")
    if sym is None:
        raise ReplayError("libreplay: no sched_g: not a program linked with libreplay")
    return sym.value()


def instrumented(pc):
    """Is pc in code sicpp instrumented (sic.c's tables: the executable's ranges and
    those of the instrumented shared libraries registered so far)?"""
    tables = static("tables", "sic.c")
    if int(tables) == 0:
        return False
    ranges, n = tables["ranges"], int(tables["nranges"])
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        r = ranges[mid]
        if pc < int(r["lo"]):
            hi = mid
        elif pc >= int(r["hi"]):
            lo = mid + 1
        else:
            return True
    return False


# The counter's overflow routines (engine/counter/sic_rt.S). A counting point's stub calls
# __sic_overflow_far (or _near), whose CFI unwinds straight to the counting point
# (the frame older than it is the program's, at the PC the stub resumes); the
# flag-preserving form's stub calls __sic_overflow, and its frame is the stub's.
RESUME_ROUTINES = ("__sic_overflow_far", "__sic_overflow_near")
OVERFLOW = ("__sic_overflow",) + RESUME_ROUTINES
LEAQ_128 = bytes([0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00])  # leaq 128(%rsp), %rsp


def is_stub(frame):
    # sicpp names a counter stub "FUNCTION.sic_stub.N" (gdb shows FUNCTION.sic_stub);
    # its frame is FUNCTION's, at a counting point.
    return ".sic_stub" in (frame.name() or "")


def asm_at(pc):
    """The instruction at pc as gdb shows it ("je     0x... <f.sic_stub.2>"), or ""."""
    try:
        return gdb.selected_inferior().architecture().disassemble(pc)[0]["asm"]
    except (gdb.error, gdb.MemoryError):
        return ""


def counting_jump(pc):
    """Is pc a counting point's jump to its stub (the `jz` after `decq %r15`, or the
    flag-preserving form's `loop` or `jmp`)? The point has made its count there, and
    the stop at that count comes after it, where the stub goes back: a thread is at
    (count, pc) only on the way from the count before."""
    return re.match(r"(je|jz|loop|jmp)\s+0x[0-9a-f]+ <[^>]*\.sic_stub", asm_at(pc)) is not None


def counted_inside(pc):
    """Is pc a call that counts in the callee's entry, not before the call: a call to
    another file's function or to foreign code, through f.sic_xcall (sicpp/xcall.c)?"""
    return re.match(r"call\s+0x[0-9a-f]+ <[^>]*\.sic_xcall>", asm_at(pc)) is not None


def user_frame(frame=None):
    """The innermost frame of the program's own (instrumented) code, or None."""
    f = frame or gdb.newest_frame()
    while f is not None:
        if is_stub(f) or instrumented(f.pc()):
            return f
        f = f.older()
    return None


def function_entry(pc):
    """The entry of the function (not one inlined into it) whose code holds pc: its
    symbol's address, which for a function gcc split is not its block's start (the
    block spans its cold part too, f.cold, often below f); None without debug
    information."""
    blk, fn = gdb.block_for_pc(pc) if pc else None, None
    while blk is not None and not blk.is_static and not blk.is_global:
        if blk.function is not None:
            fn = blk.function
        blk = blk.superblock
    return int(fn.value().address) if fn is not None else None


def at_entry_check(frame):
    """Is frame at a function's entry check (cmp $TOKEN, %r15; jne foreign)? There
    %r15 is still the caller's: the count is in __sic_home."""
    entry = function_entry(frame.pc())
    if entry is None or frame.pc() < entry:
        return False
    insns = frame.architecture().disassemble(entry, count=2)
    return "0xffffffff9e5ac0de" in insns[0]["asm"] and \
        frame.pc() <= insns[-1]["addr"]


def counter_in_r15(frame):
    return frame.pc() != 0 and instrumented(frame.pc()) and not at_entry_check(frame)


def running_counter():
    """The running thread's counter, from the real registers (not switched)."""
    f = gdb.newest_frame()
    while f is not None:
        if f.name() in OVERFLOW:
            return 0  # the counter reached zero; the runtime has not reloaded it yet
        if is_stub(f):
            if far_stub_return(f) is not None:
                # in a counting point's run of stubs, before its call: the counter was
                # 0 at the jump (r15 is one less an entry passed: docs/sic.md, "Stubs")
                return 0
            break  # inside another stub, in the runtime it called: published
        if f.pc() and instrumented(f.pc()):
            r15 = u64(f.read_register("r15"))
            if r15 == SIC_TOKEN or not counter_in_r15(f):
                break
            return r15
        f = f.older()
    return u64(glob("__sic_home"))  # in the runtime, libc, or before main: published


def count_of(st, cur_ext):
    """A green thread's SIC count: offset - counter (struct rp_thread, engine/engine.h)."""
    ext = st["ext"]
    if int(ext) == 0:
        return None
    t = ext.cast(gdb.lookup_type("struct rp_thread").pointer())
    if int(ext) == cur_ext:
        counter = running_counter()
    elif int(t["uc"]) != 0:
        counter = u64(t["uc"]["uc_mcontext"]["gregs"][REG_R15])
    else:
        counter = u64(t["home"])
    return u64(int(t["offset"]) - counter)


def current_ext():
    return int(glob("rp_cur"))


def function_at(pc):
    """The name of the function (not an inlined one) whose code holds pc, or None."""
    blk = gdb.block_for_pc(pc) if pc else None
    name = None
    while blk is not None and not blk.is_static and not blk.is_global:
        if blk.function is not None:
            name = blk.function.name
        blk = blk.superblock
    return name


def where(frame):
    if frame is None:
        return "(in the runtime)"
    if is_stub(frame):
        # the function the stub goes back to: in a run that several functions'
        # counting points share, the nearest entry's name may be another's
        back = stub_return(frame)
        name = function_at(back) or (frame.name() or "").split(".sic_stub")[0]
        sal = gdb.find_pc_line(back) if back else None
    else:
        name, sal = frame.name() or "0x%x" % frame.pc(), frame.find_sal()
    if sal and sal.symtab:
        return "%s at %s:%d" % (name, sal.symtab.filename, sal.line)
    return name


def far_stub_return(frame):
    """Where a counting point's stub goes back to the program: the runtime returns
    there. Stubs come in runs ("decq %r15" an entry, [leaq;] call __sic_overflow_far or
    _near, then a table of ".long back - .", the last entry's first): the call's return
    address - 4 * r15 there is the entry's. None for another stub."""
    arch, pc, decs = frame.architecture(), frame.pc(), 0
    for _ in range(80):
        insn = arch.disassemble(pc)[0]
        asm = insn["asm"]
        if asm.startswith("call"):
            at = insn["addr"] + insn["length"]
            after = bytes(gdb.selected_inferior().read_memory(at, 8))
            if after == LEAQ_128:  # a stub that returns to itself
                return None
            r15 = int(frame.read_register("r15")) & (2**64 - 1)
            r15 -= (r15 >> 63) << 64  # signed: 0 or less in a run
            at += 4 * (decs - r15)
            rel = bytes(gdb.selected_inferior().read_memory(at, 4))
            return at + int.from_bytes(rel, "little", signed=True)
        if asm.startswith("dec") and "%r15" in asm:
            decs += 1
        elif not asm.startswith("lea"):
            return None
        pc += insn["length"]
    return None


def stub_return(frame):
    """Where a counter stub goes back to the program: a counting point's stub, or a
    stub that jumps back (leaq; call; leaq; [xchg;] jmp back)."""
    back = far_stub_return(frame)
    if back is not None:
        return back
    for insn in frame.architecture().disassemble(frame.pc(), count=6):
        m = re.match(r"jmp\s+(0x[0-9a-f]+)", insn["asm"])
        if m:
            return int(m.group(1), 16)
    return None


def foreign_entry_resume(frame):
    """Where the program goes on from __sic_foreign_entry's count (frame: that
    routine's, called back from foreign code, its count's __sic_overflow newer): the
    function's body, the %r11 its entry stub passed, which __sic_overflow saved 80
    bytes below its %rbp (SIC_PUSH_GENERAL, engine/counter/sic_rt.S). None elsewhere."""
    newer = frame.newer()
    if frame.name() != "__sic_foreign_entry" or newer is None or newer.name() != "__sic_overflow":
        return None
    rbp = u64(newer.read_register("rbp"))
    return int.from_bytes(bytes(gdb.selected_inferior().read_memory(rbp - 80, 8)), "little")


def set_debug(field, value):
    """rp_debug.field = value; False if this runtime has no such field (an older one)."""
    try:
        glob("rp_debug")[field]
    except (gdb.error, ReplayError):
        return False
    gdb.execute("set var rp_debug.%s = %d" % (field, value), to_string=True)
    return True


def parse_int(s, usage):
    try:
        return int(gdb.parse_and_eval(s))
    except (gdb.error, ValueError):
        raise ReplayError("Usage: " + usage)

# ---- before the program resumes ------------------------------------------------------

class RestoreCmd(gdb.Command):
    """Put the running thread's registers back (after rthread N). Used by hooks."""

    def __init__(self):
        super().__init__("libreplay-restore", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        cmd = arg.strip()
        shown = View.tid
        restore()
        if arg.strip() in ("checkpoint", "restart") and timetravel is not None:
            timetravel.before_checkpoint()
        if Stepping.fixing:
            return  # the post-hook's own resumes: it manages the requests
        if cmd not in ("kill", "detach", "quit", "checkpoint", "restart", "run", "start",
                       "starti", "signal"):
            soft_trap_reconcile()
        if cmd not in ("kill", "detach", "quit", "checkpoint", "restart"):
            # (checkpoint, restart: a fork, a jump in time, maybe in the middle of a
            # continue, by timetravel.py: no resume of the story)
            before_resume()
            if cmd == "continue" and timetravel is not None:
                timetravel.forward_watch_arm()  # (without debug registers)
            note_resume()
            if shown is not None and cmd not in ("run", "start", "starti") and live():
                gdb.write("libreplay: %s resumes green thread %d, the running one: green "
                          "thread %d runs when the recorded schedule says (replay stop-at "
                          "%d COUNT stops it at a count)\n" %
                          (cmd, int(glob("rp_cur")["tid"]), shown, shown))
        if cmd in STEPPING:
            begin_step(arg.strip())
        else:
            Stepping.cmd = None
            clear_requests()  # a next that failed left them: not for a continue


# ---- loading -------------------------------------------------------------------------

def setup_signals():
    for sig in SIGNALS:
        gdb.execute("handle %s nostop noprint pass" % sig, to_string=True)


# The families of commands, beside this file: their names become this module's.
FAMILIES = ("rthreads", "stepping", "stops", "races")
# Going back in time (timetravel.py, beside this file): its own module, handed this one.
timetravel = None


def load(name):
    """NAME.py, beside this file, as a module of its own, handed this one as its `lr`."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("libreplay_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.lr = sys.modules[__name__]
    return mod


def adopt(mod, into):
    """Make the names mod defines into's too (not its modules, nor `lr` and `tt`)."""
    names = vars(into)
    for name, value in vars(mod).items():
        if name.startswith("_") or name in ("lr", "tt") or isinstance(value, types.ModuleType):
            continue
        if names.get(name, value) is not value:
            raise ImportError("libreplay: %s defines %s again" % (mod.__file__, name))
        names[name] = value


def load_families():
    for name in FAMILIES:
        adopt(load(name), sys.modules[__name__])


def load_timetravel():
    """timetravel.py, and reverse.py handed it (`tt`), their names timetravel.py's."""
    global timetravel
    timetravel = load("timetravel")
    reverse = load("reverse")
    reverse.tt = timetravel
    adopt(reverse, timetravel)
    timetravel.register(sys.modules[__name__])


def register():
    # Once per gdb session, however often it is sourced (wrapper and gdbinit both).
    if getattr(gdb, "libreplay_loaded", False):
        return
    gdb.libreplay_loaded = True
    load_families()
    setup_signals()
    RestoreCmd()
    StepFixup()
    add_hooks()
    add_step_hooks()
    InfoRthreads()
    Rthread()
    RthreadApply()
    Replay()
    ReplayStatus()
    ReplayStopAt()
    Rcount()
    InfoRaces()
    ReplayRaces()
    ReplayRacesStop()
    ensure_outcome_bp()
    gdb.events.new_objfile.connect(ensure_outcome_bp)
    gdb.events.new_objfile.connect(forget_pointers)
    gdb.current_progspace().frame_filters["libreplay-runtime-frames"] = RuntimeFrames()
    gdb.events.stop.connect(on_stop)
    gdb.events.exited.connect(on_exit)
    gdb.events.cont.connect(on_cont)
    load_timetravel()


register()
