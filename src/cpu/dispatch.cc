// SPDX-License-Identifier: Apache-2.0
// The C API: validates arguments (src/common/validate.h), then runs the dispatched kernels over threads (src/parallel).
#include <cstdint>
#include <cstring>

#include "gelu/gelu.h"
#include "src/common/functions.h"
#include "src/common/validate.h"
#include "src/cpu/kernels.h"
#include "src/parallel/parallel.h"

namespace {

template <class T>
gelu_status Forward(const T* x, T* y, size_t n, gelu_approximate a,
                    void (*kernel)(const T*, T*, size_t, gelu::cpu::Form)) {
  if (!gelu::validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto v = gelu::validate::Elementwise(sizeof(T), 1, false, nullptr, x, y, n);
  if (v != gelu::validate::Verdict::kRun) return gelu::validate::Status(v);
  const auto form = static_cast<gelu::cpu::Form>(a);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) { kernel(x + begin, y + begin, end - begin, form); });
  return GELU_OK;
}

template <class T>
gelu_status Backward(const T* g, const T* x, T* gi, size_t n, gelu_approximate a,
                     void (*kernel)(const T*, const T*, T*, size_t, gelu::cpu::Form)) {
  if (!gelu::validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto v = gelu::validate::Elementwise(sizeof(T), 1, true, g, x, gi, n);
  if (v != gelu::validate::Verdict::kRun) return gelu::validate::Status(v);
  const auto form = static_cast<gelu::cpu::Form>(a);
  gelu::parallel::ParallelFor(
      n, [&](size_t begin, size_t end) { kernel(g + begin, x + begin, gi + begin, end - begin, form); });
  return GELU_OK;
}

}  // namespace

extern "C" {

gelu_status gelu_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate) {
  return Forward(x, y, n, approximate, gelu::cpu::ForwardF32);
}
gelu_status gelu_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Backward(grad_out, x, grad_in, n, approximate, gelu::cpu::BackwardF32);
}
gelu_status gelu_forward_f64(const double* x, double* y, size_t n, gelu_approximate approximate) {
  return Forward(x, y, n, approximate, gelu::cpu::ForwardF64);
}
gelu_status gelu_backward_f64(const double* grad_out, const double* x, double* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Backward(grad_out, x, grad_in, n, approximate, gelu::cpu::BackwardF64);
}

const char* gelu_approximate_name(gelu_approximate approximate) {
  const int form = static_cast<int>(approximate);
  return gelu::common::IsApproximateForm(form) ? gelu::common::kFormNames[form] : nullptr;
}

gelu_status gelu_approximate_from_name(const char* name, gelu_approximate* out) {
  if (name == nullptr || out == nullptr) return GELU_INVALID_ARGUMENT;
  for (const gelu_approximate a : gelu::common::kApproximations) {
    if (std::strcmp(name, gelu_approximate_name(a)) == 0) {
      *out = a;
      return GELU_OK;
    }
  }
  return GELU_INVALID_ARGUMENT;
}

const char* gelu_status_string(gelu_status status) {
  switch (status) {
    case GELU_OK: return "ok";
    case GELU_INVALID_ARGUMENT:
      return "invalid argument (null pointer with n > 0, unknown approximate, or output partly overlapping an input)";
    case GELU_UNKNOWN_VARIANT: return "unknown GELU variant name or value";
    case GELU_CUDA_ERROR: return "CUDA error (gelu_cuda_last_error_string() has the CUDA call and its message)";
  }
  return "unknown status";
}

void gelu_set_num_threads(int n) { gelu::parallel::SetNumThreads(n); }
int gelu_get_num_threads(void) { return gelu::parallel::GetNumThreads(); }
const char* gelu_simd_target(void) { return gelu::cpu::ChosenTargetName(); }

}  // extern "C"
