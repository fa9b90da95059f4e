#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The gelu Python package vs PyTorch's CPU GELU, forward and backward, in one process.

    PYTHONPATH=build/python python bench/python_vs_torch.py [--quick] [--dtype float64]

For each form, size (64 Ki, 1 Mi, 16 Mi elements) and thread count (1 and all), it times three things,
ours beside PyTorch's, interleaved round by round so that a noisy machine slows both alike:
  forward   gelu.forward(x, a, out=y)            vs  torch._C._nn.gelu(x, approximate=a, out=y)
  backward  gelu.backward(g, x, a, out=d)        vs  aten::gelu_backward.grad_input(g, x, a, grad_input=d)
  module    gelu.torch.GELU: y = m(x); y.backward(g) vs  torch.nn.GELU, the same (autograd, allocating)
Both sides write into preallocated outputs for forward/backward, so neither pays for allocation.
PyTorch has no "sigmoid" form; its column for it is the eager x * torch.sigmoid(1.702 * x) and its
gradient g * (s + 1.702 x s (1 - s)), what a user would write. Inputs: N(0, 1), fixed seed (--dist
uniform gives [-10, 10], tail-heavy). Time: the best of --rounds rounds of >= --min-time seconds each.
Rates are elements per second (Gelem/s); ratio = ours / PyTorch (> 1: ours is faster).
"""
import argparse
import datetime
import os
import sys

import numpy as np

try:
    import gelu
    from gelu.speed import FORMS, cases, cpu_model, measure
except ImportError as e:  # the usual cause: PYTHONPATH does not name the build tree's python/ directory
    sys.exit(f"cannot import gelu ({e}); build with -DGELU_BUILD_PYTHON=ON and set PYTHONPATH=<build>/python")
import torch

SIZES = (64 << 10, 1 << 20, 16 << 20)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--dist", default="normal", choices=["normal", "uniform"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.02, help="seconds per timing block")
    ap.add_argument("--quick", action="store_true", help="one round, 64 Ki and 1 Mi only")
    args = ap.parse_args()
    sizes = SIZES[:2] if args.quick else SIZES
    rounds = 1 if args.quick else args.rounds
    dtype = np.dtype(args.dtype).type
    all_threads = os.cpu_count() or 1
    thread_counts = (1,) if all_threads == 1 else (1, all_threads)

    print(f"# gelu {gelu.__version__} ({gelu.simd_target()}) vs PyTorch {torch.__version__}, CPU: {cpu_model()}, "
          f"{all_threads} hardware threads, {datetime.date.today()}")
    print(f"# {args.dtype}, inputs {args.dist}, best of {rounds} rounds of >= {args.min_time} s; "
          f"Gelem/s; ratio = ours / PyTorch")
    print()
    print("| form | op | elements | threads | ours Gelem/s | PyTorch Gelem/s | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for form in FORMS:
        for op in ("forward", "backward", "module"):
            for n in sizes:
                pairs = cases(n, form, dtype, args.dist)[op]
                for t in thread_counts:
                    gelu.set_num_threads(t)
                    torch.set_num_threads(t)
                    best = measure(pairs, rounds, args.min_time)
                    ours, theirs = n / best["ours"] / 1e9, n / best["torch"] / 1e9
                    label = f"{n >> 20} Mi" if n >= 1 << 20 else f"{n >> 10} Ki"
                    print(f"| {form} | {op} | {label} | {t} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |",
                          flush=True)
    gelu.set_num_threads(0)


if __name__ == "__main__":
    main()
