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
#include "src/cpu/padding-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = f(x[i]). No HWY_RESTRICT: x == y is allowed (each vector is loaded before it is stored).
// The last partial vector goes through zero-padded stack copies of one vector (PaddedLanes, src/cpu/padding-inl.h).
// A plain loop, not ForEachVector: GCC does not inline this large a body into its lambda, and a call per vector
// would cost more than the storage loops' short bodies pay.
template <common::Form kForm>
void ForwardF64Loop(const double* x, double* y, size_t n) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f64::GeluF64<kForm>(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    PaddedLanes<double, hn::MaxLanes(d)> xb;
    hn::Store(f64::GeluF64<kForm>(d, hn::Load(d, xb.From(x + i, n - i))), d, xb.lanes);
    xb.To(y + i, n - i);
  }
}

// grad_in[i] = grad_out[i] * f'(x[i]), rounded once; grad_in may equal grad_out or x.
template <common::Form kForm>
void BackwardF64Loop(const double* g, const double* x, double* gi, size_t n) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(f64::GeluF64Backward<kForm>(d, hn::LoadU(d, g + i), hn::LoadU(d, x + i)), d, gi + i);
  }
  if (i < n) {
    PaddedLanes<double, hn::MaxLanes(d)> xb, gb;
    const hn::Vec<decltype(d)> gv = hn::Load(d, gb.From(g + i, n - i));
    hn::Store(f64::GeluF64Backward<kForm>(d, gv, hn::Load(d, xb.From(x + i, n - i))), d, xb.lanes);
    xb.To(gi + i, n - i);
  }
}

}  // namespace

void ForwardF64Kernel(const double* x, double* y, size_t n, common::Form form) {
  common::VisitForm(form,
                    [&](auto k) HWY_ATTR { ForwardF64Loop<decltype(k)::value>(x, y, n); });
}

void BackwardF64Kernel(const double* grad_out, const double* x, double* grad_in, size_t n, common::Form form) {
  common::VisitForm(form,
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
void ForwardF64Array(const double* x, double* y, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(ForwardF64Kernel)(x, y, n, form);
}
void BackwardF64Array(const double* grad_out, const double* x, double* grad_in, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(BackwardF64Kernel)(grad_out, x, grad_in, n, form);
}
}  // namespace cpu
}  // namespace gelu
#endif  // HWY_ONCE
