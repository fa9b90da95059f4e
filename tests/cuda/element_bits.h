// SPDX-License-Identifier: Apache-2.0
// The elements of the checks' arrays as bits: read and written by index in any storage type, compared (bitwise,
// NaN matching NaN), and printed in hexadecimal.
#ifndef GELU_TESTS_CUDA_ELEMENT_BITS_H_
#define GELU_TESTS_CUDA_ELEMENT_BITS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

inline uint32_t Element(Type t, const void* p, size_t i) {
  if (t == common::kF32) {
    uint32_t u;
    std::memcpy(&u, static_cast<const char*>(p) + 4 * i, 4);
    return u;
  }
  uint16_t h;
  std::memcpy(&h, static_cast<const char*>(p) + 2 * i, 2);
  return h;
}
inline void SetElement(Type t, void* p, size_t i, uint32_t v) {
  if (t == common::kF32) {
    std::memcpy(static_cast<char*>(p) + 4 * i, &v, 4);
  } else {
    const uint16_t h = static_cast<uint16_t>(v);
    std::memcpy(static_cast<char*>(p) + 2 * i, &h, 2);
  }
}
inline bool IsNan(Type t, uint32_t u) {
  switch (t) {
    case common::kF32: return (u & 0x7FFFFFFFu) > 0x7F800000u;
    case common::kBf16: return (u & 0x7FFFu) > 0x7F80u;
    default: return (u & 0x7FFFu) > 0x7C00u;
  }
}
// Bitwise, except that NaN matches NaN: the device's double arithmetic returns a canonical NaN where the host
// propagates the input's payload (and sign), and the 16-bit rounding keeps whatever sign and payload it gets.
inline bool SameResult(Type t, uint32_t got, uint32_t want) {
  return got == want || (IsNan(t, got) && IsNan(t, want));
}

std::string Hex(uint32_t v, Type t);

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_ELEMENT_BITS_H_
