// SPDX-License-Identifier: Apache-2.0
// The per-lane float32 core math of src/common/gelu_f32_math.h (method, bounds and proof are documented there),
// written once against an operations policy `o`. No include guard and no includes, on purpose: it is included
// inside a namespace, once in gelu::common (ScalarOps: host and CUDA device) and once per Highway target inside
// gelu::HWY_NAMESPACE (src/cpu/gelu-inl.h), so that each target compiles it with its own instruction set (GCC
// does not inline a target's vector operations into a function compiled for another).
// Needs GELU_HD and the tables of src/common/core_tables.h in scope.

// True where x is in the core range (false for NaN): the lanes the float polynomial serves.
template <class Ops, class V>
GELU_HD auto InCore(const Ops& o, V x) {
  return o.And(o.Ge(x, o.Set(common::kCoreMin)), o.Lt(x, o.Set(common::kCoreEnd)));
}

// The core evaluation of form kForm (0 none, 1 tanh, 2 sigmoid): f(x) (kDerivative false) or grad_out * f'(x)
// (kDerivative true), for x in the core range. Lanes outside it return unspecified values (finite, or NaN); the
// caller replaces them.
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD V CoreF32(const Ops& o, V x, V grad_out) {
  const common::CoreTable& table = common::CoreTableFor(kForm, kDerivative);
  const V shifted = o.Add(x, o.Set(common::kCoreShifter));
  const V c = o.Sub(shifted, o.Set(common::kCoreShifter));  // x rounded to a multiple of 1/4, exact
  const auto column = o.Column(shifted);                     // j mod 32
  V d = o.Sub(x, c);                                         // exact, |d| <= 1/8
  // Derivatives' root intervals are expanded about the float nearest the root; exact (core_intervals.sollya).
  if constexpr (kDerivative) d = o.Sub(d, o.Lookup(table.row[8], column));
  V q = o.Lookup(table.row[7], column);
  q = o.MulAdd(q, d, o.Lookup(table.row[6], column));
  q = o.MulAdd(q, d, o.Lookup(table.row[5], column));
  q = o.MulAdd(q, d, o.Lookup(table.row[4], column));
  q = o.MulAdd(q, d, o.Lookup(table.row[3], column));  // a2 + d * (a3 + ...)
  const V a1 = o.Lookup(table.row[2], column);
  const V lo = o.Lookup(table.row[1], column);
  const V hi = o.Lookup(table.row[0], column);
  // u multiplies the fitted polynomial: x where the forward table fits f(x)/x, 1 where it fits f, grad_out for
  // derivatives. The result is fma(u, head, u * tail) with head + tail the polynomial's value and |tail| a small
  // fraction of it, so the one full-size rounding is the last one.
  V u = grad_out;
  if constexpr (!kDerivative) u = o.IfThenElse(o.Ge(c, o.Set(common::kCoreFirstRatioCentre)), x, o.Set(1.0f));
  V y;
  if constexpr (kForm == 0 || kDerivative) {
    // The exact forward (bound 1 ULP) and the derivatives (near their root |f'| is small beside its variation over
    // an interval): the linear term is added exactly as well (TwoProduct by FMA, then Fast2Sum), so that the
    // tail's rounding, scaled by |tail| / |result| (up to ~0.6 at x = -4 for f, above 1 next to f's root), is
    // that of the quadratic and higher terms only. Fast2Sum is exact when |hi| >= |d * a1|, which holds on
    // every interval except the derivatives' root intervals, and there hi = 0 (their tiny constant is in lo).
    const V t = o.Mul(d, a1);
    const V t_lo = o.MulAdd(d, a1, o.Neg(t));  // d * a1 - t, exact
    const V head = o.Add(hi, t);
    const V head_lo = o.Add(o.Sub(hi, head), t);  // hi + t - head, exact
    V low = lo;  // plus, for derivatives, d times the low part of a1 (root intervals; zero elsewhere)
    if constexpr (kDerivative) low = o.MulAdd(d, o.Lookup(table.row[9], column), lo);
    const V tail = o.MulAdd(o.Mul(q, d), d, o.Add(low, o.Add(t_lo, head_lo)));
    y = o.MulAdd(u, head, o.Mul(u, tail));
  } else {
    const V tail = o.MulAdd(o.MulAdd(q, d, a1), d, lo);
    y = o.MulAdd(u, hi, o.Mul(u, tail));
  }
  // f(x) has the sign of x; only x = -0 needs this (u * tail can be +0 there).
  if constexpr (!kDerivative) y = o.CopySign(y, x);
  return y;
}
