// SPDX-License-Identifier: Apache-2.0
// The C and C++ APIs: argument validation (and that nothing is written on error), aliasing, threads,
// bit-identical results whatever the thread count, the C++ wrapper's exceptions.
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu.hpp"
#include "gtest/gtest.h"

extern "C" int gelu_c_api_smoke(void);

namespace {

TEST(CApi, CallableFromC) { EXPECT_EQ(gelu_c_api_smoke(), 0); }

TEST(CApi, InvalidArgumentsWriteNothing) {
  std::vector<float> x(64, 1.0f), y(64, 42.0f);
  const auto untouched = [&] {
    for (float v : y) if (v != 42.0f) return false;
    return true;
  };
  EXPECT_EQ(gelu_forward_f32(nullptr, y.data(), 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f32(x.data(), nullptr, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f32(x.data(), y.data(), 4, static_cast<gelu_approximate>(3)), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f32(x.data(), y.data(), 4, static_cast<gelu_approximate>(-1)), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f32(nullptr, x.data(), y.data(), 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f32(x.data(), nullptr, y.data(), 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f32(x.data(), x.data(), nullptr, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched());
  // Partial overlap (output shifted by one element against an input) is refused; exact aliasing is allowed.
  EXPECT_EQ(gelu_forward_f32(y.data(), y.data() + 1, 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f32(y.data() + 1, y.data(), 32, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f32(x.data(), y.data() + 3, y.data(), 32, GELU_APPROXIMATE_TANH), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f32(y.data() + 3, x.data(), y.data(), 32, GELU_APPROXIMATE_TANH), GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched());
  std::vector<double> xd(8, 1.0), yd(8, 42.0);
  EXPECT_EQ(gelu_forward_f64(nullptr, yd.data(), 8, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_forward_f64(yd.data(), yd.data() + 1, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_backward_f64(xd.data(), xd.data(), yd.data(), 8, static_cast<gelu_approximate>(9)),
            GELU_INVALID_ARGUMENT);
  for (double v : yd) EXPECT_EQ(v, 42.0);
  // n = 0 is a valid empty call, even with null pointers.
  EXPECT_EQ(gelu_forward_f32(nullptr, nullptr, 0, GELU_APPROXIMATE_NONE), GELU_OK);
  EXPECT_EQ(gelu_backward_f64(nullptr, nullptr, nullptr, 0, GELU_APPROXIMATE_SIGMOID), GELU_OK);
  EXPECT_STRNE(gelu_status_string(GELU_INVALID_ARGUMENT), "");
  EXPECT_STREQ(gelu_status_string(GELU_OK), "ok");
  for (gelu_status code : {GELU_INVALID_ARGUMENT, GELU_UNKNOWN_VARIANT, GELU_CUDA_ERROR}) {
    EXPECT_STRNE(gelu_status_string(code), "unknown status") << code;
  }
  EXPECT_STREQ(gelu_status_string(static_cast<gelu_status>(99)), "unknown status");
}

TEST(CApi, ExactAliasingComputesInPlace) {
  std::vector<float> x = {-3.0f, -1.0f, 0.5f, 2.0f}, y(4);
  ASSERT_EQ(gelu_forward_f32(x.data(), y.data(), 4, GELU_APPROXIMATE_NONE), GELU_OK);
  ASSERT_EQ(gelu_forward_f32(x.data(), x.data(), 4, GELU_APPROXIMATE_NONE), GELU_OK);
  EXPECT_EQ(x, y);
}

// The forms' names, both ways, as bindings use them (the torch operators parse `approximate` with them).
TEST(CApi, FormNames) {
  const std::pair<const char*, gelu_approximate> kNames[] = {
      {"none", GELU_APPROXIMATE_NONE}, {"tanh", GELU_APPROXIMATE_TANH}, {"sigmoid", GELU_APPROXIMATE_SIGMOID}};
  for (const auto& [name, form] : kNames) {
    EXPECT_STREQ(gelu_approximate_name(form), name);
    gelu_approximate parsed = static_cast<gelu_approximate>(-1);
    ASSERT_EQ(gelu_approximate_from_name(name, &parsed), GELU_OK) << name;
    EXPECT_EQ(parsed, form);
  }
  EXPECT_EQ(gelu_approximate_name(static_cast<gelu_approximate>(3)), nullptr);
  EXPECT_EQ(gelu_approximate_name(static_cast<gelu_approximate>(-1)), nullptr);
  for (const char* bad : {"", "None", "exact", "tanh ", "erf"}) {
    gelu_approximate untouched = GELU_APPROXIMATE_TANH;
    EXPECT_EQ(gelu_approximate_from_name(bad, &untouched), GELU_INVALID_ARGUMENT) << '"' << bad << '"';
    EXPECT_EQ(untouched, GELU_APPROXIMATE_TANH);
  }
  gelu_approximate a;
  EXPECT_EQ(gelu_approximate_from_name(nullptr, &a), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_approximate_from_name("none", nullptr), GELU_INVALID_ARGUMENT);
}

// The storage types' names and sizes, both ways, as bindings map their dtypes.
TEST(CApi, DtypeNamesAndSizes) {
  const struct {
    const char* name;
    gelu_dtype dtype;
    size_t size;
  } kTypes[] = {{"float32", GELU_DTYPE_FLOAT32, 4},
                {"float64", GELU_DTYPE_FLOAT64, 8},
                {"bfloat16", GELU_DTYPE_BFLOAT16, 2},
                {"float16", GELU_DTYPE_FLOAT16, 2}};
  for (const auto& t : kTypes) {
    EXPECT_STREQ(gelu_dtype_name(t.dtype), t.name);
    EXPECT_EQ(gelu_dtype_size(t.dtype), t.size) << t.name;
    gelu_dtype parsed = static_cast<gelu_dtype>(-1);
    ASSERT_EQ(gelu_dtype_from_name(t.name, &parsed), GELU_OK) << t.name;
    EXPECT_EQ(parsed, t.dtype);
  }
  for (const int bad : {-1, 4}) {
    EXPECT_EQ(gelu_dtype_name(static_cast<gelu_dtype>(bad)), nullptr);
    EXPECT_EQ(gelu_dtype_size(static_cast<gelu_dtype>(bad)), 0u);
  }
  for (const char* bad : {"", "f32", "Float32", "half", "bf16", "float8"}) {
    gelu_dtype untouched = GELU_DTYPE_FLOAT16;
    EXPECT_EQ(gelu_dtype_from_name(bad, &untouched), GELU_INVALID_ARGUMENT) << '"' << bad << '"';
    EXPECT_EQ(untouched, GELU_DTYPE_FLOAT16);
  }
  gelu_dtype t;
  EXPECT_EQ(gelu_dtype_from_name(nullptr, &t), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(gelu_dtype_from_name("float32", nullptr), GELU_INVALID_ARGUMENT);
}

// gelu_forward / gelu_backward by dtype give the typed functions' bytes, and their refusals; a dtype outside the
// enum is refused with the output untouched.
TEST(CApi, DtypeEntryPointsAreTheTypedFunctions) {
  constexpr size_t n = 257;
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 3.0);
  std::vector<double> values(n);
  for (double& v : values) v = normal(rng);
  for (const gelu_dtype dtype : {GELU_DTYPE_FLOAT32, GELU_DTYPE_FLOAT64, GELU_DTYPE_BFLOAT16, GELU_DTYPE_FLOAT16}) {
    const size_t size = gelu_dtype_size(dtype);
    std::vector<unsigned char> x(n * size), g(n * size), typed(n * size), generic(n * size);
    for (size_t i = 0; i < n; ++i) {
      const float f = static_cast<float>(values[i]), h = static_cast<float>(values[(i * 7) % n]);
      if (dtype == GELU_DTYPE_FLOAT64) {
        std::memcpy(&x[i * 8], &values[i], 8);
        std::memcpy(&g[i * 8], &values[(i * 7) % n], 8);
      } else if (dtype == GELU_DTYPE_FLOAT32) {
        std::memcpy(&x[i * 4], &f, 4);
        std::memcpy(&g[i * 4], &h, 4);
      } else {  // 16-bit: any bit patterns (NaN and inf included: the same function, the same bytes)
        const auto xh = static_cast<uint16_t>(rng()), gh = static_cast<uint16_t>(rng());
        std::memcpy(&x[i * 2], &xh, 2);
        std::memcpy(&g[i * 2], &gh, 2);
      }
    }
    // Every form the C API names (its values run from 0 up to the first without a name).
    for (int form = 0; gelu_approximate_name(static_cast<gelu_approximate>(form)) != nullptr; ++form) {
      const auto a = static_cast<gelu_approximate>(form);
      for (const bool backward : {false, true}) {
        gelu_status typed_status = GELU_OK;
        const auto* xp = x.data();
        const auto* gp = g.data();
        auto* yp = typed.data();
        switch (dtype) {
          case GELU_DTYPE_FLOAT32: {
            const auto* xf = reinterpret_cast<const float*>(xp);
            const auto* gf = reinterpret_cast<const float*>(gp);
            auto* yf = reinterpret_cast<float*>(yp);
            typed_status = backward ? gelu_backward_f32(gf, xf, yf, n, a) : gelu_forward_f32(xf, yf, n, a);
            break;
          }
          case GELU_DTYPE_FLOAT64: {
            const auto* xd = reinterpret_cast<const double*>(xp);
            const auto* gd = reinterpret_cast<const double*>(gp);
            auto* yd = reinterpret_cast<double*>(yp);
            typed_status = backward ? gelu_backward_f64(gd, xd, yd, n, a) : gelu_forward_f64(xd, yd, n, a);
            break;
          }
          case GELU_DTYPE_BFLOAT16:
          case GELU_DTYPE_FLOAT16: {
            const auto* xh = reinterpret_cast<const uint16_t*>(xp);
            const auto* gh = reinterpret_cast<const uint16_t*>(gp);
            auto* yh = reinterpret_cast<uint16_t*>(yp);
            const bool bf16 = dtype == GELU_DTYPE_BFLOAT16;
            typed_status = backward ? (bf16 ? gelu_backward_bf16(gh, xh, yh, n, a) : gelu_backward_f16(gh, xh, yh, n, a))
                                    : (bf16 ? gelu_forward_bf16(xh, yh, n, a) : gelu_forward_f16(xh, yh, n, a));
            break;
          }
        }
        ASSERT_EQ(typed_status, GELU_OK);
        const gelu_status generic_status = backward ? gelu_backward(dtype, gp, xp, generic.data(), n, a)
                                                    : gelu_forward(dtype, xp, generic.data(), n, a);
        ASSERT_EQ(generic_status, GELU_OK);
        EXPECT_EQ(typed, generic) << gelu_dtype_name(dtype) << ' ' << gelu_approximate_name(a)
                                  << (backward ? " backward" : " forward");
      }
    }
    // The typed function's refusals: null with n > 0, an unknown form, a partial overlap.
    EXPECT_EQ(gelu_forward(dtype, nullptr, generic.data(), n, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(gelu_forward(dtype, x.data(), generic.data(), n, static_cast<gelu_approximate>(3)),
              GELU_INVALID_ARGUMENT);
    EXPECT_EQ(gelu_backward(dtype, g.data(), x.data(), x.data() + size, n - 1, GELU_APPROXIMATE_NONE),
              GELU_INVALID_ARGUMENT);
  }
  std::vector<float> x(8, 1.0f), y(8, 7.0f);
  for (const int bad : {-1, 4}) {
    EXPECT_EQ(gelu_forward(static_cast<gelu_dtype>(bad), x.data(), y.data(), 8, GELU_APPROXIMATE_NONE),
              GELU_INVALID_ARGUMENT);
    EXPECT_EQ(gelu_backward(static_cast<gelu_dtype>(bad), x.data(), x.data(), y.data(), 8, GELU_APPROXIMATE_NONE),
              GELU_INVALID_ARGUMENT);
  }
  EXPECT_EQ(y, std::vector<float>(8, 7.0f));
}

TEST(CApi, ThreadsSettingAndTarget) {
  gelu_set_num_threads(3);
  EXPECT_EQ(gelu_get_num_threads(), 3);
  gelu_set_num_threads(-5);  // treated as 0: all hardware threads
  EXPECT_GE(gelu_get_num_threads(), 1);
  gelu_set_num_threads(0);
  EXPECT_GE(gelu_get_num_threads(), 1);
  EXPECT_GT(std::strlen(gelu_simd_target()), 0u);
}

// Thread-count independence of every entry point: tests/entry_points_test.cc.

TEST(CppApi, SpansAndScalars) {
  std::vector<float> x = {-1.0f, 0.0f, 1.0f}, y(3);
  gelu::forward(x, y, gelu::Approximation::tanh);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], gelu::forward(x[i], gelu::Approximation::tanh));
  std::vector<double> xd = {-1.0, 0.0, 1.0}, yd(3);
  gelu::forward(xd, yd);
  EXPECT_NEAR(yd[0], -0.15865525393145707, 1e-16);
  EXPECT_EQ(gelu::derivative(0.0f), 0.5f);
  EXPECT_EQ(gelu::derivative(0.0), 0.5);
  EXPECT_STREQ(gelu::to_string(gelu::Approximation::sigmoid), "sigmoid");
}

// Every refusal throws before anything is written: the outputs keep their contents.
TEST(CppApi, SizeMismatchAndOverlapThrowWithClearMessagesAndWriteNothing) {
  std::vector<float> x(4, 1.0f), y(3, 42.0f);
  try {
    gelu::forward(x, y);
    FAIL() << "no exception";
  } catch (const gelu::Error& e) {
    EXPECT_EQ(e.status(), GELU_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("x has 4 elements but y has 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(y, std::vector<float>(3, 42.0f));
  std::vector<float> buf = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> buf0 = buf;
  EXPECT_THROW(gelu::forward(std::span<const float>(buf.data(), 4), std::span<float>(buf.data() + 2, 4)),
               gelu::Error);
  EXPECT_EQ(buf, buf0);
  std::vector<float> g(4, 2.0f), gi(5, 42.0f);
  EXPECT_THROW(gelu::backward(g, x, gi), std::invalid_argument);
  EXPECT_EQ(gi, std::vector<float>(5, 42.0f));
  std::vector<double> xd(4, 1.0), yd(4, 42.0);
  EXPECT_THROW(gelu::forward(std::span<const double>(xd), std::span<double>(yd), static_cast<gelu::Approximation>(7)),
               gelu::Error);
  EXPECT_EQ(yd, std::vector<double>(4, 42.0));
  EXPECT_THROW(gelu::backward(std::span<const double>(xd.data(), 3), std::span<const double>(xd), std::span<double>(yd)),
               std::invalid_argument);
  EXPECT_EQ(yd, std::vector<double>(4, 42.0));
}

}  // namespace
