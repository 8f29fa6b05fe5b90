# rthreads.py: green threads under gdb (docs/gdb.md): info rthreads, rthread N,
# rthread apply, the frame filter that hides the runtime's frames from bt, the line
# that says which green threads ran between two stops, and $rcount(N). Loaded by
# libreplay.py, which hands it its own module (`lr`); the names defined here are
# libreplay.py's too.

import re

import gdb

lr = None  # libreplay.py, set by its load()

# Commands that resume the program: each gets a hook that puts the registers back.
RESUMING = ["run", "start", "starti", "continue", "next", "step", "stepi", "nexti",
            "finish", "until", "advance", "jump", "signal", "kill", "detach", "quit",
            "checkpoint", "restart"]


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
    if lr.live():
        set_regs(rsp, rip)
        gdb.execute("select-frame 0", to_string=True)


def find_green(tid):
    for st in lr.green_threads():
        if int(st["id"]) == tid:
            return st
    raise lr.ReplayError("No green thread %d." % tid)


def switch_to(tid):
    """Show green thread tid; returns its innermost user frame (or frame 0)."""
    lr.need_live()
    restore()
    st = find_green(tid)
    if int(st["ext"]) == lr.current_ext() or lr.STATES[int(st["state"])] == "running":
        return lr.user_frame() or gdb.newest_frame()
    state = lr.STATES[int(st["state"])]
    if state not in ("runnable", "blocked"):
        raise lr.ReplayError("Green thread %d has %s: it has no stack to show." % (tid, state))
    add_hooks()
    frame0 = gdb.newest_frame()
    View.saved = (lr.u64(frame0.read_register("rsp")), lr.u64(frame0.read_register("rip")))
    View.tid = tid
    resume = lr.u64(gdb.parse_and_eval("(unsigned long)&sched_switch_resume"))
    set_regs(lr.u64(st["sp"]), resume)
    return lr.user_frame() or gdb.newest_frame()


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


# ---- the runtime's frames, hidden from bt ------------------------------------------
# A green thread switched out shows the scheduler's frames above the program's (the
# switch, and for a preemption the signal handler and its frame), and every thread
# has the runtime's start-up frames below them. The frame filter leaves both out:
# the leading ones when the innermost frame is the switch (a thread rthread shows),
# the trailing ones below the program's outermost frame. Runtime frames in between
# (a callback the runtime makes into the program) stay. `bt -no-filters` shows all.

RUNTIME_SOURCES = ("libreplay/", "sched/")


def runtime_frame(f):
    """Is f the runtime's own code (libreplay.a, compiled from libreplay/ and sched/)?"""
    if f.type() == gdb.SIGTRAMP_FRAME:
        return True
    try:
        fn = f.function()
    except RuntimeError:
        return False
    if fn is not None and fn.symtab is not None and \
            fn.symtab.filename.startswith(RUNTIME_SOURCES):
        return True
    # pthread_join's symbol has pthread.h's symtab (where it is declared): the line
    # the frame is at says whose code it is.
    sal = f.find_sal()
    return sal.symtab is not None and sal.symtab.filename.startswith(RUNTIME_SOURCES)


class RuntimeFrames:
    """The frame filter: the program's frames of a green thread's stack."""

    def __init__(self):
        self.name = "libreplay-runtime-frames"
        self.priority = 100
        self.enabled = True

    def filter(self, frames):
        frames = list(frames)
        kinds = [runtime_frame(d.inferior_frame()) for d in frames]
        if all(kinds):
            return iter(frames)  # nothing of the program's (a thread not started)
        first, last = 0, len(frames) - 1
        if (frames[0].inferior_frame().name() or "") in ("sched_switch", "rp_debug_outcome",
                                                          "rp_debug_log_end"):
            # (a switched-out thread; the running one where a deadlock, a hang or the
            # log's end stopped the run: the program's frames first)
            while kinds[first]:
                first += 1
        while kinds[last]:
            last -= 1
        return iter(frames[first:last + 1])


# ---- the story between two stops -------------------------------------------------
# At each resume the extension notes the runtime's switch and preemption counts
# (rp_debug, debug.c) and the running thread; at the next stop, if other green
# threads ran meanwhile, one line says which and how many preemptions passed.

class Story:
    switches = None  # at the last resume (None: nothing to tell)
    preemptions = 0
    tid = 0


def note_resume():
    Story.switches = None
    if not lr.live():
        return
    try:
        dbg = lr.glob("rp_debug")
        Story.switches, Story.preemptions = lr.u64(dbg["switches"]), lr.u64(dbg["preemptions"])
        Story.tid = int(lr.glob("rp_cur")["tid"])
    except (gdb.error, lr.ReplayError):
        Story.switches = None  # an older runtime


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def announce():
    """After a stop: which other green threads ran since the resume, if any."""
    s0, Story.switches = Story.switches, None
    if s0 is None or not lr.live():
        return
    dbg = lr.glob("rp_debug")
    if lr.u64(dbg["switches"]) == s0:
        return
    rthread = gdb.lookup_type("struct rp_thread").pointer()
    ran = sorted(int(st["id"]) for st in lr.green_threads() if int(st["ext"]) != 0 and
                 int(st["id"]) != Story.tid and
                 lr.u64(st["ext"].cast(rthread)["ran_at"]) > s0)
    if not ran:
        return
    now = int(lr.glob("rp_cur")["tid"])
    gdb.write("[green thread%s %s ran; %s passed%s]\n" % (
        "" if len(ran) == 1 else "s", ", ".join(str(t) for t in ran),
        plural(lr.u64(dbg["preemptions"]) - Story.preemptions, "preemption"),
        "; now in thread %d" % now if now != Story.tid else ""))


# ---- commands ---------------------------------------------------------------------

class InfoRthreads(gdb.Command):
    """List the green threads: id, state, SIC count, where it is.
The running one is marked with *, the one rthread shows with >."""

    def __init__(self):
        super().__init__("info rthreads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        lr.need_live()
        viewing = View.tid
        restore()
        cur = lr.current_ext()
        rows = []
        try:
            for st in lr.green_threads():
                tid, state = int(st["id"]), lr.STATES[int(st["state"])]
                is_cur = int(st["ext"]) == cur
                if is_cur and state != "blocked":
                    state = "running"  # (the current one blocked: a deadlock's end)
                if state == "blocked":
                    kind = str(st["wait_kind"]).replace("SCHED_WAIT_", "").lower()
                    state = "blocked (%s)" % kind
                count = lr.count_of(st, cur)
                waits = waits_for(st)
                if is_cur:
                    at = lr.where(lr.user_frame())
                elif state.startswith(("runnable", "blocked")):
                    f = switch_to(tid)
                    at = lr.where(f) if lr.instrumented(f.pc()) else "(not started)"
                    restore()
                else:
                    at = ""
                rows.append((tid, state, count, at, waits, is_cur))
        finally:
            restore()
            if viewing is not None:
                switch_to(viewing)
        gdb.write("  %-4s %-20s %-12s %s\n" % ("Id", "State", "Count", "Where"))
        for tid, state, count, at, waits, is_cur in rows:
            mark = ">" if tid == viewing else ("*" if is_cur else " ")
            gdb.write("%s %-4d %-20s %-12s %s\n" % (mark, tid, state,
                                                  "-" if count is None else count, at))
            if waits:
                gdb.write("         %s\n" % waits)


def symbol_of(addr):
    """A data address by its symbol ("lock_a", "locks + 24"), or by the program's
    variable that points to it ("jobs->lock": a mutex in the heap), else in hex."""
    out = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    if not out.startswith("No symbol"):
        return out.split(" in section")[0]
    try:
        return pointed_by(addr) or "0x%x" % addr
    except (gdb.error, RuntimeError):
        return "0x%x" % addr


# ---- a mutex in the heap, by the pointer that holds it ----------------------------
# A mutex malloc'd (in a struct the program allocates: pigz's lock, a queue's) has no
# symbol: `info symbol` knows static storage only. The program's global and static
# pointers often hold the block: "jobs->lock" names it by one of them.

class Pointers:
    syms = None  # the program's own pointer variables (not the runtime's), once


def program_pointers():
    if Pointers.syms is not None:
        return Pointers.syms
    Pointers.syms = []
    out = gdb.execute("info variables -q -n", to_string=True)
    exe = gdb.current_progspace().filename
    fname = None
    for line in out.splitlines():
        m = re.match(r"^File (.*):$", line)
        if m:
            fname = m.group(1)
            continue
        m = re.match(r"^\d+:\s.*\*\s*(\w+);$", line)  # (a pointer: "static struct q *jobs;")
        if fname is None or m is None or fname.startswith(RUNTIME_SOURCES):
            continue
        for sym in gdb.lookup_static_symbols(m.group(1)) + [gdb.lookup_global_symbol(m.group(1))]:
            if sym is not None and sym.symtab is not None and sym.symtab.filename == fname and \
                    sym.symtab.objfile.filename == exe and \
                    sym.type.strip_typedefs().code == gdb.TYPE_CODE_PTR and sym not in Pointers.syms:
                Pointers.syms.append(sym)
    return Pointers.syms


def field_at(t, off):
    """The path of the field of type t at byte offset off (".lock", ".q.lock"), or
    None; "" at offset 0."""
    if off == 0:
        return ""
    if t.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        return None
    for f in t.fields():
        if not hasattr(f, "bitpos") or f.name is None:
            continue
        ft = f.type.strip_typedefs()
        start = f.bitpos // 8
        if start <= off < start + ft.sizeof:
            rest = field_at(ft, off - start)
            if rest is not None:
                return "." + f.name + rest
    return None


def pointed_by(addr):
    for sym in program_pointers():
        try:
            v = sym.value()
            target = v.type.strip_typedefs().target().strip_typedefs()
            p = lr.u64(v)
        except gdb.error:
            continue  # (optimized out)
        if not p or not p <= addr < p + max(target.sizeof, 1):
            continue
        path = field_at(target, addr - p)
        if path == "":
            return "*" + sym.name
        if path:
            return sym.name + "->" + path[1:]
    return None


def forget_pointers(event):
    Pointers.syms = None


def waits_for(st):
    """What a blocked green thread waits on and who holds it, and the mutexes it holds:
    "waits for mutex lock_b held by thread 2; holds mutex lock_a" (sched's fields)."""
    parts = []
    if lr.STATES[int(st["state"])] == "blocked":
        kind = str(st["wait_kind"]).replace("SCHED_WAIT_", "").lower()
        obj = lr.u64(st["wait_obj"])
        if kind == "join":
            parts.append("waits for thread %d to exit" %
                         int(st["wait_obj"].cast(st.type)["id"]))
        elif kind == "sleep":
            parts.append("sleeps")
        elif obj:
            what = "waits for %s %s" % (kind, symbol_of(obj))
            if kind == "mutex":
                m = st["wait_obj"].cast(gdb.lookup_type("struct sched_mutex").pointer())
                if int(m["count"]):
                    what += " held by thread %d" % int(m["owner"])
            parts.append(what)
    held = [symbol_of(lr.u64(st["held"][i])) for i in range(min(int(st["nheld"]), 8))]
    if held:
        more = int(st["nheld"]) - len(held)
        parts.append("holds mutex " + ", ".join(held) + (" and %d more" % more if more > 0 else ""))
    return "; ".join(parts)


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
            if lr.live():
                gdb.write("[back to the running thread]\n")
                show(lr.user_frame() or gdb.newest_frame())
            return
        tid = lr.parse_int(arg, "rthread N")
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
            raise lr.ReplayError("Usage: rthread apply N|all COMMAND")
        lr.need_live()
        viewing = View.tid
        tids = [int(st["id"]) for st in lr.green_threads()
                if lr.STATES[int(st["state"])] in ("runnable", "blocked", "running")] \
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

    calls = 0  # how often gdb asked (tests/gdb counts them)

    def invoke(self, tid):
        Rcount.calls += 1
        cur = lr.current_ext()
        for st in lr.green_threads():
            if int(st["id"]) == int(tid):
                c = lr.count_of(st, cur)
                return gdb.Value(-1 if c is None else c).cast(gdb.lookup_type("long"))
        return gdb.Value(-1).cast(gdb.lookup_type("long"))
