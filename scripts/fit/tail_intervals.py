#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fits the float32 tail tables of src/common/core_tables.h (the rows kTail*; method in src/common/gelu_f32_math.h).

Outside the core range every form is f(-t) = -exp(-E(t)) * A(t) and f'(-t) = -exp(-E(t)) * B(t) for t = |x|, with
E = t^2/2 (exact form) or z(t) (the sigmoid's argument: 2 sqrt(2/pi) (t + 0.044715 t^3) for tanh, 1.702 t for
sigmoid) and A, B smooth and positive:
  exact:            A = t Phi(-t) e^{t^2/2},       B = t / sqrt(2 pi) - Phi(-t) e^{t^2/2}
  tanh, sigmoid:    A = t / (1 + e^{-z}),          B = (t z'(t) / (1 + e^{-z}) - 1) / (1 + e^{-z})
(the positive side follows: f(t) = t + f(-t), f'(t) = 1 - f'(-t)). A and B are fitted here on 32 intervals spaced
8 to a binade: column k = (bits(t) >> 20) - (bits(4) >> 20) covers [4 + k/2, 4 + (k+1)/2) for k < 8, [8 + (k-8),
...) for k < 16, and so on up to [56, 64); column 0 also takes [3.875, 4) (t is clamped to column 0 there). On each,
a degree-N polynomial in d = t - c about the interval's centre c (exact: c has few bits and t is within a factor 2
of it), fitted for relative error by weighted least squares at Chebyshev nodes in mpmath (160 bits), its
coefficients rounded one at a time, each rounding followed by a refit of the ones after it: the constant to a
float pair (hi, lo), the others to float. Columns past each form's kTailTMax<Form> are never read and hold zeros.

Output: the C++ tables on stdout (rows: centre, hi, lo, a1..aN; column k), each with its worst relative error
measured at 2000 points per interval with the rounded coefficients. Run (about a minute):
  python3 scripts/fit/tail_intervals.py
scripts/fit/write_core_tables.sh writes its output into src/common/core_tables.h.
"""
import sys

import mpmath as mp
import struct

mp.mp.prec = 160
DEGREE = int(sys.argv[1]) if len(sys.argv) > 1 else 5
K2 = 2 * mp.sqrt(2 / mp.pi)
C3 = mp.mpf("0.044715")
SIG = mp.mpf("1.702")
FORMS = ["Exact", "Tanh", "Sigmoid"]
# The last column ends at 64 (columns spaced 8 to a binade from 4); a table serves t below it.
T_TABLE_END = 64


def mills(t):  # Phi(-t) e^{t^2/2}
    return mp.erfc(t / mp.sqrt(2)) / 2 * mp.exp(t * t / 2)


def sigmoid_parts(form, t):
    """z(t) and z'(t) of a form x sigmoid(z(x)); one case per form, an unknown one refused (not fitted as another)."""
    if form == "Tanh":
        return K2 * (t + C3 * t**3), K2 * (1 + 3 * C3 * t**2)
    if form == "Sigmoid":
        return SIG * t, SIG
    raise ValueError(f"tail_intervals: no sigmoid argument for form {form!r}")


def fitted(name, t):
    form, kind = name[:-7] if name.endswith("Forward") else name[:-10], name[-7:] == "Forward"
    if form == "Exact":
        return t * mills(t) if kind else t / mp.sqrt(2 * mp.pi) - mills(t)
    z, dz = sigmoid_parts(form, t)
    e = 1 / (1 + mp.exp(-z))
    return t * e if kind else (t * dz * e - 1) * e


def interval(k):
    b = k // 8
    w = mp.mpf(2) ** (b - 1)
    lo = mp.mpf(2) ** (b + 2) + (k % 8) * w
    if k == 0:
        return mp.mpf("3.875"), lo + w, mp.mpf("4.1875")
    return lo, lo + w, lo + w / 2


def f32(v):
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


def fit_rest(f, fixed, dlo, dhi):
    """Least squares (relative) for the coefficients after `fixed`, at Chebyshev nodes."""
    m = 4 * DEGREE + 8
    nodes = [(dlo + dhi) / 2 + (dhi - dlo) / 2 * mp.cos(mp.pi * (i + mp.mpf(0.5)) / m) for i in range(m)]
    first = len(fixed)
    rows, rhs = [], []
    for d in nodes:
        fv = f(d)
        rows.append([d**j / fv for j in range(first, DEGREE + 1)])
        rhs.append((fv - sum(c * d**j for j, c in enumerate(fixed))) / fv)
    sol = mp.lu_solve(mp.matrix(rows).T * mp.matrix(rows), mp.matrix(rows).T * mp.matrix(rhs))
    return [sol[i] for i in range(DEGREE + 1 - first)]


def fit_interval(name, k):
    lo, hi, c = interval(k)
    f = lambda d: fitted(name, c + d)
    dlo, dhi = lo - c, hi - c
    coeffs = fit_rest(f, [], dlo, dhi)
    a0hi = f32(coeffs[0])
    w = max(abs(dlo), abs(dhi))
    a0lo = flushed(coeffs[0] - a0hi, 1 / abs(a0hi))
    fixed = [a0hi + a0lo]
    while len(fixed) <= DEGREE:
        fixed.append(flushed(fit_rest(f, fixed, dlo, dhi)[0], w ** len(fixed) / abs(a0hi)))
    worst = max(abs(sum(a * d**j for j, a in enumerate(fixed)) / f(d) - 1)
                for d in (dlo + (dhi - dlo) * i / 1999 for i in range(2000)))
    return c, a0hi, a0lo, fixed[1:], worst


def identity_from(name):
    """The smallest multiple of 1/8 from which the tail's result is x itself (forward) or grad_out (derivative):
    for every t >= it, |f(-t)| / t < 2^-26 (forward) or |f'(-t)| < 2^-26 (derivative). Then f(t) = t (1 - delta)
    rounds to t (delta t is below a quarter of t's ULP), and grad_out f'(t) = grad_out (1 + delta) to grad_out for
    every grad_out (below half its ULP). Both quantities decrease in t here; checked at 2000 points past it."""
    form, forward = (name[:-7], True) if name.endswith("Forward") else (name[:-10], False)
    e = (lambda t: 1 / (1 + mp.exp(-sigmoid_parts(form, t)[0]))) if form != "Exact" else None
    if forward:
        rel = (lambda t: mp.erfc(t / mp.sqrt(2)) / 2) if form == "Exact" else (lambda t: 1 - e(t))
    else:
        rel = lambda t: fitted(name, t) * mp.exp(-t * t / 2 if form == "Exact" else -sigmoid_parts(form, t)[0])
    bound = mp.mpf(2) ** -26
    t = mp.mpf("3.875")
    while rel(t) >= bound:
        t += mp.mpf(1) / 8
    assert all(rel(t + i * (T_MAX[form] - t) / 1999) < bound for i in range(2000))
    return t


def zero_from(name):
    """The smallest multiple of 1/8 from which x = -t gives a zero: |f(-t)| < 2^-151 (forward) or |f'(-t)| < 2^-279
    (derivative) for every t >= it. Then f(x) rounds to -0, and grad_out f'(x) to the zero of the sign of
    grad_out * -0 for every finite grad_out (|grad_out| < 2^128, so the product stays below 2^-151): kernels return
    those zeros by selection, without the tail or the double path. The margin of a factor 2 below half the least
    subnormal (2^-150) keeps the double path's own result, accurate to far better than 2^-30 relative, rounding to
    the same zero. Both quantities decrease in t here; checked at 2000 points up to 4 times it."""
    form, forward = (name[:-7], True) if name.endswith("Forward") else (name[:-10], False)
    exponent = (lambda t: t * t / 2) if form == "Exact" else (lambda t: sigmoid_parts(form, t)[0])
    size = lambda t: fitted(name, t) * mp.exp(-exponent(t))  # |f(-t)| or |f'(-t)|
    bound = mp.mpf(2) ** (-151 if forward else -279)
    t = mp.mpf("3.875")
    while size(t) >= bound:
        t += mp.mpf(1) / 8
    assert all(size(t + i * 3 * t / 1999) < bound for i in range(2000))
    return t


def t_max(form):
    """The largest t each form's table serves (printed as kTailTMax): the forward's zero_from, where the forward
    tail's reach ends (kernels select -0 from there), or the last float below the table's end. Every forward tail
    lane then has t <= it, so the forward tail needs no double path; a derivative lane beyond it does."""
    return min(zero_from(form + "Forward"), f32(T_TABLE_END - mp.mpf(2) ** -18))


def t_max_derivative(form):
    """The derivative's kTailTMax: the last float below the end of the column that holds the forward's t_max (the
    columns up to it are fitted for both), or of the tables. Beyond it the derivative's value is that at it, which
    bounds |f'| from above (f' decreases there): a lane whose grad_out times that value rounds to 0 is served."""
    t = t_max(form)
    for j in range(32):
        lo, hi, _ = interval(j)
        if lo <= t < hi:
            return min(f32(hi - hi * mp.mpf(2) ** -24), f32(T_TABLE_END - mp.mpf(2) ** -18))
    raise AssertionError(t)


T_MAX = {}
T_MAX_DERIVATIVE = {}


def flushed(v, scale):
    """v rounded to float, or 0 where its term (scale: the interval's half-width to the term's power over the
    constant) is below 2^-60 of the constant: 2^-36 of an ULP of the result, so it contributes nothing, and where
    such tiny coefficients meet a small d they make subnormal intermediates, a microcode assist on Intel in every
    operation they enter (the sigmoid's far columns, where A and B are linear to 2^-80)."""
    r = f32(v)
    return mp.mpf(0) if abs(r) * scale < mp.mpf(2) ** -60 else r


def hexf(v):
    if v == 0:
        return "0"
    mant, exp = float.hex(float(v)).split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp


def exp_tables():
    """2^(-j/32), j = 0..31, as float pairs, and ln2/32 split for the reduction n = round(E * 32/ln2),
    r = E - n ln2/32: the first part has 11 significant bits, so n * part is exact for n < 2^13."""
    hi = [f32(mp.mpf(2) ** (-mp.mpf(j) / 32)) for j in range(32)]
    lo = [f32(mp.mpf(2) ** (-mp.mpf(j) / 32) - h) for j, h in enumerate(hi)]
    ln2_32 = mp.log(2) / 32
    c1 = mp.floor(ln2_32 * 2**16) / 2**16  # 11 significant bits (ln2/32 < 2^-5)
    c2 = f32(ln2_32 - c1)
    c3 = f32(ln2_32 - c1 - c2)
    for part, v in (("Hi", c1), ("Mid", c2), ("Lo", c3)):
        print(f"inline constexpr float kTailExpLn2Over32{part} = {hexf(v)}f;")
    print(f"inline constexpr float kTailExpThirtyTwoOverLn2 = {hexf(f32(32 / mp.log(2)))}f;")
    print("// 2^(-j/32) = row 0 + row 1 (a float pair), column j.")
    print("inline constexpr TailExpTable kTailExp2 = {{")
    for r in (hi, lo):
        print("    {" + ", ".join(hexf(v) + ("f" if v else "") for v in r) + "},")
    print("}};")
    for name, v in (("kTailTanhZ1", K2), ("kTailTanhZ3", K2 * C3), ("kTailSigmoidScale", SIG)):
        h = f32(v)
        print(f"inline constexpr float {name}Hi = {hexf(h)}f, {name}Lo = {hexf(f32(v - h))}f;  // float pair")


def main():
    for f in FORMS:
        T_MAX[f] = t_max(f)
        T_MAX_DERIVATIVE[f] = t_max_derivative(f)
    print("// Per function, the largest t the tables serve (t_max, t_max_derivative in tail_intervals.py): the")
    print("// forward's kTailZeroFrom, or the last float below 64 (the tables' end); the derivative's, the last float")
    print("// of the column that holds the forward's. E(t) < 113 there, so n < 2^13 (the reduction's integers fit) and")
    print("// 2^-m > 2^-164; f(-t) rounds to -0 beyond (selected); beyond the derivative's, its tail serves the lanes")
    print("// whose result rounds to 0 from the value there, the double path the others (a huge grad_out can still")
    print("// give a float); f(t) = t, f'(t) = 1 to far below half an ULP.")
    print("// (scalars, not arrays: CUDA device code reads a host constexpr only as a scalar constant)")
    for f in FORMS:
        print(f"inline constexpr float kTailTMax{f}Forward = {hexf(T_MAX[f])}f;")
        print(f"inline constexpr float kTailTMax{f}Derivative = {hexf(T_MAX_DERIVATIVE[f])}f;")
    print("// Per function, the x from which the tail's result is x (forward) or grad_out (derivative) rounded:")
    print("// |f(-t)| / t or |f'(-t)| < 2^-26 for t >= it (identity_from in tail_intervals.py); kernels skip the tail")
    print("// there, and the exhaustive tail-identity test checks TailF32 gives exactly that up to kTailTMax.")
    for name in ["ExactForward", "TanhForward", "SigmoidForward", "ExactDerivative", "TanhDerivative",
                 "SigmoidDerivative"]:
        print(f"inline constexpr float kTailIdentityFrom{name} = {hexf(identity_from(name))}f;")
    print("// Per function, the t from which x = -t gives a zero: |f(-t)| < 2^-151 or |f'(-t)| < 2^-279 for t >= it")
    print("// (zero_from in tail_intervals.py); kernels return -0 (forward) or grad_out * -0 (derivative) there by")
    print("// selection, and the exhaustive suite checks every input.")
    for name in ["ExactForward", "TanhForward", "SigmoidForward", "ExactDerivative", "TanhDerivative",
                 "SigmoidDerivative"]:
        print(f"inline constexpr float kTailZeroFrom{name} = {hexf(zero_from(name))}f;")
    exp_tables()
    for name in ["ExactForward", "TanhForward", "SigmoidForward", "ExactDerivative", "TanhDerivative",
                 "SigmoidDerivative"]:
        form = name[:-7] if name.endswith("Forward") else name[:-10]
        rows = [[] for _ in range(DEGREE + 3)]
        worst, worst_k = 0, 0
        for k in range(32):
            lo, hi, c = interval(k)
            if lo > T_MAX[form]:
                for r in rows:
                    r.append(0)
                continue
            c, a0hi, a0lo, rest, err = fit_interval(name, k)
            for r, v in zip(rows, [c, a0hi, a0lo] + rest):
                r.append(v)
            if err > worst:
                worst, worst_k = err, k
        print(f"// kTail{name}: worst relative error 2^{float(mp.log(worst, 2)):.2f} (column {worst_k})")
        print(f"inline constexpr TailTable kTail{name} = {{{{")
        for r in rows:
            print("    {" + ", ".join(hexf(v) + ("f" if v else "") for v in r) + "},")
        print("}};")


if __name__ == "__main__":
    main()
