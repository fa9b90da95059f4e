// SPDX-License-Identifier: Apache-2.0
// The CPU library's C API (gelu.h) called on the element types of cuda_functions.h, for the tests that compare the
// CUDA results (or their host reference) with it: gelu_cuda_reference_test.cc, gelu_cuda_exhaustive_test.cc.
#ifndef GELU_TESTS_CUDA_CPU_LIBRARY_H_
#define GELU_TESTS_CUDA_CPU_LIBRARY_H_

#include <cstdint>
#include <cstring>

#include "gelu/gelu.h"
#include "hwy/targets.h"
#include "src/cpu/float_core_targets.h"
#include "tests/cuda/cuda_functions.h"

namespace gelu::cuda_test {

// f through the CPU library over n elements; g is ignored by forward functions.
inline gelu_status CpuCall(const Function& f, const void* g, const void* x, void* y, size_t n) {
  using U = uint16_t;
  const auto a = static_cast<gelu_approximate>(f.form);
  switch (f.type) {
    case common::kF32:
      return f.backward ? gelu_backward_f32(static_cast<const float*>(g), static_cast<const float*>(x),
                                            static_cast<float*>(y), n, a)
                        : gelu_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, a);
    case common::kBf16:
      return f.backward ? gelu_backward_bf16(static_cast<const U*>(g), static_cast<const U*>(x), static_cast<U*>(y), n, a)
                        : gelu_forward_bf16(static_cast<const U*>(x), static_cast<U*>(y), n, a);
    default:
      return f.backward ? gelu_backward_f16(static_cast<const U*>(g), static_cast<const U*>(x), static_cast<U*>(y), n, a)
                        : gelu_forward_f16(static_cast<const U*>(x), static_cast<U*>(y), n, a);
  }
}

// Whether the target the CPU library dispatches to now (gelu_simd_target) runs the float core.
inline bool CpuRunsFloatCore() {
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (std::strcmp(hwy::TargetName(t), gelu_simd_target()) == 0) return gelu::cpu::RunsFloatCore(t);
  }
  return false;
}

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_CPU_LIBRARY_H_
