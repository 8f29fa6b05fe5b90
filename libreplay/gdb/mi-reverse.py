#!/usr/bin/env python3
# mi-reverse.py GDB [ARGS...]: gdb's machine interface (MI) for an IDE, with reverse
# execution, as rr gives it (docs/gdb.md, "IDEs"). replay-gdb runs gdb through this
# when its arguments ask for MI (--interpreter=mi, mi2, mi3).
#
# Why a filter: an IDE turns its reverse buttons on when -list-target-features says
# "reverse", and sends -exec-continue --reverse (and -exec-next, -exec-step,
# -exec-finish, -exec-step-instruction with --reverse). gdb answers the first from its
# target (the native one says no) and refuses -exec-continue --reverse for the same
# reason; gdb 13's Python can define neither an MI command nor a target. So between
# the IDE and gdb, this: adds "reverse" to -list-target-features' answer, and sends
# each --reverse command as the extension's CLI command (reverse-continue ...),
# answering the IDE as gdb answers a resume: ^running, *running, then one *stopped
# with the frame where it landed. What gdb says meanwhile about its own resumes,
# stops, breakpoints and memory (the extension replays from a checkpoint) is the
# extension's business: the IDE sees none of it; console output passes.
import os
import re
import signal
import subprocess
import sys
import threading

REVERSE = {"-exec-continue": "reverse-continue", "-exec-next": "reverse-next",
           "-exec-step": "reverse-step", "-exec-finish": "reverse-finish",
           "-exec-step-instruction": "reverse-stepi"}
COMMAND = re.compile(r"^(\d*)(-[\w-]+)(.*)$")
RESULT = re.compile(r"^(\d*)\^(done|error|running|connected|exit)(.*)$")
PRIVATE = "7070700"  # the token of our own -thread-info


class State:
    lock = threading.Lock()
    features = []     # tokens of -list-target-features asked, in order
    inflight = []     # [token, reason, failed]: --reverse commands gdb runs, in order
    skip_prompt = False


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def rewrite_command(line):
    """The IDE's command line as gdb is to get it (one line or more)."""
    m = COMMAND.match(line.strip())
    if not m:
        return [line]
    token, cmd, rest = m.groups()
    args = rest.split()
    with State.lock:
        if cmd == "-list-target-features":
            State.features.append(token)
        elif cmd in REVERSE and "--reverse" in args:
            # --thread and --frame, which IDEs add: the extension reverses the running
            # green thread, in the one kernel thread.
            left, i = [], 0
            while i < len(args):
                if args[i] in ("--thread", "--frame"):
                    i += 2
                    continue
                if args[i] != "--reverse":
                    left.append(args[i])
                i += 1
            if not left:
                State.inflight.append([token, 'reason="%s"' % (
                    "function-finished" if cmd == "-exec-finish" else "end-stepping-range"),
                    False, ""])
                # gdb reads the next command once this one is done: -thread-info's
                # answer says where it landed.
                return ['%s-interpreter-exec console "%s"' % (token, REVERSE[cmd]),
                        "%s-thread-info" % PRIVATE]
    return [line]


WATCH_STOP = re.compile(r"\n(Hardware watchpoint|Watchpoint) (\d+): (.*)\n\nOld value = (.*)\n"
                        r"New value = (.*)\n")


def reason_from(text):
    """What the console text the extension printed for this command (unquoted, all
    of it so far) says about the stop: the *stopped record's fields before frame=,
    as gdb gives them (a watchpoint's number, expression and values too)."""
    if "No more reverse-execution history" in text:
        return 'reason="no-history"'
    m = re.findall(r'(?:^|\n)\n(?:Breakpoint|Temporary breakpoint) (\d+), ', text)
    if m:
        return 'reason="breakpoint-hit",disp="keep",bkptno="%s"' % m[-1]
    m = WATCH_STOP.search(text)
    if m:
        return 'reason="watchpoint-trigger",wpt={number="%s",exp="%s"},value={old="%s",new="%s"}' % (
            m.group(2), quoted(m.group(3)), quoted(m.group(4)), quoted(m.group(5)))
    return None


def unquoted(record):
    """The text of a console record, ~"..." (a C string)."""
    body = record[2:-1] if record.endswith('"') else record[2:]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            i += 1
            c = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(body[i], body[i])
        out.append(c)
        i += 1
    return "".join(out)


def quoted(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def braced(s, at):
    """The {...} that starts at s[at], with what it nests."""
    depth, i, quoted = 0, at, False
    while i < len(s):
        c = s[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return s[at:i + 1]
        i += 1
    return "{}"


def stopped_record(thread_info):
    """The frame and thread where the reverse command landed, from -thread-info."""
    cur = re.search(r'current-thread-id="([^"]*)"', thread_info)
    tid = cur.group(1) if cur else "1"
    frame = "{}"
    at = thread_info.find('{id="%s"' % tid)
    if at >= 0:
        f = thread_info.find("frame=", at)
        if f >= 0:
            frame = braced(thread_info, f + len("frame="))
    return frame, tid


def from_gdb(line):
    """One line gdb wrote: to the IDE as it is, changed, or not at all."""
    with State.lock:
        if State.skip_prompt and line.strip() == "(gdb)":
            State.skip_prompt = False
            return
        m = RESULT.match(line)
        if m and m.group(1) == PRIVATE and State.inflight:
            token, reason, failed, _ = State.inflight.pop(0)
            State.skip_prompt = True
            if not failed:
                frame, tid = stopped_record(line)
                out('*stopped,%s,frame=%s,thread-id="%s",stopped-threads="all"' %
                    (reason, frame, tid))
                out("(gdb) ")
            return
        mine = [x for x in State.inflight if x[0] == m.group(1)] if m else []
        if mine:
            if m.group(2) == "error":
                mine[0][2] = True
                out(line)
            else:  # ^done (or ^running, as gdb says once the extension resumes)
                out("%s^running" % m.group(1))
                out('*running,thread-id="all"')
            return
        if m and m.group(2) == "done" and m.group(3).startswith(",features=[") and State.features:
            token = State.features[0]
            if m.group(1) == token:
                State.features.pop(0)
                if '"reverse"' not in m.group(3):
                    feats = m.group(3)[len(",features=["):-1]
                    line = '%s^done,features=[%s%s"reverse"]' % (token, feats, "," if feats else "")
        if State.inflight and line[:1] in ("*", "="):
            return  # the extension's own resumes, stops, breakpoints, memory
        if State.inflight and line[:1] == "~":
            State.inflight[0][3] += unquoted(line)
            why = reason_from(State.inflight[0][3])
            if why:
                State.inflight[0][1] = why
    out(line)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: mi-reverse.py GDB [ARGS...]\n")
        return 2
    gdb = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           bufsize=0)
    write_lock = threading.Lock()

    def to_gdb(text):
        with write_lock:
            try:
                gdb.stdin.write((text + "\n").encode())
                gdb.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def from_ide():
        for raw in sys.stdin:
            for line in rewrite_command(raw.rstrip("\n")):
                to_gdb(line)
        with write_lock:
            try:
                gdb.stdin.close()
            except OSError:
                pass

    # An IDE pauses the program with SIGINT to the debugger it started: gdb's.
    signal.signal(signal.SIGINT, lambda s, f: gdb.send_signal(signal.SIGINT))
    threading.Thread(target=from_ide, daemon=True).start()
    for raw in gdb.stdout:
        from_gdb(raw.decode(errors="replace").rstrip("\n"))
    return gdb.wait()


if __name__ == "__main__":
    sys.exit(main())
