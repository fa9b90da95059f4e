#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gelu_cuda beside PyTorch's CUDA GELU on the same tensors, in one process (bench/gpu/check.sh).

Speed: every form, forward and backward, float32, bfloat16 and float16, n elements (default 2^28, arrays far larger
than L2), x ~ N(0, 1) and U[-10, 10] (grad_out N(0, 1)), timed with CUDA events: 3 warm-up calls, then --reps
samples alternating ours / PyTorch / the two copies so that all see the same GPU state; the median of each is
reported. Each sample's start event is queued behind a GPU sleep (torch.cuda._sleep), so that the host's work
before the launch (Python glue, ctypes) runs while the GPU is busy and the events time the GPU's work alone. Ours is called through ctypes on the tensors' memory and
PyTorch's current stream. PyTorch's kernels: F.gelu(x, approximate='none'|'tanh') and
torch.ops.aten.gelu_backward(g, x, approximate=...); the sigmoid form has no PyTorch op, so its column times the
composed expression x * sigmoid(1.702 x) (and its derivative), marked "composed". Bytes and GB/s count each
array read or written once, as gelu_gpu_bench does; "% copy" is against the faster of two copies of the same
bytes: y.copy_(x) (cudaMemcpyAsync device to device) and torch.neg(x, out=y) (an SM kernel reading and writing them).

Accuracy (--accuracy): float32 forward and backward (grad_out = 1) for 'none' and 'tanh' over all 2^32 inputs,
and bfloat16 forward over all 65,536 inputs: how far PyTorch's result is from ours in ULPs (ours is within 1 ULP
of the exact value for 'none', tests/gelu_exhaustive_test.cc), and how many negative-tail inputs (x < -5, where
GELU is still a normal float down to x ~ -13.1) PyTorch returns as 0 or with more than 2 ULP of error there.

Fused (--fused): bias + GELU forward and backward (grad_x and grad_bias) and GEGLU forward and backward on a
16384 x 4096 matrix (2^26 elements per array), float32 and bfloat16, 'none' and 'tanh', beside PyTorch's unfused
composition of the same kernels autograd runs: forward F.gelu(x + bias) and F.gelu(a) * b; backward
aten.gelu_backward(g, h) then its sum over rows for grad_bias (h = x + bias, saved by autograd), and g * gelu(a),
g * b, aten.gelu_backward(g * b, a) for GEGLU (gelu(a) saved). "rel diff" is |ours - PyTorch| / |PyTorch| over the
whole output (both in float64): the two differ by design in 16-bit (ours rounds x + bias and gelu(a) * b once,
PyTorch rounds each step), and a NaN or an unwritten output (each output is poisoned with NaN first) shows as nan.

Seed benchmark (--seed-bench): exact and tanh forward on 1024x1024 and 8192x8192 float32 tensors, 1000 calls
each, wall-clock time of the whole loop (host overhead per call included: each call allocates its output, as F.gelu
does), through gelu.torch where it imports with CUDA kernels, through ctypes otherwise, beside F.gelu; 3 rounds
alternating, the median round reported.

Usage: python3 bench/gpu/torch_compare.py --lib BUILD/libgelu_cuda.so [--n N] [--reps R] [--accuracy]
       [--seed-bench] [--fused] [--types f32,bf16,f16] [--csv FILE]
Exit status 77 when PyTorch or a CUDA device is missing (nothing measured).
"""
import argparse
import ctypes
import os
import statistics
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # the script is optional in check.sh
    print(f"torch_compare: PyTorch not importable ({e}); skipped")
    sys.exit(77)

GELU_OK = 0
TYPE_NAMES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}  # the library's suffixes
# The forms of the library's function table, in gelu_approximate's order: FORMS.index(form) is the value passed to the
# library (bench/function_table.py reads src/common/functions.h; this script runs in the repository). theirs() has
# PyTorch's twin of each: F.gelu's approximate=, or the composed expression of a form PyTorch lacks.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from function_table import FORMS  # noqa: E402


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    p, n, e = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    for t in ("f32", "bf16", "f16"):
        f = getattr(lib, f"gelu_cuda_forward_{t}")
        f.argtypes, f.restype = [p, p, n, e, p], e
        b = getattr(lib, f"gelu_cuda_backward_{t}")
        b.argtypes, b.restype = [p, p, p, n, e, p], e
        for name, args in (("bias_forward", [p, p, p, n, n, e, p]), ("bias_backward", [p, p, p, p, p, n, n, e, p]),
                           ("geglu_forward", [p, p, p, n, e, p]), ("geglu_backward", [p, p, p, p, p, n, e, p])):
            fn = getattr(lib, f"gelu_cuda_{name}_{t}")
            fn.argtypes, fn.restype = args, e
    lib.gelu_cuda_last_error_string.argtypes, lib.gelu_cuda_last_error_string.restype = [], ctypes.c_char_p
    return lib


def ours(lib, direction, x, g, y, form):
    """A zero-argument callable running our kernel on the tensors, on PyTorch's current stream."""
    t = TYPE_NAMES[x.dtype]
    a, n = FORMS.index(form), x.numel()
    fn = getattr(lib, f"gelu_cuda_{direction}_{t}")
    xp, gp, yp = x.data_ptr(), g.data_ptr(), y.data_ptr()

    def call():
        s = torch.cuda.current_stream().cuda_stream
        r = fn(xp, yp, n, a, s) if direction == "forward" else fn(gp, xp, yp, n, a, s)
        if r != GELU_OK:
            raise RuntimeError(f"gelu_cuda_{direction}_{t}: {r} {lib.gelu_cuda_last_error_string()}")

    return call


def theirs(direction, x, g, form):
    if form == "sigmoid":  # no PyTorch op: the composed expression
        if direction == "forward":
            return lambda: x * torch.sigmoid(1.702 * x)

        def backward():
            s = torch.sigmoid(1.702 * x)
            return g * (s + 1.702 * x * s * (1 - s))
        return backward
    if direction == "forward":
        return lambda: F.gelu(x, approximate=form)
    return lambda: torch.ops.aten.gelu_backward(g, x, approximate=form)


# GPU clock cycles of the sleep queued before each sample's start event: ~0.1 ms at the H100/H200's ~1.8 GHz, longer
# than the host's work before a launch (a few tens of microseconds), so the launch is queued before the start fires.
SLEEP_CYCLES = 200_000


def time_interleaved(calls, reps):
    """Median milliseconds of each callable, samples interleaved, GPU time only (the start waits behind a sleep)."""
    for c in calls:
        for _ in range(3):
            c()
    torch.cuda.synchronize()
    samples = [[] for _ in calls]
    for _ in range(reps):
        for i, c in enumerate(calls):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(SLEEP_CYCLES)
            a.record()
            c()
            b.record()
            b.synchronize()
            samples[i].append(a.elapsed_time(b))
    return [statistics.median(s) for s in samples]


def speed(lib, n, reps, types=("f32", "bf16", "f16")):
    rows = []
    gen = torch.Generator(device="cuda").manual_seed(1)
    for dtype, tname in ((torch.float32, "f32"), (torch.bfloat16, "bf16"), (torch.float16, "f16")):
        if tname not in types:
            continue
        for dist in ("normal", "uniform"):
            if dist == "normal":
                x = torch.randn(n, device="cuda", dtype=dtype, generator=gen)
            else:
                x = (torch.rand(n, device="cuda", dtype=torch.float32, generator=gen) * 20 - 10).to(dtype)
            g = torch.randn(n, device="cuda", dtype=dtype, generator=gen)
            y = torch.empty_like(x)
            y.fill_(-1.5)
            es = x.element_size()
            memcpy = lambda: y.copy_(x)  # noqa: E731  (cudaMemcpyAsync, device to device)
            sm_copy = lambda: torch.neg(x, out=y)  # noqa: E731  (an elementwise kernel on the SMs, the same bytes)
            for direction, arrays in (("forward", 2), ("backward", 3)):
                for form in FORMS:
                    ms_ours, ms_torch, ms_memcpy, ms_sm = time_interleaved(
                        [ours(lib, direction, x, g, y, form), theirs(direction, x, g, form), memcpy, sm_copy], reps)
                    ms_copy = min(ms_memcpy, ms_sm)
                    copy_gbps = 2 * n * es / (ms_copy * 1e6)
                    gbps = arrays * n * es / (ms_ours * 1e6)
                    rows.append(dict(kernel=f"{direction}/{form}", type=tname, dist=dist, ms=ms_ours, gbps=gbps,
                                     pct_copy=100 * gbps / copy_gbps, copy_gbps=copy_gbps,
                                     memcpy_gbps=2 * n * es / (ms_memcpy * 1e6),
                                     sm_copy_gbps=2 * n * es / (ms_sm * 1e6), torch_ms=ms_torch,
                                     torch_gbps=arrays * n * es / (ms_torch * 1e6), ratio=ms_torch / ms_ours,
                                     composed=form == "sigmoid"))
            del x, g, y
        torch.cuda.empty_cache()
    return rows


def ordered(bits):
    """float32 bit patterns (int32 tensor) -> int64 keys whose differences count ULPs (+0 and -0 both 0)."""
    b = bits.to(torch.int64)
    return torch.where(b < 0, -(b & 0x7FFFFFFF), b)


def accuracy(lib):
    lines = []
    chunk = 1 << 28
    for direction in ("forward", "backward"):
        for form in ("none", "tanh"):
            max_ulp, worst_x, differ, tail_zero, tail_bad = 0, None, 0, 0, 0
            for start in range(0, 1 << 32, chunk):
                bits = torch.arange(start, start + chunk, device="cuda", dtype=torch.int64)
                bits = torch.where(bits >= 1 << 31, bits - (1 << 32), bits).to(torch.int32)
                x = bits.view(torch.float32)
                finite = torch.isfinite(x)
                g = torch.ones_like(x)
                y = torch.empty_like(x)
                ours(lib, direction, x, g, y, form)()
                t = F.gelu(x, approximate=form) if direction == "forward" else \
                    torch.ops.aten.gelu_backward(g, x, approximate=form)
                d = (ordered(y.view(torch.int32)) - ordered(t.view(torch.int32))).abs()
                d = torch.where(finite & ~torch.isnan(t) & ~torch.isnan(y), d, torch.zeros_like(d))
                differ += int((d > 0).sum())
                m = int(d.max())
                if m > max_ulp:
                    max_ulp, worst_x = m, float(x[int(d.argmax())])
                tail = finite & (x < -5) & (y != 0)
                tail_zero += int((tail & (t == 0)).sum())
                tail_bad += int((tail & (d > 2)).sum())
                del bits, x, g, y, t, d, finite, tail
            lines.append(f"f32 {direction:8s} {form:4s}: PyTorch differs from ours on {differ} of 2^32 inputs, "
                         f"max {max_ulp} ULP (x = {worst_x!r}); x < -5 with a nonzero result: "
                         f"{tail_zero} returned as 0 by PyTorch, {tail_bad} off by > 2 ULP")
    bits = torch.arange(0, 1 << 16, device="cuda", dtype=torch.int32)
    bits = torch.where(bits >= 1 << 15, bits - (1 << 16), bits).to(torch.int16)
    x = bits.view(torch.bfloat16)
    for form in ("none", "tanh"):
        y = torch.empty_like(x)
        ours(lib, "forward", x, x, y, form)()
        t = F.gelu(x, approximate=form)
        ok = (y.view(torch.int16) == t.view(torch.int16)) | (torch.isnan(y.float()) & torch.isnan(t.float()))
        lines.append(f"bf16 forward {form:4s}: PyTorch differs from ours (correctly rounded) on "
                     f"{int((~ok).sum())} of 65536 inputs")
    return lines


def fused(lib, reps, rows=16384, cols=4096):
    """Fused kernels against PyTorch's unfused composition; one table row per kernel, type and form."""
    out = []
    gen = torch.Generator(device="cuda").manual_seed(3)
    n = rows * cols
    for dtype in (torch.float32, torch.bfloat16):
        t, es = TYPE_NAMES[dtype], torch.tensor([], dtype=dtype).element_size()
        r = lambda *shape: torch.randn(*shape, device="cuda", dtype=dtype, generator=gen)  # noqa: E731
        x, bias, g, a, b = r(rows, cols), r(cols), r(rows, cols), r(rows, cols), r(rows, cols)
        h = x + bias
        y, gx, ga, gb = (torch.full_like(x, float("nan")) for _ in range(4))
        gbias = torch.full_like(bias, float("nan"))
        s = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
        for form in ("none", "tanh"):
            a_ = FORMS.index(form)
            fa = F.gelu(a, approximate=form)  # GEGLU's saved activation
            cases = [
                ("bias_forward", 2, lambda: getattr(lib, f"gelu_cuda_bias_forward_{t}")(
                    x.data_ptr(), bias.data_ptr(), y.data_ptr(), rows, cols, a_, s()),
                 lambda: F.gelu(x + bias, approximate=form), lambda: [y]),
                ("bias_backward", 3, lambda: getattr(lib, f"gelu_cuda_bias_backward_{t}")(
                    g.data_ptr(), x.data_ptr(), bias.data_ptr(), gx.data_ptr(), gbias.data_ptr(), rows, cols, a_,
                    s()),
                 lambda: (lambda gh: (gh, gh.sum(0)))(torch.ops.aten.gelu_backward(g, h, approximate=form)),
                 lambda: [gx, gbias]),
                ("geglu_forward", 3, lambda: getattr(lib, f"gelu_cuda_geglu_forward_{t}")(
                    a.data_ptr(), b.data_ptr(), y.data_ptr(), n, a_, s()),
                 lambda: F.gelu(a, approximate=form) * b, lambda: [y]),
                ("geglu_backward", 5, lambda: getattr(lib, f"gelu_cuda_geglu_backward_{t}")(
                    g.data_ptr(), a.data_ptr(), b.data_ptr(), ga.data_ptr(), gb.data_ptr(), n, a_, s()),
                 lambda: (torch.ops.aten.gelu_backward(g * b, a, approximate=form), g * fa),
                 lambda: [ga, gb]),
            ]
            for name, arrays, mine, theirs_, outputs in cases:
                for o in outputs():
                    o.fill_(float("nan"))
                status = mine()
                if status != GELU_OK:
                    raise RuntimeError(f"gelu_cuda_{name}_{t}: {status} {lib.gelu_cuda_last_error_string()}")
                want = theirs_()
                want = list(want) if isinstance(want, tuple) else [want]
                num = sum(float((o.double() - w.double()).norm()) for o, w in zip(outputs(), want))
                den = sum(float(w.double().norm()) for w in want)
                ms_ours, ms_torch = time_interleaved([mine, theirs_], reps)
                out.append(dict(kernel=name, type=t, form=form, ms=ms_ours, gbps=arrays * n * es / (ms_ours * 1e6),
                                torch_ms=ms_torch, ratio=ms_torch / ms_ours, rel=num / den))
        del x, bias, g, a, b, h, y, gx, ga, gb, gbias, fa
        torch.cuda.empty_cache()
    return out


def seed_bench(lib, calls=1000, rounds=3):
    """The seed's exact-vs-tanh benchmark: ms for `calls` forward calls, ours and F.gelu's, median of `rounds`."""
    import time
    try:
        import gelu.torch as gt
        via = "gelu.torch" if gt._gelu._cuda_built else None
    except ImportError:
        via = None
    lines = []
    for shape in ((1024, 1024), (8192, 8192)):
        x = torch.randn(*shape, device="cuda", generator=torch.Generator(device="cuda").manual_seed(2))
        for form in ("none", "tanh"):
            if via:
                mine = lambda: gt.gelu(x, form)  # noqa: E731
            else:
                def mine():
                    y = torch.empty_like(x)
                    ours(lib, "forward", x, x, y, form)()
                    return y
            candidates = {"ours": mine, "F.gelu": lambda: F.gelu(x, approximate=form)}
            times = {k: [] for k in candidates}
            for _ in range(rounds):
                for name, fn in candidates.items():
                    for _ in range(10):
                        fn()
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        fn()
                    torch.cuda.synchronize()
                    times[name].append(1e3 * (time.perf_counter() - t0))
            ms = {k: statistics.median(v) for k, v in times.items()}
            lines.append(f"seed benchmark {shape[0]}x{shape[1]} {form:4s}, {calls} calls: ours {ms['ours']:.1f} ms "
                         f"({via or 'ctypes'}), F.gelu {ms['F.gelu']:.1f} ms, ours / F.gelu speed "
                         f"{ms['F.gelu'] / ms['ours']:.2f}x")
        del x
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--n", type=lambda s: int(s, 0), default=1 << 28)
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--accuracy", action="store_true")
    ap.add_argument("--seed-bench", action="store_true")
    ap.add_argument("--fused", action="store_true")
    ap.add_argument("--types", default="f32,bf16,f16", help="elementwise types timed (comma-separated)")
    ap.add_argument("--csv")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_compare: torch.cuda.is_available() is False; skipped")
        return 77
    lib = load(args.lib)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, n = {args.n}, median of {args.reps}")
    acc = accuracy(lib) if args.accuracy else []
    acc += seed_bench(lib) if args.seed_bench else []
    rows = speed(lib, args.n, args.reps, args.types.split(","))
    fused_rows, fused_error = [], None
    if args.fused:  # after the elementwise table's measurements, so that a failure here loses none of them
        try:
            fused_rows = fused(lib, args.reps)
        except Exception as e:  # noqa: BLE001 (reported, and the exit status says so)
            fused_error = f"{type(e).__name__}: {e}"
    if args.csv:
        with open(args.csv, "w") as f:
            keys = list(rows[0].keys())
            f.write(",".join(keys) + "\n")
            for r in rows:
                f.write(",".join(str(r[k]) for k in keys) + "\n")
    for line in acc:
        print(line)
    print()
    print("| kernel | type | x | ours ms | ours GB/s | % of the faster copy | PyTorch ms | ours / PyTorch speed |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        mark = " (composed)" if r["composed"] else ""
        print(f"| {r['kernel']} | {r['type']} | {r['dist']} | {r['ms']:.4f} | {r['gbps']:.0f} | {r['pct_copy']:.1f}% | "
              f"{r['torch_ms']:.4f}{mark} | {r['ratio']:.2f}x |")
    if fused_rows:
        print()
        print("| fused kernel (16384 x 4096) | type | form | ours ms | ours GB/s | PyTorch unfused ms | ours / PyTorch "
              "speed | rel diff |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        for r in fused_rows:
            print(f"| {r['kernel']} | {r['type']} | {r['form']} | {r['ms']:.4f} | {r['gbps']:.0f} | "
                  f"{r['torch_ms']:.4f} | {r['ratio']:.2f}x | {r['rel']:.1e} |")
    if fused_error:
        print(f"torch_compare: the fused comparison FAILED: {fused_error}")
    for t in sorted({r["type"] for r in rows}):
        memcpy_gbps = statistics.median(r["memcpy_gbps"] for r in rows if r["type"] == t)
        sm_gbps = statistics.median(r["sm_copy_gbps"] for r in rows if r["type"] == t)
        print(f"copy GB/s, {t} (median of the samples' medians): cudaMemcpyAsync {memcpy_gbps:.0f}, "
              f"SM kernel (torch.neg) {sm_gbps:.0f}")
    return 1 if fused_error else 0


if __name__ == "__main__":
    sys.exit(main())
