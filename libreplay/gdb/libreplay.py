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
# It reads the runtime's state through the DWARF of libreplay.a (compiled with -g, so
# in every program linked with it) and writes only rp_debug (libreplay/debug.c). It
# makes our signals silent: SIGPROF (the recording's time slice) and SIG41 (SIGRTMIN+7,
# the replay's hardware breakpoint, RP_BP_SIGNAL in replay.c).
#
# Looking at another green thread loads its saved stack pointer and resume address
# into the one kernel thread's registers; the real ones are put back before anything
# resumes the program (hooks on every command that resumes it) and on `rthread`.

import re
import sys

import gdb

SIGNALS = ("SIGPROF", "SIG41")
# A caller in instrumented code passes this in %r15 (sic_rt.S, RP_SIC_TOKEN).
SIC_TOKEN = (-0x61A53F22) & (2**64 - 1)
REG_R15 = 7  # index in ucontext's gregs (<sys/ucontext.h>)
STATES = ["runnable", "running", "blocked", "exited", "abandoned"]
# Commands that resume the program: each gets a hook that puts the registers back.
RESUMING = ["run", "start", "starti", "continue", "next", "step", "stepi", "nexti",
            "finish", "until", "advance", "jump", "signal", "kill", "detach", "quit",
            "checkpoint", "restart"]


class ReplayError(gdb.GdbError):
    pass


# ---- the runtime's state ---------------------------------------------------------

def static(name, source):
    """The static variable name defined in the runtime's file source (e.g. replay.c)."""
    for sym in gdb.lookup_static_symbols(name):
        if sym.symtab and sym.symtab.filename.endswith(source):
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
    """Is pc in code sicpp instrumented (sic.c's table of ranges)?"""
    ranges, n = static("ranges", "sic.c"), int(static("nranges", "sic.c"))
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


def is_stub(frame):
    # sicpp names a counter stub "FUNCTION.sic_stub.N" (gdb shows FUNCTION.sic_stub);
    # its frame is FUNCTION's, at a counting point.
    return ".sic_stub" in (frame.name() or "")


def user_frame(frame=None):
    """The innermost frame of the program's own (instrumented) code, or None."""
    f = frame or gdb.newest_frame()
    while f is not None:
        if is_stub(f) or instrumented(f.pc()):
            return f
        f = f.older()
    return None


def at_entry_check(frame):
    """Is frame at a function's entry check (cmp $TOKEN, %r15; jne foreign)? There
    %r15 is still the caller's: the count is in __sic_home."""
    blk = gdb.block_for_pc(frame.pc())
    while blk is not None and blk.function is None:
        blk = blk.superblock
    if blk is None:
        return False
    insns = frame.architecture().disassemble(blk.start, count=2)
    return "0xffffffff9e5ac0de" in insns[0]["asm"] and \
        frame.pc() <= insns[-1]["addr"]


def counter_in_r15(frame):
    return frame.pc() != 0 and instrumented(frame.pc()) and not at_entry_check(frame)


def running_counter():
    """The running thread's counter, from the real registers (not switched)."""
    f = gdb.newest_frame()
    while f is not None:
        if f.name() == "__sic_overflow":
            return 0  # the counter reached zero; the runtime has not reloaded it yet
        if is_stub(f):
            break  # inside a stub, not in __sic_overflow: the runtime published it
        if f.pc() and instrumented(f.pc()):
            r15 = u64(f.read_register("r15"))
            if r15 == SIC_TOKEN or not counter_in_r15(f):
                break
            return r15
        f = f.older()
    return u64(glob("__sic_home"))  # in the runtime, libc, or before main: published


def count_of(st, cur_ext):
    """A green thread's SIC count: offset - counter (struct rp_thread, rp_impl.h)."""
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


def where(frame):
    if frame is None:
        return "(in the runtime)"
    if is_stub(frame):
        back = stub_return(frame)
        name = (frame.name() or "").split(".sic_stub")[0]
        sal = gdb.find_pc_line(back) if back else None
    else:
        name, sal = frame.name() or "0x%x" % frame.pc(), frame.find_sal()
    if sal and sal.symtab:
        return "%s at %s:%d" % (name, sal.symtab.filename, sal.line)
    return name


# ---- looking at another green thread ------------------------------------------------

class View:
    """The green thread whose registers the kernel thread shows, and the real ones."""
    tid = None   # None: the real registers
    saved = None  # (rsp, rip) of the real thread
    hooks_added = False


def set_regs(rsp, rip):
    gdb.execute("select-frame 0", to_string=True)  # registers are writable there only
    gdb.execute("set $rsp = %d" % rsp, to_string=True)
    gdb.execute("set $pc = %d" % rip, to_string=True)


def restore():
    if View.tid is None:
        return
    rsp, rip = View.saved
    View.tid, View.saved = None, None
    if live():
        set_regs(rsp, rip)
        gdb.execute("select-frame 0", to_string=True)


def find_green(tid):
    for st in green_threads():
        if int(st["id"]) == tid:
            return st
    raise ReplayError("No green thread %d." % tid)


def switch_to(tid):
    """Show green thread tid; returns its innermost user frame (or frame 0)."""
    need_live()
    restore()
    st = find_green(tid)
    if int(st["ext"]) == current_ext() or STATES[int(st["state"])] == "running":
        return user_frame() or gdb.newest_frame()
    state = STATES[int(st["state"])]
    if state not in ("runnable", "blocked"):
        raise ReplayError("Green thread %d has %s: it has no stack to show." % (tid, state))
    add_hooks()
    frame0 = gdb.newest_frame()
    View.saved = (u64(frame0.read_register("rsp")), u64(frame0.read_register("rip")))
    View.tid = tid
    resume = u64(gdb.parse_and_eval("(unsigned long)&sched_switch_resume"))
    set_regs(u64(st["sp"]), resume)
    return user_frame() or gdb.newest_frame()


def add_hooks():
    """A hook on each resuming command puts the real registers back first."""
    if View.hooks_added:
        return
    View.hooks_added = True
    for cmd in RESUMING:
        try:
            mine = gdb.execute("show user hook-" + cmd, to_string=True)
        except gdb.error:
            mine = ""  # not defined
        if mine.strip() and "libreplay-restore" not in mine:
            gdb.write("libreplay: hook-%s is yours: type `rthread` before `%s` when "
                      "looking at a green thread\n" % (cmd, cmd))
            continue
        gdb.execute("define hook-%s\nlibreplay-restore %s\nend" % (cmd, cmd), to_string=True)


# ---- stepping over a preemption ----------------------------------------------------
# A signal that arrives while gdb steps a thread (the replay's breakpoint, the
# recording's time slice) preempts it. Left to itself, gdb either steps into our
# handler (an inlined function's lines are single-stepped: the step ends on the
# handler's first line) or lets the program run with a breakpoint at the interrupted
# pc, to catch the thread's return: every other green thread runs the same code, and
# each of its passes there is a stop that gdb checks and resumes (86 s for one `next`
# in tests/gdb's racy.c). So while a `next` or `step` is under way the extension sets
# rp_debug.step_tid and the runtime stops in rp_debug_preempting before preempting
# that thread (debug.c); the command ends there, and its post-hook asks for a stop
# when the thread runs again (rp_debug.resume_tid, rp_debug_resumed), continues with
# no breakpoint in the program, runs the thread to where it goes back into the
# program (a breakpoint there, but only this thread runs now: a replay has no time
# slices), out of a function the `next` was stepping over if it was preempted in one,
# and steps again, so that `next` and `step` end in the program as they would
# without us.
STEPPING = ["next", "step"]
PREEMPT_HANDLERS = ("on_trap", "on_tick")


def in_preempt_handler():
    f = gdb.newest_frame()
    if (f.name() or "") not in PREEMPT_HANDLERS:
        return False
    older = f.older()
    return older is not None and older.type() == gdb.SIGTRAMP_FRAME


def set_debug(field, value):
    """rp_debug.field = value; False if this runtime has no such field (an older one)."""
    try:
        glob("rp_debug")[field]
    except (gdb.error, ReplayError):
        return False
    gdb.execute("set var rp_debug.%s = %d" % (field, value), to_string=True)
    return True


class SilentStop(gdb.Breakpoint):
    """A silent, internal breakpoint in one of debug.c's stop functions."""

    def __init__(self, fn):
        super().__init__(fn, internal=True)
        self.silent = True

    def stop(self):
        return True


class Stepping:
    cmd = None     # "next" or "step" while one is under way (set by its pre-hook)
    origin = None  # frame_key of the frame it steps in
    fixing = False # libreplay-step-fixup is running (its own resumes keep the requests)
    stops = {}     # rp_debug_preempting, rp_debug_resumed: their SilentStop


def frame_key(f):
    """What identifies a frame across a resume: its function and its caller's sp."""
    older = f.older()
    return (f.name(), u64(older.read_register("rsp")) if older is not None else 0)


def begin_step(cmd):
    """The pre-hook of next/step (and the post-hook before it steps again): the
    running thread is the one stepped."""
    Stepping.cmd = cmd
    Stepping.origin = frame_key(gdb.selected_frame()) if live() else None
    if not live() or not set_debug("step_tid", int(glob("rp_cur")["tid"])):
        return
    for fn in ("rp_debug_preempting", "rp_debug_resumed"):
        bp = Stepping.stops.get(fn)
        if bp is None or not bp.is_valid():
            Stepping.stops[fn] = SilentStop(fn)


NOISE = ("Single stepping until exit", "which has no line number information", "Run till exit")


def quiet(out):
    gdb.write("".join(line + "\n" for line in out.splitlines() if not line.startswith(NOISE)))


class StepFixup(gdb.Command):
    """Used by the hookpost- of next and step: if the step ended in the runtime's
preemption handler, or in a counter stub, go on until it ends in the program."""

    def __init__(self):
        super().__init__("libreplay-step-fixup", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        cmd = arg.strip() or "next"
        Stepping.cmd = None
        Stepping.fixing = True
        try:
            self.fix(cmd)
        finally:
            Stepping.fixing = False
            Stepping.cmd = None
            clear_requests()

    def fix(self, cmd):
        if live():
            set_debug("step_tid", 0)
        for _ in range(16):
            if not live():
                return
            name = gdb.newest_frame().name() or ""
            if name == "rp_debug_preempting" or in_preempt_handler():
                if not self.rejoin(int(glob("rp_cur")["tid"])):
                    return
                if cmd == "next" and not self.back_to_origin(int(glob("rp_cur")["tid"])):
                    return
            elif not is_stub(gdb.newest_frame()):
                return
            # On from the signal frame or the stub, as the user's command would have.
            # gdb runs no hook-next for a next inside hookpost-next: ask for the
            # runtime's stops here.
            begin_step(cmd)
            quiet(gdb.execute(cmd, to_string=True))
            Stepping.cmd = None
            set_debug("step_tid", 0)

    @staticmethod
    def back_to_origin(tid):
        """If thread tid was preempted in a function the `next` was stepping over
        (deeper than where it started), run to that call's return first."""
        f = gdb.newest_frame()
        while f is not None:
            if Stepping.origin is not None and frame_key(f) == Stepping.origin:
                break
            f = f.older()
        if f is None or f.level() == 0:
            return True  # not found, or there already: step on from here
        return run_to(f.pc(), tid)

    @staticmethod
    def rejoin(tid):
        """Thread tid is being preempted: let the others run until it runs again, then
        run it out of the handler to the program. False if something else stopped
        the program first (said), or it ended."""
        if set_debug("resume_tid", tid):
            out = gdb.execute("continue", to_string=True)
            back = live() and (gdb.newest_frame().name() or "") == "rp_debug_resumed"
        else:  # an older runtime: finish, stopping on every other thread's return
            out = gdb.execute("finish", to_string=True)
            back = live() and gdb.newest_frame().type() == gdb.SIGTRAMP_FRAME
        if not live():  # it ended while others ran: say how
            quiet(out)
            return False
        if not back or int(glob("rp_cur")["tid"]) != tid:
            set_debug("resume_tid", 0)
            gdb.write("libreplay: stopped while green thread %d was preempted:\n" % tid)
            gdb.execute("frame")
            return False
        f = gdb.newest_frame()
        while f is not None and f.type() != gdb.SIGTRAMP_FRAME:
            f = f.older()
        if f is None or f.older() is None:
            return True
        return run_to(f.older().pc(), tid)


class ThreadPc(gdb.Breakpoint):
    """Temporary and silent, at pc, for green thread tid only: where it goes on in the
    program (gdb deletes it once stop() says yes)."""

    def __init__(self, pc, tid):
        super().__init__("*0x%x" % pc, internal=True, temporary=True)
        self.silent = True
        self.tid = tid

    def stop(self):
        return int(glob("rp_cur")["tid"]) == self.tid


def run_to(pc, tid):
    """Continue until thread tid is at pc (nothing else runs before it gets there:
    no time slices in a replay), silently. False if it stopped elsewhere (said)."""
    bp = ThreadPc(pc, tid)
    out = gdb.execute("continue", to_string=True)
    if bp.is_valid():
        bp.delete()
    if not live():
        quiet(out)
        return False
    if gdb.newest_frame().pc() != pc or int(glob("rp_cur")["tid"]) != tid:
        gdb.write("libreplay: stopped before green thread %d went back to the program:\n" % tid)
        gdb.execute("frame")
        return False
    return True


def add_step_hooks():
    for cmd in STEPPING:
        try:
            mine = gdb.execute("show user hookpost-" + cmd, to_string=True)
        except gdb.error:
            mine = ""
        if mine.strip() and "libreplay-step-fixup" not in mine:
            continue  # the user's own: leave it
        gdb.execute("define hookpost-%s\nlibreplay-step-fixup %s\nend" % (cmd, cmd),
                    to_string=True)


class RestoreCmd(gdb.Command):
    """Put the running thread's registers back (after rthread N). Used by hooks."""

    def __init__(self):
        super().__init__("libreplay-restore", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        restore()
        if arg.strip() in ("checkpoint", "restart") and timetravel is not None:
            timetravel.before_checkpoint()
        if Stepping.fixing:
            return  # the post-hook's own resumes: it manages the requests
        if arg.strip() in STEPPING:
            begin_step(arg.strip())
        else:
            Stepping.cmd = None
            clear_requests()  # a next that failed left them: not for a continue


def clear_requests():
    """No step under way: the runtime's step stops are off."""
    if live():
        set_debug("step_tid", 0)
        set_debug("resume_tid", 0)


# ---- commands ---------------------------------------------------------------------

class InfoRthreads(gdb.Command):
    """List the green threads: id, state, SIC count, where it is.
The running one is marked with *, the one rthread shows with >."""

    def __init__(self):
        super().__init__("info rthreads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        need_live()
        viewing = View.tid
        restore()
        cur = current_ext()
        rows = []
        try:
            for st in green_threads():
                tid, state = int(st["id"]), STATES[int(st["state"])]
                if int(st["ext"]) == cur:
                    state = "running"
                if state == "blocked":
                    kind = str(st["wait_kind"]).replace("SCHED_WAIT_", "").lower()
                    state = "blocked (%s)" % kind
                count = count_of(st, cur)
                if state == "running":
                    at = where(user_frame())
                elif state.startswith(("runnable", "blocked")):
                    f = switch_to(tid)
                    at = where(f) if instrumented(f.pc()) else "(not started)"
                    restore()
                else:
                    at = ""
                rows.append((tid, state, count, at))
        finally:
            restore()
            if viewing is not None:
                switch_to(viewing)
        gdb.write("  %-4s %-20s %-12s %s\n" % ("Id", "State", "Count", "Where"))
        for tid, state, count, at in rows:
            mark = ">" if tid == viewing else ("*" if state == "running" else " ")
            gdb.write("%s %-4d %-20s %-12s %s\n" % (mark, tid, state,
                                                  "-" if count is None else count, at))


class Rthread(gdb.Command):
    """Look at a green thread: rthread N; back to the running one: rthread.
bt, frame, up, info locals then work on N's stack. The real registers come back
before the program resumes (continue, step, ...)."""

    def __init__(self):
        super().__init__("rthread", gdb.COMMAND_STACK, prefix=True)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if not arg:
            restore()
            if live():
                gdb.write("[back to the running thread]\n")
                show(user_frame() or gdb.newest_frame())
            return
        tid = parse_int(arg, "rthread N")
        f = switch_to(tid)
        gdb.write("[looking at green thread %d]\n" % tid)
        show(f)


class RthreadApply(gdb.Command):
    """rthread apply N|all COMMAND: run COMMAND on green thread N (or each), then return."""

    def __init__(self):
        super().__init__("rthread apply", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        m = re.match(r"\s*(all|\d+)\s+(.+)", arg)
        if not m:
            raise ReplayError("Usage: rthread apply N|all COMMAND")
        need_live()
        viewing = View.tid
        tids = [int(st["id"]) for st in green_threads()
                if STATES[int(st["state"])] in ("runnable", "blocked", "running")] \
            if m.group(1) == "all" else [int(m.group(1))]
        try:
            for tid in tids:
                gdb.write("\nGreen thread %d:\n" % tid)
                f = switch_to(tid)
                f.select()
                gdb.execute(m.group(2), from_tty)
                restore()
        finally:
            restore()
            if viewing is not None:
                switch_to(viewing)


def show(frame):
    frame.select()
    gdb.execute("frame", to_string=False)


def parse_int(s, usage):
    try:
        return int(gdb.parse_and_eval(s))
    except (gdb.error, ValueError):
        raise ReplayError("Usage: " + usage)


class Replay(gdb.Command):
    """libreplay: replay status, replay stop-at THREAD COUNT."""

    def __init__(self):
        super().__init__("replay", gdb.COMMAND_RUNNING, prefix=True)


def pc_desc(pc):
    blk = gdb.block_for_pc(pc)
    while blk is not None and blk.function is None:
        blk = blk.superblock
    sal = gdb.find_pc_line(pc)
    s = "0x%x" % pc
    if blk is not None:
        s += " in %s" % blk.function.name
    if sal.symtab:
        s += " at %s:%d" % (sal.symtab.filename, sal.line)
    return s


class ReplayStatus(gdb.Command):
    """Where the replay is: record n of N, the next preemption, a pending stop-at."""

    def __init__(self):
        super().__init__("replay status", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        need_live()
        opts = glob("rp_opts")
        if not bool(glob("rp_replaying")):
            mode = str(opts["mode"]).replace("RP_MODE_", "").lower()
            gdb.write("not replaying (mode: %s)\n" % mode)
            return
        recs = static("recs", "replay.c")
        n, nxt = int(static("nrecs", "replay.c")), int(static("next_rec", "replay.c"))
        base = u64(static("exe_base", "replay.c"))
        path = opts["log_path"].string()
        gdb.write("replaying %s: %d of %d records done\n" % (path, nxt, n))
        for i in range(nxt, min(n, nxt + 100000)):
            r = recs[i]
            if str(r["kind"]) == "RP_LOG_PREEMPT":
                gdb.write("next preemption: record %d of %d: thread %d at count %d, pc %s\n" %
                          (i + 1, n, int(r["tid"]), u64(r["count"]), pc_desc(base + u64(r["pc"]))))
                break
        else:
            gdb.write("no preemption left in the log\n")
        dbg = glob("rp_debug")
        if int(dbg["stop_tid"]):
            gdb.write("stop requested: thread %d at count %d\n" %
                      (int(dbg["stop_tid"]), u64(dbg["stop_count"])))


class StopAt:
    bp = None     # the breakpoint in rp_debug_stopped
    back = None   # the temporary one where the counter stub returns to the program
    tid = count = None


class ReplayStopAt(gdb.Command):
    """replay stop-at THREAD COUNT: stop when green thread THREAD reaches SIC count
COUNT (a breakpoint by time). The stop is shown at that instruction of the program."""

    def __init__(self):
        super().__init__("replay stop-at", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        a = gdb.string_to_argv(arg)
        if len(a) != 2:
            raise ReplayError("Usage: replay stop-at THREAD COUNT")
        tid, count = parse_int(a[0], "replay stop-at THREAD COUNT"), \
            parse_int(a[1], "replay stop-at THREAD COUNT")
        if tid < 1 or count < 1:
            raise ReplayError("replay stop-at: THREAD and COUNT are positive")
        need_live()
        if not bool(glob("rp_replaying")):
            raise ReplayError("replay stop-at: the program is not replaying a log")
        restore()
        cur = current_ext()
        now = None
        for st in green_threads():
            if int(st["id"]) == tid:
                now = count_of(st, cur)
                if now is not None and now >= count:
                    raise ReplayError("Green thread %d is at count %d already." % (tid, now))
                if STATES[int(st["state"])] in ("exited", "abandoned"):
                    raise ReplayError("Green thread %d has exited." % tid)
        gdb.execute("set var rp_debug.stop_tid = %d" % tid, to_string=True)
        gdb.execute("set var rp_debug.stop_count = %d" % count, to_string=True)
        StopAt.tid, StopAt.count = tid, count
        ensure_stop_bp()
        if int(glob("rp_cur")["tid"]) == tid:
            reload_running(count)
        gdb.write("will stop when green thread %d reaches count %d%s\n" %
                  (tid, count, "" if now is None else " (it is at %d)" % now))


def reload_running(count):
    """The running thread's counter was loaded before the request: if the stop comes
    first, load it again so that it reaches zero there (the runtime clips the next
    loads itself)."""
    f = gdb.newest_frame()
    cur = glob("rp_cur")
    offset = u64(cur["offset"])
    if counter_in_r15(f) and u64(f.read_register("r15")) != SIC_TOKEN:
        counter = u64(f.read_register("r15"))
        where = "$r15"
    else:
        uf = user_frame()
        if uf is not None and (is_stub(uf) or (uf.level() > 0 and
                               u64(uf.read_register("r15")) != SIC_TOKEN)):
            return  # inside the overflow path: the runtime reloads it from rp_debug
        counter = u64(glob("__sic_home"))
        where = "__sic_home"
    now = u64(offset - counter)
    if count - now < counter:
        gdb.execute("set var %s = %d" % (where, count - now), to_string=True)
        gdb.execute("set var rp_cur->offset = %d" % count, to_string=True)


def ensure_stop_bp():
    if StopAt.bp is None or not StopAt.bp.is_valid():
        StopAt.bp = StopBreakpoint()


class StopBreakpoint(gdb.Breakpoint):
    """In rp_debug_stopped: the counter reached the requested count inside the counter's
    overflow path. Stop where the program resumes instead: the stub's jump back."""

    def __init__(self):
        super().__init__("rp_debug_stopped", internal=True)
        self.silent = True

    def stop(self):
        f = gdb.newest_frame()
        while f is not None and not is_stub(f):
            f = f.older()
        target = f and stub_return(f)
        dbg = glob("rp_debug")
        StopAt.tid, StopAt.count = int(dbg["hit_tid"]), u64(dbg["hit_count"])
        if target is None:
            return True  # shown here by on_stop
        ReturnBreakpoint(target, StopAt.tid)
        return False


def stub_return(frame):
    """Where a counter stub jumps back to the program (lea; [xchg;] jmp back)."""
    arch = frame.architecture()
    for insn in arch.disassemble(frame.pc(), count=4):
        m = re.match(r"jmp\s+(0x[0-9a-f]+)", insn["asm"])
        if m:
            return int(m.group(1), 16)
    return None


class ReturnBreakpoint(ThreadPc):
    """Where thread tid goes back into the program at the requested count."""

    def __init__(self, pc, tid):
        super().__init__(pc, tid)
        StopAt.back = self

    def stop(self):
        if not super().stop():
            return False
        StopAt.back = None
        return True


def on_stop(event):
    if type(event) is gdb.StopEvent and live():
        f = gdb.newest_frame()
        if is_stub(f) and Stepping.cmd is None:
            # stepi/until... reached a counting point whose counter ran out (a logged
            # preemption is near): gdb stops here, where no line is. (After next and
            # step, libreplay-step-fixup goes on.)
            gdb.write("libreplay: in the instruction counter's stub of %s; next or step "
                      "goes on\n" % where(f))
        return
    if isinstance(event, gdb.SignalEvent) and live() and in_crash_handler():
        gdb.write("libreplay: the crash handler has finished the log and raised %s again; "
                  "continue ends the program\n" % event.stop_signal)
        return
    bps = getattr(event, "breakpoints", None) or []
    if any(b is StopAt.back or isinstance(b, ReturnBreakpoint) for b in bps) or \
            (StopAt.bp is not None and StopAt.bp in bps):
        gdb.write("replay: green thread %d reached count %d\n" % (StopAt.tid, StopAt.count))
        f = user_frame() or gdb.newest_frame()
        f.select()
        gdb.execute("frame")


def in_crash_handler():
    """Is this stop the runtime's crash handler (on_fatal in replay.c) raising the
    signal again? Its last act is rp_crash_reraise, so the stack reads: that (and
    its inlined system call), maybe on_fatal, then the signal frame. It is
    installed while recording or replaying."""
    f = gdb.newest_frame()
    while f is not None and (f.name() or "") in ("rp_raw_syscall", "rp_crash_reraise", "on_fatal"):
        f = f.older()
    return f is not None and f.level() > 0 and f.type() == gdb.SIGTRAMP_FRAME and \
        str(glob("rp_opts")["mode"]) != "RP_MODE_OFF"


def on_exit(event):
    View.tid, View.saved = None, None
    if StopAt.back is not None and StopAt.back.is_valid():
        StopAt.back.delete()  # not for the next run
    StopAt.back = None


def on_cont(event):
    if View.tid is not None:
        # A resume the hooks did not see (MI, a Python script's own resume):
        # the registers were the green thread's. Say so loudly.
        gdb.write("libreplay: warning: the program resumed while showing green thread "
                  "%d; its state is now wrong\n" % View.tid, gdb.STDERR)
        View.tid, View.saved = None, None


class Rcount(gdb.Function):
    """$rcount(N): green thread N's SIC count (-1: no such thread), e.g.
break bump if $rcount(2) > 5000."""

    def __init__(self):
        super().__init__("rcount")

    def invoke(self, tid):
        cur = current_ext()
        for st in green_threads():
            if int(st["id"]) == int(tid):
                c = count_of(st, cur)
                return gdb.Value(-1 if c is None else c).cast(gdb.lookup_type("long"))
        return gdb.Value(-1).cast(gdb.lookup_type("long"))


# ---- loading -------------------------------------------------------------------------

def setup_signals():
    for sig in SIGNALS:
        gdb.execute("handle %s nostop noprint pass" % sig, to_string=True)


# Going back in time (timetravel.py, beside this file): its own module, handed this one.
timetravel = None


def load_timetravel():
    global timetravel
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "timetravel.py")
    spec = importlib.util.spec_from_file_location("libreplay_timetravel", path)
    timetravel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timetravel)
    timetravel.register(sys.modules[__name__])


def register():
    # Once per gdb session, however often it is sourced (wrapper and gdbinit both).
    if getattr(gdb, "libreplay_loaded", False):
        return
    gdb.libreplay_loaded = True
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
    gdb.events.stop.connect(on_stop)
    gdb.events.exited.connect(on_exit)
    gdb.events.cont.connect(on_cont)
    load_timetravel()


register()
