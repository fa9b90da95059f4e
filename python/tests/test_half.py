# SPDX-License-Identifier: Apache-2.0
"""16-bit floats through the Python layer: NumPy float16 arrays (gelu.forward / gelu.backward) and CPU float16 /
bfloat16 tensors (gelu.torch) run in the library's 16-bit kernels and are correctly rounded: every result equals
the float64 library's value rounded once to the 16-bit type, mpmath deciding where that value is a midpoint
(half_reference.round_bits), on all 65,536 inputs."""
import warnings

import mpmath
import numpy as np
import pytest
import torch

import gelu
import gelu.torch as gt
from half_reference import KINDS, all_bits, mismatches, round_bits, widen
from mp_reference import gelu_derivative_mp, gelu_mp

FORMS = gelu.APPROXIMATIONS  # the library's function table (src/common/functions.h)
TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def grad_bits(kind, n, seed):
    """Finite 16-bit gradients: N(0, 1) values, one in eight scaled by 2^+-12 (products near both ends)."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(n) * np.where(rng.integers(0, 8, n) == 0, 2.0 ** rng.choice([-12, 12], n), 1.0)
    return round_bits(g, kind)


def expect_forward(x_bits, kind, approximate):
    x = widen(x_bits, kind)
    return round_bits(gelu.forward(x, approximate), kind, lambda i: gelu_mp(x[i], approximate))


def expect_backward(g_bits, x_bits, kind, approximate):
    g, x = widen(g_bits, kind), widen(x_bits, kind)
    return round_bits(gelu.backward(g, x, approximate), kind,
                      lambda i: mpmath.mpf(float(g[i])) * gelu_derivative_mp(x[i], approximate))


def assert_same_bits(got, want, kind, x_bits, what):
    bad = mismatches(got, want, kind)
    assert bad.size == 0, (f"{what}: {bad.size} results not correctly rounded, first x bits "
                           f"{[hex(int(b)) for b in np.asarray(x_bits)[bad[:5]]]}: got "
                           f"{[hex(int(b)) for b in np.asarray(got)[bad[:5]]]}, want "
                           f"{[hex(int(b)) for b in np.asarray(want)[bad[:5]]]}")


@pytest.mark.parametrize("approximate", FORMS)
def test_numpy_float16_correctly_rounded(approximate):
    x = all_bits()
    y = gelu.forward(x.view(np.float16), approximate)
    assert y.dtype == np.float16 and y.shape == x.shape
    assert_same_bits(y.view(np.uint16), expect_forward(x, "float16", approximate), "float16", x, "forward")
    g = grad_bits("float16", x.size, 1)
    d = gelu.backward(g.view(np.float16), x.view(np.float16), approximate)
    assert d.dtype == np.float16
    assert_same_bits(d.view(np.uint16), expect_backward(g, x, "float16", approximate), "float16", x, "backward")


def test_numpy_float16_layouts_and_out():
    x = widen(all_bits()[:4096], "float16").astype(np.float16).reshape(64, 64)
    want = gelu.forward(x.copy())
    np.testing.assert_array_equal(gelu.forward(x.T).view(np.uint16), want.T.view(np.uint16))  # Fortran order
    np.testing.assert_array_equal(gelu.forward(x[:, ::2]).view(np.uint16), want[:, ::2].view(np.uint16))
    out = np.empty_like(x)
    assert gelu.forward(x, out=out) is out
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    inplace = x.copy()
    gelu.forward(inplace, out=inplace)
    np.testing.assert_array_equal(inplace.view(np.uint16), want.view(np.uint16))
    with pytest.raises(TypeError, match=r"grad has dtype float32 but x has dtype float16"):
        gelu.backward(x.astype(np.float32), x)
    with pytest.raises(TypeError, match=r"out has dtype float32 but x has dtype float16"):
        gelu.forward(x, out=np.empty(x.shape, np.float32))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("approximate", FORMS)
def test_torch_cpu_half_correctly_rounded(kind, approximate):
    dtype = TORCH_DTYPES[kind]
    x_bits = all_bits()
    x = torch.from_numpy(x_bits.view(np.int16)).view(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library's own 16-bit kernels: no fallback warning
        y = gt.gelu(x, approximate)
    assert y.dtype == dtype and y.shape == x.shape
    got = y.view(torch.int16).numpy().view(np.uint16)
    assert_same_bits(got, expect_forward(x_bits, kind, approximate), kind, x_bits, f"{kind} forward")
    # Backward through autograd: grad_in = grad * f'(x), rounded once.
    g_bits = grad_bits(kind, x_bits.size, 2)
    xg = x.clone().requires_grad_(True)
    gt.gelu(xg, approximate).backward(torch.from_numpy(g_bits.view(np.int16)).view(dtype))
    assert xg.grad.dtype == dtype
    got = xg.grad.view(torch.int16).numpy().view(np.uint16)
    assert_same_bits(got, expect_backward(g_bits, x_bits, kind, approximate), kind, x_bits, f"{kind} backward")


@pytest.mark.parametrize("kind", KINDS)
def test_torch_cpu_half_layouts_and_double_backward(kind):
    dtype = TORCH_DTYPES[kind]
    x = torch.linspace(-6, 6, 24 * 40, dtype=torch.float32).reshape(24, 40).to(dtype)
    want = gt.gelu(x.contiguous())
    for v, w in ((x.t(), want.t()), (x[:, ::3], want[:, ::3])):
        assert not v.is_contiguous()
        assert torch.equal(gt.gelu(v).view(torch.int16), w.contiguous().view(torch.int16))
    # create_graph=True goes through torch ops in float32 and back: defined, and close to the library's.
    xg = x.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(gt.gelu(xg).sum(), xg, create_graph=True)
    assert grad.dtype == dtype and grad.requires_grad
    xf = x.clone().requires_grad_(True)
    gt.gelu(xf).sum().backward()
    torch.testing.assert_close(grad.float(), xf.grad.float(), rtol=2**-7, atol=2**-7)
    (second,) = torch.autograd.grad(grad.sum(), xg)
    assert second.dtype == dtype and torch.isfinite(second.float()).all()
