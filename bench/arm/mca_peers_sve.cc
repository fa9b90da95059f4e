// SPDX-License-Identifier: Apache-2.0
// SLEEF's SVE functions composed into GELU (Sleef_erffx_u10sve, Sleef_tanhfx_u10sve, Sleef_expfx_u10sve), the
// loops of mca_peers.cc at any SVE vector length, for llvm-mca (scripts/arm_mca.sh; compiled with +sve, to
// assembly only).
#include <arm_sve.h>
#include <sleef.h>

#include <cstddef>
#include <cstdint>

namespace {
constexpr float kSqrtHalf = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kTanhCubic = 0.044715f;
}  // namespace

extern "C" {

void sleef_sve_forward_none(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += svcntw()) {
    const svbool_t p = svwhilelt_b32_u64(i, n);
    const svfloat32_t v = svld1_f32(p, x + i);
    const svfloat32_t e = Sleef_erffx_u10sve(svmul_n_f32_x(p, v, kSqrtHalf));
    svst1_f32(p, y + i, svmul_f32_x(p, svmul_n_f32_x(p, v, 0.5f), svadd_n_f32_x(p, e, 1.0f)));
  }
}
void sleef_sve_forward_tanh(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += svcntw()) {
    const svbool_t p = svwhilelt_b32_u64(i, n);
    const svfloat32_t v = svld1_f32(p, x + i);
    const svfloat32_t cube = svmul_f32_x(p, svmul_f32_x(p, v, v), v);
    const svfloat32_t u = svmul_n_f32_x(p, svmla_n_f32_x(p, v, cube, kTanhCubic), kSqrt2OverPi);
    const svfloat32_t t = Sleef_tanhfx_u10sve(u);
    svst1_f32(p, y + i, svmul_f32_x(p, svmul_n_f32_x(p, v, 0.5f), svadd_n_f32_x(p, t, 1.0f)));
  }
}
void sleef_sve_backward_none(const float* g, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += svcntw()) {
    const svbool_t p = svwhilelt_b32_u64(i, n);
    const svfloat32_t v = svld1_f32(p, x + i);
    const svfloat32_t e = Sleef_erffx_u10sve(svmul_n_f32_x(p, v, kSqrtHalf));
    const svfloat32_t d = Sleef_expfx_u10sve(svmul_n_f32_x(p, svmul_f32_x(p, v, v), -0.5f));
    const svfloat32_t cdf = svmul_n_f32_x(p, svadd_n_f32_x(p, e, 1.0f), 0.5f);
    const svfloat32_t dy = svmla_f32_x(p, cdf, svmul_n_f32_x(p, v, kInvSqrt2Pi), d);
    svst1_f32(p, y + i, svmul_f32_x(p, svld1_f32(p, g + i), dy));
  }
}
void sleef_sve_backward_tanh(const float* g, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += svcntw()) {
    const svbool_t p = svwhilelt_b32_u64(i, n);
    const svfloat32_t v = svld1_f32(p, x + i);
    const svfloat32_t x2 = svmul_f32_x(p, v, v);
    const svfloat32_t u = svmul_n_f32_x(p, svmla_n_f32_x(p, v, svmul_f32_x(p, x2, v), kTanhCubic), kSqrt2OverPi);
    const svfloat32_t t = Sleef_tanhfx_u10sve(u);
    const svfloat32_t du = svmul_n_f32_x(p, svmla_n_f32_x(p, svdup_n_f32(1.0f), x2, 3.0f * kTanhCubic), kSqrt2OverPi);
    const svfloat32_t sech2 = svmls_f32_x(p, svdup_n_f32(1.0f), t, t);
    const svfloat32_t dy =
        svmla_f32_x(p, svmul_n_f32_x(p, svadd_n_f32_x(p, t, 1.0f), 0.5f), svmul_f32_x(p, svmul_n_f32_x(p, v, 0.5f), sech2), du);
    svst1_f32(p, y + i, svmul_f32_x(p, svld1_f32(p, g + i), dy));
  }
}

}  // extern "C"
