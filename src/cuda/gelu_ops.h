// SPDX-License-Identifier: Apache-2.0
// Per-element GELU on storage values (float bits, bfloat16 or binary16 bits), __host__ __device__: the CUDA
// kernels (src/cuda/gelu.cu) and the host side of their tests (tests/cuda/) call these same functions, so a
// device result is compared with the host's evaluation of identical source.
//
// float32: src/common/gelu_f32_math.h as is (ForwardF32, BackwardF32: the float core, the sigmoid form's ring, the
// float tail, and the double path where the tail leaves a lane).
// 16-bit types: src/common/half.h as is (ForwardHalf, BackwardHalf): the input is widened exactly to float, f (or
// grad_out * f') is evaluated in double by the same DoublePathScalar, and the double is rounded once to the 16-bit
// type; the CPU library's half-precision functions compute the same.
#ifndef GELU_SRC_CUDA_GELU_OPS_H_
#define GELU_SRC_CUDA_GELU_OPS_H_

#include <cstdint>

#include "src/common/gelu_f32_math.h"
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

// ---- Fused operations (src/cuda/gelu_fused.cu), per element, as the CPU library computes them
// (src/cpu/storage_loops-inl.h: FormForOutput, BiasSum, the GEGLU loops): storage formats with exact widening to float
// and one rounding from double.
struct F32Format {
  using T = float;
  static constexpr bool kHalf = false;
  GELU_HD static float ToFloat(float v) { return v; }
  GELU_HD static float FromDouble(double v) { return static_cast<float>(v); }
};
template <class Format> struct Storage { using T = uint16_t; static constexpr bool kHalf = true; };
template <> struct Storage<F32Format> { using T = float; static constexpr bool kHalf = false; };

// f(x) or f'(x) in double for an output of type Format; half outputs get half.h's corrections, as the CPU's
// FormForOutput applies it (TinyForwardNudge).
template <class Format>
GELU_HD double GeluForOutput(float x, int form, bool derivative) {
  const double v = common::DoublePathScalar(x, form, derivative);
  if constexpr (!Storage<Format>::kHalf) {
    return v;
  } else {
    return derivative ? v : common::TinyForwardNudge(x, v);
  }
}

// h = fl32(x + bias): the sum rounded to float once, as an unfused float32 `x + bias` (no contraction here:
// a plain add; the device build has --fmad=false).
template <class Format, class T>
GELU_HD float BiasSum(T x, T bias) {
  return Format::ToFloat(x) + Format::ToFloat(bias);
}
template <class Format, class T>
GELU_HD T BiasForwardElement(T x, T bias, int form) {
  return Format::FromDouble(GeluForOutput<Format>(BiasSum<Format>(x, bias), form, false));
}
// The unrounded product grad_out * f'(h): grad_x is its rounding, grad_bias sums it (in double) over rows.
template <class Format, class T>
GELU_HD double BiasBackwardProduct(T grad_out, T x, T bias, int form) {
  return static_cast<double>(Format::ToFloat(grad_out)) * GeluForOutput<Format>(BiasSum<Format>(x, bias), form, true);
}
// y = f(a) * b, the product in double, rounded once.
template <class Format, class T>
GELU_HD T GegluForwardElement(T a, T b, int form) {
  return Format::FromDouble(GeluForOutput<Format>(Format::ToFloat(a), form, false) *
                            static_cast<double>(Format::ToFloat(b)));
}
// grad_a = (g * b) * f'(a) (g * b exact in double), grad_b = g * f(a); each rounded once.
template <class Format, class T>
GELU_HD void GegluBackwardElement(T g, T a, T b, int form, T* grad_a, T* grad_b) {
  const double gd = Format::ToFloat(g), bd = Format::ToFloat(b);
  const float af = Format::ToFloat(a);
  *grad_a = Format::FromDouble((gd * bd) * GeluForOutput<Format>(af, form, true));
  *grad_b = Format::FromDouble(gd * GeluForOutput<Format>(af, form, false));
}

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_GELU_OPS_H_
