// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/check_inputs.h"

#include <cstring>

#include "src/common/half.h"
#include "tests/cuda/element_bits.h"
#include "tests/cuda/host_reference.h"

namespace gelu::cuda_test {

void FillExhaustiveF32(uint64_t begin, size_t n, void* g, void* x) {
  auto* xs = static_cast<uint32_t*>(x);
  auto* gs = static_cast<uint32_t*>(g);
  for (size_t i = 0; i < n; ++i) {
    xs[i] = static_cast<uint32_t>(begin + i);
    if (gs != nullptr) gs[i] = GradBitsF32(begin + i);
  }
}

void RandomFill(Type t, void* p, size_t n, uint64_t seed) {
  ParallelFor(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t k = (seed << 40) ^ (i * 4);
      const uint32_t r = Mix(k);
      float v = 0;
      for (int j = 1; j <= 3; ++j) v += static_cast<float>(Mix(k + j) >> 8) * (6.0f / 16777216.0f) - 3.0f;
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const bool raw = (r & 7) == 0;
      if (raw) bits = Mix(k ^ 0xABCDEF);
      if (t == common::kF32) {
        SetElement(t, p, i, bits);
      } else if (t == common::kBf16) {
        SetElement(t, p, i, raw ? bits >> 16 : gelu::common::DoubleToBf16(v));
      } else {
        SetElement(t, p, i, raw ? bits >> 16 : gelu::common::DoubleToF16(v));
      }
    }
  });
}

}  // namespace gelu::cuda_test
