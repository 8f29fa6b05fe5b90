#!/usr/bin/env python3
"""callgraph.py: random C programs made of the call-graph shapes csmith does not
produce, for differential testing of sicc against gcc (tests/csmith/callgraph.sh).

    callgraph.py SEED [--small] > prog.c

A program is a set of functions `unsigned long fK(unsigned long x, long d)` that call
each other through function-pointer tables, pointer variables in .data, method
tables, switch statements and computed gotos, mostly as tail calls (gcc -O2 turns
`return (*p)(...)` into `jmp *...`), recursing mutually through pointers; and
comparators that qsort and bsearch call back, forwarding through pointers. Every
call passes d - 1 and returns at once when d <= 0, so each program ends; all
arithmetic is unsigned, so none is undefined. main prints a checksum of many calls
(and every pointer reassignment it made). The same seed gives the same program.
--small keeps the work down, for single-stepping under tests/invariant's tracer.
"""
import random
import sys

# The shapes a function body may take; each returns C statements (a list of lines).
# `pick()` names another function, `ptr()` a pointer variable, `tab()` a table.


class Gen:
    def __init__(self, seed, small):
        self.r = random.Random(seed)
        self.small = small
        self.nfuncs = self.r.randint(6, 14)
        self.nptrs = self.r.randint(2, 5)   # fn_t pK, in .data
        self.ntabs = self.r.randint(1, 3)   # fn_t tK[4], const or not
        self.ncmps = self.r.randint(1, 3)   # comparators and their forwarders
        # static functions (called directly, or only through pointers) or global
        self.static = [self.r.random() < 0.3 for _ in range(self.nfuncs)]
        self.out = []

    def pick(self):
        return "f%d" % self.r.randrange(self.nfuncs)

    def ptr(self):
        return "p%d" % self.r.randrange(self.nptrs)

    def tab(self):
        return "t%d" % self.r.randrange(self.ntabs)

    def mix(self, v="x"):
        """An unsigned expression of v."""
        k = self.r.randrange(1, 1 << 20) | 1
        op = self.r.choice(["%s * %du + %du" % (v, k, self.r.randrange(100)),
                            "(%s ^ (%s >> %d)) + %du" % (v, v, self.r.randrange(1, 13), k),
                            "%s + %du" % (v, k),
                            "(%s << %d) ^ %du" % (v, self.r.randrange(1, 7), k)])
        return "(" + op + ")"

    def body(self, k):
        """Statements of fK after its d <= 0 test."""
        shape = self.r.choice(["table", "ptr", "methods", "switch", "goto", "direct",
                               "two", "loop", "qsort"])
        a, b = self.mix(), self.mix()
        if shape == "table":  # an indexed table of function pointers: not a switch
            return ["return %s[(%s) & 3](%s, d - 1);" % (self.tab(), a, b)]
        if shape == "ptr":    # jmp *pK(%rip): a pointer variable in .data
            return ["return %s(%s, d - 1);" % (self.ptr(), a)]
        if shape == "methods":  # a VFS-like layer: the next layer's method
            return ["const struct layer *l = &layers[(%s) %% NLAYERS];" % a,
                    "return l->next->op(%s, d - 1);" % b]
        if shape == "switch":  # a jump table whose cases tail-call
            cases = ["case %d: return %s(%s, d - 1);" % (i, self.pick(), self.mix())
                     for i in range(self.r.randint(4, 7))]
            return ["switch ((%s) %% %d) {" % (a, len(cases) + 1)] + cases + \
                   ["default: return %s;" % b, "}"]
        if shape == "goto":  # a computed goto beside a tail call through a pointer
            return ["static void *where[] = {&&l0, &&l1, &&l2};",
                    "goto *where[(%s) %% 3];" % a,
                    "l0: return %s(%s, d - 1);" % (self.ptr(), b),
                    "l1: return %s(%s, d - 1) + 1;" % (self.pick(), self.mix()),
                    "l2: return %s[(x >> 3) & 3](%s, d - 1);" % (self.tab(), self.mix())]
        if shape == "direct":  # a direct tail call, or a plain call (returns count)
            return ["return %s(%s, d - 1)%s;" % (self.pick(), a,
                                                  self.r.choice(["", " ^ x", " + 7u"]))]
        if shape == "two":  # two calls, one not a tail call
            return ["unsigned long y = %s(%s, d - 2);" % (self.ptr(), a),
                    "return %s(y ^ %s, d - 1);" % (self.pick(), b)]
        if shape == "loop":  # a loop of calls through a table
            n = self.r.randint(2, 4)
            return ["unsigned long s = x;",
                    "for (int i = 0; i < %d; i++)" % n,
                    "\ts += %s[(s + i) & 3](%s + i, d - 2);" % (self.tab(), self.mix("s")),
                    "return s;"]
        # qsort calling back into our comparators (and bsearch)
        c = self.r.randrange(self.ncmps)
        return ["unsigned long v[6];",
                "for (int i = 0; i < 6; i++)",
                "\tv[i] = %s + i * 7919u;" % a,
                "qsort(v, 6, sizeof v[0], cmp_entry%d);" % c,
                "unsigned long key = v[(x >> 2) % 6];",
                "unsigned long *hit = bsearch(&key, v, 6, sizeof v[0], cmp_entry%d);" % c,
                "return %s(v[0] ^ v[5] ^ (unsigned long)(hit - v), d - 1);" % self.pick()]

    def comparators(self):
        """cmp_realK orders by a key; cmp_fwdK forwards to it through a pointer (a
        tail call from a function qsort entered through the slow path);
        cmp_entryK forwards to cmp_fwdK through another pointer, or has a computed
        goto beside the forwarding jump."""
        o = self.out
        for c in range(self.ncmps):
            o.append("static int cmp_real%d(const void *a, const void *b)" % c)
            o.append("{")
            o.append("\tunsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;")
            key = self.mix("v")  # one key function for both sides: a consistent order
            o.append("\tunsigned long kx = %s, ky = %s;" % (key.replace("v", "x"), key.replace("v", "y")))
            o.append("\tcmp_calls++;")
            o.append("\tif (kx != ky)")
            o.append("\t\treturn kx < ky ? -1 : 1;")
            o.append("\treturn x < y ? -1 : x > y;")
            o.append("}")
            o.append("int (*cmp_ptr%d)(const void *, const void *) = cmp_real%d;" % (c, c))
            o.append("__attribute__((noinline)) int cmp_fwd%d(const void *a, const void *b)" % c)
            o.append("{")
            o.append("\treturn cmp_ptr%d(a, b);" % c)
            o.append("}")
            o.append("int (*cmp_fwd_ptr%d)(const void *, const void *) = cmp_fwd%d;" % (c, c))
            o.append("__attribute__((noinline)) static int cmp_entry%d(const void *a, const void *b)" % c)
            o.append("{")
            if self.r.random() < 0.5:
                o.append("\tstatic void *volatile next;")
                o.append("\tnext = cmp_mode ? &&same : &&fwd;")
                o.append("\tgoto *next;")
                o.append("fwd:")
                o.append("\treturn cmp_fwd_ptr%d(a, b);" % c)
                o.append("same:")
                o.append("\treturn 0;")
            else:
                o.append("\treturn cmp_fwd_ptr%d(a, b);" % c)
            o.append("}")
            o.append("")

    def program(self):
        o = self.out
        o.append("/* Generated by tests/csmith/callgraph.py: call-graph shapes. */")
        o.append("#include <stdio.h>")
        o.append("#include <stdlib.h>")
        o.append("")
        o.append("typedef unsigned long (*fn_t)(unsigned long, long);")
        o.append("static unsigned long cmp_calls;")
        o.append("static int cmp_mode; /* 0: the comparators forward */")
        for k in range(self.nfuncs):
            o.append("%sunsigned long f%d(unsigned long x, long d);" % ("static " if self.static[k] else "", k))
        o.append("#define NLAYERS 4")
        o.append("struct layer {")
        o.append("\tfn_t op;")
        o.append("\tconst struct layer *next;")
        o.append("};")
        layers = [(self.pick(), self.r.randrange(4)) for _ in range(4)]
        o.append("static const struct layer layers[NLAYERS] = {")
        for fn, nxt in layers:
            o.append("\t{%s, &layers[%d]}," % (fn, nxt))
        o.append("};")
        for p in range(self.nptrs):
            o.append("fn_t p%d = f%d;" % (p, self.r.randrange(self.nfuncs)))
        for t in range(self.ntabs):
            const = "const " if self.r.random() < 0.5 else ""
            o.append("static %sfn_t t%d[4] = {%s};" % (const, t, ", ".join(self.pick() for _ in range(4))))
        o.append("")
        self.comparators()
        for k in range(self.nfuncs):
            static = "static " if self.static[k] else ""
            attr = "__attribute__((noinline)) " if self.r.random() < 0.7 else ""
            o.append("%s%sunsigned long f%d(unsigned long x, long d)" % (attr, static, k))
            o.append("{")
            o.append("\tif (d <= 0)")
            o.append("\t\treturn %s;" % self.mix())
            for line in self.body(k):
                o.append("\t" + line)
            o.append("}")
            o.append("")
        # main: many calls from the top, with the pointers reassigned between rounds.
        calls = self.r.randint(20, 60) if not self.small else self.r.randint(3, 6)
        depth = self.r.randint(4, 9) if not self.small else self.r.randint(2, 4)
        o.append("int main(void)")
        o.append("{")
        o.append("\tunsigned long h = 1469598103934665603u;")
        o.append("\tfor (int round = 0; round < %d; round++) {" % (4 if not self.small else 2))
        o.append("\t\tfor (unsigned long i = 0; i < %d; i++) {" % calls)
        o.append("\t\t\th = (h ^ %s(i * 2654435761u + round, %d)) * 1099511628211u;" % (self.pick(), depth))
        o.append("\t\t\th ^= %s[i & 3](h, %d);" % (self.tab(), depth - 1))
        o.append("\t\t}")
        o.append("\t\tunsigned long v[24];")  # every comparator, called back by qsort
        o.append("\t\tfor (int i = 0; i < 24; i++)")
        o.append("\t\t\tv[i] = h * (i + 1) + (h >> i);")
        for c in range(self.ncmps):
            o.append("\t\tqsort(v, 24, sizeof v[0], cmp_entry%d);" % c)
            o.append("\t\th = (h ^ v[%d] ^ v[23]) * 1099511628211u;" % self.r.randrange(23))
        o.append("\t\tswitch (round & 3) {")
        for r in range(4):
            o.append("\t\tcase %d: %s = %s; break;" % (r, self.ptr(), self.pick()))
        o.append("\t\t}")
        o.append("\t}")
        o.append('\tprintf("checksum %lx comparisons %lu\\n", h, cmp_calls);')
        o.append("\treturn 0;")
        o.append("}")
        return "\n".join(o) + "\n"


def main():
    args = sys.argv[1:]
    small = "--small" in args
    args = [a for a in args if a != "--small"]
    if len(args) != 1 or not args[0].isdigit():
        sys.stderr.write("usage: callgraph.py SEED [--small] > prog.c\n")
        return 2
    sys.stdout.write(Gen(int(args[0]), small).program())
    return 0


if __name__ == "__main__":
    sys.exit(main())
