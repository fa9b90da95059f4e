// SPDX-License-Identifier: Apache-2.0
// GELU_HD (a function of both the host and the CUDA device code) and the bit casts between float32/float64 and
// their IEEE encodings, the one set used by the scalar policies (gelu_scalar.h's ScalarDoubleOps, gelu_f32_math.h's
// ScalarOps) and the bf16/fp16 conversions (half.h). Device code uses CUDA's reinterpreting intrinsics, host code
// memcpy (well defined for any bits, and folded to a register move): neither changes a bit, NaN payloads included.
#ifndef GELU_SRC_COMMON_BIT_CAST_H_
#define GELU_SRC_COMMON_BIT_CAST_H_

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define GELU_HD __host__ __device__ __forceinline__
#else
#define GELU_HD inline
#endif

namespace gelu::common {

GELU_HD uint32_t FloatToBits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
#endif
}
GELU_HD float BitsToFloat(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
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
GELU_HD double BitsToDouble(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_BIT_CAST_H_
