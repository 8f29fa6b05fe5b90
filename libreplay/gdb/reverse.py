# reverse.py: reverse execution in a replay under gdb (docs/gdb.md, "Going back in
# time"): reverse-continue (from the stops runs forward made, or by replaying
# segments from checkpoints), reverse-stepi, reverse-finish, reverse-next and
# reverse-step. Loaded by libreplay.py beside timetravel.py, whose checkpoints and
# goto it uses (`tt`), and handed libreplay.py's module (`lr`); the names defined here
# are timetravel.py's too.

import math
import os
import re

import gdb

lr = None  # libreplay.py, set by its load()
tt = None  # timetravel.py, set by libreplay.py's load_timetravel()

# ---- what forward runs saw: history of stops --------------------------------------

STOP_TYPES = (gdb.BP_BREAKPOINT, gdb.BP_HARDWARE_BREAKPOINT)
WATCH_CLASSES = {gdb.BP_WATCHPOINT: gdb.WP_WRITE, gdb.BP_HARDWARE_WATCHPOINT: gdb.WP_WRITE,
                 gdb.BP_READ_WATCHPOINT: gdb.WP_READ, gdb.BP_ACCESS_WATCHPOINT: gdb.WP_ACCESS}


def stopping_breakpoints():
    """The user's enabled breakpoints and watchpoints (not dprintf, not catchpoints):
    what decides where a run forward stops."""
    return [b for b in tt.user_breakpoints() if b.enabled and
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
        self.hits = {}    # each stopping breakpoint's hit count where it went on from
        self.shown = []   # the user's breakpoints of the last stop shown (continue N's)

    def resume_at(self, pos):
        self.start = pos
        self.run += 1
        self.hits = hit_counts()

    def skipped(self, numbers):
        """Did a breakpoint count hits since the program went on that did not stop it
        (`continue N`, an ignore count)? Then the stretch had stops of these
        breakpoints that gdb passed: it is not one without stops."""
        now = hit_counts()
        return any(n - self.hits.get(k, 0) > (1 if k in numbers else 0)
                   for k, n in now.items())

    def add(self, start, end, sig, hit=None):
        """A stretch from start to end that went by with sig: no stop in it but hit,
        at its end."""
        if end.time >= start.time:
            self.run += 1
            self.spans.append((start.time, end.time, sig, hit, self.run, end, start))

    def on_stop(self, event):
        if not tt.replaying() or self.start is None:
            return
        numbers = [b.number for b in getattr(event, "breakpoints", []) or []
                   if b.is_valid() and b.number > 0 and b.visible]
        try:
            pos = tt.position()
        except (gdb.error, lr.ReplayError):
            return
        hit = None
        self.shown = numbers
        if numbers:
            hit = Hit(pos, numbers, watch_values([b for b in gdb.breakpoints()
                                                   if b.number in numbers], numbers))
        start = self.start
        if self.skipped(numbers):
            start = pos  # only the stop itself is known
        if pos.time >= start.time:
            self.spans.append((start.time, pos.time, signature(), hit, self.run, pos,
                               start))
        self.start = pos
        self.hits = hit_counts()

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


def hit_counts():
    """{number: hit count} of the user's stopping breakpoints."""
    return {b.number: b.hit_count for b in stopping_breakpoints()}


def watch_values(bps, numbers):
    """{number: value now} of the watchpoints among bps, as the user's numbers."""
    values = {}
    for b, n in zip(bps, numbers):
        if b.type in WATCH_CLASSES and b.expression:
            try:
                values[n] = printed(gdb.parse_and_eval(watch_expression(b)))
            except gdb.error:
                pass
    return values


def printed(v):
    """Value v as gdb prints a watchpoint's old and new values (value_print: a
    pointer with its type, `(int *) 0x...`, which str() leaves out)."""
    gdb.set_convenience_variable("_libreplay_value", v)
    try:
        return gdb.execute("output $_libreplay_value", to_string=True)
    finally:
        gdb.set_convenience_variable("_libreplay_value", None)


def watch_kind(b):
    """How gdb names watchpoint b at its stops."""
    return {gdb.BP_HARDWARE_WATCHPOINT: "Hardware watchpoint",
            gdb.BP_READ_WATCHPOINT: "Hardware read watchpoint",
            gdb.BP_ACCESS_WATCHPOINT: "Hardware access (read/write) watchpoint"}.get(
                b.type, "Watchpoint")


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
    counted = 0    # hits the clones counted (each a stop of gdb's, resumed at once)
    known = False  # the stop was known from runs forward


def record_stop(event):
    tt.Store.last_stop = list(getattr(event, "breakpoints", []) or [])
    tt.Store.signal = event.stop_signal if isinstance(event, gdb.SignalEvent) else None


# `watch -l E`: the bytes at the address E had when the watchpoint was set, which gdb
# keeps; E evaluated later, in another frame or after a pointer in it moved, may name
# other bytes or none (clone_expression).
located = {}


def note_location(b):
    """breakpoint_created: note a -location watchpoint's bytes, in the frame it was
    set in, as gdb evaluates it."""
    e = getattr(b, "expression", None) or ""
    if not e.startswith("-location "):
        return
    try:
        v = gdb.parse_and_eval(e[len("-location "):])
    except gdb.error:
        return
    if v.address is not None:
        located[b.number] = "{%s} 0x%x" % (v.type, int(v.address))


def clone_expression(b):
    """What a clone of watchpoint b watches: its expression, or for `watch -l E`
    (gdb names it "-location E", which gdb.Breakpoint cannot take) the bytes at
    E's address when it was set, as gdb's -location watches them."""
    e = b.expression or ""
    if not e.startswith("-location "):
        return e
    if b.number in located:
        return located[b.number]
    v = gdb.parse_and_eval(e[len("-location "):])
    if v.address is None:
        return e
    return "{%s} 0x%x" % (v.type, int(v.address))


class Clones:
    """Internal copies of the user's stopping breakpoints and watchpoints, disabled
    until a segment is replayed: no commands, no hit counts of the user's."""

    def __init__(self, users, conditions=None):
        self.users = users
        self.clones = []
        self.conditions = conditions or {}  # number: the condition the clone keeps

    def __enter__(self):
        for b in self.users:
            if b.type in WATCH_CLASSES:
                c = gdb.Breakpoint(clone_expression(b), gdb.BP_WATCHPOINT,
                                   WATCH_CLASSES[b.type], internal=True)
            else:
                c = gdb.Breakpoint(b.location, internal=True)
            c.silent = True
            c.enabled = False
            cond = self.conditions.get(b.number, b.condition)
            if cond:
                c.condition = cond
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


def reverse_continue(arg=""):
    """reverse-continue [N]: back to the last stop before now; with N, the
    breakpoint stopped at now ignores N-1 more crossings, as `continue N` does.
    Ignore counts are spent going back as going forward: a hit of a breakpoint
    whose ignore count is not zero lowers it and the search goes on before it; a
    temporary breakpoint is deleted where it stops."""
    arg = arg.strip()
    if arg:
        n = lr.parse_int(arg, "reverse-continue [N]")
        mine = [b for b in tt.user_breakpoints() if b.number in tt.Store.history.shown]
        if n > 1 and mine:
            mine[0].ignore_count = n - 1
            gdb.write("Will ignore next %d crossings of breakpoint %d.  Continuing.\n" %
                      (n - 1, mine[0].number))
    Stats.segments, Stats.known, Stats.counted = 0, True, 0
    watches = [b for b in stopping_breakpoints() if b.type in WATCH_CLASSES]
    write = None
    if watches and runtime_search(watches):
        # The runtime finds the last write (gdb's hardware watchpoints would stop at
        # every write of the segments searched, its software ones single-step
        # them); then the breakpoints' last stop is searched with the watchpoints
        # off, and wins if it comes after the write.
        Stats.known = False
        write = reverse_to_write(watches)
        if len(watches) == len(stopping_breakpoints()):
            show_write(write)
            return
        if write is not None:
            with tt.Quiet():
                tt.goto(write.here.tid, write.here.count, pc=write.here.pc)
        for b in watches:
            b.enabled = False
        try:
            hit, users, stops = breakpoint_stop(write)
        finally:
            for b in watches:
                if b.is_valid():
                    b.enabled = True
        tt.resync_watchpoints()
        if hit is None:
            if write is not None:
                with tt.Quiet():
                    tt.goto(write.pos.tid, write.pos.count, pc=write.pos.pc)
                tt.Store.history.resume_at(tt.position())
            show_write(write)
            return
    else:
        hit, users, stops = breakpoint_stop(None)
        if hit is None:
            beginning()
            return
    hit.numbers = stops
    show_hit(hit)
    for k in stops:
        if users[k].is_valid() and users[k].temporary:
            users[k].delete()


def breakpoint_stop(write):
    """The last stop of the breakpoints before now, ignore counts spent on the way:
    (hit, {number: breakpoint}, the numbers that stop); (None, ...) if there is none,
    or (a write: reverse_to_write's) none after the write."""
    for _ in range(1 << 30):
        hit = previous_hit()
        if hit is None:
            return None, {}, []
        if write is not None and hit.pos.time < write.pos.time:
            return None, {}, []
        users = {b.number: b for b in tt.user_breakpoints()}
        stops = [k for k in hit.numbers if k in users and users[k].ignore_count == 0]
        for k in hit.numbers:
            if k in users and users[k].ignore_count > 0:
                users[k].ignore_count -= 1
        if stops:
            return hit, users, stops
    return None, {}, []


def previous_hit():
    """Go to the last stop before now that the breakpoints of now make and return it
    (a Hit); None if there is none (the replay is where it was)."""
    tt.need_replay("reverse-continue")
    tt.check_refusal()
    here = moment()
    sig = signature()
    hist = tt.Store.history
    best = hist.last_hit(sig, here)
    lo = best.pos.time if best else tt.Store.ckpts[0].time
    end = gap_top(hist.covered(sig), lo, here) if sig else None
    if end is None and sig and any(
            hit is not None and s == sig and hit.pos.time == here.time and
            not hit.pos.same_place(here) for _, _, s, hit, _, _, _ in hist.spans):
        # A stop at here's very time (no counting point between, as from a crash
        # back to the line's start) that history cannot put before or after here:
        # the segment up to here, replayed, says.
        end = here
    win = count_window(stopping_breakpoints(), end) if end is not None else None
    if win is not None:
        if win.users:
            with Clones(win.users, win.conditions) as clones, tt.Quiet():
                hit = search_window(win, end, clones, sig)
            if hit is not None:
                Stats.known = False
                return hit
        end = None  # no other moment could have made a stop: the one known, or none
    if end is not None:
        with Clones(stopping_breakpoints()) as clones, tt.Quiet():
            while end is not None:
                ck = latest_before(end)
                if ck is None:
                    break
                hit = search_segment(ck, end, clones, sig)
                if hit is not None:
                    Stats.known = False
                    return hit
                hist.add(ck.pos, end, sig)
                end = gap_top(hist.covered(sig), lo, ck.pos)
    if best is not None:
        with tt.Quiet():
            tt.goto(best.pos.tid, best.pos.count, pc=best.pos.pc)
        return Hit(best.pos, list(best.numbers), dict(best.values))
    return None


class Window:
    """Where the stops of breakpoints with count conditions can be: while green
    thread tid's count is in [lo, hi) (hi None: on to the end)."""

    def __init__(self, tid, lo, hi, users, conditions):
        self.tid, self.lo, self.hi = tid, lo, hi
        self.users, self.conditions = users, conditions


def count_window(bps, end):
    """A Window if every breakpoint in bps can stop only while one thread's count is
    in a window (`$rcount(T) == N` and the like: stops.py's count_terms), all on the
    same thread; None otherwise (the search goes segment by segment). Those whose
    window opens after end cannot have stopped before it and are left out; where
    they all share one window, the clones keep only the other terms of their
    conditions (inside the window the count terms hold)."""
    spans = {}
    for b in bps:
        terms = lr.count_terms(b)
        if not terms:
            return None
        tid = next((t for t, lo, _ in terms if lo is not None), None)
        if tid is None:
            return None
        lo = max(l for t, l, _ in terms if t == tid and l is not None)
        his = [h for t, _, h in terms if t == tid and h is not None]
        spans[b] = (tid, lo, min(his) if his else None)
    if len({tid for tid, _, _ in spans.values()}) != 1:
        return None
    users = [b for b, (tid, lo, hi) in spans.items() if end.counts.get(tid, 0) >= lo and
             (hi is None or lo < hi)]
    tid = next(iter(spans.values()))[0]
    if not users:
        return Window(tid, 0, None, [], {})
    lo = min(spans[b][1] for b in users)
    his = [spans[b][2] for b in users]
    hi = None if None in his else max(his)
    conditions = {}
    if len({spans[b] for b in users}) == 1:
        for b in users:
            rest = [part.strip() for part in b.condition.split("&&")
                    if not is_count_term(part, tid)]
            conditions[b.number] = " && ".join(rest)
    return Window(tid, lo, hi, users, conditions)


def is_count_term(part, tid):
    """Is part of a condition a count term on green thread tid?"""
    m = lr.COUNT_TERM.match(part.strip())
    if m:
        return int(m.group(1)) == tid
    m = lr.COUNT_TERM_REV.match(part.strip())
    return m is not None and int(m.group(3)) == tid


def search_window(win, end, clones, sig):
    """The last hit of the clones in the window before end: go to where the window
    opens (a goto: a checkpoint and a replay forward, no stop of gdb's meanwhile),
    fork a checkpoint there and search from it to end, or to where the window
    closes if that comes first."""
    tt.goto(win.tid, win.lo)
    ck = temp_checkpoint()
    try:
        stop = None
        if win.hi is not None and end.counts.get(win.tid, 0) >= win.hi:
            stop = (win.tid, win.hi)
        return search_segment(ck, end, clones, sig, stop=stop, there=True)
    finally:
        tt.drop(ck)


def latest_before(pos):
    """The latest checkpoint before the moment pos."""
    cks = [c for c in tt.Store.ckpts if c.time < pos.time]
    return max(cks, key=lambda c: c.time) if cks else None


DENSE_HITS = 64      # hits in one stretch past which its last is looked for near its end
WINDOW_HITS = 16     # hits the first window before the end is sized to hold
WINDOW_MIN = 64      # counts: the smallest window
DENSE = "dense"


def search_segment(ck, end, clones, sig, stop=None, there=False):
    """Replay from checkpoint ck to the moment end with the clones; if they hit, go to
    the last hit and return it (a Hit); None if they did not. With stop (a thread
    and a count), the stretch ends where that thread reaches that count instead.

    A first pass counts hits up to DENSE_HITS (each a stop of gdb's, resumed at
    once). Fewer: the checkpoint is restored again and the clones stop at the last.
    More (a hot breakpoint, a variable written in a loop): where the pass stopped
    says how far apart the hits are; a window before the end sized to hold about
    WINDOW_HITS of them is looked at (the replay goes on forward to its start, and a
    checkpoint forked there serves the second pass), eight times longer each time
    it holds none. So going back to the last of many hits costs about one replay
    of the segment and a few dozen stops, not a stop at each pass."""
    Stats.segments += 1
    tt.Store.pinned.append(ck)
    try:
        if any(c.condition for c in clones.clones):
            found = probe(lambda: tt.restore_checkpoint(ck), end, clones, stop, there)
        else:
            found = scan_from(lambda: tt.restore_checkpoint(ck), end, clones, DENSE_HITS,
                              stop, there)
        if found is DENSE:
            d = tt.position()
            gap = max((d.time - ck.time) // (DENSE_HITS + 1), 1)
            if stop is not None:
                # the windows need the end as a moment: run on to it
                clones.disarm()
                if run_counting(None, clones, stop) is None:
                    raise tt.TimeError("libreplay: going back, the replay did not stop "
                                       "at green thread %d count %d" % stop)
                end, stop = tt.position(settled=True), None
            found = windows(ck, d, end, clones, max(WINDOW_MIN, gap * WINDOW_HITS))
    finally:
        tt.Store.pinned.remove(ck)
    if found is None:
        return None
    hit = Hit(tt.position(), *found)
    if stop is None:
        tt.Store.history.add(hit.pos, end, sig)
    tt.Store.history.add(hit.pos, hit.pos, sig, Hit(hit.pos, list(hit.numbers),
                                                     dict(hit.values)))
    return hit


def probe(start, end, clones, stop, there):
    """With conditions gdb evaluates at each pass: count the passes first, the
    conditions off, up to DENSE_HITS. Few: replay the stretch again with the
    conditions. Many: DENSE, the replay stopped at the pass past DENSE_HITS, and the
    windows before the end evaluate the conditions only at the passes in them."""
    if not there:
        start()
    saved = {c: c.condition for c in clones.clones}
    for c in clones.clones:
        c.condition = None
    clones.arm(limit=DENSE_HITS)
    try:
        excluded = run_counting(end, clones, stop)
    finally:
        clones.disarm()
        Stats.counted += sum(c.hit_count for c in clones.clones)
        for c, cond in saved.items():
            c.condition = cond
    if excluded is None:
        return DENSE
    return scan_from(start, end, clones, stop=stop)


def windows(ck, dense, end, clones, window):
    """The last hit before end, where the stretch from ck to end has more than
    DENSE_HITS: look at windows before end, from `window` counts on."""
    while True:
        t = end.time - window
        if t <= dense.time:
            # the hits counted already lie in it: the whole stretch, every hit counted
            return scan_from(lambda: tt.restore_checkpoint(ck), end, clones)
        tt.goto(t=t)  # forward from where the replay is, or from a checkpoint
        tmp = temp_checkpoint()
        try:
            found = scan_from(lambda: tt.restore_checkpoint(tmp), end, clones, there=True)
        finally:
            tt.drop(tmp)
        if found is not None:
            return found
        window *= 8


def temp_checkpoint():
    """A checkpoint of this moment for one search, not kept (nor thinned)."""
    num, pid = tt.gdb_checkpoint()
    return tt.Checkpoint(num, pid, tt.position(settled=True), tt.replay_ns())


def scan_from(start, end, clones, limit=None, stop=None, there=False):
    """start() brings the replay to the start of a stretch (there: it is there
    already); replay it to end (or to stop, a thread and a count) with the clones
    counting. If they hit, stop at the last hit and return its (numbers, values);
    None if they did not; DENSE if one hit more than limit times."""
    if not there:
        start()
    clones.arm(limit=limit)
    excluded = run_counting(end, clones, stop)
    clones.disarm()
    Stats.counted += sum(c.hit_count for c in clones.clones)
    if excluded is None:
        return DENSE
    counts = {c: c.hit_count - excluded.get(c, 0) for c in clones.clones}
    if not any(counts.values()):
        return None
    start()
    return stop_at_last(clones, counts)


def to_count(tid, count, clones):
    """Run until green thread tid reaches count (the runtime stops in
    rp_debug_stopped, before the program goes on): False if a clone stopped first."""
    tt.Store.raw_stop = True
    try:
        gdb.execute("replay stop-at %d %d" % (tid, count), to_string=True)
        mine = lr.StopAt.number
        tt.Store.last_stop = []
        if not tt.cont():
            raise tt.TimeError("The program ended while going back.")
    finally:
        tt.Store.raw_stop = False
    if clones.stopped(tt.Store.last_stop):
        tt.forget_stop(mine)
        return False
    dbg = lr.glob("rp_debug")
    if (int(dbg["hit_tid"]), lr.u64(dbg["hit_count"])) != (tid, count) or \
            gdb.newest_frame().name() != "rp_debug_stopped":
        raise tt.TimeError("libreplay: going back, the replay did not stop at green "
                           "thread %d count %d" % (tid, count))
    return True


def run_counting(end, clones, stop=None):
    """From the live moment, run to the moment end with the clones armed (gdb counts
    their hits and goes on): the runtime stops at end's counting point (in
    rp_debug_stopped, before the program goes on), then a breakpoint of the thread's
    at end's pc. Returns, per clone, the hits counted that are not before end (a
    breakpoint's at end itself: that moment is end's own; a watchpoint's there came
    from the write before it); None if a clone stopped (its ignore count ran out).
    With stop (a thread, a count), to where that thread reaches that count: every
    hit counted is before it."""
    if stop is not None:
        return {} if to_count(stop[0], stop[1], clones) else None
    now = tt.position()
    if now.counts.get(end.tid, 0) < end.count and not to_count(end.tid, end.count, clones):
        return None
    bp = lr.ThreadPc(end.pc, end.tid)
    try:
        for _ in range(100000):
            tt.Store.last_stop = []
            if not tt.cont():
                raise tt.TimeError("The program ended while going back.")
            if clones.stopped(tt.Store.last_stop):
                return None
            p = tt.position()
            if p.same_place(end):
                return {c: 1 for c in clones.clones if hit_here(c, end)}
            if p.counts.get(end.tid, 0) > end.count:
                raise tt.TimeError("libreplay: going back, green thread %d passed count %d "
                                "without reaching 0x%x" % (end.tid, end.count, end.pc))
            if not bp.is_valid():
                bp = lr.ThreadPc(end.pc, end.tid)
    finally:
        if bp.is_valid():
            bp.delete()
    raise tt.TimeError("libreplay: too many stops while going back (more than 100000)")


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
            tt.Store.last_stop = []
            if not tt.cont():
                raise tt.TimeError("The program ended while going back.")
            mine = [c for c in clones.stopped(tt.Store.last_stop, counts) if c in pending]
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
    with tt.Quiet():
        tt.restore_checkpoint(tt.Store.ckpts[0])
    tt.resync_watchpoints()
    tt.Store.history.resume_at(tt.position())
    gdb.write("\nNo more reverse-execution history.\n")
    tt.show_frame()


def show_hit(hit):
    """Show a stop found going back as gdb shows a reverse stop: a watchpoint's
    before the write, with the value after it as the old one."""
    if hit.values:
        with tt.Quiet():
            reverse_stepi_quiet()
    tt.resync_watchpoints()
    for b in gdb.breakpoints():
        if b.number in hit.numbers:
            if b.number in hit.values:
                try:
                    was = printed(gdb.parse_and_eval(watch_expression(b)))
                except gdb.error:
                    was = "<unreadable>"
                gdb.write("\n%s %d: %s\n\nOld value = %s\nNew value = %s\n" % (
                    watch_kind(b), b.number, b.expression, hit.values[b.number], was))
            else:
                gdb.write("\n%s %d, " % ("Temporary breakpoint" if b.temporary else
                                          "Breakpoint", b.number))
            break
    tt.Store.history.shown = list(hit.numbers)
    into_inlined(hit.numbers)
    tt.Store.history.resume_at(tt.position())
    tt.show_frame()


# ---- where a reverse command starts -----------------------------------------------------
# A stop inside a call the program made (a crash in abort(), a deadlock found while
# the running thread blocks in pthread_join, the hang's or the log end's stop in the
# runtime) is, for the program, the call instruction: its frame shows the return
# address, which the thread never reaches, and what the call ran is not the
# program's. So a reverse command starts from the call: reverse-stepi lands on it,
# the others replay up to it (and never run into the crash or the deadlock again).

def moment():
    """This stop as a moment of the program (tt.position(), at the call instruction
    when the stop is inside a call the program made)."""
    here = tt.position()
    call = call_in_progress()
    if call is not None and call != here.pc:
        here.pc = call
        here.in_call = True
        if lr.counted_inside(call) and here.count >= 1:
            # The call ran at the count before: its count was made in the callee's
            # entry (and going on from the stop at here's count would run the rest
            # of the call, into the end where it crashed).
            here.count -= 1
    return here


def call_in_progress():
    """The pc of the call the running thread's program frame is in, or None (the
    program's own instruction is the stop, or it is preempted: a signal frame or the
    counter's overflow routine, whose frames unwind to the pc it goes on at)."""
    uf = lr.user_frame()
    if uf is None or uf.level() == 0 or lr.is_stub(uf):
        return None
    newer = uf.newer()
    while newer is not None and newer.type() == gdb.INLINE_FRAME:
        newer = newer.newer()
    if newer is None or newer.type() == gdb.SIGTRAMP_FRAME or \
            (newer.name() or "") in lr.OVERFLOW or lr.is_stub(newer):
        return None
    return call_before(uf, uf.pc())


def call_before(frame, ret):
    """The address of the instruction that ends at ret (the call whose return address
    ret is), from the start of the function around it."""
    start = function_start(ret - 1)
    if start is None:
        return None
    insns = frame.architecture().disassemble(start, ret - 1)
    for insn in reversed(insns):
        if insn["addr"] + insn["length"] == ret:
            return insn["addr"]
    return None


def function_start(pc):
    """Where the part of the function around pc starts: its entry (the symbol's
    address), or for a pc in its cold part (f.cold, below f) the block's start; in
    code without debug information its symbol's (`info symbol`: "work + 94 in
    section .text")."""
    blk = gdb.block_for_pc(pc)
    while blk is not None and blk.function is None:
        blk = blk.superblock
    if blk is not None:
        entry = lr.function_entry(pc)
        return entry if entry <= pc else blk.start
    try:
        said = gdb.execute("info symbol 0x%x" % pc, to_string=True)
    except gdb.error:
        return None
    m = re.match(r"\S+(?: \+ (\d+))? in section ", said)
    return pc - int(m.group(1) or 0) if m else None


def inner_function(pc):
    """The name of the innermost function whose code is at pc (an inlined one too)."""
    blk = gdb.block_for_pc(pc)
    while blk is not None and blk.function is None:
        blk = blk.superblock
    return blk.function.name if blk is not None else None


def into_inlined(numbers):
    """A stop we reached at the first instruction of an inlined call shows the caller:
    gdb hides inlined frames whose code starts here unless a user's breakpoint at
    this pc stopped it. Where one of the user's breakpoints (numbers) is at this pc,
    `step` into the inlined frames as gdb shows them going forward: at an inlined
    call's start gdb's step only reveals the frame, nothing runs."""
    f = gdb.newest_frame()
    pc = f.pc()
    inner = inner_function(pc)
    if inner is None or (f.function() is not None and f.function().name == inner):
        return
    if not any(loc.address == pc
               for b in gdb.breakpoints() if b.number in numbers and b.locations
               for loc in b.locations):
        return
    with tt.Quiet(keep_user=True):
        for _ in range(8):
            gdb.execute("step", to_string=True)
            f = gdb.newest_frame()
            if f.pc() != pc or (f.function() is not None and f.function().name == inner):
                return


# ---- reverse-stepi, reverse-finish, reverse-next, reverse-step --------------------------

def program_pc():
    f = gdb.newest_frame()
    return f.pc() if lr.instrumented(f.pc()) and not lr.is_stub(f) else None


def back_to_program(tid):
    """After a stepi that left the program (a call into libc, a counter stub, the
    replay's signal handler): run thread tid back to where it re-enters the program,
    the return to its frame, or before that a function of the program the foreign
    code calls back (qsort's comparison), stopped at its entry's count. The positions
    of that entry's check it passed so, as a list (callback_entry)."""
    uf = lr.user_frame()
    if uf is None:
        raise tt.TimeError("green thread %d left the program" % tid)
    pc = lr.stub_return(uf) if lr.is_stub(uf) else uf.pc()
    bp = lr.ThreadPc(pc, tid)
    now = lr.count_of(lr.find_green(tid), lr.current_ext())
    mine = None
    try:
        gdb.execute("replay stop-at %d %d" % (tid, now + 1), to_string=True)
        mine = lr.StopAt.number
    except gdb.error:
        pass  # its last count in the recording: no callback comes
    try:
        if not tt.cont():
            raise tt.TimeError("The program ended on the way.")
    finally:
        if bp.is_valid():
            bp.delete()
        if mine is not None:
            tt.forget_stop(mine)
    if tt.running_tid() != tid or lr.count_of(lr.find_green(tid), lr.current_ext()) != now + 1:
        return []
    return callback_entry(tid, now)


def callback_entry(tid, before):
    """Thread tid stopped at its count before + 1 in a function of the program that
    foreign code called: the positions of the function's entry it ran before that
    stop (sicpp's check of the token, at `before`; where the caller passed the token,
    the counter's load and count too, the jump to the stub at the new count). Those
    come between counting points that stepping over foreign code does not see."""
    f = gdb.newest_frame()
    older = f.older()
    start = function_start(f.pc())
    if older is None or lr.instrumented(older.pc()) or start is None or start >= f.pc():
        return []
    insns = f.architecture().disassemble(start, f.pc() - 1)
    if older.name() == "__sic_foreign_entry":
        insns = insns[:2]  # the check and its jump to the foreign entry's stub
    out, count = [], before
    for insn in insns:
        out.append(tt.Position(0, tid, count, insn["addr"], {}))
        if re.match(r"dec\w*\s+%r15$", insn["asm"]):
            count += 1
    return out


def trail_to(here, start_count):
    """The program instructions green thread here.tid runs from count start_count up
    to here (exclusive), as positions."""
    tid = here.tid
    tt.goto(tid, start_count)
    trail = []
    for _ in range(200000):
        pc = program_pc()
        if tt.at_outcome():  # the run's end (a hang): here, or past it
            uf = lr.user_frame()
            count = lr.count_of(lr.find_green(tid), lr.current_ext())
            return trail if uf is not None and (count, uf.pc()) == (here.count, here.pc) else None
        if tt.running_tid() != tid or pc is None:
            for p in back_to_program(tid):
                if (p.count, p.pc) == (here.count, here.pc):
                    return trail
                trail.append(p)
            continue
        count = lr.count_of(lr.find_green(tid), lr.current_ext())
        if (count, pc) == (here.count, here.pc):
            return trail
        if count > here.count:
            return None  # here comes before this count's first stop: start earlier
        trail.append(tt.Position(0, tid, count, pc, {}))
        gdb.execute("stepi", to_string=True)
        if not lr.live():
            raise tt.TimeError("The program ended on the way.")
    raise tt.TimeError("libreplay: too many instructions between two counting points")


def previous_instruction(here):
    """The position of the program instruction green thread here.tid ran before here."""
    with tt.Quiet():
        start = here.count
        if lr.counting_jump(here.pc):
            start -= 1  # the stop at here's count comes after here (tt.goto)
        for _ in range(3):
            if start < 1:
                break
            trail = trail_to(here, start)
            if trail:
                return trail[-1]
            start -= 1  # here is the first instruction counted at start, or before it
    return None


def reverse_stepi_quiet():
    here = moment()
    if getattr(here, "in_call", False):
        # The instruction before the stop is the call: go to it.
        land_call(here)
        return
    prev = previous_instruction(here)
    if prev is None:
        raise tt.TimeError("No earlier instruction of green thread %d." % here.tid)
    with tt.Quiet():
        tt.goto(prev.tid, prev.count, pc=prev.pc)


class LineHits(gdb.Breakpoint):
    """Internal, silent: records (count, pc, frame CFA) when thread tid runs pc."""

    def __init__(self, pc, tid, log):
        super().__init__("*0x%x" % pc, internal=True)
        self.silent = True
        self.tid, self.log = tid, log

    def stop(self):
        if tt.running_tid() != self.tid:
            return False
        f = real_frame(gdb.newest_frame())
        older = f.older()
        cfa = lr.u64(older.read_register("rsp")) if older is not None else 0
        if f.pc() == self.location_pc:
            cfa = lr.u64(f.read_register("rsp")) + 8  # at the entry: only the return address
        count = lr.count_of(lr.find_green(self.tid), lr.current_ext())
        self.log.append((count, f.pc(), cfa))
        return False


class HereHits(LineHits):
    """LineHits that also stops there (a step over it would run it: a fault, say)."""

    def stop(self):
        super().stop()
        return tt.running_tid() == self.tid


def real_frame(frame):
    """The frame of the function that holds frame's code: a function gcc inlined
    has a frame in gdb, but no call, no entry and no stack frame of its own."""
    while frame.type() == gdb.INLINE_FRAME and frame.older() is not None:
        frame = frame.older()
    return frame


def function_lines(frame):
    """(entry pc, {pc: line}) of the function of frame: its line table's starts
    (those of the functions inlined into it too)."""
    blocks = function_blocks(frame.pc())  # out of inlined blocks (and the lexical
    blk = blocks[-1] if blocks else None  # ones between)
    if blk is None:
        raise tt.TimeError("No line information here.")
    # A function gcc split (its unlikely code in f.cold, often below f and other
    # functions): the block spans them all, from the cold part; the entry is f's own
    # (the symbol's address), and the lines are those whose function is f.
    entry = lr.function_entry(frame.pc())
    symtab = frame.find_sal().symtab
    lines = {}
    if symtab is not None:
        for row in symtab.linetable():
            if blk.start <= row.pc < blk.end and row.line and row.pc not in lines and \
                    (row.pc >= entry or function_blocks(row.pc)[-1:] == [blk]):
                lines[row.pc] = row.line
    return entry, lines


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
    with tt.Quiet():
        start = max(here.count - window, 0)
        if start >= 1:
            tt.goto(here.tid, start)
        else:
            ck = tt.best_checkpoint(here.tid, 1)
            tt.restore_checkpoint(ck or tt.Store.ckpts[0])
        for pc in set(lines) | {entry}:
            b = LineHits(pc, here.tid, log)
            b.location_pc = entry
            bps.append(b)
        try:
            tt.goto(here.tid, here.count, pc=here.pc)
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


def function_blocks(pc):
    """The blocks of functions whose code is at pc, innermost first: those gcc
    inlined, then the function itself (a lexical block may lie between two)."""
    out = []
    blk = gdb.block_for_pc(pc)
    while blk is not None and not blk.is_static and not blk.is_global:
        if blk.function is not None:
            out.append(blk)
        blk = blk.superblock
    return out


def outside_inlined(pc):
    """Is pc where gdb's `next` in the function holding it can stop: not inside the
    code of a function gcc inlined into it, unless at that code's entry, where gdb
    shows the caller (at the call's line) and its `next` steps over the rest?"""
    return all(pc == b.start for b in function_blocks(pc)[:-1])


STMT_PCS = {}  # symtab file name: the pcs of its is_stmt rows (None: unknown)


def stmt_pcs(symtab):
    """The pcs where symtab's line table starts a statement (is_stmt): gdb's `next`
    stops only there. gdb 13's Python has no is_stmt: `maint info line-table` says
    it, row for row, unrelocated (the difference to linetable()'s first pc)."""
    key = symtab.filename
    if key in STMT_PCS:
        return STMT_PCS[key]
    STMT_PCS[key] = None
    try:
        text = gdb.execute("maint info line-table ^%s$" % re.escape(key), to_string=True)
        first = next(iter(symtab.linetable())).pc
    except (gdb.error, StopIteration):
        return None
    mine, rows = False, []
    for line in text.splitlines():
        if line.startswith("symtab: "):
            mine = line[len("symtab: "):].split(" ((struct")[0] == symtab.fullname()
            rows = rows if not mine else []
        elif mine:
            m = re.match(r"^\d+\s+(?:\d+|END)\s+(0x[0-9a-f]+)\s*(Y?)", line)
            if m:
                rows.append((int(m.group(1), 16), m.group(2) == "Y"))
        if mine and rows and line.startswith("linetable:") is False and line == "":
            break
    if not rows:
        return None
    off = first - rows[0][0]
    STMT_PCS[key] = {a + off for a, y in rows if y}
    return STMT_PCS[key]


def reverse_next_target(here, frame, step_out=True):
    """The start of the line run before here in frame (gdb's reverse-next): (count, pc)
    of thread here.tid, or None at the frame's first line. As gdb's `next` going
    forward, a line start inside an inlined call's code is not one of this frame's
    (where the frame shown is the caller's: in an inlined function's own frame, its
    lines are)."""
    cfa = frame_cfa(frame)
    if here.pc == function_lines(frame)[0]:
        return None  # at the entry: the frame begins here
    inlined = frame.type() == gdb.INLINE_FRAME  # (the program's frame: the stop may be in libc)
    symtab = frame.find_sal().symtab
    stmts = stmt_pcs(symtab) if symtab is not None else None
    window = 64
    while True:
        entry, lines, events, start = line_events(here, frame, window)
        mine, entered = frame_events(events, entry, cfa)
        starts = [e for e in mine if e[1] in lines and (stmts is None or e[1] in stmts) and
                  (inlined or outside_inlined(e[1]))]
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


def land_call(here):
    """Go to the call instruction here names: at here's count, or one before it (the
    counting point of a call may come before the call)."""
    with tt.Quiet():
        for count in (here.count, here.count - 1):
            try:
                tt.goto(here.tid, count, pc=here.pc)
                return
            except tt.TimeError:
                if count < 2:
                    raise


def land_quietly(tid, count, pc):
    with tt.Quiet():
        tt.goto(tid, count, pc=pc)
    tt.Store.history.resume_at(tt.position())


def foreign_caller(frame):
    """The name of the code that called frame's function when it is not the program's
    (qsort calling its comparison; the runtime's foreign entry between them left out),
    or None."""
    older = frame.older()
    while older is not None and older.name() == "__sic_foreign_entry":
        older = older.older()
    if older is None or lr.instrumented(older.pc()):
        return None
    return older.name() or "0x%x" % older.pc()


def do_reverse_finish():
    here = moment()
    frame = gdb.selected_frame()
    if not lr.instrumented(frame.pc()) and not lr.is_stub(frame):
        frame = lr.user_frame() or frame  # a stop in libc or the runtime: the program's
    if frame.older() is None or lr.user_frame(frame.older()) is None:
        # (a thread's start function: the runtime called it, bt shows it outermost)
        raise tt.TimeError('"finish" not meaningful in the outermost frame.')
    cfa = frame_cfa(frame)
    caller = foreign_caller(frame)
    if here.pc == function_lines(frame)[0]:
        if caller is not None:
            raise tt.TimeError("%s's caller, %s, is not the program's: no instruction of it "
                               "to go back to" % (frame.name(), caller))
        reverse_stepi_quiet()  # at the entry: the call is the instruction before
        return
    window = 64
    while True:
        entry, lines, events, start = line_events(here, frame, window, entry_only=True)
        mine, entered = frame_events(events, entry, cfa)
        if entered:
            land_quietly(here.tid, mine[0][0], mine[0][1])
            if caller is None:
                reverse_stepi_quiet()  # onto the call
            else:
                gdb.write("libreplay: %s was called by %s, which is not the program's: "
                          "stopped at its entry\n" % (frame.name(), caller))
            return
        if start == 0:
            raise tt.TimeError("The start of this call is before the replay's history.")
        window *= 64


def do_reverse_next(step_into):
    here = moment()
    frame = lr.user_frame() or gdb.newest_frame()
    target = reverse_next_target(here, frame)
    if target is None:
        # The frame's first line: back to the call, then to the start of its line.
        do_reverse_finish()
        caller = tt.position()
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
    with tt.Quiet():
        tt.goto(here.tid, target[0], pc=target[1])
        # A step passes over here when here is inside a line (a step that went
        # through the counter's stub steps on from where it goes back, even past a
        # breakpoint): note each pass of the thread at here's pc.
        passes = []
        bp = HereHits(here.pc, here.tid, passes)
        bp.location_pc = 0
        try:
            step_until(here, stops, passes)
        finally:
            if bp.is_valid():
                bp.delete()
    return stops[-1]


def step_until(here, stops, passes):
    """gdb's `step` until here (or past it), each stop before it into stops."""
    for _ in range(10000):
        gdb.execute("step", to_string=True)
        if not lr.live():
            return
        if any(c >= here.count for c, _, _ in passes):
            return  # it ran here: the stops after it are not before it
        p = tt.position()
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
            tt.need_replay(name)
            tt.check_refusal()
            if arg.strip() and fn is not reverse_continue:
                raise tt.TimeError("%s: no arguments (a count is not supported yet)" % name)
            lr.restore()
            restores = tt.Store.restores
            try:
                if fn is reverse_continue:
                    fn(arg)
                else:
                    fn()
            finally:
                tt.warn_went_back(restores)
    Reverse.__doc__ = REVERSE_DOCS[name]
    return Reverse()


def do_reverse_stepi():
    reverse_stepi_quiet()
    tt.Store.history.resume_at(tt.position())
    tt.show_frame()


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
    tt.show_frame()


def rs():
    do_reverse_next(True)
    tt.show_frame()


def rf():
    do_reverse_finish()
    tt.show_frame()


# ---- who wrote this last: replay last-write, watchpoints without debug registers ------
# The runtime compares the watched regions (up to RP_DEBUG_WATCHES of them, at most
# RP_DEBUG_WATCH bytes in all) with their last value at every counting point that
# reaches it and at every switch (debug.c, watch_check): a change seen there was made
# by the thread that ran since the last comparison, between two of its counts. Three
# passes, newest segment first: (1) from a checkpoint to the segment's end with a
# counter overflow at least every WATCH_EVERY counts of a thread: the last change in
# the segment, to within WATCH_EVERY counts of one thread; (2) that stretch again
# with an overflow at every counting point: the count; (3) the instructions of that
# count, one stepi each, the bytes read after each: the writing instruction (the last
# that changed them). No debug register is used, and every region is compared in the
# same passes: ten watchpoints cost what one does. A change undone within the same
# WATCH_EVERY counts of one thread, after the last change seen, is not seen (the
# first pass compares values, not writes): where the debug registers work,
# reverse-continue replays the tail after the last change seen with gdb's hardware
# watchpoints instead of stepping (exact_write), which stop at such writes too.

WATCH_EVERY = 4096


class Regions:
    """The bytes watched: (address, size) of each region, in rp_debug.watches order."""

    def __init__(self, spans):
        self.spans = list(spans)

    def read(self):
        """Their bytes now, one region after another."""
        return b"".join(read_bytes(a, n) for a, n in self.spans)

    def split(self, raw):
        out, at = [], 0
        for _, n in self.spans:
            out.append(raw[at:at + n])
            at += n
        return out

    def changed(self, a, b):
        """The regions whose bytes differ between a and b (two reads)."""
        return [i for i, (x, y) in enumerate(zip(self.split(a), self.split(b))) if x != y]


class Write:
    """The last change found: green thread tid ran the instruction at pc (count
    `count`, after `steps` stepi from that count's counting point) and the bytes went
    from old to new (all regions: `which` are those it changed)."""

    def __init__(self, tid, count, steps, pc, old, new, which):
        self.tid, self.count, self.steps, self.pc = tid, count, steps, pc
        self.old, self.new, self.which = old, new, which


def watch_limits():
    dbg = lr.glob("rp_debug")
    return dbg["watches"].type.range()[1] + 1, dbg["watch_val"].type.sizeof


def watched(exprs, who="replay last-write"):
    """The Regions of the bytes of expressions exprs."""
    most, room = watch_limits()
    if len(exprs) > most:
        raise tt.TimeError("%s: %d expressions: at most %d can be watched at once" %
                           (who, len(exprs), most))
    spans = []
    for expr in exprs:
        try:
            v = gdb.parse_and_eval(expr)
        except gdb.error as e:
            raise tt.TimeError("%s: %s" % (who, e))
        if v.address is None:
            raise tt.TimeError("%s: %s is not in memory (no address)" % (who, expr))
        n = v.type.sizeof
        if n < 1 or n > room:
            raise tt.TimeError("%s: %s is %d bytes: at most %d can be watched" %
                               (who, expr, n, room))
        room -= n
        spans.append((int(v.address), n))
    return Regions(spans)


def read_bytes(addr, n):
    return bytes(gdb.selected_inferior().read_memory(addr, n))


def watch_on(regions, every, tid, count):
    """Ask the runtime to compare the regions, from their value now, with an
    overflow at least every `every` counts; the running thread tid is at count."""
    try:
        now = regions.read()
    except gdb.MemoryError as e:
        raise tt.TimeError("replay last-write: %s at time %d: the bytes must be there "
                           "from a checkpoint on" % (e, tt.position().time))
    dbg = lr.glob("rp_debug")
    gdb.selected_inferior().write_memory(int(dbg["watch_val"].address), now)
    for i, (addr, n) in enumerate(regions.spans):
        gdb.execute("set var rp_debug.watches[%d].addr = %d" % (i, addr), to_string=True)
        gdb.execute("set var rp_debug.watches[%d].len = %d" % (i, n), to_string=True)
    for field, value in (("watch_every", every), ("watch_changes", 0), ("seen_tid", tid),
                         ("seen_count", count), ("watch_n", len(regions.spans))):
        lr.set_debug(field, value)
    # the running thread's counter was loaded before: load it again to overflow at
    # its next comparison
    lr.reload_running(count + every - count % every)


def watch_off():
    lr.set_debug("watch_n", 0)
    lr.set_debug("watch_every", 0)
    lr.set_debug("watch_stop", 0)


def watch_state(regions):
    """After a pass: (tid, from, to) of the last change the runtime saw, or None;
    whether the bytes changed since the last comparison (the stretch from the last
    counting point to a moment between two); the thread and count of that
    comparison."""
    dbg = lr.glob("rp_debug")
    n = sum(n for _, n in regions.spans)
    tail = regions.read() != bytes(int(dbg["watch_val"][i]) for i in range(n))
    seen = (int(dbg["seen_tid"]), lr.u64(dbg["seen_count"]))
    last = None
    if lr.u64(dbg["watch_changes"]):
        last = (int(dbg["watch_tid"]), lr.u64(dbg["watch_from"]), lr.u64(dbg["watch_to"]))
    return last, tail, seen


NO_CLONES = Clones([])


WATCH_MARKS = 8          # checkpoints forked along a segment's first pass, at most
WATCH_FORK_NS = 10000000  # about what forking one costs, in replay time (10 ms)


def last_change(regions, here):
    """Where the bytes changed last before here: (tid, count, stop, base) where the
    change was made by thread tid's instructions between its counts count-1 and
    count (stop: None, or here when the change came after here's counting point);
    base is a temporary checkpoint (to drop) at a counting point of tid's before
    count-1, from which the search goes on forward."""
    end = here
    while True:
        ck = latest_before(end)
        if ck is None:
            return None
        Stats.segments += 1
        tt.Store.pinned.append(ck)
        marks = []
        try:
            # The segment's replay CPU time says how many checkpoints to fork along
            # the first pass: the change's stretch is then replayed again from the
            # last one before it, not from the segment's start.
            if end is here:
                ns = tt.replay_ns() - ck.replay_ns
            else:
                ns = next((c.replay_ns for c in tt.Store.ckpts if c.time == end.time),
                          ck.replay_ns) - ck.replay_ns
            # n marks cost n forks and leave 1/(n+1) of the segment to replay
            # again: about the square root of the segment over a fork's cost
            n = min(WATCH_MARKS, math.isqrt(max(ns, 0) // WATCH_FORK_NS))
            tt.restore_checkpoint(ck)
            watch_on(regions, WATCH_EVERY, tt.running_tid(), ck.pos.count)
            try:
                for k in range(1, n + 1):
                    t = ck.time + (end.time - ck.time) * k // (n + 1)
                    if t > tt.position().time:
                        tt.goto(t=t)  # forward, comparing on the way
                        marks.append(temp_checkpoint())
                run_counting(end, NO_CLONES)
                last, tail, seen = watch_state(regions)
            finally:
                watch_off()
            if tail and end is here:
                # after the last counting point: here's own stretch
                tid, frm, to, stop = here.tid, seen[1], here.count, here
            elif last is not None:
                (tid, frm, to), stop = last, None
            else:
                end = ck.pos
                continue
            frm = max(frm, 1)
            # the last mark before thread tid reached frm, or the segment's start
            from_mark = [m for m in marks if m.pos.counts.get(tid, 0) < frm]
            tt.restore_checkpoint(from_mark[-1] if from_mark else ck)
            watch_off()  # (a mark was forked comparing)
            tt.goto(tid, frm)
            base = temp_checkpoint()
        finally:
            tt.Store.pinned.remove(ck)
            for m in marks:
                tt.drop(m)
        try:
            if stop is None and frm >= to:
                # seen where tid switched out, still at the count of the last
                # comparison: the write came after that counting point
                count, stop, switched = to + 1, None, True
            else:
                count, stop, switched = exact_count(regions, tid, frm, to, stop)
        except BaseException:
            tt.drop(base)
            raise
        return tid, count, stop, base, switched


def exact_count(regions, tid, frm, to, stop):
    """The change of thread tid between its counts frm and to (the replay is at
    frm): replay that stretch with a comparison at every counting point.
    (count, stop, switched): switched, the change was seen where tid switched out
    after count-1's counting point, before count's."""
    watch_on(regions, 1, tid, frm)
    try:
        if stop is not None:
            run_counting(stop, NO_CLONES)
        else:
            to_count(tid, to, NO_CLONES)
        last, tail, seen = watch_state(regions)
    finally:
        watch_off()
    if stop is not None and tail:
        return seen[1] + 1, stop, False
    if last is None or last[0] != tid:
        raise tt.TimeError("libreplay: replay last-write: the change seen between counts %d "
                           "and %d of green thread %d is not there again" % (frm, to, tid))
    if last[1] >= last[2]:
        return last[2] + 1, None, True
    return last[2], None, False


def writing_instruction(regions, tid, count, stop, base, switched=False):
    """Step thread tid from its count count-1 (its counting point; the replay goes
    there from base, a checkpoint before it) to count (or to stop; switched: to
    where it switches out): the last instruction after which the bytes differ. A
    Write. (A thread that switches out within a count and back in: only the
    stretch before the switch is stepped where switched.)"""
    tt.restore_checkpoint(base)
    watch_off()
    tt.goto(tid, count - 1)
    val = regions.read()
    found = None
    steps = 0
    for _ in range(1000000):
        if stop is not None and tt.position().same_place(stop):
            break
        pc = gdb.newest_frame().pc()
        if preempted_at(pc):
            # the recorded preemption: tid switches out here (a stepi over the
            # runtime's trap byte would take its SIGILL past the runtime)
            if switched:
                break
            raise tt.TimeError("libreplay: replay last-write: green thread %d is preempted "
                               "within count %d, before the write: not followed yet" %
                               (tid, count - 1))
        gdb.execute("stepi", to_string=True)
        if not lr.live():
            raise tt.TimeError("The program ended on the way.")
        steps += 1
        now = regions.read()
        if now != val:
            found = Write(tid, count - 1, steps - 1, pc, val, now, regions.changed(val, now))
            val = now
        if tt.running_tid() != tid:
            if switched:
                break
        elif (lr.count_of(lr.find_green(tid), lr.current_ext()) or 0) >= count:
            break
    if found is None:
        raise tt.TimeError("libreplay: replay last-write: no instruction of green thread %d "
                           "at count %d changed the bytes" % (tid, count - 1))
    return found


def preempted_at(pc):
    """Is the runtime's breakpoint (the next recorded preemption's debug register or
    trap byte, engine/schedule/breakpoint.c) armed at pc? A stepi there takes the
    preemption: the perf event's signal or the trap's SIGILL switches threads."""
    if runtime_bp_mode() not in (1, 2):  # RP_BP_HARDWARE, RP_BP_SOFTWARE
        return False
    trap = lr.glob("rp_bp_trap")
    return lr.u64(trap["pc"]) == pc and not int(trap["under_debugger"])


def last_write(regions):
    """Go to just before the last write that changed any of the regions before now;
    a Write, or None if none did since the replay's first checkpoint (the replay
    stays where it was)."""
    here = tt.position()
    with tt.Quiet():
        found = last_change(regions, here)
        if found is None:
            tt.goto(here.tid, here.count, pc=here.pc)
            return None
        base = found[3]
        try:
            w = writing_instruction(regions, *found)
            tt.restore_checkpoint(base)
            watch_off()
            tt.goto(w.tid, w.count)
            for _ in range(w.steps):
                gdb.execute("stepi", to_string=True)
        finally:
            tt.drop(base)
    tt.resync_watchpoints()
    tt.Store.history.resume_at(tt.position())
    return w


DEBUG_REGISTERS = 4  # x86's, for breakpoints and watchpoints of 1, 2, 4 or 8 bytes


def registers_short(watches):
    """Would gdb's hardware watchpoints need more debug registers than are free?
    The runtime's own hardware breakpoint holds one; a watchpoint takes one per
    aligned 8 bytes it spans (gdb's x86 code can need more: this is the least).
    Past that gdb cannot insert them ("No space left on device")."""
    free = DEBUG_REGISTERS - (1 if runtime_bp_mode() == 1 else 0)  # RP_BP_HARDWARE
    need = 0
    for b in watches:
        try:
            v = gdb.parse_and_eval(watch_expression(b))
            a, n = int(v.address), v.type.sizeof
            need += (a + n - 1) // 8 - a // 8 + 1
        except (gdb.error, TypeError):
            need += 1
    return need > free


def runtime_bp_mode():
    try:
        return int(lr.glob("rp_bp_mode"))
    except (gdb.error, lr.ReplayError):
        return 0


def hardware_watch_dead():
    """Do gdb's hardware watchpoints fail here? Where the runtime's own breakpoint
    had to do without the debug registers (they do not fire, perf refuses them,
    or --breakpoints=software), gdb's cannot be relied on either."""
    return runtime_bp_mode() == 2  # RP_BP_SOFTWARE


def plain_watch(b):
    """Can the runtime follow watchpoint b (a write watchpoint without a condition)?"""
    return b.type in (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT) and not b.condition


def runtime_search(watches):
    """Does reverse-continue ask the runtime for the last write (reverse_to_write)
    rather than replay segments with gdb's own watchpoints? Where gdb's cannot
    serve (no debug registers, or fewer free than the watchpoints need), always:
    reverse_to_write then names what it cannot follow. Else when every watchpoint
    is a plain write watchpoint the runtime can hold (without an ignore count,
    which gdb's path spends), unless `set replay-watch gdb` asks for gdb's path: a
    hot variable's segment is one stop of gdb's per write there (the heisenbug's
    `account`: 245 s, 2.2 s by the runtime)."""
    if hardware_watch_dead() or registers_short(watches):
        return True
    if ReplayWatch.mode != "runtime":
        return any(b.type == gdb.BP_WATCHPOINT for b in watches) and \
            all(plain_watch(b) for b in watches)
    if not all(plain_watch(b) and not b.ignore_count for b in watches):
        return False
    try:
        watched([watch_expression(b) for b in watches], "reverse-continue")
    except tt.TimeError:
        return False  # (not in memory, too large: gdb's own watchpoints)
    return True


class ReplayWatch(gdb.Parameter):
    """Who finds a watchpoint's last write going back, where the debug registers
work: `runtime` (the default: the runtime compares the bytes, docs/gdb.md) or `gdb`
(gdb's hardware watchpoints, stopping at every write of the segments searched)."""

    mode = "runtime"
    set_doc = "Set who finds a watchpoint's last write going back (runtime or gdb)."
    show_doc = "Show who finds a watchpoint's last write going back."

    def __init__(self):
        super().__init__("replay-watch", gdb.COMMAND_BREAKPOINTS, gdb.PARAM_ENUM,
                         ["runtime", "gdb"])
        self.value = "runtime"

    def get_set_string(self):
        ReplayWatch.mode = self.value
        return ""

    def get_show_string(self, svalue):
        return "Watchpoints' last writes going back are found by %s." % (
            "the runtime" if svalue == "runtime" else "gdb's hardware watchpoints")


class WriteStop:
    """reverse_to_write's find: the Write, the stop before it (pos), the moment the
    search started from (here), and the watchpoints whose bytes it changed."""

    def __init__(self, w, pos, here, bps):
        self.w, self.pos, self.here, self.bps = w, pos, here, bps


def watch_expression(b):
    """What watchpoint b watches, as an expression (`watch -l E` names -location E:
    the bytes E named when it was set, note_location)."""
    e = b.expression or ""
    if not e.startswith("-location "):
        return e
    return located.get(b.number) or e[len("-location "):]


def reverse_to_write(watches):
    """With watchpoints and no debug registers: go to just before the last write
    that changed the bytes of any of them (found by the runtime, all in the same
    passes: as many as it holds, not four); a WriteStop, or None (the replay is
    where it was)."""
    for b in watches:
        if not plain_watch(b):
            raise tt.TimeError("libreplay: %s, reverse-continue follows write watchpoints "
                               "without conditions only (watchpoint %d)" % (
                                   "without debug registers" if hardware_watch_dead() else
                                   "with more watchpoints than free debug registers",
                                   b.number))
    tt.need_replay("reverse-continue")
    tt.check_refusal()
    lr.restore()
    regions = watched([watch_expression(b) for b in watches], "reverse-continue")
    here = tt.position()
    if hardware_tail(watches):
        found = exact_write(watches, regions, here)
        if found is not Tail.DEAD:
            return found
    w = last_write(regions)
    if w is None:
        return None
    return WriteStop(w, tt.position(), here, [(watches[i], regions.split(w.old)[i],
                                               regions.split(w.new)[i]) for i in w.which])


class Tail:
    """The tail search's state: whether gdb's hardware watchpoints were seen to miss
    a write (then the comparisons alone answer, for the rest of the session)."""
    DEAD = "dead"
    dead = False
    replays = 0  # tails replayed with gdb's watchpoints (tests read it)


def hardware_tail(watches):
    """Does the tail of reverse_to_write's search go with gdb's hardware watchpoints?
    Where they work (the debug registers fire, enough are free, the watchpoints are
    gdb's hardware ones) and `set replay-watch` leaves it to the runtime."""
    return (ReplayWatch.mode == "runtime" and not Tail.dead and not hardware_watch_dead()
            and all(b.type == gdb.BP_HARDWARE_WATCHPOINT for b in watches)
            and not registers_short(watches))


def exact_write(watches, regions, here):
    """The last write before here that gdb's hardware watchpoints stop at, found
    cheaply: the comparisons (last_change) find the last change they see, within a
    thread's stretch; every write after it that they miss was undone before the next
    comparison. So only the tail, from that stretch's start to here, is replayed with
    clones of the watchpoints (search_segment: gdb counts their stops, each a write
    that changed the value, as `watch` stops, and stops again at the last). A
    WriteStop, None (no write since the first checkpoint: the replay is where it
    was), or Tail.DEAD: the comparisons saw a change in the tail and gdb's
    watchpoints counted none there, so the debug registers do not fire (said once,
    and the comparisons answer from then on)."""
    # (LIBREPLAY_TEST_DEAD_WATCH_TAIL=1: clones that never stop, as where the debug
    # registers do not fire for gdb, for the tests.) The clones are made here, where
    # the watchpoints' expressions mean what they meant to the user.
    dead = os.environ.get("LIBREPLAY_TEST_DEAD_WATCH_TAIL", "0") not in ("", "0")
    with tt.Quiet(), Clones(watches, {b.number: "0" for b in watches} if dead else None) \
            as clones:
        found = last_change(regions, here)
        base = found[3] if found is not None else None
        # no change seen: the tail is all there is, from the first checkpoint before
        # here (none: here is at the start of history, as gdb's search finds too)
        start = base or next((c for c in tt.Store.ckpts if c.time < here.time), None)
        if start is None:
            tt.goto(here.tid, here.count, pc=here.pc)
            return None
        try:
            Tail.replays += 1
            hit = search_segment(start, here, clones, ("replay-watch tail",))
            if hit is None:
                tt.goto(here.tid, here.count, pc=here.pc)
                if found is None:
                    return None
                Tail.dead = True
                gdb.write("libreplay: gdb's hardware watchpoint counted no write after green "
                          "thread %d count %d, where the bytes changed: the debug registers "
                          "do not fire here; the last write is found by comparing values "
                          "(a change undone between two comparisons is missed)\n" %
                          (found[0], found[1] - 1))
                return Tail.DEAD
            new = regions.read()
            reverse_stepi_quiet()
            old = regions.read()
        finally:
            if base is not None:
                tt.drop(base)
    tt.resync_watchpoints()
    tt.Store.history.resume_at(tt.position())
    which = [i for i, b in enumerate(watches) if b.number in hit.numbers]
    return WriteStop(None, tt.position(), here, [(watches[i], regions.split(old)[i],
                                                  regions.split(new)[i]) for i in which])


def show_write(write):
    """Show reverse_to_write's stop as gdb shows a watchpoint's going back: before
    the write, the value after it as the old one; None: the start of history."""
    if write is None:
        beginning()
        return
    for b, old, new in write.bps:
        e = watch_expression(b)
        gdb.write("\n%s %d: %s\n\nOld value = %s\nNew value = %s\n" % (
            watch_kind(b), b.number, b.expression, value_of(e, new), value_of(e, old)))
    tt.Store.history.shown = [b.number for b, _, _ in write.bps]
    tt.Store.history.resume_at(tt.position())
    tt.show_frame()


def value_of(expr, raw):
    """expr's value had its bytes been raw."""
    try:
        v = gdb.parse_and_eval(expr)
        return printed(gdb.Value(raw, v.type))
    except (gdb.error, TypeError):
        return "0x" + raw.hex()


class ReplayLastWrite(gdb.Command):
    """replay last-write EXPR: go back to the last write that changed EXPR (its bytes,
at most 512), stopped before the writing instruction in the writing green thread;
says which thread, count and pc, and the value before and after. No debug register
is used (docs/gdb.md)."""

    def __init__(self):
        super().__init__("replay last-write", gdb.COMMAND_RUNNING, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise tt.TimeError("Usage: replay last-write EXPR")
        tt.need_replay("replay last-write")
        tt.check_refusal()
        lr.restore()
        expr = arg.strip()
        regions = watched([expr])
        restores = tt.Store.restores
        Stats.segments = 0
        try:
            w = last_write(regions)
        finally:
            tt.warn_went_back(restores)
        if w is None:
            gdb.write("replay last-write: %s did not change since the replay's first "
                      "checkpoint\n" % expr)
            return
        gdb.write("replay last-write: green thread %d at count %d, pc 0x%x, changed %s from "
                  "%s to %s\n" % (w.tid, w.count, w.pc, expr, value_of(expr, w.old),
                                   value_of(expr, w.new)))
        tt.show_frame()


# ---- watchpoints going forward without debug registers --------------------------------
# Where gdb's hardware watchpoints never fire (no debug registers) or cannot all be
# inserted (more than the free registers hold), `continue` would run past every write.
# So continue's pre-hook (libreplay.py's libreplay-restore) hands the user's write
# watchpoints to the runtime, disabled in gdb meanwhile: it compares their bytes at
# least every WATCH_EVERY counts of a thread and at every switch, and stops at the
# first comparison that sees a change (watch_stop; stops.py's StopBreakpoint stops
# there). continue's post-hook then finds the write as last_write does, but the
# first one: from where the writing thread's stretch began (the continue's start, or
# its counting point), a comparison at each counting point to the count, then stepi
# to the instruction; the stop is after it, as gdb's watchpoint's is. A stop of
# gdb's (a breakpoint) whose bytes changed since the last comparison: the write came
# before it, in the running thread's own stretch.

class Forward:
    conditions = {}  # the user's breakpoints: their own conditions, while it is
    watches = []   # the user's watchpoints the runtime follows in the continue under way
    regions = None  # their Regions (None: no continue under way with them)
    start = None   # where the continue went on from
    landed = 0     # stops at a write found so (tests read it)


def forward_watches():
    """The user's watchpoints the runtime is to follow going forward (the plain ones;
    one line for each other, which gdb alone cannot follow here either)."""
    if not tt.replaying() or tt.Store.busy:
        return []
    watches = [b for b in stopping_breakpoints() if b.type in WATCH_CLASSES]
    if not watches or not (hardware_watch_dead() or registers_short(watches)):
        return []
    for b in watches:
        if not plain_watch(b):
            gdb.write("libreplay: %s, continue follows write watchpoints without conditions "
                      "only (not watchpoint %d)\n" % (
                          "without debug registers" if hardware_watch_dead() else
                          "with more watchpoints than free debug registers", b.number))
    return [b for b in watches if plain_watch(b)]


def forward_watch_arm():
    """continue's pre-hook: the runtime follows the watchpoints, gdb's are off."""
    forward_watch_release()
    watches = forward_watches()
    if not watches:
        return
    try:
        regions = watched([watch_expression(b) for b in watches], "continue")
        here = tt.position()
        watch_on(regions, WATCH_EVERY, here.tid, here.count)
    except (tt.TimeError, gdb.error) as e:
        watch_off()
        gdb.write("libreplay: %s: continue does not follow the watchpoints\n" % e)
        return
    lr.set_debug("watch_stop", 1)
    lr.ensure_stop_bp()
    Forward.watches, Forward.regions, Forward.start = watches, regions, here
    for b in watches:
        b.enabled = False
    # A breakpoint of the user's reached after a write that no comparison has seen
    # yet: gdb's watchpoint would have stopped first. Its condition says no then;
    # the next comparison stops, the write is found, and a continue from it meets
    # the breakpoint again.
    Forward.conditions = {}
    for b in tt.user_breakpoints():
        if b.enabled and b.type in STOP_TYPES:
            Forward.conditions[b] = b.condition
            b.condition = ("(%s) && $_libreplay_unchanged()" % b.condition if b.condition
                           else "$_libreplay_unchanged()")


def forward_watch_release():
    """The user's watchpoints back in gdb (enabling reads their value now), and the
    conditions of their breakpoints."""
    watches, Forward.watches, Forward.regions = Forward.watches, [], None
    for b in watches:
        if b.is_valid():
            b.enabled = True
    conditions, Forward.conditions = Forward.conditions, {}
    for b, cond in conditions.items():
        if b.is_valid():
            b.condition = cond
    return watches


class Unchanged(gdb.Function):
    """$_libreplay_unchanged(): are the bytes the runtime follows for a continue
    (watchpoints without debug registers) as its last comparison saw them?"""

    def __init__(self):
        super().__init__("_libreplay_unchanged")

    def invoke(self):
        regions = Forward.regions
        if regions is None or not lr.live():
            return 1
        dbg = lr.glob("rp_debug")
        n = sum(k for _, k in regions.spans)
        return int(regions.read() == bytes(int(dbg["watch_val"][i]) for i in range(n)))


def watch_seen():
    """Did the runtime stop at a change of the bytes it follows (watch_stop)?"""
    dbg = lr.glob("rp_debug")
    return bool(int(dbg["watch_stop"])) and lr.u64(dbg["watch_changes"]) > 0


def forward_watch_land():
    """continue's post-hook: if the bytes changed, go to just after the first write
    and show it as gdb shows a watchpoint's stop."""
    regions, start = Forward.regions, Forward.start
    if regions is None:
        return
    try:
        if not lr.live() or not tt.replaying():
            return
        seen = watch_seen()
        last, tail, cmp = watch_state(regions)
        watch_off()
        if not seen and not tail:
            return
        here = tt.position()
        if seen:
            tid, frm, to, stop = last[0], last[1], last[2], None
        else:  # a stop of gdb's, after a write since the last comparison
            tid, frm, to, stop = here.tid, cmp[1], here.count, here
        try:
            w = first_write(regions, tid, frm, to, stop, start)
        except tt.TimeError as e:
            with tt.Quiet():
                tt.goto(here.tid, here.count, pc=here.pc)
            gdb.write("libreplay: %s\n" % e)
            return
    finally:
        watches = forward_watch_release()
    values = regions.split(w.old), regions.split(w.new)
    for i in w.which:
        b = watches[i]
        e = watch_expression(b)
        gdb.write("\n%s %d: %s\n\nOld value = %s\nNew value = %s\n" % (
            watch_kind(b), b.number, b.expression, value_of(e, values[0][i]),
            value_of(e, values[1][i])))
    tt.Store.history.shown = [watches[i].number for i in w.which]
    tt.Store.history.resume_at(tt.position())
    Forward.landed += 1
    bp = breakpoint_here()
    if bp is not None:
        # gdb's watchpoint, stopping where a breakpoint is, reports it too (and does
        # not stop there again going on)
        gdb.write("\n%s %d, " % ("Temporary breakpoint" if bp.temporary else "Breakpoint",
                                 bp.number))
    tt.show_frame()
    if bp is not None and bp.temporary:
        bp.delete()


def breakpoint_here():
    """The user's breakpoint that gdb would report at this stop (its pc, this green
    thread, its condition true), its ignore count spent as gdb does; or None."""
    pc = gdb.newest_frame().pc()
    for b in tt.user_breakpoints():
        if not b.enabled or b.type not in STOP_TYPES or \
                not any(loc.address == pc for loc in b.locations if loc.enabled):
            continue
        if b.thread and b.thread != gdb.selected_thread().num:
            continue
        if b.condition:
            try:
                if not bool(gdb.parse_and_eval(b.condition)):
                    continue
            except gdb.error:
                pass  # gdb stops where a condition cannot be evaluated
        if b.ignore_count > 0:
            b.ignore_count -= 1
            continue
        return b
    return None


def first_write(regions, tid, frm, to, stop, start):
    """The first write of green thread tid that changed the bytes, between its count
    frm (or the continue's start, if later) and its count to (or stop): the replay
    goes there and stops just after it. A Write."""
    with tt.Quiet():
        if start.tid == tid and start.count >= frm:
            tt.goto(start.tid, start.count, pc=start.pc)
            c0 = start.count
        else:
            c0 = max(frm, 1)
            tt.goto(tid, c0)
        # the count: a comparison at each counting point of tid's from here
        watch_on(regions, 1, tid, c0)
        lr.set_debug("watch_stop", 1)
        target = (stop.tid, stop.count) if stop is not None else (tid, to)
        try:
            if target[1] > c0:
                tt.Store.raw_stop = True
                try:
                    gdb.execute("replay stop-at %d %d" % target, to_string=True)
                    mine = lr.StopAt.number
                    if not tt.cont():
                        raise tt.TimeError("The program ended on the way.")
                finally:
                    tt.Store.raw_stop = False
                if watch_seen():
                    tt.forget_stop(mine)
            changed = watch_seen()
            last, _, _ = watch_state(regions)
        finally:
            watch_off()
        if changed:
            if last[0] != tid:
                raise tt.TimeError("replay: the write seen in green thread %d is in green "
                                   "thread %d: not followed" % (tid, last[0]))
            count = last[2] if last[1] < last[2] else last[2] + 1
            switched = last[1] >= last[2]
        else:
            count, switched = target[1] + 1, False
        if count - 1 == c0 and start.tid == tid and start.count == c0:
            tt.goto(start.tid, start.count, pc=start.pc)  # (back: the pass went on)
        else:
            tt.goto(tid, count - 1)
        return step_to_first_write(regions, tid, count, stop, switched)


def step_to_first_write(regions, tid, count, stop, switched):
    """From where the replay is (thread tid, before its count `count`), stepi until
    an instruction changes the bytes; stop after it. A Write."""
    val = regions.read()
    steps = 0
    c = lr.count_of(lr.find_green(tid), lr.current_ext())
    for _ in range(1000000):
        if stop is not None and tt.position().same_place(stop):
            break
        pc = gdb.newest_frame().pc()
        if preempted_at(pc):
            break  # switched out: the write came before (or is not followed)
        gdb.execute("stepi", to_string=True)
        if not lr.live():
            raise tt.TimeError("The program ended on the way.")
        steps += 1
        now = regions.read()
        if now != val:
            return Write(tid, c, steps - 1, pc, val, now, regions.changed(val, now))
        if tt.running_tid() != tid:
            break
        if (lr.count_of(lr.find_green(tid), lr.current_ext()) or 0) >= count:
            break
    raise tt.TimeError("replay: the watched bytes changed in green thread %d before its "
                       "count %d, after a switch within a count: the write is not followed "
                       "yet (the stop is where the change was seen)" % (tid, count))


class WatchLanded(gdb.Command):
    """Used by hookpost-continue: a change of the watched bytes the runtime followed
(no debug registers): go to the write, show the stop as gdb's watchpoint."""

    def __init__(self):
        super().__init__("libreplay-watch-landed", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        forward_watch_land()
