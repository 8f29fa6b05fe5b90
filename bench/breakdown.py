#!/usr/bin/env python3
"""breakdown.py: where the counter's extra instructions go, per kind of inserted code
(bench/breakdown.sh runs it on real programs; docs/sic.md, "Cost").

    LIBREPLAY_A=lib/libreplay.a breakdown.py SIC_EXE SIC_CALLGRIND_OUT [PLAIN_CALLGRIND_OUT]

SIC_EXE is an executable built by sicc; SIC_CALLGRIND_OUT one run of it under
`valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no
--compress-strings=no`. Every executed instruction of the executable is put in one
class by what sicpp inserted there, found in `objdump -d` by its exact sequences
(docs/sic.md): counting points by where they are (before a call, a jump out, a return,
after an entry check: a leaf's or a cross-file entry's, in a cross-file thunk or shim,
or elsewhere: a loop), the caller's half of the token protocol (store and token before
a call or a jump out, reload after a call), entry checks, the return protocol,
landing pads, stubs, the shims of direct calls (f.sic_direct's, f.sic_xcall's), the
thunks' jumps, libreplay's own
functions (those LIBREPLAY_A defines), and the program's code. With the plain build's
run, the program's code is compared with plain gcc's: what losing r15 costs (gcc
-ffixed-r15 allocates registers without it). Prints one line per class: dynamic
instructions, and per thousand of the plain run's; then what a (count, pc, sp)
identity would save (identity_estimate).
"""
import re
import subprocess
import sys

TOKEN = 0x10000000000000000 - 0x61a53f22  # SIC_TOKEN as objdump prints it


def executed(path):
    """{address: Ir} of every object's instructions, and {object: total Ir}."""
    per_addr, per_obj = {}, {}
    obj, skip = None, False
    files = {}
    with open(path) as f:
        for line in f:
            if skip:  # the line after calls= is the call's inclusive cost
                skip = False
                continue
            if line.startswith('ob='):
                obj = line[3:].strip()
                m = re.match(r'\((\d+)\)(?: (.*))?', obj)
                if m:
                    if m.group(2):
                        files[m.group(1)] = m.group(2)
                    obj = files.get(m.group(1), obj)
                continue
            if line.startswith('calls='):
                skip = True
                continue
            if line.startswith('0x'):
                parts = line.split()
                addr, ir = int(parts[0], 16), int(parts[1]) if len(parts) > 1 else 0
                per_obj[obj] = per_obj.get(obj, 0) + ir
                if obj and obj.endswith(EXE_NAME):
                    per_addr[addr] = per_addr.get(addr, 0) + ir
    return per_addr, per_obj


def disassemble(exe):
    """[(address, symbol, mnemonic, operands, comment)] of the executable's code; the
    comment is objdump's `# addr <sym>` of a rip-relative operand, or a branch's target."""
    out = subprocess.run(['objdump', '-d', '-w', '--no-show-raw-insn', exe],
                         capture_output=True, text=True, check=True).stdout
    insns, sym = [], None
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
        if m:
            sym = m.group(2)
            continue
        m = re.match(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$', line)
        if not m or sym is None:
            continue
        mn, ops = m.group(2), m.group(3)
        if mn in ('notrack', 'bnd', 'rep', 'repz', 'repnz', 'lock', 'data16', 'cs', 'ds'):
            more = ops.split(None, 1)
            if more:
                mn, ops = more[0], more[1] if len(more) > 1 else ''
        comment = ''
        if '#' in ops:
            ops, comment = ops.split('#', 1)
        elif '<' in ops:
            comment = ops[ops.index('<'):]
        insns.append((int(m.group(1), 16), sym, mn, ops.strip(), comment.strip()))
    return insns


def is_home_store(i):
    return i[2] == 'mov' and i[3].startswith('%r15,') and '<__sic_home>' in i[4]


def classify(insns, runtime):
    """{address: class} for every instruction."""
    cls = {}
    n = len(insns)
    tok = '$0x%x,%%r15' % TOKEN

    def after_protocol(k):
        """What the store (+token) at k is for: the transfer after it."""
        j = k + 1
        if j < n and insns[j][2] == 'mov' and insns[j][3] == tok:
            j += 1
        mn = insns[j][2] if j < n else ''
        if mn.startswith('ret'):
            return 'return'
        if mn.startswith('call'):
            return 'call'
        return 'jump out'

    def function_of(name):
        """The function a symbol or a branch target names (f for f.sic_direct, f+0x14)."""
        name = name.strip('<>').split('+')[0]
        return name[:-len('.sic_direct')] if name.endswith('.sic_direct') else name

    def transfer_after_count(k):
        """The kind of counting point whose dec/jz (or safe form) ends before k."""
        if k >= n:
            return 'loop'
        mn, ops, target = insns[k][2], insns[k][3], insns[k][4]
        if is_home_store(insns[k]):
            return after_protocol(k)
        if mn.startswith('ret'):
            return 'return'
        if mn.startswith('call'):
            return 'call'
        if mn.startswith('jmp') and (ops.startswith('*') or
                                     target and function_of(target) != function_of(insns[k][1])):
            return 'jump out'
        return 'loop'

    k = 0
    while k < n:
        a, sym, mn, ops = insns[k][:4]
        base = sym.split('+')[0]
        if '.sic_stub.' in sym or (mn == 'lea' and ops.endswith(',%r11') and k + 1 < n and
                                    '<__sic_foreign_entry>' in insns[k + 1][4]):
            cls[a] = 'stubs (overflow, yield, foreign entry)'
            k += 1
            continue
        if base.endswith('.sic_direct') and is_home_store(insns[k]) and k + 2 < n and \
                insns[k + 1][3] == tok and insns[k + 2][2].startswith('jmp'):
            for j in range(3):
                cls[insns[k + j][0]] = 'direct-call shims (to foreign code)'
            k += 3
            continue
        if base.endswith('.sic_xcall') and mn == 'dec' and ops == '%r15' and k + 1 < n and \
                insns[k + 1][2] in ('jne', 'jnz'):
            # a cross-file entry's thunk (count, jump to the direct entry) or the weak
            # shim of a callee without one (count, store, token, jump): sicpp/xcall.c
            cls[a] = cls[insns[k + 1][0]] = 'count: at a cross-file entry (thunk or shim)'
            j = k + 2
            if j < n and insns[j][2].startswith('call') and '__sic_overflow' in insns[j][4]:
                cls[insns[j][0]] = 'count: at a cross-file entry (thunk or shim)'
                j += 1
            if j < n and insns[j][2].startswith('jmp'):
                cls[insns[j][0]] = 'cross-file thunk: jump to the direct entry'
                j += 1
            elif j + 2 < n and is_home_store(insns[j]):
                for i in range(3):
                    cls[insns[j + i][0]] = 'direct-call shims (to foreign code)'
                j += 3
            k = j
            continue
        if base in runtime:
            cls[a] = 'libreplay runtime'
            k += 1
            continue
        if mn == 'dec' and ops == '%r15' and k + 1 < n and insns[k + 1][2] in ('je', 'jz'):
            what = transfer_after_count(k + 2)
            # -g: a leaf whose check moved counts at its body's start (its direct and
            # cross-file entry, maybe after endbr64), where the check's count was
            first = k == 0 or insns[k - 1][1] != sym or insns[k - 1][2] == 'endbr64' and \
                (k < 2 or insns[k - 2][1] != sym)
            if first and base.endswith(('.sic_direct', '.sic_xcall')):
                what = 'after an entry check (a leaf\'s, a cross-file entry)'
            cls[a] = cls[insns[k + 1][0]] = 'count: %s' % what
            k += 2
            continue
        if mn == 'xchg' and ops in ('%rcx,%r15', '%r15,%rcx') and k + 3 < n and insns[k + 1][2] == 'loop':
            what = transfer_after_count(k + 4)
            for j in (0, 1, 2, 3):
                cls[insns[k + j][0]] = 'count: %s (flag-safe form)' % what
            k += 4
            continue
        if is_home_store(insns[k]):
            what = after_protocol(k)
            label = 'return protocol (store, token)' if what == 'return' else \
                'caller protocol: store, token (%s)' % what
            cls[a] = label
            if k + 1 < n and insns[k + 1][3] == tok:
                cls[insns[k + 1][0]] = label
                k += 1
            k += 1
            continue
        if mn == 'cmp' and ops == tok and k + 2 < n:
            at_entry = insns[k - 1][1] != sym or insns[k - 1][2] == 'endbr64' and \
                (k < 2 or insns[k - 2][1] != sym)
            label = 'entry check' if at_entry else 'landing pad check'
            for j in (0, 1, 2):
                cls[insns[k + j][0]] = label
            k += 3
            # A leaf's entry check counts after its load (its returns do not); so
            # rarely does a loop head's count right at a function's start.
            if at_entry and k + 1 < n and insns[k][2] == 'dec' and insns[k][3] == '%r15' and \
                    insns[k + 1][2] in ('je', 'jz'):
                cls[insns[k][0]] = cls[insns[k + 1][0]] = 'count: after an entry check (a leaf\'s, a cross-file entry)'
                k += 2
            continue
        if mn == 'mov' and ops.endswith(',%r15') and '<__sic_home>' in insns[k][4]:
            cls[a] = 'caller protocol: reload after a call'
            k += 1
            continue
        cls[a] = 'program code'
        k += 1
    return cls


def main():
    global EXE_NAME
    if len(sys.argv) < 3:
        sys.exit('usage: breakdown.py SIC_EXE SIC_CALLGRIND_OUT [PLAIN_CALLGRIND_OUT]')
    exe = sys.argv[1]
    EXE_NAME = exe.rsplit('/', 1)[-1]
    insns = disassemble(exe)
    runtime = set(l.split()[-1] for l in subprocess.run(
        ['sh', '-c', 'nm --defined-only "$0" 2>/dev/null', RUNTIME_LIB],
        capture_output=True, text=True).stdout.splitlines() if l.count(' ') == 2)
    cls = classify(insns, runtime)
    per_addr, per_obj = executed(sys.argv[2])
    # PIE: valgrind loads the executable at a base; find it from the lowest address run
    low = min(per_addr) if per_addr else 0
    base = 0
    for cand in (0, 0x108000, 0x400000, 0x555555554000, 0x4000000):
        if low - cand in cls:
            base = cand
            break
    totals = {}
    for addr, ir in per_addr.items():
        c = cls.get(addr - base, 'unmatched')
        totals[c] = totals.get(c, 0) + ir
    exe_total = sum(per_addr.values())
    other = {o: v for o, v in per_obj.items() if not (o or '').endswith(EXE_NAME)}
    plain = executed_total(sys.argv[3]) if len(sys.argv) > 3 else None
    ref = plain[0] + plain[1] if plain else None
    def row(name, v):
        per = ' %8.1f' % (1000.0 * v / ref) if ref else ''
        print('   %-48s %15s%s' % (name, format(v, ','), per))
    print('   %-48s %15s %8s' % ('class', 'instructions', 'per mille of plain' if ref else ''))
    inserted = 0
    for c in sorted(totals, key=lambda c: -totals[c]):
        if c in ('program code', 'libreplay runtime'):
            continue
        inserted += totals[c]
        row(c, totals[c])
    row('= all inserted code above', inserted)
    row('libreplay runtime (in the executable)', totals.get('libreplay runtime', 0))
    row('program code (sicc build)', totals.get('program code', 0))
    row('shared libraries (libc, ld.so, ...)', sum(other.values()))
    row('total (sicc build)', exe_total + sum(other.values()))
    if plain:
        row('plain gcc: program code', plain[0])
        row('plain gcc: shared libraries', plain[1])
        row('plain gcc: total', ref)
        row('extra instructions (sicc - plain)', exe_total + sum(other.values()) - ref)
        row('of which program code sicc - plain (no r15)', totals.get('program code', 0) - plain[0])
        row('of which shared libraries sicc - plain', sum(other.values()) - plain[1])
    identity_estimate(insns, cls, per_addr, base, row)


def identity_estimate(insns, cls, per_addr, base, row):
    """What a (count, pc, sp) identity would save (issue 31, part 5): one count at every
    function entry and loop head, none at calls, returns or tail jumps (recursion told
    apart by the stack pointer). Each activation of a program function has one entry
    (a call, a tail jump, a foreign caller's) and ends in one `ret` (or a tail jump), so
    the entries are about the program code's executed rets plus its tail jumps: a count
    (dec, jz) each, against today's counts at calls, returns, tail jumps and leaves'
    entry checks. Loop heads stay as they are (a call on every cycle of a loop would
    let its count go: not counted here, so the saving is a little low)."""
    mn = {i[0]: i[2] for i in insns}
    rets = sum(ir for a, ir in per_addr.items()
               if cls.get(a - base) == 'program code' and mn.get(a - base, '').startswith('ret'))
    today = {}
    for a, ir in per_addr.items():
        c = cls.get(a - base, '')
        for what in ('call', 'return', 'jump out', 'after an entry check', 'at a cross-file entry'):
            if c.startswith('count: ' + what):
                today[what] = today.get(what, 0) + ir
    jumps_out = today.get('jump out', 0) // 2
    print('   (count, pc, sp) identity, an estimate (issue 31, part 5):')
    row('  program rets executed (activations)', rets)
    row('  counts today at calls', today.get('call', 0))
    row('  counts today at returns', today.get('return', 0))
    row('  counts today at tail jumps', today.get('jump out', 0))
    row("  counts today after entry checks (leaves', cross-file entries)", today.get('after an entry check', 0))
    row('  counts today in cross-file thunks and shims', today.get('at a cross-file entry', 0))
    now = sum(today.values())
    then = 2 * (rets + jumps_out)
    row('  = counts today at calls, returns, entries', now)
    row('  counts at every entry instead (2 a ret or tail jump)', then)
    row('  saved (negative: costs more)', now - then)


def executed_total(path):
    """(Ir in the executable, Ir elsewhere) of a callgrind run."""
    _, per_obj = executed(path)
    mine = sum(v for o, v in per_obj.items() if (o or '').endswith(EXE_NAME_OF[path]))
    return mine, sum(per_obj.values()) - mine


EXE_NAME = ''
EXE_NAME_OF = {}
RUNTIME_LIB = ''

if __name__ == '__main__':
    import os
    RUNTIME_LIB = os.environ.get('LIBREPLAY_A', '')
    for arg in sys.argv[3:]:
        # the run's own executable is named in its header line "cmd: ..."
        with open(arg) as f:
            for line in f:
                if line.startswith('cmd:'):
                    EXE_NAME_OF[arg] = line.split()[1].rsplit('/', 1)[-1]
                    break
    main()
