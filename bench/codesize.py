#!/usr/bin/env python3
"""codesize.py: what each kind of code sicc inserts costs in bytes (bench/codesize.sh).

Reads gas listings (`as -aln=FILE`) of plain gcc output or of sicpp's output and sums
the bytes of every instruction of the .text* sections by kind: gcc's own (jumps and
the rest), alignment padding, and what sicpp inserts (docs/sic.md): counting points,
their stubs, the token protocol at calls, tail jumps and returns, entry checks,
landing pads, foreign-entry and yield stubs. The kinds add up to the sections' size.

    codesize.py LISTING...        one "kind bytes" line per kind, then "n.KIND count"
    codesize.py --eh OBJECT...    .eh_frame bytes: CIEs, FDEs of code, FDEs of stubs
"""
import collections
import re
import subprocess
import sys

TOKEN = "$-0x61a53f22"
BYTES = re.compile(r'^\s*(\d+)\s([0-9a-f]{4,8})\s([0-9A-F]+)\s*\t?(.*)$')
MORE = re.compile(r'^\s*(\d+)\s+([0-9A-F]+)\s*$')
NOBYTES = re.compile(r'^\s*(\d+)\s+(.*)$')
STUBS = {".Lsic_ov_": "stub:counting point", ".Lsic_py_": "stub:yield",
         ".Lsic_fe_": "stub:foreign entry"}


def statements(path):
    """[source text, bytes] for each line of a listing (continuation lines summed)."""
    out, last = [], None
    with open(path, errors="replace") as f:
        for raw in f:
            raw = raw.rstrip("\n")
            m = BYTES.match(raw)
            if m:
                last = [m.group(4).strip(), len(m.group(3)) // 2]
                out.append(last)
                continue
            m = MORE.match(raw)
            if m and last is not None:
                last[1] += len(m.group(2)) // 2
                continue
            m = NOBYTES.match(raw)
            if m:
                last = None
                out.append([m.group(2).strip(), 0])
    return out


def kind_of(mn, ops):
    """The kind of one instruction of .text, before its context is known."""
    if mn == "decq" and ops == "%r15" or mn == "jz" and ".Lsic_ov_" in ops:
        return "count"
    if mn == "xchgq" and "%r15" in ops or mn == "loop" and ".Lsic_rt_" in ops or \
            mn == "jmp" and ".Lsic_ov_" in ops:
        return "count (flag-preserving)"
    if mn == "jmp" and ".Lsic_py_" in ops:
        return "yield jump"
    if mn == "movq" and (ops.startswith("%r15, __sic_home") or ops.startswith(TOKEN)):
        return "publish"
    if mn == "movq" and ops.startswith("__sic_home"):
        return "reload"
    if mn == "cmpq" and ops.startswith(TOKEN):
        return "check"
    if mn == "jne" and ".Lsic_fe_" in ops:
        return "entry check"
    if mn == "jne" and ".Lsic_lp_" in ops:
        return "landing pad"
    return "gcc:jump" if mn.startswith("j") else "gcc:other"


def classify(path, tot, n):
    items = statements(path)
    sec, stack, stub, prev, publish = ".text", [], None, None, None
    for i, (src, nb) in enumerate(items):
        s = src.split("#")[0].strip() if not src.startswith('"') else src
        if s.endswith(":"):
            for prefix, name in STUBS.items():
                if s.startswith(prefix):
                    stub = name
            continue
        if s.startswith("."):
            w = s.split(None, 1)
            d, a = w[0], w[1] if len(w) > 1 else ""
            if d == ".text":
                sec = ".text"
            elif d in (".data", ".bss"):
                sec = d
            elif d in (".section", ".pushsection"):
                if d == ".pushsection":
                    stack.append(sec)
                sec = a.split(",")[0].strip()
            elif d == ".popsection" and stack:
                sec = stack.pop()
            if nb and sec.startswith(".text"):
                if d in (".p2align", ".align", ".balign"):
                    tot["alignment"] += nb
                elif sec == ".text.sic_stubs":  # a stub's .long: where it resumes
                    tot[stub or "stub:?"] += nb
                else:
                    tot["data in .text"] += nb
            continue
        if not s or not sec.startswith(".text"):
            continue
        if sec == ".text.sic_stubs":
            tot[stub or "stub:?"] += nb
            continue
        w = s.split(None, 1)
        mn, ops = w[0], w[1] if len(w) > 1 else ""
        k = kind_of(mn, ops)
        if k == "publish":  # the count stored, the token: what follows says why
            publish = (publish or 0) + nb
            continue
        if publish is not None:
            if mn.startswith("call"):
                tot["token protocol at calls"] += publish
            elif mn.startswith("ret") or mn == "rep" and ops.startswith("ret"):
                tot["return protocol"] += publish
            else:
                tot["tail jump protocol"] += publish
            publish = None
        if k == "check":  # an entry's or a landing pad's: the jne after says which
            j = i + 1
            while j < len(items) and (items[j][0].endswith(":") or not items[j][0]):
                j += 1
            k = "entry check" if j < len(items) and ".Lsic_fe_" in items[j][0] else "landing pad"
        if k == "reload":
            k = prev if prev in ("entry check", "landing pad") else "token protocol at calls"
        tot[k] += nb
        prev = k
        if k == "count" and mn == "decq":
            n["counting points"] += 1
        if k == "entry check" and mn == "jne":
            n["entry checks"] += 1


def eh_frame(obj, tot):
    """Bytes of each FDE of obj's .eh_frame, by the section its code is in (the
    relocation of its initial location names it)."""
    frames = subprocess.run(["readelf", "--debug-dump=frames", obj], capture_output=True,
                            text=True, check=True).stdout
    fdes = {}
    for line in frames.splitlines():
        m = re.match(r"^([0-9a-f]{8}) ([0-9a-f]+) ([0-9a-f]+) (FDE|CIE)", line)
        if m and m.group(4) == "FDE":
            fdes[int(m.group(1), 16)] = int(m.group(2), 16) + 4
        elif m:
            tot["eh.CIE"] += int(m.group(2), 16) + 4
    relocs = subprocess.run(["readelf", "-rW", obj], capture_output=True, text=True,
                            check=True).stdout
    mine = False
    for line in relocs.splitlines():
        if line.startswith("Relocation section"):
            mine = "'.rela.eh_frame'" in line
            continue
        w = line.split()
        if mine and len(w) >= 5 and re.match(r"^[0-9a-f]{16}$", w[0]):
            fde = int(w[0], 16) - 8  # the initial location follows length and CIE pointer
            if fde in fdes:
                where = "stubs" if "sic_stubs" in w[4] else "code"
                tot["eh.FDEs of " + where] += fdes[fde]
                tot["n.FDEs of " + where] += 1


def main():
    tot, n = collections.Counter(), collections.Counter()
    if sys.argv[1:2] == ["--eh"]:
        for obj in sys.argv[2:]:
            eh_frame(obj, tot)
        for k in sorted(tot):
            print("%s\t%d" % (k, tot[k]))
        return
    for path in sys.argv[1:]:
        classify(path, tot, n)
    for k in sorted(tot):
        print("%s\t%d" % (k, tot[k]))
    for k in sorted(n):
        print("n.%s\t%d" % (k, n[k]))


main()
