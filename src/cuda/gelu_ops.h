// SPDX-License-Identifier: Apache-2.0
// Per-element GELU on storage values (float bits, bfloat16 or binary16 bits), __host__ __device__: the CUDA
// kernels (src/cuda/gelu.cu) and the host side of their tests (tests/cuda/) call these same functions, so a
// device result is compared with the host's evaluation of identical source.
//
// float32: src/common/gelu_scalar.h as is (ForwardF32, BackwardF32).
// 16-bit types: the input is widened exactly to float, f (or grad_out * f') is evaluated in double by the same
// GeluF32InDouble, and the double is rounded once to the 16-bit type (src/cuda/half_convert.h).
#ifndef GELU_SRC_CUDA_GELU_OPS_H_
#define GELU_SRC_CUDA_GELU_OPS_H_

#include <cstdint>

#include "src/common/gelu_scalar.h"
#include "src/cuda/half_convert.h"

namespace gelu::cuda {

// kInputs: 1 for forward (x), 2 for backward (grad_out, x). Apply takes the inputs in that order.
template <int Form>
struct ForwardF32Op {
  using T = float;
  static constexpr int kInputs = 1;
  GELU_HALF_HD static T Apply(const T (&in)[1]) { return common::ForwardF32(in[0], Form); }
};
template <int Form>
struct BackwardF32Op {
  using T = float;
  static constexpr int kInputs = 2;
  GELU_HALF_HD static T Apply(const T (&in)[2]) { return common::BackwardF32(in[0], in[1], Form); }
};

template <class Format, int Form>
struct ForwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 1;
  GELU_HALF_HD static T Apply(const T (&in)[1]) {
    return Format::FromDouble(common::GeluF32InDouble(Format::ToFloat(in[0]), Form, false));
  }
};
template <class Format, int Form>
struct BackwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 2;
  GELU_HALF_HD static T Apply(const T (&in)[2]) {
    // grad_out is exact in double and the product is one rounding in double, as BackwardF32 does.
    const double g = Format::ToFloat(in[0]);
    return Format::FromDouble(g * common::GeluF32InDouble(Format::ToFloat(in[1]), Form, true));
  }
};

template <int Form> using ForwardBf16Op = ForwardHalfOp<Bf16, Form>;
template <int Form> using BackwardBf16Op = BackwardHalfOp<Bf16, Form>;
template <int Form> using ForwardF16Op = ForwardHalfOp<F16, Form>;
template <int Form> using BackwardF16Op = BackwardHalfOp<F16, Form>;

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_GELU_OPS_H_
