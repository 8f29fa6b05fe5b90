# stepping.py: next and step over a preemption under gdb (docs/gdb.md): the hooks
# after next and step (libreplay-step-fixup) that end them in the program, not in
# the runtime's handler or a counter stub. Loaded by libreplay.py, which hands it its
# own module (`lr`); the names defined here are libreplay.py's too.

import gdb

lr = None  # libreplay.py, set by its load()

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
    return (f.name(), lr.u64(older.read_register("rsp")) if older is not None else 0)


def begin_step(cmd):
    """The pre-hook of next/step (and the post-hook before it steps again): the
    running thread is the one stepped."""
    Stepping.cmd = cmd
    Stepping.origin = frame_key(gdb.selected_frame()) if lr.live() else None
    if lr.live():
        arm_step_stops(int(lr.glob("rp_cur")["tid"]))


def arm_step_stops(tid):
    """Ask the runtime to stop in rp_debug_preempting if green thread tid is preempted,
    and have the breakpoints there (debug.c). False with an older runtime."""
    if not lr.set_debug("step_tid", tid):
        return False
    for fn in ("rp_debug_preempting", "rp_debug_resumed"):
        bp = Stepping.stops.get(fn)
        if bp is None or not bp.is_valid():
            Stepping.stops[fn] = SilentStop(fn)
    return True


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
        lr.ungate()
        lr.announce()

    def fix(self, cmd):
        if lr.live():
            lr.set_debug("step_tid", 0)
        for _ in range(16):
            if not lr.live():
                return
            name = gdb.newest_frame().name() or ""
            if name == "rp_debug_preempting" or in_preempt_handler():
                if not self.rejoin(int(lr.glob("rp_cur")["tid"])):
                    return
                if cmd == "next" and not self.back_to_origin(int(lr.glob("rp_cur")["tid"])):
                    return
            elif not lr.is_stub(gdb.newest_frame()):
                return
            elif lr.far_stub_return(gdb.newest_frame()) is not None:
                # A counting point's stub: the runtime returns to the program, not
                # to the stub (gdb would step into it). Go there first; at the start
                # of a line the step ends, as it would have coming back from a stub.
                back = lr.far_stub_return(gdb.newest_frame())
                if not run_to(back, int(lr.glob("rp_cur")["tid"])):
                    return
                if gdb.find_pc_line(back).pc == back:
                    return
            # On from the signal frame or the stub, as the user's command would have.
            # gdb runs no hook-next for a next inside hookpost-next: ask for the
            # runtime's stops here.
            begin_step(cmd)
            quiet(gdb.execute(cmd, to_string=True))
            Stepping.cmd = None
            lr.set_debug("step_tid", 0)

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
        if lr.set_debug("resume_tid", tid):
            out = gdb.execute("continue", to_string=True)
            back = lr.live() and (gdb.newest_frame().name() or "") == "rp_debug_resumed"
        else:  # an older runtime: finish, stopping on every other thread's return
            out = gdb.execute("finish", to_string=True)
            back = lr.live() and gdb.newest_frame().type() == gdb.SIGTRAMP_FRAME
        if not lr.live():  # it ended while others ran: say how
            quiet(out)
            return False
        if not back or int(lr.glob("rp_cur")["tid"]) != tid:
            lr.set_debug("resume_tid", 0)
            gdb.write("libreplay: stopped while green thread %d was preempted:\n" % tid)
            gdb.execute("frame")
            return False
        f = gdb.newest_frame()
        while f is not None and f.type() != gdb.SIGTRAMP_FRAME:
            f = f.older()
        if f is None:
            # Preempted in a counting point's overflow (no signal frame): the runtime
            # returns to the program where the counting point goes on.
            f = lr.user_frame()
            return f is None or run_to(f.pc(), tid)
        if f.older() is None:
            return True
        return run_to(f.older().pc(), tid)


def run_to(pc, tid):
    """Continue until thread tid is at pc, silently. False if it stopped elsewhere
    (said). No time slice ends on the way in a replay, but a logged preemption may be
    there: at pc itself when a stub's counter ran out just before it (the logged
    preemption is where the stub resumes). Then the runtime stops in
    rp_debug_preempting, and the others run to where tid runs again with no
    breakpoint of ours in their way (at a hot pc each of their passes would be a
    stop: half a minute of them in a loop)."""
    while True:
        bp = lr.ThreadPc(pc, tid)
        armed = arm_step_stops(tid)
        out = gdb.execute("continue", to_string=True)
        if bp.is_valid():
            bp.delete()
        if armed and lr.live():
            lr.set_debug("step_tid", 0)
        if not lr.live():
            quiet(out)
            return False
        if not armed or (gdb.newest_frame().name() or "") != "rp_debug_preempting":
            break
        if not StepFixup.rejoin(tid):
            return False
        if gdb.newest_frame().pc() == pc:
            return True
    if gdb.newest_frame().pc() != pc or int(lr.glob("rp_cur")["tid"]) != tid:
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


def clear_requests():
    """No step under way: the runtime's step stops are off."""
    if lr.live():
        lr.set_debug("step_tid", 0)
        lr.set_debug("resume_tid", 0)
