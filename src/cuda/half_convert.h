// SPDX-License-Identifier: Apache-2.0
// bfloat16 and binary16 storage formats for the CUDA kernels and their host-side checks: exact widening to
// float, and one rounding from double (round to nearest, ties to even), __host__ __device__.
//
// Why round from double directly: the value is computed in double; rounding it to float first and then to 16
// bits can round twice (a double just above a 16-bit midpoint that rounds to float exactly on the midpoint
// would then tie to even, i.e. the wrong way). Here the double is rounded once, at the 16-bit format's quantum.
//
// NaN becomes the canonical quiet NaN of the format (0x7FC0, 0x7E00), whatever the sign and payload, so host
// and device give the same bits even for NaN (their NaN propagation differs).
#ifndef GELU_SRC_CUDA_HALF_CONVERT_H_
#define GELU_SRC_CUDA_HALF_CONVERT_H_

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define GELU_HALF_HD __host__ __device__ __forceinline__
#else
#define GELU_HALF_HD inline
#endif
#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace gelu::cuda {

GELU_HALF_HD uint32_t FloatBits(float f) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__float_as_uint(f));
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
GELU_HALF_HD float BitsFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

GELU_HALF_HD uint64_t DoubleBits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}
GELU_HALF_HD double BitsDouble(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
#endif
}
GELU_HALF_HD double RoundToIntegerEven(double v) {  // the default rounding mode: to nearest, ties to even
#if defined(__CUDA_ARCH__)
  return rint(v);
#else
  return std::rint(v);
#endif
}
// 2^k for k in the normal double range, from its bits.
GELU_HALF_HD double Pow2(int k) { return BitsDouble(static_cast<uint64_t>(1023 + k) << 52); }

// a > 0 finite, rounded to the nearest multiple of the format's quantum at a's exponent, 2^(max(e, kEmin) -
// kMantissa), ties to even. a * 2^(kMantissa - e) is exact (a power-of-two scaling that stays in range) and
// below 2^(kMantissa + 1); rint rounds it to nearest even (default rounding mode on host and device); the
// product by the quantum is exact again. No division: this runs once per element on the device. The result is
// exactly representable in the 16-bit format (and in float) unless it reaches 2^(kEmax + 1): the callers turn
// that into infinity.
template <int kMantissa, int kEmin>
GELU_HALF_HD double RoundToFormat(double a) {
  // At most half the smallest subnormal: rounds to 0 (a tie goes to the even 0). Also keeps a normal below.
  if (a <= Pow2(kEmin - kMantissa - 1)) return 0.0;
  int e = static_cast<int>((DoubleBits(a) >> 52) & 0x7FF) - 1023;
  if (e < kEmin) e = kEmin;
  if (e > 1000) e = 1000;  // a >= 2^1000 (or inf): any value this large overflows the format anyway
  return RoundToIntegerEven(a * Pow2(kMantissa - e)) * Pow2(e - kMantissa);
}

struct Bf16 {
  GELU_HALF_HD static float ToFloat(uint16_t h) { return BitsFloat(static_cast<uint32_t>(h) << 16); }
  GELU_HALF_HD static uint16_t FromDouble(double v) {
    if (v != v) return 0x7FC0;
    const uint64_t bits = DoubleBits(v);
    const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
    const double a = BitsDouble(bits & ~(uint64_t{1} << 63));
    if (a == 0) return sign;
    const double r = RoundToFormat<7, -126>(a);
    if (r >= 0x1p128) return sign | 0x7F80;  // also a == inf
    return sign | static_cast<uint16_t>(FloatBits(static_cast<float>(r)) >> 16);  // exact in float
  }
};

struct F16 {
  GELU_HALF_HD static float ToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    if (exp == 0x1F) return BitsFloat(sign | 0x7F800000 | (mant << 13));  // inf, NaN (payload kept)
    if (exp == 0) {                                                          // zero, subnormal: mant * 2^-24
      const float m = static_cast<float>(mant) * 0x1p-24f;                   // exact
      return BitsFloat(sign | FloatBits(m));
    }
    return BitsFloat(sign | ((exp + 112) << 23) | (mant << 13));  // rebias 15 -> 127
  }
  GELU_HALF_HD static uint16_t FromDouble(double v) {
    if (v != v) return 0x7E00;
    const uint64_t bits = DoubleBits(v);
    const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
    const double a = BitsDouble(bits & ~(uint64_t{1} << 63));
    if (a == 0) return sign;
    const double r = RoundToFormat<10, -14>(a);
    if (r >= 0x1p16) return sign | 0x7C00;                     // overflow (also a == inf): max is 65504
    if (r < 0x1p-14) return sign | static_cast<uint16_t>(r * 0x1p24);  // subnormal (or 0): exact integer
    const uint32_t b = FloatBits(static_cast<float>(r));      // exact: 11 significant bits
    return sign | static_cast<uint16_t>((((b >> 23) - 112) << 10) | ((b >> 13) & 0x3FF));
  }
};

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_HALF_CONVERT_H_
