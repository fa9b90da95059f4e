// SPDX-License-Identifier: Apache-2.0
// The error metric of every float32 accuracy claim (tests, `gelu accuracy`), a max-error tracker (Worst), and the
// NaN rule every test's error maximum follows (PairError, MaxError).
//
// UlpErrorF32(y, r) = |y - r| / ulp(r), computed in double, with ulp(r) = 2^(max(e, -125) - 24) where
// r = m * 2^e, m in [0.5, 1) (frexp): the spacing of float32 numbers at r, floored at the subnormal spacing
// 2^-149 (SLEEF's countULPsp). NaN results must be NaN where the reference is NaN; infinities must match; the
// sign of a zero result must match the reference's sign.
#ifndef GELU_SRC_REFERENCE_ULP_H_
#define GELU_SRC_REFERENCE_ULP_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>

#include "src/common/functions.h"

namespace gelu::reference {

inline double UlpF32(double r) {
  // frexp's exponent e, read from the bits (r is a finite double; r = 0 and doubles below 2^-1022, far under
  // float32's range, take the 2^-149 floor).
  const uint64_t bits = std::bit_cast<uint64_t>(r);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const int e = biased - 1022;
  if (r == 0 || std::max(e, -125) - 24 < -149) return 0x1p-149;
  return std::bit_cast<double>(static_cast<uint64_t>(std::max(e, -125) - 24 + 1023) << 52);
}

// The error of y against r in float32 ULP. NaN: 0 when both are NaN, +inf when only one is. Infinities must
// match. Zeros are signed: a zero y whose sign differs from r's (r = -0, or a tiny negative r that rounds to -0,
// answered with +0) is a sign error, +inf; +0 and -0 are not equal here, so a sweep sees a wrong sign of zero.
// (In the near-root window the claim is absolute and Worst::Error does not call this.)
inline double UlpErrorF32(float y, double r) {
  if (std::isnan(r) || std::isnan(y)) return std::isnan(r) && std::isnan(y) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(r) || std::isinf(y)) return static_cast<double>(y) == r ? 0.0 : std::numeric_limits<double>::infinity();
  if (y == 0 && std::signbit(y) != std::signbit(r)) return std::numeric_limits<double>::infinity();
  return std::fabs(static_cast<double>(y) - r) / UlpF32(r);
}

// The same metric in a binary format of `precision` bits (implicit bit included) whose smallest normal number
// is 2^(min_exponent - 1) (frexp exponent min_exponent): ulp(r) = 2^(max(e, min_exponent) - precision), the
// subnormal spacing below. bfloat16 is (8, -125), binary16 (11, -13), float32 (24, -125), where it equals
// UlpErrorF32 (which the float32 claims use directly). `gelu check` judges 16-bit results with it.
inline double UlpErrorIn(float y, double r, int precision, int min_exponent) {
  if (std::isnan(r) || std::isnan(y)) return std::isnan(r) && std::isnan(y) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(r) || std::isinf(y)) return static_cast<double>(y) == r ? 0.0 : std::numeric_limits<double>::infinity();
  if (y == 0 && std::signbit(y) != std::signbit(r)) return std::numeric_limits<double>::infinity();
  int e = 0;
  std::frexp(r, &e);
  if (r == 0) e = min_exponent;
  return std::fabs(static_cast<double>(y) - r) / std::ldexp(1.0, std::max(e, min_exponent) - precision);
}

// The derivatives cross zero (x ~ -0.7518 for all three forms), where relative error is meaningless; in the
// near-root window of src/common/functions.h (-2 < x < 0, |f'(x)| < 2^-8) the claim is an absolute error instead,
// reported in units of 2^-24 ("abs24", the float32 bound).
inline bool NearDerivativeRoot(double x, double r) { return common::InNearRootWindow(x, r); }

// The error e of a result y against its reference r, whatever the metric, with NaN decided here once: 0 where
// both are NaN, NaN where exactly one is (a NaN result for a number, or a number for a NaN reference), else e.
// (The metric alone cannot be trusted with this: a clamp such as std::max(0.0, e) turns a NaN e into 0.)
inline double PairError(double y, double r, double e) {
  if (std::isnan(y) || std::isnan(r)) return std::isnan(y) && std::isnan(r) ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return e;
}

// The largest of a set of errors, which a NaN cannot hide in: std::max(worst, e) keeps worst when e is NaN, and
// `if (!(e <= worst)) worst = e` takes a NaN but lets the next number replace it. Here a NaN error is kept for
// good, so the maximum is NaN and fails every `<=` bound (EXPECT_LE(max.value, bound)).
struct MaxError {
  double value = 0;
  // Records e into worst if it is larger, or NaN (then worst stays NaN); true when it was recorded, so that the
  // caller can note where (for a NaN, the first one).
  static bool Raise(double& worst, double e) {
    if (std::isnan(worst)) return false;
    if (e <= worst) return false;
    worst = e;
    return true;
  }
  bool Add(double e) { return Raise(value, e); }
  // The error e of y against r, with PairError's NaN rule.
  bool Add(double y, double r, double e) { return Add(PairError(y, r, e)); }
};

// Largest error seen over a set of inputs, with where it occurred. NaN mismatches (exactly one of y, r NaN) are
// counted apart, so that a formula that fails only on special values still shows its error elsewhere.
struct Worst {
  double ulp = 0;      // max relative error in float32 ULP (outside the near-root zone for derivatives)
  float x = 0, y = 0;  // where
  double r = 0;
  double abs24 = 0;    // max absolute error / 2^-24 inside the near-root zone
  float abs_x = 0;
  uint64_t nan_mismatches = 0;
  float nan_x = 0;     // the first input with a NaN mismatch
  uint64_t count = 0;  // inputs seen

  // The error of yi against ri in this tracker's metric: ULP, or (near a derivative's root) abs / 2^-24; NaN for
  // a NaN mismatch.
  static double Error(float xi, float yi, double ri, bool derivative) {
    if (derivative && !std::isnan(ri) && NearDerivativeRoot(xi, ri)) {
      return PairError(yi, ri, std::fabs(static_cast<double>(yi) - ri) * 0x1p24);
    }
    return PairError(yi, ri, UlpErrorF32(yi, ri));
  }
  // Records an error computed by Error() (lets a caller reuse it for identical results).
  void AddError(float xi, float yi, double ri, bool derivative, double error) {
    ++count;
    if (std::isnan(error)) {
      if (nan_mismatches++ == 0) nan_x = xi;
    } else if (derivative && NearDerivativeRoot(xi, ri)) {
      if (MaxError::Raise(abs24, error)) abs_x = xi;
    } else if (MaxError::Raise(ulp, error)) {
      x = xi; y = yi; r = ri;
    }
  }
  void Add(float xi, float yi, double ri, bool derivative) { AddError(xi, yi, ri, derivative, Error(xi, yi, ri, derivative)); }
  // A tie goes to the smaller bit pattern of x, which is where AddError over increasing bit patterns keeps it, so
  // the merged maximum and its place do not depend on how the inputs were split among trackers.
  void Merge(const Worst& o) {
    const auto before = [](float a, float b) { return std::bit_cast<uint32_t>(a) < std::bit_cast<uint32_t>(b); };
    if (MaxError::Raise(ulp, o.ulp) || (o.ulp == ulp && o.count != 0 && before(o.x, x))) {
      x = o.x;
      y = o.y;
      r = o.r;
    }
    if (MaxError::Raise(abs24, o.abs24) || (o.abs24 == abs24 && o.count != 0 && before(o.abs_x, abs_x))) {
      abs_x = o.abs_x;
    }
    if (nan_mismatches == 0 && o.nan_mismatches > 0) nan_x = o.nan_x;
    nan_mismatches += o.nan_mismatches;
    count += o.count;
  }
  // Whether a float32 function's claim holds over the inputs seen (src/common/functions.h).
  bool Within(const common::Function& f) const {
    return nan_mismatches == 0 && ulp <= f.f32_ulp && (!f.backward() || abs24 * 0x1p-24 <= f.f32_abs);
  }
};

}  // namespace gelu::reference

#endif  // GELU_SRC_REFERENCE_ULP_H_
