#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How well a polynomial of each degree can fit the exact form's float32 core on intervals of a given width: the
question behind the core's layout (src/common/gelu_f32_math.h: 32 intervals of width 1/4, degree 6, one
vpermt2ps per coefficient on AVX-512). A layout of 16 intervals of width 1/2 would make every lookup one
single-register vpermps on AVX-512 and two vpermps and a blend on AVX2 (docs/EXPERIMENTS.md times both); this says
which degree such a layout needs.

For each interval of the core range [-4.125, 3.875) the function the forward table fits there (f itself for
centres below -3/8, Phi = f/x from there up, as core_intervals.sollya does for width 1/4) is interpolated at 200
Chebyshev nodes (within a small factor of the minimax polynomial's error) in double precision, and the worst
relative error over 2001 points is printed per degree: the error of the polynomial before its coefficients are
rounded to float, which the real tables add to (the shipped layout, width 1/4 and degree 6: 2^-28.9 here,
2^-27.3 for kCoreExactForward after core_intervals.sollya rounds its coefficients). Run (a few seconds):
  python3 scripts/fit/core_layout_estimate.py
"""
import math

import numpy as np

CORE_MIN, CORE_END = -4.125, 3.875
C = np.polynomial.chebyshev


def phi_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def fitted_function(centre):
    return (lambda x: x * phi_cdf(x)) if centre < -0.375 else phi_cdf


def worst_relative_error(width, degree):
    worst, where = 0.0, None
    nodes = np.cos(np.pi * (np.arange(200) + 0.5) / 200)  # on [-1, 1]
    points = np.linspace(-1.0, 1.0, 2001)
    for centre in np.arange(CORE_MIN + width / 2, CORE_END, width):
        fn = fitted_function(centre)
        coef = C.chebfit(nodes, [fn(centre + t * width / 2) for t in nodes], degree)
        exact = np.array([fn(centre + t * width / 2) for t in points])
        keep = exact != 0
        rel = np.max(np.abs(C.chebval(points[keep], coef) - exact[keep]) / np.abs(exact[keep]))
        if rel > worst:
            worst, where = rel, centre
    return worst, where


def main():
    for width in (0.25, 0.5):
        print(f"{int((CORE_END - CORE_MIN) / width)} intervals of width {width}:")
        for degree in (6, 7, 8):
            err, centre = worst_relative_error(width, degree)
            print(f"  degree {degree}: worst relative error 2^{math.log2(err):.1f} (interval centred at {centre})")


if __name__ == "__main__":
    main()
