// SPDX-License-Identifier: Apache-2.0
// bfloat16 and IEEE binary16 (fp16) storage <-> float/double, scalar, one source for the host and CUDA
// (__host__ __device__ through GELU_HD), plus the scalar GELU of one half-precision value.
//
// Formats (bits of a uint16_t):   sign | exponent | fraction   precision p  emin   emax  smallest subnormal
//   bfloat16                         1 |    8     |    7          8          -126   127   2^-133
//   binary16 (fp16)                  1 |    5     |   10         11          -14    15    2^-24
//
// Widening (Bf16ToFloat, F16ToFloat) is exact for every encoding; fp16 subnormals are honoured, NaN payloads
// kept (so a signalling NaN stays signalling until arithmetic quiets it).
//
// Narrowing (DoubleToBf16, DoubleToF16) rounds a double ONCE, to nearest, ties to even, straight to the target.
// Never narrow through float: double -> float -> half rounds twice and is wrong whenever the first rounding
// lands on a half-precision midpoint (e.g. 1 + 2^-8 + 2^-40 -> float 1 + 2^-8, a bf16 tie, -> 1 instead of the
// correct 1 + 2^-7). Overflow follows round-to-nearest: values >= (2 - 2^-p) * 2^emax become inf. NaN becomes
// a quiet NaN of the same sign (the top fraction bit set, like the x86 and CUDA conversions).
//
// Scalar GELU of a half value: the input widens exactly to float, DoublePathScalar (src/common/gelu_scalar.h)
// gives f or f' in double with a small relative error (bounded in src/common/gelu_scalar.h: ~2^-30 or less), and
// that double rounds once to the output type. The result is the correctly rounded value of the form's formula
// unless the exact value lies within that error of a midpoint between two half values. The exhaustive test
// (tests/half/half_exhaustive_test.cc) finds exactly one family of such inputs, handled by TinyForwardNudge
// below; every other input of both
// types, every form, forward and f', is correctly rounded (the far negative tail of f' is -0 by
// gelu_scalar.h's FarDerivative).
#ifndef GELU_SRC_COMMON_HALF_H_
#define GELU_SRC_COMMON_HALF_H_

#include <cstdint>

#include "src/common/bit_cast.h"     // GELU_HD, BitsToFloat, FloatToBits, DoubleToBits
#include "src/common/gelu_scalar.h"  // DoublePathScalar

namespace gelu::common {

// bfloat16 is the top half of a float32: widening is a shift.
GELU_HD float Bf16ToFloat(uint16_t h) { return BitsToFloat(static_cast<uint32_t>(h) << 16); }

// binary16 -> float32, exact. Normal: rebias the exponent (15 -> 127, i.e. +112). Subnormal (exponent 0):
// fraction * 2^-24, exact in float (at most 10 significant bits). Inf/NaN (exponent 31): exponent 255, the
// fraction (NaN payload) moved to the top of float's fraction.
GELU_HD float F16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t fraction = h & 0x3ffu;
  if (exponent == 0x1f) return BitsToFloat(sign | 0x7f800000u | (fraction << 13));
  if (exponent == 0) {
    const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
    return BitsToFloat(sign | FloatToBits(magnitude));
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (fraction << 13));
}

namespace half_detail {

// Rounds |v| (a finite, non-NaN double with sign bit cleared) to the binary format with precision kP,
// minimum normal exponent kEmin and maximum exponent kEmax, returning the magnitude's encoding (exponent and
// fraction fields, no sign); overflow gives the infinity encoding. Integer arithmetic only, so the result
// does not depend on the floating-point rounding mode or on flush-to-zero settings.
//
// With m the 53-bit significand of |v| (implicit bit included) and e its unbiased exponent, the target keeps
// the bits of m above position `shift` (shift = 53 - kP for a normal result, more when e < kEmin, where the
// result is subnormal and its quantum is fixed at 2^(kEmin - kP + 1)). `kept` is rounded to nearest even
// using the dropped bits. The encoding is then ((e - kEmin) << (kP - 1)) + kept: `kept` carries the implicit
// bit, which adds exactly one to the biased exponent field (kEmin has field 1), and a carry out of the
// fraction (kept = 2^kP after rounding up) moves to the next binade, up to the infinity encoding (exponent
// field all ones, fraction 0) just above the largest finite value, as round-to-nearest requires.
template <int kP, int kEmin, int kEmax>
GELU_HD uint32_t RoundMagnitude(uint64_t bits) {
  const int biased = static_cast<int>(bits >> 52);
  if (biased == 0) return 0;  // |v| < 2^-1022 (zero or double subnormal): far below half the smallest subnormal
  const int e = biased - 1023;
  constexpr uint32_t kInf = static_cast<uint32_t>(kEmax - kEmin + 2) << (kP - 1);
  if (e > kEmax) return kInf;
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int shift = (53 - kP) + (e < kEmin ? kEmin - e : 0);
  if (shift >= 64) return 0;  // m < 2^53 <= 2^(shift-1) = half the quantum: rounds to zero
  const uint64_t kept = m >> shift;
  const uint64_t rest = m & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  const uint64_t rounded = kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
  if (e < kEmin) return static_cast<uint32_t>(rounded);  // subnormal, or the smallest normal after a carry
  return (static_cast<uint32_t>(e - kEmin) << (kP - 1)) + static_cast<uint32_t>(rounded);
}

template <int kP, int kEmin, int kEmax>
GELU_HD uint16_t RoundDouble(double v) {
  const uint64_t bits = DoubleToBits(v);
  const uint32_t sign = static_cast<uint32_t>(bits >> 48) & 0x8000u;
  const uint64_t magnitude = bits & ~(uint64_t{1} << 63);
  constexpr uint32_t kExponentField = static_cast<uint32_t>(kEmax - kEmin + 2) << (kP - 1);  // all ones
  if (magnitude > 0x7ff0000000000000ull) {
    // NaN: quiet (top fraction bit), keep the sign and as much of the payload as fits.
    const uint32_t payload = static_cast<uint32_t>(magnitude >> (53 - kP)) & ((1u << (kP - 1)) - 1);
    return static_cast<uint16_t>(sign | kExponentField | (1u << (kP - 2)) | payload);
  }
  return static_cast<uint16_t>(sign | RoundMagnitude<kP, kEmin, kEmax>(magnitude));
}

}  // namespace half_detail

// double -> bfloat16 / binary16 bits, round to nearest even, one rounding (see the top of this file).
GELU_HD uint16_t DoubleToBf16(double v) { return half_detail::RoundDouble<8, -126, 127>(v); }
GELU_HD uint16_t DoubleToF16(double v) { return half_detail::RoundDouble<11, -14, 15>(v); }

// The float path of a 16-bit result (the scalar twins of Io::NearMidpoint and Io::StoreF in
// src/cpu/storage_types-inl.h; the CUDA element functions of src/cuda/gelu_ops.h call these): GELU is evaluated
// in float (the float core), and the float result v is rounded to the 16-bit type unless it lies within
// kMidpointMargin float32 ULPs of a rounding midpoint of that type (or is inf/NaN), where the double path redoes
// it. Why 16: the float results are within 3 float32 ULPs of the exact value (the float core's 1 or 2 ULP, plus
// for GEGLU one more rounding of a product: docs/ACCURACY.md), at most 2 * 3 + 1 floats apart counting across a
// binade edge (the ULP halves below a power of 2); 16 leaves room. Beyond it, rounding the float result rounds the
// exact value: the double path's bits (its own error, < 2^-30 relative, matters only within 2^-7 float32 ULPs of
// a midpoint).
inline constexpr uint32_t kMidpointMargin = 16;

// bf16 is the top half of a float32 (subnormals included): v rounds by its low 16 bits, whose midpoint is 0x8000.
// Inf and NaN (magnitude bits >= 0x7f800000) count as near.
GELU_HD bool NearBf16Midpoint(float v) {
  const uint32_t mag = FloatToBits(v) & 0x7fffffffu;
  return (mag & 0xffffu) - (0x8000u - kMidpointMargin) < 2 * kMidpointMargin + 1 || mag > 0x7f7fffffu;
}
// In float arithmetic (as the CPU's IoF16::NearMidpoint, operation for operation): with P = 2^max(e, -14) (e the
// exponent of |v|), the fp16 quantum is q = P 2^-10, c = 1.5 2^23 q rounds |v| to r, a multiple of q, and
// |v| - r (exact) is compared with the midpoint q/2. The margin is kMidpointMargin ULPs of |v| for |v| >= 2^-100
// and 2^-119 below (no subnormal margin: there |v| lies far below fp16's first midpoint 2^-25 either way). Inf, NaN
// and |v| >= 2^113 give a NaN distance: near.
GELU_HD bool NearF16Midpoint(float v) {
  const float av = BitsToFloat(FloatToBits(v) & 0x7fffffffu);
  const float pow2 = BitsToFloat(FloatToBits(av) & 0x7f800000u);
  const float p = pow2 > 0x1p-14f ? pow2 : 0x1p-14f;
  const float c = p * 0x1.8p13f;
  const float r = (av + c) - c;
  const float distance = p * 0x1p-11f - BitsToFloat(FloatToBits(av - r) & 0x7fffffffu);
  const float margin = (pow2 > 0x1p-100f ? pow2 : 0x1p-100f) * (static_cast<float>(kMidpointMargin) * 0x1p-23f);
  return !(distance > margin);
}
// float -> bf16 bits, to nearest even, for finite v (a carry out of the fraction is the next binade, or inf).
GELU_HD uint16_t FiniteFloatToBf16(float v) {
  const uint32_t u = FloatToBits(v);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// The half-precision storage types, as template tags for code shared between bf16 and fp16. FromFloat: the
// float path's rounding of a finite float result that NearMidpoint does not mark (float -> double is exact, so
// DoubleToF16 rounds the float once).
struct Bf16 {
  static constexpr int kPrecision = 8;
  static constexpr int kMinExponent = -126;
  GELU_HD static float ToFloat(uint16_t h) { return Bf16ToFloat(h); }
  GELU_HD static uint16_t FromDouble(double v) { return DoubleToBf16(v); }
  GELU_HD static bool NearMidpoint(float v) { return NearBf16Midpoint(v); }
  GELU_HD static uint16_t FromFloat(float v) { return FiniteFloatToBf16(v); }
};
struct F16 {
  static constexpr int kPrecision = 11;
  static constexpr int kMinExponent = -14;
  GELU_HD static float ToFloat(uint16_t h) { return F16ToFloat(h); }
  GELU_HD static uint16_t FromDouble(double v) { return DoubleToF16(v); }
  GELU_HD static bool NearMidpoint(float v) { return NearF16Midpoint(v); }
  GELU_HD static uint16_t FromFloat(float v) { return DoubleToF16(v); }
};

// The one family of inputs where the double result sits on a half-precision midpoint while the exact value
// does not (found by the exhaustive test, explained here). For tiny x, every form has
//   f(x) = x/2 + c x^2 + O(x^3),  c = 1/sqrt(2 pi) (exact), sqrt(2/pi)/2 (tanh), 1.702/4 (sigmoid), all > 0,
// so f(x) lies strictly above x/2. Below |x| = 2^-60 the double evaluation cannot see c x^2 (relative size
// < 2^-60, under double's 2^-53 and the kernels' error), and it returns x/2 up to that error, on either
// side. That is harmless when x/2 is a representable half value (the nearest boundaries are half an ULP,
// 2^-9 relative, away), but when x/2 falls in the subnormal range and x has an odd last significand bit (bf16:
// the odd subnormals and the odd values of [2^-126, 2^-125), 256 inputs with both signs; fp16 never: there
// |x| >= 2^-24 and c x^2 is resolved), x/2 is exactly a midpoint, and the correctly rounded result is the
// neighbour on the +inf side: away from zero for x > 0, towards zero for x < 0 (without this, the 128 positive
// ones were misrounded in every form).
// So for |x| < 2^-60 the kernels return x/2 + |x| 2^-40: strictly between x/2 and every rounding boundary
// above it (those are >= 2^-10 |x| away), which rounds to the correct neighbour in both cases. The forward
// only: f'(x) ~ 1/2 + 2cx is far from any midpoint.
inline constexpr double kTinyForwardLimit = 0x1p-60;
inline constexpr double kTinyForwardNudge = 0x1p-40;
GELU_HD double TinyForwardNudge(double x, double y) {
  const double ax = fabs(x);  // x = +-0 keeps y = +-0 (the nudge would turn -0 into +0)
  return (ax < kTinyForwardLimit && ax != 0.0) ? Fma(ax, kTinyForwardNudge, 0.5 * x) : y;
}

// GELU of one half value of type T (Bf16, F16), `form` 0 none, 1 tanh, 2 sigmoid: correctly rounded.
template <class T>
GELU_HD uint16_t ForwardHalf(uint16_t x, Form form) {
  const float xf = T::ToFloat(x);
  return T::FromDouble(TinyForwardNudge(xf, DoublePathScalar(xf, form, false)));
}
// grad_out * f'(x), the product formed in double and rounded once (correctly rounded for grad_out = 1).
template <class T>
GELU_HD uint16_t BackwardHalf(uint16_t grad_out, uint16_t x, Form form) {
  const double g = T::ToFloat(grad_out);
  const float xf = T::ToFloat(x);
  return T::FromDouble(g * DoublePathScalar(xf, form, true));
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_HALF_H_
