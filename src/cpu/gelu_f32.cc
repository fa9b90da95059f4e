// SPDX-License-Identifier: Apache-2.0
// float32 kernels: compiled once per Highway target, chosen at run time (HWY_DYNAMIC_DISPATCH).
#include <cstddef>

#include "src/cpu/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/gelu_f32.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                     // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/gelu-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

void ForwardF32Kernel(const float* x, float* y, size_t n, common::Form form) {
  common::VisitForm(form,
                    [&](auto k) HWY_ATTR { GeluF32Loop<decltype(k)::value, false>(nullptr, x, y, n); });
}

void BackwardF32Kernel(const float* g, const float* x, float* y, size_t n, common::Form form) {
  common::VisitForm(form,
                    [&](auto k) HWY_ATTR { GeluF32Loop<decltype(k)::value, true>(g, x, y, n); });
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "hwy/targets.h"

namespace gelu {
HWY_EXPORT(ForwardF32Kernel);
HWY_EXPORT(BackwardF32Kernel);

namespace cpu {
void ForwardF32Array(const float* x, float* y, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(ForwardF32Kernel)(x, y, n, form);
}
void BackwardF32Array(const float* grad_out, const float* x, float* grad_in, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(BackwardF32Kernel)(grad_out, x, grad_in, n, form);
}
const char* ChosenTargetName() {
  // The best target both compiled in and supported now: what HWY_DYNAMIC_DISPATCH calls.
  // Highway numbers better targets with lower bits, so that is the lowest bit set.
  const int64_t available = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(available != 0 ? (available & -available) : HWY_STATIC_TARGET);
}
}  // namespace cpu
}  // namespace gelu
#endif  // HWY_ONCE
