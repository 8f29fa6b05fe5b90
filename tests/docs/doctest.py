#!/usr/bin/env python3
"""doctest.py: run every example of docs/*.md and check its output's shape.

An example is a fenced block holding `$ COMMAND` lines, each followed by the output it
shows; `(gdb) COMMAND` lines after a `$ replay-gdb ...` line are that gdb session's
commands (run as `replay-gdb ... -batch -nx -ex CMD ...`); a block of `(gdb)` lines
alone goes on with the doc's last session (it runs again with them added: a replay
is the same every time). Every doc runs in a work
directory of its own, its examples in order (one may use what an earlier one made),
with build/bin first in PATH and `examples`, `tests`, `build` linked from the tree.
HTML comments before a block steer it: `<!-- doctest: setup COMMAND -->` runs a
command first (a fixture the text describes in words), `<!-- doctest: skip WHY -->`
leaves the block out (it is listed as skipped).

The shape: every output line shown must match a line of the real output, in order
(the real output may have more lines). Numbers (decimal, hex, fractions) match any
number, `...` anything, and source files are compared by base name; gdb's mark of the
current thread (a leading `* `) may be on any line. A line
`...` alone is a gap, which the in-order matching allows anyway. The numbers the doc
shows are learned from the matched lines (doc value -> real value, the last match
wins), and a later command that uses one gets the real value: `replay stop-at 4 195406` runs with the
thread and count this run's `info rthreads` printed, `replay goto 2:131920@0x55555555edcc`
with the count and pc this run's report gave.

Prints PASS/FAIL lines and "N passed, M failed", like the other suites;
DOCTEST_VERBOSE=1 prints every command as run and its output too."""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
DOCS = sorted(sys.argv[3:]) or sorted(
    os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
TIMEOUT = 600

# numbers: hex (0x...), decimals and fractions, and words of hex digits with a digit
# and a letter (build-ids, hashes)
NUM = r"(?:0x[0-9a-f]+|[0-9a-f]+(?:\.\d+)?)"
TOKEN = re.compile(r"(\.\.\.|0x[0-9a-f]+|(?<!\w)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{3,}(?!\w)"
                   r"|\d+(?:\.\d+)?)")


class Example:
    def __init__(self, doc, line):
        self.doc, self.line = doc, line
        self.setup, self.skip = [], None
        self.steps = []  # [command, [gdb commands], [expected lines]]


def parse(doc):
    """The examples of one doc, in order."""
    examples, setup, skip = [], [], None
    lines = open(doc).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"\s*<!-- doctest: (setup|skip) ?(.*?) ?-->\s*$", lines[i])
        if m:
            if m.group(1) == "setup":
                setup.append(m.group(2))
            else:
                skip = m.group(2) or "skipped"
            i += 1
            continue
        if not lines[i].startswith("```"):
            if lines[i].strip() and not lines[i].startswith("<!--"):
                setup, skip = [], None  # directives belong to the next block only
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if not any(l.startswith(("$ ", "(gdb) ")) for l in body):
            setup, skip = [], None
            continue
        ex = Example(doc, start)
        ex.setup, ex.skip = setup, skip
        setup, skip = [], None
        if not body[0].startswith("$ "):
            ex.steps.append([None, [], []])  # the doc's last gdb session goes on
        for l in body:
            if l.startswith("$ "):
                ex.steps.append([l[2:], [], []])
            elif l.startswith("(gdb) ") and ex.steps:
                ex.steps[-1][1].append(l[6:])
            elif ex.steps:
                ex.steps[-1][2].append(l)
        examples.append(ex)
    return examples


def pattern(line):
    """A doc's output line as a regex, and how many numbers it captures."""
    # gdb's mark of the current thread (`* 2` in info rthreads) is on whichever thread
    # this run stopped in: any row may have it
    out, n = [r"(?:\*\s+)?"], 0
    line = line.strip()
    if line.startswith("* "):
        line = line[2:]
    for part in TOKEN.split(line):
        if part == "...":
            out.append(".*")
        elif TOKEN.fullmatch(part):
            out.append("(" + NUM + ")")
            n += 1
        elif part:
            out.append(re.sub(r"(\\ )+", r"\\s+", re.escape(part)))
    return re.compile("^" + "".join(out) + "$"), n


class Numbers:
    """Doc value -> this run's value, for the numbers of matched lines: the line
    matched last says (a doc's command uses what the output just above it showed)."""

    def __init__(self):
        self.map = {}

    def learn(self, doc_line, match):
        doc_nums = [t for t in TOKEN.findall(doc_line.strip()) if t != "..."]
        for d, r in zip(doc_nums, match.groups()):
            if d == r:
                self.map.pop(d, None)
            else:
                self.map[d] = r

    def apply(self, cmd):
        # (not a job count: the doc's `--jobs 1` is no number an output showed, and
        # became --jobs 6 where the first failing run was 5, seed 6)
        return re.sub(r"(?<![\w.$])(?<!--jobs )(?<!--jobs=)(0x[0-9a-f]+|\d+)(?![\w.])",
                      lambda m: self.map.get(m.group(1), m.group(1)), cmd)


SOURCE_PATH = re.compile(r"(?<![\w/.])(?:[\w.-]*/)+([\w.-]+\.[chS]\b)")


def short_paths(line):
    """Source files by their base name: the doc shortens paths as it likes."""
    return SOURCE_PATH.sub(r"\1", line)


def normal(text, work):
    for prefix in (work + "/", ROOT + "/"):
        text = text.replace(prefix, "")
    return [short_paths(l.strip()) for l in text.split("\n")]


def check_shape(expected, actual, numbers):
    """None if every expected line matches an actual line, in order; else why not."""
    at = 0
    for e in expected:
        if not e.strip() or e.strip() == "...":
            continue
        e = short_paths(e)
        rx, _ = pattern(e)
        while at < len(actual) and not rx.match(actual[at]):
            at += 1
        if at == len(actual):
            return "no line like %r" % e.strip()
        numbers.learn(e, rx.match(actual[at]))
        at += 1
    return None


def run(cmd, work):
    env = dict(os.environ)
    env.pop("LIBREPLAY_OPTS", None)
    script = "cd %s && { [ -f .env ] && . ./.env; } ; %s\nrc=$?; export -p > .env; exit $rc" % (
        work, cmd)
    try:
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env, timeout=TIMEOUT,
                           errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") if isinstance(e.stdout, str) else ""


# Where gdb cannot call a function in the program (tests/lib/common.sh, gdb_cannot_call:
# run.sh passes what it said), the extension makes no checkpoint: an example whose gdb
# session goes back is skipped, saying so.
NO_CALLS = os.environ.get("GDB_CANNOT_CALL", "")
GOES_BACK = re.compile(r"\s*(reverse-|rc\b|rs\b|rn\b|rsi\b|replay goto\b|checkpoint\b|restart\b)")


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    npass = nfail = nskip = 0
    for doc in DOCS:
        name = os.path.basename(doc)[:-3]
        work = os.path.join(WORK, name)
        os.makedirs(work, exist_ok=True)
        for d in ("examples", "tests", "build"):
            if not os.path.exists(os.path.join(work, d)):
                os.symlink(os.path.join(ROOT, d), os.path.join(work, d))
        with open(os.path.join(work, ".env"), "w") as f:
            f.write("export PATH=%s/build/bin:$PATH\n" % ROOT)
        numbers = Numbers()
        session = None  # the last `$ replay-gdb ...` and the gdb commands it ran
        for ex in parse(doc):
            where = "%s:%d" % (os.path.relpath(doc, ROOT), ex.line)
            if ex.skip:
                print("SKIP %s: %s" % (where, ex.skip))
                nskip += 1
                continue
            for s in ex.setup:
                rc, out = run(s, work)
                if rc != 0:
                    print("FAIL %s: setup `%s` exited %d: %s" % (where, s, rc, out[-300:].replace("\n", " ")))
                    nfail += 1
                    break
            else:
                why = skipped = None
                for cmd, gdb_cmds, expected in ex.steps:
                    if cmd is None:  # a block of (gdb) lines: the session so far, and these
                        if session is None:
                            why = "(gdb) lines before any `$ replay-gdb`"
                            break
                        cmd, gdb_cmds = session[0], session[1] + gdb_cmds
                    if gdb_cmds:
                        session = (cmd, gdb_cmds)
                    if NO_CALLS and any(GOES_BACK.match(g) for g in gdb_cmds):
                        skipped = "goes back in time, and this gdb cannot call functions in a " \
                                  "program on this CPU (%s): no checkpoint can be made" % NO_CALLS
                        break
                    real = numbers.apply(cmd)
                    if gdb_cmds:
                        real += " -batch -nx" + "".join(" -ex " + shell_quote(numbers.apply(g))
                                                        for g in gdb_cmds)
                    rc, out = run(real, work)
                    if os.environ.get("DOCTEST_VERBOSE"):
                        print("$ %s\n%s" % (real, out))
                    if rc == 124:
                        why = "`%s` timed out" % real
                    else:
                        why = check_shape(expected, normal(out, work), numbers)
                    if why:
                        why = "`%s`: %s; got: %s" % (cmd, why, " | ".join(
                            l for l in normal(out, work) if l)[-600:])
                        break
                if skipped:
                    print("SKIP %s: %s" % (where, skipped))
                    nskip += 1
                elif why:
                    print("FAIL %s: %s" % (where, why))
                    nfail += 1
                else:
                    print("PASS %s: %d commands, output shaped as shown" % (where, len(ex.steps)))
                    npass += 1
    print("%d passed, %d failed (%d skipped)" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
