# SPDX-License-Identifier: Apache-2.0
"""16-bit floats through the Python layer: NumPy float16 arrays (gelu.forward / gelu.backward) and CPU float16 /
bfloat16 tensors (gelu.torch) run in the library's 16-bit kernels, on all 65,536 inputs, with the claim of
include/gelu/gelu.h: the forward and the backward with grad = 1 (f') are correctly rounded; with any other grad,
grad * f'(x) (f' in double) is rounded once, within 0.5 + 2^-18 ULP of the exact product, not always correctly
rounded. The oracle is the exact value (half_reference: an independent float64 evaluation, mpmath at 60 digits
wherever its error could decide), never the library's own float64 functions."""
import warnings

import mpmath
import numpy as np
import pytest
import torch

import gelu
import gelu.torch as gt
from half_reference import (F64_REL_ERROR, KINDS, all_bits, correctly_rounded, mismatches,
                            product_ulp_errors, reference_f64, round_bits, widen)
from mp_reference import gelu_derivative_mp, gelu_mp

FORMS = gelu.APPROXIMATIONS  # the library's function table (src/common/functions.h)
TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
GRAD_BOUND = 0.5 + 2.0**-18  # ULP, include/gelu/gelu.h: one rounding of grad * f' with f' in double


def grad_bits(kind, n, seed):
    """Finite 16-bit gradients: N(0, 1) values, one in eight scaled by 2^+-12 (products near both ends)."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(n) * np.where(rng.integers(0, 8, n) == 0, 2.0 ** rng.choice([-12, 12], n), 1.0)
    return round_bits(g, kind)


def assert_same_bits(got, want, kind, x_bits, what):
    bad = mismatches(got, want, kind)
    assert bad.size == 0, (f"{what}: {bad.size} results not correctly rounded, first x bits "
                           f"{[hex(int(b)) for b in np.asarray(x_bits)[bad[:5]]]}: got "
                           f"{[hex(int(b)) for b in np.asarray(got)[bad[:5]]]}, want "
                           f"{[hex(int(b)) for b in np.asarray(want)[bad[:5]]]}")


def assert_grad_bound(got, g_bits, x_bits, kind, approximate, what):
    """grad_in within GRAD_BOUND ULP of the exact grad * f'(x); zeros, NaN and overflow bit for bit."""
    err, idx, other = product_ulp_errors(got, g_bits, x_bits, kind, approximate, GRAD_BOUND)
    worst = int(np.argmax(err))
    assert err[worst] <= GRAD_BOUND, (f"{what}: {int((err > GRAD_BOUND).sum())} results beyond {GRAD_BOUND} ULP, "
                                      f"worst {err[worst]} at x bits {hex(int(x_bits[idx[worst]]))}, grad bits "
                                      f"{hex(int(g_bits[idx[worst]]))}")
    r = widen(g_bits[other], kind) * reference_f64(widen(x_bits[other], kind), approximate, True)
    assert_same_bits(np.asarray(got)[other], round_bits(r, kind), kind, x_bits[other], f"{what} (0, NaN, inf)")


@pytest.mark.parametrize("approximate", FORMS)
def test_numpy_float16_claim(approximate):
    x = all_bits()
    y = gelu.forward(x.view(np.float16), approximate)
    assert y.dtype == np.float16 and y.shape == x.shape
    assert_same_bits(y.view(np.uint16), correctly_rounded(x, "float16", approximate, False), "float16", x, "forward")
    ones = np.ones(x.size, np.float16)
    d = gelu.backward(ones, x.view(np.float16), approximate)
    assert d.dtype == np.float16
    assert_same_bits(d.view(np.uint16), correctly_rounded(x, "float16", approximate, True), "float16", x,
                     "backward, grad = 1")
    g = grad_bits("float16", x.size, 1)
    d = gelu.backward(g.view(np.float16), x.view(np.float16), approximate)
    assert_grad_bound(d.view(np.uint16), g, x, "float16", approximate, "backward")


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
def test_torch_cpu_half_claim(kind, approximate):
    dtype = TORCH_DTYPES[kind]
    x_bits = all_bits()
    x = torch.from_numpy(x_bits.view(np.int16)).view(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library's own 16-bit kernels: no fallback warning
        y = gt.gelu(x, approximate)
    assert y.dtype == dtype and y.shape == x.shape
    got = y.view(torch.int16).numpy().view(np.uint16)
    assert_same_bits(got, correctly_rounded(x_bits, kind, approximate, False), kind, x_bits, f"{kind} forward")
    # Backward through autograd: grad_in = grad * f'(x), rounded once; f' itself with grad = 1.
    for g_bits, what in ((round_bits(np.ones(x_bits.size), kind), "grad = 1"), (grad_bits(kind, x_bits.size, 2), "")):
        xg = x.clone().requires_grad_(True)
        gt.gelu(xg, approximate).backward(torch.from_numpy(g_bits.view(np.int16)).view(dtype))
        assert xg.grad.dtype == dtype
        got = xg.grad.view(torch.int16).numpy().view(np.uint16)
        if what:
            assert_same_bits(got, correctly_rounded(x_bits, kind, approximate, True), kind, x_bits,
                             f"{kind} backward, {what}")
        else:
            assert_grad_bound(got, g_bits, x_bits, kind, approximate, f"{kind} backward")


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


def test_grad_product_bound_not_correct_rounding():
    """include/gelu/gelu.h's example: fp16 x = -0x1.7e8p+1, grad = 0x1.17p-8. The exact product lies just beyond
    the midpoint between 0x836f and 0x8370 (-879.50000005 * 2^-24), so 0x8370 is correctly rounded; the library
    rounds its double product, which lies on the other side, to 0x836f, within the bound but not correctly rounded."""
    x = np.array([float.fromhex("-0x1.7e8p+1")], np.float16)
    g = np.array([float.fromhex("0x1.17p-8")], np.float16)
    exact = mpmath.mpf(float(g[0])) * gelu_derivative_mp(float(x[0]))
    # Beyond the midpoint by less than the bound's 2^-18 ULP (fp16 subnormals: ULP 2^-24): either neighbor meets it.
    assert -(2.0**-18) < exact * 2**24 + mpmath.mpf("879.5") < 0
    want = round_bits([float(exact)], "float16", lambda i: exact, F64_REL_ERROR)
    assert int(want[0]) == 0x8370
    got = gelu.backward(g, x).view(np.uint16)
    err, _, other = product_ulp_errors(got, g.view(np.uint16), x.view(np.uint16), "float16", "none", GRAD_BOUND)
    assert other.size == 0 and err[0] <= GRAD_BOUND
    assert int(got[0]) != int(want[0]), "now correctly rounded here: update include/gelu/gelu.h and ACCURACY.md"


def test_double_reference_agrees_with_mpmath():
    """What licenses reference_f64 as the filter in front of mpmath: relative error < F64_REL_ERROR on a sample of
    every 257th bit pattern of both types with |x| < 20, and the inputs nearest f''s root (~ -0.75), where f'
    cancels."""
    for kind in KINDS:
        bits = all_bits()
        x_all = widen(bits, kind)
        x_all = x_all[np.isfinite(x_all) & (np.abs(x_all) < 20)]
        near_root = x_all[np.argsort(np.abs(x_all + 0.7518))[:8]]
        sample = x_all[::257]
        xs = np.concatenate([sample, near_root])
        for approximate in FORMS:
            for derivative in (False, True):
                exact = gelu_derivative_mp if derivative else gelu_mp
                v = reference_f64(xs, approximate, derivative)
                for xi, vi in zip(xs.tolist(), v.tolist()):
                    e = exact(xi, approximate)
                    if e == 0:
                        assert vi == 0, (kind, approximate, derivative, xi)
                    else:
                        assert abs(mpmath.mpf(vi) - e) < F64_REL_ERROR * abs(e), (kind, approximate, derivative, xi)
