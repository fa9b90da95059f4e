// SPDX-License-Identifier: Apache-2.0
// The GoogleTest side of SkipIsFailure (gpu_availability.h): a GPU test that cannot run is SKIPPED on a machine without
// a GPU, and FAILS where a CUDA device is present or GELU_REQUIRE_GPU=1 is set.
#ifndef GELU_TESTS_CUDA_GPU_GTEST_H_
#define GELU_TESTS_CUDA_GPU_GTEST_H_

#include <gtest/gtest.h>

#include <string>

#include "tests/cuda/gpu_availability.h"

// Ends the test: skipped, or failed where SkipIsFailure() says a skip is a failure. `message`: why it cannot run.
#define GELU_SKIP_OR_FAIL(message)                                                               \
  do {                                                                                           \
    const std::string gelu_skip_message_ = (message);                                            \
    const std::string gelu_skip_failure_ = ::gelu::cuda_test::SkipIsFailure();                    \
    if (!gelu_skip_failure_.empty()) {                                                           \
      GTEST_FAIL() << "cannot run: " << gelu_skip_message_ << "; not skipped, because "          \
                   << gelu_skip_failure_;                                                        \
    }                                                                                            \
    GTEST_SKIP() << gelu_skip_message_;                                                          \
  } while (0)

// Skips (or fails, as above) a test that needs a usable CUDA device when there is none.
#define GELU_REQUIRE_GPU()                                                                       \
  do {                                                                                           \
    const std::string gelu_gpu_why_ = ::gelu::cuda_test::GpuUnavailableReason();                 \
    if (!gelu_gpu_why_.empty()) GELU_SKIP_OR_FAIL("needs a CUDA GPU (" + gelu_gpu_why_ + ")");   \
  } while (0)

#endif  // GELU_TESTS_CUDA_GPU_GTEST_H_
