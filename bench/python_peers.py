#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Today's Python peers of the library, side by side in one process on the same arrays (docs/BENCHMARKS.md).

    PYTHONPATH=build/python python bench/python_peers.py [--quick] [--rounds 3] [--min-time 0.02] [--json FILE]

Forward GELU, float32 and bfloat16, inputs N(0, 1) and U[-10, 10] (fixed seed), 64 Ki elements on 1 thread and
16 Mi on all threads, each row timed against the same input array (the peers' own copies of it where they need
one: a jax.Array, an OrtValue), into a preallocated output where the API allows:
  copy           torch's y.copy_(x): the memory floor, same bytes, same threads
  ours C         gelu.forward(x, a, out=y) on the NumPy array (bfloat16: the module's pointer entry, as gelu.torch)
  ours torch     gelu.torch.gelu(x, a) on the tensor (allocating, no autograd)
  torch eager    torch.nn.functional.gelu(x, approximate=a) (allocating)
  torch compile  the same function under torch.compile (inductor's generated C++), compiled per dtype, form, size
                 and thread count; its compile time is not timed
  ORT Gelu       ONNX Runtime, opset 20 Gelu(approximate=a), one-node model, default graph optimizations (what a
                 user gets), IOBinding into a preallocated output
  ORT ms.Gelu    com.microsoft Gelu (exact) and FastGelu (tanh form)
  JAX            jax.jit(jax.nn.gelu(approximate=a == "tanh")), block_until_ready
  ours JAX       jax.jit(gelu.jax.gelu(x, a)) (the library through XLA's FFI), block_until_ready
Threads: gelu.set_num_threads, torch.set_num_threads and ORT's intra_op_num_threads follow the row (1 or all);
XLA's CPU client fixes its own threads at start-up (all), so JAX's 1-thread rows may use more than one.
A peer that has no kernel for a dtype shows "n/a" (ONNX Runtime's CPU GELUs are float32 only).
Time: the best of --rounds rounds, every peer once per round, each a block of calls lasting >= --min-time s of wall
clock. Rates in Gelem/s (elements per second; for copy, of the same element type).

Then each peer's tail, float32: its value at x = -6, -10, -inf (true GELU: -5.9195e-09, -7.6199e-23, -0), and its
maximum error in float32 ULP over 2^16 N(0,1) and 2^16 U[-10, 10] inputs against the library's float64 exact form
(itself <= 2 double ULP of GELU, checked against MPFR); the tanh rows (FastGelu, JAX tanh) against the library's
float64 tanh form. NaN where GELU is a number counts as an infinite error.
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

try:
    import gelu
    import gelu.torch as gelu_torch
    import gelu.jax as gelu_jax
    from gelu import _gelu
    from gelu.speed import cpu_model
except ImportError as e:  # the usual cause: PYTHONPATH does not name the build tree's python/ directory
    sys.exit(f"cannot import gelu ({e}); build with -DGELU_BUILD_PYTHON=ON and set PYTHONPATH=<build>/python")
import jax
import jax.numpy as jnp
import ml_dtypes
from onnx import TensorProto, helper
import onnxruntime as ort
import torch
import torch.nn.functional as F

FORMS = ("none", "tanh")  # the two forms every peer has (ours has sigmoid too)
CONFIGS = ((64 << 10, 1), (16 << 20, 0))  # (elements, threads; 0 = all)
DTYPES = ("float32", "bfloat16")
DISTS = ("normal", "uniform")
TAIL_X = (-6.0, -10.0, -np.inf)


def ort_session(op, domain, attrs, threads, elem_type):
    node = helper.make_node(op, ["x"], ["y"], domain=domain, **attrs)
    graph = helper.make_graph([node], "gelu", [helper.make_tensor_value_info("x", elem_type, [None])],
                              [helper.make_tensor_value_info("y", elem_type, [None])])
    opsets = [helper.make_opsetid("", 20)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads or (os.cpu_count() or 1)
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL  # the default: what users run
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


ORT_PEERS = {  # name: (op, domain, attributes, form)
    "ORT Gelu none (opset 20)": ("Gelu", "", {"approximate": "none"}, "none"),
    "ORT Gelu tanh (opset 20)": ("Gelu", "", {"approximate": "tanh"}, "tanh"),
    "ORT com.microsoft Gelu": ("Gelu", "com.microsoft", {}, "none"),
    "ORT com.microsoft FastGelu": ("FastGelu", "com.microsoft", {}, "tanh"),
}


def ort_runner(sess, x_np, y_np):
    """A call of sess on x_np into y_np through IOBinding (no allocation, no copy of the output)."""
    binding = sess.io_binding()
    binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x_np))
    binding.bind_ortvalue_output("y", ort.OrtValue.ortvalue_from_numpy(y_np))
    return lambda: sess.run_with_iobinding(binding)


# One compiled function per dtype, form, size and thread count, all from the same lambda's code object.
torch._dynamo.config.recompile_limit = 64


def compiled_gelu(form):
    return torch.compile(lambda t: F.gelu(t, approximate=form), dynamic=False, fullgraph=True)


def peers(x_t, threads, dtype):
    """[(name, form, fn)] on the tensor x_t (float32 or bfloat16); fn() runs one call."""
    x_np = x_t.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if dtype == "bfloat16" else x_t.numpy()
    y_t = torch.empty_like(x_t)
    y_np = y_t.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if dtype == "bfloat16" else y_t.numpy()
    n = x_t.numel()
    out = [("copy", "", lambda: y_t.copy_(x_t))]
    for form in FORMS:
        if dtype == "float32":
            out.append((f"ours C, {form}", form, lambda form=form: gelu.forward(x_np, form, out=y_np)))
        else:  # NumPy has no bfloat16: the module's pointer entry, which gelu.torch calls for CPU tensors
            out.append((f"ours C, {form}", form,
                        lambda form=form: _gelu._forward_ptr(x_t.data_ptr(), y_t.data_ptr(), n, dtype, form)))
        out.append((f"ours gelu.torch, {form}", form, lambda form=form: gelu_torch.gelu(x_t, form)))
        out.append((f"torch eager F.gelu, {form}", form, lambda form=form: F.gelu(x_t, approximate=form)))
        fn = compiled_gelu(form)
        fn(x_t)  # compiles now, with this row's thread count (inductor fixes its OpenMP threads at compile time)
        out.append((f"torch.compile F.gelu, {form}", form, lambda fn=fn: fn(x_t)))
    elem = TensorProto.FLOAT if dtype == "float32" else TensorProto.BFLOAT16
    for name, (op, domain, attrs, form) in ORT_PEERS.items():
        try:
            sess = ort_session(op, domain, attrs, threads, elem)
            run = ort_runner(sess, x_np, y_np)
            run()
        except Exception as e:  # noqa: BLE001  (no kernel for this type: reported, not timed)
            out.append((name, form, str(e).splitlines()[0][:200]))
            continue
        out.append((name, form, run))
    x_j = jax.device_put(jnp.asarray(x_np))
    for form in FORMS:
        fn = jax.jit(lambda t, a=(form == "tanh"): jax.nn.gelu(t, approximate=a))
        fn(x_j).block_until_ready()
        out.append((f"JAX jax.nn.gelu, {form}", form, lambda fn=fn: fn(x_j).block_until_ready()))
        ours = jax.jit(lambda t, form=form: gelu_jax.gelu(t, form))
        ours(x_j).block_until_ready()
        out.append((f"ours JAX gelu.jax, {form}", form, lambda fn=ours: fn(x_j).block_until_ready()))
    return out


def best_time(fn, min_time):
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / reps
        reps = max(reps * 2, int(reps * min_time / max(dt, 1e-9)) + 1)


def inputs(n, dist, dtype):
    rng = np.random.default_rng(12345)
    x = rng.standard_normal(n) if dist == "normal" else rng.uniform(-10, 10, n)
    return torch.from_numpy(x.astype(np.float32)).to(getattr(torch, dtype))


def ulp_f32(r):
    """The float32 ULP of the exact values r (float64): 2^(e-23) for |r| in [2^e, 2^(e+1)), 2^-149 below 2^-126."""
    e = np.floor(np.log2(np.maximum(np.abs(r), 2.0 ** -126)))
    return np.ldexp(1.0, (e - 23).astype(int))


def tails(threads_all):
    """{peer: {"x=-6": value, ..., "max ulp": m}} for the exact form (tanh for FastGelu), float32."""
    rng = np.random.default_rng(54321)
    sample = np.concatenate([rng.standard_normal(1 << 16), rng.uniform(-10, 10, 1 << 16)]).astype(np.float32)
    x = np.concatenate([np.array(TAIL_X, np.float32), sample])
    x_t = torch.from_numpy(x)
    exact = gelu.forward(x.astype(np.float64))  # the library in float64: <= 2 double ULP
    tanh = gelu.forward(x.astype(np.float64), "tanh")
    y_np = np.empty_like(x)
    truth = {"none": exact, "tanh": tanh}  # the forms the peers offer; another form has no row here
    rows = {"true GELU (library, float64)": (exact, exact)}
    rows["ours C"] = (gelu.forward(x), exact)
    rows["ours gelu.torch"] = (gelu_torch.gelu(x_t).numpy(), exact)
    rows["torch eager F.gelu"] = (F.gelu(x_t).numpy(), exact)
    rows["torch.compile F.gelu"] = (compiled_gelu("none")(x_t).numpy(), exact)
    for name, (op, domain, attrs, form) in ORT_PEERS.items():
        sess = ort_session(op, domain, attrs, threads_all, TensorProto.FLOAT)
        ort_runner(sess, x, y_np)()
        rows[name] = (y_np.copy(), truth[form])
    rows["JAX jax.nn.gelu"] = (np.asarray(jax.jit(lambda t: jax.nn.gelu(t, approximate=False))(x)), exact)
    rows["JAX jax.nn.gelu, tanh"] = (np.asarray(jax.jit(lambda t: jax.nn.gelu(t, approximate=True))(x)), tanh)
    rows["ours JAX gelu.jax"] = (np.asarray(jax.jit(gelu_jax.gelu)(x)), exact)
    out = {}
    for name, (y, ref) in rows.items():
        y64 = y.astype(np.float64)
        k = len(TAIL_X)
        err = np.abs(y64[k:] - ref[k:]) / ulp_f32(ref[k:])
        err[np.isnan(err)] = np.inf  # NaN where GELU is a number
        out[name] = {**{f"x={v:g}": float(y64[i]) for i, v in enumerate(TAIL_X)},
                     "max ulp": float(err.max()), "against": "tanh" if ref is tanh else "exact"}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.02, help="seconds per timing block")
    ap.add_argument("--quick", action="store_true", help="one round, 16 Ki and 1 Mi elements: a smoke run")
    ap.add_argument("--json", help="also write every figure to this file")
    args = ap.parse_args()
    configs = ((16 << 10, 1), (1 << 20, 0)) if args.quick else CONFIGS
    rounds = 1 if args.quick else args.rounds
    all_threads = len(os.sched_getaffinity(0))
    load = lambda: ", ".join(f"{v:.2f}" for v in os.getloadavg())  # noqa: E731

    print(f"# gelu {gelu.__version__} ({gelu.simd_target()}), torch {torch.__version__}, onnxruntime "
          f"{ort.__version__}, jax {jax.__version__}; CPU: {cpu_model()}, {all_threads} threads; "
          f"{datetime.date.today()}; load before: {load()}")
    print(f"# forward, best of {rounds} rounds of >= {args.min_time} s; Gelem/s")
    results = {}  # (dtype, dist, n, threads) -> {peer: Gelem/s or str}
    for dtype in DTYPES:
        for n, threads in configs:
            t = threads or all_threads
            gelu.set_num_threads(t)
            torch.set_num_threads(t)
            for dist in DISTS:
                rows = peers(inputs(n, dist, dtype), threads, dtype)
                best = {name: float("inf") for name, _, fn in rows if callable(fn)}
                for _ in range(rounds):
                    for name, _, fn in rows:
                        if callable(fn):
                            best[name] = min(best[name], best_time(fn, args.min_time))
                results[(dtype, dist, n, t)] = {name: (n / best[name] / 1e9 if callable(fn) else fn)
                                                for name, _, fn in rows}
                print(f"#   done {dtype} {dist} {n} elements, {t} threads; load {load()}", file=sys.stderr,
                      flush=True)
    gelu.set_num_threads(0)
    torch.set_num_threads(all_threads)

    keys = list(results)
    label = lambda n: f"{n >> 20} Mi" if n >= 1 << 20 else f"{n >> 10} Ki"  # noqa: E731
    print()
    print("| peer | " + " | ".join(f"{d} {'N(0,1)' if s == 'normal' else 'U[-10,10]'} {label(n)} {t}t"
                                     for d, s, n, t in keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for name in results[keys[0]]:
        cells = [results[k].get(name) for k in keys]
        print(f"| {name} | " + " | ".join(f"{c:.3f}" if isinstance(c, float) else "n/a" for c in cells) + " |")
    notes = {name: c for k in keys for name, c in results[k].items() if isinstance(c, str)}
    for name, why in notes.items():
        print(f"\nn/a, {name}: {why}")

    tail = tails(all_threads)
    print()
    print("| peer (float32) | x = -6 | x = -10 | x = -inf | max ULP, N(0,1) and U[-10,10] |")
    print("|---|---:|---:|---:|---:|")
    for name, r in tail.items():
        print(f"| {name} | {r['x=-6']:.4e} | {r['x=-10']:.4e} | {r['x=-inf']:g} | {r['max ulp']:.3g} |")
    print(f"\n# load after: {load()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rates": [{"dtype": d, "dist": s, "elements": n, "threads": t, **results[(d, s, n, t)]}
                                 for d, s, n, t in keys], "tails": tail}, f, indent=1)


if __name__ == "__main__":
    main()
