# SPDX-License-Identifier: Apache-2.0
"""16-bit floats for the tests: every bit pattern, widening to float64, and correct rounding to float16 /
bfloat16 (to nearest, ties to even), the reference a correctly rounded 16-bit result must equal.

The reference is a float64 value rounded once, against the table of all finite 16-bit values. The float64 values
come from reference_f64 below (Python's libm erfc and NumPy's exp, not the library), whose relative error
F64_REL_ERROR bounds; a value that close to a midpoint between two 16-bit values could round either way (e.g.
GELU(x) = x/2 + x^2/sqrt(2 pi) + ... is x/2 in float64 for a tiny x, a midpoint when x is an odd subnormal, while
the true value lies above it), so there the 60-digit mpmath value decides (round_bits' `exact`).
"""
import math

import mpmath
import numpy as np

from mp_reference import gelu_derivative_mp, gelu_mp

KINDS = ("float16", "bfloat16")


def all_bits():
    """The 65,536 bit patterns, as uint16."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def widen(bits, kind):
    """16-bit patterns -> their exact float64 values."""
    bits = np.asarray(bits, np.uint16)
    with np.errstate(invalid="ignore"):  # NaN patterns widen to NaN
        if kind == "float16":
            return bits.view(np.float16).astype(np.float64)
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# The non-negative finite values of each type in order (bits 0 .. largest finite), then the value one ULP above
# the largest, which stands for overflow: rounding to it gives infinity, whose pattern (the next one) is even, as
# ties to even want (the largest finite pattern is odd).
_MAGNITUDES = {
    "float16": np.append(widen(np.arange(0x7C00, dtype=np.uint16), "float16"), 2.0**16),
    "bfloat16": np.append(widen(np.arange(0x7F80, dtype=np.uint16), "bfloat16"), 2.0**128),
}


def round_bits(v, kind, exact=None, rel_error=0.0):
    """float64 values -> the bits of the nearest 16-bit value (ties to even); NaN -> a NaN pattern.

    exact(i), if given, returns the true value of element i as an mpf; it is asked only where v[i] lies within
    rel_error * |v[i]| of a midpoint (exactly on it with rel_error = 0), and decides the side."""
    v = np.asarray(v, np.float64)
    table = _MAGNITUDES[kind]
    a = np.abs(v)
    hi = np.minimum(np.searchsorted(table, a, side="left"), len(table) - 1)
    lo = np.maximum(hi - 1, 0)
    d_hi = table[hi] - a
    d_lo = a - table[lo]
    tie = (d_lo == d_hi) & (hi != lo)
    pick_lo = (d_lo < d_hi) | (tie & (lo % 2 == 0))
    if exact is not None:
        near = (np.abs(d_hi - d_lo) <= 2 * rel_error * a) & (hi != lo)
        for i in np.flatnonzero(near):
            mid = (mpmath.mpf(float(table[lo[i]])) + mpmath.mpf(float(table[hi[i]]))) / 2
            true = abs(exact(int(i)))
            pick_lo[i] = true < mid or (true == mid and lo[i] % 2 == 0)
    index = np.where(pick_lo, lo, hi)
    index = np.where(a > table[-1], len(table) - 1, index)  # beyond the overflow stand-in: infinity
    bits = index.astype(np.uint16) | np.where(np.signbit(v), 0x8000, 0).astype(np.uint16)
    return np.where(np.isnan(v), np.uint16(0x7E00 if kind == "float16" else 0x7FC0), bits).astype(np.uint16)


def is_nan(bits, kind):
    bits = np.asarray(bits, np.uint16) & 0x7FFF
    return bits > (0x7C00 if kind == "float16" else 0x7F80)


def mismatches(got_bits, want_bits, kind):
    """Indices where two arrays of 16-bit patterns differ, a NaN matching any NaN."""
    got_bits, want_bits = np.asarray(got_bits, np.uint16), np.asarray(want_bits, np.uint16)
    same = (got_bits == want_bits) | (is_nan(got_bits, kind) & is_nan(want_bits, kind))
    return np.flatnonzero(~same)


# The relative error reference_f64 is trusted to: each value carries a few float64 roundings and libm's erfc/exp
# (glibc: <= 2 ulp of float64 each), plus the rounding of the argument amplified by erfc/exp, about
# x^2 2^-53 <= 2^-45 where 16-bit results are neither 0 nor x (|x| < 14); near f''s root (x ~ -0.75) the two terms
# (~0.23) cancel to |f'| >= ~1e-4 at 16-bit inputs, 2^11 more. 2^-32 leaves a wide margin over all of it, and
# test_half.py checks it against mpmath on a sample that includes the inputs nearest the root.
F64_REL_ERROR = 2.0**-32

_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _sigmoid_parts(x, approximate):
    """sigmoid(z), sigmoid'(z) = e/(1+e)^2 with e = exp(-|z|), and dz/dx, as mp_reference's forms."""
    if approximate == "tanh":
        c = 2 * math.sqrt(2 / math.pi)
        z, dz = c * (x + 0.044715 * x**3), c * (1 + 3 * 0.044715 * x**2)
    elif approximate == "sigmoid":
        z, dz = 1.702 * x, np.full_like(x, 1.702)
    else:  # one case per form: an unknown one is refused, not taken for another
        raise ValueError(f"half_reference: no sigmoid argument for approximate {approximate!r}")
    e = np.exp(-np.abs(z))
    r = 1 / (1 + e)
    return np.where(z >= 0, r, e * r), e * r * r, dz


def reference_f64(x, approximate, derivative):
    """f(x) or f'(x) of float64 values x (finite, +-inf or NaN), in float64, without the library: x Phi(x) with
    Phi(x) = erfc(-x/sqrt 2)/2 and x sigmoid(z), as mp_reference (no 1+erf, no 1+tanh: no cancellation but at
    f''s root). f(-inf) = -0, f'(-inf) = +0, f'(x) -> -0 in the far negative tail (the sign of the true f')."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.where(np.isfinite(x), x, 0.0)
        if approximate == "none":
            phi = 0.5 * _erfc(-finite / math.sqrt(2))
            v = phi + finite * np.exp(-0.5 * finite**2) / math.sqrt(2 * math.pi) if derivative else finite * phi
        else:
            s, ds, dz = _sigmoid_parts(finite, approximate)
            v = np.where(ds == 0, s, s + finite * dz * ds) if derivative else finite * s
    if derivative:
        v = np.where((finite < -1) & ~(v < 0), -0.0, v)  # the true f' < 0 there; float64 underflowed to +0
        v = np.where(np.isposinf(x), 1.0, np.where(np.isneginf(x), 0.0, v))
    else:
        v = np.where(np.isposinf(x), np.inf, np.where(np.isneginf(x), -0.0, v))
    return np.where(np.isnan(x), np.nan, v)


def ulp(v, kind):
    """The spacing of the 16-bit type at |v| (v = m 2^e, m in [0.5, 1): 2^(max(e, emin) - p)), its subnormal
    spacing as the floor; v finite float64 values."""
    p, emin = (11, -13) if kind == "float16" else (8, -125)
    e = np.frexp(np.asarray(v, np.float64))[1]
    return np.ldexp(1.0, np.maximum(e, emin) - p)


def correctly_rounded(x_bits, kind, approximate, derivative):
    """The bits of f(x) or f'(x) correctly rounded to `kind` (the true value, mpmath deciding next to midpoints)."""
    x = widen(x_bits, kind)
    exact = gelu_derivative_mp if derivative else gelu_mp
    return round_bits(reference_f64(x, approximate, derivative), kind, lambda i: exact(x[i], approximate),
                      F64_REL_ERROR)


def product_ulp_errors(got_bits, g_bits, x_bits, kind, approximate, bound):
    """|got - g f'(x)| in ULPs of the type at the exact product, for results the bound is about (finite, nonzero
    products short of overflow), and the indices of the other results, whose bits must be the correctly rounded
    ones. mpmath gives the product wherever the float64 one is within its error of `bound`."""
    g, x, got = widen(g_bits, kind), widen(x_bits, kind), widen(got_bits, kind)
    r = g * reference_f64(x, approximate, True)
    largest = _MAGNITUDES[kind][-2]
    with np.errstate(invalid="ignore"):
        plain = np.isfinite(r) & (r != 0) & (np.abs(r) < largest) & np.isfinite(got)
    idx = np.flatnonzero(plain)
    err = np.abs(got[idx] - r[idx]) / ulp(r[idx], kind)
    # The float64 product's relative error F64_REL_ERROR (+ 2^-53) is at most F64_REL_ERROR * 2^p of an ULP.
    slack = 2 * F64_REL_ERROR * 2.0**11
    for j in np.flatnonzero(np.abs(err - bound) <= slack):
        i = idx[j]
        exact = mpmath.mpf(float(g[i])) * gelu_derivative_mp(x[i], approximate)
        err[j] = float(abs(mpmath.mpf(float(got[i])) - exact) / mpmath.mpf(float(ulp(float(exact), kind))))
    return err, idx, np.flatnonzero(~plain)
