// SPDX-License-Identifier: Apache-2.0
// The 16-bit conversions and table indexing of the CUDA kernels (src/cuda/half_convert.h, table_range.h), on
// the host (no GPU needed). Conversions: exact
// widening, and rounding from double once, to nearest even, checked against GCC's _Float16 conversion (binary16)
// and against a nearest-neighbour search in long double (bfloat16), at every midpoint of adjacent values, one
// double ulp either side, and on random doubles across the whole exponent range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>

#include "src/cuda/half_convert.h"
#include "src/cuda/table_range.h"

namespace gelu::cuda {
namespace {

// Nearest bfloat16 to v (ties to even) by comparing exact distances to the neighbours of float(v)'s truncation.
uint16_t NearestBf16(double v) {
  if (std::isnan(v)) return 0x7FC0;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const long double a = std::fabs(static_cast<long double>(v));
  // Largest finite bf16 0x7F7F = (2 - 2^-7) 2^127; from (2 - 2^-8) 2^127 up, rounding gives infinity.
  if (a >= std::ldexp(2.0L - std::ldexp(1.0L, -8), 127)) return sign | 0x7F80;
  const float f = static_cast<float>(a);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const int base = static_cast<int>(bits >> 16);
  int best = 0;
  long double best_distance = INFINITY;
  for (int c = std::max(0, base - 2); c <= std::min(0x7F7F, base + 2); ++c) {
    const long double d = std::fabs(static_cast<long double>(Bf16::ToFloat(static_cast<uint16_t>(c))) - a);
    if (d < best_distance || (d == best_distance && (c & 1) == 0)) best = c, best_distance = d;
  }
  return sign | static_cast<uint16_t>(best);
}

uint16_t F16Bits(_Float16 h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

void ExpectRounding(double v, int* failures) {
  const uint16_t want_h = std::isnan(v) ? 0x7E00 : F16Bits(static_cast<_Float16>(v));
  const uint16_t got_h = F16::FromDouble(v), got_b = Bf16::FromDouble(v), want_b = NearestBf16(v);
  if (got_h != want_h && ++*failures < 10) ADD_FAILURE() << std::hexfloat << v << " f16 " << got_h << " want " << want_h;
  if (got_b != want_b && ++*failures < 10) ADD_FAILURE() << std::hexfloat << v << " bf16 " << got_b << " want " << want_b;
}

TEST(HalfConvert, F16WideningIsExact) {
  for (uint32_t u = 0; u < 65536; ++u) {
    _Float16 h;
    const uint16_t b = static_cast<uint16_t>(u);
    std::memcpy(&h, &b, 2);
    const float want = static_cast<float>(h), got = F16::ToFloat(b);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << u;
    } else {
      EXPECT_EQ(std::memcmp(&want, &got, 4), 0) << std::hex << u;
    }
  }
}

TEST(HalfConvert, Bf16WideningIsTheHighHalf) {
  EXPECT_EQ(Bf16::ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(Bf16::ToFloat(0xBE22), -0.158203125f);
  EXPECT_EQ(Bf16::ToFloat(0x0001), 0x1p-133f);
  EXPECT_TRUE(std::isinf(Bf16::ToFloat(0xFF80)));
}

TEST(HalfConvert, RoundsOnceToNearestEvenAtEveryMidpoint) {
  int failures = 0;
  for (uint32_t u = 0; u < 0xFFFF; ++u) {
    for (int bf = 0; bf < 2; ++bf) {
      const uint16_t h = static_cast<uint16_t>(u);
      const double a = bf ? Bf16::ToFloat(h) : F16::ToFloat(h);
      const double b = bf ? Bf16::ToFloat(h + 1) : F16::ToFloat(h + 1);
      if (!std::isfinite(a) || !std::isfinite(b) || std::signbit(a) != std::signbit(b)) continue;
      const double mid = (a + b) / 2;  // exact in double
      for (double v : {a, b, mid, std::nextafter(mid, INFINITY), std::nextafter(mid, -INFINITY),
                       std::nextafter(a, 0.0), std::nextafter(a, INFINITY)}) {
        ExpectRounding(v, &failures);
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(HalfConvert, RoundsRandomDoublesAndSpecials) {
  int failures = 0;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const uint64_t r = rng();
    double v;
    std::memcpy(&v, &r, 8);
    ExpectRounding(v, &failures);
    const double w = std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53, static_cast<int>(rng() % 300) - 150);
    ExpectRounding((rng() & 1) ? w : -w, &failures);
  }
  for (double v : std::initializer_list<double>{0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 65504.0, 65519.99,
                                                65520.0, 0x1p-25, 0x1.0000001p-25, 0x1p-24, 0x1p-134,
                                                0x1.0001p-134, 0x1p-133, 0x1.fep127, 0x1.ffp127, 0x1.feffffffp127,
                                                1e-300, 5e-324, 1e300}) {
    ExpectRounding(v, &failures);
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(Bf16::FromDouble(-NAN), 0x7FC0);
  EXPECT_EQ(F16::FromDouble(-0.0), 0x8000);
}

// Index and Value are inverse over the table, and Index is -1 exactly outside the covered binades.
template <class Range, class Format>
void CheckTableRange(double lo, double hi) {
  for (int i = 0; i < Range::kEntries; ++i) ASSERT_EQ(Range::Index(Range::Value(i)), i) << i;
  int covered = 0;
  for (uint32_t u = 0; u < 65536; ++u) {
    const uint16_t h = static_cast<uint16_t>(u);
    const double a = std::fabs(static_cast<double>(Format::ToFloat(h)));
    const bool inside = a >= lo && a < hi;  // NaN: false
    const int index = Range::Index(h);
    ASSERT_EQ(index >= 0, inside) << std::hex << u;
    if (inside) {
      ++covered;
      ASSERT_EQ(Range::Value(index), h) << std::hex << u;
    }
  }
  EXPECT_EQ(covered, Range::kEntries);
}

TEST(TableRange, Bf16CoversTwoToMinus16UpTo16) { CheckTableRange<Bf16Range, Bf16>(0x1p-16, 16.0); }
TEST(TableRange, F16CoversTwoToMinus8UpTo16) { CheckTableRange<F16Range, F16>(0x1p-8, 16.0); }

}  // namespace
}  // namespace gelu::cuda
