// SPDX-License-Identifier: Apache-2.0
// Per-element GELU on storage values (float bits, bfloat16 or binary16 bits), __host__ __device__: the CUDA
// kernels (src/cuda/gelu.cu) and the host side of their tests (tests/cuda/) call these same functions, so a
// device result is compared with the host's evaluation of identical source.
//
// float32: src/common/gelu_scalar.h as is (ForwardF32, BackwardF32).
// 16-bit types: src/common/half.h as is (ForwardHalf, BackwardHalf): the input is widened exactly to float, f (or
// grad_out * f') is evaluated in double by the same GeluF32InDouble, and the double is rounded once to the 16-bit
// type; the CPU library's half-precision functions compute the same.
#ifndef GELU_SRC_CUDA_GELU_OPS_H_
#define GELU_SRC_CUDA_GELU_OPS_H_

#include <cstdint>

#include "src/common/gelu_scalar.h"
#include "src/common/half.h"

namespace gelu::cuda {

// kInputs: 1 for forward (x), 2 for backward (grad_out, x). Apply takes the inputs in that order.
template <int Form>
struct ForwardF32Op {
  using T = float;
  static constexpr int kInputs = 1;
  GELU_HD static T Apply(const T (&in)[1]) { return common::ForwardF32(in[0], Form); }
};
template <int Form>
struct BackwardF32Op {
  using T = float;
  static constexpr int kInputs = 2;
  GELU_HD static T Apply(const T (&in)[2]) { return common::BackwardF32(in[0], in[1], Form); }
};

template <class Format, int Form>
struct ForwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 1;
  GELU_HD static T Apply(const T (&in)[1]) { return common::ForwardHalf<Format>(in[0], Form); }
};
template <class Format, int Form>
struct BackwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 2;
  GELU_HD static T Apply(const T (&in)[2]) { return common::BackwardHalf<Format>(in[0], in[1], Form); }
};

template <int Form> using ForwardBf16Op = ForwardHalfOp<common::Bf16, Form>;
template <int Form> using BackwardBf16Op = BackwardHalfOp<common::Bf16, Form>;
template <int Form> using ForwardF16Op = ForwardHalfOp<common::F16, Form>;
template <int Form> using BackwardF16Op = BackwardHalfOp<common::F16, Form>;

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_GELU_OPS_H_
