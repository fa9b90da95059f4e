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

// ---- Fused operations (src/cuda/gelu_fused.cu), per element, as the CPU library computes them on its float-core
// targets (src/cpu/storage_loops-inl.h: the float path): float32 results from the float core (ForwardF32,
// BackwardF32) and float products; 16-bit results rounded once from the double path (the CPU's float path has those
// bits: it redoes by the double path every lane where they could differ); grad_bias sums the float core's products.
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
  const float h = BiasSum<Format>(x, bias);
  if constexpr (!Storage<Format>::kHalf) {
    return common::ForwardF32(h, form);
  } else {
    return Format::FromDouble(GeluForOutput<Format>(h, form, false));
  }
}
// Writes grad_x and returns the term grad_bias sums (in double, over rows): the float core's grad_out * f'(h),
// which is also float32's grad_x; a 16-bit grad_x is the double product rounded once.
template <class Format, class T>
GELU_HD double BiasBackwardElement(T grad_out, T x, T bias, int form, T* grad_x) {
  const float h = BiasSum<Format>(x, bias), g = Format::ToFloat(grad_out);
  const float product = common::BackwardF32(g, h, form);
  if constexpr (!Storage<Format>::kHalf) {
    *grad_x = product;
  } else {
    *grad_x = Format::FromDouble(static_cast<double>(g) * GeluForOutput<Format>(h, form, true));
  }
  return product;
}
// y = f(a) * b: float32, the float core's f(a) times b in float; 16-bit, the product in double, rounded once.
template <class Format, class T>
GELU_HD T GegluForwardElement(T a, T b, int form) {
  if constexpr (!Storage<Format>::kHalf) {
    return common::ForwardF32(a, form) * b;
  } else {
    return Format::FromDouble(GeluForOutput<Format>(Format::ToFloat(a), form, false) *
                              static_cast<double>(Format::ToFloat(b)));
  }
}
// grad_a = (g * b) * f'(a), grad_b = g * f(a). 16-bit (and float32 where fl32(g * b) overflows or is NaN): g * b
// exact in double, each result rounded once from the double path. float32 otherwise: the float core's
// fl32(g * b) * f'(a), and g times its f(a) in float.
template <class Format, class T>
GELU_HD void GegluBackwardElement(T g, T a, T b, int form, T* grad_a, T* grad_b) {
  const float af = Format::ToFloat(a);
  if constexpr (!Storage<Format>::kHalf) {
    const float m = g * b;
    if (m >= -0x1.fffffep127f && m <= 0x1.fffffep127f) {
      *grad_a = common::BackwardF32(m, af, form);
      *grad_b = g * common::ForwardF32(af, form);
      return;
    }
  }
  const double gd = Format::ToFloat(g), bd = Format::ToFloat(b);
  *grad_a = Format::FromDouble((gd * bd) * GeluForOutput<Format>(af, form, true));
  *grad_b = Format::FromDouble(gd * GeluForOutput<Format>(af, form, false));
}

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_GELU_OPS_H_
