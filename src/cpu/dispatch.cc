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

// The enumerator of `values` whose name (name_of's string) is `name`, exactly: *out set and GELU_OK; an unknown
// name or a null pointer: GELU_INVALID_ARGUMENT, *out untouched.
template <class T, size_t N>
gelu_status FromName(const char* name, T* out, const T (&values)[N], const char* (*name_of)(T)) {
  if (name == nullptr || out == nullptr) return GELU_INVALID_ARGUMENT;
  for (const T v : values) {
    if (std::strcmp(name, name_of(v)) == 0) {
      *out = v;
      return GELU_OK;
    }
  }
  return GELU_INVALID_ARGUMENT;
}

}  // namespace

extern "C" {

gelu_status gelu_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate) {
  return Forward(x, y, n, approximate, gelu::cpu::ForwardF32Array);
}
gelu_status gelu_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Backward(grad_out, x, grad_in, n, approximate, gelu::cpu::BackwardF32Array);
}
gelu_status gelu_forward_f64(const double* x, double* y, size_t n, gelu_approximate approximate) {
  return Forward(x, y, n, approximate, gelu::cpu::ForwardF64Array);
}
gelu_status gelu_backward_f64(const double* grad_out, const double* x, double* grad_in, size_t n,
                              gelu_approximate approximate) {
  return Backward(grad_out, x, grad_in, n, approximate, gelu::cpu::BackwardF64Array);
}

const char* gelu_approximate_name(gelu_approximate approximate) {
  const int form = static_cast<int>(approximate);
  return gelu::common::IsApproximateForm(form) ? gelu::common::kFormNames[form] : nullptr;
}

const char* gelu_dtype_name(gelu_dtype dtype) {
  const int t = static_cast<int>(dtype);
  return gelu::common::IsType(t) ? gelu::common::kTypeNames[t] : nullptr;
}

gelu_status gelu_dtype_from_name(const char* name, gelu_dtype* out) {
  return FromName(name, out, gelu::common::kTypes, gelu_dtype_name);
}

size_t gelu_dtype_size(gelu_dtype dtype) {
  const int t = static_cast<int>(dtype);
  return gelu::common::IsType(t) ? gelu::common::kTypeSizes[t] : 0;
}

// The typed entry points by storage type: one case per type, no default (-Werror=switch).
gelu_status gelu_forward(gelu_dtype dtype, const void* x, void* y, size_t n, gelu_approximate approximate) {
  using H = uint16_t;
  switch (dtype) {
    case GELU_DTYPE_FLOAT32:
      return gelu_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, approximate);
    case GELU_DTYPE_FLOAT64:
      return gelu_forward_f64(static_cast<const double*>(x), static_cast<double*>(y), n, approximate);
    case GELU_DTYPE_BFLOAT16:
      return gelu_forward_bf16(static_cast<const H*>(x), static_cast<H*>(y), n, approximate);
    case GELU_DTYPE_FLOAT16:
      return gelu_forward_f16(static_cast<const H*>(x), static_cast<H*>(y), n, approximate);
  }
  return GELU_INVALID_ARGUMENT;
}

gelu_status gelu_backward(gelu_dtype dtype, const void* grad_out, const void* x, void* grad_in, size_t n,
                          gelu_approximate approximate) {
  using H = uint16_t;
  switch (dtype) {
    case GELU_DTYPE_FLOAT32:
      return gelu_backward_f32(static_cast<const float*>(grad_out), static_cast<const float*>(x),
                               static_cast<float*>(grad_in), n, approximate);
    case GELU_DTYPE_FLOAT64:
      return gelu_backward_f64(static_cast<const double*>(grad_out), static_cast<const double*>(x),
                               static_cast<double*>(grad_in), n, approximate);
    case GELU_DTYPE_BFLOAT16:
      return gelu_backward_bf16(static_cast<const H*>(grad_out), static_cast<const H*>(x), static_cast<H*>(grad_in),
                                n, approximate);
    case GELU_DTYPE_FLOAT16:
      return gelu_backward_f16(static_cast<const H*>(grad_out), static_cast<const H*>(x), static_cast<H*>(grad_in),
                               n, approximate);
  }
  return GELU_INVALID_ARGUMENT;
}

gelu_status gelu_approximate_from_name(const char* name, gelu_approximate* out) {
  return FromName(name, out, gelu::common::kForms, gelu_approximate_name);
}

const char* gelu_status_string(gelu_status status) {
  switch (status) {
    case GELU_OK: return "ok";
    case GELU_INVALID_ARGUMENT:
      return "invalid argument (null pointer with n > 0, unknown approximate or dtype, or output partly overlapping an input)";
    case GELU_UNKNOWN_VARIANT: return "unknown GELU variant name or value";
    case GELU_CUDA_ERROR: return "CUDA error (gelu_cuda_last_error_string() has the CUDA call and its message)";
  }
  return "unknown status";
}

void gelu_set_num_threads(int n) { gelu::parallel::SetNumThreads(n); }
int gelu_get_num_threads(void) { return gelu::parallel::GetNumThreads(); }
const char* gelu_simd_target(void) { return gelu::cpu::ChosenTargetName(); }

}  // extern "C"
