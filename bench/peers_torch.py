#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's CPU GELU beside ours, interleaved in one process (docs/BENCHMARKS.md).

Compares torch.nn.functional.gelu and torch.ops.aten.gelu_backward (approximate='none' and 'tanh') with this
library's C ABI called through ctypes on the same tensors' memory. Each sample times a batch of calls lasting
about --sample-ms; samples alternate ours/torch so that both see the same machine load, and the median of
--repeats samples is reported, with the best sample beside it (on a shared machine the best is the run least
disturbed by other tenants). Both sides pay one Python call per array (ctypes about 1 us, torch dispatch a
few us), which matters only at the smallest size. One-thread runs are timed by the calling thread's CPU time
(time.thread_time), all-thread runs by the wall clock, as in bench/gelu_benchmark.cc.

Usage: python bench/peers_torch.py build-bench/libgelu.so [--sizes 65536 16777216] [--repeats 7]
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from function_table import FORMS  # ours, in gelu_approximate's numbering (bench/function_table.py)

GELU_OK = 0
TORCH_FORMS = ("none", "tanh")  # PyTorch's approximate= values, each one of our FORMS


def load_library(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    ptr, size, enum = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    lib.gelu_forward_f32.argtypes = [ptr, ptr, size, enum]
    lib.gelu_forward_f32.restype = enum
    lib.gelu_backward_f32.argtypes = [ptr, ptr, ptr, size, enum]
    lib.gelu_backward_f32.restype = enum
    lib.gelu_set_num_threads.argtypes = [ctypes.c_int]
    lib.gelu_set_num_threads.restype = None
    lib.gelu_simd_target.argtypes = []
    lib.gelu_simd_target.restype = ctypes.c_char_p
    return lib


def make_calls(lib, op, form, x, g, out):
    """Returns (ours, torch) zero-argument callables doing one pass over x."""
    n, a = x.numel(), FORMS.index(form)
    xp, gp, op_ = x.data_ptr(), g.data_ptr(), out.data_ptr()
    if op == "fwd":
        fwd = lib.gelu_forward_f32

        def ours():
            if fwd(xp, op_, n, a) != GELU_OK:
                raise RuntimeError("gelu_forward_f32 failed")

        def theirs():
            return F.gelu(x, approximate=form)
    else:
        bwd = lib.gelu_backward_f32
        aten_bwd = torch.ops.aten.gelu_backward

        def ours():
            if bwd(gp, xp, op_, n, a) != GELU_OK:
                raise RuntimeError("gelu_backward_f32 failed")

        def theirs():
            return aten_bwd(g, x, approximate=form)
    return ours, theirs


def calls_per_sample(fn, sample_s, clock):
    fn()  # warm: page faults, oneDNN JIT, thread pool start
    k, t = 1, 0.0
    while True:
        t0 = clock()
        for _ in range(k):
            fn()
        t = clock() - t0
        if t >= sample_s / 4 or k >= 1 << 20:
            break
        k *= 2
    return max(1, int(k * sample_s / max(t, 1e-9)))


def interleaved_times(fns, repeats, sample_s, clock):
    """Seconds per call for each fn: (median, best) over `repeats` interleaved samples."""
    ks = [calls_per_sample(fn, sample_s, clock) for fn in fns]
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for i, (fn, k) in enumerate(zip(fns, ks)):
            t0 = clock()
            for _ in range(k):
                fn()
            samples[i].append((clock() - t0) / k)
    return [(statistics.median(s), min(s)) for s in samples]


def check_agreement(lib, op, form, x, g, out):
    """Both sides must compute the same function, or the comparison is void."""
    ours, theirs = make_calls(lib, op, form, x, g, out)
    ours()
    ref = theirs()
    # torch's erf form is not tail-accurate (returns 0 below about -5), hence the absolute floor.
    if not torch.allclose(out, ref, rtol=1e-4, atol=1e-5):
        err = (out - ref).abs().max().item()
        sys.exit(f"peers_torch: {op}/{form}: ours and torch differ by up to {err:g}; aborting")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("library", help="path to libgelu.so (e.g. build-bench/libgelu.so)")
    p.add_argument("--sizes", type=int, nargs="+", default=[64 << 10, 16 << 20])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--sample-ms", type=float, default=40.0)
    p.add_argument("--dist", choices=["normal", "uniform"], default="normal",
                   help="inputs: N(0,1) or U[-10,10] (fixed seed)")
    p.add_argument("--json", help="also write the rows to this file (read by bench/summarize.py)")
    args = p.parse_args()

    lib = load_library(args.library)
    all_threads = os.cpu_count() or 1
    print(f"# torch {torch.__version__}, ours: {args.library} ({lib.gelu_simd_target().decode()}), "
          f"inputs {args.dist}, median of {args.repeats} interleaved samples of ~{args.sample_ms:g} ms")
    header = (f"{'op':4} {'form':5} {'threads':>7} {'n':>9} {'ours Gelem/s':>13} {'torch Gelem/s':>14} "
              f"{'ours/torch':>11} {'best: ours/torch':>17}")
    print(header)
    print("-" * len(header))
    rows = []
    gen = torch.Generator().manual_seed(20261129)
    for threads in (1, all_threads):
        # As gelu_benchmark: one thread is timed by the calling thread's CPU time (both sides then run on it),
        # which other tenants of a shared machine barely disturb; all threads by the wall clock.
        clock = time.thread_time if threads == 1 else time.perf_counter
        torch.set_num_threads(threads)
        lib.gelu_set_num_threads(1 if threads == 1 else 0)  # 0 = every hardware thread
        for n in args.sizes:
            if args.dist == "normal":
                x = torch.randn(n, generator=gen, dtype=torch.float32)
            else:
                x = torch.rand(n, generator=gen, dtype=torch.float32) * 20 - 10
            g = torch.randn(n, generator=gen, dtype=torch.float32)
            out = torch.empty_like(x)
            for op in ("fwd", "bwd"):
                for form in TORCH_FORMS:
                    check_agreement(lib, op, form, x, g, out)
                    (ours_s, ours_b), (theirs_s, theirs_b) = interleaved_times(
                        make_calls(lib, op, form, x, g, out), args.repeats, args.sample_ms / 1e3, clock)
                    ours_r, theirs_r = n / ours_s / 1e9, n / theirs_s / 1e9
                    ours_br, theirs_br = n / ours_b / 1e9, n / theirs_b / 1e9
                    print(f"{op:4} {form:5} {'t1' if threads == 1 else 'tall':>7} {n:>9} {ours_r:13.3f} "
                          f"{theirs_r:14.3f} {ours_r / theirs_r:11.2f} {ours_br / theirs_br:17.2f}", flush=True)
                    rows.append({"op": op, "form": form, "threads": "t1" if threads == 1 else "tall", "n": n,
                                 "dist": args.dist, "ours_gelem_s": ours_r, "torch_gelem_s": theirs_r,
                                 "ours_best_gelem_s": ours_br, "torch_best_gelem_s": theirs_br})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "simd_target": lib.gelu_simd_target().decode(),
                       "repeats": args.repeats, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
