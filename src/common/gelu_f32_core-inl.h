// SPDX-License-Identifier: Apache-2.0
// The per-lane float32 core math of src/common/gelu_f32_math.h (method, bounds and proof are documented there),
// written once against an operations policy `o`. No include guard and no includes, on purpose: it is included
// inside a namespace, once in gelu::common (ScalarOps: host and CUDA device) and once per Highway target inside
// gelu::HWY_NAMESPACE (src/cpu/gelu-inl.h), so that each target compiles it with its own instruction set (GCC
// does not inline a target's vector operations into a function compiled for another).
// Needs GELU_HD, the tables of src/common/core_tables.h and src/common/polynomial-inl.h in scope.

// True where x is in the core range (false for NaN): the lanes the float polynomial serves.
template <class Ops, class V>
GELU_HD auto InCore(const Ops& o, V x) {
  return o.And(o.Ge(x, o.Set(common::kCoreMin)), o.Lt(x, o.Set(common::kCoreEnd)));
}

// An interval polynomial's value as head + tail, |tail| a small fraction of |head|: the caller forms u times it as
// fma(u, head, u * tail), so that the one full-size rounding is the last one.
template <class V>
struct HeadTail {
  V head, tail;
};

// The interval polynomial of the core and of the sigmoid ring: for v (x in the core, t = |x| in the ring) and
// shifted = v + kCoreShifter, the function the table of kind kKind fits at v (f, f/x or f'), as head + tail. The
// table's column is `column` (j mod 32 from shifted; the AVX2 kernel's kCoreAndRingRowsKind adds 32 for a ring
// lane, and `ring` says which lanes those are). kKind kRingRowsKind reads the ring's rows hi, lo, a1..a5 and starts
// the polynomial at a5: the same bits as a6 = 0 (fma(0, d, a5) = a5), which is what the combined table holds in a
// ring column, so a lane gets the same bits whichever kind evaluates it.
template <int kForm, bool kDerivative, int kKind, class Ops, class V, class C, class M = bool>
GELU_HD HeadTail<V> IntervalsF32(const Ops& o, V v, V shifted, C column, const M* ring = nullptr) {
  // shifted = kCoreShifter + c, c = v rounded to a multiple of 1/4 (ties to even), exact; d = v - c, exact,
  // |d| <= 1/8. Interval tests compare shifted with kCoreShifter + a centre (exact: the float spacing there is
  // 1/4), so c itself is never formed: the policy may compute d from v alone (AVX-512: one vreduceps).
  V d = o.QuarterOffset(v, shifted);
  // The column's coefficients (core_tables.h): rows 0..7 (hi, lo, a1..a6), or 0..6 for the ring (no a6).
  constexpr bool kHasA6 = kKind != common::kRingRowsKind;
  V row[kHasA6 ? 8 : common::kRingDegree + 2];
  static_assert(common::kRingDegree == 5, "the ring's rows are the core's less a6");
  o.template Rows<kKind, kForm, kDerivative>(column, row);
  // The derivative's root interval is expanded about the float just above the root (CoreRootInterval; exact). A ring
  // lane never matches: its shifted is kCoreShifter + c with c >= 4.
  using Root = common::CoreRootInterval<kForm>;
  constexpr float kShiftedRoot = common::kCoreShifter + Root::kCentre;
  static_assert(kShiftedRoot - common::kCoreShifter == Root::kCentre, "an exact shifted centre");
  [[maybe_unused]] const auto root = o.Eq(shifted, o.Set(kShiftedRoot));
  if constexpr (kDerivative && kKind != common::kRingRowsKind) d = o.SubWhere(root, d, o.Set(Root::kOffset));
  // q = a2 + a3 d + ... + a6 d^4. Derivatives: Estrin's scheme, ((a6 d + a5) d + a4) d^2 + (a3 d + a2), three
  // dependent FMAs after d^2 instead of Horner's four, and the tail takes q d^2 in one FMA (the loop is
  // latency-bound). Its extra rounding stays well within the derivatives' 2-ULP bound (measured maxima:
  // docs/exhaustive_maxima.md). Forwards keep Horner: the exact forward's bound is 1 ULP, and Estrin's extra
  // rounding would take half its remaining margin for a gain within the noise (docs/EXPERIMENTS.md).
  // The split of the derivatives' scheme is not EstrinTree's (which would take a6 d^4 + (a2 .. a5)): (a4 .. a6) by
  // Horner times d^2, plus (a2 .. a3) by Horner.
  const V d2 = o.Mul(d, d);
  constexpr int kLast = kHasA6 ? 7 : 6;  // the row of the highest coefficient
  const Elements<V> rows{row};
  V q;
  if constexpr (kDerivative) {
    q = o.MulAdd(HornerSteps<5, kLast>(o, d, rows), d2, HornerSteps<3, 4>(o, d, rows));
  } else {
    q = HornerSteps<3, kLast>(o, d, rows);  // a2 + d * (a3 + ...)
  }
  const V a1 = row[2];
  const V lo = row[1];
  const V hi = row[0];
  // Forwards, and the ring's derivatives: |d * a1| <= ~0.5 |f(x)| (at x = -3.875, where the table fits f itself;
  // |f'/f| ~ |x| there; in the ring <= 0.22 |f| and |f'|), and the linear term enters the tail through one fma:
  // the tail is rounded once, to half its own ULP (a quarter of the result's), and the rest (lo + q d^2, a few
  // percent of the result) carries negligible error: the exact forward stays within its 1-ULP bound, tanh and
  // sigmoid within 2 (measured maxima over all inputs: docs/exhaustive_maxima.md). Adding the linear term exactly
  // too (as the core's derivatives do) is more accurate but costs several operations on the critical path; a
  // plain Horner tail, fma(fma(q, d, a1), d, lo), rounds q d + a1 first and exceeds the exact form's 1-ULP bound
  // (docs/EXPERIMENTS.md).
  const V linear_in_tail = o.MulAdd(a1, d, o.MulAdd(q, d2, lo));
  if constexpr (!kDerivative || kKind == common::kRingRowsKind) {
    return HeadTail<V>{hi, linear_in_tail};
  } else {
    // The core's derivatives (bound 2 ULP, any grad_out too): next to f's minimum |f'| is small beside its
    // variation over an interval, so |d * a1| reaches ~1.3 |f'| there. The linear term is added exactly
    // (TwoProduct by FMA, then Fast2Sum), so that the tail's rounding, and that of grad_out * tail, are those of the
    // quadratic and higher terms only. Fast2Sum is exact when |hi| >= |d * a1|, which holds on every interval
    // except the root intervals, and there hi = 0 (their tiny constant is in lo). Without this (the form above) the
    // linear term's rounding, up to ~1.3 |f'| in size, would use most of the 2-ULP bound before grad_out's rounding.
    // The two errors, d a1 - t (TwoProduct's) and hi + t - head (Fast2Sum's), enter the tail as their sum rounded
    // once, hi + d a1 - head, which one fma computes from hi - head (exact: Fast2Sum's first step) and d a1:
    // the same value as the exact errors' rounded sum, in two operations instead of four, off the critical path's
    // length; the same bits on all 2^32 inputs (compared, grad_out 1 and -0x1.3579bp-3; docs/EXPERIMENTS.md).
    const V t = o.Mul(d, a1);
    const V head = o.Add(hi, t);
    const V errors = o.MulAdd(d, a1, o.Sub(hi, head));
    // lo plus d times the low part of a1 (the root interval only)
    const V low = o.MulAddWhere(root, d, o.Set(Root::kA1Lo), lo);
    const V tail = o.MulAdd(q, d2, o.Add(low, errors));
    // Both tables at once (CoreOrRingF32): the ring's lanes take the ring's arithmetic.
    if constexpr (kKind == common::kCoreAndRingRowsKind) {
      return HeadTail<V>{o.IfThenElse(*ring, hi, head), o.IfThenElse(*ring, linear_in_tail, tail)};
    }
    return HeadTail<V>{head, tail};
  }
}

// grad_out times an interval's value, rounded once.
template <class Ops, class V>
GELU_HD V TimesHeadTail(const Ops& o, V u, HeadTail<V> p) {
  return o.MulAdd(u, p.head, o.Mul(u, p.tail));
}

// grad_out times a derivative interval's value, rounded once, with the zero of the sign IEEE gives grad_out * f'(x)
// for grad_out = +-0. fma(g, head, g * tail) alone adds two zeros of opposite signs to +0 where head and tail differ
// in sign (x = -1, g = +0 gave +0 for -0; the sigmoid ring's x = -4.25 too). The sign of head is that of f' on every
// input: in the ring (f'(-t)) and the core's intervals but the root's |tail| < |head| (the core's head = hi + d a1
// by Fast2Sum, hi the interval's f'(c)), and on the root interval head = d a1 rounded, a1 > 0, with d = 0 at the
// float just above the root, where f' = lo > 0 and head = +0 (CoreRootInterval asserts both). So ORing the sign of
// g * head into the result sets a zero's sign and leaves every other result as it was (the same bits on all 2^32 inputs for grad_out 1 and -0x1.3579bp-3; the
// exhaustive suite checks the zero's sign on every input). Two operations on AVX-512, three on AVX2, about what
// the fma that forms the core's errors (IntervalsF32) saves; the ring needs one (RingF32). docs/EXPERIMENTS.md.
template <class Ops, class V>
GELU_HD V SignedTimesHeadTail(const Ops& o, V g, HeadTail<V> p) {
  return o.OrSignOfProduct(TimesHeadTail(o, g, p), g, p.head);
}

// The forward tables fit f(x)/x from the interval centred at kCoreFirstRatioCentre up: there u = x.
template <class Ops, class V>
GELU_HD auto FitsRatio(const Ops& o, V shifted) {
  constexpr float kShiftedFirstRatio = common::kCoreShifter + common::kCoreFirstRatioCentre;
  static_assert(kShiftedFirstRatio - common::kCoreShifter == common::kCoreFirstRatioCentre, "an exact shifted centre");
  return o.Ge(shifted, o.Set(kShiftedFirstRatio));
}

// The core evaluation of form kForm (0 none, 1 tanh, 2 sigmoid): f(x) (kDerivative false) or grad_out * f'(x)
// (kDerivative true), for x in the core range. Lanes outside it return unspecified values (finite, or NaN); the
// caller replaces them. The polynomial's value times x where the forward table fits f(x)/x, times 1 where it fits f,
// times grad_out for derivatives.
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD V CoreF32(const Ops& o, V x, V grad_out) {
  const V shifted = o.Add(x, o.Set(common::kCoreShifter));
  const auto p = IntervalsF32<kForm, kDerivative, common::kCoreRowsKind>(o, x, shifted, o.Column(shifted));
  if constexpr (kDerivative) return SignedTimesHeadTail(o, grad_out, p);
  // f(x) has the sign of x, zeros included, with no copysign: only x = -0 could miss it, and there c = 0, whose
  // forward tables hold hi = 1/2, lo = +0 exactly (core_intervals.sollya), so tail = +0 and y = -0 * 1/2 + -0 * +0
  // = -0 (the exhaustive suite counts +0 and -0 apart). Tiny x != 0 get the sign of x * hi, which dominates.
  return o.TimesWhere(FitsRatio(o, shifted), x, p.head, p.tail);
}

// True where |x| < kRingEnd (false for NaN): with InCore false, the lanes RingF32 serves (forms with F32Form::kHasRing).
template <class Ops, class V>
GELU_HD auto InRing(const Ops& o, V x) {
  return o.Lt(o.Abs(x), o.Set(common::kRingEnd));
}

// The sigmoid ring's finish (RingF32): y = f(-t) (u = 1) or grad_out f'(-t) (u = grad_out) from IntervalsF32 at
// t = |x|; for x > 0, f(t) = t + f(-t) and grad_out f'(t) = grad_out - grad_out f'(-t). There |f(-t)| / t <= 0.0014
// and |f'(-t)| <= 0.0077, so y's rounding moves the result by under 2^-31 of itself. (grad_out - y, not
// y + grad_out with u = -grad_out: for grad_out = -0 that would give +0.)
template <bool kDerivative, class Ops, class V, class M>
GELU_HD V RingFinish(const Ops& o, V x, V grad_out, V y, M positive_ring) {
  return o.IfThenElse(positive_ring, kDerivative ? o.Sub(grad_out, y) : o.Add(x, y), y);
}

// The sigmoid ring (src/common/gelu_f32_math.h): f(x) (kDerivative false) or grad_out * f'(x) for x outside the
// core range with |x| < kRingEnd. Lanes elsewhere return unspecified values; the caller replaces them.
// With t = |x| the table (core_tables.h, kRingSigmoid*) fits f(-t) or f'(-t) to degree 5 on intervals of width 1/4
// centred on c = t rounded to a multiple of 1/4 (4 <= c <= 11.75), in the core's layout, evaluated by the core's
// arithmetic (IntervalsF32) on t with u = 1 or grad_out, derivatives as forwards (the linear term inside the
// tail's fma): |a1 d| <= 0.22 |hi| (|f'/f| <= 1.75 on the ring), so the core's forward error argument holds with a
// smaller linear term. Fit 2^-27.8 relative; measured over all inputs: docs/exhaustive_maxima.md.
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD V RingF32(const Ops& o, V x, V grad_out) {
  static_assert(common::F32Form<kForm>::kHasRing, "a form with a ring");
  const V t = o.Abs(x);
  const V shifted = o.Add(t, o.Set(common::kCoreShifter));
  const auto p = IntervalsF32<kForm, kDerivative, common::kRingRowsKind>(o, t, shifted, o.Column(shifted));
  // Derivatives: f'(-t) < 0 on the whole ring (kRingNegativeDerivative), so grad_out f'(-t) has the sign of
  // -grad_out, and one operation gives a zero product its sign (SignedTimesHeadTail's general form takes two).
  static_assert(!kDerivative || common::kRingNegativeDerivative, "f'(-t) < 0 in every ring interval");
  const V y = kDerivative ? o.OrSignOfNegated(TimesHeadTail(o, grad_out, p), grad_out) : o.Add(p.head, p.tail);
  return RingFinish<kDerivative>(o, x, grad_out, y, o.Gt(x, o.Set(0.0f)));
}

// CoreF32 where `ring` is false and RingF32 where it is true, in one evaluation: v = x or |x|, and each lane's
// column read from the core's table or the ring's (the policy's kCoreAndRingRowsKind lookup, column + 32 for a ring
// lane). The same bits as the two functions lane by lane. For the AVX2 kernel, whose lookup reads any lane's own
// column at the same cost (a per-lane load), so a vector of core and ring lanes costs one evaluation, not two.
template <int kForm, bool kDerivative, class Ops, class V, class M>
GELU_HD V CoreOrRingF32(const Ops& o, V x, V grad_out, M ring) {
  static_assert(common::F32Form<kForm>::kHasRing, "a form with a ring");
  const V v = o.IfThenElse(ring, o.Abs(x), x);
  const V shifted = o.Add(v, o.Set(common::kCoreShifter));
  const auto p = IntervalsF32<kForm, kDerivative, common::kCoreAndRingRowsKind>(
      o, v, shifted, o.RingColumn(o.Column(shifted), ring), &ring);
  const V y = kDerivative ? SignedTimesHeadTail(o, grad_out, p)
                          : o.TimesWhere(o.AndNot(ring, FitsRatio(o, shifted)), x, p.head, p.tail);
  return RingFinish<kDerivative>(o, x, grad_out, y, o.And(ring, o.Gt(x, o.Set(0.0f))));
}

// The lanes (x >= kTailIdentityFrom<Function>, src/common/core_tables.h) where TailF32's result is x itself
// (forward) or grad_out (derivative): from there |f(-t)| / t or |f'(-t)| is below 2^-26 (identity_from in
// scripts/fit/tail_intervals.py), far below half an ULP of the result. Kernels return x or grad_out there without
// evaluating the tail; the exhaustive suite checks that TailF32 gives exactly those bits for every float from
// there to kTailTMax<Form> (beyond it TailF32's tables and E are those of kTailTMax, its correction smaller still).
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD auto TailIdentity(const Ops& o, V x) {
  constexpr float kFrom = common::F32Form<kForm>::TailIdentityFrom(kDerivative);
  return o.Ge(x, o.Set(kFrom));
}

// TailF32's result per lane: the value, and where it holds (elsewhere the caller takes the double path).
template <class V, class M>
struct TailResult {
  V value;
  M valid;
};

// The tail's exponent E(t) of each form, t >= 3.875 (TailF32: f(-t) = -exp(-E) A(t)), as e_hi + e_lo to ~2^-46
// relative, its constants float pairs (src/common/core_tables.h). One specialisation per form.
template <int kForm>
struct TailExponent;
// Exact form: E = t^2 / 2, exact as a float pair (TwoProduct, then halving).
template <>
struct TailExponent<common::kNone> {
  template <class Ops, class V>
  GELU_HD static void Eval(const Ops& o, V tc, V& e_hi, V& e_lo) {
    const V sq = o.Mul(tc, tc);
    e_hi = o.Mul(sq, o.Set(0.5f));
    e_lo = o.Mul(o.MulSub(tc, tc, sq), o.Set(0.5f));
  }
};
// Tanh form: E = z(t) = t (c1 + c3 t^2), c1 = 2 sqrt(2/pi), c3 = 0.044715 c1.
template <>
struct TailExponent<common::kTanh> {
  template <class Ops, class V>
  GELU_HD static void Eval(const Ops& o, V tc, V& e_hi, V& e_lo) {
    const V c3 = o.Set(common::kTailTanhZ3Hi);
    const V c1 = o.Set(common::kTailTanhZ1Hi);
    const V sq = o.Mul(tc, tc);
    const V sq_lo = o.MulSub(tc, tc, sq);
    const V w = o.Mul(c3, sq);  // c3 t^2 = w + w_lo; w >= 1.07 > c1 - 1 for t >= 3.875
    V w_lo = o.MulSub(c3, sq, w);
    w_lo = o.MulAdd(c3, sq_lo, w_lo);
    w_lo = o.MulAdd(o.Set(common::kTailTanhZ3Lo), sq, w_lo);
    const V u = o.Add(w, c1);  // Fast2Sum: exponent(w) >= exponent(c1) = 0
    const V u_lo = o.Add(o.Add(o.Sub(w, u), c1), o.Add(w_lo, o.Set(common::kTailTanhZ1Lo)));
    e_hi = o.Mul(tc, u);
    e_lo = o.MulAdd(tc, u_lo, o.MulSub(tc, u, e_hi));
  }
};
// Sigmoid form: E = 1.702 t, the product carried as a float pair.
template <>
struct TailExponent<common::kSigmoid> {
  template <class Ops, class V>
  GELU_HD static void Eval(const Ops& o, V tc, V& e_hi, V& e_lo) {
    const V s_hi = o.Set(common::kTailSigmoidScaleHi);
    e_hi = o.Mul(tc, s_hi);
    e_lo = o.MulAdd(tc, o.Set(common::kTailSigmoidScaleLo), o.MulSub(tc, s_hi, e_hi));
  }
};

// The tail evaluation of form kForm, for x outside the core range: f(x) (kDerivative false) or grad_out * f'(x).
// With t = |x|, f(-t) = -exp(-E) A(t), f'(-t) = -exp(-E) B(t) (tables and E in src/common/core_tables.h and
// scripts/fit/tail_intervals.py), and f(t) = t + f(-t), f'(t) = 1 - f'(-t). Valid lanes: x > 0 (+inf included),
// and x < 0 where |f(-t)| or |f'(-t)| >= 2^-126 (normal, so that the scaling by 2^-m is exact); not NaN, not
// -inf; for the backward with x < 0 also grad_out |f'(-t)| normal and finite. The backward rounds once:
// -(grad_out (h + s)) 2^-m for x < 0, fma(grad_out, |f'(-t)|, grad_out) for x > 0 (there |f'(-t)| < 2^-10, so
// its own rounding is far below the result's ULP); an infinite or NaN grad_out gets what IEEE gives.
// Error before the last rounding, relative: fit <= 2^-29 (tail_intervals.py), exp(-E) ~2^-30, products ~2^-26
// (where |a_lo| is near a fifth of |hi|: the steep B of tanh); measured over all inputs: docs/exhaustive_maxima.md.
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD auto TailF32(const Ops& o, V x, V grad_out) {
  const V t = o.Abs(x);
  const V tmax = o.Set(common::F32Form<kForm>::kTailTMax);
  const V tc = o.Min(t, tmax);
  // A(t) or B(t) = hi + a_lo, a_lo = lo + d * (a1 + ... + d^4 a5): |a_lo| up to about a fifth of hi (tanh's B,
  // which grows like t^3), a tenth or less elsewhere.
  V row[common::kTailRows];
  o.template Rows<common::kTailRowsKind, kForm, kDerivative>(o.TailColumn(tc), row);
  const V d = o.Sub(tc, row[0]);  // exact: c and t within a factor 2, c has few bits
  const V a_hi = row[1];
  const V a_lo = HornerSteps<2, common::kTailRows - 1>(o, d, Elements<V>{row});
  // E = e_hi + e_lo, to ~2^-46 relative: the form's exponent (TailExponent, above).
  V e_hi, e_lo;
  TailExponent<kForm>::Eval(o, tc, e_hi, e_lo);
  // exp(-E) = 2^-m 2^(-j/32) e^-r: n = 32 m + j = round(E 32 / ln2) (< 2^13 for t <= kTailTMax: E <= 102), read
  // from the low bits of kd; r = E - n ln2/32 in [-ln2/64, ln2/64] (Cody-Waite, the first product exact);
  // e^-r - 1 = p by Taylor to degree 4 (truncation < 2^-39).
  const V shifter = o.Set(0x1.8p23f);
  const V kd = o.MulAdd(e_hi, o.Set(common::kTailExpThirtyTwoOverLn2), shifter);
  const V minus_n = o.Sub(shifter, kd);
  V r = o.MulAdd(minus_n, o.Set(common::kTailExpLn2Over32Hi), e_hi);
  r = o.MulAdd(minus_n, o.Set(common::kTailExpLn2Over32Mid), r);
  r = o.Add(r, o.MulAdd(minus_n, o.Set(common::kTailExpLn2Over32Lo), e_lo));
  const V p = o.Mul(HornerSteps<0, 3>(o, r, Constants<common::kTailExpTaylor>{}), r);
  V e2[2];
  o.template Rows<common::kTailExp2RowsKind, kForm, kDerivative>(o.Column(kd), e2);
  const V e2_hi = e2[0];
  const V e2_lo = e2[1];
  // K = (e2_hi + e2_lo)(a_hi + a_lo)(1 + p) = h + s, h = e2_hi a_hi (TwoProduct), then y = h + s rounded once.
  const V h = o.Mul(e2_hi, a_hi);
  const V h_lo = o.MulSub(e2_hi, a_hi, h);
  const V cross = o.MulAdd(e2_hi, a_lo, o.Mul(e2_lo, a_hi));
  const V s = o.MulAdd(h, p, o.Add(cross, o.MulAdd(cross, p, h_lo)));
  const V y = o.Add(h, s);
  // |f(-t)| or |f'(-t)| = y 2^-m = (y 2^-64) 2^(64 - m): both products exact while the result is normal. For
  // t > kTailTMax (and NaN) the tables and E are those of kTailTMax, where this is below 2^-126 (subnormal, inexact):
  // the positive side's value is then x and grad_out exactly (it is far below half an ULP of either).
  const V pow2 = o.Pow2OfShifted(kd);
  const V big = o.Mul(o.Mul(y, o.Set(0x1p-64f)), pow2);
  const auto positive = o.Gt(x, o.Set(0.0f));
  if constexpr (kDerivative) {
    // x < 0: grad_out joins before the one rounding, -(grad_out (h + s)) 2^-m, so another grad_out gets the error of
    // grad_out = 1 (rounding y first and then the product would double it). Valid while that is normal, finite and
    // t <= kTailTMax (beyond, a huge grad_out could lift the kTailTMax value above 2^-126).
    // The scaling by 2^-64 is exact only while grad_out (h + s) >= 2^-62 in magnitude: a tiny grad_out (2^-91 at
    // x = -5.6, tanh form) would otherwise underflow there and lose most bits although the result is normal.
    const V product = o.MulAdd(grad_out, h, o.Mul(grad_out, s));
    const V scaled = o.Mul(o.Mul(product, o.Set(0x1p-64f)), pow2);
    const V value = o.IfThenElse(positive, o.MulAdd(grad_out, big, grad_out), o.Neg(scaled));
    const V magnitude = o.Abs(scaled);
    const auto normal = o.And(o.And(o.Ge(magnitude, o.Set(0x1p-126f)), o.Le(magnitude, o.Set(0x1.fffffep127f))),
                              o.Ge(o.Abs(product), o.Set(0x1p-62f)));
    const auto valid = o.Or(positive, o.And(o.Le(t, tmax), normal));
    return TailResult<V, decltype(valid)>{value, valid};
  } else {
    const V value = o.IfThenElse(positive, o.Sub(x, big), o.Neg(big));
    const auto valid = o.Or(positive, o.Ge(big, o.Set(0x1p-126f)));
    return TailResult<V, decltype(valid)>{value, valid};
  }
}
