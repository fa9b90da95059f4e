// SPDX-License-Identifier: Apache-2.0
// The argument rules of src/common/validate.h, and the CPU entry points that use them, at the edges the rules
// exist for: byte counts that overflow and ranges that end at the top of the address space. (That CUDA refuses
// exactly what the CPU refuses: tests/cuda/same_refusals_test.cc.)
#include "src/common/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "gelu/gelu.h"

namespace gelu::validate {
namespace {

const void* At(uintptr_t a) { return reinterpret_cast<const void*>(a); }

TEST(Validate, OverlapDoesNotWrapAtTheTopOfTheAddressSpace) {
  const uintptr_t top32 = UINTPTR_MAX - 31;  // [top32, top32 + 32) ends exactly at 2^64, where p + 32 wraps to 0
  EXPECT_TRUE(Overlap(At(top32), 32, At(top32 + 16), 16));
  EXPECT_TRUE(Overlap(At(top32 + 16), 16, At(top32), 32));
  EXPECT_TRUE(PartialOverlap(At(top32), At(top32 + 2), 30));
  EXPECT_FALSE(Overlap(At(top32), 16, At(top32 + 16), 16));  // adjacent
  EXPECT_FALSE(Overlap(At(0x1000), 16, At(top32), 32));
  EXPECT_FALSE(Overlap(At(top32), 0, At(top32), 32));  // empty ranges share nothing
  EXPECT_FALSE(PartialOverlap(At(top32), At(top32), 32));  // exact aliasing is in place, not an overlap
}

TEST(Validate, SizesWhoseByteCountOverflowsAreInvalid) {
  std::vector<float> x(4), y(4);
  EXPECT_EQ(Elementwise(4, 1, false, nullptr, x.data(), y.data(), SIZE_MAX / 4 + 1), Verdict::kInvalid);
  // The largest count that does not overflow passes (in place: any two distinct arrays that long would overlap).
  EXPECT_EQ(Elementwise(4, 1, false, nullptr, x.data(), x.data(), SIZE_MAX / 4), Verdict::kRun);
  EXPECT_EQ(Elementwise(4, 1, false, nullptr, x.data(), y.data(), SIZE_MAX / 4), Verdict::kInvalid);
  EXPECT_EQ(BiasBackward(4, 1, nullptr, nullptr, nullptr, nullptr, y.data(), 0, SIZE_MAX / 4 + 1), Verdict::kInvalid);
  EXPECT_EQ(GegluRowsForward(2, 1, x.data(), y.data(), 1, SIZE_MAX / 4 + 1), Verdict::kInvalid);
  // Through the C API, before any element is touched (these would otherwise run off the arrays): the refused call
  // writes nothing, so the output's sentinel bits survive.
  const uint32_t kSentinel = 0xA5C3E1F7u;
  const auto refill = [&] { for (float& v : y) v = std::bit_cast<float>(kSentinel); };
  const auto untouched = [&] {
    return std::all_of(y.begin(), y.end(), [&](float v) { return std::bit_cast<uint32_t>(v) == kSentinel; });
  };
  refill();
  EXPECT_EQ(gelu_forward_f32(x.data(), y.data(), SIZE_MAX / 4 + 1, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched()) << "gelu_forward_f32 wrote to y";
  refill();
  EXPECT_EQ(gelu_forward_f64(reinterpret_cast<double*>(x.data()), reinterpret_cast<double*>(y.data()),
                             SIZE_MAX / 8 + 1, GELU_APPROXIMATE_NONE),
            GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched()) << "gelu_forward_f64 wrote to y";
  refill();
  EXPECT_EQ(gelu_bias_backward_f32(nullptr, nullptr, nullptr, nullptr, y.data(), 0, SIZE_MAX / 4 + 1,
                                   GELU_APPROXIMATE_NONE),
            GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched()) << "gelu_bias_backward_f32 wrote to grad_bias";
}

TEST(Validate, NothingToDoComesBeforeThePointerRules) {
  EXPECT_EQ(Elementwise(4, 4, true, nullptr, nullptr, nullptr, 0), Verdict::kNothingToDo);
  EXPECT_EQ(BiasForward(2, 2, nullptr, nullptr, nullptr, 0, 5), Verdict::kNothingToDo);
  EXPECT_EQ(BiasBackward(2, 2, nullptr, nullptr, nullptr, nullptr, nullptr, 5, 0), Verdict::kNothingToDo);
  std::vector<float> gbias(5);
  EXPECT_EQ(BiasBackward(4, 4, nullptr, nullptr, nullptr, nullptr, gbias.data(), 0, 5), Verdict::kRun);  // zeroes it
  EXPECT_EQ(BiasBackward(4, 4, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 5), Verdict::kInvalid);
}

TEST(Validate, AlignmentIsTheCallersRequirement) {
  alignas(8) unsigned char b[64] = {};
  EXPECT_EQ(Elementwise(4, 1, false, nullptr, b + 1, b + 32, 4), Verdict::kRun);      // CPU: unaligned loads
  EXPECT_EQ(Elementwise(4, 4, false, nullptr, b + 1, b + 32, 4), Verdict::kInvalid);  // CUDA: aligned loads
}

// The half entry points used a formula that wrapped here, and would have run on these (unmapped) addresses.
TEST(Validate, CpuEntryPointsRefusePartialOverlapAtTheTop) {
  auto* x = reinterpret_cast<uint16_t*>(UINTPTR_MAX - 63);  // 32 elements end at 2^64
  uint16_t* y = x + 1;
  EXPECT_EQ(gelu_forward_bf16(x, y, 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f16(x, y, 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_geglu_forward_bf16(x, x, y, 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  auto* xf = reinterpret_cast<float*>(UINTPTR_MAX - 127);
  EXPECT_EQ(gelu_forward_f32(xf, xf + 1, 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_FAST, xf, xf + 1, 32), GELU_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace gelu::validate
