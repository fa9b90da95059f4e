// SPDX-License-Identifier: Apache-2.0
// The bf16/fp16 entry points as an API: argument errors (nothing written), every length around the vector size
// and every misalignment giving the same bits as one-element calls, in place, thread-count independence, and the
// C++ wrappers (gelu::bf16 / gelu::f16 conversions against src/common/half.h).
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu.hpp"
#include "gtest/gtest.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/common/half.h"

namespace {

struct Api {
  const char* name;
  gelu_status (*forward)(const uint16_t*, uint16_t*, size_t, gelu_approximate);
  gelu_status (*backward)(const uint16_t*, const uint16_t*, uint16_t*, size_t, gelu_approximate);
};
const Api kApis[] = {{"bf16", gelu_forward_bf16, gelu_backward_bf16}, {"f16", gelu_forward_f16, gelu_backward_f16}};
using gelu::common::kForms;  // src/common/functions.h

std::vector<uint16_t> RandomBits(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(n);
  for (auto& e : v) e = static_cast<uint16_t>(rng());
  return v;
}

TEST(HalfApiTest, InvalidArgumentsWriteNothing) {
  for (const Api& api : kApis) {
    std::vector<uint16_t> buf(16, 0x3c00), out(16, 0x1234);
    const auto untouched = out;
    EXPECT_EQ(api.forward(buf.data(), out.data(), 16, static_cast<gelu_approximate>(gelu::common::kNumForms)),
              GELU_INVALID_ARGUMENT);  // the first value past the forms
    EXPECT_EQ(api.forward(buf.data(), out.data(), 0, static_cast<gelu_approximate>(-1)), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.forward(nullptr, out.data(), 16, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.forward(buf.data(), nullptr, 16, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.backward(nullptr, buf.data(), out.data(), 16, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.forward(out.data(), out.data() + 1, 8, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.backward(out.data() + 3, buf.data(), out.data(), 8, GELU_APPROXIMATE_TANH), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.backward(buf.data(), out.data() + 7, out.data(), 8, GELU_APPROXIMATE_TANH), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(api.forward(buf.data(), out.data(), SIZE_MAX, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
    EXPECT_EQ(out, untouched) << api.name;
    EXPECT_EQ(api.forward(nullptr, nullptr, 0, GELU_APPROXIMATE_NONE), GELU_OK);
    EXPECT_EQ(api.backward(nullptr, nullptr, nullptr, 0, GELU_APPROXIMATE_SIGMOID), GELU_OK);
  }
}

// On every SIMD target compiled in and supported here: every length 0..74 at every offset 0..7 gives the bits of
// single-element calls (so tails, which go through a stack buffer or another path, give what full vectors give,
// NaN payloads included: the random inputs hold pairs where grad_out and x are both NaN).
class HalfApiTargetTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(HalfApiTargetTest);

TEST_P(HalfApiTargetTest, LengthsAndAlignments) {
  const auto x = RandomBits(80, 1), g = RandomBits(80, 2);
  for (const Api& api : kApis) {
    for (gelu_approximate a : kForms) {
      std::vector<uint16_t> single(80), dsingle(80);
      for (size_t i = 0; i < 80; ++i) {
        ASSERT_EQ(api.forward(&x[i], &single[i], 1, a), GELU_OK);
        ASSERT_EQ(api.backward(&g[i], &x[i], &dsingle[i], 1, a), GELU_OK);
      }
      for (size_t off = 0; off < 8; ++off) {
        for (size_t n = 0; off + n <= 75; ++n) {
          std::vector<uint16_t> y(80, 0xdead), dy(80, 0xdead);
          ASSERT_EQ(api.forward(x.data() + off, y.data() + off, n, a), GELU_OK);
          ASSERT_EQ(api.backward(g.data() + off, x.data() + off, dy.data() + off, n, a), GELU_OK);
          for (size_t i = 0; i < 80; ++i) {
            const bool inside = i >= off && i < off + n;
            ASSERT_EQ(y[i], inside ? single[i] : 0xdead) << api.name << " n=" << n << " off=" << off << " i=" << i;
            ASSERT_EQ(dy[i], inside ? dsingle[i] : 0xdead) << api.name << " n=" << n << " off=" << off;
          }
        }
      }
    }
  }
}

TEST(HalfApiTest, InPlace) {
  const auto x = RandomBits(1000, 3), g = RandomBits(1000, 4);
  for (const Api& api : kApis) {
    for (gelu_approximate a : kForms) {
      std::vector<uint16_t> y(1000), dy(1000);
      ASSERT_EQ(api.forward(x.data(), y.data(), 1000, a), GELU_OK);
      ASSERT_EQ(api.backward(g.data(), x.data(), dy.data(), 1000, a), GELU_OK);
      auto io = x;
      ASSERT_EQ(api.forward(io.data(), io.data(), 1000, a), GELU_OK);
      EXPECT_EQ(io, y) << api.name;
      io = g;
      ASSERT_EQ(api.backward(io.data(), x.data(), io.data(), 1000, a), GELU_OK);
      EXPECT_EQ(io, dy) << api.name;
      io = x;
      ASSERT_EQ(api.backward(g.data(), io.data(), io.data(), 1000, a), GELU_OK);
      EXPECT_EQ(io, dy) << api.name;
    }
  }
}

TEST(HalfApiTest, SameBitsForAnyThreadCount) {
  const size_t n = (size_t{1} << 20) + 37;
  const auto x = RandomBits(n, 5), g = RandomBits(n, 6);
  const int saved = gelu_get_num_threads();
  for (const Api& api : kApis) {
    gelu_set_num_threads(1);
    std::vector<uint16_t> y1(n), d1(n);
    ASSERT_EQ(api.forward(x.data(), y1.data(), n, GELU_APPROXIMATE_NONE), GELU_OK);
    ASSERT_EQ(api.backward(g.data(), x.data(), d1.data(), n, GELU_APPROXIMATE_TANH), GELU_OK);
    for (int threads : {2, 5}) {
      gelu_set_num_threads(threads);
      std::vector<uint16_t> y(n), d(n);
      ASSERT_EQ(api.forward(x.data(), y.data(), n, GELU_APPROXIMATE_NONE), GELU_OK);
      ASSERT_EQ(api.backward(g.data(), x.data(), d.data(), n, GELU_APPROXIMATE_TANH), GELU_OK);
      EXPECT_EQ(y, y1) << api.name << " threads " << threads;
      EXPECT_EQ(d, d1) << api.name << " threads " << threads;
    }
  }
  gelu_set_num_threads(saved);
}

// gelu::bf16 / gelu::f16: to_float is exact (every encoding), from_float rounds to nearest even like the library's
// own conversion from double (a float is exact in double), on random floats and every encoding's neighbourhood.
TEST(HalfCppTest, ConversionsMatchTheLibrary) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    ASSERT_EQ(std::bit_cast<uint32_t>(gelu::bf16::from_bits(h).to_float()),
              std::bit_cast<uint32_t>(gelu::common::Bf16ToFloat(h)));
    ASSERT_EQ(std::bit_cast<uint32_t>(gelu::f16::from_bits(h).to_float()),
              std::bit_cast<uint32_t>(gelu::common::F16ToFloat(h)));
    for (float f : {gelu::common::Bf16ToFloat(h), gelu::common::F16ToFloat(h)}) {
      if (std::isnan(f)) continue;
      for (float v : {f, std::nextafter(f, HUGE_VALF), std::nextafter(f, -HUGE_VALF),
                      f * 1.00390625f /* mid-ish bf16 */, f * 1.00048828125f /* fp16 midpoint of 1 */}) {
        ASSERT_EQ(gelu::bf16::from_float(v).bits, gelu::common::DoubleToBf16(v)) << std::hexfloat << v;
        ASSERT_EQ(gelu::f16::from_float(v).bits, gelu::common::DoubleToF16(v)) << std::hexfloat << v;
      }
    }
  }
  std::mt19937 rng(9);
  for (int i = 0; i < 1000000; ++i) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(v)) continue;
    ASSERT_EQ(gelu::bf16::from_float(v).bits, gelu::common::DoubleToBf16(v)) << std::hexfloat << v;
    ASSERT_EQ(gelu::f16::from_float(v).bits, gelu::common::DoubleToF16(v)) << std::hexfloat << v;
  }
  EXPECT_TRUE(std::isnan(gelu::bf16::from_float(std::nanf("")).to_float()));
  EXPECT_TRUE(std::isnan(gelu::f16::from_float(std::nanf("")).to_float()));
}

TEST(HalfCppTest, WrappersMatchCApi) {
  std::vector<gelu::bf16> x(9), y(9), g(9, gelu::bf16::from_float(1.0f)), d(9);
  for (size_t i = 0; i < x.size(); ++i) x[i] = gelu::bf16::from_float(0.75f * static_cast<float>(i) - 3.0f);
  gelu::forward(std::span<const gelu::bf16>(x), std::span<gelu::bf16>(y), gelu::Approximation::tanh);
  gelu::backward(std::span<const gelu::bf16>(g), std::span<const gelu::bf16>(x), std::span<gelu::bf16>(d));
  std::vector<uint16_t> cy(9), cd(9), cg(9, 0x3f80);
  ASSERT_EQ(gelu_forward_bf16(reinterpret_cast<const uint16_t*>(x.data()), cy.data(), 9, GELU_APPROXIMATE_TANH),
            GELU_OK);
  ASSERT_EQ(gelu_backward_bf16(cg.data(), reinterpret_cast<const uint16_t*>(x.data()), cd.data(), 9,
                               GELU_APPROXIMATE_NONE),
            GELU_OK);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(y[i].bits, cy[i]);
    EXPECT_EQ(d[i].bits, cd[i]);
  }
  std::vector<gelu::f16> short_out(3, gelu::f16::from_float(42.0f));
  EXPECT_THROW(gelu::forward(std::span<const gelu::f16>(reinterpret_cast<const gelu::f16*>(cy.data()), 9),
                             std::span<gelu::f16>(short_out)),
               gelu::Error);
  for (const gelu::f16& v : short_out) EXPECT_EQ(v.bits, gelu::f16::from_float(42.0f).bits);  // nothing written
}

}  // namespace
