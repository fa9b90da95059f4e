# SPDX-License-Identifier: Apache-2.0
"""16-bit floats for the tests: every bit pattern, widening to float64, and correct rounding to float16 /
bfloat16 (to nearest, ties to even), the reference a correctly rounded 16-bit result must equal.

The reference is a float64 value rounded once, against the table of all finite 16-bit values. A float64 value can
miss the true one by an ULP of float64, which changes the rounding only where it lands exactly on a midpoint
between two 16-bit values (e.g. GELU(x) = x/2 + x^2/sqrt(2 pi) + ... is x/2 in float64 for a tiny x, a midpoint
when x is an odd subnormal, while the true value lies above it); there the 60-digit mpmath value decides.
"""
import mpmath
import numpy as np

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


def round_bits(v, kind, exact=None):
    """float64 values -> the bits of the nearest 16-bit value (ties to even); NaN -> a NaN pattern.

    exact(i), if given, returns the true value of element i as an mpf; it is asked only where v[i] is exactly a
    midpoint, and decides the side."""
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
        for i in np.flatnonzero(tie):
            mid = mpmath.mpf(float(a[i]))  # a midpoint: exact in float64
            true = abs(exact(int(i)))
            if true != mid:
                pick_lo[i] = true < mid
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
