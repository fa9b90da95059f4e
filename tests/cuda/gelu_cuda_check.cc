// SPDX-License-Identifier: Apache-2.0
// Standalone GPU test driver: the checks of gpu_checks.h without GoogleTest, for bench/gpu/check.sh, which
// builds it with nvcc alone on a GPU machine that has none of our Debian packages. The GoogleTest files in this
// folder run the same checks under CTest.
//
// Usage: gelu_cuda_check [--quick] [--no-large] [--only SUBSTRING]
//   --quick     sizes/offsets, busy streams, fused shapes, argument checks, the 16-bit forward functions and the
//               device reset only (seconds)
//   --no-large  skip the in-place 2^34 + 3 element check (64 GiB of device memory)
// Exit status: 0 all passed, 1 a check failed, 77 no usable GPU (nothing was checked). A check that cannot run
// counts as failed (exit 1, not 77) where a CUDA device is present or GELU_REQUIRE_GPU=1 is set (SkipIsFailure in
// gpu_availability.h; bench/gpu/check.sh sets it).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/fused_checks.h"
#include "tests/cuda/fused_functions.h"
#include "tests/cuda/gpu_availability.h"
#include "tests/cuda/gpu_checks.h"
#include "tests/cuda/host_reference.h"

namespace {

using gelu::cuda_test::Report;

int g_failed = 0, g_passed = 0, g_skipped = 0;

void Print(const std::string& name, const Report& r, double seconds) {
  std::printf("%-40s %6.1f s  %s\n", name.c_str(), seconds, r.Summary().c_str());
  const std::string skip_fails = r.skipped ? gelu::cuda_test::SkipIsFailure() : "";
  if (!skip_fails.empty()) std::printf("%-40s FAILED: not run, and a skip is a failure here (%s)\n", name.c_str(),
                                       skip_fails.c_str());
  std::fflush(stdout);
  if (!skip_fails.empty()) {
    ++g_failed;
  } else if (r.skipped) {
    ++g_skipped;
  } else if (r.ok()) {
    ++g_passed;
  } else {
    ++g_failed;
  }
}

template <class F>
void Run(const std::string& name, const std::string& only, F check) {
  if (!only.empty() && name.find(only) == std::string::npos) return;
  const auto t0 = std::chrono::steady_clock::now();
  const Report r = check();
  Print(name, r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gelu::cuda_test;  // NOLINT
  bool quick = false, large = true;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--no-large")) {
      large = false;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--no-large] [--only SUBSTRING]\n", argv[0]);
      return 2;
    }
  }
  // Argument checks never reach the device: they run (and must pass) with or without a GPU.
  Run("invalid arguments (host pointers)", only, [] { return CheckInvalidArguments(false); });
  const std::string why = GpuUnavailableReason();
  if (!why.empty()) {
    Run("no device: valid call -> GELU_CUDA_ERROR", only, [] { return CheckNoDeviceError(); });
    const std::string skip_fails = SkipIsFailure();
    if (!skip_fails.empty()) {
      std::printf("FAILED: NO GPU (%s), and %s: the GPU checks had to run (exit 1).\n", why.c_str(),
                  skip_fails.c_str());
      return 1;
    }
    std::printf("NO GPU: %s. GPU checks not run (exit 77).\n", why.c_str());
    return g_failed ? 1 : 77;
  }
  std::printf("device: %s; host threads: %u\n", DeviceDescription().c_str(), HostThreads());
  Run("invalid arguments (device memory)", only, [] { return CheckInvalidArguments(true); });
  for (const Function& f : AllFunctions()) {
    Run("sizes/offsets " + f.Name(), only, [&] { return CheckSizesAndOffsets(f); });
  }
  for (const Function& f : AllFunctions()) {
    Run("busy stream " + f.Name(), only, [&] { return CheckBusyStream(f); });
  }
  for (Type t : {gelu::common::kF32, gelu::common::kBf16, gelu::common::kF16}) {
    for (FusedOp op : AllFusedOps()) {
      for (const gelu::common::Form form : gelu::common::kForms) {
        Run(std::string("fused ") + FusedName(op) + "_" + TypeSuffix(t) + "/" + FormName(form), only,
            [&] { return CheckFusedOnDevice(t, op, form); });
      }
    }
  }
  for (const Function& f : AllFunctions()) {
    const bool small = f.type != gelu::common::kF32 && !f.backward;  // 65,536 inputs
    if (quick && !small) continue;
    Run(std::string(small ? "all 2^16 inputs " : "all 2^32 inputs ") + f.Name(), only,
        [&] { return CheckExhaustive(f); });
  }
  if (large && !quick) Run("in place, 2^34 + 3 elements", only, [] { return CheckLargeInPlace(); });
  // Last: it resets the device (every check above has released its memory and streams).
  Run("16-bit tables after cudaDeviceReset", only, [] { return CheckDeviceReset(); });
  std::printf("gelu_cuda_check: %d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
  return g_failed ? 1 : 0;
}
