// SPDX-License-Identifier: Apache-2.0
// Validates the double reference (src/reference/reference.h) against MPFR at 200 bits on a sample of float32
// inputs: relative error < 2^-40 (2^16 below a float32 ULP), or absolute < 2^-50 where a derivative is near
// its root. This is what licenses using the reference as the oracle of the exhaustive float32 test.
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/reference/reference.h"

namespace {

using gelu::reference::Form;

class Mp {
 public:
  Mp() { mpfr_init2(v, 200); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_t v;
};

// f or f' at 200 bits, the formulas exactly as stated (decimal constants parsed exactly).
double Exact(double xd, Form form, bool derivative) {
  Mp x, a, b, c, s, z, dz;
  mpfr_set_d(x.v, xd, MPFR_RNDN);
  if (form == Form::none) {
    mpfr_sqrt_ui(a.v, 2, MPFR_RNDN);
    mpfr_div(a.v, x.v, a.v, MPFR_RNDN);  // x/sqrt2
    mpfr_neg(a.v, a.v, MPFR_RNDN);
    mpfr_erfc(b.v, a.v, MPFR_RNDN);      // erfc(-x/sqrt2) = 2 Phi(x)
    mpfr_div_ui(b.v, b.v, 2, MPFR_RNDN); // Phi
    if (!derivative) {
      mpfr_mul(b.v, b.v, x.v, MPFR_RNDN);
      return mpfr_get_d(b.v, MPFR_RNDN);
    }
    mpfr_sqr(c.v, x.v, MPFR_RNDN);
    mpfr_div_si(c.v, c.v, -2, MPFR_RNDN);
    mpfr_exp(c.v, c.v, MPFR_RNDN);       // exp(-x^2/2)
    mpfr_const_pi(s.v, MPFR_RNDN);
    mpfr_mul_ui(s.v, s.v, 2, MPFR_RNDN);
    mpfr_sqrt(s.v, s.v, MPFR_RNDN);
    mpfr_div(c.v, c.v, s.v, MPFR_RNDN);  // phi(x)
    mpfr_mul(c.v, c.v, x.v, MPFR_RNDN);
    mpfr_add(b.v, b.v, c.v, MPFR_RNDN);
    return mpfr_get_d(b.v, MPFR_RNDN);
  }
  if (form == Form::tanh) {
    Mp k, cubic;
    mpfr_const_pi(k.v, MPFR_RNDN);
    mpfr_ui_div(k.v, 2, k.v, MPFR_RNDN);
    mpfr_sqrt(k.v, k.v, MPFR_RNDN);
    mpfr_mul_ui(k.v, k.v, 2, MPFR_RNDN);  // 2 sqrt(2/pi)
    mpfr_set_str(cubic.v, "0.044715", 10, MPFR_RNDN);
    mpfr_sqr(a.v, x.v, MPFR_RNDN);
    mpfr_mul(b.v, a.v, cubic.v, MPFR_RNDN);
    mpfr_add_ui(b.v, b.v, 1, MPFR_RNDN);
    mpfr_mul(z.v, b.v, x.v, MPFR_RNDN);
    mpfr_mul(z.v, z.v, k.v, MPFR_RNDN);  // z = 2 sqrt(2/pi)(x + 0.044715 x^3)
    mpfr_mul(b.v, a.v, cubic.v, MPFR_RNDN);
    mpfr_mul_ui(b.v, b.v, 3, MPFR_RNDN);
    mpfr_add_ui(b.v, b.v, 1, MPFR_RNDN);
    mpfr_mul(dz.v, b.v, k.v, MPFR_RNDN);
  } else {
    mpfr_set_str(dz.v, "1.702", 10, MPFR_RNDN);
    mpfr_mul(z.v, x.v, dz.v, MPFR_RNDN);
  }
  // s = sigmoid(z) = 1/(1+exp(-z))
  mpfr_neg(a.v, z.v, MPFR_RNDN);
  mpfr_exp(a.v, a.v, MPFR_RNDN);
  mpfr_add_ui(a.v, a.v, 1, MPFR_RNDN);
  mpfr_ui_div(s.v, 1, a.v, MPFR_RNDN);
  if (!derivative) {
    mpfr_mul(s.v, s.v, x.v, MPFR_RNDN);
    return mpfr_get_d(s.v, MPFR_RNDN);
  }
  mpfr_ui_sub(c.v, 1, s.v, MPFR_RNDN);
  mpfr_mul(c.v, c.v, s.v, MPFR_RNDN);
  mpfr_mul(c.v, c.v, x.v, MPFR_RNDN);
  mpfr_mul(c.v, c.v, dz.v, MPFR_RNDN);
  mpfr_add(c.v, c.v, s.v, MPFR_RNDN);
  return mpfr_get_d(c.v, MPFR_RNDN);
}

TEST(ReferenceTest, AgreesWithMpfrOnASample) {
  std::vector<float> xs;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> wide(-16.0f, 16.0f);
  for (int i = 0; i < 4000; ++i) xs.push_back(wide(rng));
  for (int i = 0; i < 2000; ++i) {  // random bit patterns of magnitude up to 2^7: every binade down to subnormals
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xc37fffffu);
    if (std::isfinite(f)) xs.push_back(f);
  }
  for (float x = -15.5f; x < -13.0f; x += 0.01f) xs.push_back(x);  // the negative tail, where 1+erf fails
  for (float x = -0.76f; x < -0.74f; x += 0.0001f) xs.push_back(x);  // around the derivative's root
  for (int form = 0; form < 3; ++form) {
    for (bool derivative : {false, true}) {
      double worst_rel = 0, worst_abs = 0;
      float worst_x = 0;
      for (float x : xs) {
        const double r = derivative ? gelu::reference::Derivative(x, static_cast<Form>(form))
                                    : gelu::reference::Forward(x, static_cast<Form>(form));
        const double e = Exact(x, static_cast<Form>(form), derivative);
        if (derivative && std::fabs(e) < 0x1p-8 && x > -2 && x < 0) {
          worst_abs = std::max(worst_abs, std::fabs(r - e));
          continue;
        }
        if (e == 0 || std::fabs(e) < 0x1p-1000) continue;  // below any float32; relative error not meaningful
        const double rel = std::fabs(r - e) / std::fabs(e);
        if (rel > worst_rel) { worst_rel = rel; worst_x = x; }
      }
      std::printf("form %d %s: max relative error 2^%.1f at x=%a; near-root abs 2^%.1f\n", form,
                  derivative ? "derivative" : "forward", std::log2(worst_rel), worst_x, std::log2(worst_abs));
      EXPECT_LT(worst_rel, 0x1p-40) << std::hexfloat << worst_x;
      EXPECT_LT(worst_abs, 0x1p-50);
    }
  }
}

}  // namespace
