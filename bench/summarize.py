#!/usr/bin/python3
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

KI = 1024
SIZES = [4 * KI, 64 * KI, KI * KI, 16 * KI * KI]
FORMS = ["none", "tanh", "sigmoid"]


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
            header += ["ours/oneDNN none", "ours/oneDNN tanh"]
        if op == "bwd":
            header += ["bwd/fwd none", "bwd/fwd tanh", "bwd/fwd sigmoid"]
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
                        dnn = [t.get("onednn", op, "f32", f, dist, threads, n) for f in ("none", "tanh")]
                        line += [fmt(v) for v in dnn]
                    line += [fmt(t.get("naive", op, dtype, "none", dist, threads, n)), fmt(t.copy(dtype, threads, n))]
                    if dtype == "f32":
                        line += [fmt(ratio(ours[0], dnn[0]), 2), fmt(ratio(ours[1], dnn[1]), 2)]
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
    """The issue's speed targets as (what, goal, value, detail) rows, on N(0,1) inputs, from one statistic."""
    out = []
    ours_key, torch_key = ("ours_best_gelem_s", "torch_best_gelem_s") if best else ("ours_gelem_s", "torch_gelem_s")

    def row(what, goal, a, b, detail_unit="Gelem/s"):
        r = ratio(a, b)
        out.append((what, goal, r, f"{fmt(a)} vs {fmt(b)} {detail_unit}"))

    n64 = 64 * KI
    fwd = {f: t.get("gelu", "fwd", "f32", f, "normal", "t1", n64) for f in FORMS}
    row("fp32 fwd none vs oneDNN gelu_erf, 64 Ki, 1 thread", 3.0, fwd["none"],
        t.get("onednn", "fwd", "f32", "none", "normal", "t1", n64))
    if peers:
        tr = [p for p in peers["rows"] if p["op"] == "fwd" and p["form"] == "none" and p["threads"] == "t1"
              and p["n"] == n64 and torch_key in p]
        if tr:
            row("fp32 fwd none vs PyTorch F.gelu, 64 Ki, 1 thread", 4.0, tr[0][ours_key], tr[0][torch_key])
    for f in ("tanh", "sigmoid"):
        row(f"fp32 fwd {f} vs our fwd none, 64 Ki, 1 thread", 1.0, fwd[f], fwd["none"])
    for f in FORMS:
        b = t.get("gelu", "bwd", "f32", f, "normal", "t1", n64)
        if f != "sigmoid":  # oneDNN has no sigmoid form
            row(f"fp32 bwd {f} vs oneDNN bwd {f}, 64 Ki, 1 thread", 2.0, b,
                t.get("onednn", "bwd", "f32", f, "normal", "t1", n64))
        row(f"fp32 bwd {f} vs our fwd {f}, 64 Ki, 1 thread", 0.6, b, fwd[f])
    n16 = 16 * KI * KI
    for dtype in ("f32", "f64"):
        cp = t.copy(dtype, "tall", n16, "bytes")
        for op in ("fwd", "bwd"):
            for f in FORMS:
                row(f"{dtype} {op} {f} vs copy, bytes/s, 16 Mi, all threads", 0.97,
                    t.get("gelu", op, dtype, f, "normal", "tall", n16, "bytes"), cp, "GB/s")
    for op in ("fwd", "bwd"):
        for f in FORMS:
            row(f"f64 {op} {f} vs f32, elements/s, 64 Ki, 1 thread", 0.3,
                t.get("gelu", op, "f64", f, "normal", "t1", n64), t.get("gelu", op, "f32", f, "normal", "t1", n64))
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
    return ("**The issue's speed targets** (N(0,1) inputs; ratio of medians, best-of-3 beside it; detail: "
            "median rates)\n\n" + md_table(["target", "goal", "median", "best", "status", "detail (median)"], lines))


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
