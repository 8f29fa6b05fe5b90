# timetravel.py: going back in a replay under gdb (docs/gdb.md, "Going back in time").
# Loaded by libreplay.py, which hands it its own module (`lr`) for the runtime's state;
# the reverse commands are reverse.py's (loaded with it, their names this module's).
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
    history = None     # History (reverse.py), made by register()
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
    last_stop = []     # the breakpoints of the last stop (reverse.py's record_stop)
    raw_stop = False   # replay stop-at stops in the runtime (stops.py's StopBreakpoint)
    signal = None      # the signal the live process stopped with (a crash), or None
    quiet = 0          # Quiet blocks open: the runtime prints no deadlock report
    clock = False      # this program's replay ticks by CPU time too (see_slow_counts)
    main_cpu = None    # the process's CPU time (ns) where main began


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


def near(ck, time, ns):
    """Is checkpoint ck near the moment at time, ns of replay CPU time in? Near in
    time and in replay time: a program whose time goes into code without counting
    points (zlib in pigz) moves a few counts in a second, and each of its checkpoints
    was near the one at main by counts alone."""
    return ck.time == time or (abs(ck.time - time) < TICK_COUNTS and
                               abs(ck.replay_ns - ns) < Store.interval_ns // 2)


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
    signalled = Store.signal is not None
    if signalled:
        # Stopped by a signal (a fault, an abort): gdb keeps it in its thread, which
        # `restart` moves to the restored process, and the next resume would deliver
        # it there, where no fault happened (the replay diverged). Not delivered, it
        # is gone from the process left too: that one cannot go on as recorded.
        gdb.execute("queue-signal 0", to_string=True)
        Store.signal = None
    old_ns = replay_ns() if old_pos is not None else 0
    # It is a checkpoint from now on: when restored, gdb's lseek calls in it must leave
    # output alone (debug.c's lseek), as in those forked as checkpoints.
    lr.set_debug("checkpointing", 1)
    gdb.execute("restart %d" % ck.num, to_string=True)
    lr.set_debug("quiet", 1 if Store.quiet else 0)  # the checkpoint's is its time's
    lr.set_debug("clock_on", 1 if Store.clock else 0)
    watch_off()  # (one forked while the runtime followed watchpoints: not now)
    # Restored before the fresh fork that replaces ck: that fork notes the file status
    # flags of the descriptors, which the restored process has just put back (the
    # process it was forked from may have changed them since: debug.c).
    err = int(gdb.parse_and_eval("rp_debug_restored()"))
    if err:
        raise TimeError("libreplay: the restored checkpoint cannot open its hardware "
                        "breakpoint (error %d)" % -err)
    num, pid = gdb_checkpoint()
    ck.num, ck.pid = num, pid
    clear_requests()
    # The process we left is a checkpoint of a later time: keep it for going forward
    # again, unless one is near it.
    if live and old_pos is not None:
        left = Checkpoint(live[0], table[live[0]][0], old_pos, old_ns)
        if signalled or any(near(c, old_pos.time, old_ns) for c in Store.ckpts):
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
            if any(near(c, pos.time, ns) for c in Store.ckpts):
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
        lr.set_debug("clock_on", 1 if Store.clock else 0)
        return False


def process_cpu_ns():
    """The live process's CPU time (/proc), or None."""
    try:
        with open("/proc/%d/stat" % gdb.selected_inferior().pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000000000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def see_slow_counts(event):
    """At a stop: the replay has used CPU time that its ticks did not see (a program
    whose time goes into a library not built with sicc counts a few times a second;
    ticks come every TICK_COUNTS counts), so it has had no checkpoint since main. Ask
    the runtime for ticks by CPU time too (rp_debug.clock_on): in this process from its
    next counting point's overflow, and in every checkpoint restored. Not for every
    program: the timer's signal, coming while gdb steps over a breakpoint, makes gdb
    report that breakpoint twice."""
    if Store.clock or Store.main_cpu is None or Store.refusal or not Store.enabled or \
            not replaying():
        return
    cpu = process_cpu_ns()
    if cpu is None or cpu - Store.main_cpu < 2 * Store.interval_ns or \
            replay_ns() >= Store.interval_ns:
        return
    Store.clock = True
    lr.set_debug("clock_on", 1)


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
            Store.main_cpu = process_cpu_ns()
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
        Store.quiet += 1
        if lr.live():
            lr.set_debug("quiet", 1)
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
        Store.quiet -= 1
        if lr.live() and not Store.quiet:
            lr.set_debug("quiet", 0)
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
    """continue, quietly; False if the program ended (gdb may then have switched to one
    of its checkpoints, another process: that is not where the continue went on)."""
    pid = gdb.selected_inferior().pid
    gdb.execute("continue", to_string=True)
    return lr.live() and gdb.selected_inferior().pid == pid


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


def forget_stop(number):
    """Delete replay stop-at's request number, unless the stop at it took it already
    (another stop may come at the same moment, or first)."""
    if number in lr.StopAt.user:
        gdb.execute("replay stop-at delete %d" % number, to_string=True)


def go_forward_count(tid, count):
    gdb.execute("replay stop-at %d %d" % (tid, count), to_string=True)
    mine = lr.StopAt.number
    if not cont():
        raise TimeError("The program ended before green thread %d reached count %d." % (tid, count))
    if at_outcome():
        # A hang that ends the run at that count, in the counter's overflow, comes
        # first: that moment is the end (no request left for a later replay).
        forget_stop(mine)


def clear_requests():
    """A restored process holds the requests of its time: the extension's are now's."""
    for field in ("stop_time", "step_tid", "resume_tid"):
        lr.set_debug(field, 0)
    Store.want_time = False
    back = getattr(lr.StopAt, "back", None)
    if back is not None:
        # The stop at a count taken, its return to the program was not (a hang's end
        # came first): at the time restored, that breakpoint would stop the thread at
        # the first pass of its pc.
        if back.is_valid():
            back.delete()
        lr.StopAt.back = None
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
    if before_now(now, tid, count, t) and (at_outcome() or Store.signal is not None):
        raise TimeError("The replay ends here (%s): that moment comes after its end." %
                        ("signal %s" % Store.signal if Store.signal else "a deadlock or a hang"))
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
        if count >= 1 and lr.counting_jump(pc):
            # pc comes between the counting point that made count and the stop at it:
            # from the stop at the count before (going on from the stop at count would
            # pass the run's end, when it came right there)
            goto(tid, count - 1)
            run_to_pc(tid, count, pc)
            resync_watchpoints()
            return
        try:
            run_to_pc(tid, count, pc)
        except PassedPc:
            # pc comes between the counting point that made count and the stop at it
            # (the `je` to the counter's stub; the stop is where the stub goes back):
            # from the stop at the count before, the thread reaches it at count.
            if count < 2:
                raise
            goto(tid, count - 1)
            run_to_pc(tid, count, pc)
    resync_watchpoints()


class PassedPc(TimeError):
    pass


def run_to_pc(tid, count, pc):
    bp = lr.ThreadPc(pc, tid)
    try:
        for _ in range(1000):
            if at_outcome():
                # The run's end (a hang) came first, at count: pc comes between the
                # counting point that made count and the end (continuing would exit).
                raise PassedPc("the run ended before green thread %d reached 0x%x" %
                               (tid, pc))
            if not cont():
                raise TimeError("The program ended on the way.")
            if running_tid() == tid and arrived_pc() == pc:
                now = lr.count_of(lr.find_green(tid), lr.current_ext())
                if now == count:
                    return
                if now > count:
                    raise PassedPc("green thread %d reached 0x%x at count %d, not %d" %
                                   (tid, pc, now, count))
            bp = lr.ThreadPc(pc, tid) if not bp.is_valid() else bp
        raise TimeError("green thread %d did not reach 0x%x at count %d" % (tid, pc, count))
    finally:
        if bp.is_valid():
            bp.delete()


def at_outcome():
    """Is the replay stopped at its end in a deadlock or a hang (rp_debug_outcome)?"""
    return lr.live() and gdb.newest_frame().name() == "rp_debug_outcome"


def arrived_pc():
    """Where the running thread stands: the pc of its stop; at a hang's end, where the
    runtime stopped it (that moment is the end: no gdb breakpoint gets there first)."""
    if at_outcome():
        uf = lr.user_frame()
        return uf.pc() if uf is not None else 0
    return gdb.newest_frame().pc()


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
    Store.history = History()
    ReplayWhen()
    ReplayGoto()
    ReplayCheckpoints()
    reverse_command("reverse-continue", reverse_continue)
    reverse_command("reverse-stepi", do_reverse_stepi)
    reverse_command("reverse-finish", rf)
    reverse_command("reverse-next", rn)
    reverse_command("reverse-step", rs)
    ReplayLastWrite()
    ReplayWatch()
    AfterCheckpoint()
    for cmd in ("checkpoint", "restart"):
        gdb.execute("define hookpost-%s\nlibreplay-after %s\nend" % (cmd, cmd), to_string=True)
    WatchLanded()
    Unchanged()
    gdb.execute("define hookpost-continue\nlibreplay-watch-landed\nend", to_string=True)
    gdb.events.stop.connect(record_stop)
    gdb.events.breakpoint_created.connect(note_location)
    gdb.events.stop.connect(see_slow_counts)
    gdb.events.stop.connect(lambda e: None if Store.busy else Store.history.on_stop(e))
    gdb.events.exited.connect(on_exit)
    gdb.events.new_objfile.connect(lambda e: ensure_breakpoints())
    ensure_breakpoints()

