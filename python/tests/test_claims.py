# SPDX-License-Identifier: Apache-2.0
"""gelu.claims: the claims experiment end to end on a tiny configuration, its dead-unit metric, its errors.

The full run is a command (python3 -m gelu.claims, docs/CLAIMS.md), not a test; this one trains 20 small runs in
two processes, as the default does, in a few seconds.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import gelu
import gelu.claims as claims

VERDICTS = {claims.HOLDS, claims.HOLDS_HERE, claims.FAILS}


def run_claims(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gelu.claims", "--no-progress", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=240)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("claims") / "out"
    r = run_claims("-o", str(out), "--subset", "512", "--epochs", "3", "--seeds", "2", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    with open(out / "results.json") as f:
        return out, json.load(f), r.stdout


def test_every_run_trains_and_training_loss_falls(tiny_run):
    _, res, _ = tiny_run
    runs = res["runs"]
    assert len(runs) == len(claims.ACTIVATIONS) * len(claims.DROPOUTS) * 2
    assert {(r["activation"], r["dropout"], r["seed"]) for r in runs} == {
        (a, d, s) for a in claims.ACTIVATIONS for d in claims.DROPOUTS for s in (0, 1)}
    for r in runs:
        assert len(r["train_loss"]) == len(r["test_loss"]) == len(r["test_acc"]) == 3 + 1  # + before training
        assert all(math.isfinite(v) for v in r["train_loss"] + r["test_loss"])
        assert len(r["dead_fraction"]) == claims.HIDDEN_LAYERS and all(0 <= f <= 1 for f in r["dead_fraction"])
    # 12 Adam steps on 512 images: without dropout every run's loss falls clearly from log(10) = 2.30.
    for r in runs:
        if r["dropout"] == 0:
            assert r["train_loss"][-1] < 0.95 * r["train_loss"][0], (r["activation"], r["seed"], r["train_loss"])
    # With dropout 0.5 across 8 layers training starts slower; the median over runs still falls.
    drop = [r["train_loss"][-1] - r["train_loss"][0] for r in runs if r["dropout"] == 0.5]
    assert np.median(drop) < 0, drop


def test_same_seed_same_start(tiny_run):
    """A seed gives every activation the same initial weights: the pre-training losses differ only by f."""
    _, res, _ = tiny_run
    by = {(r["activation"], r["dropout"], r["seed"]): r for r in res["runs"]}
    for d in claims.DROPOUTS:
        for s in (0, 1):
            assert by["gelu", d, s]["train_loss"][0] == pytest.approx(by["gelu-tanh", d, s]["train_loss"][0], abs=1e-3)
    assert by["gelu", 0.0, 0]["train_loss"][1] != by["gelu", 0.0, 1]["train_loss"][1]


def test_report_figures_and_claims(tiny_run):
    out, res, stdout = tiny_run
    for name in ("report.md", "results.json", "loss_curves.png", "loss_curves.svg"):
        assert (out / name).stat().st_size > 1000, name
    report = (out / "report.md").read_text()
    assert "## Claims checked" in report and "## Dead units" in report and "## Cost" in report
    assert [c["claim"][:2] for c in res["claims"]] == ["1.", "2.", "3a", "3b", "4."]
    for c in res["claims"]:
        assert c["verdict"] in VERDICTS
        assert c["measurement"] in report.replace("\\|", "|")
    assert "| claim | measurement | verdict |" in stdout
    # The cost table holds positive times for both implementations, every form, both ops.
    assert sorted(res["cost"]) == sorted(f"{i}/{f}/{op}" for i in ("ours", "torch") for f in gelu.APPROXIMATIONS
                                         for op in ("forward", "backward"))
    assert all(0 < t < 1 for t in res["cost"].values())


def test_dead_fraction_counts_units_pushed_into_the_dead_zone():
    torch.manual_seed(0)
    x = torch.rand(256, 28 * 28)
    for name in ("gelu", "relu", "elu"):
        model = claims.FullyConnected(name, 0.0).eval()
        before = claims.dead_fractions(model, x)
        if name != "relu":  # (a fresh ReLU net already has dead units: all-positive images, random signs)
            assert before == [0.0] * claims.HIDDEN_LAYERS, name
        with torch.no_grad():
            model.linears[2].bias[:32] = -50.0  # a quarter of layer 3 far below every dead-zone edge
        dead = claims.dead_fractions(model, x)
        assert dead[:2] == before[:2] and dead[2] >= 0.25, (name, before, dead)
        if name != "relu":
            assert dead[2] == 0.25, (name, dead)


def test_dead_zone_edges():
    edge = {a: claims.dead_zone_edge(a) for a in ("gelu", "relu", "elu")}
    assert edge["relu"] == 0.0
    assert edge["elu"] == pytest.approx(math.log(claims.DEAD_GRADIENT), abs=2e-4)  # ELU' = e^x below 0
    g = lambda x: abs(float(gelu.backward(np.ones(1), np.array([x]))[0]))  # noqa: E731
    assert g(edge["gelu"]) >= claims.DEAD_GRADIENT > g(edge["gelu"] - 2e-4)
    assert -4.5 < edge["gelu"] < -3.5


def test_bad_arguments_fail_before_writing(tmp_path):
    out = tmp_path / "out"
    r = run_claims("-o", str(out), "--epochs", "0")
    assert r.returncode == 2 and "--epochs must be at least 1" in r.stderr
    r = run_claims("-o", str(out), "--lr", "2")
    assert r.returncode == 2 and "--lr" in r.stderr
    assert not out.exists()
    r = run_claims("-o", str(out), "--data", str(tmp_path / "nowhere"), "--subset", "10")
    assert r.returncode == 2 and "dataset-fashion-mnist" in r.stderr, r.stderr
    assert not out.exists()
    taken = tmp_path / "file"
    taken.write_text("keep me")
    r = run_claims("-o", str(taken), "--subset", "10")
    assert r.returncode == 2 and "not a directory" in r.stderr
    assert taken.read_text() == "keep me"


def test_idx_reader_rejects_a_truncated_file(tmp_path):
    import gzip
    src = os.path.join(claims.DATA_DIR, "t10k-labels-idx1-ubyte.gz")
    with gzip.open(src, "rb") as f:
        raw = f.read()
    bad = tmp_path / "bad.gz"
    with gzip.open(bad, "wb") as f:
        f.write(raw[:-1])
    with pytest.raises(claims.UsageError, match="header says"):
        claims.read_idx(str(bad))


# ---------------------------------------------------------------------------------------------------- verdicts
# Each verdict rule (docs/CLAIMS.md, "Verdicts") on synthetic numbers, a pair just either side of each threshold.

def below(x):
    return math.nextafter(x, -math.inf)


def above(x):
    return math.nextafter(x, math.inf)


def outperforms(**changes):
    """Claim 1's numbers with GELU ahead on every seed, then `changes`: {name: (key, values)}."""
    train = {(a, d): [0.1, 0.2, 0.3] if a == "gelu" else [0.2, 0.3, 0.4] for a in ("gelu", "relu", "elu")
             for d in claims.DROPOUTS}
    acc = {(a, d): [0.8, 0.85, 0.9] if a == "gelu" else [0.7, 0.75, 0.8] for a in ("gelu", "relu", "elu")
           for d in claims.DROPOUTS}
    for which, (key, values) in changes.items():
        {"train": train, "acc": acc}[which][key] = values
    return claims.verdict_outperforms(train, acc)


def test_verdict_outperforms_flips_at_each_threshold():
    assert outperforms() == (claims.HOLDS, [])
    # The paper's metric: GELU's median training loss just below the rival's, or equal to it.
    assert outperforms(train=(("gelu", 0.5), [0.1, below(0.3), 0.3]))[0] == claims.HOLDS
    verdict, losses = outperforms(train=(("gelu", 0.5), [0.1, 0.3, 0.3]))
    assert verdict == claims.FAILS and "training loss vs relu at dropout 0.5" in losses, losses
    # One paired seed: GELU's training loss equal to the rival's (ahead in the median still).
    assert outperforms(train=(("elu", 0.0), [above(0.1), 0.3, 0.4]))[0] == claims.HOLDS
    verdict, losses = outperforms(train=(("elu", 0.0), [0.1, 0.3, 0.4]))
    assert verdict == claims.HOLDS_HERE and losses == ["1 of 3 seeds (loss and accuracy) vs elu at dropout 0"]
    # One paired seed: GELU's test accuracy equal to the rival's.
    assert outperforms(acc=(("relu", 0.0), [below(0.8), 0.75, 0.8]))[0] == claims.HOLDS
    verdict, losses = outperforms(acc=(("relu", 0.0), [0.8, 0.75, 0.8]))
    assert verdict == claims.HOLDS_HERE and losses == ["1 of 3 seeds (loss and accuracy) vs relu at dropout 0"]
    # The median test accuracy (a rival's median can only reach GELU's when some paired seed is lost too).
    verdict, losses = outperforms(acc=(("relu", 0.5), [0.9, 0.85, 0.7]))
    assert verdict == claims.HOLDS_HERE and "test accuracy vs relu at dropout 0.5" in losses, losses


def test_verdict_dead_units_flips_at_each_threshold():
    one_unit = 1 / claims.WIDTH
    assert claims.verdict_dead_units({"gelu": 0.0, "relu": one_unit}) == claims.HOLDS
    assert claims.verdict_dead_units({"gelu": above(0.0), "relu": one_unit}) == claims.FAILS
    assert claims.verdict_dead_units({"gelu": one_unit, "relu": 0.5}) == claims.FAILS
    assert claims.verdict_dead_units({"gelu": 0.0, "relu": above(0.0)}) == claims.HOLDS
    assert claims.verdict_dead_units({"gelu": 0.0, "relu": 0.0}) == claims.HOLDS_HERE


def test_verdict_expensive_flips_at_each_threshold():
    e = claims.EXPENSIVE

    def ratios(torch_backward, ours_forward):
        return {"torch": {"forward": e, "backward": torch_backward}, "ours": {"forward": ours_forward, "backward": e}}

    assert claims.verdict_expensive(ratios(e, e)) == claims.HOLDS
    assert claims.verdict_expensive(ratios(e, below(e))) == claims.HOLDS_HERE
    assert claims.verdict_expensive(ratios(below(e), e)) == claims.HOLDS_HERE
    assert claims.verdict_expensive(ratios(below(e), below(e))) == claims.FAILS


def approximations(changes):
    """Claim 3b's verdict with every row's test accuracies [0, 0.25, 0.5] (median 0.25, range 0.5), then
    `changes`: {(activation, dropout): values}."""
    acc = {(a, d): [0.0, 0.25, 0.5] for a in ("gelu", *claims.APPROXIMATE_GELUS) for d in claims.DROPOUTS}
    acc.update(changes)
    return claims.verdict_approximations(acc)


def test_verdict_approximations_flips_at_each_threshold():
    verdict, cases, outside = approximations({})
    assert verdict == claims.HOLDS and outside == [] and len(cases) == 4
    assert all(diff == 0 and noise == 0.5 for _, _, diff, noise in cases)
    # An approximation ahead by exactly the seed range (0.75 - 0.25 = 0.5), then by one ulp more.
    assert approximations({("gelu-tanh", 0.5): [0.5, 0.75, 0.75]})[0] == claims.HOLDS
    verdict, _, outside = approximations({("gelu-tanh", 0.5): [0.5, above(0.75), above(0.75)]})
    assert verdict == claims.FAILS and outside == ["gelu-tanh at dropout 0.5"]
    # Behind by exactly the seed range, then by one ulp more: exact GELU (and gelu-tanh with it) ahead.
    ahead = [0.5, 0.75, 0.75]
    assert approximations({("gelu", 0.0): ahead, ("gelu-tanh", 0.0): ahead})[0] == claims.HOLDS
    ahead = [0.5, above(0.75), above(0.75)]
    verdict, cases, outside = approximations({("gelu", 0.0): ahead, ("gelu-tanh", 0.0): ahead})
    assert verdict == claims.FAILS and outside == ["gelu-sigmoid at dropout 0"]
    assert ("gelu-sigmoid", 0.0, -(0.5 + 2 ** -53), 0.5) in cases


def test_verdict_regularizes_flips_at_each_threshold():
    def gaps(gelu0=0.1, gelu5=0.1, relu0=0.2, elu0=0.2):
        return {("gelu", 0.0): gelu0, ("gelu", 0.5): gelu5, ("relu", 0.0): relu0, ("relu", 0.5): 0.0,
                ("elu", 0.0): elu0, ("elu", 0.5): 0.0}

    assert claims.verdict_regularizes(gaps()) == claims.HOLDS
    assert claims.verdict_regularizes(gaps(gelu5=below(0.1))) == claims.HOLDS_HERE  # dropout shrinks it
    assert claims.verdict_regularizes(gaps(relu0=above(0.1))) == claims.HOLDS
    assert claims.verdict_regularizes(gaps(relu0=0.1)) == claims.FAILS
    assert claims.verdict_regularizes(gaps(elu0=above(0.1))) == claims.HOLDS
    assert claims.verdict_regularizes(gaps(elu0=0.1)) == claims.FAILS


def synthetic_chosen(dead):
    """check_claims' input for a made-up run: 3 seeds per row, dead[activation, dropout] the fraction of dead units
    of every seed's layer 5 (0 elsewhere)."""
    chosen = {}
    for a in claims.ACTIVATIONS:
        for d in claims.DROPOUTS:
            chosen[a, d] = [{"train_loss": [2.3, 0.3 + s / 100], "test_loss": [2.3, 0.4 + s / 100],
                             "test_acc": [0.1, 0.8 + s / 100], "epoch_cpu_s": [1.0], "lr": 1e-3, "seed": s,
                             "dead_fraction": [dead.get((a, d), 0.0) if layer == 4 else 0.0
                                               for layer in range(claims.HIDDEN_LAYERS)]}
                            for s in range(3)]
    return chosen


def test_check_claims_passes_the_dead_fractions_to_the_verdict():
    """Claim 2 end to end through check_claims on synthetic runs: no dead GELU unit and dead ReLU units give
    "holds"; one dead GELU unit in one layer at one dropout gives "does not hold"."""
    cost = {(impl, f, op): 1.0 for impl in ("torch", "ours") for f in claims.FORMS for op in ("forward", "backward")}
    edges = {a: -1.0 for a in claims.ACTIVATIONS}
    approx_err = {f: 1e-3 for f in claims.FORMS if f != claims.EXACT}

    def claim2(dead):
        rows = claims.check_claims(synthetic_chosen(dead), cost, approx_err, edges)
        (row,) = [r for r in rows if r[0].startswith("2.")]
        return row

    one_unit = 1 / claims.WIDTH
    claim, measurement, verdict = claim2({("relu", 0.0): 0.25})
    assert verdict == claims.HOLDS, measurement
    assert "gelu 0.0%, relu 25.0%, elu 0.0%" in measurement
    assert claim2({("relu", 0.0): 0.25, ("gelu", 0.5): one_unit})[2] == claims.FAILS
    assert claim2({("relu", 0.0): 0.25, ("gelu-tanh", 0.5): one_unit})[2] == claims.HOLDS  # not the exact GELU row
    assert claim2({})[2] == claims.HOLDS_HERE
