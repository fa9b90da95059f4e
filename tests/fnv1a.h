// SPDX-License-Identifier: Apache-2.0
// FNV-1a, 64 bits: the one hash of output bits that tests/float_core_hash.cc and tests/half/half_hash.cc print,
// so that two builds (x86 natively, Arm under qemu) can be compared by a line each.
#ifndef GELU_TESTS_FNV1A_H_
#define GELU_TESTS_FNV1A_H_

#include <cstdint>

namespace gelu::test {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

// h extended by the low `bytes` bytes of bits, least significant first.
inline uint64_t Fnv1a(uint64_t h, uint32_t bits, int bytes) {
  for (int b = 0; b < 8 * bytes; b += 8) h = (h ^ ((bits >> b) & 0xffu)) * 0x100000001b3ull;
  return h;
}

}  // namespace gelu::test

#endif  // GELU_TESTS_FNV1A_H_
