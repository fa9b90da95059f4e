// SPDX-License-Identifier: Apache-2.0
// Scalar reference GELU in double precision, the oracle of the float32 tests and of `gelu accuracy`.
//
// Every form is written so that no step cancels (erfc for the exact form, x*sigmoid(z) for the others,
// sigmoid(z)(1-sigmoid(z)) = e/(1+e)^2 with e = exp(-|z|)), so each value carries only the rounding of a
// few double operations and of libm's erfc/exp (glibc: <= 2 ulp of double each). The one amplified error is
// the rounding of the argument: -x/sqrt(2) (relative 2^-53) becomes a relative error of about
// 2*(x^2/2)*2^-53 in erfc, and z = 2u likewise in exp(-|z|); with |x| <= 15.5 where float results are
// nonzero that is <= 2^-45, i.e. below 2^-21 of a float ULP. tests/reference_test.cc checks these functions
// against MPFR (200 bits) on a sample and asserts the relative error stays below 2^-40 (derivative: absolute
// 2^-50 near its root).
#ifndef GELU_SRC_REFERENCE_REFERENCE_H_
#define GELU_SRC_REFERENCE_REFERENCE_H_

#include <cmath>
#include <limits>

#include "src/common/functions.h"

namespace gelu::reference {

using Form = common::Form;  // the three forms (kNone, kTanh, kSigmoid) are what this header evaluates

inline constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1/sqrt(2)
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2*pi)
inline constexpr double kSqrt2OverPi = 0.79788456080286535588; // sqrt(2/pi)
inline constexpr double kTanhCubic = 0.044715;                 // the tanh form's cubic coefficient
inline constexpr double kSigmoidScale = 1.702;                 // the sigmoid form's scale

// z(x) of the sigmoid-based forms, f(x) = x * sigmoid(z(x)), and dz/dx; NaN for the exact form, which has none
// (one case per form: -Werror=switch refuses a form without its own).
inline double SigmoidArgument(double x, Form form) {
  switch (form) {
    case common::kTanh: return 2.0 * kSqrt2OverPi * (x + kTanhCubic * x * x * x);
    case common::kSigmoid: return kSigmoidScale * x;
    case common::kNone: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}
inline double SigmoidArgumentSlope(double x, Form form) {
  switch (form) {
    case common::kTanh: return 2.0 * kSqrt2OverPi * (1.0 + 3.0 * kTanhCubic * x * x);
    case common::kSigmoid: return kSigmoidScale;
    case common::kNone: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// f(x). GELU(-inf) = -0, GELU(+inf) = +inf, NaN -> NaN.
inline double Forward(double x, Form form) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  if (form == common::kNone) return 0.5 * x * std::erfc(-x * kSqrt1_2);
  const double z = SigmoidArgument(x, form);
  const double e = std::exp(-std::fabs(z));  // in (0, 1]: never overflows
  const double r = 1.0 / (1.0 + e);
  const double sigmoid = z >= 0 ? r : e * r;
  return x * sigmoid;
}

// The sign of f' far in the negative tail: every form has f'(x) < 0 for all x below its root (~ -0.75), but
// below x ~ -38 (exact form) or |z| ~ 745 the double terms underflow and the sum is +0; the value closest to the
// true f' there is -0. x = -inf keeps f'(-inf) = +0, the library's convention.
inline double SignedNegativeTail(double x, double derivative) {
  return (x < -1.0 && !std::isinf(x) && !(derivative < 0.0)) ? -0.0 : derivative;
}

// f'(x). f'(-inf) = 0, f'(+inf) = 1, NaN -> NaN.
inline double Derivative(double x, Form form) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
  if (form == common::kNone) {
    // Phi(x) + x*phi(x); exp(-x^2/2) underflows to 0 exactly where x*phi(x) is negligible.
    return SignedNegativeTail(x, 0.5 * std::erfc(-x * kSqrt1_2) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x));
  }
  const double z = SigmoidArgument(x, form);
  const double e = std::exp(-std::fabs(z));
  const double r = 1.0 / (1.0 + e);
  const double sigmoid = z >= 0 ? r : e * r;
  const double slope = SigmoidArgumentSlope(x, form);
  // x * slope overflows only where e * r * r is 0: skip the term there (inf * 0 would be NaN).
  const double dsigmoid = e * r * r;
  return SignedNegativeTail(x, dsigmoid == 0.0 ? sigmoid : sigmoid + x * slope * dsigmoid);
}

// f(x) and f'(x) together, sharing erfc/exp: the exhaustive test evaluates both for every input.
// Same operations as Forward and Derivative, so the same values.
struct ValueAndDerivative {
  double value, derivative;
};
inline ValueAndDerivative ForwardAndDerivative(double x, Form form) {
  if (std::isnan(x)) return {x, x};
  if (std::isinf(x)) return x > 0 ? ValueAndDerivative{x, 1.0} : ValueAndDerivative{-0.0, 0.0};
  if (form == common::kNone) {
    const double erfc = std::erfc(-x * kSqrt1_2);
    return {0.5 * x * erfc, SignedNegativeTail(x, 0.5 * erfc + x * kInvSqrt2Pi * std::exp(-0.5 * x * x))};
  }
  const double z = SigmoidArgument(x, form);
  const double e = std::exp(-std::fabs(z));
  const double r = 1.0 / (1.0 + e);
  const double sigmoid = z >= 0 ? r : e * r;
  const double dsigmoid = e * r * r;
  const double slope = SigmoidArgumentSlope(x, form);
  return {x * sigmoid, SignedNegativeTail(x, dsigmoid == 0.0 ? sigmoid : sigmoid + x * slope * dsigmoid)};
}

}  // namespace gelu::reference

#endif  // GELU_SRC_REFERENCE_REFERENCE_H_
