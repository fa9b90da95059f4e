#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the figures of `gelu plot` from CSV files that the gelu command computed with the library.

This script computes nothing about GELU itself: every value it draws comes from the CSV files (written by
tools/plot.cc from gelu::forward / gelu::derivative), so the figures show what the library returns.

  gelu_vs_relu.{png,svg}       f and f' on [-4, 4]: GELU (exact, tanh, sigmoid forms), ReLU, Leaky ReLU,
                               the minimum of GELU and the zero crossing of f' marked.
  gelu_approx_error.{png,svg}  each approximation minus the exact form (f and f'), and the float32 error in
                               ULP of our exact form vs the textbook 0.5*x*(1+erf(x/sqrt2)).

Exit status 3 when matplotlib is missing, 2 on bad arguments or input.
"""
import argparse
import csv
import os
import sys


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_gelu.py: {path} holds no rows")
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--curves", required=True)
    p.add_argument("--errors", required=True)
    p.add_argument("--ulps", required=True)
    p.add_argument("--min-x", type=float, required=True)
    p.add_argument("--min-y", type=float, required=True)
    p.add_argument("--leaky-slope", type=float, required=True)
    p.add_argument("--outdir", required=True)
    a = p.parse_args()
    try:
        import matplotlib
    except ImportError:
        print(f"plot_gelu.py: matplotlib is not installed for {sys.executable} "
              "(pip install matplotlib; the project's venv has it: scripts/install_python_env.sh)", file=sys.stderr)
        return 3
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    # Reproducible files: fixed SVG ids, no dates or version strings in the metadata.
    plt.rcParams.update({"svg.hashsalt": "gelu", "font.size": 10, "axes.grid": True, "grid.alpha": 0.3})
    png_meta = {"Software": None}
    svg_meta = {"Date": None, "Creator": None}

    c = read_csv(a.curves)
    e = read_csv(a.errors)
    u = read_csv(a.ulps)
    x = c["x"]
    os.makedirs(a.outdir, exist_ok=True)

    # ---- Figure 1: GELU vs ReLU vs Leaky ReLU, shape and gradient ----
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    leaky = f"Leaky ReLU (slope {a.leaky_slope:g})"
    ax1.plot(x, c["relu"], color="0.55", lw=1.3, ls="--", label="ReLU")
    ax1.plot(x, c["leaky"], color="0.3", lw=1.1, ls=":", label=leaky)
    ax1.plot(x, c["f_none"], color="C0", lw=2.4, label="GELU x·Φ(x) (exact)")
    ax1.plot(x, c["f_tanh"], color="C1", lw=1.3, ls="--", label="tanh form")
    ax1.plot(x, c["f_sigmoid"], color="C2", lw=1.3, ls="-.", label="sigmoid form x·σ(1.702x)")
    ax1.plot([a.min_x], [a.min_y], "o", color="C3", ms=7, zorder=5)
    ax1.annotate(f"minimum\nx = {a.min_x:.4f}\nf = {a.min_y:.4f}", xy=(a.min_x, a.min_y), xytext=(-3.9, 0.9),
                 arrowprops=dict(arrowstyle="->", color="C3"), color="C3")
    ax1.set(title="f(x)", xlabel="x", xlim=(-4, 4), ylim=(-0.6, 4.1))
    ax1.axhline(0, color="k", lw=0.6)
    ax1.legend(loc="upper left", fontsize=9)

    ax2.step(x, c["d_relu"], where="post", color="0.55", lw=1.3, ls="--", label="ReLU")
    ax2.step(x, c["d_leaky"], where="post", color="0.3", lw=1.1, ls=":", label=leaky)
    ax2.plot(x, c["d_none"], color="C0", lw=2.4, label="GELU (exact)")
    ax2.plot(x, c["d_tanh"], color="C1", lw=1.3, ls="--", label="tanh form")
    ax2.plot(x, c["d_sigmoid"], color="C2", lw=1.3, ls="-.", label="sigmoid form")
    ax2.axhline(0, color="k", lw=0.8)
    ax2.axvline(a.min_x, color="C3", lw=0.8, ls=":")
    ax2.plot([a.min_x], [0.0], "o", color="C3", ms=7, zorder=5)
    ax2.annotate(f"f'(x) = 0 at x = {a.min_x:.4f}\n(f' < 0 left of it)", xy=(a.min_x, 0.0), xytext=(-3.9, 0.55),
                 arrowprops=dict(arrowstyle="->", color="C3"), color="C3")
    ax2.set(title="f'(x)", xlabel="x", xlim=(-4, 4), ylim=(-0.25, 1.25))
    ax2.legend(loc="upper left", fontsize=9)
    fig.suptitle("GELU vs ReLU vs Leaky ReLU: shape and gradient (values from the gelu library, float64)")
    fig.tight_layout()
    written = []
    for ext, meta in (("png", png_meta), ("svg", svg_meta)):
        path = os.path.join(a.outdir, f"gelu_vs_relu.{ext}")
        fig.savefig(path, dpi=120, metadata=meta)
        written.append(path)
    plt.close(fig)

    # ---- Figure 2: error of each approximation against exact GELU ----
    fig, (b1, b2, b3) = plt.subplots(1, 3, figsize=(15, 4.5))
    # |difference| on a log axis: the tanh form is ~40x closer than the sigmoid form, invisible on a linear one.
    tiny = 1e-12
    b1.semilogy(e["x"], [max(abs(v), tiny) for v in e["e_tanh"]], color="C1", label="|tanh form − exact|")
    b1.semilogy(e["x"], [max(abs(v), tiny) for v in e["e_sigmoid"]], color="C2", label="|sigmoid form − exact|")
    b1.set(title="forward: |f_approx(x) − f(x)|", xlabel="x", ylim=(1e-9, 0.1))
    b1.legend(fontsize=9, loc="lower center")
    b2.semilogy(e["x"], [max(abs(v), tiny) for v in e["de_tanh"]], color="C1", label="|tanh form − exact|")
    b2.semilogy(e["x"], [max(abs(v), tiny) for v in e["de_sigmoid"]], color="C2", label="|sigmoid form − exact|")
    b2.set(title="backward: |f'_approx(x) − f'(x)|", xlabel="x", ylim=(1e-9, 0.1))
    b2.legend(fontsize=9, loc="lower center")
    # ULP errors of 0 cannot be drawn on a log axis: floor them at 1e-2 (stated in the label).
    floor = 1e-2
    b3.semilogy(u["x"], [max(v, floor) for v in u["ulp_naive"]], color="C3", lw=1.0,
                label="naive 0.5f·x·(1+erff(x/√2))")
    b3.semilogy(u["x"], [max(v, floor) for v in u["ulp_gelu"]], color="C0", lw=1.0, label="gelu (exact form)")
    b3.axhline(1, color="k", lw=0.6, ls="--")
    b3.set(title="float32 exact form: error in ULP (floored at 0.01)", xlabel="x", ylabel="ULP")
    b3.legend(fontsize=9, loc="center right")
    fig.suptitle("Error of each approximation against exact GELU (values from the gelu library)")
    fig.tight_layout()
    for ext, meta in (("png", png_meta), ("svg", svg_meta)):
        path = os.path.join(a.outdir, f"gelu_approx_error.{ext}")
        fig.savefig(path, dpi=120, metadata=meta)
        written.append(path)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
