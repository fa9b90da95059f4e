// SPDX-License-Identifier: Apache-2.0
// Validates the double reference (src/reference/reference.h) against MPFR (src/reference/mpfr_oracle.h, 120 bits) on a
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
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/common/functions.h"
#include "src/reference/naive.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"
#include "src/reference/mpfr_oracle.h"

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
    gelu::reference::MaxError worst_rel, worst_tiny, worst_root;
    float worst_x = 0, tiny_x = 0;
    for (float x : xs) {
      const double r = derivative ? gelu::reference::Derivative(x, fn.form()) : gelu::reference::Forward(x, fn.form());
      oracle.Eval(x, fn.form(), derivative ? nullptr : exact.get(), derivative ? exact.get() : nullptr);
      // |r - v| in double: v rounded to double first adds <= 2^-53 relative, or 2^-1075 absolute.
      const double v = mpfr_get_d(exact.get(), MPFR_RNDN);
      // The sign of a zero counts (src/reference/ulp.h tells +0 and -0 apart). Where MPFR itself underflows to
      // an exact zero (exp of arguments beyond its exponent range, |x| > ~2^20) its sign says nothing.
      if ((r == 0 || v == 0) && (!mpfr_zero_p(exact.get()) || x == 0)) {
        EXPECT_EQ(std::signbit(r), std::signbit(v)) << fn.name << std::hexfloat << " x=" << x << " r=" << r << " v=" << v;
      }
      const double err = std::fabs(r - v);
      if (derivative && gelu::common::InNearRootWindow(x, v)) {
        worst_root.Add(r, v, err);
      } else if (std::fabs(v) < 0x1p-126) {
        if (worst_tiny.Add(r, v, err)) tiny_x = x;
      } else if (worst_rel.Add(r, v, err / std::fabs(v))) {
        worst_x = x;
      }
    }
    std::printf("%-17s max relative error 2^%.1f at x=%a; below 2^-126 abs 2^%.1f (x=%a); near-root abs 2^%.1f\n",
                fn.name, std::log2(worst_rel.value), worst_x, std::log2(worst_tiny.value), tiny_x,
                std::log2(worst_root.value));
    EXPECT_LT(worst_rel.value, kMaxRelative) << fn.name << std::hexfloat << " x=" << worst_x;
    EXPECT_LT(worst_tiny.value, kMaxAbsoluteTiny) << fn.name << std::hexfloat << " x=" << tiny_x;
    EXPECT_LT(worst_root.value, kMaxAbsoluteNearRoot) << fn.name;
  }
}

// The one NaN rule of every test's error maximum (src/reference/ulp.h): a NaN result where the reference is a
// number, or a number where it is NaN, makes the maximum NaN, which fails the bound; a later, smaller or larger,
// number does not replace it; NaN against NaN is no error. (std::max(worst, e), which the tests used before,
// kept 0.25 below.)
TEST(MaxErrorTest, NanMismatchFailsTheBound) {
  using gelu::reference::MaxError;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MaxError plain;
  EXPECT_TRUE(plain.Add(0.25));
  EXPECT_FALSE(plain.Add(0.125));
  EXPECT_EQ(plain.value, 0.25);
  EXPECT_TRUE(plain.Add(nan));  // a NaN error (e.g. |NaN - r| / ulp) is recorded, once
  EXPECT_FALSE(plain.Add(1.0));
  EXPECT_FALSE(plain.Add(0.0));
  EXPECT_TRUE(std::isnan(plain.value));
  EXPECT_FALSE(plain.value <= 1.0);  // so EXPECT_LE(max.value, bound) fails

  // The pair rule holds whatever the metric gave, even a clamp's 0 (std::max(0.0, NaN) is 0).
  MaxError nan_result, nan_reference, both, numbers;
  EXPECT_TRUE(nan_result.Add(nan, 1.0, 0.0));
  EXPECT_TRUE(std::isnan(nan_result.value));
  EXPECT_TRUE(nan_reference.Add(1.0, nan, 0.0));
  EXPECT_TRUE(std::isnan(nan_reference.value));
  EXPECT_FALSE(both.Add(nan, nan, nan));
  EXPECT_EQ(both.value, 0.0);
  EXPECT_TRUE(numbers.Add(1.5, 1.0, 0.5));
  EXPECT_EQ(numbers.value, 0.5);

  // Worst (the float32 tracker) follows the same rule: NaN mismatches are counted, and fail Within.
  const gelu::common::Function& fn = gelu::common::kFunctions[0];
  gelu::reference::Worst w;
  w.Add(1.0f, 0.5f, 0.5, fn.backward());
  EXPECT_TRUE(w.Within(fn));
  w.Add(2.0f, std::numeric_limits<float>::quiet_NaN(), 1.0, fn.backward());
  EXPECT_FALSE(w.Within(fn));
  gelu::reference::Worst v;
  v.Add(2.0f, 1.0f, nan, fn.backward());
  EXPECT_FALSE(v.Within(fn));
  gelu::reference::Worst merged;
  merged.Merge(w);
  EXPECT_FALSE(merged.Within(fn));
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
