// SPDX-License-Identifier: Apache-2.0
// The library's elementwise entry points (include/gelu/gelu.h) by storage type, on untyped pointers: what the
// bindings call once they know an array's type from their framework (NumPy, torch, XLA's FFI).
#ifndef GELU_PYTHON_SRC_STORAGE_CALLS_H_
#define GELU_PYTHON_SRC_STORAGE_CALLS_H_

#include <cstddef>
#include <cstdint>

#include "gelu/gelu.h"

namespace gelu::python {

enum class Kind { f32, f64, f16, bf16 };

inline gelu_status CallForward(Kind k, const void* x, void* y, size_t n, gelu_approximate a) {
  using H = uint16_t;
  switch (k) {
    case Kind::f32: return gelu_forward_f32(static_cast<const float*>(x), static_cast<float*>(y), n, a);
    case Kind::f64: return gelu_forward_f64(static_cast<const double*>(x), static_cast<double*>(y), n, a);
    case Kind::f16: return gelu_forward_f16(static_cast<const H*>(x), static_cast<H*>(y), n, a);
    case Kind::bf16: return gelu_forward_bf16(static_cast<const H*>(x), static_cast<H*>(y), n, a);
  }
  return GELU_INVALID_ARGUMENT;
}

inline gelu_status CallBackward(Kind k, const void* g, const void* x, void* out, size_t n, gelu_approximate a) {
  using H = uint16_t;
  switch (k) {
    case Kind::f32:
      return gelu_backward_f32(static_cast<const float*>(g), static_cast<const float*>(x), static_cast<float*>(out),
                               n, a);
    case Kind::f64:
      return gelu_backward_f64(static_cast<const double*>(g), static_cast<const double*>(x),
                               static_cast<double*>(out), n, a);
    case Kind::f16:
      return gelu_backward_f16(static_cast<const H*>(g), static_cast<const H*>(x), static_cast<H*>(out), n, a);
    case Kind::bf16:
      return gelu_backward_bf16(static_cast<const H*>(g), static_cast<const H*>(x), static_cast<H*>(out), n, a);
  }
  return GELU_INVALID_ARGUMENT;
}

}  // namespace gelu::python

#endif  // GELU_PYTHON_SRC_STORAGE_CALLS_H_
