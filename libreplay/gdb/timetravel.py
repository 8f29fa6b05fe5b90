# timetravel.py: going back in a replay under gdb (docs/gdb.md, "Going back in time").
# Loaded by libreplay.py, which hands it its own module (`lr`) for the runtime's state.
#
#   replay when                 the time of this stop (and where it is)
#   replay goto TIME|T:C        go to a time, or to green thread T at count C
#   replay checkpoints          the checkpoints kept: time, age, memory
#   reverse-continue, reverse-stepi, reverse-finish, reverse-next, reverse-step
#
# Paper 003 (Tolmach & Appel): every moment of a replay has a time, the debugger keeps
# checkpoints, and it goes back by restoring one and replaying forward to the moment
# wanted. Time here is the sum of every green thread's count (exited ones included):
# it grows by one at each counting point of whichever thread runs, so it orders the
# whole execution. A checkpoint is a fork of the replay (one kernel thread: every
# green thread is in it), made by gdb's own `checkpoint` and restored by `restart`;
# the runtime stops in rp_debug_checkpoint every CHECKPOINT_NS of replay CPU time to
# let us take one (libreplay/debug.c). Going back to a moment: restore the latest
# checkpoint before it, then stop there going forward (replay stop-at, or the
# runtime's stop_time). reverse-continue finds the last stop before now that gdb
# would make with the breakpoints of now: from what forward runs with the same
# breakpoints saw, or else by replaying forward from checkpoints with them.

import os
import re
import signal
import time

import gdb

lr = None  # libreplay.py, set by register()

CHECKPOINT_NS = 500 * 1000 * 1000  # replay CPU time between automatic checkpoints
TICK_COUNTS = 1 << 16              # a thread's counter overflows at least this often
MAX_CHECKPOINTS = 256              # at most this many kept
AGE_SHARE = 32                     # gaps grow with age, to a 32nd of it ...
MAX_GAP = 2.5                      # ... up to this many spacings, until the cap
U64 = 2**64 - 1


class TimeError(gdb.GdbError):
    pass


# ---- time ----------------------------------------------------------------------

class Position:
    """A moment of the replay: time (sum of counts), the running green thread, its
    count and the pc. (tid, count, pc) names one instruction of the program."""

    def __init__(self, time, tid, count, pc, counts, rec=0):
        self.time, self.tid, self.count, self.pc = time, tid, count, pc
        self.counts, self.rec = counts, rec

    def same_place(self, other):
        return other is not None and (self.tid, self.count, self.pc) == \
            (other.tid, other.count, other.pc)

    def __repr__(self):
        return "%d (thread %d at count %d, pc 0x%x)" % (self.time, self.tid, self.count, self.pc)


def finals():
    """Final counts of exited threads, by tid (thread.c)."""
    try:
        arr, n = lr.static("finals", "thread.c"), int(lr.static("nfinals", "thread.c"))
    except lr.ReplayError:
        return {}
    if n == 0 or int(arr) == 0:
        return {}
    raw = bytes(gdb.selected_inferior().read_memory(int(arr), 8 * n))
    out = {}
    for tid in range(1, n):
        v = int.from_bytes(raw[8 * tid:8 * tid + 8], "little")
        if v != U64:
            out[tid] = v
    return out


def counts_now():
    """Every green thread's count (exited ones from thread.c's finals), as the
    runtime sums them for stop_time."""
    counts = finals()
    cur = lr.current_ext()
    for st in lr.green_threads():
        tid = int(st["id"])
        if tid in counts:
            continue
        c = lr.count_of(st, cur)
        if c is not None:
            counts[tid] = c
    return counts


def running_tid():
    return int(lr.glob("rp_cur")["tid"])


def position(settled=False):
    """This moment. settled: in a counter stub (a checkpoint is taken from one), the
    moment the program goes on, where the stub jumps back (the same count, and only
    the stub's instructions between)."""
    lr.need_live()
    lr.restore()
    counts = counts_now()
    tid = running_tid()
    uf = lr.user_frame()
    pc = (uf or gdb.newest_frame()).pc()
    if settled and uf is not None and lr.is_stub(uf):
        pc = lr.stub_return(uf) or pc
    rec = int(lr.static("next_rec", "replay.c"))
    return Position(sum(counts.values()), tid, counts.get(tid, 0), pc, counts, rec)


def replaying():
    return lr.live() and bool(lr.glob("rp_replaying"))


def need_replay(what):
    lr.need_live()
    if not replaying():
        raise TimeError("%s: the program is not replaying a log" % what)


# ---- checkpoints ------------------------------------------------------------------

class Checkpoint:
    def __init__(self, num, pid, pos, replay_ns):
        self.num, self.pid, self.pos, self.replay_ns = num, pid, pos, replay_ns

    @property
    def time(self):
        return self.pos.time


class Store:
    ckpts = []         # ours, by time
    busy = False       # inside our own commands: no automatic checkpoint, no history
    history = None     # History
    auto = None        # the breakpoint in rp_debug_checkpoint
    start = None       # the breakpoint where a replay begins
    main = None        # the one where the program's main begins
    enabled = True     # `replay checkpoints off` turns automatic checkpoints off
    refusal = None     # why this replay cannot be checkpointed (one line), or None
    warned = None      # the descriptor warn_outside named
    interval_ns = CHECKPOINT_NS
    want_time = False  # stop_time is ours to stop at
    took = []          # seconds each automatic checkpoint took
    pinned = []        # checkpoints a search will restore again: not thinned
    max_ckpts = MAX_CHECKPOINTS
    restores = 0       # checkpoints restored (warn_went_back)
    fpu = None         # can gdb write the program's extended registers? (fpu_refusal)


def gdb_checkpoint():
    """Fork a checkpoint of the live process: (gdb's number, pid)."""
    lr.set_debug("checkpointing", 1)
    try:
        out = gdb.execute("checkpoint", from_tty=True, to_string=True)
    finally:
        lr.set_debug("checkpointing", 0)
    warn_outside()
    m = re.search(r"checkpoint (-?\d+): fork returned pid (\d+)", out)
    if not m or int(m.group(1)) < 0:
        raise TimeError("libreplay: could not fork a checkpoint: %s" % out.strip())
    return int(m.group(1)), int(m.group(2))


def warn_outside():
    """Say once, on one line, when a checkpoint cannot hold all the process's state."""
    fd = int(lr.glob("rp_debug")["outside_fd"])
    if fd >= 0 and Store.warned != fd:
        Store.warned = fd
        gdb.write("libreplay: descriptor %d is a socket or a pipe to another process: going "
                  "back past a read from it cannot restore what was read\n" % fd, gdb.STDERR)


def warn_went_back(restores):
    """After a command that restored a checkpoint (Store.restores was `restores`):
    with such a descriptor, say again, on one line, what going back cost."""
    if Store.restores != restores and Store.warned is not None:
        gdb.write("libreplay: descriptor %d is a socket or a pipe to another process, and "
                  "this went back: a read from it run again does not read what it read "
                  "before (the replay diverges)\n" % Store.warned, gdb.STDERR)


def gdb_checkpoints():
    """gdb's list: {num: (pid, live?)}."""
    out = gdb.execute("info checkpoints", to_string=True)
    res = {}
    for m in re.finditer(r"^([ *]) (\d+) (?:process (\d+)|Thread 0x[0-9a-f]+ \(LWP (\d+)\))",
                         out, re.M):
        res[int(m.group(2))] = (int(m.group(3) or m.group(4)), m.group(1) == "*")
    return res


def replay_ns():
    return int(lr.glob("rp_debug")["replay_ns"])


def take_checkpoint(pos=None):
    pos = pos or position(settled=True)
    num, pid = gdb_checkpoint()
    ck = Checkpoint(num, pid, pos, replay_ns())
    Store.ckpts.append(ck)
    Store.ckpts.sort(key=lambda c: c.time)
    thin()
    return ck


def drop(ck):
    """Delete a checkpoint's process."""
    if ck in Store.ckpts:
        Store.ckpts.remove(ck)
    if ck.num == 0:
        # gdb 13's `delete checkpoint 0` (the process gdb started, which has no
        # parent checkpoint) fails an assertion: stop it, let gdb detach it, kill it.
        try:
            os.kill(ck.pid, signal.SIGSTOP)
            gdb.execute("detach checkpoint 0", to_string=True)
            os.kill(ck.pid, signal.SIGKILL)
        except (OSError, gdb.error):
            pass
        return
    lr.set_debug("checkpointing", 1)  # waitpid, which gdb calls, is the bare one
    try:
        gdb.execute("delete checkpoint %d" % ck.num, to_string=True)
    except gdb.error:
        pass
    finally:
        lr.set_debug("checkpointing", 0)


def thin():
    """Drop checkpoints while one can go with the gap it leaves no wider than allowed:
    a 32nd of its age (AGE_SHARE), at least the spacing, at most MAX_GAP spacings
    (1.25 s: two gaps between the runtime's ticks, which come a little after the
    spacing, join into one of about 1.15 s, and going back anywhere replays at most
    that much); each time the one whose loss widens the gap least against the age's
    share. Past Store.max_ckpts that one goes whatever the gap: old gaps widen,
    recent ones stay (docs/gdb.md). The first (the start of the replay), the
    newest and the pinned ones stay."""
    cks = Store.ckpts
    while len(cks) > 2:
        now = max(c.replay_ns for c in cks)
        best, score, free = None, None, None
        for i in range(1, len(cks) - 1):
            if cks[i] in Store.pinned:
                continue
            gap = cks[i + 1].replay_ns - cks[i - 1].replay_ns
            share = max(Store.interval_ns, (now - cks[i].replay_ns) / AGE_SHARE)
            s = gap / share
            if score is None or s < score:
                best, score = cks[i], s
            if gap <= min(share, MAX_GAP * Store.interval_ns) and (free is None or s < free[1]):
                free = (cks[i], s)
        if free is not None:
            drop(free[0])
        elif best is not None and len(cks) > Store.max_ckpts:
            drop(best)
        else:
            return


def drop_all():
    for ck in list(Store.ckpts):
        drop(ck)
    Store.ckpts = []


def memory_of(pid):
    """A process's memory totals (/proc/PID/smaps_rollup), in bytes, or {}."""
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                    out[parts[0][:-1]] = int(parts[1]) * 1024
    except OSError:
        pass
    return out


def own_memory(mem):
    """Bytes only this process holds: what deleting it frees."""
    if "Private_Dirty" not in mem:
        return None
    return mem["Private_Dirty"] + mem.get("Private_Clean", 0)


def checkpoints_cost(mems, live):
    """Bytes the checkpoints cost in all: the anonymous memory of them and the live
    process together, less what the live process holds alone. (Pages forked and
    not written since are shared by all: one copy, whatever the number.) None
    without the kernel's Pss_Anon."""
    if live is None or "Pss_Anon" not in live or any("Pss_Anon" not in m for m in mems):
        return None
    return sum(m["Pss_Anon"] for m in mems) + live["Pss_Anon"] - live["Anonymous"]


def restore_checkpoint(ck):
    """Make ck's state the live one, keeping ck (a fresh fork of it replaces it)."""
    was, Store.busy = Store.busy, True
    try:
        restore_live(ck)
    finally:
        Store.busy = was


def restore_live(ck):
    lr.restore()
    Store.restores += 1
    table = gdb_checkpoints()
    live = [n for n, (pid, cur) in table.items() if cur]
    old_pos = position(settled=True) if replaying() else None
    old_ns = replay_ns() if old_pos is not None else 0
    # It is a checkpoint from now on: when restored, gdb's lseek calls in it must leave
    # output alone (debug.c's lseek), as in those forked as checkpoints.
    lr.set_debug("checkpointing", 1)
    gdb.execute("restart %d" % ck.num, to_string=True)
    num, pid = gdb_checkpoint()
    ck.num, ck.pid = num, pid
    err = int(gdb.parse_and_eval("rp_debug_restored()"))
    if err:
        raise TimeError("libreplay: the restored checkpoint cannot open its hardware "
                        "breakpoint (error %d)" % -err)
    clear_requests()
    # The process we left is a checkpoint of a later time: keep it for going forward
    # again, unless one is near it.
    if live and old_pos is not None:
        left = Checkpoint(live[0], table[live[0]][0], old_pos, old_ns)
        if any(abs(c.time - old_pos.time) < TICK_COUNTS for c in Store.ckpts):
            drop(left)
        else:
            Store.ckpts.append(left)
            Store.ckpts.sort(key=lambda c: c.time)
            thin()
    Store.history.resume_at(ck.pos)


class AutoCheckpoint(gdb.Breakpoint):
    """rp_debug_checkpoint: CHECKPOINT_NS of replay since the last; fork one unless
    one is near (we are replaying a stretch again after going back)."""

    def __init__(self):
        super().__init__("rp_debug_checkpoint", internal=True)
        self.silent = True

    def stop(self):
        if Store.refusal or not Store.enabled:
            return False
        ns = replay_ns()
        try:
            pos = position(settled=True)
            # Replaying a stretch again: one near already (in time, or in replay time)
            if any(abs(c.time - pos.time) < TICK_COUNTS or
                   abs(c.replay_ns - ns) < Store.interval_ns // 2 for c in Store.ckpts):
                return False
            t0 = time.time()
            take_checkpoint(pos)
            Store.took.append(time.time() - t0)  # for bench/reverse.sh
        except (gdb.error, TimeError) as e:
            gdb.write("libreplay: no checkpoint: %s\n" % e, gdb.STDERR)
        return False


def fpu_refusal():
    """Why gdb cannot checkpoint on this machine, or None. A checkpoint is a fork() that
    gdb calls in the program, and a call saves and restores every register: gdb 13
    cannot write the extended state of a CPU whose XSAVE area it does not know (AMX's,
    on Xeon Sapphire Rapids and later: the kernel wants the whole area, "Couldn't write
    extended state status: Bad address"), and a call that fails so inside a breakpoint
    leaves the program running under gdb's feet. Asked once a session, of this gdb and
    /bin/true in a gdb of its own (flip one bit of MXCSR, which lives in that state):
    a failed write here would do the harm it looks for."""
    if Store.fpu is None:
        import subprocess
        try:
            out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "starti", "-ex",
                                  "set $mxcsr = $mxcsr ^ 0x40", "/bin/true"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        m = re.search(r"^(Couldn't write extended state[^\n]*?)\.?$", out, re.M)
        Store.fpu = ("this gdb cannot write this CPU's extended registers (%s), and a "
                     "checkpoint is a call to fork() in the program" % m.group(1)) if m else ""
    return Store.fpu or None


class ReplayStart(gdb.Breakpoint):
    """Where the replay begins (rp_session_start): ask the runtime for its ticks."""

    def __init__(self):
        super().__init__("rp_session_start", internal=True)
        self.silent = True

    def stop(self):
        Store.ckpts = []
        Store.history.reset()
        Store.refusal = None
        if str(lr.glob("rp_opts")["mode"]) != "RP_MODE_REPLAY" or not Store.enabled:
            return False
        if not lr.set_debug("tick_every", TICK_COUNTS):
            Store.refusal = "this program's libreplay has no checkpoints (rebuild it)"
            return False
        Store.refusal = fpu_refusal()
        lr.set_debug("ckpt_ns", 0 if Store.refusal else Store.interval_ns)
        lr.set_debug("checkpointing", 0)
        return False


class MainStart(gdb.Breakpoint):
    """The program's main is about to run, in green thread 1: the first checkpoint,
    the start of history."""

    def __init__(self):
        super().__init__("*(unsigned long)&__sic_main", internal=True)
        self.silent = True

    def stop(self):
        if Store.ckpts or Store.refusal or not replaying() or not Store.enabled:
            return False
        try:
            pos = position(settled=True)
            num, pid = gdb_checkpoint()
            Store.ckpts.append(Checkpoint(num, pid, pos, replay_ns()))
            Store.history.resume_at(pos)
        except (gdb.error, TimeError) as e:
            Store.refusal = "no checkpoint at the start: %s" % e
        return False


class EndOfReplay(gdb.Breakpoint):
    """The program is about to end: delete our checkpoints first, or gdb would switch
    to one of them when the process is gone (linux-fork's mourn)."""

    def __init__(self, spec):
        super().__init__(spec, internal=True)
        self.silent = True

    def stop(self):
        try:
            drop_all()
        except gdb.error:
            pass
        return False


def ensure_breakpoints():
    if gdb.lookup_global_symbol("rp_debug") is None:
        return  # not a program linked with libreplay (yet)
    for attr, make in (("auto", AutoCheckpoint), ("start", ReplayStart), ("main", MainStart)):
        bp = getattr(Store, attr)
        if bp is None or not bp.is_valid():
            try:
                setattr(Store, attr, make())
            except (gdb.error, RuntimeError):
                pass
    if not getattr(Store, "ends", None):
        Store.ends = []
        for spec in ("_exit", "rp_crash_reraise"):
            try:
                Store.ends.append(EndOfReplay(spec))
            except (gdb.error, RuntimeError):
                pass


# ---- going somewhere ---------------------------------------------------------------

class Quiet:
    """While we move: the user's breakpoints off (re-enabled after, which also makes a
    watchpoint read its value again), nothing recorded as history."""

    def __init__(self, keep_user=False):
        self.keep_user = keep_user

    def __enter__(self):
        self.was_busy = Store.busy
        Store.busy = True
        self.notes = gdb.parameter("suppress-cli-notifications")
        gdb.execute("set suppress-cli-notifications on", to_string=True)
        self.off = []
        if not self.keep_user:
            self.off = [b for b in user_breakpoints() if b.enabled]
            for b in self.off:
                b.enabled = False
        return self

    def __exit__(self, *exc):
        for b in self.off:
            if b.is_valid():
                b.enabled = True
        Store.busy = self.was_busy
        if not self.notes:
            gdb.execute("set suppress-cli-notifications off", to_string=True)
        return False


def user_breakpoints():
    return [b for b in gdb.breakpoints() if b.is_valid() and b.number > 0 and b.visible]


def resync_watchpoints():
    """After going back, a watchpoint's remembered value is from another time."""
    for b in user_breakpoints():
        if b.enabled and b.type in (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT,
                                    gdb.BP_READ_WATCHPOINT, gdb.BP_ACCESS_WATCHPOINT):
            b.enabled = False
            b.enabled = True


def cont():
    """continue, quietly; False if the program ended."""
    gdb.execute("continue", to_string=True)
    return lr.live()


def best_checkpoint(tid=None, count=None, time=None):
    """The latest checkpoint before the target: thread tid not yet at count, or the
    time not yet reached."""
    best = None
    for ck in Store.ckpts:
        if time is not None and ck.time >= time:
            continue
        if tid is not None and ck.pos.counts.get(tid, 0) >= count and not (
                count == 0 and tid not in ck.pos.counts):
            continue
        if best is None or ck.time > best.time:
            best = ck
    return best


def before_now(now, tid=None, count=None, time=None):
    """Is the target ahead of the live process (no restore needed)?"""
    if time is not None:
        return now.time < time
    return now.counts.get(tid, 0) < count


def go_forward_count(tid, count):
    gdb.execute("replay stop-at %d %d" % (tid, count), to_string=True)
    if not cont():
        raise TimeError("The program ended before green thread %d reached count %d." % (tid, count))


def clear_requests():
    """A restored process holds the requests of its time: the extension's are now's."""
    for field in ("stop_time", "step_tid", "resume_tid"):
        lr.set_debug(field, 0)
    Store.want_time = False
    if hasattr(lr, "write_stops"):
        lr.write_stops()


def time_reached():
    """Used by the extension's stop in rp_debug_stopped: is this the time asked for
    (the runtime clears stop_time when it reaches it)?"""
    if Store.want_time and int(lr.glob("rp_debug")["stop_time"]) == 0:
        Store.want_time = False
        return True
    return False


def ask_time(t):
    lr.ensure_stop_bp()
    Store.want_time = True
    lr.set_debug("stop_time", t)


def go_forward_time(t, now):
    ask_time(t)
    reload_for_time(t, now)
    if not cont():
        raise TimeError("The program ended before time %d." % t)


def reload_for_time(t, now):
    """The running thread's counter was loaded before stop_time was asked: load it
    again if the time comes first (in the program only: elsewhere the runtime loads
    it itself before the thread runs on)."""
    if lr.user_frame() is not None and now.counts and running_tid() == now.tid:
        lr.reload_running(now.counts.get(now.tid, 0) + (t - now.time))


def goto(tid=None, count=None, t=None, pc=None):
    """Go to green thread tid at count (then to pc in it, if given), or to time t."""
    now = position()
    if not before_now(now, tid, count, t):
        # only going back needs a checkpoint: forward, gdb's plain replay goes on
        check_refusal()
        ck = best_checkpoint(tid, count, t)
        if ck is None:
            raise TimeError("No checkpoint before that time: it is before the start of "
                            "the replay's history.")
        restore_checkpoint(ck)
        now = ck.pos
    if t is not None:
        if now.time < t:
            go_forward_time(t, now)
    elif now.counts.get(tid, 0) < count:
        go_forward_count(tid, count)
    if pc is not None and lr.user_frame() is not None and \
            (lr.user_frame().pc() != pc or running_tid() != tid):
        run_to_pc(tid, count, pc)
    resync_watchpoints()


def run_to_pc(tid, count, pc):
    bp = lr.ThreadPc(pc, tid)
    try:
        for _ in range(1000):
            if not cont():
                raise TimeError("The program ended on the way.")
            if running_tid() == tid and gdb.newest_frame().pc() == pc:
                now = lr.count_of(lr.find_green(tid), lr.current_ext())
                if now == count:
                    return
                raise TimeError("green thread %d reached 0x%x at count %d, not %d" %
                                (tid, pc, now, count))
            bp = lr.ThreadPc(pc, tid) if not bp.is_valid() else bp
    finally:
        if bp.is_valid():
            bp.delete()


def show_frame():
    """The stop as gdb shows one: function, arguments, file and line, then the line."""
    f = lr.user_frame() or gdb.newest_frame()
    f.select()
    out = gdb.execute("frame", to_string=True)
    gdb.write(re.sub(r"^#0\s+", "", out))


USAGE = "Usage: replay goto TIME | replay goto THREAD:COUNT[@PC]"


def parse_target(arg):
    """TIME, THREAD:COUNT or THREAD:COUNT@PC: (tid, count, time, pc)."""
    arg = arg.strip()
    m = re.match(r"^(\d+)\s*:\s*(\d+)(?:\s*@\s*(0x[0-9a-fA-F]+|\d+))?$", arg)
    if m:
        pc = int(m.group(3), 0) if m.group(3) else None
        return int(m.group(1)), int(m.group(2)), None, pc
    m = re.match(r"^(\d+)$", arg)
    if m:
        return None, None, int(m.group(1)), None
    raise TimeError(USAGE)


class ReplayWhen(gdb.Command):
    """replay when: the time of this moment of the replay (the sum of every green
thread's count), the running thread, its count, and the record reached."""

    def __init__(self):
        super().__init__("replay when", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        need_replay("replay when")
        p = position()
        gdb.write("time %d: green thread %d at count %d, record %d, pc %s\n" %
                  (p.time, p.tid, p.count, p.rec, lr.pc_desc(p.pc)))
        gdb.write("this instruction: replay goto %d:%d@0x%x\n" % (p.tid, p.count, p.pc))


class ReplayGoto(gdb.Command):
    """replay goto TIME | replay goto THREAD:COUNT: go to that moment of the replay,
forwards or backwards (TIME as `replay when` prints it)."""

    def __init__(self):
        super().__init__("replay goto", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        tid, count, t, pc = parse_target(arg)
        need_replay("replay goto")
        restores = Store.restores
        try:
            with Quiet():
                goto(tid, count, t, pc)
        finally:
            warn_went_back(restores)
        Store.history.resume_at(position())
        p = position()
        gdb.write("time %d: green thread %d at count %d\n" % (p.time, p.tid, p.count))
        show_frame()


class ReplayCheckpoints(gdb.Command):
    """replay checkpoints [on|off|every SECONDS|keep N]: the checkpoints kept (time,
replay seconds before this moment, the memory only each holds) and what they cost in
all; turn automatic ones on or off; space them SECONDS of replay CPU time apart (0.5
by default); keep at most N (256)."""

    def __init__(self):
        super().__init__("replay checkpoints", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if arg in ("on", "off"):
            Store.enabled = arg == "on"
            set_interval()
            return
        m = re.match(r"^keep\s+(\d+)$", arg)
        if m:
            if int(m.group(1)) < 3:
                raise TimeError("replay checkpoints keep: at least 3")
            Store.max_ckpts = int(m.group(1))
            thin()
            return
        m = re.match(r"^every\s+([0-9.]+)$", arg)
        if m:
            Store.interval_ns = int(float(m.group(1)) * 1e9)
            if Store.interval_ns < 1000000:
                raise TimeError("replay checkpoints every: at least 0.001 seconds")
            set_interval()
            return
        if arg:
            raise TimeError("Usage: replay checkpoints [on|off|every SECONDS|keep N]")
        if Store.refusal:
            gdb.write("no checkpoints: %s\n" % Store.refusal)
        # Ago: replay seconds before this moment (negative: after it, a moment gone
        # back from), by the replay CPU time of the live process.
        now = replay_ns() if replaying() else max([c.replay_ns for c in Store.ckpts] or [0])
        # Own: the pages only that checkpoint holds (deleting it frees them); in
        # all: what they cost together (checkpoints_cost).
        mems = []
        gdb.write("  %-4s %-14s %-10s %-10s %s\n" % ("Num", "Time", "Ago (s)", "Own", "Thread:count"))
        for ck in Store.ckpts:
            mem = memory_of(ck.pid)
            mems.append(mem)
            own = own_memory(mem)
            gdb.write("  %-4d %-14d %-10.2f %-10s %d:%d\n" % (
                ck.num, ck.time, (now - ck.replay_ns) / 1e9,
                "%d KiB" % (own // 1024) if own is not None else "?", ck.pos.tid, ck.pos.count))
        live = memory_of(gdb.selected_inferior().pid) if lr.live() else None
        cost = checkpoints_cost(mems, live)
        gdb.write("%d checkpoints, %s in all, beyond the live replay's own memory\n" % (
            len(Store.ckpts), "%d KiB" % (cost // 1024) if cost is not None else "? KiB"))


def set_interval():
    if lr.live():
        lr.set_debug("ckpt_ns", Store.interval_ns if Store.enabled else 0)


def check_refusal():
    if Store.refusal:
        raise TimeError("libreplay: cannot go back: %s" % Store.refusal)
    if not Store.ckpts:
        raise TimeError("libreplay: cannot go back: no checkpoint yet (checkpoints start "
                        "with `run` under this extension)")


# ---- what forward runs saw: history of stops --------------------------------------

STOP_TYPES = (gdb.BP_BREAKPOINT, gdb.BP_HARDWARE_BREAKPOINT)
WATCH_CLASSES = {gdb.BP_WATCHPOINT: gdb.WP_WRITE, gdb.BP_HARDWARE_WATCHPOINT: gdb.WP_WRITE,
                 gdb.BP_READ_WATCHPOINT: gdb.WP_READ, gdb.BP_ACCESS_WATCHPOINT: gdb.WP_ACCESS}


def stopping_breakpoints():
    """The user's enabled breakpoints and watchpoints (not dprintf, not catchpoints):
    what decides where a run forward stops."""
    return [b for b in user_breakpoints() if b.enabled and
            (b.type in STOP_TYPES or b.type in WATCH_CLASSES)]


def signature():
    """The user's breakpoints as they decide stops: same signature, same stops."""
    return tuple(sorted((b.number, b.type, b.location or b.expression or "",
                         b.condition or "", b.thread or 0) for b in stopping_breakpoints()))


class Hit:
    """A stop at a user's breakpoints (numbers); values: each watchpoint's value
    there, after the write."""

    def __init__(self, pos, numbers, values):
        self.pos, self.numbers, self.values = pos, numbers, values


class History:
    """Stretches of time run forward with a signature, and the stops they ended in."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.spans = []   # (t0, t1, sig, hit or None, run, end position, start position)
        self.start = None  # the position the program last went on from
        self.run = 0

    def resume_at(self, pos):
        self.start = pos
        self.run += 1

    def add(self, start, end, sig, hit=None):
        """A stretch from start to end that went by with sig: no stop in it but hit,
        at its end."""
        if end.time >= start.time:
            self.run += 1
            self.spans.append((start.time, end.time, sig, hit, self.run, end, start))

    def on_stop(self, event):
        if not replaying() or self.start is None:
            return
        numbers = [b.number for b in getattr(event, "breakpoints", []) or []
                   if b.is_valid() and b.number > 0 and b.visible]
        try:
            pos = position()
        except (gdb.error, lr.ReplayError):
            return
        hit = None
        if numbers:
            hit = Hit(pos, numbers, watch_values([b for b in gdb.breakpoints()
                                                   if b.number in numbers], numbers))
        if pos.time >= self.start.time:
            self.spans.append((self.start.time, pos.time, signature(), hit, self.run, pos,
                               self.start))
        self.start = pos

    def covered(self, sig):
        """[start time, end time, start position] of the stretches runs with sig went
        over, merged."""
        iv = sorted(((a, b, st) for a, b, s, _, _, _, st in self.spans if s == sig),
                    key=lambda x: (x[0], x[1]))
        merged = []
        for a, b, st in iv:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b, st])
        return merged

    def last_hit(self, sig, before):
        """The latest stop before `before`. Time does not move between two counting
        points, even across a switch to another thread: a stop at the same time is
        before if the same run reached `before` after it. A watchpoint's stop at
        `before` itself is before it: the write came first."""
        best, best_key = None, None
        arrivals = {}
        for k, span in enumerate(self.spans):
            if span[5].same_place(before):
                arrivals[span[4]] = k
        for k, (a, b, s, hit, run, end, _) in enumerate(self.spans):
            if s != sig or hit is None:
                continue
            if hit.pos.same_place(before):
                if not hit.values:
                    continue
                key = (hit.pos.time, 2, k)
            elif hit.pos.time < before.time:
                key = (hit.pos.time, 0, k)
            elif hit.pos.time == before.time and arrivals.get(run, -1) > k:
                key = (hit.pos.time, 1, k)
            else:
                continue
            if best_key is None or key > best_key:
                best, best_key = hit, key
        return best


def watch_values(bps, numbers):
    """{number: value now} of the watchpoints among bps, as the user's numbers."""
    values = {}
    for b, n in zip(bps, numbers):
        if b.type in WATCH_CLASSES and b.expression:
            try:
                values[n] = str(gdb.parse_and_eval(b.expression))
            except gdb.error:
                pass
    return values


def gap_top(merged, lo, here):
    """The latest moment at or before here that runs with the same breakpoints have
    not gone back over, down to time lo: here, or where such a run went on from;
    None if they went over all of (lo, here]."""
    t, pos = here.time, here
    for a, b, start in reversed(merged):
        if b < t:
            break
        if a < t <= b:
            t, pos = a, start
    return pos if t > lo else None


Store.history = History()


# ---- reverse-continue ----------------------------------------------------------------
# Where gdb would have stopped last before now, with the breakpoints of now. If runs
# forward with the same breakpoints went over the time back to a stop they made,
# that stop (History). Else a search, segment by segment backwards: a segment runs
# from a checkpoint to the moment where the one above it begins (the first: to
# now). For each, newest first: restore its checkpoint and replay it with internal
# copies of the user's breakpoints (clones: no commands run, the user's hit counts
# stay) that count their hits with gdb's ignore counts, so gdb resumes at each hit
# without a stop of ours; up to the counting point of the segment's end, then to
# the end itself stopping at each hit. The first segment with a hit has the last
# one: restore its checkpoint again and stop at each clone's last hit (its ignore
# count one less than its hits); the last of those stops is where gdb would stop.
# So going back costs the segments between now and that stop, one replay each, and
# one more of the last.

class Stats:
    """What the last reverse-continue did (tests read it)."""
    segments = 0   # segments replayed with the clones
    known = False  # the stop was known from runs forward


def record_stop(event):
    Store.last_stop = list(getattr(event, "breakpoints", []) or [])


Store.last_stop = []
Store.raw_stop = False  # replay stop-at stops in the runtime (libreplay.py's StopBreakpoint)


class Clones:
    """Internal copies of the user's stopping breakpoints and watchpoints, disabled
    until a segment is replayed: no commands, no hit counts of the user's."""

    def __init__(self, users):
        self.users = users
        self.clones = []

    def __enter__(self):
        for b in self.users:
            if b.type in WATCH_CLASSES:
                c = gdb.Breakpoint(b.expression, gdb.BP_WATCHPOINT, WATCH_CLASSES[b.type],
                                   internal=True)
            else:
                c = gdb.Breakpoint(b.location, internal=True)
            c.silent = True
            c.enabled = False
            if b.condition:
                c.condition = b.condition
            if b.thread:
                c.thread = b.thread
            self.clones.append(c)
        return self

    def __exit__(self, *exc):
        for c in self.clones:
            if c.is_valid():
                c.delete()
        return False

    def number(self, c):
        return self.users[self.clones.index(c)].number

    def arm(self, counts=None, limit=None):
        """Enabled, counting from zero without a stop (up to limit hits each); or with
        counts, those that hit, each to stop at its last hit."""
        self.limit = limit or (1 << 30)
        for c in self.clones:
            c.enabled = False
            c.hit_count = 0
            n = None if counts is None else counts.get(c, 0)
            c.ignore_count = self.limit if n is None else max(n - 1, 0)
            c.enabled = n is None or n > 0  # (enabling reads a watchpoint's value)

    def disarm(self):
        for c in self.clones:
            c.enabled = False

    def stopped(self, bps, counts=None):
        """The clones that stopped here (gdb lists those that went by too): past
        their limit, or at the last of their counts."""
        return [c for c in self.clones if c in bps and c.enabled and
                c.hit_count >= (self.limit + 1 if counts is None else counts.get(c, 0))]


def reverse_continue():
    need_replay("reverse-continue")
    check_refusal()
    here = position()
    sig = signature()
    hist = Store.history
    Stats.segments, Stats.known = 0, False
    best = hist.last_hit(sig, here)
    lo = best.pos.time if best else Store.ckpts[0].time
    end = gap_top(hist.covered(sig), lo, here) if sig else None
    if end is not None:
        with Clones(stopping_breakpoints()) as clones, Quiet():
            while end is not None:
                ck = latest_before(end)
                if ck is None:
                    break
                if search_segment(ck, end, clones, sig):
                    return
                hist.add(ck.pos, end, sig)
                end = gap_top(hist.covered(sig), lo, ck.pos)
    Stats.known = True
    if best is not None:
        land(best)
    else:
        beginning()


def latest_before(pos):
    """The latest checkpoint before the moment pos."""
    cks = [c for c in Store.ckpts if c.time < pos.time]
    return max(cks, key=lambda c: c.time) if cks else None


DENSE_HITS = 4096  # hits in one segment past which its last is looked for near its end
WINDOW = 4096      # counts: the first stretch before the end looked at then


def search_segment(ck, end, clones, sig):
    """Replay from checkpoint ck to the moment end with the clones; if they hit, land
    at the last hit (True). A segment with many hits (a watchpoint on a variable
    written in a loop) is looked at in stretches before its end, from WINDOW counts
    on, four times longer each time: the last hit is most often near."""
    Stats.segments += 1
    Store.pinned.append(ck)
    try:
        found = scan_from(lambda: restore_checkpoint(ck), end, clones, DENSE_HITS)
        window = WINDOW
        while found is DENSE:
            t = end.time - window
            if t <= ck.time:
                found = scan_from(lambda: restore_checkpoint(ck), end, clones)
                break
            else:
                found = scan_from(lambda: goto(t=t), end, clones)
                found = DENSE if found is None else found
            window *= 4
    finally:
        Store.pinned.remove(ck)
    if found is None:
        return False
    hit = Hit(position(), *found)
    Store.history.add(hit.pos, end, sig)
    Store.history.add(hit.pos, hit.pos, sig, hit)
    show_hit(hit)
    return True


DENSE = "dense"


def scan_from(start, end, clones, limit=None):
    """start() brings the replay to the start of a stretch; replay it to end with the
    clones counting. If they hit, stop at the last hit and return its (numbers,
    values); None if they did not; DENSE if one hit more than limit times."""
    start()
    clones.arm(limit=limit)
    excluded = run_counting(end, clones)
    clones.disarm()
    if excluded is None:
        return DENSE
    counts = {c: c.hit_count - excluded.get(c, 0) for c in clones.clones}
    if not any(counts.values()):
        return None
    start()
    return stop_at_last(clones, counts)


def run_counting(end, clones):
    """From the live moment, run to the moment end with the clones armed (gdb counts
    their hits and goes on): the runtime stops at end's counting point (in
    rp_debug_stopped, before the program goes on), then a breakpoint of the thread's
    at end's pc. Returns, per clone, the hits counted that are not before end (a
    breakpoint's at end itself: that moment is end's own; a watchpoint's there came
    from the write before it); None if a clone stopped (its ignore count ran out)."""
    now = position()
    if now.counts.get(end.tid, 0) < end.count:
        Store.raw_stop = True
        try:
            gdb.execute("replay stop-at %d %d" % (end.tid, end.count), to_string=True)
            mine = lr.StopAt.number
            Store.last_stop = []
            if not cont():
                raise TimeError("The program ended while going back.")
        finally:
            Store.raw_stop = False
        if clones.stopped(Store.last_stop):
            gdb.execute("replay stop-at delete %d" % mine, to_string=True)
            return None
        dbg = lr.glob("rp_debug")
        if (int(dbg["hit_tid"]), lr.u64(dbg["hit_count"])) != (end.tid, end.count) or \
                gdb.newest_frame().name() != "rp_debug_stopped":
            raise TimeError("libreplay: going back, the replay did not stop at green "
                            "thread %d count %d" % (end.tid, end.count))
    bp = lr.ThreadPc(end.pc, end.tid)
    try:
        for _ in range(100000):
            Store.last_stop = []
            if not cont():
                raise TimeError("The program ended while going back.")
            if clones.stopped(Store.last_stop):
                return None
            p = position()
            if p.same_place(end):
                return {c: 1 for c in clones.clones if hit_here(c, end)}
            if p.counts.get(end.tid, 0) > end.count:
                raise TimeError("libreplay: going back, green thread %d passed count %d "
                                "without reaching 0x%x" % (end.tid, end.count, end.pc))
            if not bp.is_valid():
                bp = lr.ThreadPc(end.pc, end.tid)
    finally:
        if bp.is_valid():
            bp.delete()
    raise TimeError("libreplay: too many stops while going back (more than 100000)")


def hit_here(c, end):
    """Did breakpoint clone c count a hit at this moment, end, where the program is
    stopped before end.pc runs?"""
    if c.type in WATCH_CLASSES or not any(loc.address == end.pc for loc in c.locations
                                          if loc.enabled):
        return False
    if c.thread and c.thread != gdb.selected_thread().num:
        return False
    if not c.condition:
        return True
    try:
        return bool(gdb.parse_and_eval(c.condition))
    except gdb.error:
        return True  # gdb stops where a condition cannot be evaluated


def stop_at_last(clones, counts):
    """From the segment's checkpoint: stop at each clone's last hit; the last of those
    stops is the segment's last hit. Returns its (numbers, values)."""
    clones.arm(counts)
    pending = [c for c in clones.clones if counts.get(c, 0) > 0]
    numbers, values = [], {}
    try:
        while pending:
            Store.last_stop = []
            if not cont():
                raise TimeError("The program ended while going back.")
            mine = [c for c in clones.stopped(Store.last_stop, counts) if c in pending]
            if not mine:
                continue
            numbers = [clones.number(c) for c in mine]
            values = watch_values(mine, numbers)
            for c in mine:
                pending.remove(c)
                c.enabled = False
    finally:
        clones.disarm()
    return numbers, values


def beginning():
    """The start of history: the program's main, about to run in green thread 1."""
    with Quiet():
        restore_checkpoint(Store.ckpts[0])
    resync_watchpoints()
    Store.history.resume_at(position())
    gdb.write("\nNo more reverse-execution history.\n")
    show_frame()


def land(hit):
    """Go to a stop known from a run forward and show it."""
    p = hit.pos
    with Quiet():
        goto(p.tid, p.count, pc=p.pc)
    show_hit(hit)


def show_hit(hit):
    """Show a stop found going back as gdb shows a reverse stop: a watchpoint's
    before the write, with the value after it as the old one."""
    if hit.values:
        with Quiet():
            reverse_stepi_quiet()
    resync_watchpoints()
    for b in gdb.breakpoints():
        if b.number in hit.numbers:
            if b.number in hit.values:
                try:
                    was = str(gdb.parse_and_eval(b.expression))
                except gdb.error:
                    was = "<unreadable>"
                gdb.write("\n%s %d: %s\n\nOld value = %s\nNew value = %s\n" % (
                    "Hardware watchpoint" if b.type == gdb.BP_HARDWARE_WATCHPOINT else "Watchpoint",
                    b.number, b.expression, hit.values[b.number], was))
            else:
                gdb.write("\nBreakpoint %d, " % b.number)
            break
    Store.history.resume_at(position())
    show_frame()


# ---- reverse-stepi, reverse-finish, reverse-next, reverse-step --------------------------

def program_pc():
    f = gdb.newest_frame()
    return f.pc() if lr.instrumented(f.pc()) and not lr.is_stub(f) else None


def back_to_program(tid):
    """After a stepi that left the program (a call into libc, a counter stub, the
    replay's signal handler): run thread tid back to where it re-enters the program."""
    uf = lr.user_frame()
    if uf is None:
        raise TimeError("green thread %d left the program" % tid)
    pc = lr.stub_return(uf) if lr.is_stub(uf) else uf.pc()
    bp = lr.ThreadPc(pc, tid)
    try:
        if not cont():
            raise TimeError("The program ended on the way.")
    finally:
        if bp.is_valid():
            bp.delete()


def trail_to(here, start_count):
    """The program instructions green thread here.tid runs from count start_count up
    to here (exclusive), as positions."""
    tid = here.tid
    goto(tid, start_count)
    trail = []
    for _ in range(200000):
        pc = program_pc()
        if running_tid() != tid or pc is None:
            back_to_program(tid)
            continue
        count = lr.count_of(lr.find_green(tid), lr.current_ext())
        if (count, pc) == (here.count, here.pc):
            return trail
        if count > here.count:
            return None  # here comes before this count's first stop: start earlier
        trail.append(Position(0, tid, count, pc, {}))
        gdb.execute("stepi", to_string=True)
        if not lr.live():
            raise TimeError("The program ended on the way.")
    raise TimeError("libreplay: too many instructions between two counting points")


def previous_instruction(here):
    """The position of the program instruction green thread here.tid ran before here."""
    with Quiet():
        start = here.count
        for _ in range(3):
            if start < 1:
                break
            trail = trail_to(here, start)
            if trail:
                return trail[-1]
            start -= 1  # here is the first instruction counted at start, or before it
    return None


def reverse_stepi_quiet():
    here = position()
    prev = previous_instruction(here)
    if prev is None:
        raise TimeError("No earlier instruction of green thread %d." % here.tid)
    with Quiet():
        goto(prev.tid, prev.count, pc=prev.pc)


class LineHits(gdb.Breakpoint):
    """Internal, silent: records (count, pc, frame CFA) when thread tid runs pc."""

    def __init__(self, pc, tid, log):
        super().__init__("*0x%x" % pc, internal=True)
        self.silent = True
        self.tid, self.log = tid, log

    def stop(self):
        if running_tid() != self.tid:
            return False
        f = real_frame(gdb.newest_frame())
        older = f.older()
        cfa = lr.u64(older.read_register("rsp")) if older is not None else 0
        if f.pc() == self.location_pc:
            cfa = lr.u64(f.read_register("rsp")) + 8  # at the entry: only the return address
        count = lr.count_of(lr.find_green(self.tid), lr.current_ext())
        self.log.append((count, f.pc(), cfa))
        return False


def real_frame(frame):
    """The frame of the function that holds frame's code: a function gcc inlined
    has a frame in gdb, but no call, no entry and no stack frame of its own."""
    while frame.type() == gdb.INLINE_FRAME and frame.older() is not None:
        frame = frame.older()
    return frame


def function_lines(frame):
    """(entry pc, {pc: line}) of the function of frame: its line table's starts
    (those of the functions inlined into it too)."""
    blk = gdb.block_for_pc(frame.pc())
    while blk is not None and blk.function is None:
        blk = blk.superblock
    while blk is not None and blk.superblock is not None and blk.superblock.function is not None:
        blk = blk.superblock  # out of inlined blocks
    if blk is None:
        raise TimeError("No line information here.")
    symtab = frame.find_sal().symtab
    lines = {}
    if symtab is not None:
        for entry in symtab.linetable():
            if blk.start <= entry.pc < blk.end and entry.line:
                lines.setdefault(entry.pc, entry.line)
    return blk.start, lines


def frame_cfa(frame):
    frame = real_frame(frame)
    older = frame.older()
    return lr.u64(older.read_register("rsp")) if older is not None else 0


def line_events(here, frame, window, entry_only=False):
    """Replay the last `window` counts of here.tid up to here with breakpoints on the
    line starts and the entry of frame's function: [(count, pc, cfa)] in order."""
    entry, lines = function_lines(frame)
    if entry_only:
        lines = {}
    log = []
    bps = []
    with Quiet():
        start = max(here.count - window, 0)
        if start >= 1:
            goto(here.tid, start)
        else:
            ck = best_checkpoint(here.tid, 1)
            restore_checkpoint(ck or Store.ckpts[0])
        for pc in set(lines) | {entry}:
            b = LineHits(pc, here.tid, log)
            b.location_pc = entry
            bps.append(b)
        try:
            goto(here.tid, here.count, pc=here.pc)
        finally:
            for b in bps:
                if b.is_valid():
                    b.delete()
    # here itself may be a line start: not before here
    while log and (log[-1][0], log[-1][1]) == (here.count, here.pc):
        log.pop()
    return entry, lines, log, start


def frame_events(events, entry, cfa):
    """The events of the invocation whose frame has cfa: after its last entry."""
    mine = [e for e in events if e[2] == cfa]
    last_entry = max((i for i, e in enumerate(mine) if e[1] == entry), default=None)
    return (mine[last_entry:] if last_entry is not None else mine), last_entry is not None


def reverse_next_target(here, frame, step_out=True):
    """The start of the line run before here in frame (gdb's reverse-next): (count, pc)
    of thread here.tid, or None at the frame's first line."""
    cfa = frame_cfa(frame)
    if here.pc == function_lines(frame)[0]:
        return None  # at the entry: the frame begins here
    window = 64
    while True:
        entry, lines, events, start = line_events(here, frame, window)
        mine, entered = frame_events(events, entry, cfa)
        starts = [e for e in mine if e[1] in lines]
        if starts:
            line = lines[starts[-1][1]]
            k = len(starts) - 1
            while k > 0 and lines[starts[k - 1][1]] == line:
                k -= 1
            if k > 0 or entered or start == 0:
                return starts[k]
        elif entered or start == 0:
            return None
        window *= 16


def land_quietly(tid, count, pc):
    with Quiet():
        goto(tid, count, pc=pc)
    Store.history.resume_at(position())


def do_reverse_finish():
    here = position()
    frame = gdb.selected_frame()
    if frame.older() is None:
        raise TimeError('"finish" not meaningful in the outermost frame.')
    cfa = frame_cfa(frame)
    if here.pc == function_lines(frame)[0]:
        reverse_stepi_quiet()  # at the entry: the call is the instruction before
        return
    window = 64
    while True:
        entry, lines, events, start = line_events(here, frame, window, entry_only=True)
        mine, entered = frame_events(events, entry, cfa)
        if entered:
            land_quietly(here.tid, mine[0][0], mine[0][1])
            reverse_stepi_quiet()  # onto the call
            return
        if start == 0:
            raise TimeError("The start of this call is before the replay's history.")
        window *= 64


def do_reverse_next(step_into):
    here = position()
    frame = lr.user_frame() or gdb.newest_frame()
    target = reverse_next_target(here, frame)
    if target is None:
        # The frame's first line: back to the call, then to the start of its line.
        do_reverse_finish()
        caller = position()
        target = reverse_next_target(caller, lr.user_frame() or gdb.newest_frame())
        here = caller
        if target is None:
            return
    if step_into:
        target = last_step_before(here, target)
    land_quietly(here.tid, target[0], target[1])


def last_step_before(here, target):
    """reverse-step: from the start of the previous line, gdb's own `step` forward
    until here; the last stop before here (inside a function that line called, if
    it called one with line information)."""
    stops = [target]
    with Quiet():
        goto(here.tid, target[0], pc=target[1])
        # A step passes over here when here is inside a line: stop there too.
        bp = LineHits(here.pc, here.tid, [])
        bp.location_pc = 0
        bp.stop = lambda: running_tid() == here.tid
        try:
            step_until(here, stops)
        finally:
            if bp.is_valid():
                bp.delete()
    return stops[-1]


def step_until(here, stops):
    """gdb's `step` until here (or past it), each stop before it into stops."""
    for _ in range(10000):
        gdb.execute("step", to_string=True)
        if not lr.live():
            return
        p = position()
        if p.tid != here.tid:
            continue
        if p.count > here.count or (p.count, p.pc) == (here.count, here.pc):
            return
        stops.append((p.count, p.pc))


def reverse_command(name, fn):
    class Reverse(gdb.Command):
        def __init__(self):
            super().__init__(name, gdb.COMMAND_RUNNING)

        def invoke(self, arg, from_tty):
            need_replay(name)
            check_refusal()
            if arg.strip():
                raise TimeError("%s: no arguments (a count is not supported yet)" % name)
            lr.restore()
            restores = Store.restores
            try:
                fn()
            finally:
                warn_went_back(restores)
    Reverse.__doc__ = REVERSE_DOCS[name]
    return Reverse()


def do_reverse_stepi():
    reverse_stepi_quiet()
    Store.history.resume_at(position())
    show_frame()


REVERSE_DOCS = {
    "reverse-continue": "Go back to the last stop before now that the breakpoints and "
                        "watchpoints of now would make (libreplay: checkpoints and replay).",
    "reverse-stepi": "Go back one instruction of the running green thread.",
    "reverse-finish": "Go back to the call of the selected frame's function.",
    "reverse-next": "Go back to the start of the line run before this one in this frame.",
    "reverse-step": "Go back to the start of the last line run, into a function it called.",
}


def rn():
    do_reverse_next(False)
    show_frame()


def rs():
    do_reverse_next(True)
    show_frame()


def rf():
    do_reverse_finish()
    show_frame()


# ---- gdb's own checkpoint and restart ---------------------------------------------------

def before_checkpoint():
    """hook-checkpoint and hook-restart (the user's own): fork() is the bare one, and
    the process left or copied is a checkpoint (debug.c's lseek)."""
    if lr.live():
        lr.set_debug("checkpointing", 1)


class AfterCheckpoint(gdb.Command):
    """Used by hookpost-checkpoint and hookpost-restart."""

    def __init__(self):
        super().__init__("libreplay-after", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if not lr.live() or Store.busy:
            return
        lr.set_debug("checkpointing", 0)
        if arg.strip() == "restart" and replaying():
            gdb.parse_and_eval("rp_debug_restored()")
            clear_requests()
            resync_watchpoints()
            Store.history.resume_at(position())
            warn_went_back(Store.restores - 1)


def on_exit(event):
    Store.ckpts = []
    Store.history.reset()


def register(ext):
    global lr
    lr = ext
    ReplayWhen()
    ReplayGoto()
    ReplayCheckpoints()
    reverse_command("reverse-continue", reverse_continue)
    reverse_command("reverse-stepi", do_reverse_stepi)
    reverse_command("reverse-finish", rf)
    reverse_command("reverse-next", rn)
    reverse_command("reverse-step", rs)
    AfterCheckpoint()
    for cmd in ("checkpoint", "restart"):
        gdb.execute("define hookpost-%s\nlibreplay-after %s\nend" % (cmd, cmd), to_string=True)
    gdb.events.stop.connect(record_stop)
    gdb.events.stop.connect(lambda e: None if Store.busy else Store.history.on_stop(e))
    gdb.events.exited.connect(on_exit)
    gdb.events.new_objfile.connect(lambda e: ensure_breakpoints())
    ensure_breakpoints()

