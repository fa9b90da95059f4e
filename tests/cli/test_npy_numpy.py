# SPDX-License-Identifier: Apache-2.0
"""`gelu apply` against numpy itself: files numpy writes (every version, byte order, memory order, rank) go in,
files numpy reads come out with the same shape, dtype and order and the right values; dtypes we refuse are
refused with a message. Run by ctest as cli_numpy_interop (GELU_EXE = the built gelu)."""
import math
import os
import subprocess

import numpy as np
import pytest
from numpy.lib import format as npf

GELU = os.environ.get("GELU_EXE", "gelu")


def run(*args):
    return subprocess.run([GELU, *map(str, args)], capture_output=True, text=True, timeout=60)


def exact(x):
    """GELU in double through erfc (no cancellation in the negative tail)."""
    return 0.5 * x * math.erfc(-x / math.sqrt(2)) if math.isfinite(x) else (x if x > 0 else -0.0)


def exact_grad(x):
    return 0.5 * math.erfc(-x / math.sqrt(2)) + x * math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def values(n, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.normal(0, 3, n)
    v[:4] = [0.0, -8.0, 5.5, -0.7518]
    return v


def save(path, arr, version):
    with open(path, "wb") as f:
        npf.write_array(f, arr, version=version)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("dtype", ["<f4", ">f4", "<f8", ">f8"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_forward_round_trip(tmp_path, version, dtype, order):
    x = np.asarray(values(24).reshape(2, 3, 4), dtype=dtype, order=order)
    save(tmp_path / "x.npy", x, version)
    r = run("apply", tmp_path / "x.npy", tmp_path / "y.npy")
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "y.npy")
    assert y.shape == x.shape
    assert y.dtype == np.dtype(dtype).newbyteorder("=")  # written in native (little-endian) order
    assert np.isfortran(y) == (order == "F")
    # This test is about layout (every element lands where numpy expects it), not accuracy, which the library's
    # own tests measure; the tolerances are loose next to the claims but far below any misplaced element.
    want = np.vectorize(exact)(x.astype(np.float64))
    if y.dtype == np.float32:
        ulp = np.spacing(np.abs(want.astype(np.float32)))
        assert np.all(np.abs(y.astype(np.float64) - want) <= 2 * ulp)
    else:
        assert np.allclose(y, want, rtol=1e-12, atol=0)


def test_backward_matches_derivative(tmp_path):
    x = values(50, 1)
    g = values(50, 2)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "g.npy", g)
    r = run("apply", tmp_path / "x.npy", tmp_path / "dx.npy", "--backward", tmp_path / "g.npy")
    assert r.returncode == 0, r.stderr
    dx = np.load(tmp_path / "dx.npy")
    want = g * np.vectorize(exact_grad)(x)
    # Relative 1e-13, except near f'(x) = 0 (x[3] = -0.7518) where the float64 claim is absolute, 2^-53 * |g|.
    assert np.allclose(dx, want, rtol=1e-13, atol=4e-15)


@pytest.mark.parametrize("dtype", ["<f2", ">f2"])
def test_float16(tmp_path, dtype):
    x = np.asarray(values(40, 3).reshape(5, 8), dtype=dtype, order="F")
    np.save(tmp_path / "x.npy", x)
    r = run("apply", tmp_path / "x.npy", tmp_path / "y.npy")
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == np.float16 and y.shape == x.shape and np.isfortran(y)
    # The library rounds correctly to float16: compare with the exact value rounded by numpy.
    want = np.vectorize(exact)(x.astype(np.float64)).astype(np.float16)
    assert np.array_equal(y.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("shape", [(), (0,), (5, 0, 2), (1,) * 9])
def test_odd_shapes(tmp_path, shape):
    x = np.full(shape, -1.0, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run("apply", tmp_path / "x.npy", tmp_path / "y.npy")
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "y.npy")
    assert y.shape == shape and y.dtype == np.float32
    assert np.all(y == np.float32(exact(-1.0)))


def test_in_place(tmp_path):
    x = values(10).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    assert run("apply", tmp_path / "x.npy", tmp_path / "x.npy", "-a", "sigmoid").returncode == 0
    y = np.load(tmp_path / "x.npy")
    want = x.astype(np.float64) / (1 + np.exp(-1.702 * x.astype(np.float64)))
    assert np.allclose(y, want, rtol=3e-7, atol=1e-30)


@pytest.mark.parametrize("arr,needle", [
    (np.arange(4, dtype=np.int32), "(int32)"),
    (np.arange(4, dtype=np.uint8), "(uint8)"),
    (np.ones(4, dtype=np.complex128), "(complex128)"),
    (np.array([True, False]), "(bool)"),
    (np.array(["a", "b"]), "(string)"),
    (np.zeros(2, dtype=[("a", "<f4"), ("b", "<f4")]), "structured"),
    (np.array([1, "a", None], dtype=object), "(Python object)"),
    (np.ones(2, dtype=np.longdouble), "(float128)"),
])
def test_refused_dtypes(tmp_path, arr, needle):
    np.save(tmp_path / "x.npy", arr, allow_pickle=True)
    r = run("apply", tmp_path / "x.npy", tmp_path / "y.npy")
    assert r.returncode != 0
    assert needle in r.stderr
    assert r.stderr.startswith("gelu apply: ") and r.stderr.count("\n") == 1
    assert not (tmp_path / "y.npy").exists()
    assert sorted(os.listdir(tmp_path)) == ["x.npy"]  # no temporary file left


def test_npz_is_not_npy(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.ones(3))
    r = run("apply", tmp_path / "x.npz", tmp_path / "y.npy")
    assert r.returncode != 0 and "not a .npy file" in r.stderr
