#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Finds each function's hot loop in an aarch64 object, runs llvm-mca on it, prints cycles per element.

Used by scripts/arm_mca.sh (which compiles the objects); docs/BENCHMARKS.md ("Arm: llvm-mca model estimates")
holds its table. How a loop is chosen, from `llvm-objdump -d -r` of the object (canonical LLVM syntax):
  * the function's basic blocks and branches make a graph; each simple cycle of it is a loop path (a rotated
    loop, an inner loop and a loop with an out-of-line rare block are all cycles);
  * a call (bl) to a function of --inline-from (SLEEF's libsleef.so.3) is replaced by that function's body, which
    must be straight-line (checked); any other call stays in (llvm-mca cannot follow it) and is printed;
  * elements per iteration: the floats the path stores to memory that is not the stack (q register 4, s register
    1; a base register made from sp or x29 on the path, or by every write of the function, is the stack); for an SVE store, whose predicate decides, the caller states it
    (--elements);
  * the hot loop: the most elements per iteration, then the fewest instructions -- the common path, where every
    rare branch (ours: a vector with lanes outside the core; the double-lane kernel: a lane outside the common
    range) goes the common way; with --longest (a loop storing to a local buffer, as our tail loop), the longest
    loop without a call it cannot follow;
  * its tail path: the longest loop through the hot loop's first block storing as many elements (ours: a vector
    with tail lanes, compacting them; the double-lane kernel: the general path).
llvm-mca-19 runs the path 1000 times; cycles per element = total cycles / 1000 / elements per iteration.
The table of docs/BENCHMARKS.md: `table` (run by scripts/arm_mca.sh).
"""
import argparse
import re
import subprocess
import sys

BRANCH = re.compile(r"^(b|b\.\w+|cbz|cbnz|tbz|tbnz)$")
ADDR = re.compile(r"0x([0-9a-f]+) <[^>]*>")


def disassemble(path, symbol=None):
    """{function: [(address, mnemonic, operands, call_target)]} from llvm-objdump -d -r."""
    cmd = ["llvm-objdump-19", "-d", "-r", "--no-show-raw-insn"]
    if symbol:
        cmd.append("--disassemble-symbols=" + symbol)
    out = subprocess.run(cmd + [path], check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+R_AARCH64_CALL26\s+(\S+)", line)
        if m and cur:
            a, mn, ops, _ = cur[-1]
            cur[-1] = (a, mn, ops, m.group(1))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and not line.lstrip().startswith("0000"):
            ops = m.group(3).split("//")[0].strip()
            cur.append((int(m.group(1), 16), m.group(2), ops, None))
    return funcs


def branch_target(mn, ops):
    if not BRANCH.match(mn):
        return None
    m = ADDR.search(ops)
    return int(m.group(1), 16) if m else None


def blocks_of(insns):
    """Basic blocks: [(first, last)] instruction indices, and the successors of each."""
    index = {a: i for i, (a, _, _, _) in enumerate(insns)}
    leaders = {0}
    for i, (a, mn, ops, _) in enumerate(insns):
        t = branch_target(mn, ops)
        if t is not None or mn in ("ret", "br"):
            if t in index:
                leaders.add(index[t])
            if i + 1 < len(insns):
                leaders.add(i + 1)
    starts = sorted(leaders)
    spans = [(b, (starts[k + 1] if k + 1 < len(starts) else len(insns)) - 1) for k, b in enumerate(starts)]
    block_at = {b: k for k, (b, _) in enumerate(spans)}
    succ = []
    for first, last in spans:
        _, mn, ops, _ = insns[last]
        t = branch_target(mn, ops)
        nxt = []
        if t is not None and t in index:
            nxt.append(block_at[index[t]])
        if mn not in ("b", "ret", "br") and last + 1 < len(insns):
            nxt.append(block_at[last + 1])
        succ.append(nxt)
    return spans, succ


def simple_cycles(succ, limit=20000):
    """Every simple cycle of the block graph (as block lists starting at their lowest block), up to limit."""
    cycles = []
    for s in range(len(succ)):
        stack = [(s, [s])]
        while stack and len(cycles) < limit:
            node, path = stack.pop()
            for n in succ[node]:
                if n == s:
                    cycles.append(path)
                elif n > s and n not in path:
                    stack.append((n, path + [n]))
    if len(cycles) >= limit:
        sys.exit("more than %d loop paths: the function is too branchy to enumerate" % limit)
    return cycles


def path_of(insns, spans, cycle):
    return [insns[i] for k in cycle for i in range(spans[k][0], spans[k][1] + 1)]


def stack_registers(insns):
    """The x registers that every write in the function makes from sp or x29 (stack addresses wherever used)."""
    writes = {}
    for _, mn, ops, _ in insns:
        dest = ops.split(",")[0].strip() if ops else ""
        if not dest.startswith("x") or mn.startswith("st") or mn in ("cmp", "cmn", "tst") or mn.startswith("b"):
            continue
        from_stack = mn in ("add", "sub", "mov") and any(o.strip() in ("sp", "x29") for o in ops.split(",")[1:])
        writes.setdefault(dest, set()).add(from_stack)
    return {r for r, kinds in writes.items() if kinds == {True}}


def stored_elements(path, stack_regs=()):
    """Floats stored to memory that is not the stack: a base register made from sp on the path, or by every write
    of the function (stack_registers), is the stack."""
    n, stack_regs = 0, {"sp", "x29"} | set(stack_regs)
    for _, mn, ops, _ in path:
        regs = ops.split("[")[0]
        base = ops.split("[")[1].split(",")[0].split("]")[0].strip() if "[" in ops else None
        if mn.startswith("st") and base is not None:
            if base in stack_regs:
                continue
            if mn.startswith("st1") and "z" in regs:
                return None  # SVE: the predicate decides how many; the caller states it (--elements)
            elif mn in ("str", "stur", "stp", "stnp"):
                count = 2 if mn in ("stp", "stnp") else 1
                first = regs.strip().split(",")[0].strip()
                n += count * {"q": 4, "s": 1}.get(first[0], 0)
            elif mn.startswith("st1") and ".4s" in regs:
                n += 4 * regs.count("v")
            continue
        dest = ops.split(",")[0].strip() if ops else ""
        if dest.startswith("x") and mn not in ("cmp", "cmn", "tst") and not mn.startswith("b"):
            if mn in ("add", "sub", "mov") and any(o.strip() in stack_regs for o in ops.split(",")[1:]):
                stack_regs.add(dest)
            else:
                stack_regs.discard(dest)
    return n


def loops_of(insns, fixed_elements, bodies):
    """(elements stored, instruction count, path, opaque calls) of every loop of the function."""
    spans, succ = blocks_of(insns)
    stack_regs = stack_registers(insns)
    out = []
    for cycle in simple_cycles(succ):
        path, opaque = inline_calls(path_of(insns, spans, cycle), bodies)
        elements = stored_elements(path, stack_regs)
        if elements is None:
            if not fixed_elements:
                sys.exit("an SVE store: state the elements per iteration (--elements)")
            elements = fixed_elements
        out.append((elements, len(path), path, opaque, set(cycle)))
    return out


def inline_calls(path, bodies):
    out, opaque = [], []
    for insn in path:
        a, mn, ops, call = insn
        if mn == "bl" and call is None:
            call = ADDR.search(ops) and re.search(r"<([^>+]*)", ops).group(1)
        if mn == "bl" and call in bodies:
            out += bodies[call]
        else:
            if mn == "bl":
                opaque.append(call or ops)
            out.append(insn)
    return out, opaque


def mca_text(path):
    lines = [".Lmca:"]
    for _, mn, ops, _ in path:
        lines.append("\t" + mn + "\t" + ADDR.sub(".Lmca", ops))
    return "\n".join(lines) + "\n"


def run_mca(text, cpu):
    r = subprocess.run(["llvm-mca-19", "-mtriple=aarch64-linux-gnu", "-mcpu=" + cpu, "-iterations=1000"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("llvm-mca failed for -mcpu=%s:\n%s\n%s" % (cpu, r.stderr[-3000:], text[:2000]))
    m = re.search(r"Iterations:\s+(\d+)\s+Instructions:\s+\d+\s+Total Cycles:\s+(\d+)", r.stdout)
    return int(m.group(2)) / int(m.group(1))


def sleef_bodies(insns, library):
    """The straight-line bodies of the library functions the loop calls (SLEEF's), without their ret."""
    bodies = {}
    for i in insns:
        if i[1] == "bl" and i[3] and i[3] not in bodies:
            body = disassemble(library, i[3]).get(i[3], [])
            if not body:
                continue
            if body[-1][1] != "ret" or any(branch_target(x[1], x[2]) is not None or x[1] in ("ret", "br", "bl")
                                           for x in body[:-1]):
                sys.exit("%s is not straight-line: cannot inline it" % i[3])
            bodies[i[3]] = body[:-1]
    return bodies


def measure(obj, function, cpus, elements=None, inline_from=None, longest=False, show=False):
    """{cpu: (cycles per element of the hot loop, of its tail path or None, opaque calls)}, and the loop's size."""
    insns = disassemble(obj).get(function)
    if not insns:
        sys.exit("no function %s in %s" % (function, obj))
    bodies = sleef_bodies(insns, inline_from) if inline_from else {}
    every = loops_of(insns, elements, bodies)
    loops = [l for l in every if l[0] > 0]
    if longest:  # a loop whose stores go to a local buffer: the longest loop without a call it cannot follow
        if not elements:
            sys.exit("--longest needs --elements")
        _, length, hot, opaque, blocks = max((l for l in every if not l[3]), key=lambda l: l[1])
        n = elements
    elif not loops:
        sys.exit("no loop storing elements found in %s" % function)
    else:  # the hot loop: the most elements per iteration, then the fewest instructions
        n, length, hot, opaque, blocks = max(loops, key=lambda l: (l[0], -l[1]))
    # The tail path: the longest loop through the hot loop's first block, same elements, no call it cannot follow.
    first = min(blocks)
    tails = [l for l in loops if first in l[4] and l[0] == n and not l[3] and l[1] > length]
    tail = max(tails, key=lambda l: l[1]) if tails and not longest else None
    if show:
        print("# %s: %d elements per iteration\n%s" % (function, n, mca_text(hot)), file=sys.stderr)
    out = {}
    for cpu in cpus:
        out[cpu] = (run_mca(mca_text(hot), cpu) / n, run_mca(mca_text(tail[2]), cpu) / n if tail else None,
                    sorted(set(opaque)))
    return out, (n, length, tail[1] if tail else None)


# The modelled cores: llvm-mca -mcpu, SVE vector bits (0: none), the Highway target the library dispatches there
# (Highway prefers SVE2_128 at 128 bits and SVE_256 at 256; without SVE, NEON).
CORES = [("neoverse-n2", 128, "SVE2_128"), ("neoverse-v1", 256, "SVE_256"), ("neoverse-v2", 128, "SVE2_128"),
         ("apple-a14", 0, "NEON")]
FUNCTIONS = [("none", 0, False), ("tanh", 1, False), ("none", 0, True), ("tanh", 1, True)]
SLEEF_LIB = "/usr/lib/aarch64-linux-gnu/libsleef.so.3"


def symbol(obj, prefix):
    out = subprocess.run(["llvm-objdump-19", "-t", obj], check=True, capture_output=True, text=True).stdout
    names = sorted(set(re.findall(r"\s(" + re.escape(prefix) + r"\S*)$", out, re.M)))
    if not names:
        sys.exit("no symbol %s in %s" % (prefix, obj))
    return names[0]


def ours(obj, target, form, backward, loop="McaLoop"):
    ns = "N_" + target
    return symbol(obj, "_ZN4gelu%d%s%d%sILi%dELb%dE" % (len(ns), ns, len(loop), loop, form, int(backward)))


def table(directory):
    ours_o, peers_o, sve_o = (directory + "/" + n for n in ("mca_ours.o", "mca_peers.o", "mca_peers_sve.o"))
    cpus = [c for c, _, _ in CORES]
    print("| function | implementation | " + " | ".join(cpus) + " |")
    print("|---|---|" + "---:|" * len(cpus))
    notes = []
    for form_name, form, backward in FUNCTIONS:
        name = ("bwd " if backward else "fwd ") + form_name
        rows = {}  # implementation -> {cpu: cycles}
        neon, _ = measure(ours_o, ours(ours_o, "NEON", form, backward), cpus)
        rows["ours, NEON (float core)"] = {c: neon[c][0] for c in cpus}
        rows["ours, NEON: a vector with tail lanes"] = {c: neon[c][1] for c in cpus}
        tails = symbol(ours_o, "_ZN4gelu6N_NEON17GeluF32BlockTailsILi%dELb%dE" % (form, int(backward)))
        tail_loop, _ = measure(ours_o, tails, cpus, elements=4, longest=True)
        rows["ours, NEON: each tail lane, in the tail loop"] = {c: tail_loop[c][0] for c in cpus}
        # SVE stores bits/32 float lanes per vector (the float core), bits/64 (the double-lane loop).
        sve, sve_tail, sve_tail_loop, sve_double = {}, {}, {}, {}
        for cpu, bits, target in CORES:
            if bits:
                r, _ = measure(ours_o, ours(ours_o, target, form, backward), [cpu], elements=bits // 32)
                sve[cpu], sve_tail[cpu] = r[cpu][0], r[cpu][1]
                ns = "N_" + target
                tails = symbol(ours_o, "_ZN4gelu%d%s17GeluF32BlockTailsILi%dELb%dE" % (len(ns), ns, form, int(backward)))
                r, _ = measure(ours_o, tails, [cpu], elements=bits // 32, longest=True)
                sve_tail_loop[cpu] = r[cpu][0]
                r, _ = measure(ours_o, ours(ours_o, target, form, backward, "McaDoubleLaneLoop"), [cpu],
                               elements=bits // 64)
                sve_double[cpu] = r[cpu][0]
        rows["ours, SVE (float core; dispatched where SVE is)"] = sve
        rows["ours, SVE: a vector with tail lanes"] = sve_tail
        rows["ours, SVE: each tail lane, in the tail loop"] = sve_tail_loop
        rows["ours, SVE: the double-lane loop (not dispatched; for comparison)"] = sve_double
        fn = "%s_%s" % ("backward" if backward else "forward", form_name)
        peers = {}
        r, _ = measure(peers_o, "eigen_" + fn, cpus)
        peers["Eigen 3.4 (NEON)"] = {c: r[c][0] for c in cpus}
        r, _ = measure(peers_o, "sleef_" + fn, cpus, inline_from=SLEEF_LIB)
        peers["SLEEF 3.5 u10 (NEON)"] = {c: r[c][0] for c in cpus}
        sleef_sve = {}
        for cpu, bits, _ in CORES:
            if bits:
                r, _ = measure(sve_o, "sleef_sve_" + fn, [cpu], elements=bits // 32, inline_from=SLEEF_LIB)
                sleef_sve[cpu] = r[cpu][0]
        peers["SLEEF 3.5 u10 (SVE)"] = sleef_sve
        if not backward:
            r, _ = measure(peers_o, "naive_" + fn, cpus)
            peers["glibc scalar loop: the loop alone, without erff/tanhf (a lower bound)"] = {c: r[c][0] for c in cpus}
        rows.update(peers)
        for impl, cells in rows.items():
            print("| %s | %s | %s |" % (name, impl, " | ".join("%.2f" % cells[c] if cells.get(c) else "n/a"
                                                             for c in cpus)))
        ratio = []
        for cpu, bits, _ in CORES:
            mine = sve[cpu] if bits else neon[cpu][0]
            best_name, best = min(((k, v[cpu]) for k, v in peers.items() if v.get(cpu) and "lower bound" not in k),
                                  key=lambda kv: kv[1])
            ratio.append("**%.2f**" % (best / mine))
            notes.append((name, cpu, best_name, best, mine))
        print("| %s | fastest peer / ours as dispatched (>= 1: ours faster) | %s |" % (name, " | ".join(ratio)))
    print()
    for name, cpu, best_name, best, mine in notes:
        print("%s on %s: fastest peer %s %.2f, ours %.2f cycles/element" % (name, cpu, best_name, best, mine))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("object")
    p.add_argument("function", help="symbol (mangled) of the function holding the loop")
    p.add_argument("--cpu", action="append", required=True, help="llvm-mca -mcpu")
    p.add_argument("--elements", type=int, help="elements per iteration of an SVE loop (its store's predicate)")
    p.add_argument("--inline-from", help="shared library whose called functions are inlined (SLEEF)")
    p.add_argument("--longest", action="store_true", help="the longest loop (one storing to a local buffer)")
    p.add_argument("--show", action="store_true", help="print the chosen loop's instructions")
    args = p.parse_args()

    result, (n, length, tail_length) = measure(args.object, args.function, args.cpu, args.elements, args.inline_from,
                                              args.longest, args.show)
    for cpu, (cycles, tail_cycles, opaque) in result.items():
        print("%s: %d elements/iteration, %d instructions, %.3f cycles/element%s%s" % (
            cpu, n, length, cycles,
            "; tail path %d instructions, %.3f cycles/element" % (tail_length, tail_cycles) if tail_cycles else "",
            "; calls not modelled: " + ", ".join(opaque) if opaque else ""))


if __name__ == "__main__":
    main()
