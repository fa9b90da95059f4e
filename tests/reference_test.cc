// SPDX-License-Identifier: Apache-2.0
// Validates the double reference (src/reference/reference.h) against MPFR (tests/mpfr_oracle.h, 120 bits) on a
// sample of float32 inputs: every one of the 254 finite exponents of both signs (subnormals included), random
// mantissas, plus uniform [-16, 16], the negative tail and the derivative's root. This is what licenses the
// reference as the oracle of the exhaustive float32 test. Asserted, as docs/ACCURACY.md states:
//   relative error < 2^-44 wherever the exact value is a float32 normal (|v| >= 2^-126);
//   below that, absolute error < 2^-166 (2^-17 of the smallest float32 spacing, 2^-149);
//   derivatives in the near-root window (src/common/functions.h): absolute error < 2^-53.
// Each is 2^-16 or less of a float32 ULP, so the reference decides every float32 comparison.
// Also: the figures README.md and docs/ACCURACY.md state for the naive float32 formula (src/reference/naive.h).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/common/functions.h"
#include "src/reference/naive.h"
#include "src/reference/reference.h"
#include "tests/mpfr_oracle.h"

namespace {

using gelu::common::Function;

constexpr double kMaxRelative = 0x1p-44;
constexpr double kMaxAbsoluteTiny = 0x1p-166;
constexpr double kMaxAbsoluteNearRoot = 0x1p-53;

std::vector<float> Sample() {
  std::vector<float> xs;
  std::mt19937 rng(2024);
  // Every biased exponent 0 (subnormals) .. 254, both signs, 64 random mantissas each.
  for (uint32_t e = 0; e <= 254; ++e) {
    for (uint32_t sign : {0u, 1u}) {
      for (int j = 0; j < 64; ++j) {
        xs.push_back(std::bit_cast<float>((sign << 31) | (e << 23) | (static_cast<uint32_t>(rng()) & 0x7fffffu)));
      }
    }
  }
  std::uniform_real_distribution<float> wide(-16.0f, 16.0f);
  for (int i = 0; i < 4000; ++i) xs.push_back(wide(rng));
  for (float x = -15.5f; x < -13.0f; x += 0.01f) xs.push_back(x);    // the negative tail, where 1+erf fails
  for (float x = -0.76f; x < -0.74f; x += 0.0001f) xs.push_back(x);  // around the derivative's root
  return xs;
}

TEST(ReferenceTest, AgreesWithMpfrOnEveryExponent) {
  const std::vector<float> xs = Sample();
  size_t exponents_seen = 0;
  for (uint32_t e = 0; e <= 254; ++e) {
    for (float x : xs) {
      if (((std::bit_cast<uint32_t>(x) >> 23) & 0xff) == e) {
        ++exponents_seen;
        break;
      }
    }
  }
  EXPECT_EQ(exponents_seen, 255u);
  gelu::test::MpfrGelu oracle(120);
  gelu::test::MpfrValue exact(120);
  for (const Function& fn : gelu::common::kFunctions) {
    if (!gelu::common::IsFormFunctionIn(fn, gelu::common::kF32)) continue;
    const bool derivative = fn.backward();
    double worst_rel = 0, worst_tiny = 0, worst_root = 0;
    float worst_x = 0, tiny_x = 0;
    for (float x : xs) {
      const double r = derivative ? gelu::reference::Derivative(x, fn.form) : gelu::reference::Forward(x, fn.form);
      oracle.Eval(x, fn.form, derivative ? nullptr : exact.get(), derivative ? exact.get() : nullptr);
      // |r - v| in double: v rounded to double first adds <= 2^-53 relative, or 2^-1075 absolute.
      const double v = mpfr_get_d(exact.get(), MPFR_RNDN);
      // The sign of a zero counts (src/reference/ulp.h tells +0 and -0 apart). Where MPFR itself underflows to
      // an exact zero (exp of arguments beyond its exponent range, |x| > ~2^20) its sign says nothing.
      if ((r == 0 || v == 0) && (!mpfr_zero_p(exact.get()) || x == 0)) {
        EXPECT_EQ(std::signbit(r), std::signbit(v)) << fn.name << std::hexfloat << " x=" << x << " r=" << r << " v=" << v;
      }
      const double err = std::fabs(r - v);
      if (derivative && gelu::common::InNearRootWindow(x, v)) {
        worst_root = std::max(worst_root, err);
      } else if (std::fabs(v) < 0x1p-126) {
        if (err > worst_tiny) { worst_tiny = err; tiny_x = x; }
      } else if (err / std::fabs(v) > worst_rel) {
        worst_rel = err / std::fabs(v);
        worst_x = x;
      }
    }
    std::printf("%-17s max relative error 2^%.1f at x=%a; below 2^-126 abs 2^%.1f (x=%a); near-root abs 2^%.1f\n",
                fn.name, std::log2(worst_rel), worst_x, std::log2(worst_tiny), tiny_x, std::log2(worst_root));
    EXPECT_LT(worst_rel, kMaxRelative) << fn.name << std::hexfloat << " x=" << worst_x;
    EXPECT_LT(worst_tiny, kMaxAbsoluteTiny) << fn.name << std::hexfloat << " x=" << tiny_x;
    EXPECT_LT(worst_root, kMaxAbsoluteNearRoot) << fn.name;
  }
}

// The figures README.md and docs/ACCURACY.md give for the usual formula 0.5f*x*(1+erff(x/sqrt 2)) in float32
// (src/reference/naive.h, this libm's erff), against the reference: "4% off at x = -5, 57% at -5.5, and returns 0
// from x = -5.5426, where GELU is still -8.3e-8", each figure to the digits it is stated with.
TEST(ReferenceTest, NaiveFloatFormulaFiguresAsStated) {
  const auto naive = [](float x) { return gelu::reference::NaiveForward(x, gelu::common::kNone); };
  const auto ref = [](float x) { return gelu::reference::Forward(x, gelu::common::kNone); };
  const auto percent_off = [&](float x) { return std::lround(100 * std::fabs((naive(x) - ref(x)) / ref(x))); };
  EXPECT_EQ(percent_off(-5.0f), 4);
  EXPECT_EQ(percent_off(-5.5f), 57);
  // The first float below -5 (going down) where the formula returns 0, and from there down to -64 it stays 0
  // (1 + erff rounds to exactly 0; below -64 erff(x/sqrt 2) is -1 all the more).
  float first_zero = -5.0f;
  while (naive(first_zero) != 0) first_zero = std::nextafter(first_zero, -INFINITY);
  uint64_t nonzero = 0;
  for (float x = first_zero; x >= -64.0f; x = std::nextafter(x, -INFINITY)) nonzero += naive(x) != 0;
  EXPECT_EQ(nonzero, 0u);
  std::printf("naive float32 formula: %.4f%% off at -5, %.4f%% at -5.5, first 0 at x=%a (%.7g), GELU there %.4g\n",
              100 * std::fabs((naive(-5.0f) - ref(-5.0f)) / ref(-5.0f)),
              100 * std::fabs((naive(-5.5f) - ref(-5.5f)) / ref(-5.5f)), first_zero, first_zero, ref(first_zero));
  EXPECT_EQ(std::lround(first_zero * 1e4), -55426) << std::hexfloat << first_zero;
  EXPECT_LT(ref(first_zero), 0.0);
  EXPECT_EQ(std::lround(ref(first_zero) * 1e9), -83) << ref(first_zero);  // -8.3e-8
}

}  // namespace
