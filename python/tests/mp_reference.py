# SPDX-License-Identifier: Apache-2.0
"""High-precision GELU reference (mpmath, 60 digits) and the ULP metric the tests use.

Every form goes through x*Phi(x) or x*sigmoid(z), never 1+erf or 1+tanh, so no cancellation: at 60
digits the reference is exact for float64 purposes. The tanh form uses (1+tanh u)/2 = sigmoid(2u).
The constants 0.044715 and 1.702 are the exact decimals and sqrt(2/pi) is exact: "the formula evaluated
exactly", as issue 2 states the tanh/sigmoid bounds and tests/f64/gelu_f64_test.cc checks them with MPFR.
(Their double roundings would move float64 results by up to ~100 ULP at x = -15, through exp(z).)
"""
import math

import mpmath
import numpy as np

mpmath.mp.dps = 60

_TANH_CUBIC = mpmath.mpf("0.044715")
_SIGMOID_SCALE = mpmath.mpf("1.702")


def _sigmoid(z):
    return 1 / (1 + mpmath.exp(-z))


def _z_and_dz(x, approximate):
    """z(x) and z'(x) of a form x sigmoid(z(x)); one case per form, an unknown one refused (not taken for another)."""
    if approximate == "tanh":
        c = 2 * mpmath.sqrt(2 / mpmath.pi)
        return c * (x + _TANH_CUBIC * x**3), c * (1 + 3 * _TANH_CUBIC * x**2)
    if approximate == "sigmoid":
        return _SIGMOID_SCALE * x, _SIGMOID_SCALE
    raise ValueError(f"mp_reference: no sigmoid argument for approximate {approximate!r}")


def gelu_mp(x, approximate="none"):
    """f(x) as an mpf; x a finite Python float."""
    x = mpmath.mpf(float(x))
    if approximate == "none":
        return x * mpmath.ncdf(x)
    z, _ = _z_and_dz(x, approximate)
    return x * _sigmoid(z)


def gelu_derivative_mp(x, approximate="none"):
    """f'(x) as an mpf; x a finite Python float."""
    x = mpmath.mpf(float(x))
    if approximate == "none":
        return mpmath.ncdf(x) + x * mpmath.npdf(x)
    z, dz = _z_and_dz(x, approximate)
    s = _sigmoid(z)
    return s + x * dz * s * _sigmoid(-z)


def _ulp(r, dtype):
    """ulp(r) with SLEEF's countULPsp floor: 2^(max(e, emin) - p) with r = m 2^e, m in [0.5, 1)."""
    p, emin = (24, -125) if dtype == np.float32 else (53, -1021)
    e = mpmath.frexp(r)[1] if r != 0 else emin
    return mpmath.ldexp(1, max(int(e), emin) - p)


def ulp_error(y, r, dtype):
    """|y - r| / ulp(r), with y a finite float of `dtype` and r an mpf."""
    return float(abs(mpmath.mpf(float(y)) - r) / _ulp(r, dtype))


def max_ulp(xs, ys, approximate, dtype, derivative=False, root_abs=None, near_root=None):
    """Largest ULP error of ys = f(xs) (or f'(xs)) over finite xs; returns (error, worst x).

    root_abs, near_root = (lo, hi, max_derivative): in the window lo < x < hi where |f'(x)| < max_derivative
    (near f' = 0, x ~ -0.75, relative error is meaningless) the absolute error is measured instead, in units of
    root_abs (so <= 1 means within the absolute bound).
    """
    worst, worst_x = 0.0, None
    ref = gelu_derivative_mp if derivative else gelu_mp
    for x, y in zip(xs.tolist(), ys.tolist()):
        r = ref(x, approximate)
        if root_abs is not None and near_root[0] < x < near_root[1] and abs(r) < near_root[2]:
            err = float(abs(mpmath.mpf(y) - r)) / root_abs
        else:
            err = ulp_error(y, r, dtype)
        if math.isnan(err):
            return math.inf, x
        if err > worst:
            worst, worst_x = err, x
    return worst, worst_x
