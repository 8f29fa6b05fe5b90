# stops.py: the stops of libreplay's gdb extension (docs/gdb.md): replay status and
# replay stop-at, count conditions ($rcount in a breakpoint's condition), the
# outcome's and the log end's stops, the software breakpoint's trap. Loaded by
# libreplay.py, which hands it its own module (`lr`) for the runtime's state; the
# names defined here are libreplay.py's too.

import re

import gdb

lr = None  # libreplay.py, set by its load()

OUTCOMES = {2: ("deadlock", 87), 3: ("hang", 88)}  # RP_LOG_DEADLOCK, RP_LOG_HANG (log.h)


# ---- the run's end; replay status and replay stop-at --------------------------------

class OutcomeStop(gdb.Breakpoint):
    """In rp_debug_outcome: the run ends in a deadlock or a hang. Stop there, with the
    program's frame of the thread that was running selected."""

    def __init__(self):
        super().__init__("rp_debug_outcome", internal=True)
        self.silent = True

    def stop(self):
        how = int(gdb.parse_and_eval("how"))
        name, status = OUTCOMES.get(how, ("end", 0))
        if going_back():
            return True  # reached again by a reverse command: said already
        gdb.write("libreplay: %s: the run ends here (exit status %d on continue); "
                  "info rthreads shows each green thread, rthread N looks at one\n" %
                  (name, status))
        return True


def ensure_outcome_bp(event=None):
    """Once the program's symbols are there (now, or with its objfile)."""
    if getattr(gdb, "libreplay_outcome_bp", None) is not None:
        return
    try:
        if gdb.lookup_global_symbol("rp_debug_outcome") is None:
            return
        gdb.libreplay_outcome_bp = OutcomeStop()
    except gdb.error:
        pass


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
        lr.need_live()
        opts = lr.glob("rp_opts")
        if not bool(lr.glob("rp_replaying")):
            mode = str(opts["mode"]).replace("RP_MODE_", "").lower()
            gdb.write("not replaying (mode: %s)\n" % mode)
            return
        # The replay reads the log as it goes: what there is of it in memory is
        # rp_replay_view (engine/schedule/replay.c).
        v = lr.glob("rp_replay_view")
        n, nxt = lr.u64(v["total"]), lr.u64(v["done"])
        base = lr.u64(lr.glob("rp_exe_base"))
        path = opts["log_path"].string()
        gdb.write("replaying %s: %d of %d records done\n" % (path, nxt, n))
        if int(v["ended"]):
            gdb.write("the log has ended: the program runs on with time slices, unrecorded\n")
        elif lr.u64(v["next_preempt_recno"]):
            gdb.write("next preemption: record %d of %d: thread %d at count %d, pc %s\n" %
                      (lr.u64(v["next_preempt_recno"]), n, int(v["next_preempt_tid"]),
                       lr.u64(v["next_preempt_count"]),
                       pc_desc(base + lr.u64(v["next_preempt_pc"]))))
        elif int(v["lookahead"]):
            gdb.write("no preemption left in the log\n")
        else:
            gdb.write("next preemption: not known (the replay was not started under gdb)\n")
        for number, (tid, count) in sorted(StopAt.user.items()):
            gdb.write("stop %d: green thread %d at count %d\n" % (number, tid, count))
        for bp in gdb.breakpoints():
            if count_terms(bp):
                gdb.write("breakpoint %d: its condition (%s) is decided by thread counts\n" %
                          (bp.number, bp.condition))


class StopAt:
    bp = None     # the breakpoint in rp_debug_stopped
    back = None   # the temporary one where the counter stub returns to the program
    tid = count = None  # the stop being shown
    user = {}     # replay stop-at's requests: number -> (tid, count)
    number = 0    # the last number given
    gates = set() # numbers of user breakpoints the extension disabled (gating)
    start = None  # StartStop
    early = set() # numbers of stops asked before run: checked where the program starts
    log_end = None  # LogEndStop


# ---- the runtime's stop requests (rp_debug.stops, debug.c) ----------------------------

def stop_slots():
    """What rp_debug.stops should hold: replay stop-at's requests, and the counts where
    a gated breakpoint's condition turns true or false."""
    want = set(StopAt.user.values())
    for bp in gdb.breakpoints():
        for tid, lo, hi in count_terms(bp) or ():
            now = rcount(tid)
            for c in (lo, hi):
                if c is not None and c > max(now, 0):
                    want.add((tid, c))
    return sorted(want)


def write_stops():
    """Put the requests into rp_debug.stops; the running thread's live counter is
    loaded again if one of its own comes before the counter runs out."""
    want = stop_slots()
    dbg = lr.glob("rp_debug")
    size = int(dbg["stops"].type.range()[1]) + 1
    if len(want) > size:
        raise lr.ReplayError("libreplay: more than %d stops and count conditions at once" % size)
    old = int(dbg["nstops"])
    for i, (tid, count) in enumerate(want):
        if (int(dbg["stops"][i]["tid"]), lr.u64(dbg["stops"][i]["count"])) != (tid, count):
            gdb.execute("set var rp_debug.stops[%d].count = %d" % (i, count), to_string=True)
            gdb.execute("set var rp_debug.stops[%d].tid = %d" % (i, tid), to_string=True)
    for i in range(len(want), old):
        gdb.execute("set var rp_debug.stops[%d].tid = 0" % i, to_string=True)
    if old != len(want):
        gdb.execute("set var rp_debug.nstops = %d" % len(want), to_string=True)
    if want:
        ensure_stop_bp()
    cur = int(lr.glob("rp_cur")["tid"])
    for tid, count in want:
        if tid == cur and count > rcount(tid):
            reload_running(count)


def replaying():
    return lr.live() and bool(lr.glob("rp_replaying"))


# ---- count conditions, decided by the runtime ----------------------------------------
# A breakpoint whose condition is `$rcount(T) > N` (or >=, <, <=, ==, and such terms
# joined by && with anything else) can only be true while thread T's count is in a
# window, and counts only grow: so while the count is outside the window the extension
# disables the breakpoint (gdb then never stops there, whatever passes), asks the
# runtime to stop where the count enters or leaves it, and enables or disables the
# breakpoint there. gdb still evaluates the condition at the stops that remain. At
# every stop the user sees the breakpoints as they set them.

COUNT_TERM = re.compile(r"^\(*\s*\$rcount\s*\(\s*(\d+)\s*\)\s*(<=|>=|==|<|>)\s*(\d+)\s*\)*$")
COUNT_TERM_REV = re.compile(r"^\(*\s*(\d+)\s*(<=|>=|==|<|>)\s*\$rcount\s*\(\s*(\d+)\s*\)\s*\)*$")
FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "=="}


def count_terms(bp):
    """[(tid, lo, hi)]: bp can fire only while lo <= $rcount(tid) < hi (None: no
    bound), for each `$rcount(T) OP N` joined by && in its condition; None if there
    is none, or the condition is not a plain conjunction."""
    cond = bp.condition if bp.is_valid() and bp.number > 0 else None
    if not cond or "||" in cond or "$rcount" not in cond:
        return None
    terms = []
    for part in cond.split("&&"):
        m = COUNT_TERM.match(part.strip())
        if m:
            tid, op, n = int(m.group(1)), m.group(2), int(m.group(3))
        else:
            m = COUNT_TERM_REV.match(part.strip())
            if not m:
                continue
            tid, op, n = int(m.group(3)), FLIP[m.group(2)], int(m.group(1))
        lo, hi = {">": (n + 1, None), ">=": (n, None), "<": (None, n),
                  "<=": (None, n + 1), "==": (n, n + 1)}[op]
        terms.append((tid, lo, hi))
    return terms or None


def rcount(tid):
    """Green thread tid's count now; -1 if it does not exist (yet)."""
    cur = lr.current_ext()
    for st in lr.green_threads():
        if int(st["id"]) == tid:
            c = lr.count_of(st, cur)
            return -1 if c is None else c
    return -1


def gate():
    """Enable or disable each breakpoint with count terms for the counts now."""
    for bp in gdb.breakpoints():
        terms = count_terms(bp)
        if terms is None or not (bp.enabled or bp.number in StopAt.gates):
            continue
        inside = all((lo is None or rcount(t) >= lo) and (hi is None or rcount(t) < hi)
                     for t, lo, hi in terms)
        if inside and bp.number in StopAt.gates:
            StopAt.gates.discard(bp.number)
            bp.enabled = True
        elif not inside and bp.enabled:
            StopAt.gates.add(bp.number)
            bp.enabled = False


def ungate():
    """At a stop: the breakpoints as the user set them."""
    for bp in gdb.breakpoints():
        if bp.number in StopAt.gates:
            bp.enabled = True
    StopAt.gates.clear()


def before_resume():
    """The pre-hook of every resume: gate the count conditions, write the requests.
    Before the program runs, that is done where its main thread starts."""
    if not lr.live():
        if StopAt.start is None or not StopAt.start.is_valid():
            try:
                StopAt.start = StartStop()
            except (gdb.error, RuntimeError):
                StopAt.start = None  # no program loaded yet
        log_end_stop()
        return
    if replaying():
        gate()
        write_stops()


class LogEndStop(gdb.Breakpoint):
    """In rp_debug_log_end: the replay of a log cut short reached its end. Stop there
    once, so the last recorded state can be looked at; continue runs the program on
    with time slices, unrecorded."""

    def __init__(self):
        super().__init__("rp_debug_log_end", internal=True)
        self.silent = True

    def stop(self):
        return not going_back()  # (a reverse command replaying: no stop of the user's)


def going_back():
    """Is timetravel.py moving the replay (going back, or replaying what was seen)?"""
    return lr.timetravel is not None and lr.timetravel.Store.busy


def log_end_stop():
    if StopAt.log_end is None or not StopAt.log_end.is_valid():
        try:
            StopAt.log_end = LogEndStop()
        except (gdb.error, RuntimeError):
            StopAt.log_end = None  # no program loaded yet, or an older runtime


class StartStop(gdb.Breakpoint):
    """Internal, silent, where the main thread starts (main.c's program_main): the
    first place the count conditions can be gated."""

    def __init__(self):
        super().__init__("program_main", internal=True)
        self.silent = True

    def stop(self):
        pass_sigill()
        if replaying():
            check_early()
            gate()
            write_stops()
        return False


def check_early():
    """The stops asked before run, now that the log is open: those the recording
    never reaches are dropped, said on one line each."""
    for n in sorted(StopAt.early):
        if n in StopAt.user:
            try:
                check_against_log(*StopAt.user[n])
            except lr.ReplayError as e:
                del StopAt.user[n]
                gdb.write("%s (stop %d deleted)\n" % (e, n), gdb.STDERR)
    StopAt.early.clear()


class ReplayStopAt(gdb.Command):
    """replay stop-at THREAD COUNT: stop when green thread THREAD reaches SIC count
COUNT (a breakpoint by time). The stop is shown at that instruction of the program.
Several can be set; `replay stop-at` lists them, `replay stop-at delete [N...]`
deletes them (all without N)."""

    USAGE = "replay stop-at THREAD COUNT | replay stop-at | replay stop-at delete [N...]"

    def __init__(self):
        super().__init__("replay stop-at", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        a = gdb.string_to_argv(arg)
        if not a:
            return list_stops()
        if a[0] == "delete":
            return delete_stops([lr.parse_int(x, self.USAGE) for x in a[1:]])
        if len(a) != 2:
            raise lr.ReplayError("Usage: " + self.USAGE)
        tid, count = lr.parse_int(a[0], self.USAGE), lr.parse_int(a[1], self.USAGE)
        if tid < 1 or count < 1:
            raise lr.ReplayError("replay stop-at: THREAD and COUNT are positive")
        if not lr.live():
            # Before run: kept, and checked against the log where the program starts.
            StopAt.number += 1
            StopAt.user[StopAt.number] = (tid, count)
            StopAt.early.add(StopAt.number)
            gdb.write("stop %d: will stop when green thread %d reaches count %d (run starts "
                      "the replay)\n" % (StopAt.number, tid, count))
            return
        lr.need_live()
        if not bool(lr.glob("rp_replaying")):
            raise lr.ReplayError("replay stop-at: the program is not replaying a log")
        lr.restore()
        check_against_log(tid, count)
        cur = lr.current_ext()
        now = None
        for st in lr.green_threads():
            if int(st["id"]) == tid:
                now = lr.count_of(st, cur)
                if now is not None and now >= count:
                    raise lr.ReplayError("Green thread %d is at count %d already." % (tid, now))
                if lr.STATES[int(st["state"])] in ("exited", "abandoned"):
                    raise lr.ReplayError("Green thread %d has exited." % tid)
        StopAt.number += 1
        StopAt.user[StopAt.number] = (tid, count)
        try:
            write_stops()
        except lr.ReplayError:
            del StopAt.user[StopAt.number]
            raise
        gdb.write("stop %d: will stop when green thread %d reaches count %d%s\n" %
                  (StopAt.number, tid, count, "" if now is None else " (it is at %d)" % now))


def final_counts():
    """{tid: count} from the log's END record, or None if the log has none."""
    v = lr.glob("rp_replay_view")
    if not int(v["has_end"]):
        return None
    return {int(v["finals"][k]["tid"]): lr.u64(v["finals"][k]["count"])
            for k in range(int(v["nfinals"]))}


def check_against_log(tid, count):
    finals = final_counts()
    if finals is None:
        return  # a log cut short: it cannot say
    if tid not in finals:
        raise lr.ReplayError("replay stop-at: the recording has no green thread %d (it has %s)" %
                          (tid, ", ".join(str(t) for t in sorted(finals))))
    if count > finals[tid]:
        raise lr.ReplayError("replay stop-at: green thread %d ends at count %d in the recording: "
                          "it never reaches %d" % (tid, finals[tid], count))


def list_stops():
    if not StopAt.user:
        gdb.write("No stops requested.\n")
        return
    for n, (tid, count) in sorted(StopAt.user.items()):
        gdb.write("stop %d: green thread %d at count %d\n" % (n, tid, count))


def delete_stops(numbers):
    for n in numbers:
        if n not in StopAt.user:
            raise lr.ReplayError("replay stop-at: no stop %d" % n)
    for n in numbers or list(StopAt.user):
        del StopAt.user[n]
    if replaying():
        write_stops()


def reload_running(count):
    """The running thread's counter was loaded before the request: if the stop comes
    first, load it again so that it reaches zero there (the runtime clips the next
    loads itself)."""
    f = gdb.newest_frame()
    cur = lr.glob("rp_cur")
    offset = lr.u64(cur["offset"])
    if lr.counter_in_r15(f) and lr.u64(f.read_register("r15")) != lr.SIC_TOKEN:
        counter = lr.u64(f.read_register("r15"))
        where = "$r15"
    else:
        uf = lr.user_frame()
        if uf is not None and (lr.is_stub(uf) or (uf.level() > 0 and
                               lr.u64(uf.read_register("r15")) != lr.SIC_TOKEN)):
            return  # inside the overflow path: the runtime reloads it from rp_debug
        counter = lr.u64(lr.glob("__sic_home"))
        where = "__sic_home"
    now = lr.u64(offset - counter)
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
        dbg = lr.glob("rp_debug")
        hit = (int(dbg["hit_tid"]), lr.u64(dbg["hit_count"]))
        mine = [n for n, req in StopAt.user.items() if req == hit]
        for n in mine:
            del StopAt.user[n]
        gate()  # a count condition may have turned true or false here
        write_stops()
        if lr.timetravel is not None and lr.timetravel.watch_seen():
            return True  # a change of watched bytes (reverse.py): it goes on from here
        if not mine and not (lr.timetravel is not None and lr.timetravel.time_reached()):
            return False  # only a count condition's: go on
        if lr.timetravel is not None and lr.timetravel.Store.raw_stop:
            return True  # going back (timetravel.py): here, before the program goes on
        f = gdb.newest_frame()
        while f is not None and not lr.is_stub(f) and f.name() not in lr.RESUME_ROUTINES \
                and f.name() != "__sic_foreign_entry":
            f = f.older()
        if f is not None and f.name() == "__sic_foreign_entry":
            target = lr.foreign_entry_resume(f)  # a callback's count, from foreign code
        elif f is not None and not lr.is_stub(f):
            f = f.older()  # the program, where the counting point's stub resumes
            target = f and f.pc()
        else:
            target = f and lr.stub_return(f)
        StopAt.tid, StopAt.count = hit
        if target is None:
            return True  # shown here by on_stop
        ReturnBreakpoint(target, StopAt.tid)
        return False


class ThreadPc(gdb.Breakpoint):
    """Temporary and silent, at pc, for green thread tid only: where it goes on in the
    program (gdb deletes it once stop() says yes)."""

    def __init__(self, pc, tid):
        super().__init__("*0x%x" % pc, internal=True, temporary=True)
        self.silent = True
        self.tid = tid

    def stop(self):
        return int(lr.glob("rp_cur")["tid"]) == self.tid


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


class Fallback:
    said = False  # the line below, once a session


def say_fallback():
    """Once a session, in one line: why the runtime's breakpoint is in software where
    the user did not ask for it (perf_event_open refused it, or the debug registers
    do not fire: engine/schedule/breakpoint.c's why). Nothing else shows it, and it
    changes what gdb does: the trap byte is in the code, and gdb's hardware
    watchpoints are taken to be dead too, so the runtime follows them by comparing
    values (reverse.py)."""
    if Fallback.said:
        return
    try:
        mode = int(lr.glob("rp_bp_mode"))
        why = lr.static("why", "breakpoint.c").string()
    except (gdb.error, lr.ReplayError):
        Fallback.said = True  # an older runtime: nothing to say
        return
    if mode == 0:
        return  # not open yet: at a later stop
    Fallback.said = True
    if mode == 2 and why and not why.startswith("--breakpoints="):  # RP_BP_SOFTWARE
        gdb.write("libreplay: %s: the replay's breakpoints are in software, and the runtime "
                  "follows watchpoints by comparing values\n" % why)


def on_stop(event):
    if lr.live():
        say_fallback()
    if lr.Stepping.cmd is None and not lr.Stepping.fixing:
        ungate()
        lr.announce()  # (a next or step says it when its post-hook is done)
    if type(event) is gdb.StopEvent and lr.live():
        f = gdb.newest_frame()
        if lr.is_stub(f) and lr.Stepping.cmd is None:
            # stepi/until... reached a counting point whose counter ran out (a logged
            # preemption is near): gdb stops here, where no line is. (After next and
            # step, libreplay-step-fixup goes on.)
            gdb.write("libreplay: in the instruction counter's stub of %s; next or step "
                      "goes on\n" % lr.where(f))
        return
    if isinstance(event, gdb.SignalEvent) and lr.live() and in_crash_handler():
        gdb.write("libreplay: the crash handler has finished the log and raised %s again; "
                  "continue ends the program\n" % event.stop_signal)
        return
    bps = getattr(event, "breakpoints", None) or []
    if StopAt.log_end is not None and StopAt.log_end in bps:
        v = lr.glob("rp_replay_view")
        gdb.write("libreplay: the log ends here, after record %d (the recording was cut short); "
                  "continue runs the program on with time slices, unrecorded\n" % lr.u64(v["done"]))
        f = lr.user_frame() or gdb.newest_frame()
        f.select()
        gdb.execute("frame")
        return
    if StopAt.bp is not None and StopAt.bp in bps and lr.timetravel is not None and \
            lr.timetravel.Forward.regions is not None and lr.timetravel.watch_seen():
        return  # watched bytes changed: continue's post-hook shows the write (reverse.py)
    if any(b is StopAt.back or isinstance(b, ReturnBreakpoint) for b in bps) or \
            (StopAt.bp is not None and StopAt.bp in bps):
        gdb.write("replay: green thread %d reached count %d\n" % (StopAt.tid, StopAt.count))
        f = lr.user_frame() or gdb.newest_frame()
        f.select()
        gdb.execute("frame")


def in_crash_handler():
    """Is this stop the runtime's crash handler (on_fatal in engine/session/session.c) raising the
    signal again? Its last act is rp_crash_reraise, so the stack reads: that (and
    its inlined system call), maybe on_fatal, then the signal frame. It is
    installed while recording or replaying."""
    f = gdb.newest_frame()
    while f is not None and (f.name() or "") in ("rp_raw_syscall", "sched_raw_syscall", "rp_crash_reraise", "on_fatal",
                                            "rp_session_fatal", "on_sigill"):
        f = f.older()
    return f is not None and f.level() > 0 and f.type() == gdb.SIGTRAMP_FRAME and \
        str(lr.glob("rp_opts")["mode"]) != "RP_MODE_OFF"


def on_exit(event):
    lr.View.tid, lr.View.saved = None, None
    StopAt.user.clear()  # the next run starts with none
    StopAt.early.clear()
    ungate()
    if StopAt.back is not None and StopAt.back.is_valid():
        StopAt.back.delete()  # not for the next run
    StopAt.back = None


def pass_sigill():
    """The runtime stops between counting points with a trap byte (engine/schedule/breakpoint.c,
    where the debug registers do not fire or perf refuses them): its SIGILL is the
    program's to handle, as SIG41 is with the hardware breakpoint."""
    try:
        software = int(lr.glob("rp_bp_mode")) == 2  # RP_BP_SOFTWARE
    except (gdb.error, lr.ReplayError):
        return
    gdb.execute("handle SIGILL %s" % ("nostop noprint pass" if software else "stop print pass"),
                to_string=True)


BP_LOCATION = re.compile(r"\s([yn])\s+(0x[0-9a-fA-F]+)\s")


def gdb_breakpoint_at(pc):
    """Will gdb put a breakpoint of its own (a user's, or an internal one) at pc when
    the program resumes?"""
    out = gdb.execute("maint info breakpoints", to_string=True)
    for line in out.splitlines():
        m = BP_LOCATION.search(line + " ")
        if m and m.group(1) == "y" and int(m.group(2), 16) == pc:
            return True
    return False


def soft_trap_reconcile():
    """Before the program resumes, where the runtime stops with its trap byte
    (engine/schedule/breakpoint.c, rp_bp_trap): gdb takes a SIGILL at one of its breakpoints
    for that breakpoint's hit, and steps over it with its own copy of the byte, so the
    trap byte and a gdb breakpoint cannot share a pc. Where gdb has one at the armed
    pc, the byte goes back (under_debugger) and, when the thread stands at that pc,
    the trap is a SIGILL queued to it; where gdb has none, the trap byte is in the
    code. gdb's breakpoints are out of memory while it is stopped."""
    if not lr.live():
        return
    try:
        if int(lr.glob("rp_bp_mode")) != 2:  # RP_BP_SOFTWARE
            return
        trap = lr.glob("rp_bp_trap")
    except (gdb.error, lr.ReplayError):
        return
    pc = lr.u64(trap["pc"])
    if not pc:
        return
    inf = gdb.selected_inferior()
    if int(trap["under_debugger"]):
        if not gdb_breakpoint_at(pc):
            saved = bytes(inf.read_memory(pc, 1))
            inf.write_memory(pc, b"\x06")
            gdb.execute("set var rp_bp_trap.saved = %d" % saved[0], to_string=True)
            gdb.execute("set var rp_bp_trap.under_debugger = 0", to_string=True)
        elif gdb.newest_frame().pc() == pc:
            gdb.execute("queue-signal SIGILL", to_string=True)
    elif gdb_breakpoint_at(pc):
        inf.write_memory(pc, bytes([int(trap["saved"]) & 0xff]))
        gdb.execute("set var rp_bp_trap.under_debugger = 1", to_string=True)
        if gdb.newest_frame().pc() == pc:
            gdb.execute("queue-signal SIGILL", to_string=True)


