# SPDX-License-Identifier: Apache-2.0
"""Static facts about the CUDA kernels of one compilation, per kernel: registers, spill bytes and stack (ptxas's
report, `nvcc -Xptxas -v`), and the float64 instructions in the kernel's own PTX body (`--keep`'s .ptx; a function
called out of line, `.func`, is not part of the body). Checks them against the bounds of issue 51's hot loops.

Usage: python3 scripts/cuda_kernel_resources.py PTXAS_REPORT PTX [--table] [--check]
  --table  prints one row per kernel (markdown), demangled to its element operation
  --check  exits 1 unless every kernel has no spills and no stack, and the float32 and bfloat16 elementwise kernels
           (GeluKernel with a ForwardF32Op/BackwardF32Op/Bf16 operation) have no float64 instruction in their body
"""
import re
import subprocess
import sys


def ptxas_report(path):
    """{mangled kernel: {"registers", "spill_stores", "spill_loads", "stack"}} from ptxas -v's lines."""
    kernels, current = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                current = m.group(1)
                kernels[current] = {}
                continue
            if current is None:
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m:
                kernels[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                                        spill_loads=int(m.group(3)))
            m = re.search(r"Used (\d+) registers", line)
            if m:
                kernels[current]["registers"] = int(m.group(1))
                current = None
    return kernels


def ptx_bodies(path):
    """{mangled name: PTX text of its body} for every .entry in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    bodies = {}
    for m in re.finditer(r"\.entry\s+(\S+?)\s*\(", text):
        start = text.index("{", m.end())
        depth, i = 0, start
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        bodies[m.group(1)] = text[start:i + 1]
    return bodies


F64 = re.compile(r"^\s*(?:@!?%p\d+\s+)?[a-z]+(?:\.[a-z0-9]+)*\.f64\b", re.M)


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def short(demangled):
    """GeluKernel<Direct<BackwardHalfOp<F16, 2>>> -> "BackwardHalfOp<F16, sigmoid>"-like short text."""
    s = re.sub(r"gelu::(cuda::|common::)?(\(anonymous namespace\)::)?", "", demangled)
    s = re.sub(r"\(gelu_approximate\)0", "none", s)
    s = re.sub(r"\(gelu_approximate\)1", "tanh", s)
    s = re.sub(r"\(gelu_approximate\)2", "sigmoid", s)
    s = re.sub(r"void |\(Params<.*$", "", s)
    return s


def is_hot(demangled):
    """The elementwise kernels whose hot loop must hold no float64 instruction: float32 and bfloat16."""
    return "GeluKernel" in demangled and ("F32Op" in demangled or "Bf16" in demangled)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    report, bodies = ptxas_report(argv[1]), ptx_bodies(argv[2])
    names = sorted(report)
    pretty = dict(zip(names, demangle(names)))
    failures = []
    rows = []
    for name in names:
        r = report[name]
        f64 = len(F64.findall(bodies.get(name, "")))
        rows.append((short(pretty[name]), r.get("registers"), r.get("spill_stores", 0) + r.get("spill_loads", 0),
                     r.get("stack", 0), f64))
        if r.get("spill_stores", 0) or r.get("spill_loads", 0) or r.get("stack", 0):
            failures.append(f"{short(pretty[name])}: {r.get('spill_stores')} bytes spill stores, "
                            f"{r.get('spill_loads')} spill loads, {r.get('stack')} bytes stack")
        if is_hot(pretty[name]) and f64:
            failures.append(f"{short(pretty[name])}: {f64} float64 instructions in the kernel's body")
        if name not in bodies:
            failures.append(f"{short(pretty[name])}: no .entry in {argv[2]}")
    if "--table" in argv:
        print("| kernel | registers | spill bytes | stack bytes | float64 instructions in the body |")
        print("|---|---:|---:|---:|---:|")
        for row in rows:
            print("| `{}` | {} | {} | {} | {} |".format(*row))
    if "--check" in argv:
        for f in failures:
            print(f"cuda_kernel_resources: {f}", file=sys.stderr)
        if not report:
            print(f"cuda_kernel_resources: no kernels in {argv[1]}", file=sys.stderr)
            return 1
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
