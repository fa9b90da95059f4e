// SPDX-License-Identifier: Apache-2.0
// The promises every C entry point makes, one table-driven test each, over every entry point x form (or named
// variant) x type, the forms and types taken from src/common/functions.h:
//   - the same bits whatever the thread count: 1, 2, 3 and 7 threads on arrays above the parallel threshold
//     (2^16 elements) with odd tails;
//   - a refused call (unknown approximate or variant, null input, partly overlapping output) returns its error
//     status and leaves every output untouched.
#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "tests/entry_points.h"

namespace {

namespace common = gelu::common;
using namespace gelu::entry_points;

TEST(EntryPoints, TableCoversEveryFormTypeAndVariant) {
  const std::vector<Case> cases = AllCases();
  // 2 directions x every form x (f32, bf16, f16: 4 ops; f64: 1) + 8 variants x 3 types x 2 directions.
  EXPECT_EQ(cases.size(), 2u * common::kNumForms * (3 * 4 + 1) + 8u * 3 * 2);
}

// Each form reaches its own code: for every entry point, type and direction, the three forms' outputs differ
// (their formulas differ by ~10^-3 relative over N(0, 3), which every type resolves). A form mapped to another
// form's kernel at any dispatch site (common::VisitForm, or a kernel's own mapping) gives two equal outputs here.
TEST(EntryPoints, EachFormReachesItsOwnCode) {
  for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
    Arrays a = MakeArrays(t);
    for (Op op : {Op::kElementwise, Op::kBias, Op::kGeglu, Op::kGegluRows}) {
      for (bool backward : {false, true}) {
        std::vector<std::vector<unsigned char>> outputs[common::kNumForms];
        bool exists = false;
        for (const Case& c : AllCases()) {
          if (c.type != t || c.op != op || c.backward != backward) continue;
          exists = true;
          for (auto& o : a.out) std::fill(o.begin(), o.end(), kSentinel);
          ASSERT_EQ(Call(c, a, c.which), GELU_OK) << c.Name();
          outputs[c.which] = {a.out[0], a.out[1]};
        }
        if (!exists) continue;  // float64 has no fused operations
        for (int f = 0; f < common::kNumForms; ++f) {
          for (int h = f + 1; h < common::kNumForms; ++h) {
            EXPECT_NE(outputs[f], outputs[h]) << OpName(op) << " " << common::TypeSuffix(t) << (backward ? " backward " : " forward ")
                                              << common::kFormNames[f] << " and " << common::kFormNames[h]
                                              << " gave the same output";
          }
        }
      }
    }
  }
}

TEST(EntryPoints, SameBitsForThreadCounts1_2_3_7) {
  const int saved = gelu_get_num_threads();
  for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
    Arrays a = MakeArrays(t);
    for (const Case& c : AllCases()) {
      if (c.type != t) continue;
      std::vector<unsigned char> first[2];
      for (int threads : {1, 2, 3, 7}) {
        gelu_set_num_threads(threads);
        for (auto& o : a.out) std::fill(o.begin(), o.end(), kSentinel);
        ASSERT_EQ(Call(c, a, c.which), GELU_OK) << c.Name();
        if (threads == 1) {
          first[0] = a.out[0];
          first[1] = a.out[1];
          EXPECT_FALSE(Untouched(a.out[0])) << c.Name() << ": wrote nothing";
          continue;
        }
        EXPECT_TRUE(a.out[0] == first[0] && a.out[1] == first[1]) << c.Name() << ": " << threads << " threads";
      }
    }
  }
  gelu_set_num_threads(saved);
}

TEST(EntryPoints, RefusedCallsLeaveOutputsUntouched) {
  for (common::Type t : {common::kF32, common::kF64, common::kBf16, common::kF16}) {
    Arrays a = MakeArrays(t);
    for (const Case& c : AllCases()) {
      if (c.type != t) continue;
      const gelu_status unknown = c.op == Op::kVariant ? GELU_UNKNOWN_VARIANT : GELU_INVALID_ARGUMENT;
      const int bad = c.op == Op::kVariant ? GELU_VARIANT_COUNT : common::kNumForms;
      for (int which : {bad, -1}) {
        EXPECT_EQ(Call(c, a, which), unknown) << c.Name() << " with " << which;
        EXPECT_TRUE(Untouched(a.out[0]) && Untouched(a.out[1])) << c.Name() << " with " << which;
      }
      EXPECT_EQ(Call(c, a, c.which, /*null_x=*/true), GELU_INVALID_ARGUMENT) << c.Name() << " null x";
      EXPECT_TRUE(Untouched(a.out[0]) && Untouched(a.out[1])) << c.Name() << " null x";
      // The first output one element into the first input: a partial overlap, refused before anything is written.
      std::vector<unsigned char> saved_x = a.in[0];
      EXPECT_EQ(Call(c, a, c.which, false, a.in[0].data() + common::TypeSize(t)), GELU_INVALID_ARGUMENT)
          << c.Name() << " overlap";
      EXPECT_TRUE(a.in[0] == saved_x && Untouched(a.out[1])) << c.Name() << " overlap";
    }
  }
}

}  // namespace
