// SPDX-License-Identifier: Apache-2.0
// gelu_cuda against the host evaluation of the same source over every input: all 2^32 float32 x for each float32
// function (grad_out pseudo-random for backward), all 2^32 (grad_out, x) pairs for each 16-bit backward
// function, and one in-place call over 2^34 + 3 elements; the same device results also against the CPU library
// (gelu.h), bit for bit (NaN matches NaN), wherever the CPU runs the float core (float32) and always (16-bit).
// GPU tests report SKIPPED without a GPU and fail where one is present but they cannot run (gpu_gtest.h).
// Without a GPU: the host evaluation against the CPU library over all 2^32 float32 inputs (the same x and
// grad_out as the device check), so that with bench/gpu/check.sh (device == host evaluation, every input) the
// CUDA float32 results are the CPU library's on every input. CTest label `exhaustive`: the host side evaluates
// 2^32 elements per function, one at a time (its time: docs/EXPERIMENTS.md, "Test time").
#include <gtest/gtest.h>

#include <string>

#include "tests/cuda/cpu_library.h"
#include "tests/cuda/check_inputs.h"
#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/gpu_checks.h"
#include "tests/cuda/gpu_gtest.h"
#include "tests/cuda/host_reference.h"

namespace gelu::cuda_test {
namespace {

// The CPU library as a second evaluation for CheckExhaustive, where it gives the device's bits: 16-bit always,
// float32 where the CPU runs the float core (elsewhere the device is compared with the host evaluation only).
AlsoEval CpuLibraryWhereBitExact(const Function& f) {
  if (f.type == common::kF32 && !CpuRunsFloatCore()) return nullptr;
  return [f](const void* g, const void* x, void* y, size_t n) {
    const gelu_status s = CpuCall(f, g, x, y, n);
    if (s != GELU_OK) std::fprintf(stderr, "CPU library call for %s: status %d\n", f.Name().c_str(), s);
  };
}

class GeluCudaExhaustiveTest : public testing::TestWithParam<Function> {};

TEST_P(GeluCudaExhaustiveTest, EveryInputMatchesHostAndCpuLibrary) {
  GELU_REQUIRE_GPU();
  const AlsoEval cpu = CpuLibraryWhereBitExact(GetParam());
  if (!cpu) std::printf("float32 on %s: the CPU library runs the double-lane kernel here; device vs host only\n",
                        gelu_simd_target());
  const Report r = CheckExhaustive(GetParam(), size_t{1} << 26, cpu, "cpu");
  EXPECT_TRUE(r.ok()) << r.Summary();
  EXPECT_EQ(r.checked, uint64_t{1} << 32);
}

std::vector<Function> ExhaustiveFunctions() {
  std::vector<Function> fs;
  for (const Function& f : AllFunctions()) {
    if (f.type == common::kF32 || f.backward) fs.push_back(f);  // 16-bit forward (65,536 inputs): gelu_cuda_test
  }
  return fs;
}

INSTANTIATE_TEST_SUITE_P(Functions, GeluCudaExhaustiveTest, testing::ValuesIn(ExhaustiveFunctions()),
                         FunctionTestName());

// No GPU needed: the host evaluation (the element functions the kernels run) against the CPU library, bit for bit
// (NaN matches NaN), over all 2^32 float32 x with CheckExhaustive's grad_out (FillExhaustiveF32).
class GeluCudaHostExhaustiveTest : public testing::TestWithParam<Function> {};

TEST_P(GeluCudaHostExhaustiveTest, EveryFloat32InputOfTheHostReferenceMatchesCpuLibrary) {
  const Function f = GetParam();
  if (!CpuRunsFloatCore()) {
    // As in gelu_cuda_reference_test.cc: the two agree bit for bit only where the CPU runs the float core.
    GTEST_SKIP() << "float32 on " << gelu_simd_target() << ": the CPU library runs the double-lane kernel here";
  }
  const size_t chunk = size_t{1} << 26;
  std::vector<uint32_t> g(f.backward ? chunk : 0), x(chunk), host(chunk), cpu(chunk);
  void* gp = f.backward ? g.data() : nullptr;
  Report r;
  for (uint64_t begin = 0; begin < (uint64_t{1} << 32); begin += chunk) {
    ParallelFor(chunk, [&](size_t b, size_t e) {
      FillExhaustiveF32(begin + b, e - b, gp == nullptr ? nullptr : g.data() + b, x.data() + b);
      HostEval(f, gp, x.data(), host.data(), b, e);
    });
    ASSERT_EQ(CpuCall(f, gp, x.data(), cpu.data(), chunk), GELU_OK);
    Compare(f, gp, x.data(), host.data(), cpu.data(), chunk, begin, &r, "cpu");
  }
  EXPECT_TRUE(r.ok()) << "host reference (\"device\" below: the element functions the kernels run) vs CPU library: "
                      << r.Summary();
  EXPECT_EQ(r.checked, uint64_t{1} << 32);
}

std::vector<Function> Float32Functions() {
  std::vector<Function> fs;
  for (const Function& f : AllFunctions()) {
    if (f.type == common::kF32) fs.push_back(f);
  }
  return fs;
}

INSTANTIATE_TEST_SUITE_P(Float32, GeluCudaHostExhaustiveTest, testing::ValuesIn(Float32Functions()),
                         FunctionTestName());

TEST(GeluCudaLarge, InPlaceBeyond2To34Elements) {
  GELU_REQUIRE_GPU();
  const Report r = CheckLargeInPlace();
  if (r.skipped) GELU_SKIP_OR_FAIL(r.skip_reason);
  EXPECT_TRUE(r.ok()) << r.Summary();
}

}  // namespace
}  // namespace gelu::cuda_test
