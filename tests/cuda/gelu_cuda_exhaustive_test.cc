// SPDX-License-Identifier: Apache-2.0
// gelu_cuda against the host evaluation of the same source over every input: all 2^32 float32 x for each float32
// function (grad_out pseudo-random for backward), all 2^32 (grad_out, x) pairs for each 16-bit backward
// function, and one in-place call over 2^34 + 3 elements. SKIPPED without a GPU. CTest label `exhaustive`: the
// host side evaluates 2^32 elements per function (about 50 core-seconds each with -O3 on a recent x86 core).
#include <gtest/gtest.h>

#include <string>

#include "tests/cuda/gpu_checks.h"

namespace gelu::cuda_test {
namespace {

class GeluCudaExhaustiveTest : public testing::TestWithParam<Function> {};

TEST_P(GeluCudaExhaustiveTest, EveryInputMatchesHost) {
  const std::string why = GpuUnavailableReason();
  if (!why.empty()) GTEST_SKIP() << "needs a CUDA GPU (" << why << ")";
  const Report r = CheckExhaustive(GetParam());
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.checked, uint64_t{1} << 32);
}

std::vector<Function> ExhaustiveFunctions() {
  std::vector<Function> fs;
  for (const Function& f : AllFunctions()) {
    if (f.type == Type::kF32 || f.backward) fs.push_back(f);  // 16-bit forward (65,536 inputs): gelu_cuda_test
  }
  return fs;
}

INSTANTIATE_TEST_SUITE_P(Functions, GeluCudaExhaustiveTest, testing::ValuesIn(ExhaustiveFunctions()),
                         FunctionTestName());

TEST(GeluCudaLarge, InPlaceBeyond2To34Elements) {
  const std::string why = GpuUnavailableReason();
  if (!why.empty()) GTEST_SKIP() << "needs a CUDA GPU (" << why << ")";
  const Report r = CheckLargeInPlace();
  if (r.skipped) GTEST_SKIP() << r.skip_reason;
  EXPECT_TRUE(r.ok()) << r.Summary();
}

}  // namespace
}  // namespace gelu::cuda_test
