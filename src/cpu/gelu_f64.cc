// SPDX-License-Identifier: Apache-2.0
// fp64 GELU kernels (forward and backward, three forms), compiled per Highway target and dispatched at run time.
// Provisional: scalar libm per lane while the vector kernels in gelu_f64-inl.h are written.
#include <cmath>
#include <cstddef>

#include "src/cpu/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/gelu_f64.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

static inline double ScalarF(double x, int form) {
  if (form == 0) return 0.5 * x * std::erfc(-x * 0.70710678118654752440);
  double z;
  if (form == 1) z = 2.0 * 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  else z = 1.702 * x;
  return x / (1.0 + std::exp(-z));
}

static inline double ScalarD(double x, int form) {
  if (form == 0) {
    return 0.5 * std::erfc(-x * 0.70710678118654752440) + x * 0.39894228040143267794 * std::exp(-0.5 * x * x);
  }
  double z, dz;
  if (form == 1) {
    z = 2.0 * 0.79788456080286535588 * (x + 0.044715 * x * x * x);
    dz = 2.0 * 0.79788456080286535588 * (1.0 + 3.0 * 0.044715 * x * x);
  } else {
    z = 1.702 * x;
    dz = 1.702;
  }
  const double s = 1.0 / (1.0 + std::exp(-z));
  return s + x * dz * s * (1.0 - s);
}

void ForwardF64Impl(const double* x, double* y, size_t n, int form) {
  for (size_t i = 0; i < n; ++i) y[i] = ScalarF(x[i], form);
}
void BackwardF64Impl(const double* g, const double* x, double* gi, size_t n, int form) {
  for (size_t i = 0; i < n; ++i) gi[i] = g[i] * ScalarD(x[i], form);
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gelu {
HWY_EXPORT(ForwardF64Impl);
HWY_EXPORT(BackwardF64Impl);
namespace cpu {
void ForwardF64(const double* x, double* y, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(ForwardF64Impl)(x, y, n, static_cast<int>(form));
}
void BackwardF64(const double* grad_out, const double* x, double* grad_in, size_t n, Form form) {
  HWY_DYNAMIC_DISPATCH(BackwardF64Impl)(grad_out, x, grad_in, n, static_cast<int>(form));
}
}  // namespace cpu
}  // namespace gelu
#endif  // HWY_ONCE
