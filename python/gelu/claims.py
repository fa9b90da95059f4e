# SPDX-License-Identifier: Apache-2.0
"""Checks four common claims about GELU by re-running the GELU paper's MNIST experiment on Fashion-MNIST.

    PYTHONPATH=build/python python -m gelu.claims [-o DIR] [--epochs N] [--seeds N] [--subset N]
                                                      [--paper] [--jobs N] [--threads N] [--no-progress]

The experiment is Figure 3 of Hendrycks & Gimpel (2016) as their code runs it (hendrycks/GELUs, mnist_fcn.py):
8 hidden layers of 128 units, weight rows of unit norm and zero biases, Adam, batch 128, dropout 0 and 0.5 after
every hidden layer, the learning rate tuned over {1e-3, 1e-4, 1e-5} on 5000 validation images, 50 epochs, five
runs, median curves. Here: Fashion-MNIST (Debian's dataset-fashion-mnist; MNIST itself is not packaged), GELU
through gelu.torch (exact, tanh and sigmoid forms), ReLU and ELU from torch. The default is a shorter run (see
DEFAULT); --paper is the paper's settings. docs/CLAIMS.md has the method and what differs from the paper.

Writes DIR/report.md (settings, results, dead units, cost, and "Claims checked": each claim, the measurement and
a verdict computed from this run's numbers), DIR/results.json (every curve) and DIR/loss_curves.{png,svg}.
Nothing is written until every run has finished, so a failed or interrupted run leaves no partial report.
"""
import argparse
import gzip
import json
import multiprocessing
import os
import queue
import statistics
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

import gelu
import gelu.torch as gelu_torch
from gelu.speed import FORMS, cases, cpu_model, measure

DATA_DIR = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist
EXACT = FORMS[0]  # "none": gelu_approximate 0, the exact GELU; the other forms are its approximations
# Rows: our GELU forms (gelu.torch; "gelu" is the exact one, "gelu-<form>" the others), then torch's ReLU and ELU
# (alpha = 1, as in the paper).
GELU_FORMS = {("gelu" if f == EXACT else f"gelu-{f}"): f for f in FORMS}
APPROXIMATE_GELUS = tuple(a for a, f in GELU_FORMS.items() if f != EXACT)  # "gelu-tanh", "gelu-sigmoid"
ACTIVATIONS = (*GELU_FORMS, "relu", "elu")
DROPOUTS = (0.0, 0.5)
HIDDEN_LAYERS, WIDTH, BATCH = 8, 128, 128
VALIDATION_IMAGES = 5000  # the first 5000 training images, as TensorFlow's MNIST loader the paper used
TRAIN_LOSS_IMAGES = 10000  # training images on which each epoch's training loss is measured (eval mode)
# Claim 2: a unit is dead when |f'(pre-activation)| < DEAD_GRADIENT for every training image: it passes back less
# than a thousandth of the gradient that reaches it. For ReLU, f' is 0 or 1, so this is "zero for every input".
DEAD_GRADIENT = 1e-3
# Claim 3: the exact form is "expensive" when it costs at least this many times the cheaper approximation.
EXPENSIVE = 1.25
COST_ELEMENTS = 64 << 10  # one activation tensor of a few hundred rows of 128: in cache, as in training
DEFAULT = {"epochs": 10, "seeds": 3, "subset": None, "lrs": (1e-3,)}
PAPER = {"epochs": 50, "seeds": 5, "subset": None, "lrs": (1e-3, 1e-4, 1e-5)}

HOLDS, HOLDS_HERE, FAILS = "holds", "holds here but not in general", "does not hold"


class UsageError(Exception):
    """A bad argument or missing input: reported as one line, exit status 2."""


# ---------------------------------------------------------------------------------------------------- data

def read_idx(path):
    """An IDX file (the MNIST format, gzip-compressed) as a numpy array."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise UsageError(f"{path} not found: install Debian's dataset-fashion-mnist (scripts/install_deps.sh) "
                         f"or name its directory with --data") from None
    except (OSError, EOFError) as e:
        raise UsageError(f"cannot read {path}: {e}") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:  # 0x08: unsigned bytes
        raise UsageError(f"{path} is not an IDX file of unsigned bytes")
    dims = tuple(int(d) for d in np.frombuffer(raw, ">u4", raw[3], 4))
    data = np.frombuffer(raw, np.uint8, offset=4 + 4 * len(dims))
    if data.size != int(np.prod(dims)):
        raise UsageError(f"{path}: header says {dims}, file holds {data.size} values")
    return data.reshape(dims)


def load_data(data_dir, subset):
    """{"train", "validation", "test"}: (images float32 [n, 784] in [0, 1], labels int64), each cut to subset."""
    def split(prefix):
        images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
        labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
        if images.shape[0] != labels.shape[0] or images.shape[1:] != (28, 28):
            raise UsageError(f"{data_dir}: {prefix} images {images.shape} and labels {labels.shape} do not match")
        return (torch.from_numpy(images.reshape(len(images), -1).astype(np.float32) / 255),
                torch.from_numpy(labels.astype(np.int64)))

    (x, y), test = split("train"), split("t10k")
    parts = {"validation": (x[:VALIDATION_IMAGES], y[:VALIDATION_IMAGES]),
             "train": (x[VALIDATION_IMAGES:], y[VALIDATION_IMAGES:]), "test": test}
    return {k: (a[:subset], b[:subset]) for k, (a, b) in parts.items()}


# ---------------------------------------------------------------------------------------------------- model

def make_activation(name):
    if name in GELU_FORMS:
        return gelu_torch.GELU(GELU_FORMS[name])
    return {"relu": nn.ReLU, "elu": nn.ELU}[name]()


class FullyConnected(nn.Module):
    """The paper's classifier: HIDDEN_LAYERS x (Linear, activation, Dropout), then a Linear to 10 classes."""

    def __init__(self, activation, dropout):
        super().__init__()
        widths = [28 * 28] + [WIDTH] * HIDDEN_LAYERS + [10]
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        for lin in self.linears:  # as the paper's code: each unit's weight vector of unit norm, biases zero
            with torch.no_grad():
                w = torch.randn_like(lin.weight)
                lin.weight.copy_(w / w.norm(dim=1, keepdim=True))
                lin.bias.zero_()
        self.activation = make_activation(activation)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = self.dropout(self.activation(lin(x)))
        return self.linears[-1](x)

    @torch.no_grad()
    def preactivations(self, x):
        """Each hidden layer's input to the activation, without dropout."""
        out = []
        for lin in self.linears[:-1]:
            z = lin(x)
            out.append(z)
            x = self.activation(z)
        return out


def gradient_factor(activation, z):
    """f'(z) elementwise, by autograd through the activation module (for GELU: the library's backward)."""
    with torch.enable_grad():
        z = z.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(activation(z), z, torch.ones_like(z))
    return g


def dead_fractions(model, images, chunk=5000):
    """Per hidden layer, the fraction of units with |f'(z)| < DEAD_GRADIENT for every image."""
    most = torch.zeros(HIDDEN_LAYERS, WIDTH)  # max over images of |f'(z)|, per unit
    for i in range(0, len(images), chunk):
        for layer, z in enumerate(model.preactivations(images[i:i + chunk])):
            most[layer] = torch.maximum(most[layer], gradient_factor(model.activation, z).abs().amax(0))
    return (most < DEAD_GRADIENT).float().mean(1).tolist()


def dead_zone_edge(name):
    """The x below which |f'(x)| < DEAD_GRADIENT, for each activation: a unit whose pre-activations all lie
    below it counts as dead. (float64 grid of step 1e-4.)"""
    x = torch.arange(-30.0, 0.0, 1e-4, dtype=torch.float64)
    live = (gradient_factor(make_activation(name), x).abs() >= DEAD_GRADIENT).nonzero()
    return float(x[live[0, 0]]) if len(live) else 0.0


# ---------------------------------------------------------------------------------------------------- training

@torch.no_grad()
def evaluate(model, images, labels):
    model.eval()
    logits = model(images)
    return F.cross_entropy(logits, labels).item(), (logits.argmax(1) == labels).float().mean().item()


def train_run(spec, data, epochs, on_epoch=lambda: None):
    """One training run; spec = (activation, dropout, lr, seed). Returns its curves (index 0: before training)."""
    activation, dropout, lr, seed = spec
    run_cpu = time.process_time()
    torch.manual_seed(seed)  # the same seed gives every activation the same weights, batches and dropout masks
    model = FullyConnected(activation, dropout)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    (x, y), (xv, yv), (xt, yt) = data["train"], data["validation"], data["test"]
    xe, ye = x[:TRAIN_LOSS_IMAGES], y[:TRAIN_LOSS_IMAGES]
    curves = {k: [] for k in ("train_loss", "train_acc", "validation_loss", "test_loss", "test_acc",
                              "epoch_cpu_s")}

    def record():
        for name, (a, b) in (("train", (xe, ye)), ("validation", (xv, yv)), ("test", (xt, yt))):
            loss, acc = evaluate(model, a, b)
            if not np.isfinite(loss):
                raise RuntimeError(f"{activation} dropout {dropout} lr {lr} seed {seed}: {name} loss is {loss}")
            curves[f"{name}_loss"].append(loss)
            if name != "validation":
                curves[f"{name}_acc"].append(acc)

    record()
    for _ in range(epochs):
        cpu = time.process_time()
        model.train()
        for idx in torch.randperm(len(x)).split(BATCH):
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        curves["epoch_cpu_s"].append(time.process_time() - cpu)
        record()
        on_epoch()
    model.eval()
    dead = dead_fractions(model, x)
    return {"activation": activation, "dropout": dropout, "lr": lr, "seed": seed, **curves, "dead_fraction": dead,
            "cpu_s": time.process_time() - run_cpu}


_worker = {}  # per worker process: its data and progress queue


def _worker_init(data_dir, subset, threads, progress):
    _set_threads(threads)
    _worker.update(data=load_data(data_dir, subset), progress=progress)


def _worker_run(spec, epochs):
    return train_run(spec, _worker["data"], epochs, on_epoch=lambda: _worker["progress"].put(1))


def _set_threads(threads):
    torch.set_num_threads(threads)
    gelu.set_num_threads(threads)


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, a line per 10% otherwise)."""

    def __init__(self, total, enabled):
        self.total, self.done, self.enabled = total, 0, enabled
        self.start, self.tty, self.shown = time.monotonic(), sys.stderr.isatty(), -1

    def advance(self, n=1):
        self.done += n
        if not self.enabled:
            return
        frac = self.done / self.total
        if not self.tty and int(frac * 10) == self.shown:
            return
        self.shown = int(frac * 10)
        elapsed = time.monotonic() - self.start
        left = f", ~{_duration(elapsed / frac * (1 - frac))} left" if 0 < frac < 1 else ""
        line = f"claims: [{'#' * int(frac * 30):<30}] {self.done}/{self.total} epochs, {_duration(elapsed)}{left}"
        end = "\n" if not self.tty or self.done == self.total else ""
        sys.stderr.write(("\r\033[K" if self.tty else "") + line + end)
        sys.stderr.flush()


def _duration(s):
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.1f} min"


def run_all(specs, data, args, epochs):
    """Every run of specs, in --jobs processes (or this one for --jobs 1); their results in specs' order."""
    bar = Progress(len(specs) * epochs, args.progress)
    if args.jobs == 1:
        _set_threads(args.threads)
        return [train_run(s, data, epochs, on_epoch=bar.advance) for s in specs]
    # spawn: a forked child would inherit torch's and OpenMP's thread pools in an undefined state.
    ctx = multiprocessing.get_context("spawn")
    progress = ctx.Manager().Queue()
    with ctx.Pool(args.jobs, _worker_init, (args.data, args.subset, args.threads, progress)) as pool:
        pending = [pool.apply_async(_worker_run, (s, epochs)) for s in specs]
        while not all(p.ready() for p in pending):
            try:
                bar.advance(progress.get(timeout=0.5))
            except queue.Empty:
                pass
        results = [p.get() for p in pending]  # re-raises a worker's exception
    while bar.done < bar.total:  # epochs reported after the last poll
        bar.advance(progress.get())
    return results


# ---------------------------------------------------------------------------------------------------- analysis

def spread(values):
    """(median, min, max)."""
    return statistics.median(values), min(values), max(values)


def select(results, lrs):
    """{(activation, dropout): runs at the learning rate with the lowest median final validation loss}."""
    chosen = {}
    for a in ACTIVATIONS:
        for d in DROPOUTS:
            by_lr = {lr: [r for r in results if (r["activation"], r["dropout"], r["lr"]) == (a, d, lr)]
                     for lr in lrs}
            best = min(lrs, key=lambda lr: statistics.median(r["validation_loss"][-1] for r in by_lr[lr]))
            chosen[a, d] = sorted(by_lr[best], key=lambda r: r["seed"])
    return chosen


def final(runs, key):
    return [r[key][-1] for r in runs]


def gap(runs):
    """Per run: final test loss minus final training loss (both in eval mode, no dropout)."""
    return [r["test_loss"][-1] - r["train_loss"][-1] for r in runs]


def measure_cost():
    """{(impl, form, op): seconds per call} on COST_ELEMENTS float32 N(0, 1) inputs, 1 thread, best of 5
    interleaved rounds of the calling thread's CPU time."""
    _set_threads(1)
    out = {}
    for form in FORMS:
        pairs = cases(COST_ELEMENTS, form)
        for op in ("forward", "backward"):
            for impl, t in measure(pairs[op], rounds=5, min_time=0.02, clock=time.thread_time).items():
                out[impl, form, op] = t
    return out


def approximation_error():
    """{form: max |form(x) - exact(x)|} over x in [-10, 10] (float64, step 1e-4), from the library."""
    x = np.arange(-10.0, 10.0, 1e-4)
    exact = gelu.forward(x, EXACT)
    return {f: float(np.abs(gelu.forward(x, f) - exact).max()) for f in FORMS if f != EXACT}


def fmt_spread(values, digits=3, scale=1.0):
    m, lo, hi = spread([v * scale for v in values])
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


# Each claim's verdict from its numbers alone, without training or timing anything: check_claims computes the
# numbers from a run and passes them here. The rules are those of docs/CLAIMS.md ("Verdicts"), and
# python/tests/test_claims.py flips each of them on synthetic numbers either side of its threshold.

def verdict_outperforms(train, acc):
    """Claim 1. train, acc: {(activation, dropout): [final training loss, resp. test accuracy, per seed in seed
    order]} for gelu, relu and elu at every dropout in DROPOUTS. Does not hold if GELU's median training loss (the
    paper's metric) is not below a rival's at some dropout; holds here but not in general if it is, but GELU's
    median test accuracy is not above a rival's, or some paired seed does not beat the rival on both; holds
    otherwise. Returns (verdict, [what GELU loses])."""
    lost_metric, lost_other = [], []
    for d in DROPOUTS:
        for rival in ("relu", "elu"):
            gl, rl, ga, ra = train["gelu", d], train[rival, d], acc["gelu", d], acc[rival, d]
            if statistics.median(gl) >= statistics.median(rl):
                lost_metric.append(f"training loss vs {rival} at dropout {d:g}")
            if statistics.median(ga) <= statistics.median(ra):
                lost_other.append(f"test accuracy vs {rival} at dropout {d:g}")
            seed_wins = sum(a < b and c > e for a, b, c, e in zip(gl, rl, ga, ra))
            if seed_wins < len(gl):
                lost_other.append(f"{len(gl) - seed_wins} of {len(gl)} seeds (loss and accuracy) vs {rival} at "
                                  f"dropout {d:g}")
    return (FAILS if lost_metric else HOLDS_HERE if lost_other else HOLDS), lost_metric + lost_other


def verdict_dead_units(dead):
    """Claim 2. dead: {activation: the largest, over layers and dropout settings, median over seeds of the fraction
    of dead units} for gelu and relu. Does not hold if some layer has dead GELU units (a fraction above 0); holds
    if none has and ReLU has dead units somewhere (the contrast the claim states); holds here but not in general if
    neither has any (no GELU unit died, but this run does not show ReLU's)."""
    if dead["gelu"] > 0:
        return FAILS
    return HOLDS if dead["relu"] > 0 else HOLDS_HERE


def verdict_expensive(ratios):
    """Claim 3a. ratios: {implementation: {"forward": r, "backward": r}}, r = the exact form's time over the cheaper
    approximation's. An implementation finds the exact form expensive when r >= EXPENSIVE for both ops. Holds if
    every implementation does, holds here but not in general if some do, does not hold if none does."""
    n = sum(all(r >= EXPENSIVE for r in ops.values()) for ops in ratios.values())
    return HOLDS if n == len(ratios) else HOLDS_HERE if n > 0 else FAILS


def verdict_approximations(acc):
    """Claim 3b. acc: {(activation, dropout): [final test accuracy per seed]} for gelu and APPROXIMATE_GELUS at
    every dropout. For each approximation and dropout, diff = its median minus exact GELU's and noise = the larger
    of the two seed ranges (max - min); does not hold if some |diff| > noise, holds otherwise. Returns
    (verdict, [(form, dropout, diff, noise)], [the cases outside seed noise])."""
    cases, outside = [], []
    for form in APPROXIMATE_GELUS:
        for d in DROPOUTS:
            e, f = acc["gelu", d], acc[form, d]
            noise = max(max(e) - min(e), max(f) - min(f))
            diff = statistics.median(f) - statistics.median(e)
            cases.append((form, d, diff, noise))
            if abs(diff) > noise:
                outside.append(f"{form} at dropout {d:g}")
    return (FAILS if outside else HOLDS), cases, outside


def verdict_regularizes(gaps):
    """Claim 4. gaps: {(activation, dropout): median final test loss minus training loss} for gelu, relu and elu at
    dropout 0 and 0.5. Does not hold if GELU's gap without dropout is not the smallest of the three; holds here but
    not in general if it is but dropout 0.5 still shrinks it (GELU itself adds no noise); holds if it is and
    dropout does not shrink it."""
    smallest = gaps["gelu", 0.0] < min(gaps["relu", 0.0], gaps["elu", 0.0])
    shrinks = gaps["gelu", 0.0] - gaps["gelu", 0.5] > 0
    return FAILS if not smallest else HOLDS_HERE if shrinks else HOLDS


def check_claims(chosen, cost, approx_err, edges):
    """[(claim, measurement, verdict)], every number and verdict from this run's results."""
    med = {k: {"train": statistics.median(final(v, "train_loss")), "acc": statistics.median(final(v, "test_acc")),
               "gap": statistics.median(gap(v))} for k, v in chosen.items()}
    train = {k: final(v, "train_loss") for k, v in chosen.items()}
    acc = {k: final(v, "test_acc") for k, v in chosen.items()}
    rows = []

    # 1. The paper's metric is the training loss; "consistently" also asks for test accuracy and every seed.
    verdict, losses = verdict_outperforms(train, acc)
    notes = [f"dropout {d:g}: final training loss " + ", ".join(
        f"{a} {med[a, d]['train']:.4f}" for a in ("gelu", "relu", "elu")) + "; test accuracy " + ", ".join(
        f"{a} {100 * med[a, d]['acc']:.2f}%" for a in ("gelu", "relu", "elu")) for d in DROPOUTS]
    rows.append(("1. GELU consistently outperforms ReLU and its variants (paper: lowest median training loss)",
                 "Medians over seeds. " + "; ".join(notes) + ". GELU loses: " + ("; ".join(losses) or "nothing")
                 + ".", verdict))

    # 2. Dead units.
    dead = {a: max(max(statistics.median(r["dead_fraction"][layer] for r in chosen[a, d])
                       for layer in range(HIDDEN_LAYERS)) for d in DROPOUTS) for a in ("gelu", "relu", "elu")}
    rows.append(("2. GELU has no dead neurons, unlike ReLU",
                 f"Largest per-layer median fraction of units with |f'(z)| < {DEAD_GRADIENT:g} on every training "
                 "image: " + ", ".join(f"{a} {100 * dead[a]:.1f}%" for a in dead) + ". A unit is that dead "
                 "whenever all its pre-activations lie below " + ", ".join(
                     f"{a} {edges[a]:.2f}" for a in ("gelu", "relu", "elu")) + ", so GELU units can die too; "
                 "the verdict counts those that did.", verdict_dead_units(dead)))

    # 3a. Cost of the exact form against the cheaper approximation, per implementation and op.
    ratios = {impl: {op: cost[impl, EXACT, op] / min(cost[impl, f, op] for f in FORMS if f != EXACT)
                     for op in ("forward", "backward")} for impl in ("torch", "ours")}
    shown = [f"{'PyTorch' if impl == 'torch' else 'this library'} {r['forward']:.2f}x forward, "
             f"{r['backward']:.2f}x backward" for impl, r in ratios.items()]
    epoch = {a: statistics.median(t for d in DROPOUTS for run in chosen[a, d] for t in run["epoch_cpu_s"])
             for a in (*GELU_FORMS, "relu")}
    rows.append(("3a. erf is expensive, hence the tanh and sigmoid approximations",
                 f"Exact form's time over the cheaper approximation's ({COST_ELEMENTS >> 10} Ki float32, 1 thread; "
                 f"expensive = at least {EXPENSIVE:g}x): " + "; ".join(shown) + ". Whole training epoch (CPU s, "
                 "median): " + ", ".join(f"{a} {t:.2f}" for a, t in epoch.items()) + ".",
                 verdict_expensive(ratios)))

    # 3b. The approximations' error against training outcomes, within seed noise?
    verdict, cases, outside = verdict_approximations(acc)
    notes = [f"{form} dropout {d:g}: {100 * diff:+.2f} points (seed range {100 * noise:.2f})"
             for form, d, diff, noise in cases]
    rows.append(("3b. The approximations cost a little precision that does not matter for training",
                 "Max |approximation - exact| on [-10, 10]: " + ", ".join(
                     f"{f} {v:.2g}" for f, v in approx_err.items()) + ". Median test accuracy against exact GELU: "
                 + "; ".join(notes) + ". Outside seed noise: " + (", ".join(outside) or "none") + ".", verdict))

    # 4. Regularization: the train-test gap without dropout, and what dropout still adds.
    g0 = {a: med[a, 0.0]["gap"] for a in ("gelu", "relu", "elu")}
    drop_gain = {a: med[a, 0.0]["gap"] - med[a, 0.5]["gap"] for a in ("gelu", "relu", "elu")}
    rows.append(("4. GELU regularizes (the stochastic-gating reading of it)",
                 "Median test loss minus training loss, no dropout: " + ", ".join(
                     f"{a} {v:.4f}" for a, v in g0.items()) + "; how much dropout 0.5 shrinks it: " + ", ".join(
                     f"{a} {v:.4f}" for a, v in drop_gain.items()) + ".",
                 verdict_regularizes({k: v["gap"] for k, v in med.items()})))
    return rows


# ---------------------------------------------------------------------------------------------------- output

STYLE = {"gelu": ("C0", "-"), "gelu-tanh": ("C9", "--"), "gelu-sigmoid": ("C4", ":"), "relu": ("C1", "-"),
         "elu": ("C2", "-")}


def write_figures(chosen, outdir, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "gelu-claims"  # reproducible SVG ids

    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True, sharey="row", constrained_layout=True)
    for col, d in enumerate(DROPOUTS):
        for row, key in enumerate(("train_loss", "test_loss")):
            ax = axes[row, col]
            for a in ACTIVATIONS:
                curves = np.array([r[key] for r in chosen[a, d]])
                epochs = np.arange(curves.shape[1])
                color, ls = STYLE[a]
                ax.plot(epochs, np.median(curves, 0), color=color, ls=ls, lw=1.6, label=a)
                ax.fill_between(epochs, curves.min(0), curves.max(0), color=color, alpha=0.15, lw=0)
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(f"{'training' if key == 'train_loss' else 'test'} log loss, dropout {d:g}")
            if row == 1:
                ax.set_xlabel("epoch")
    axes[0, 0].legend(title="median, band: min-max over seeds")
    fig.suptitle(title)
    names = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, f"loss_curves.{ext}")
        fig.savefig(path, dpi=110, metadata={"Date": None} if ext == "svg" else None)
        names.append(path)
    plt.close(fig)
    return names


def md_table(header, rows, align=None):
    cell = lambda c: str(c).replace("|", "\\|")  # noqa: E731  (|x| in a cell would end it)
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
                     + ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows])


def claims_table(claims):
    return md_table(["claim", "measurement", "verdict"], [(c, m, f"**{v}**") for c, m, v in claims], ["---"] * 3)


def write_report(res, chosen, claims, outdir):
    s = res["settings"]
    cpu = sum(r["cpu_s"] for r in res["runs"])
    lines = ["# GELU claims checked", "",
             f"Command: `{res['command']}`  ", f"Machine: {res['machine']}  ",
             f"Run time: {_duration(res['wall_s'])} with {s['jobs']} processes of {s['threads']} thread(s); "
             f"the runs' CPU time {_duration(cpu)} (= {_duration(cpu / 2)} on 2 idle cores); load average "
             f"{res['load_before']} before, {res['load_after']} after  ",
             f"Settings: Fashion-MNIST, {s['train_images']} training / {s['validation_images']} validation / "
             f"{s['test_images']} test images; {HIDDEN_LAYERS} hidden layers of {WIDTH}, Adam, batch {BATCH}, "
             f"{s['epochs']} epochs, seeds {s['seeds']}, learning rates {s['lrs']} (chosen per row by median "
             f"final validation loss), dropout {list(DROPOUTS)}.", "",
             "## Claims checked", "", claims_table(claims), "",
             "Verdicts: *holds* (the measurement supports the claim as stated), *holds here but not in general* "
             "(supported in this run, but the numbers show where it breaks or that it depends on the "
             "implementation), *does not hold*.", "",
             "## Results", "",
             "Final values, median [min, max] over seeds; losses are cross-entropy in eval mode (no dropout), "
             f"training loss on the first {TRAIN_LOSS_IMAGES} training images; gap = test - training loss.", ""]
    rows = []
    for d in DROPOUTS:
        for a in ACTIVATIONS:
            runs = chosen[a, d]
            rows.append([a, f"{d:g}", f"{runs[0]['lr']:g}", fmt_spread(final(runs, "train_loss"), 4),
                         fmt_spread(final(runs, "test_loss"), 4), fmt_spread(final(runs, "test_acc"), 2, 100),
                         fmt_spread(gap(runs), 4),
                         f"{statistics.median(t for r in runs for t in r['epoch_cpu_s']):.2f}"])
    lines += [md_table(["activation", "dropout", "lr", "training loss", "test loss", "test accuracy %", "gap",
                        "epoch CPU s"], rows), "", "![loss curves](loss_curves.png)", "",
              "## Dead units", "",
              f"Per hidden layer, median over seeds of the fraction of units with |f'(pre-activation)| < "
              f"{DEAD_GRADIENT:g} for every training image (for ReLU: zero output for every image). "
              "Dead-zone edge: the x below which |f'(x)| is under the threshold.", ""]
    rows = [[a, f"{d:g}", f"{res['dead_zone_edge'][a]:.2f}"]
            + [f"{100 * statistics.median(r['dead_fraction'][layer] for r in chosen[a, d]):.1f}%"
               for layer in range(HIDDEN_LAYERS)] for d in DROPOUTS for a in ACTIVATIONS]
    lines += [md_table(["activation", "dropout", "dead-zone edge"] + [f"layer {i + 1}" for i in range(HIDDEN_LAYERS)],
                       rows), "",
              "## Cost", "",
              f"Microseconds per call on {COST_ELEMENTS >> 10} Ki float32 N(0, 1) inputs, 1 thread, the best of 5 "
              "interleaved rounds of thread CPU time (gelu.speed; bench/python_vs_torch.py has the full table). "
              "PyTorch's sigmoid column is the eager x * sigmoid(1.702 x). The GPU kernels' speed beside PyTorch's: "
              "docs/CUDA.md (measured there, not part of this experiment).", ""]
    cost = res["cost"]
    rows = [[impl, op] + [f"{1e6 * cost[f'{impl}/{f}/{op}']:.1f}" for f in FORMS]
            for impl in ("ours", "torch") for op in ("forward", "backward")]
    lines += [md_table(["implementation", "op"] + [f"{f} us" for f in FORMS], rows), ""]
    path = os.path.join(outdir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def machine():
    return (f"{cpu_model()}, {os.cpu_count()} CPUs; torch {torch.__version__}, gelu {gelu.__version__} "
            f"({gelu.simd_target()})")


def load_average():
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


# ---------------------------------------------------------------------------------------------------- main

def parse_args(argv):
    def describe(c):
        return (f"{c['epochs']} epochs, {c['seeds']} seeds, {c['subset'] or 'all'} images per split, learning "
                f"rates {', '.join(f'{lr:g}' for lr in c['lrs'])}")

    p = argparse.ArgumentParser(prog="python3 -m gelu.claims", description=__doc__.split("\n")[0],
                                epilog=f"Default: {describe(DEFAULT)}. --paper: {describe(PAPER)}.")
    p.add_argument("-o", "--outdir", default="gelu-claims", help="output directory (default: %(default)s)")
    p.add_argument("--paper", action="store_true", help="the paper's settings (hours on 2 cores)")
    p.add_argument("--epochs", type=int, help="training epochs per run")
    p.add_argument("--seeds", type=int, help="runs per activation and dropout setting")
    p.add_argument("--subset", type=int, help="use at most N images of each split (training, validation, test)")
    p.add_argument("--lr", type=float, nargs="+", dest="lrs", help="learning rates to tune over")
    p.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                   help="training processes in parallel (default: the CPUs this process may use, %(default)s)")
    p.add_argument("--threads", type=int, default=1, help="torch and gelu threads per process (default: 1)")
    p.add_argument("--data", default=DATA_DIR, help="directory of the Fashion-MNIST .gz files (default: %(default)s)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar on stderr")
    args = p.parse_args(argv)
    for k, v in (PAPER if args.paper else DEFAULT).items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    for k in ("epochs", "seeds", "jobs", "threads"):
        if getattr(args, k) < 1:
            p.error(f"--{k} must be at least 1, got {getattr(args, k)}")
    if args.subset is not None and args.subset < 2:
        p.error(f"--subset must be at least 2, got {args.subset}")
    if any(not (0 < lr < 1) for lr in args.lrs):
        p.error(f"--lr values must lie in (0, 1), got {args.lrs}")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        return _run(args, argv if argv is not None else sys.argv[1:])
    except UsageError as e:
        print(f"gelu.claims: {e}", file=sys.stderr)
        return 2


def _run(args, argv):
    # Fail on a bad output directory or missing data now, not after the training.
    if os.path.exists(args.outdir) and not os.path.isdir(args.outdir):
        raise UsageError(f"output directory {args.outdir} exists and is not a directory")
    data = load_data(args.data, args.subset)
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create output directory {args.outdir}: {e.strerror}") from None
    if not os.access(args.outdir, os.W_OK):
        raise UsageError(f"output directory {args.outdir} is not writable")
    sizes = {f"{k}_images": len(v[0]) for k, v in data.items()}

    t0, load_before = time.monotonic(), load_average()
    specs = [(a, d, lr, seed) for lr in args.lrs for d in DROPOUTS for a in ACTIVATIONS for seed in range(args.seeds)]
    results = run_all(specs, data, args, args.epochs)
    cost = measure_cost()
    chosen = select(results, args.lrs)
    res = {
        "command": "python3 -m gelu.claims " + " ".join(argv),
        "machine": machine(), "wall_s": time.monotonic() - t0, "load_before": load_before,
        "load_after": load_average(),
        "settings": {"epochs": args.epochs, "seeds": args.seeds, "lrs": list(args.lrs), "jobs": args.jobs,
                     "threads": args.threads, "dead_gradient": DEAD_GRADIENT, **sizes},
        "cost": {"/".join(k): v for k, v in cost.items()},
        "approximation_error": approximation_error(),
        "dead_zone_edge": {a: dead_zone_edge(a) for a in ACTIVATIONS},
        "runs": results,
    }
    claims = check_claims(chosen, cost, res["approximation_error"], res["dead_zone_edge"])
    res["claims"] = [{"claim": c, "measurement": m, "verdict": v} for c, m, v in claims]
    title = (f"Fashion-MNIST, {HIDDEN_LAYERS}x{WIDTH} fully connected, Adam, {args.epochs} epochs, "
             f"{args.seeds} seeds, {sizes['train_images']} training images")
    figures = write_figures(chosen, args.outdir, title)
    with open(os.path.join(args.outdir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    report = write_report(res, chosen, claims, args.outdir)
    print(claims_table(claims))
    print(f"\nReport: {report}; figures: {', '.join(figures)}; run time {_duration(res['wall_s'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
