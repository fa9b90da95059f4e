// SPDX-License-Identifier: Apache-2.0
// The table indexing of the CUDA kernels' 16-bit lookup tables (src/cuda/table_range.h), on the host (no GPU
// needed): Index and Value are inverse over each table, and Index is -1 exactly outside the covered binades.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "src/common/half.h"
#include "src/cuda/table_range.h"

namespace gelu::cuda {
namespace {

template <class Range, class Format>
void CheckTableRange(double lo, double hi) {
  for (int i = 0; i < Range::kEntries; ++i) ASSERT_EQ(Range::Index(Range::Value(i)), i) << i;
  int covered = 0;
  for (uint32_t u = 0; u < 65536; ++u) {
    const uint16_t h = static_cast<uint16_t>(u);
    const double a = std::fabs(static_cast<double>(Format::ToFloat(h)));
    const bool inside = a >= lo && a < hi;  // NaN: false
    const int index = Range::Index(h);
    ASSERT_EQ(index >= 0, inside) << std::hex << u;
    if (inside) {
      ++covered;
      ASSERT_EQ(Range::Value(index), h) << std::hex << u;
    }
  }
  EXPECT_EQ(covered, Range::kEntries);
}

TEST(TableRange, Bf16CoversTwoToMinus16UpTo16) { CheckTableRange<Bf16Range, common::Bf16>(0x1p-16, 16.0); }
TEST(TableRange, F16CoversTwoToMinus8UpTo16) { CheckTableRange<F16Range, common::F16>(0x1p-8, 16.0); }

}  // namespace
}  // namespace gelu::cuda
