// SPDX-License-Identifier: Apache-2.0
// GELU of float32 inputs evaluated in double, rounded once: the proven path of the float32 tails (the float core
// is src/common/gelu_f32_math.h), of the bf16/fp16 functions (half.h) and of the fused operations; one source for
// the host and the CUDA kernels (__host__ __device__). The double-lane SIMD code in src/cpu/gelu-inl.h performs
// the same operations in the same order with explicit FMAs, so on targets with FMA it returns the same bits.
//
// GeluF32InDouble(x, form, derivative): float32 -> double, to be rounded once by the caller.
//   Domain:     all float32.
//   Max error:  exact form <= 1 ULP of the true GELU (measured max: docs/ACCURACY.md); tanh, sigmoid forms
//               <= 2 ULP of their own formula; derivatives <= 2 ULP (absolute 2^-24 where |f'| < 2^-8 near
//               the root). All 2^32 inputs, tests/gelu_exhaustive_test.cc.
//   Method:     everything in double, rounded to float once at the end, so the float result carries at most
//               0.5 ULP + (double-side relative error) * 2^24 ULP. The double-side error is dominated by the
//               fitted approximations (general path: G 2^-35.2, exp 2^-45.7, rounding of ~30 double
//               operations < 2^-47; common range: < 2^-30), so the result is within 0.5 + 2^-6 ULP;
//               measured over all inputs: 0.5106 ULP at most (docs/ACCURACY.md).
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
#include <cstring>

#include "src/common/coefficients.h"

#if defined(__CUDACC__)
#define GELU_HD __host__ __device__ __forceinline__
#include <cuda/std/cmath>
#else
#define GELU_HD inline
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

GELU_HD double BitsToDouble(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}
GELU_HD uint64_t DoubleToBits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
#endif
}

// Horner's scheme p = C[D]; p = Fma(p, x, C[i]) for i = D-1 .. 0, unrolled at compile time. Why a template:
// nvcc may not read a namespace-scope constexpr array from device code at a run-time index, only its elements in
// constant expressions (CUDA C++ Programming Guide, "constexpr variables"), so each coefficient is a constexpr
// local. Same operations in the same order as the loop it replaces: host results are unchanged.
template <const auto& C, int I>
GELU_HD double HornerFrom(double acc, double x) {
  if constexpr (I < 0) {
    return acc;
  } else {
    constexpr double c = C[I];
    return HornerFrom<C, I - 1>(Fma(acc, x, c), x);
  }
}
template <const auto& C, int Degree>
GELU_HD double Horner(double x) {
  constexpr double top = C[Degree];
  return HornerFrom<C, Degree - 1>(top, x);
}

// exp(z) for z in [-121, 0] (the callers clamp), relative error < 2^-45.
// k = round(z / ln2) through the shifter (exact: |z/ln2| < 2^8), r = z - k ln2 in two FMAs (Cody-Waite;
// k*kLn2Hi exact), exp(r) by the degree-9 polynomial, times 2^k built from the shifter's bits.
GELU_HD double ExpNegBounded(double z) {
  const double kd = Fma(z, kLog2e, kRoundShifter);
  const double k = kd - kRoundShifter;
  double r = Fma(k, -kLn2Hi, z);
  r = Fma(k, -kLn2Lo, r);
  const double p = Horner<kExpPoly, kExpDegree>(r);
  const double scale = BitsToDouble(DoubleToBits(kd) << 52);
  return p * scale;
}

// Phi(-t) for t in [0, kExactTMax].
GELU_HD double PhiNegative(double t, double e /* exp(-t^2/2) */) {
  const double tau = kMillsScale / (kMillsScale + t);
  const double g = Horner<kMillsTau, kMillsDegree>(tau);
  return e * (tau * g);
}

// f'(x) beyond a form's cutoff, given its first term (Phi(x) or sigmoid(z)). Every form has f'(x) < 0 for all x
// below its root (x ~ -0.75), and past the cutoff the negative term is below 2^-150 in magnitude, so the correctly
// rounded f' is -0 in every format: returning the tiny positive first term would round to +0. f'(-inf) = +0 (the
// limit, as the reference has it); for x > 0 the first term is 1 (or within 2^-170 of it).
GELU_HD double FarDerivative(double x, double first_term) {
  return (x < 0 && x > -HUGE_VAL) ? -0.0 : (x < 0 ? 0.0 : first_term);
}

// Exact form, f(x) (derivative == false) or f'(x) (derivative == true), x a float32 value held in double.
GELU_HD double ExactForm(double x, bool derivative) {
  const double t = fmin(fabs(x), kExactTMax);  // fmin(NaN, c) = c: NaN flows through x below
  const double e = ExpNegBounded(-0.5 * (t * t));
  const double q = PhiNegative(t, e);
  const double phi = x < 0 ? q : 1.0 - q;
  const bool far = fabs(x) > kExactTMax;
  if (!derivative) return (far && x < 0) ? -0.0 : x * phi;
  // f' = Phi(x) + x phi(x); beyond kExactTMax the second term is < 2^-170 (and x*e would be inf*0 at inf).
  if (far) return FarDerivative(x, phi);
  return phi + x * (kInvSqrt2Pi * e);
}

// Sigmoid forms f(x) = x * sigmoid(z), given z and dz/dx.
GELU_HD double SigmoidForm(double x, double z, double dz, bool derivative) {
  const double az = fmin(fabs(z), kSigmoidZMax);
  const double e = ExpNegBounded(-az);
  const double r = 1.0 / (1.0 + e);
  const double s = x < 0 ? e * r : r;  // sign(z) = sign(x) for both forms
  const bool far = fabs(z) > kSigmoidZMax;
  if (!derivative) return (far && x < 0) ? -0.0 : x * s;
  // f' = s + x z' s (1 - s), s (1 - s) = e r^2; beyond kSigmoidZMax that term is < 2^-150 (and x z' may be inf).
  if (far) return FarDerivative(x, s);
  return s + (x * dz) * (e * (r * r));
}

// Common range |x| <= kCommonRangeMax of the exact and tanh forms: f = x (1/2 + x A(s)), f' = 1/2 + x C(s),
// s = x^2 (exact). No exp, no division: about 16 operations instead of 45 (coefficients.h).
template <const auto& kForward, int kForwardDegree, const auto& kDerivative, int kDerivativeDegree>
GELU_HD double CommonRange(double x, bool derivative) {
  const double s = x * x;
  if (derivative) return Fma(x, Horner<kDerivative, kDerivativeDegree>(s), 0.5);
  return x * Fma(x, Horner<kForward, kForwardDegree>(s), 0.5);
}

// form: 0 none, 1 tanh, 2 sigmoid (gelu_approximate).
GELU_HD double GeluF32InDouble(float xf, int form, bool derivative) {
  const double x = xf;
  const bool common = fabs(x) <= kCommonRangeMax;  // false for NaN
  if (form == 0) {
    if (common) {
      return CommonRange<kCommonExactForward, kCommonExactForwardDegree, kCommonExactDerivative,
                         kCommonExactDerivativeDegree>(x, derivative);
    }
    return ExactForm(x, derivative);
  }
  if (form == 1) {
    if (common) {
      return CommonRange<kCommonTanhForward, kCommonTanhForwardDegree, kCommonTanhDerivative,
                         kCommonTanhDerivativeDegree>(x, derivative);
    }
    const double x2 = x * x;  // exact
    const double z = x * Fma(kTanhZ3, x2, kTanhZ1);
    const double dz = Fma(3.0 * kTanhZ3, x2, kTanhZ1);
    return SigmoidForm(x, z, dz, derivative);
  }
  return SigmoidForm(x, kSigmoidScale * x, kSigmoidScale, derivative);
}

// float32 through double, rounded once: the float32 tails of gelu_f32_math.h, and every lane of the double-lane
// float32 kernel (targets without the float core: src/cpu/gelu-inl.h, GeluF32LoopInDouble).
GELU_HD float ForwardF32InDouble(float x, int form) { return static_cast<float>(GeluF32InDouble(x, form, false)); }
GELU_HD float BackwardF32InDouble(float grad_out, float x, int form) {
  return static_cast<float>(static_cast<double>(grad_out) * GeluF32InDouble(x, form, true));
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_GELU_SCALAR_H_
