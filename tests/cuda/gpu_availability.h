// SPDX-License-Identifier: Apache-2.0
// Whether a CUDA device is there, what it is, and what a GPU check that cannot run reports (skip or fail).
#ifndef GELU_TESTS_CUDA_GPU_AVAILABILITY_H_
#define GELU_TESTS_CUDA_GPU_AVAILABILITY_H_

#include <string>

namespace gelu::cuda_test {

// "" when a CUDA device is usable, else why not.
std::string GpuUnavailableReason();

// ---- Skip or fail: the one place that decides what a GPU check that cannot run reports (the GoogleTest files
// through GELU_SKIP_OR_FAIL in gpu_gtest.h, the standalone driver gelu_cuda_check.cc directly).
// On a machine without a GPU (CI's), a GPU check is skipped and reported SKIPPED. Where a CUDA device is present
// (cudaGetDeviceCount > 0), or GELU_REQUIRE_GPU=1 is set (bench/gpu/check.sh sets it), a check that cannot run is
// a failure instead, so that it cannot look like a pass where it was meant to run. Returns why a skip is a failure
// here, or "" where skipping is allowed.
std::string SkipIsFailure();

std::string DeviceDescription();

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_GPU_AVAILABILITY_H_
