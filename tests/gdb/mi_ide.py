#!/usr/bin/env python3
# mi_ide.py GDB-COMMAND... < COMMANDS: drive gdb's MI the way an IDE does (tests/gdb/ends.sh):
# each line of stdin is an MI command, sent with a token once the previous one is
# answered; a ^running answer waits for its *stopped. Prints, per command, the token,
# the command, its result record and (if it ran) the *stopped record.
import subprocess
import sys

gdb = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, bufsize=1)


def line():
    s = gdb.stdout.readline()
    if not s:
        print("EOF")
        sys.exit(1)
    return s.rstrip("\n")


for token, cmd in enumerate((c.strip() for c in sys.stdin if c.strip()), start=1):
    gdb.stdin.write("%d%s\n" % (token, cmd))
    gdb.stdin.flush()
    while True:
        s = line()
        if s.startswith("%d^" % token):
            break
    print("@@ %d %s" % (token, cmd))
    print(s)
    if s.startswith("%d^running" % token):
        while True:
            t = line()
            if t.startswith("*stopped"):
                print(t)
                break
gdb.stdin.close()
gdb.wait()
