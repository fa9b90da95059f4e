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
