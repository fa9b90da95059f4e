// SPDX-License-Identifier: Apache-2.0
// The double path of the float32 functions (method, error bounds and special values: src/common/gelu_scalar.h),
// written once against an operations policy `o`: common::ScalarDoubleOps (one lane: host, CUDA device, the
// bf16/fp16 and fused functions) or HwyOps over a double vector (src/cpu/gelu-inl.h: the double-lane float32
// kernel, the lanes the float tail leaves, the storage kernels). Every policy performs the same IEEE operations in
// the same order (FMA where this file says MulAdd), so on targets with native FMA every SIMD target returns the
// scalar path's bits by construction. No include guard and no includes, on purpose: like gelu_f32_core-inl.h, it
// is included inside a namespace, once in gelu::common and once per Highway target inside gelu::HWY_NAMESPACE, so
// that each target compiles it with its own instruction set. Needs GELU_HD, src/common/coefficients.h and
// src/common/polynomial-inl.h in scope.

// Polynomial (Estrin's scheme) is in src/common/polynomial-inl.h, with the evaluators of the float32 core and of
// float64. Estrin, not Horner, here: the double-lane kernels are latency-bound. Every coefficient term here is far
// below the polynomial's value or decreasing fast, so the evaluation error stays a few units of 2^-53, far below
// each fit's error (coefficients.h); the exhaustive suites check the results.

// exp(z) for z in [-290, 0] (the callers clamp: kSigmoidZMax, kSigmoidDerivativeZMax = 290, kExactTMax and
// kExactDerivativeTMax^2 / 2 = 288; 2^k stays a normal double down to k = -1022), relative error < 2^-45.
// k = round(z / ln2) through the shifter (exact: |z/ln2| < 2^9), r = z - k ln2 in two FMAs (Cody-Waite;
// k*kLn2Hi exact), exp(r) by the degree-9 polynomial, times 2^k built from the shifter's low bits.
template <class Ops, class V>
GELU_HD V ExpNegBounded(const Ops& o, V z) {
  const V shifter = o.Set(common::kRoundShifter);
  const V kd = o.MulAdd(z, o.Set(common::kLog2e), shifter);
  const V k = o.Sub(kd, shifter);
  V r = o.MulAdd(k, o.Set(-common::kLn2Hi), z);
  r = o.MulAdd(k, o.Set(-common::kLn2Lo), r);
  const V p = Polynomial<common::kExpPoly, common::kExpDegree>(o, r);
  return o.Mul(p, o.Pow2FromShifter(kd));
}

// f'(x) where `far` (beyond a form's cutoff), v elsewhere; v there is the first term (Phi(x) or sigmoid(z)). Every form
// has f'(x) < 0 for all x below its root (x ~ -0.75), and past the derivative's cutoff (kExactDerivativeTMax,
// kSigmoidDerivativeZMax) |f'| < 2^-408, so grad_out f' rounded to float32 is -0 times the sign of grad_out for every
// finite float32 grad_out (and GEGLU's grad_out * b): returning the tiny positive first term would round to +0.
// f'(-inf) = +0 (the limit, as the reference has it); for x > 0 the first term is 1 (or within 2^-170 of it).
template <class Ops, class V, class M>
GELU_HD V FarDerivative(const Ops& o, V x, M far, V v) {
  const V zero = o.IfThenElse(o.Gt(x, o.Set(-HUGE_VAL)), o.Set(-0.0), o.Set(0.0));
  return o.IfThenElse(o.And(far, o.Lt(x, o.Set(0.0))), zero, v);
}

// Phi(-t) for t in [0, kExactTMax], given e = exp(-t^2/2).
template <class Ops, class V>
GELU_HD V PhiNegative(const Ops& o, V t, V e) {
  const V p = o.Set(common::kMillsScale);
  const V tau = o.Div(p, o.Add(p, t));
  const V g = Polynomial<common::kMillsTau, common::kMillsDegree>(o, tau);
  return o.Mul(e, o.Mul(tau, g));
}

// f'(-t) for kExactTMax < t <= kExactDerivativeTMax: f'(-t) = Phi(-t) - t phi(t) = -t phi(t) (1 - R(t) / t), R
// the Mills ratio Phi(-t) / phi(t), whose asymptotic series gives R(t) t = 1 - u + 3u^2 - 15u^3 + 105u^4, u = 1/t^2,
// with an error below its first omitted term 945 u^5 (alternating series; u <= 1/240): R/t is below u = 2^-7.9,
// so f' is within 945 u^6 <= 2^-37.6 of the series' value (relative; mpmath: 2^-37.6 at t = 15.5, 2^-45.1 at 24),
// and e = exp(-t^2/2) (t^2 exact; ExactForm's) within 2^-45. No cancellation: R/t < 2^-7.9. Rare lanes (|x| >
// 15.5), in a branch.
template <class Ops, class V>
GELU_HD V ExactDeepDerivative(const Ops& o, V t, V e) {
  const V u = o.Div(o.Set(1.0), o.Mul(t, t));
  const V series =
      HornerSteps<0, common::kMillsAsymptoticDegree>(o, u, Constants<common::kMillsAsymptotic>{});
  const V t_phi = o.Mul(t, o.Mul(o.Set(common::kInvSqrt2Pi), e));
  return o.Neg(o.Mul(t_phi, o.MulAdd(o.Neg(u), series, o.Set(1.0))));
}

// Exact form, f(x) (kDerivative false) or f'(x), x a float32 value held in double.
template <bool kDerivative, class Ops, class V>
GELU_HD V ExactForm(const Ops& o, V x) {
  const V tmax = o.Set(common::kExactTMax);
  const V ax = o.Abs(x);
  const V t = o.Min(ax, tmax);  // NaN -> tmax (as x86 minpd): NaN flows through x below
  // The derivative's exp serves its deep tail too (ExactDeepDerivative), so its argument stops at
  // kExactDerivativeTMax: the same e for |x| <= kExactTMax; beyond, q (at t = kExactTMax) gets a smaller e, which
  // changes no result (x > kExactTMax: Phi = 1 - q rounds to 1 either way; x < -kExactTMax: the deep or the far
  // value replaces it).
  const V te = kDerivative ? o.Min(ax, o.Set(common::kExactDerivativeTMax)) : t;
  const V e = ExpNegBounded(o, o.Mul(o.Set(-0.5), o.Mul(te, te)));
  const V q = PhiNegative(o, t, e);
  const auto negative = o.Lt(x, o.Set(0.0));
  const V phi = o.IfThenElse(negative, q, o.Sub(o.Set(1.0), q));
  const auto far = o.Gt(ax, tmax);
  if constexpr (!kDerivative) {
    return o.IfThenElse(o.And(far, negative), o.Set(-0.0), o.Mul(x, phi));
  } else {
    // f' = Phi(x) + x phi(x); beyond kExactTMax the second term is < 2^-170 (and x*e would be inf*0 at inf).
    const V w = o.IfThenZeroElse(far, o.Mul(x, o.Mul(o.Set(common::kInvSqrt2Pi), e)));
    V v = o.Add(phi, w);
    // x < 0 beyond kExactTMax, up to kExactDerivativeTMax: the deep tail, where grad_out f' can still be a float.
    const V tdeep = o.Set(common::kExactDerivativeTMax);
    const auto deep = o.And(o.And(far, negative), o.Le(ax, tdeep));
    if constexpr (Ops::kOneLane) {
      if (deep) v = ExactDeepDerivative(o, te, e);
    } else if (!o.AllTrue(o.Le(ax, tmax))) {  // some lane past kExactTMax (or NaN): rare
      v = o.IfThenElse(deep, ExactDeepDerivative(o, te, e), v);
    }
    return FarDerivative(o, x, o.Gt(ax, tdeep), v);
  }
}

// Sigmoid forms f(x) = x * sigmoid(z) and f', given z and dz/dx (sign(z) = sign(x) for every form).
template <bool kDerivative, class Ops, class V>
GELU_HD V SigmoidForm(const Ops& o, V x, V z, V dz) {
  const V zmax = o.Set(kDerivative ? common::kSigmoidDerivativeZMax : common::kSigmoidZMax);
  const V az = o.Abs(z);
  const V e = ExpNegBounded(o, o.Neg(o.Min(az, zmax)));
  const V r = o.Div(o.Set(1.0), o.Add(o.Set(1.0), e));
  const auto negative = o.Lt(x, o.Set(0.0));
  const V s = o.IfThenElse(negative, o.Mul(e, r), r);
  const auto far = o.Gt(az, zmax);
  if constexpr (!kDerivative) {
    return o.IfThenElse(o.And(far, negative), o.Set(-0.0), o.Mul(x, s));
  } else {
    // f' = s + x z' s (1 - s), s (1 - s) = e r^2; beyond kSigmoidDerivativeZMax that term is < 2^-408 (and x z'
    // may be inf).
    const V w = o.IfThenZeroElse(far, o.Mul(o.Mul(x, dz), o.Mul(e, o.Mul(r, r))));
    return FarDerivative(o, x, far, o.Add(s, w));
  }
}

// Common range |x| <= kCommonRangeMax of the exact and tanh forms: f = x (1/2 + x A(s)), f' = 1/2 + x C(s),
// s = x^2 (exact). No exp, no division: about 16 operations instead of 45 (coefficients.h).
template <bool kDerivative, const auto& kForward, int kForwardDegree, const auto& kDerivativeCoefficients,
          int kDerivativeDegree, class Ops, class V>
GELU_HD V CommonRange(const Ops& o, V x) {
  const V s = o.Mul(x, x);
  if constexpr (kDerivative) {
    return o.MulAdd(x, Polynomial<kDerivativeCoefficients, kDerivativeDegree>(o, s), o.Set(0.5));
  } else {
    return o.Mul(x, o.MulAdd(x, Polynomial<kForward, kForwardDegree>(o, s), o.Set(0.5)));
  }
}

// The double path's formula of each form, one block per form: General, the path for every x (for |x| >
// kCommonRangeMax where the form has a common range; the float-core kernels also send it the tail lanes the float
// tail leaves invalid: results below 2^-126 for x < 0, -inf, NaN), and, where kHasCommonRange, InCommonRange,
// the polynomial for |x| <= kCommonRangeMax (coefficients.h).
template <int kForm>
struct InDoubleForm;
// Exact form: x Phi(x) through erfc (ExactForm); common range fitted to f and f'.
template <>
struct InDoubleForm<common::kNone> {
  static constexpr bool kHasCommonRange = true;
  template <bool kDerivative, class Ops, class V>
  GELU_HD static V General(const Ops& o, V x) {
    return ExactForm<kDerivative>(o, x);
  }
  template <bool kDerivative, class Ops, class V>
  GELU_HD static V InCommonRange(const Ops& o, V x) {
    return CommonRange<kDerivative, common::kCommonExactForward, common::kCommonExactForwardDegree,
                          common::kCommonExactDerivative, common::kCommonExactDerivativeDegree>(o, x);
  }
};
// Tanh form: x sigmoid(z), z = 2 sqrt(2/pi) (x + 0.044715 x^3) (SigmoidForm); common range fitted to f and f'.
template <>
struct InDoubleForm<common::kTanh> {
  static constexpr bool kHasCommonRange = true;
  template <bool kDerivative, class Ops, class V>
  GELU_HD static V General(const Ops& o, V x) {
    const V x2 = o.Mul(x, x);  // exact for float32 x
    const V z = o.Mul(x, o.MulAdd(o.Set(common::kTanhZ3), x2, o.Set(common::kTanhZ1)));
    const V dz = o.MulAdd(o.Set(3.0 * common::kTanhZ3), x2, o.Set(common::kTanhZ1));
    return SigmoidForm<kDerivative>(o, x, z, dz);
  }
  template <bool kDerivative, class Ops, class V>
  GELU_HD static V InCommonRange(const Ops& o, V x) {
    return CommonRange<kDerivative, common::kCommonTanhForward, common::kCommonTanhForwardDegree,
                          common::kCommonTanhDerivative, common::kCommonTanhDerivativeDegree>(o, x);
  }
};
// Sigmoid form: x sigmoid(1.702 x) (SigmoidForm) everywhere; no common range (its one exp is as cheap).
template <>
struct InDoubleForm<common::kSigmoid> {
  static constexpr bool kHasCommonRange = false;
  template <bool kDerivative, class Ops, class V>
  GELU_HD static V General(const Ops& o, V x) {
    const V scale = o.Set(common::kSigmoidScale);
    return SigmoidForm<kDerivative>(o, x, o.Mul(scale, x), scale);
  }
};

template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD V GeneralInDouble(const Ops& o, V x) {
  return InDoubleForm<kForm>::template General<kDerivative>(o, x);
}

// f(x) or f'(x) of form kForm, x holding float32 values in double: the common-range polynomial where
// |x| <= kCommonRangeMax, the general path elsewhere. One lane branches; a vector computes the polynomial, returns
// it when every lane is in the common range (~98% of N(0,1) vectors) and otherwise blends in the general path per
// lane, so each lane's bits depend on its own input only (never on its neighbours or on n).
template <int kForm, bool kDerivative, class Ops, class V>
GELU_HD V GeluInDouble(const Ops& o, V x) {
  using F = InDoubleForm<kForm>;
  if constexpr (!F::kHasCommonRange) {
    return GeneralInDouble<kForm, kDerivative>(o, x);
  } else {
    const auto in_common = o.Le(o.Abs(x), o.Set(common::kCommonRangeMax));  // false for NaN
    if constexpr (Ops::kOneLane) {
      return in_common ? F::template InCommonRange<kDerivative>(o, x) : GeneralInDouble<kForm, kDerivative>(o, x);
    } else {
      // The polynomial before the test: nearly every N(0,1) vector needs it, so a branch first (skipping it where
      // no lane does) only adds a mispredictable jump to the common case (docs/EXPERIMENTS.md).
      const V common_range = F::template InCommonRange<kDerivative>(o, x);
      if (o.AllTrue(in_common)) return common_range;
      return o.IfThenElse(in_common, common_range, GeneralInDouble<kForm, kDerivative>(o, x));
    }
  }
}
