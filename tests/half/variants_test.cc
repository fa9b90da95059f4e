// SPDX-License-Identifier: Apache-2.0
// Named variants (Hugging Face ACT2FN names): lookup, errors, and each name computing its own formula --
// the form aliases bit for bit equal to the form functions, gelu_fast against its own constant, gelu_10's clip
// and its gradient -- for float32, bf16 and fp16. (Correct rounding of every bf16/fp16 input of gelu_fast and
// gelu_10 is in half_exhaustive_test.cc.) Also the documented maximum differences from exact GELU.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu.hpp"
#include "gtest/gtest.h"
#include "src/common/gelu_scalar.h"
#include "src/common/functions.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"

namespace {

using gelu::reference::Form;

struct Entry {
  const char* name;
  gelu_variant variant;
  int approximate;  // gelu_variant_approximate: the form, or -1
};
const Entry kTable[] = {
    {"gelu", GELU_VARIANT_GELU, GELU_APPROXIMATE_NONE},
    {"gelu_python", GELU_VARIANT_GELU_PYTHON, GELU_APPROXIMATE_NONE},
    {"gelu_new", GELU_VARIANT_GELU_NEW, GELU_APPROXIMATE_TANH},
    {"gelu_pytorch_tanh", GELU_VARIANT_GELU_PYTORCH_TANH, GELU_APPROXIMATE_TANH},
    {"gelu_accurate", GELU_VARIANT_GELU_ACCURATE, GELU_APPROXIMATE_TANH},
    {"gelu_fast", GELU_VARIANT_GELU_FAST, -1},
    {"quick_gelu", GELU_VARIANT_QUICK_GELU, GELU_APPROXIMATE_SIGMOID},
    {"gelu_10", GELU_VARIANT_GELU_10, -1},
};

TEST(VariantsTest, LookupEveryName) {
  ASSERT_EQ(std::size(kTable), static_cast<size_t>(GELU_VARIANT_COUNT));
  for (const Entry& e : kTable) {
    gelu_variant v = static_cast<gelu_variant>(-1);
    ASSERT_EQ(gelu_variant_from_name(e.name, &v), GELU_OK) << e.name;
    EXPECT_EQ(v, e.variant) << e.name;
    EXPECT_STREQ(gelu_variant_name(v), e.name);
    EXPECT_EQ(gelu_variant_approximate(v), e.approximate) << e.name;
    EXPECT_EQ(gelu::variant_from_name(e.name), static_cast<gelu::Variant>(e.variant));
    EXPECT_STREQ(gelu::to_string(static_cast<gelu::Variant>(e.variant)), e.name);
  }
}

TEST(VariantsTest, UnknownNamesAreAClearError) {
  for (const char* name : {"", "GELU", "gelu ", "relu", "gelu_11", "quick-gelu", "gelu_new\n", "silu"}) {
    gelu_variant v = GELU_VARIANT_QUICK_GELU;
    EXPECT_EQ(gelu_variant_from_name(name, &v), GELU_UNKNOWN_VARIANT) << '"' << name << '"';
    EXPECT_EQ(v, GELU_VARIANT_QUICK_GELU) << "untouched";
  }
  gelu_variant v;
  EXPECT_EQ(gelu_variant_from_name(nullptr, &v), GELU_UNKNOWN_VARIANT);
  EXPECT_EQ(gelu_variant_from_name("gelu", nullptr), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_variant_name(static_cast<gelu_variant>(GELU_VARIANT_COUNT)), nullptr);
  EXPECT_EQ(gelu_variant_approximate(static_cast<gelu_variant>(-1)), -1);
  // The status has its own message (not "unknown status").
  const std::string message = gelu_status_string(GELU_UNKNOWN_VARIANT);
  EXPECT_NE(message.find("variant"), std::string::npos)
      << message << " -- gelu_status_string (src/cpu/dispatch.cc) needs a case for GELU_UNKNOWN_VARIANT";
  // C++: gelu::Error with the status, the name and the known names in the message.
  try {
    gelu::variant_from_name("gelu_tanh");
    FAIL() << "no exception";
  } catch (const gelu::Error& e) {
    EXPECT_EQ(e.status(), GELU_UNKNOWN_VARIANT);
    const std::string what = e.what();
    EXPECT_NE(what.find("'gelu_tanh'"), std::string::npos) << what;
    EXPECT_NE(what.find("gelu_pytorch_tanh"), std::string::npos) << what;
  }
}

TEST(VariantsTest, ValuesOutsideTheEnumAreRejected) {
  float x = 1.0f, y = 7.0f, g = 1.0f;
  uint16_t hx = 0x3f80, hy = 7, hg = 0x3f80;
  for (int bad : {-1, GELU_VARIANT_COUNT, 1000}) {
    const auto v = static_cast<gelu_variant>(bad);
    EXPECT_EQ(gelu_variant_forward_f32(v, &x, &y, 1), GELU_UNKNOWN_VARIANT);
    EXPECT_EQ(gelu_variant_backward_f32(v, &g, &x, &y, 1), GELU_UNKNOWN_VARIANT);
    EXPECT_EQ(gelu_variant_forward_bf16(v, &hx, &hy, 1), GELU_UNKNOWN_VARIANT);
    EXPECT_EQ(gelu_variant_backward_f16(v, &hg, &hx, &hy, 1), GELU_UNKNOWN_VARIANT);
  }
  EXPECT_EQ(y, 7.0f);
  EXPECT_EQ(hy, 7);
  // And the usual argument rules.
  EXPECT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_FAST, nullptr, &y, 1), GELU_INVALID_ARGUMENT);
  float buf[8] = {};
  EXPECT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, buf, buf + 1, 4), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, nullptr, nullptr, 0), GELU_OK);
}

std::vector<float> Inputs() {
  std::vector<float> x;
  for (double v = -20.0; v <= 20.0; v += 0.01) x.push_back(static_cast<float>(v));
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (!std::isnan(f)) x.push_back(f);
  }
  for (float s : {0.0f, -0.0f, 10.0f, std::nextafter(10.0f, 11.0f), std::nextafter(10.0f, 0.0f), HUGE_VALF,
                  -HUGE_VALF, 1e-40f, -1e-40f}) {
    x.push_back(s);
  }
  return x;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The aliases of the three forms are those forms, bit for bit (float32 on the sample of Inputs(), both half types
// on every input).
TEST(VariantsTest, FormAliasesEqualTheForms) {
  const auto x = Inputs();
  const size_t n = x.size();
  std::vector<float> ones(n, 1.0f), y(n), want(n);
  for (const Entry& e : kTable) {
    if (e.approximate < 0) continue;
    const auto a = static_cast<gelu_approximate>(e.approximate);
    ASSERT_EQ(gelu_variant_forward_f32(e.variant, x.data(), y.data(), n), GELU_OK);
    ASSERT_EQ(gelu_forward_f32(x.data(), want.data(), n, a), GELU_OK);
    EXPECT_TRUE(SameBits(y, want)) << e.name;
    ASSERT_EQ(gelu_variant_backward_f32(e.variant, ones.data(), x.data(), y.data(), n), GELU_OK);
    ASSERT_EQ(gelu_backward_f32(ones.data(), x.data(), want.data(), n, a), GELU_OK);
    EXPECT_TRUE(SameBits(y, want)) << e.name;
  }
  // Both half types, every one of the 65,536 bit patterns, forward and backward (grad_out the pattern itself, so
  // every sign and binade of grad_out appears too).
  std::vector<uint16_t> all(65536), out(all.size()), expected(all.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  const size_t m = all.size();
  // Each half type's four entry points: variant forward/backward, then form forward/backward.
  struct HalfApi {
    const char* name;
    gelu_status (*variant_forward)(gelu_variant, const uint16_t*, uint16_t*, size_t);
    gelu_status (*variant_backward)(gelu_variant, const uint16_t*, const uint16_t*, uint16_t*, size_t);
    gelu_status (*forward)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
    gelu_status (*backward)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
  };
  const HalfApi apis[] = {
      {"bf16", gelu_variant_forward_bf16, gelu_variant_backward_bf16, gelu_forward_bf16, gelu_backward_bf16},
      {"f16", gelu_variant_forward_f16, gelu_variant_backward_f16, gelu_forward_f16, gelu_backward_f16}};
  for (const Entry& e : kTable) {
    if (e.approximate < 0) continue;
    const auto a = static_cast<gelu_approximate>(e.approximate);
    for (const HalfApi& api : apis) {
      ASSERT_EQ(api.variant_forward(e.variant, all.data(), out.data(), m), GELU_OK);
      ASSERT_EQ(api.forward(all.data(), expected.data(), m, a), GELU_OK);
      EXPECT_EQ(out, expected) << e.name << " " << api.name << " forward";
      ASSERT_EQ(api.variant_backward(e.variant, all.data(), all.data(), out.data(), m), GELU_OK);
      ASSERT_EQ(api.backward(all.data(), all.data(), expected.data(), m, a), GELU_OK);
      EXPECT_EQ(out, expected) << e.name << " " << api.name << " backward";
    }
  }
}

// gelu_fast: 0.5 x (1 + tanh(0.7978845608 x (1 + 0.044715 x^2))) in double, as x sigmoid(z).
double FastRef(double x, bool derivative) {
  if (std::isinf(x)) return x > 0 ? (derivative ? 1.0 : x) : (derivative ? 0.0 : -0.0);
  const double k = 2.0 * 0.7978845608, z = k * (x + 0.044715 * x * x * x);
  const double e = std::exp(-std::fabs(z)), r = 1.0 / (1.0 + e), s = z >= 0 ? r : e * r;
  if (!derivative) return x * s;
  const double ds = e * r * r;
  return ds == 0.0 ? s : s + x * k * (1.0 + 3.0 * 0.044715 * x * x) * ds;
}

double UlpF32(double r) {
  int e;
  std::frexp(r, &e);
  return std::ldexp(1.0, std::max(e - 1, -126) - 23);
}

// gelu_fast is within the tanh form's float32 bounds (2 ULP; f' absolute 2^-24 where |f'| < 2^-8) of its own
// formula, and where its result differs from gelu_new's it is the one closer to its own formula.
TEST(VariantsTest, GeluFastComputesItsOwnFormula) {
  auto x = Inputs();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> tail(-12.0f, -4.0f);  // z = -30 .. -120: the constants' effect is largest
  for (int i = 0; i < 400000; ++i) x.push_back(tail(rng));
  const size_t n = x.size();
  std::vector<float> ones(n, 1.0f), fast(n), tanh_form(n), dfast(n);
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_FAST, x.data(), fast.data(), n), GELU_OK);
  ASSERT_EQ(gelu_forward_f32(x.data(), tanh_form.data(), n, GELU_APPROXIMATE_TANH), GELU_OK);
  ASSERT_EQ(gelu_variant_backward_f32(GELU_VARIANT_GELU_FAST, ones.data(), x.data(), dfast.data(), n), GELU_OK);
  gelu::reference::MaxError worst, worst_d;
  size_t differ = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = FastRef(x[i], false), rd = FastRef(x[i], true);
    if (std::isinf(r)) {
      EXPECT_EQ(fast[i], r);
      continue;
    }
    worst.Add(fast[i], r, std::fabs(fast[i] - r) / UlpF32(r));
    const double abs_err = std::fabs(dfast[i] - rd);
    // The absolute bound only in the near-root window (functions.h), as everywhere else; the far negative tail,
    // where |f'| is small too, keeps the relative one.
    worst_d.Add(dfast[i], rd, gelu::common::InNearRootWindow(x[i], rd) ? abs_err / 0x1p-24 : abs_err / UlpF32(rd) / 2.0);
    if (std::bit_cast<uint32_t>(fast[i]) != std::bit_cast<uint32_t>(tanh_form[i])) {
      ++differ;
      EXPECT_LE(std::fabs(fast[i] - r), std::fabs(tanh_form[i] - r)) << std::hexfloat << "x=" << x[i];
    }
  }
  EXPECT_LE(worst.value, 2.0);
  EXPECT_LE(worst_d.value, 1.0);  // 2 ULP, or 2^-24 absolute near the root
  // The constants differ by 3.6e-12 relatively, which in the far tail moves about one float result in 100.
  EXPECT_GT(differ, 0u) << "gelu_fast gave gelu_new's bits everywhere: is its own constant used?";
  std::printf("gelu_fast: max %.3f ULP (f), %.3f of the bound (f'); %zu of %zu float32 results differ from gelu_new\n",
              worst.value, worst_d.value, differ, n);
}

// gelu_10: exact GELU for x <= 10, 10 above; gradient f'(x) for x <= 10, 0 above. Like the fused operations it
// evaluates in double and rounds once (src/common/gelu_scalar.h), where gelu_forward_f32 runs the float core.
TEST(VariantsTest, Gelu10ClipsAtTen) {
  const auto x = Inputs();
  const size_t n = x.size();
  std::vector<float> ones(n, 1.0f), y(n), d(n);
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, x.data(), y.data(), n), GELU_OK);
  ASSERT_EQ(gelu_variant_backward_f32(GELU_VARIANT_GELU_10, ones.data(), x.data(), d.data(), n), GELU_OK);
  for (size_t i = 0; i < n; ++i) {
    if (x[i] > 10.0f) {
      EXPECT_EQ(y[i], 10.0f) << x[i];
      EXPECT_EQ(std::bit_cast<uint32_t>(d[i]), 0u) << x[i];
    } else {
      const float f = static_cast<float>(gelu::common::DoublePathScalar(x[i], gelu::common::kNone, false));
      const float df = static_cast<float>(gelu::common::DoublePathScalar(x[i], gelu::common::kNone, true));
      EXPECT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(f)) << x[i];
      EXPECT_EQ(std::bit_cast<uint32_t>(d[i]), std::bit_cast<uint32_t>(df)) << x[i];
    }
  }
  // Against the reference (the documented bound: one rounding of a double evaluation, 0.5 + 2^-6 ULP; the
  // derivative's near-root window, where relative error is meaningless, held to the float32 absolute 2^-24).
  gelu::reference::MaxError worst, worst_d;
  for (size_t i = 0; i < n; ++i) {
    if (!(x[i] <= 10.0f)) continue;
    const double r = gelu::reference::Forward(x[i], gelu::common::kNone);
    const double rd = gelu::reference::Derivative(x[i], gelu::common::kNone);
    worst.Add(y[i], r, gelu::reference::UlpErrorF32(y[i], r));
    if (gelu::common::InNearRootWindow(x[i], rd)) {
      EXPECT_LE(std::fabs(d[i] - rd), 0x1p-24) << x[i];
    } else {
      worst_d.Add(d[i], rd, gelu::reference::UlpErrorF32(d[i], rd));
    }
  }
  EXPECT_LE(worst.value, 0.5 + 0x1p-6);
  EXPECT_LE(worst_d.value, 0.5 + 0x1p-6);
  EXPECT_GT(worst.value, 0.49);  // the sample reaches near-halfway cases: the check is not vacuous
  // At the bound itself: GELU(10) = 10 - 7.6e-23 rounds to 10 and is not clipped, so the gradient passes.
  const float ten = 10.0f, one = 1.0f;
  float v, g;
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, &ten, &v, 1), GELU_OK);
  ASSERT_EQ(gelu_variant_backward_f32(GELU_VARIANT_GELU_10, &one, &ten, &g, 1), GELU_OK);
  EXPECT_EQ(v, 10.0f);
  EXPECT_EQ(g, 1.0f);
  const float nan = std::nanf(""), inf = HUGE_VALF;
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, &nan, &v, 1), GELU_OK);
  EXPECT_TRUE(std::isnan(v));
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, &inf, &v, 1), GELU_OK);
  EXPECT_EQ(v, 10.0f);
}

// The maximum differences from exact GELU stated in docs/VARIANTS.md (double evaluation on a 1e-5 grid over
// [-20, 20]; the maxima are smooth, so the grid finds them to 4 digits).
TEST(VariantsTest, DocumentedDifferencesFromExactGelu) {
  gelu::reference::MaxError tanh_f, tanh_d, quick_f, quick_d, fast_tanh;
  const auto add = [](gelu::reference::MaxError& m, double v, double exact) { m.Add(v, exact, std::fabs(v - exact)); };
  for (int i = -2000000; i <= 2000000; ++i) {
    const double x = i * 1e-5;
    const double f = gelu::reference::Forward(x, gelu::common::kNone), d = gelu::reference::Derivative(x, gelu::common::kNone);
    add(tanh_f, gelu::reference::Forward(x, gelu::common::kTanh), f);
    add(tanh_d, gelu::reference::Derivative(x, gelu::common::kTanh), d);
    add(quick_f, gelu::reference::Forward(x, gelu::common::kSigmoid), f);
    add(quick_d, gelu::reference::Derivative(x, gelu::common::kSigmoid), d);
    add(fast_tanh, FastRef(x, false), gelu::reference::Forward(x, gelu::common::kTanh));
  }
  EXPECT_NEAR(tanh_f.value, 4.732e-4, 0.001e-4);
  EXPECT_NEAR(tanh_d.value, 8.685e-4, 0.001e-4);
  EXPECT_NEAR(quick_f.value, 2.033e-2, 0.001e-2);
  EXPECT_NEAR(quick_d.value, 2.907e-2, 0.001e-2);
  EXPECT_NEAR(fast_tanh.value, 9.1e-13, 0.2e-13);
}

TEST(VariantsCppTest, SpansAndTypes) {
  std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.5f, 11.0f}, y(5), want(5);
  gelu::forward(gelu::Variant::gelu_10, x, y);
  ASSERT_EQ(gelu_variant_forward_f32(GELU_VARIANT_GELU_10, x.data(), want.data(), 5), GELU_OK);
  EXPECT_EQ(y, want);
  EXPECT_EQ(y[4], 10.0f);
  std::vector<gelu::f16> hx = {gelu::f16::from_float(-1.0f), gelu::f16::from_float(2.0f)}, hy(2);
  gelu::forward(gelu::Variant::quick_gelu, std::span<const gelu::f16>(hx), std::span<gelu::f16>(hy));
  uint16_t c[2];
  ASSERT_EQ(gelu_forward_f16(reinterpret_cast<const uint16_t*>(hx.data()), c, 2, GELU_APPROXIMATE_SIGMOID), GELU_OK);
  EXPECT_EQ(hy[0].bits, c[0]);
  EXPECT_EQ(hy[1].bits, c[1]);
  const std::vector<float> y_before = y;
  EXPECT_THROW(gelu::forward(gelu::Variant::gelu, x, std::span<float>(y.data(), 3)), gelu::Error);
  EXPECT_EQ(y, y_before);  // refused before anything is written
}

}  // namespace
