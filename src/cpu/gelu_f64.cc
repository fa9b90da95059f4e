// SPDX-License-Identifier: Apache-2.0
// float64 GELU kernels: forward and backward of the three forms over arrays, compiled once per Highway target
// (foreach_target.h) and dispatched at run time. The vector math is in src/cpu/gelu_f64-inl.h.
#include <cstddef>

#include "src/cpu/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/gelu_f64.cc"  // this file, relative to the repository root
#include "hwy/foreach_target.h"  // IWYU pragma: keep  (re-includes this file per target)
#include "hwy/highway.h"
#include "src/cpu/gelu_f64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = f(x[i]). No HWY_RESTRICT: x == y is allowed (each vector is loaded before it is stored).
// The tail goes through a stack buffer of one vector (Highway 1.0.3 has no LoadN/StoreN); every lane's
// result depends on its own input only, so padding lanes (zeros) change nothing.
template <int kForm>
void ForwardF64Loop(const double* x, double* y, size_t n) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f64::GeluF64<kForm>(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN double buf[hn::MaxLanes(d)] = {};
    for (size_t j = 0; i + j < n; ++j) buf[j] = x[i + j];
    hn::Store(f64::GeluF64<kForm>(d, hn::Load(d, buf)), d, buf);
    for (size_t j = 0; i + j < n; ++j) y[i + j] = buf[j];
  }
}

// grad_in[i] = grad_out[i] * f'(x[i]), rounded once; grad_in may equal grad_out or x.
template <int kForm>
void BackwardF64Loop(const double* g, const double* x, double* gi, size_t n) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(f64::GeluF64Backward<kForm>(d, hn::LoadU(d, g + i), hn::LoadU(d, x + i)), d, gi + i);
  }
  if (i < n) {
    HWY_ALIGN double bx[hn::MaxLanes(d)] = {};
    HWY_ALIGN double bg[hn::MaxLanes(d)] = {};
    for (size_t j = 0; i + j < n; ++j) {
      bx[j] = x[i + j];
      bg[j] = g[i + j];
    }
    hn::Store(f64::GeluF64Backward<kForm>(d, hn::Load(d, bg), hn::Load(d, bx)), d, bx);
    for (size_t j = 0; i + j < n; ++j) gi[i + j] = bx[j];
  }
}

}  // namespace

void ForwardF64Kernel(const double* x, double* y, size_t n, int form) {
  common::VisitForm(static_cast<common::Form>(form),
                    [&](auto k) HWY_ATTR { ForwardF64Loop<decltype(k)::value>(x, y, n); });
}

void BackwardF64Kernel(const double* grad_out, const double* x, double* grad_in, size_t n, int form) {
  common::VisitForm(static_cast<common::Form>(form),
                    [&](auto k) HWY_ATTR { BackwardF64Loop<decltype(k)::value>(grad_out, x, grad_in, n); });
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gelu {
HWY_EXPORT(ForwardF64Kernel);
HWY_EXPORT(BackwardF64Kernel);

namespace cpu {
// The form was validated by the caller (src/cpu/dispatch.cc).
void ForwardF64(const double* x, double* y, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(ForwardF64Kernel)(x, y, n, static_cast<int>(form));
}
void BackwardF64(const double* grad_out, const double* x, double* grad_in, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(BackwardF64Kernel)(grad_out, x, grad_in, n, static_cast<int>(form));
}
}  // namespace cpu
}  // namespace gelu
#endif  // HWY_ONCE
