# races.py: the race detector's view in gdb (docs/races.md, docs/gdb.md): for a replay
# by the race build (replay-gdb passes --races for one).
#
#   info races               the races reported so far in this replay, first first:
#                            both accesses, where, and the replay goto for each
#   replay races stop [on|off]  stop at each race as it is found, at the racing
#                            instruction, before it runs (off: just report it)
#
# From such a stop, `replay goto T:C` (the earlier access's, as `info races` says) or
# reverse-continue goes back. Loaded by libreplay.py, which hands it its own module
# (`lr`); the names defined here are libreplay.py's too.

import gdb

lr = None  # libreplay.py, set by its load()

RACE_VIEW_MAX = 64  # engine/races/races.h


def race_view():
    """rp_race_view, or None in a program that is not a race build's replay."""
    sym = gdb.lookup_global_symbol("rp_race_view")
    if sym is None:
        return None
    return sym.value()


def races_seen():
    """The races reported so far (the last RACE_VIEW_MAX), first first."""
    v = race_view()
    if v is None:
        return []
    n = int(v["n"])
    out = []
    for k in range(max(1, n - RACE_VIEW_MAX + 1), n + 1):
        out.append(v["race"][(k - 1) % RACE_VIEW_MAX])
    return out


def access_text(a):
    kind = "free" if bool(a["freeing"]) else "write" if bool(a["write"]) else "read"
    tid, count, pc = int(a["tid"]), lr.u64(a["count"]), lr.u64(a["pc"])
    return "%-5s thread %d at count %d: %s   replay goto %d:%d@0x%x" % (
        kind, tid, count, lr.pc_desc(pc), tid, count, pc)


def race_text(r):
    addr = lr.u64(r["addr"])
    sym = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    name = "" if sym.startswith("No symbol") else " (%s)" % sym.split(" in section")[0]
    return "race %d at 0x%x%s\n  %s\n  %s\n" % (int(r["number"]), addr, name,
                                              access_text(r["now"]), access_text(r["then"]))


class InfoRaces(gdb.Command):
    """info races: the data races the replay has reported so far, first first: each
    access's thread, count, function and line, and the replay goto that lands on it."""

    def __init__(self):
        super().__init__("info races", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        lr.need_live()
        if race_view() is None or not bool(lr.glob("rp_races_on")) and not races_seen():
            raise lr.ReplayError("info races: this is not a replay with --races by a race "
                                 "build (sicc --races; docs/races.md)")
        seen = races_seen()
        if not seen:
            gdb.write("No race found so far in this replay.\n")
        for r in seen:
            gdb.write(race_text(r))


class RaceAtAccess(gdb.Breakpoint):
    """Temporary, at the racing instruction for its thread: the stop the user sees."""

    def __init__(self, pc, tid, text):
        super().__init__("*0x%x" % pc, internal=True, temporary=True)
        self.silent = True
        self.tid, self.text = tid, text

    def stop(self):
        if int(lr.glob("rp_cur")["tid"]) != self.tid:
            return False
        gdb.write("libreplay: stopped at a data race, before its access runs:\n" + self.text)
        return True


class RaceReported(gdb.Breakpoint):
    """In rp_race_reported, right after a report: with `replay races stop`, go on to the
    racing instruction and stop there."""
    enabled_stop = False

    def __init__(self):
        super().__init__("rp_race_reported", internal=True)
        self.silent = True

    def stop(self):
        if not RaceReported.enabled_stop:
            return False
        seen = races_seen()
        if not seen:
            return False
        r = seen[-1]
        RaceAtAccess(lr.u64(r["now"]["pc"]), int(r["now"]["tid"]), race_text(r))
        return False


def ensure_race_bp():
    bp = getattr(gdb, "libreplay_race_bp", None)
    if bp is not None and bp.is_valid():
        return
    if gdb.lookup_global_symbol("rp_race_reported") is None:
        raise lr.ReplayError("replay races: this program has no race detector (rebuild "
                             "libreplay)")
    gdb.libreplay_race_bp = RaceReported()


class ReplayRaces(gdb.Command):
    """replay races stop [on|off]: stop at each data race the replay finds, at the
    racing instruction before it runs (on, the default), or only report it (off)."""

    def __init__(self):
        super().__init__("replay races", gdb.COMMAND_BREAKPOINTS, prefix=True)


class ReplayRacesStop(gdb.Command):
    """replay races stop [on|off]: stop at each data race the replay finds, at the
    racing instruction before it runs (on, the default), or only report it (off)."""

    def __init__(self):
        super().__init__("replay races stop", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        arg = arg.strip() or "on"
        if arg not in ("on", "off"):
            raise lr.ReplayError("Usage: replay races stop [on|off]")
        ensure_race_bp()
        RaceReported.enabled_stop = arg == "on"
        gdb.write("libreplay: %s\n" % ("a data race stops the replay at its access"
                                      if arg == "on" else "data races are reported only"))
