#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/CHECK.md's table "Peers on this machine", made from `gelu check --json` findings, between its markers.

    python scripts/check_peers_table.py [--build build] [--write]

Rows: this library and the C peers (glibc's erff formula, oneDNN's eltwise GELU where the build found it, Eigen's
vectorized erf and tanh) through the checker's adapters in build/tests/check/planted/; PyTorch's F.gelu of this
Python (the project's venv: torch 2.x) and of Debian's /usr/bin/python3 (PyTorch 1.13, float32 only: it has no
float16 GELU on the CPU, and its bfloat16 GELU is oneDNN's AVX-512 code, an error on a CPU without it) through
gelu.check on torch tensors. The peers run their AVX2 code
(ONEDNN_MAX_CPU_ISA=AVX2, ATEN_CPU_CAPABILITY=avx2; Eigen and glibc's erff have one code path), so that every
x86-64 machine with AVX2 makes the same table.

Without --write: prints the table and exits 1 (with a diff) if docs/CHECK.md holds another one, which is what
CTest's check_peers_table runs. With --write: replaces the table in docs/CHECK.md.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import generated_block  # scripts/generated_block.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "CHECK.md")
PINNED = {"ONEDNN_MAX_CPU_ISA": "AVX2"}  # the C peers' oneDNN
TORCH_PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}  # PyTorch's own kernels and its oneDNN
HEADER = ("| implementation | max ULP (own formula), at x | max ULP on \\|x\\| < 4 | max ULP vs exact GELU "
          "| tail cutoff (true) | -inf → | +inf → | -0 → | profiles met (own formula) |\n"
          "|---|---|---|---|---|---|---|---|---|")
# The torch rows: (label, dtype, form). Debian's PyTorch 1.13 has no float16 GELU on the CPU.
TORCH_ROWS = [("float32, none", "float32", "none"), ("float32, tanh", "float32", "tanh"),
              ("bfloat16, none", "bfloat16", "none"), ("bfloat16, tanh", "bfloat16", "tanh"),
              ("float16, none", "float16", "none"), ("float16, tanh", "float16", "tanh")]
DEBIAN_PYTHON = "/usr/bin/python3"


def number(v):
    """A findings number (a float, or "inf"/"nan" as strings) in 3 significant digits."""
    v = float(v)
    return "inf" if math.isinf(v) else "nan" if math.isnan(v) else f"{v:.3g}"


def special(s):
    """A special input's result: nan, inf, -inf, 0, -0; "✗" where it is not the expected value."""
    y = s["y"]
    text = str(y) if isinstance(y, str) else ("-0" if y == 0 and s["y_negative"] else f"{y:g}")
    return text if s["ok"] else text + " ✗"


def row(label, f):
    own, exact = f["own"], f["exact"]
    worst = own["max_error"]
    met = [p for p, v in own["profiles"].items() if v["pass"]]
    return (f"| {label} | {number(worst['error'])} at {worst['x_hex']} | "
            f"{number(own['regions']['|x| < 4']['worst']['error'])} | {number(exact['max_error']['error'])} | "
            f"{f['tail_cutoff']:.4g} ({f['true_tail_cutoff']:.4g}) | {special(f['specials']['-inf'])} | "
            f"{special(f['specials']['+inf'])} | {special(f['specials']['-0'])} | {', '.join(met) or 'none'} |")


def major_minor(version):
    """'2.15.0+cu132' -> '2.15'; '' stays ''."""
    return ".".join(version.split("+")[0].split("-")[0].split(".")[:2])


def debian_version(package):
    """The major.minor of an installed Debian package, or '' (a row then names no version)."""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    return major_minor(r.stdout.strip()) if r.returncode == 0 else ""


def checker(build, args):
    """`gelu check ... --json` as a dict; a failed run is an error with its message."""
    cmd = [os.path.join(build, "tools", "gelu"), "check", "--json", "--no-progress"] + args
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **PINNED})
    if r.returncode != 0:
        sys.exit(f"check_peers_table.py: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def torch_findings(rows):
    """[(torch version, findings)] of F.gelu for each (label, dtype, form) in rows, in this Python."""
    import torch
    import gelu.check
    out = []
    for _, dtype, form in rows:
        fn = (lambda x, form=form: torch.nn.functional.gelu(x, approximate=form))
        out.append(gelu.check.check(fn, approximate=form, dtype=dtype, device="cpu").findings)
    return major_minor(torch.__version__), out


def c_rows(build):
    planted = os.path.join(build, "tests", "check", "planted")
    clean = os.path.join(planted, "planted_clean.so")
    rows = [("this library (gelu_forward_f32, none)", [clean, "gelu_forward_f32_none"]),
            ("this library (tanh)", [clean, "gelu_forward_f32_tanh", "-a", "tanh"]),
            ("this library (bfloat16, none)", [clean, "gelu_forward_bf16_none", "--dtype", "bfloat16"]),
            ("this library (float16, none)", [clean, "gelu_forward_f16_none", "--dtype", "float16"]),
            (f"0.5f*x*(1+erff(x/sqrt2)), {os.confstr('CS_GNU_LIBC_VERSION')}",
             [os.path.join(planted, "check_peers.so"), "naive_gelu_erf"])]
    peers = os.path.join(planted, "check_peers.so")
    if "onednn_gelu_erf" in subprocess.run(["nm", "-D", peers], capture_output=True, text=True).stdout:
        onednn = f"oneDNN {debian_version('libdnnl-dev')}"
        rows += [(f"{onednn} eltwise gelu_erf", [peers, "onednn_gelu_erf"]),
                 (f"{onednn} eltwise gelu_tanh", [peers, "onednn_gelu_tanh", "-a", "tanh"])]
    eigen = os.path.join(planted, "check_peers_eigen.so")
    if os.path.exists(eigen):
        version = debian_version("libeigen3-dev")
        rows += [(f"Eigen {version} arrays, 0.5f*x*(1+erf(x/sqrt2))", [eigen, "eigen_gelu_erf"]),
                 (f"Eigen {version} arrays, tanh form", [eigen, "eigen_gelu_tanh", "-a", "tanh"])]
    out = []
    for label, (lib, symbol, *rest) in rows:
        out.append(row(label, checker(build, ["--lib", lib, "--symbol", symbol] + rest)))
    return out


def table(build):
    lines = c_rows(build)
    version, found = torch_findings(TORCH_ROWS)
    lines += [row(f"PyTorch {version} F.gelu {label}", f) for (label, _, _), f in zip(TORCH_ROWS, found)]
    debian = [r for r in TORCH_ROWS if r[1] == "float32"]
    r = subprocess.run([DEBIAN_PYTHON, os.path.abspath(__file__), "--torch-worker"], capture_output=True, text=True,
                       env={**os.environ, **TORCH_PINNED, "PYTHONPATH": os.path.join(build, "python")})
    if r.returncode != 0:
        sys.exit(f"check_peers_table.py: Debian's PyTorch ({DEBIAN_PYTHON}) failed: {r.stderr.strip()}")
    version, found = json.loads(r.stdout)
    lines += [row(f"PyTorch {version} (Debian) F.gelu {label}", f) for (label, _, _), f in zip(debian, found)]
    return "\n".join([HEADER] + lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory (default: build)")
    p.add_argument("--write", action="store_true", help="replace the table in docs/CHECK.md")
    p.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)  # Debian's Python, called by table
    a = p.parse_args()
    if a.torch_worker:
        print(json.dumps(torch_findings([r for r in TORCH_ROWS if r[1] == "float32"])))
        return 0
    os.environ.update(TORCH_PINNED)  # before torch is imported in this process
    new = table(os.path.abspath(a.build))
    return generated_block.write_or_compare(DOC, os.path.basename(__file__), new, a.write)


if __name__ == "__main__":
    sys.exit(main())
