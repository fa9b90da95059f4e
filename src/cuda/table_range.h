// SPDX-License-Identifier: Apache-2.0
// Index of a 16-bit value in the CUDA kernels' lookup tables (src/cuda/gelu.cu): the tables cover a band of
// binades, both signs, and every other input is computed directly. __host__ __device__ so that the host tests
// (tests/cuda/table_range_test.cc) check the mapping without a GPU.
#ifndef GELU_SRC_CUDA_TABLE_RANGE_H_
#define GELU_SRC_CUDA_TABLE_RANGE_H_

#include <cstdint>

#include "src/common/gelu_scalar.h"  // GELU_HD

namespace gelu::cuda {

template <int kE0_, int kBinades_, int kMantissaBits_>
struct TableRange {
  static constexpr int kE0 = kE0_;                  // first biased exponent field covered
  static constexpr int kBinades = kBinades_;        // exponent fields kE0 .. kE0 + kBinades - 1
  static constexpr int kMantissaBits = kMantissaBits_;
  static constexpr int kEntries = 2 * kBinades << kMantissaBits;  // both signs
  // The table index of h, or -1 outside the range (the unsigned subtraction wraps below kE0).
  GELU_HD static int Index(uint16_t h) {
    const unsigned e = (h >> kMantissaBits) & ((1u << (15 - kMantissaBits)) - 1);
    const unsigned k = e - static_cast<unsigned>(kE0);
    if (k >= static_cast<unsigned>(kBinades)) return -1;
    return static_cast<int>((((h >> 15) * kBinades + k) << kMantissaBits) | (h & ((1u << kMantissaBits) - 1)));
  }
  GELU_HD static uint16_t Value(int index) {  // inverse of Index
    const int per_sign = kBinades << kMantissaBits;
    const int sign = index / per_sign, rest = index % per_sign;
    return static_cast<uint16_t>((sign << 15) | ((kE0 + (rest >> kMantissaBits)) << kMantissaBits) |
                                 (rest & ((1 << kMantissaBits) - 1)));
  }
};
// bf16: |x| in [2^-16, 16), exponent fields 111..130: 5,120 entries. fp16: |x| in [2^-8, 16), exponent fields
// 7..18: 24,576 entries. Standard-normal activations fall outside with probability ~1e-5 (bf16), ~0.3% (fp16).
using Bf16Range = TableRange<127 - 16, 20, 7>;
using F16Range = TableRange<15 - 8, 12, 10>;

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_TABLE_RANGE_H_
