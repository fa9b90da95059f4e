#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds the Markdown tables of docs/BENCHMARKS.md from gelu_benchmark's JSON and peers_torch.py's JSON.

Usage: bench/summarize.py bench.json [--torch peers.json] [--stat median|max]

Rates are Gelem/s (elements per second / 1e9) unless a column says otherwise. With repetitions, the median
aggregate is used by default; --stat max takes the best repetition (Google Benchmark applies one statistic to
every counter, and a rate's best is its maximum). Ends with the issue's speed targets, each marked met or missed.
"""
import argparse
import json
import sys

from function_table import FORMS  # the library's forms, from src/common/functions.h (bench/function_table.py)

KI = 1024
SIZES = [4 * KI, 64 * KI, KI * KI, 16 * KI * KI]
ONEDNN_FORMS = ("none", "tanh")  # the forms oneDNN has: eltwise_gelu_erf, eltwise_gelu_tanh (gelu_benchmark.cc)


def size_name(n):
    return f"{n // (KI * KI)} Mi" if n >= KI * KI else f"{n // KI} Ki"


def load(path, stat):
    """Returns {name-without-/real_time: {"elements": rate, "bytes": rate, "label": str}}."""
    with open(path) as f:
        data = json.load(f)
    rows, have_aggregates = {}, any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    for b in data["benchmarks"]:
        if "error_occurred" in b and b["error_occurred"]:
            continue
        if have_aggregates and (b.get("run_type") != "aggregate" or b.get("aggregate_name") != stat):
            continue
        name = b["run_name"] if have_aggregates else b["name"]
        name = name.replace("/real_time", "")
        rows[name] = {"elements": b.get("elements", 0.0) / 1e9, "bytes": b.get("bytes", 0.0) / 1e9,
                      "label": b.get("label", "")}
    return data.get("context", {}), rows


class Table:
    def __init__(self, rows):
        self.rows = rows

    def get(self, impl, op, dtype, form, dist, threads, n, counter="elements"):
        r = self.rows.get(f"{impl}/{op}/{dtype}/{form}/{dist}/{threads}/{n}")
        return None if r is None else r[counter]

    def copy(self, dtype, threads, n, counter="elements"):
        return self.get("copy", "copy", dtype, "-", "-", threads, n, counter)


def fmt(v, digits=3):
    return "—" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def md_table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(line) + " |" for line in lines]
    return "\n".join(out)


def forward_backward_tables(t, dtype, dists):
    out = []
    for op, title in (("fwd", "Forward"), ("bwd", "Backward")):
        header = ["threads", "n", "inputs"] + [f"ours {f}" for f in FORMS]
        if dtype == "f32":
            header += ["oneDNN erf", "oneDNN tanh"]
        header += ["naive erf", "copy"]
        if dtype == "f32":
            header += [f"ours/oneDNN {f}" for f in ONEDNN_FORMS]
        if op == "bwd":
            header += [f"bwd/fwd {f}" for f in FORMS]
        lines = []
        for threads in ("t1", "tall"):
            for n in SIZES:
                for dist in dists:
                    ours = [t.get("gelu", op, dtype, f, dist, threads, n) for f in FORMS]
                    if all(v is None for v in ours):
                        continue  # size or distribution filtered out of this run
                    line = ["1" if threads == "t1" else "all", size_name(n), dist] + [fmt(v) for v in ours]
                    dnn = []
                    if dtype == "f32":
                        dnn = [t.get("onednn", op, "f32", f, dist, threads, n) for f in ONEDNN_FORMS]
                        line += [fmt(v) for v in dnn]
                    line += [fmt(t.get("naive", op, dtype, "none", dist, threads, n)), fmt(t.copy(dtype, threads, n))]
                    if dtype == "f32":
                        line += [fmt(ratio(ours[FORMS.index(f)], d), 2) for f, d in zip(ONEDNN_FORMS, dnn)]
                    if op == "bwd":
                        line += [fmt(ratio(ours[i], t.get("gelu", "fwd", dtype, f, dist, threads, n)), 2)
                                 for i, f in enumerate(FORMS)]
                    lines.append(line)
        out.append(f"**{title} {dtype}** (Gelem/s; copy = memcpy of the same bytes, forward-sized: 2n values)\n\n"
                   + md_table(header, lines))
    return out


def memory_table(t, dists):
    header = ["function", "inputs", "ours GB/s", "copy GB/s", "ours/copy (bytes/s)"]
    lines = []
    n = SIZES[-1]
    for dtype in ("f32", "f64"):
        for op in ("fwd", "bwd"):
            for f in FORMS:
                for dist in dists:
                    ours = t.get("gelu", op, dtype, f, dist, "tall", n, "bytes")
                    cp = t.copy(dtype, "tall", n, "bytes")
                    if ours is None:
                        continue
                    lines.append([f"{op} {f} {dtype}", dist, fmt(ours, 2), fmt(cp, 2), fmt(ratio(ours, cp), 2)])
    return (f"**Memory-bound regime: {size_name(n)} elements, all threads** (bytes/s, read + written: forward 2n, "
            "backward 3n values; the copy moves 2n)\n\n" + md_table(header, lines))


def precision_table(t, dists):
    header = ["function", "threads", "n", "inputs", "f32 Gelem/s", "f64 Gelem/s", "f64/f32"]
    lines = []
    for threads in ("t1", "tall"):
        for n in (SIZES[1], SIZES[-1]):
            for op in ("fwd", "bwd"):
                for f in FORMS:
                    for dist in dists:
                        a = t.get("gelu", op, "f32", f, dist, threads, n)
                        b = t.get("gelu", op, "f64", f, dist, threads, n)
                        if a is None and b is None:
                            continue
                        lines.append([f"{op} {f}", "1" if threads == "t1" else "all", size_name(n), dist, fmt(a),
                                      fmt(b), fmt(ratio(b, a), 2)])
    return "**fp64 vs fp32** (element rates)\n\n" + md_table(header, lines)


def target_table(rows):
    # Fastest first, by the 64 Ki rate.
    targets = sorted({k.split("/")[1] for k in rows if k.startswith("BM_GeluF32/")},
                     key=lambda tgt: -rows.get(f"BM_GeluF32/{tgt}/{64 * KI}", {}).get("elements", 0.0))
    if not targets:
        return ""
    header = ["Highway target"] + [size_name(n) for n in SIZES]
    lines = []
    for tgt in targets:
        lines.append([tgt] + [fmt(rows.get(f"BM_GeluF32/{tgt}/{n}", {}).get("elements")) for n in SIZES])
    return ("**Per Highway target: fp32 forward none, N(0,1), 1 thread** (Gelem/s; each target forced with "
            "hwy::SetSupportedTargetsForTest)\n\n" + md_table(header, lines))


def torch_table(peers):
    header = ["op", "form", "threads", "n", "inputs", "ours Gelem/s", "PyTorch Gelem/s", "ours/PyTorch",
              "best: ours/PyTorch"]
    lines = [[r["op"], r["form"], "1" if r["threads"] == "t1" else "all", size_name(r["n"]), r["dist"],
              fmt(r["ours_gelem_s"]), fmt(r["torch_gelem_s"]), fmt(ratio(r["ours_gelem_s"], r["torch_gelem_s"]), 2),
              fmt(ratio(r.get("ours_best_gelem_s"), r.get("torch_best_gelem_s")), 2)]
             for r in peers["rows"]]
    return (f"**PyTorch {peers['torch']} (F.gelu, aten.gelu_backward) vs ours through ctypes**, one process, "
            f"median (and best) of {peers['repeats']} interleaved samples\n\n" + md_table(header, lines))


def target_values(t, peers, best):
    """The speed targets of the float32 issue (#9) as (what, goal, value, detail) rows, from one statistic.

    `baseline` is the library at the commit run_benchmarks.sh built beside this one (GELU_BASELINE_REV)."""
    del peers, best  # the PyTorch peer has its own table; no target here names it
    out = []

    def row(what, goal, a, b, detail_unit="Gelem/s"):
        r = ratio(a, b)
        out.append((what, goal, r, f"{fmt(a)} vs {fmt(b)} {detail_unit}"))

    n64 = 64 * KI
    for op, goals in (("fwd", {"normal": 2.2, "uniform": 2.5}), ("bwd", {"normal": 2.0, "uniform": 2.0})):
        for f in FORMS:
            for dist in ("normal", "uniform"):
                if op == "fwd" and dist == "uniform" and f != "none":
                    continue  # the issue sets no tail-heavy target for the approximations' forward
                row(f"f32 {op} {f} vs baseline, {dist}, 64 Ki, 1 thread", goals[dist],
                    t.get("gelu", op, "f32", f, dist, "t1", n64), t.get("baseline", op, "f32", f, dist, "t1", n64))
    row("f32 fwd none vs oneDNN gelu_erf, normal, 64 Ki, 1 thread", 2.0,
        t.get("gelu", "fwd", "f32", "none", "normal", "t1", n64),
        t.get("onednn", "fwd", "f32", "none", "normal", "t1", n64))
    for op in ("fwd", "bwd"):
        for f in FORMS:
            for dist in ("normal", "uniform"):
                key = f"{op}/f32/{f}/{dist}/t1/{n64}"
                a = t.rows.get(f"target/AVX2/gelu/{key}")
                b = t.rows.get(f"target/AVX2/baseline/{key}")
                row(f"AVX2 forced: f32 {op} {f} vs baseline's AVX2, {dist}, 64 Ki", 1.5,
                    a and a["elements"], b and b["elements"])
    n16 = 16 * KI * KI
    cp = t.copy("f32", "tall", n16, "bytes")
    for op in ("fwd", "bwd"):
        for f in FORMS:
            for dist, goal in (("normal", 0.95), ("uniform", 0.6)):
                row(f"f32 {op} {f} vs copy, bytes/s, {dist}, 16 Mi, all threads", goal,
                    t.get("gelu", op, "f32", f, dist, "tall", n16, "bytes"), cp, "GB/s")
    for op in ("fwd", "bwd"):
        for f in FORMS:
            row(f"f64 {op} {f} vs baseline (no slower), normal, 64 Ki, 1 thread", 1.0,
                t.get("gelu", op, "f64", f, "normal", "t1", n64), t.get("baseline", op, "f64", f, "normal", "t1", n64))
    return out


def targets_check(tmed, tbest, peers):
    """Status from the median; 'best only' where only the best repetition reaches the goal."""
    med = target_values(tmed, peers, best=False)
    best = target_values(tbest, peers, best=True) if tbest else [None] * len(med)
    lines = []
    for m, b in zip(med, best):
        what, goal, r, detail = m
        rb = b[2] if b else None
        if r is None:
            status = "n/a"
        elif r >= goal:
            status = "met"
        elif rb is not None and rb >= goal:
            status = "best only"
        else:
            status = f"**missed** ({r / goal:.0%} of goal)"
        lines.append([what, f">= {goal:g}", fmt(r, 2), fmt(rb, 2), status, detail])
    return ("**The float32 issue's speed targets** (ratio of medians, best repetition beside it; detail: "
            "median rates; baseline = the library at GELU_BASELINE_REV, same process)\n\n" + md_table(["target", "goal", "median", "best", "status", "detail (median)"], lines))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench_json")
    p.add_argument("--torch", help="JSON written by bench/peers_torch.py --json")
    p.add_argument("--stat", default="median", help="aggregate to use (median, mean, max)")
    p.add_argument("--dists", nargs="+", default=["normal", "uniform"])
    args = p.parse_args()
    context, rows = load(args.bench_json, args.stat)
    _, best_rows = load(args.bench_json, "max")
    if not rows:
        sys.exit(f"summarize: no '{args.stat}' rows in {args.bench_json}")
    peers = None
    if args.torch:
        with open(args.torch) as f:
            peers = json.load(f)
    t = Table(rows)
    parts = [f"Context: {context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
             f"gelu_simd_target {context.get('gelu_simd_target', '?')}, load average "
             f"{', '.join(f'{v:.2f}' for v in context.get('load_avg', []))}, statistic: {args.stat}"]
    parts.append(targets_check(t, Table(best_rows) if best_rows else None, peers))
    parts += forward_backward_tables(t, "f32", args.dists)
    parts.append(memory_table(t, args.dists))
    parts += forward_backward_tables(t, "f64", args.dists)
    parts.append(precision_table(t, args.dists))
    tt = target_table(rows)
    if tt:
        parts.append(tt)
    if peers:
        parts.append(torch_table(peers))
    print("\n\n".join(parts))


if __name__ == "__main__":
    main()
