// SPDX-License-Identifier: Apache-2.0
// gelu_cuda: argument checks (run everywhere: they never reach the device), the no-device error path (run only
// where there is no GPU), and on a GPU every function against the host evaluation of the same source over odd
// sizes, offsets, in-place calls and streams, plus all 65,536 inputs of each 16-bit forward function.
// GPU tests report SKIPPED without a GPU. The 2^32-input checks are in gelu_cuda_exhaustive_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "tests/cuda/gpu_checks.h"

namespace gelu::cuda_test {
namespace {

#define GELU_REQUIRE_GPU()                                                   \
  do {                                                                       \
    const std::string why = GpuUnavailableReason();                          \
    if (!why.empty()) GTEST_SKIP() << "needs a CUDA GPU (" << why << ")"; \
  } while (0)

TEST(GeluCudaApi, InvalidArgumentsAreRejectedBeforeAnyCudaCall) {
  // Host addresses stand in for device pointers: every case is rejected (or n == 0) before a pointer is used.
  const Report r = CheckInvalidArguments(/*device=*/false);
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_GT(r.checked, 200u);
}

TEST(GeluCudaApi, LastErrorStringIsEmptyOnAFreshThread) {
  std::string text = "unset";
  std::thread([&] { text = gelu_cuda_last_error_string(); }).join();
  EXPECT_EQ(text, "");
}

TEST(GeluCudaApi, StatusValueIsDistinct) {
  EXPECT_NE(static_cast<int>(GELU_CUDA_ERROR), static_cast<int>(GELU_OK));
  EXPECT_NE(static_cast<int>(GELU_CUDA_ERROR), static_cast<int>(GELU_INVALID_ARGUMENT));
}

TEST(GeluCudaApi, WithoutADeviceAValidCallReturnsCudaErrorWithText) {
  const std::string why = GpuUnavailableReason();
  if (why.empty()) GTEST_SKIP() << "a CUDA GPU is present; this checks the path without one";
  const Report r = CheckNoDeviceError();
  EXPECT_TRUE(r.ok()) << r.Summary();
  std::printf("without a device: %s\n", gelu_cuda_last_error_string());
}

TEST(GeluCudaDevice, InvalidArgumentsWriteNothing) {
  GELU_REQUIRE_GPU();
  const Report r = CheckInvalidArguments(/*device=*/true);
  EXPECT_TRUE(r.ok()) << r.Summary();
}

class GeluCudaFunctionTest : public testing::TestWithParam<Function> {};

TEST_P(GeluCudaFunctionTest, SizesOffsetsInPlaceAndStreamsMatchHost) {
  GELU_REQUIRE_GPU();
  const Report r = CheckSizesAndOffsets(GetParam());
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_GT(r.checked, 0u);
}

class GeluCuda16BitForwardTest : public testing::TestWithParam<Function> {};

TEST_P(GeluCuda16BitForwardTest, AllInputsMatchHost) {
  GELU_REQUIRE_GPU();
  const Report r = CheckExhaustive(GetParam());
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.checked, 2 * 65536u);  // table path and computed path
}

std::vector<Function> SixteenBitForward() {
  std::vector<Function> fs;
  for (const Function& f : AllFunctions()) {
    if (f.type != Type::kF32 && !f.backward) fs.push_back(f);
  }
  return fs;
}

std::string ParamName(const testing::TestParamInfo<Function>& info) {
  std::string s = info.param.Name();
  for (char& c : s) c = c == '/' ? '_' : c;
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllFunctions, GeluCudaFunctionTest, testing::ValuesIn(AllFunctions()), ParamName);
INSTANTIATE_TEST_SUITE_P(SixteenBit, GeluCuda16BitForwardTest, testing::ValuesIn(SixteenBitForward()), ParamName);

}  // namespace
}  // namespace gelu::cuda_test
