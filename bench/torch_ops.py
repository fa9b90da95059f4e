#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cost of gelu.torch's operators (gelu::gelu), in one process, interleaved round by round.

    PYTHONPATH=build/python ~/.local/share/gelu/venv/bin/python bench/torch_ops.py [--quick]

The operators' definition is gelu.torch.OPERATORS ("stable-abi": C++; GELU_TORCH_OPS=python: "custom_op"), printed
in the header. Four measurements, each on N(0, 1) and U[-10, 10] inputs (fixed seed), float32, CPU:
  call      4 x 256 tensor, one thread, no grad, a new output each call: F.gelu(x) against gelu.torch.gelu(x) and
            torch.ops.gelu.gelu(x) (the registered operator, what a compiled graph calls). Target: the operator
            <= 1.0x F.gelu's time. Then forward + backward with autograd (x requires grad, .backward(g)): F.gelu
            against gelu.torch.gelu; target <= 1.1x.
  1 Mi      2^20 elements, all threads and one thread, a new output each call: the C library through NumPy
            (gelu.forward(x)) against torch.ops.gelu.gelu(x) and gelu.torch.gelu(x). Target: >= 0.9x the library.
  seed      the seed's benchmark: 1000 calls on 1024 x 1024, exact and tanh, torch's threads (all): F.gelu against
            gelu.torch.gelu; target >= 1.0x F.gelu's speed.
  compiled  gelu.speed.TransformerBlock (batch 8, 128 tokens, width 256, MLP 1024), torch.compile(fullgraph=True),
            one thread: with nn.GELU (inductor generates its GELU) against the same weights after replace_gelu.
            Inference (no grad) and a training step (forward and backward). Target: ours no slower.
Times are the best of --rounds rounds; ratio = ours / reference in speed (> 1: ours faster). One-thread rows time the
calling thread's CPU time (time.thread_time), which other tenants of a shared machine barely disturb; the all-threads
rows take the wall clock (time.perf_counter).
"""
import argparse
import datetime
import os
import sys
import time

import numpy as np

try:
    import gelu
    import gelu.torch as gt
    from gelu.speed import TransformerBlock, cpu_model, measure
except ImportError as e:  # the usual cause: PYTHONPATH does not name the build tree's python/ directory
    sys.exit(f"cannot import gelu ({e}); build with -DGELU_BUILD_PYTHON=ON and set PYTHONPATH=<build>/python")
import torch
import torch.nn.functional as F

DISTS = ("normal", "uniform")


def draw(shape, dist, seed=12345):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal(shape) if dist == "normal" else rng.uniform(-10, 10, shape)
    return torch.from_numpy(xs.astype(np.float32))


def row(label, best, ref):
    """A table row: each candidate's time and its speed relative to ref."""
    cells = [f"{name} {best[name] * 1e6:9.2f} us ({best[ref] / best[name]:.2f}x)" for name in best]
    print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def per_call(dist, args):
    x = draw((4, 256), dist)
    pairs = [("F.gelu", lambda: F.gelu(x)), ("gelu.torch.gelu", lambda: gt.gelu(x)),
             ("torch.ops.gelu.gelu", lambda: torch.ops.gelu.gelu(x, "none"))]
    row(f"4x256, {dist}, 1 thread", measure(pairs, args.rounds, args.min_time, time.thread_time), "F.gelu")
    xr = x.clone().requires_grad_(True)
    g = draw((4, 256), "normal", seed=7)

    def step(f):
        def run():
            xr.grad = None
            f(xr).backward(g)
        return run
    pairs = [("F.gelu", step(F.gelu)), ("gelu.torch.gelu", step(gt.gelu))]
    row(f"4x256 forward + backward (autograd), {dist}, 1 thread",
        measure(pairs, args.rounds, args.min_time, time.thread_time), "F.gelu")


def seed(dist, args):
    x = draw((1024, 1024), dist)
    for form in ("none", "tanh"):
        def thousand(f):
            def run():
                for _ in range(1000):
                    f(x, approximate=form)
            return run
        pairs = [("F.gelu", thousand(F.gelu)), ("gelu.torch.gelu", thousand(gt.gelu))]
        row(f"seed: 1000 calls of 1024x1024, {form}, {dist}, {torch.get_num_threads()} thread(s)",
            measure(pairs, max(3, args.rounds // 2), 0, time.perf_counter), "F.gelu")


def mebi(dist, threads, args):
    x = draw(1 << 20, dist)
    x_np = x.numpy()
    pairs = [("gelu.forward (NumPy)", lambda: gelu.forward(x_np)),
             ("torch.ops.gelu.gelu", lambda: torch.ops.gelu.gelu(x, "none")),
             ("gelu.torch.gelu", lambda: gt.gelu(x))]
    clock = time.thread_time if threads == 1 else time.perf_counter
    row(f"1 Mi, {dist}, {threads} thread(s)", measure(pairs, args.rounds, args.min_time, clock), "gelu.forward (NumPy)")


def compiled(dist, args):
    torch.manual_seed(0)
    reference = TransformerBlock().eval()
    ours = gt.replace_gelu(TransformerBlock().eval())
    ours.load_state_dict(reference.state_dict())
    x = draw((8, 128, 256), dist) * (0.1 if dist == "uniform" else 1)  # U[-1, 1] inputs to the block
    models = {"F.gelu compiled": torch.compile(reference, fullgraph=True),
              "ours compiled": torch.compile(ours, fullgraph=True)}

    def infer(m):
        def run():
            with torch.no_grad():
                m(x)
        return run

    xr = x.clone().requires_grad_(True)

    def train(m):
        def run():
            m.zero_grad(set_to_none=True)
            m(xr).sum().backward()
        return run

    for name, m in models.items():  # compile outside the timing
        infer(m)()
        train(m)()
    for label, step in (("inference", infer), ("train step", train)):
        pairs = [(n, step(m)) for n, m in models.items()]
        row(f"block {label}, {dist}, 1 thread", measure(pairs, args.rounds, args.min_time, time.thread_time),
            "F.gelu compiled")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.1, help="seconds per timing block")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 0.02 s")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.min_time = 3, 0.02
    print(f"# bench/torch_ops.py, {datetime.date.today()}, {cpu_model()} ({os.cpu_count()} CPUs, "
          f"{gelu.simd_target()}), torch {torch.__version__} ({gt.OPERATORS} operators), gelu {gelu.__version__}")
    print("| case | times (speed relative to the first) |\n|---|---|")
    all_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    gelu.set_num_threads(1)
    for dist in DISTS:
        per_call(dist, args)
        mebi(dist, 1, args)
    for dist in DISTS:
        compiled(dist, args)
    torch.set_num_threads(all_threads)
    gelu.set_num_threads(0)
    for dist in DISTS:
        mebi(dist, all_threads, args)
    for dist in DISTS:
        seed(dist, args)


if __name__ == "__main__":
    main()
