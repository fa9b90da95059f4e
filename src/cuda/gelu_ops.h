// SPDX-License-Identifier: Apache-2.0
// Per-element GELU on storage values (float bits, bfloat16 or binary16 bits), __host__ __device__: the CUDA
// kernels (src/cuda/gelu.cu) and the host side of their tests (tests/cuda/) call these same functions, so a
// device result is compared with the host's evaluation of identical source.
//
// float32: src/common/gelu_f32_math.h as is (ForwardF32, BackwardF32: the float core, the sigmoid form's ring, the
// float tail, and the double path where the tail leaves a lane), the core inline and the rest out of line (below).
// 16-bit types: the CPU's float path (src/cpu/storage_paths-inl.h): the input widened exactly to float, f (or
// grad_out * f') from the float core as for float32, and that float rounded to the 16-bit type, unless it lies
// near a 16-bit rounding midpoint (src/common/half.h: NearMidpoint, kMidpointMargin), where src/common/half.h's
// double path (ForwardHalf, BackwardHalf: DoublePathScalar rounded once) gives the result. Both give the double
// path's bits, which the CPU library returns on every target (tests/cuda/gelu_cuda_reference_test.cc: all inputs).
#ifndef GELU_SRC_CUDA_GELU_OPS_H_
#define GELU_SRC_CUDA_GELU_OPS_H_

#include <cstdint>

#include "src/common/gelu_f32_math.h"
#include "src/common/gelu_scalar.h"
#include "src/common/half.h"

namespace gelu::cuda {

// The rare paths, called rather than inlined: the elementwise kernel unrolls its element function 32 times (8 lanes
// x 4 vectors), and an inlined copy of each rarely taken path in every lane multiplies the kernel's code and the
// registers it holds (SASS instruction counts and ptxas's registers in docs/CUDA.md).
#ifdef __CUDACC__
#define GELU_OPS_NOINLINE __noinline__
#else
#define GELU_OPS_NOINLINE __attribute__((noinline))
#endif

// A float32 element: the float core inline (the lanes of N(0, s) data but a few per million), the rest out of line
// (common::OutsideCoreF32Forward / Backward: identity, ring, far tail, float tail, double path). The same functions
// as common::ForwardF32 / BackwardF32, so the same bits.
template <common::Form kForm>
GELU_HD GELU_OPS_NOINLINE float ForwardF32OutsideCore(float x) {
  return common::OutsideCoreF32Forward<kForm>(x);
}
template <common::Form kForm>
GELU_HD GELU_OPS_NOINLINE float BackwardF32OutsideCore(float grad_out, float x) {
  return common::OutsideCoreF32Backward<kForm>(grad_out, x);
}
template <common::Form kForm>
GELU_HD float ForwardF32Element(float x) {
  return common::InCoreF32(x) ? common::CoreF32Forward<kForm>(x) : ForwardF32OutsideCore<kForm>(x);
}
template <common::Form kForm>
GELU_HD float BackwardF32Element(float grad_out, float x) {
  return common::InCoreF32(x) ? common::CoreF32Backward<kForm>(grad_out, x) : BackwardF32OutsideCore<kForm>(grad_out, x);
}

// kInputs: 1 for forward (x), 2 for backward (grad_out, x). Apply takes the inputs in that order.
template <common::Form kForm>
struct ForwardF32Op {
  using T = float;
  static constexpr int kInputs = 1;
  GELU_HD static T Apply(const T (&in)[1]) { return ForwardF32Element<kForm>(in[0]); }
};
template <common::Form kForm>
struct BackwardF32Op {
  using T = float;
  static constexpr int kInputs = 2;
  GELU_HD static T Apply(const T (&in)[2]) { return BackwardF32Element<kForm>(in[0], in[1]); }
};

// The 16-bit double path (near a rounding midpoint), out of line as the float path's rare part.
template <class Format>
GELU_HD GELU_OPS_NOINLINE uint16_t ForwardHalfDoublePath(uint16_t x, common::Form form) {
  return common::ForwardHalf<Format>(x, form);
}
template <class Format>
GELU_HD GELU_OPS_NOINLINE uint16_t BackwardHalfDoublePath(uint16_t grad_out, uint16_t x, common::Form form) {
  return common::BackwardHalf<Format>(grad_out, x, form);
}

template <class Format, common::Form kForm>
struct ForwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 1;
  GELU_HD static T Apply(const T (&in)[1]) {
    const float y = ForwardF32Element<kForm>(Format::ToFloat(in[0]));
    return Format::NearMidpoint(y) ? ForwardHalfDoublePath<Format>(in[0], kForm) : Format::FromFloat(y);
  }
};
template <class Format, common::Form kForm>
struct BackwardHalfOp {
  using T = uint16_t;
  static constexpr int kInputs = 2;
  GELU_HD static T Apply(const T (&in)[2]) {
    const float y = BackwardF32Element<kForm>(Format::ToFloat(in[0]), Format::ToFloat(in[1]));
    return Format::NearMidpoint(y) ? BackwardHalfDoublePath<Format>(in[0], in[1], kForm) : Format::FromFloat(y);
  }
};

template <common::Form kForm> using ForwardBf16Op = ForwardHalfOp<common::Bf16, kForm>;
template <common::Form kForm> using BackwardBf16Op = BackwardHalfOp<common::Bf16, kForm>;
template <common::Form kForm> using ForwardF16Op = ForwardHalfOp<common::F16, kForm>;
template <common::Form kForm> using BackwardF16Op = BackwardHalfOp<common::F16, kForm>;

// ---- Fused operations (src/cuda/gelu_fused.cu), per element, as the CPU library computes them on its float-core
// targets (src/cpu/storage_paths-inl.h: the float path): results from the float core (ForwardF32, BackwardF32)
// and float products, stored as is (float32) or rounded to the 16-bit type, where the double path redoes a 16-bit
// result near a rounding midpoint (Format::NearMidpoint); grad_bias sums the float core's products.
struct F32Format {
  using T = float;
  static constexpr bool kHalf = false;
  GELU_HD static float ToFloat(float v) { return v; }
  GELU_HD static float FromDouble(double v) { return static_cast<float>(v); }
  GELU_HD static bool NearMidpoint(float) { return false; }  // stored as computed: the float core's bound
  GELU_HD static float FromFloat(float v) { return v; }
};
template <class Format> struct Storage { using T = uint16_t; static constexpr bool kHalf = true; };
template <> struct Storage<F32Format> { using T = float; static constexpr bool kHalf = false; };

// f(x) or f'(x) in double for an output of type Format; half outputs get half.h's corrections, as the CPU's
// FormForOutput applies it (TinyForwardNudge).
template <class Format>
GELU_HD double GeluForOutput(float x, common::Form form, bool derivative) {
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
GELU_HD T BiasForwardElement(T x, T bias, common::Form form) {
  const float h = BiasSum<Format>(x, bias);
  const float y = common::ForwardF32(h, form);
  if (Format::NearMidpoint(y)) return Format::FromDouble(GeluForOutput<Format>(h, form, false));
  return Format::FromFloat(y);
}
// Writes grad_x and returns the term grad_bias sums (in double, over rows): the float core's grad_out * f'(h),
// which is also grad_x (rounded to a 16-bit type, or the double product rounded once near a midpoint).
template <class Format, class T>
GELU_HD double BiasBackwardElement(T grad_out, T x, T bias, common::Form form, T* grad_x) {
  const float h = BiasSum<Format>(x, bias), g = Format::ToFloat(grad_out);
  const float product = common::BackwardF32(g, h, form);
  *grad_x = Format::NearMidpoint(product)
                ? Format::FromDouble(static_cast<double>(g) * GeluForOutput<Format>(h, form, true))
                : Format::FromFloat(product);
  return product;
}
// y = f(a) * b: the float core's f(a) times b in float; near a 16-bit midpoint the product in double, rounded once.
template <class Format, class T>
GELU_HD T GegluForwardElement(T a, T b, common::Form form) {
  const float af = Format::ToFloat(a), bf = Format::ToFloat(b);
  const float y = common::ForwardF32(af, form) * bf;
  if (Format::NearMidpoint(y)) {
    return Format::FromDouble(GeluForOutput<Format>(af, form, false) * static_cast<double>(bf));
  }
  return Format::FromFloat(y);
}
// grad_a = (g * b) * f'(a), grad_b = g * f(a): the float core's fl32(g * b) * f'(a) (g * b exact for 16-bit inputs
// unless it underflows), and g times its f(a) in float. Where fl32(g * b) overflows or is NaN, or either 16-bit
// result is near a midpoint, both come from the double path as the CPU's vectors have them: g * b exact in
// double, each result rounded once.
template <class Format, class T>
GELU_HD void GegluBackwardElement(T g, T a, T b, common::Form form, T* grad_a, T* grad_b) {
  const float af = Format::ToFloat(a), gf = Format::ToFloat(g), bf = Format::ToFloat(b);
  const float m = gf * bf;
  if (m >= -0x1.fffffep127f && m <= 0x1.fffffep127f) {
    const float ga = common::BackwardF32(m, af, form);
    const float gb = gf * common::ForwardF32(af, form);
    if (!Format::NearMidpoint(ga) && !Format::NearMidpoint(gb)) {
      *grad_a = Format::FromFloat(ga);
      *grad_b = Format::FromFloat(gb);
      return;
    }
  }
  const double gd = gf, bd = bf;
  *grad_a = Format::FromDouble((gd * bd) * GeluForOutput<Format>(af, form, true));
  *grad_b = Format::FromDouble(gd * GeluForOutput<Format>(af, form, false));
}

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_GELU_OPS_H_
