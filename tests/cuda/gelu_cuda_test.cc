// SPDX-License-Identifier: Apache-2.0
// gelu_cuda: argument checks (run everywhere: they never reach the device), the no-device error path (run only
// where there is no GPU), and on a GPU every function against the host evaluation of the same source over odd
// sizes, offsets, in-place calls and streams (a busy one included), plus all 65,536 inputs of each 16-bit forward
// function, and the 16-bit tables across cudaDeviceReset().
// GPU tests report SKIPPED without a GPU, and fail where one is present but they cannot run, or with
// GELU_REQUIRE_GPU=1 (gpu_gtest.h). The 2^32-input checks are in gelu_cuda_exhaustive_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/fused_checks.h"
#include "tests/cuda/fused_functions.h"
#include "tests/cuda/gpu_availability.h"
#include "tests/cuda/gpu_checks.h"
#include "tests/cuda/gpu_gtest.h"

namespace gelu::cuda_test {
namespace {

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
  // The one test for machines without a GPU; where one is present it has nothing to check (a skip, not a failure:
  // every GPU test runs there instead).
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

TEST_P(GeluCudaFunctionTest, CallOnABusyStreamWaitsForTheWorkBeforeIt) {
  GELU_REQUIRE_GPU();
  const Report r = CheckBusyStream(GetParam());
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.checked, 2 * ((size_t{1} << 18) + 5));  // ungated, then gated
}

// Each test is its own process under CTest (gtest_discover_tests), so the reset disturbs no other test.
TEST(GeluCudaDevice, SixteenBitTablesAreRebuiltAfterDeviceReset) {
  GELU_REQUIRE_GPU();
  const Report r = CheckDeviceReset();
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.checked, 2 * 12 * 65536u);  // 12 functions, before and after
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
    if (f.type != common::kF32 && !f.backward) fs.push_back(f);
  }
  return fs;
}

INSTANTIATE_TEST_SUITE_P(AllFunctions, GeluCudaFunctionTest, testing::ValuesIn(AllFunctions()),
                         FunctionTestName());
INSTANTIATE_TEST_SUITE_P(SixteenBit, GeluCuda16BitForwardTest, testing::ValuesIn(SixteenBitForward()),
                         FunctionTestName());

struct FusedParam {
  Type type;
  FusedOp op;
  common::Form form;
};
void PrintTo(const FusedParam& p, std::ostream* os) {
  *os << FusedName(p.op) << "_" << TypeSuffix(p.type) << "/" << FormName(p.form);
}

class GeluCudaFusedTest : public testing::TestWithParam<FusedParam> {};

TEST_P(GeluCudaFusedTest, ShapesMatchHost) {
  GELU_REQUIRE_GPU();
  const FusedParam p = GetParam();
  const Report r = CheckFusedOnDevice(p.type, p.op, p.form);
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_GT(r.checked, 0u);
}

std::vector<FusedParam> AllFused() {
  std::vector<FusedParam> ps;
  for (Type t : {common::kF32, common::kBf16, common::kF16}) {
    for (FusedOp op : AllFusedOps()) {
      for (const gelu::common::Form form : gelu::common::kForms) ps.push_back({t, op, form});
    }
  }
  return ps;
}

std::string FusedParamName(const testing::TestParamInfo<FusedParam>& info) {
  return std::string(FusedName(info.param.op)) + "_" + TypeSuffix(info.param.type) + "_" + FormName(info.param.form);
}

INSTANTIATE_TEST_SUITE_P(AllFused, GeluCudaFusedTest, testing::ValuesIn(AllFused()), FusedParamName);

TEST(GeluCudaFusedApi, InvalidArgumentsAreRejectedBeforeAnyCudaCall) {
  // Host addresses stand in for device pointers; every case is rejected before a pointer is used.
  std::vector<float> buf(64);
  float* p = buf.data();
  const auto none = GELU_APPROXIMATE_NONE;
  EXPECT_EQ(gelu_cuda_bias_forward_f32(nullptr, p, p + 32, 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_cuda_bias_forward_f32(p, p + 2, p, 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);  // bias in y
  EXPECT_EQ(gelu_cuda_bias_forward_f32(p, p + 32, p + 1, 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);  // x ~ y
  EXPECT_EQ(gelu_cuda_bias_forward_f32(p, p + 32, p + 40, 2, 4, static_cast<gelu_approximate>(5), nullptr),
            GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_cuda_bias_forward_f32(p, p + 32, p + 40, SIZE_MAX / 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_cuda_bias_forward_f32(nullptr, nullptr, nullptr, 0, 4, none, nullptr), GELU_OK);
  EXPECT_EQ(gelu_cuda_bias_backward_f32(p, p + 8, p + 16, p + 24, nullptr, 2, 4, none, nullptr),
            GELU_INVALID_ARGUMENT);  // null grad_bias
  EXPECT_EQ(gelu_cuda_bias_backward_f32(p, p + 8, p + 16, p + 24, p + 25, 2, 4, none, nullptr),
            GELU_INVALID_ARGUMENT);  // grad_bias inside grad_x
  EXPECT_EQ(gelu_cuda_bias_backward_f32(p, p + 8, p + 16, p + 24, p + 32, 2, 0, none, nullptr), GELU_OK);  // cols 0
  EXPECT_EQ(gelu_cuda_geglu_forward_f32(p, p + 8, p + 1, 8, none, nullptr), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_cuda_geglu_backward_f32(p, p + 8, p + 16, p + 24, p + 28, 8, none, nullptr),
            GELU_INVALID_ARGUMENT);  // grad_a and grad_b overlap
  EXPECT_EQ(gelu_cuda_geglu_rows_forward_f32(p, p + 4, 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);  // y in x
  EXPECT_EQ(gelu_cuda_geglu_rows_backward_f32(p, p + 8, p + 10, 2, 4, none, nullptr), GELU_INVALID_ARGUMENT);
  const uint16_t* h = reinterpret_cast<const uint16_t*>(p);
  uint16_t* hy = reinterpret_cast<uint16_t*>(p + 32);
  EXPECT_EQ(gelu_cuda_geglu_forward_bf16(h, reinterpret_cast<const uint16_t*>(reinterpret_cast<const char*>(h) + 1),
                                         hy, 4, none, nullptr),
            GELU_INVALID_ARGUMENT);  // misaligned b
  EXPECT_EQ(gelu_cuda_bias_forward_f16(h, h + 8, hy, 1, 8, static_cast<gelu_approximate>(-1), nullptr),
            GELU_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace gelu::cuda_test
