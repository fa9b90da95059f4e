// SPDX-License-Identifier: Apache-2.0
// The Arm peers' GELU loops for llvm-mca (scripts/arm_mca.sh), as a user composes them from each library, over
// count float32 elements (a multiple of 4): Eigen 3.4's vectorized array expressions (its erf is
// generic_fast_erf_float, its tanh ptanh<Packet4f>, its exp pexp), SLEEF 3.5's 1-ULP NEON functions
// (Sleef_erff4_u10advsimd, Sleef_tanhf4_u10advsimd, Sleef_expf4_u10advsimd, called from libsleef; the script
// inlines their bodies from Debian's arm64 libsleef.so.3) and the usual scalar loops on glibc's erff/tanhf.
// Backward: grad_out * f'(x), f' composed the usual way (exact: Phi(x) + x phi(x); tanh: the derivative of the
// tanh formula). Compiled to assembly only (-S), never linked. The SVE twins of the SLEEF loops:
// mca_peers_sve.cc.
#include <arm_neon.h>
#include <sleef.h>

#include <cmath>
#include <cstddef>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

namespace {
constexpr float kSqrtHalf = 0.70710678118654752f;      // 1/sqrt(2)
constexpr float kInvSqrt2Pi = 0.39894228040143268f;    // 1/sqrt(2 pi)
constexpr float kSqrt2OverPi = 0.79788456080286536f;   // sqrt(2/pi)
constexpr float kTanhCubic = 0.044715f;
using ArrayF = Eigen::Array<float, Eigen::Dynamic, 1>;
using In = Eigen::Map<const ArrayF>;
using Out = Eigen::Map<ArrayF>;
}  // namespace

extern "C" {

void eigen_forward_none(const float* x, float* y, size_t n) {
  const In xs(x, static_cast<Eigen::Index>(n));
  Out(y, static_cast<Eigen::Index>(n)) = 0.5f * xs * (1.0f + (xs * kSqrtHalf).erf());
}
void eigen_forward_tanh(const float* x, float* y, size_t n) {
  const In xs(x, static_cast<Eigen::Index>(n));
  Out(y, static_cast<Eigen::Index>(n)) =
      0.5f * xs * (1.0f + (kSqrt2OverPi * (xs + kTanhCubic * xs * xs * xs)).tanh());
}
void eigen_backward_none(const float* g, const float* x, float* y, size_t n) {
  const In xs(x, static_cast<Eigen::Index>(n)), gs(g, static_cast<Eigen::Index>(n));
  Out(y, static_cast<Eigen::Index>(n)) =
      gs * (0.5f * (1.0f + (xs * kSqrtHalf).erf()) + xs * kInvSqrt2Pi * (-0.5f * xs * xs).exp());
}
void eigen_backward_tanh(const float* g, const float* x, float* y, size_t n) {
  const In xs(x, static_cast<Eigen::Index>(n)), gs(g, static_cast<Eigen::Index>(n));
  const auto t = (kSqrt2OverPi * (xs + kTanhCubic * xs * xs * xs)).tanh();
  Out(y, static_cast<Eigen::Index>(n)) =
      gs * (0.5f * (1.0f + t) + 0.5f * xs * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kTanhCubic * xs * xs));
}

void sleef_forward_none(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    const float32x4_t e = Sleef_erff4_u10advsimd(vmulq_n_f32(v, kSqrtHalf));
    vst1q_f32(y + i, vmulq_f32(vmulq_n_f32(v, 0.5f), vaddq_f32(vdupq_n_f32(1.0f), e)));
  }
}
void sleef_forward_tanh(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    const float32x4_t cube = vmulq_f32(vmulq_f32(v, v), v);
    const float32x4_t u = vmulq_n_f32(vfmaq_n_f32(v, cube, kTanhCubic), kSqrt2OverPi);
    const float32x4_t t = Sleef_tanhf4_u10advsimd(u);
    vst1q_f32(y + i, vmulq_f32(vmulq_n_f32(v, 0.5f), vaddq_f32(vdupq_n_f32(1.0f), t)));
  }
}
void sleef_backward_none(const float* g, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    const float32x4_t e = Sleef_erff4_u10advsimd(vmulq_n_f32(v, kSqrtHalf));
    const float32x4_t d = Sleef_expf4_u10advsimd(vmulq_n_f32(vmulq_f32(v, v), -0.5f));
    const float32x4_t cdf = vmulq_n_f32(vaddq_f32(vdupq_n_f32(1.0f), e), 0.5f);
    const float32x4_t dy = vfmaq_f32(cdf, vmulq_n_f32(v, kInvSqrt2Pi), d);
    vst1q_f32(y + i, vmulq_f32(vld1q_f32(g + i), dy));
  }
}
void sleef_backward_tanh(const float* g, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    const float32x4_t x2 = vmulq_f32(v, v);
    const float32x4_t u = vmulq_n_f32(vfmaq_n_f32(v, vmulq_f32(x2, v), kTanhCubic), kSqrt2OverPi);
    const float32x4_t t = Sleef_tanhf4_u10advsimd(u);
    const float32x4_t one = vdupq_n_f32(1.0f);
    const float32x4_t du = vmulq_n_f32(vfmaq_n_f32(one, x2, 3.0f * kTanhCubic), kSqrt2OverPi);
    const float32x4_t sech2 = vfmsq_f32(one, t, t);
    const float32x4_t dy = vfmaq_f32(vmulq_n_f32(vaddq_f32(one, t), 0.5f), vmulq_f32(vmulq_n_f32(v, 0.5f), sech2), du);
    vst1q_f32(y + i, vmulq_f32(vld1q_f32(g + i), dy));
  }
}

// The usual scalar loops: a call to glibc's erff/tanhf per element.
void naive_forward_none(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * kSqrtHalf));
}
void naive_forward_tanh(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = 0.5f * x[i] * (1.0f + tanhf(kSqrt2OverPi * (x[i] + kTanhCubic * x[i] * x[i] * x[i])));
  }
}

}  // extern "C"
