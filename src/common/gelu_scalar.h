// SPDX-License-Identifier: Apache-2.0
// GELU of float32 inputs evaluated in double, rounded once: the proven path of the float32 tails (the float core
// is src/common/gelu_f32_math.h), of the bf16/fp16 functions (half.h) and of the fused operations. Written once,
// in src/common/gelu_in_double.inc, against an operations policy: ScalarDoubleOps below (host and CUDA device,
// __host__ __device__) and a Highway double vector in src/cpu/hwy_ops-inl.h, which performs the same operations in
// the same order, so on targets with FMA every SIMD target returns the same bits.
// Names: DoublePath<form, derivative>(o, x) is the path under any policy (DoublePathGeneral beyond the common range;
// DoublePathForm<form> holds each form's formula); DoublePathScalar, one float on the host or the device;
// ForwardF32ViaDoublePath / BackwardF32ViaDoublePath, that value rounded once to float32. Built on it per target:
// GeluF32DoubleLaneLoop (the float32 kernel of targets without the float core), FallbackLanesF32 (the lanes the
// float tail leaves), FormulaDoublePath (the storage kernels' formulas, the named variants' included).
//
// DoublePathScalar(x, form, derivative): float32 -> double, to be rounded once by the caller.
//   Domain:     all float32.
//   Max error:  exact form <= 1 ULP of the true GELU (measured max: docs/exhaustive_maxima.md); tanh, sigmoid forms
//               <= 2 ULP of their own formula; derivatives <= 2 ULP (absolute 2^-24 where |f'| < 2^-8 near
//               the root). All 2^32 inputs, tests/gelu_exhaustive_test.cc.
//   Method:     everything in double, rounded to float once at the end, so the float result carries at most
//               0.5 ULP + (double-side relative error) * 2^24 ULP. The double-side error is dominated by the
//               fitted approximations (general path: G 2^-35.2, exp 2^-45.7, rounding of ~30 double
//               operations < 2^-47; common range: < 2^-30), so the result is within 0.5 + 2^-6 ULP;
//               measured maxima over all inputs: docs/exhaustive_maxima.md.
//               Exact form:   t = |x|, Phi(-t) = exp(-t^2/2) * tau * G(tau), tau = 4/(4+t);
//                             Phi(x) = Phi(-t) for x < 0 (relative accuracy kept in the tail, no 1+erf),
//                             1 - Phi(-t) for x >= 0 (well conditioned: Phi >= 1/2).
//                             t^2 is exact in double (24-bit mantissa squared), so exp's argument is exact.
//               Sigmoid forms: f(x) = x * sigmoid(z), sigmoid(z) = 1/(1+e) or e/(1+e), e = exp(-|z|),
//                             z = 2*sqrt(2/pi)*(x + 0.044715 x^3) (tanh form, since (1+tanh u)/2 = sigmoid(2u))
//                             or z = 1.702 x; never 1 + tanh.
//               Common range |x| <= 3 (exact and tanh forms): f = x (1/2 + x A(x^2)), f' = 1/2 + x C(x^2),
//                             polynomials fitted to an absolute error <= 2^-40 (double-side relative error
//                             < 2^-30 there, see coefficients.h); the general path handles the rest.
//   Special:    GELU(+-0) = +-0, GELU(+inf) = +inf, GELU(-inf) = -0, NaN -> NaN; f'(-inf) = 0, f'(+inf) = 1.
#ifndef GELU_SRC_COMMON_GELU_SCALAR_H_
#define GELU_SRC_COMMON_GELU_SCALAR_H_

#include <cstdint>
#include <type_traits>  // polynomial.inc

#include "src/common/bit_cast.h"  // GELU_HD, BitsToDouble, DoubleToBits
#include "src/common/coefficients.h"
#include "src/common/functions.h"  // Form, VisitForm

#if defined(__CUDACC__)
#include <cuda/std/cmath>
#else
#include <cmath>
#endif

namespace gelu::common {

GELU_HD double Fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// The lane-type-generic part of the one-lane operations policies, for the host and CUDA device code:
// ScalarDoubleOps below (gelu_in_double.inc) and ScalarOps in gelu_f32_math.h (gelu_f32_core.inc); HwyOps in
// src/cpu/hwy_ops-inl.h is the vector one. IEEE operations on one T; masks are bools.
template <class T>
struct ScalarLaneOps {
  static constexpr bool kOneLane = true;  // DoublePath branches instead of blending
  GELU_HD static T Set(T c) { return c; }
  GELU_HD static T Add(T a, T b) { return a + b; }
  GELU_HD static T Sub(T a, T b) { return a - b; }
  GELU_HD static T Mul(T a, T b) { return a * b; }
  GELU_HD static T Div(T a, T b) { return a / b; }
  GELU_HD static T MulAdd(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(T) == sizeof(float)) {
      return __fmaf_rn(a, b, c);
    } else {
      return __fma_rn(a, b, c);
    }
#else
    return std::fma(a, b, c);
#endif
  }
  // a * b - c rounded once: the same bits as MulAdd(a, b, Neg(c)) (negation is exact), one vfmsub on vector
  // targets where the MulAdd of a negated c costs an extra xor (Highway's Neg is a sign-bit xor that GCC does not
  // fold into the fma).
  GELU_HD static T MulSub(T a, T b, T c) { return MulAdd(a, b, -c); }
  GELU_HD static T Neg(T a) { return -a; }
  GELU_HD static T Abs(T a) {
    if constexpr (sizeof(T) == sizeof(float)) {
      return fabsf(a);
    } else {
      return fabs(a);
    }
  }
  GELU_HD static T Min(T a, T b) { return a < b ? a : b; }  // b for NaN a, as x86 minps/minpd
  GELU_HD static bool Lt(T a, T b) { return a < b; }
  GELU_HD static bool Gt(T a, T b) { return a > b; }
  GELU_HD static bool Le(T a, T b) { return a <= b; }
  GELU_HD static bool Ge(T a, T b) { return a >= b; }
  GELU_HD static bool Eq(T a, T b) { return a == b; }
  GELU_HD static bool And(bool a, bool b) { return a && b; }
  GELU_HD static bool Or(bool a, bool b) { return a || b; }
  GELU_HD static bool AndNot(bool a, bool b) { return !a && b; }  // Highway's AndNot: b and not a
  GELU_HD static T IfThenElse(bool m, T a, T b) { return m ? a : b; }
  GELU_HD static bool AllFalse(bool m) { return !m; }
  GELU_HD static T IfThenZeroElse(bool m, T a) { return m ? T(0) : a; }
  // a - b where m, a elsewhere; c + a * b rounded once where m, c elsewhere (the vector policy's versions say why
  // they are operations of their own).
  GELU_HD static T SubWhere(bool m, T a, T b) { return m ? a - b : a; }
  GELU_HD static T MulAddWhere(bool m, T a, T b, T c) { return m ? MulAdd(a, b, c) : c; }
  // fma(x, head, x * tail) where m, head + tail elsewhere: u (head + tail) rounded once for u = x or 1.
  GELU_HD static T TimesWhere(bool m, T x, T head, T tail) { return m ? MulAdd(x, head, x * tail) : head + tail; }
};

// One lane of double: the policy of the double path.
struct ScalarDoubleOps : ScalarLaneOps<double> {
  // 2^k for kd = kRoundShifter + k (ExpNegBounded): the low bits of kd moved into the exponent field.
  GELU_HD static double Pow2FromShifter(double kd) { return BitsToDouble(DoubleToBits(kd) << 52); }
};

// ExpNegBounded, ExactForm, SigmoidForm, CommonRange, DoublePathGeneral, DoublePath: the double path, compiled
// here for one lane and per Highway target in src/cpu/gelu-inl.h.
#include "src/common/polynomial.inc"
#include "src/common/gelu_in_double.inc"

// form: a gelu_approximate value (common::Form).
GELU_HD double DoublePathScalar(float xf, Form form, bool derivative) {
  const ScalarDoubleOps o;
  const double x = xf;
  return VisitForm(form, [&](auto k) {
    return derivative ? DoublePath<decltype(k)::value, true>(o, x) : DoublePath<decltype(k)::value, false>(o, x);
  });
}

// float32 through double, rounded once: the float32 tails of gelu_f32_math.h, and every lane of the double-lane
// float32 kernel (targets without the float core: src/cpu/gelu-inl.h, GeluF32DoubleLaneLoop).
GELU_HD float ForwardF32ViaDoublePath(float x, Form form) {
  return static_cast<float>(DoublePathScalar(x, form, false));
}
GELU_HD float BackwardF32ViaDoublePath(float grad_out, float x, Form form) {
  return static_cast<float>(static_cast<double>(grad_out) * DoublePathScalar(x, form, true));
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_GELU_SCALAR_H_
