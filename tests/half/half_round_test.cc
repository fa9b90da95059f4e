// SPDX-License-Identifier: Apache-2.0
// bf16/fp16 conversions: the scalar ones of src/common/half.h (shared with CUDA) against independent formulas on
// all 65,536 encodings and on every rounding boundary, and the vector ones of src/cpu/storage_types-inl.h (every
// Highway target) against the scalar ones on the same values; and on the float-core targets, the float path of the
// storage loops (float lanes, the double path near a midpoint) against the double path on every input.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/half/half_round_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/half.h"
#include "src/cpu/storage_elementwise-inl.h"

#ifndef GELU_TESTS_HALF_ROUND_TEST_SHARED_
#define GELU_TESTS_HALF_ROUND_TEST_SHARED_
namespace gelu::test {

// Finite, non-negative values of a format in increasing order (bits 0 .. max finite), as doubles.
struct Format {
  const char* name;
  int precision;  // p
  int emin;
  uint16_t max_finite;  // bits of the largest finite value
  uint16_t inf;
  double (*to_double)(uint16_t);
  uint16_t (*from_double)(double);
};

// Independent widening formulas: sign * (implicit bit + fraction) * 2^(exponent - bias - fraction bits).
inline double Bf16Value(uint16_t h) {
  const int e = (h >> 7) & 0xff, m = h & 0x7f;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0xff) return m ? std::numeric_limits<double>::quiet_NaN() : s * HUGE_VAL;
  return e == 0 ? s * std::ldexp(m, -133) : s * std::ldexp(128 + m, e - 134);
}
inline double F16Value(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : s * HUGE_VAL;
  return e == 0 ? s * std::ldexp(m, -24) : s * std::ldexp(1024 + m, e - 25);
}

inline const Format kBf16{"bf16", 8, -126, 0x7f7f, 0x7f80, Bf16Value, common::DoubleToBf16};
inline const Format kF16{"f16", 11, -14, 0x7bff, 0x7c00, F16Value, common::DoubleToF16};

// Doubles on and around every rounding boundary of the format (both signs): each value, each midpoint between
// neighbours and one double ulp either side of it, the overflow threshold, and half the smallest subnormal.
// With the expected result of each (computed from the definition of round-to-nearest-even on the ordered list).
struct Case {
  double v;
  uint16_t want;
};
inline std::vector<Case> BoundaryCases(const Format& f) {
  std::vector<Case> cases;
  auto add = [&](double v, uint16_t magnitude_bits) {
    cases.push_back({v, magnitude_bits});
    cases.push_back({-v, static_cast<uint16_t>(magnitude_bits | 0x8000)});
  };
  for (uint32_t b = 0; b <= f.max_finite; ++b) {
    const double lo = f.to_double(static_cast<uint16_t>(b));
    // Upper neighbour: the next encoding, or the overflow threshold max + ulp/2 for the largest finite value.
    const double hi = b < f.max_finite ? f.to_double(static_cast<uint16_t>(b + 1))
                                       : lo + (lo - f.to_double(static_cast<uint16_t>(b - 1)));
    const uint16_t up = static_cast<uint16_t>(b < f.max_finite ? b + 1 : f.inf);
    const double mid = 0.5 * (lo + hi);  // exact: at most p + 1 significant bits
    add(lo, static_cast<uint16_t>(b));
    add(std::nextafter(mid, 0.0), static_cast<uint16_t>(b));
    add(mid, (b & 1) ? up : static_cast<uint16_t>(b));  // tie: to the even encoding (inf counts as even)
    add(std::nextafter(mid, HUGE_VAL), up);
  }
  add(HUGE_VAL, f.inf);
  add(1e300, f.inf);
  add(std::ldexp(1.0, -1074), 0);  // double subnormal
  return cases;
}

}  // namespace gelu::test
#endif  // GELU_TESTS_HALF_ROUND_TEST_SHARED_

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Runs Io::Store on the doubles v (in vectors, the tail padded) and returns the stored bits.
template <class Io>
std::vector<uint16_t> VectorStore(const std::vector<double>& v) {
  const hn::ScalableTag<double> dd;
  const size_t N = hn::Lanes(dd);
  std::vector<double> in(v);
  in.resize((v.size() + N - 1) / N * N, 0.0);
  std::vector<uint16_t> out(in.size());
  for (size_t i = 0; i < in.size(); i += N) Io::Store(dd, hn::LoadU(dd, in.data() + i), out.data() + i);
  out.resize(v.size());
  return out;
}
// Runs Io::LoadF on every encoding and returns the floats.
template <class Io>
std::vector<float> VectorLoadAll() {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t N = hn::Lanes(dd);
  std::vector<uint16_t> in(65536);
  for (uint32_t i = 0; i < 65536; ++i) in[i] = static_cast<uint16_t>(i);
  std::vector<float> out(65536);
  for (size_t i = 0; i < in.size(); i += N) hn::StoreU(Io::LoadF(df, in.data() + i), df, out.data() + i);
  return out;
}

template <class Io>
void CheckStore(const test::Format& f) {
  const auto cases = test::BoundaryCases(f);
  std::vector<double> v;
  for (const auto& c : cases) v.push_back(c.v);
  const auto got = VectorStore<Io>(v);
  size_t bad = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (got[i] != cases[i].want && ++bad <= 5) {
      ADD_FAILURE() << f.name << std::hexfloat << " v=" << cases[i].v << std::hex << " got 0x" << got[i] << " want 0x"
                    << cases[i].want;
    }
  }
  EXPECT_EQ(bad, 0u) << f.name << " of " << cases.size() << " boundary cases";
  // NaN: quiet NaN of the same sign, the top payload bits kept (as the scalar conversion).
  const double nans[] = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                         std::bit_cast<double>(uint64_t{0x7ff8123456789abc}),
                         std::bit_cast<double>(uint64_t{0xfffc000000000001})};
  const auto got_nan = VectorStore<Io>(std::vector<double>(std::begin(nans), std::end(nans)));
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(got_nan[i], f.from_double(nans[i])) << f.name << " NaN " << i;
}

void TestVectorStoreBoundaries() {
  CheckStore<IoBf16>(test::kBf16);
  CheckStore<IoF16>(test::kF16);
}

void TestVectorLoadAll() {
  const auto bf = VectorLoadAll<IoBf16>();
  const auto hf = VectorLoadAll<IoF16>();
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    // Bitwise, NaN payloads included -- except that F16C (AVX2, AVX-512) sets the quiet bit of a signalling fp16
    // NaN on conversion (vcvtph2ps); the result of any function of it is a quiet NaN anyway.
    ASSERT_EQ(std::bit_cast<uint32_t>(bf[i]), std::bit_cast<uint32_t>(common::Bf16ToFloat(h))) << std::hex << i;
    const uint32_t quiet = std::isnan(hf[i]) ? 0x00400000u : 0u;
    ASSERT_EQ(std::bit_cast<uint32_t>(hf[i]) | quiet, std::bit_cast<uint32_t>(common::F16ToFloat(h)) | quiet)
        << std::hex << i;
  }
}

// The float-lane conversions of the float-core path: StoreF on every float boundary case (each value and
// midpoint, exact in float) equals the scalar rounding, NearMidpoint marks every midpoint and spares every value, and
// their scalar twins (Format::NearMidpoint, Format::FromFloat) agree with them on every case.
template <class Io>
void CheckFloatStore(const test::Format& f) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  std::vector<float> v;
  for (const auto& c : test::BoundaryCases(f)) {
    const auto x = static_cast<float>(c.v);
    if (static_cast<double>(x) == c.v && std::isfinite(x)) {
      v.push_back(x);
      // And the floats around it, across the margin's edges (kMidpointMargin ULPs).
      for (int k = 1; k <= static_cast<int>(common::kMidpointMargin) + 2; k += 3) {
        float up = x, down = x;
        for (int j = 0; j < k; ++j) up = std::nextafter(up, HUGE_VALF), down = std::nextafter(down, -HUGE_VALF);
        if (std::isfinite(up)) v.push_back(up);
        if (std::isfinite(down)) v.push_back(down);
      }
    }
  }
  v.resize((v.size() + N - 1) / N * N, 0.0f);
  size_t bad = 0, midpoints = 0;
  for (size_t i = 0; i < v.size(); i += N) {
    HWY_ALIGN uint16_t out[hn::MaxLanes(df)];
    HWY_ALIGN float near[hn::MaxLanes(df)];
    const auto x = hn::LoadU(df, v.data() + i);
    Io::StoreF(df, x, out);
    hn::Store(hn::IfThenElseZero(Io::NearMidpoint(df, x), hn::Set(df, 1.0f)), df, near);
    for (size_t k = 0; k < N; ++k) {
      const uint16_t want = f.from_double(v[i + k]);
      // A midpoint: exactly between the two neighbours of the rounded value.
      const double rounded = f.to_double(want), up = f.to_double(static_cast<uint16_t>(want + 1));
      const double down = f.to_double(static_cast<uint16_t>(want - 1));
      const bool midpoint = (want & 0x7fff) != 0 && (std::fabs(v[i + k] - (rounded + up) / 2) == 0 ||
                                                     std::fabs(v[i + k] - (rounded + down) / 2) == 0);
      midpoints += midpoint;
      const bool exact = static_cast<double>(v[i + k]) == rounded;
      // The scalar twins (src/common/half.h, which the CUDA element functions run) mark and round the same.
      using Format = std::conditional_t<std::is_same_v<Io, IoBf16>, common::Bf16, common::F16>;
      const bool scalar_agrees =
          Format::NearMidpoint(v[i + k]) == (near[k] != 0) && Format::FromFloat(v[i + k]) == out[k];
      if ((out[k] != want || (midpoint && near[k] == 0) || (exact && near[k] != 0) || !scalar_agrees) &&
          ++bad <= 5) {
        ADD_FAILURE() << f.name << std::hexfloat << " v=" << v[i + k] << std::hex << " got 0x" << out[k] << " want 0x"
                      << want << " near " << near[k] << " midpoint " << midpoint;
      }
    }
  }
  EXPECT_EQ(bad, 0u) << f.name;
  EXPECT_GT(midpoints, 1000u) << f.name << ": the cases include midpoints";
}

void TestFloatStoreBoundaries() {
  if constexpr (!cpu::RunsFloatCore(HWY_TARGET)) {
    GTEST_SKIP() << "no float path on " << hwy::TargetName(HWY_TARGET);
  } else {
    CheckFloatStore<IoBf16>(test::kBf16);
    CheckFloatStore<IoF16>(test::kF16);
  }
}

// ElementwiseLoop (the float path here) against ElementwiseDoublePath (the double path, correctly rounded with
// grad_out = 1: tests/half/half_exhaustive_test.cc) on all 65,536 inputs, forward and backward with grad_out = 1,
// and backward with 2^16 N(0, 1) grad_out: the same bits (the float path redoes every lane where they could differ).
template <class Io, common::Formula kFormula>
void CheckFloatPathEqualsDoublePath(const test::Format& f) {
  const char* name = f.name;
  std::vector<uint16_t> x(65536), one(65536, f.from_double(1.0)), g(65536), a(65536), b(65536);
  for (uint32_t i = 0; i < 65536; ++i) x[i] = static_cast<uint16_t>(i);
  std::mt19937 rng(7);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (auto& v : g) v = f.from_double(nd(rng));
  for (int pass = 0; pass < 3; ++pass) {
    const bool backward = pass > 0;
    const uint16_t* gp = pass == 1 ? one.data() : g.data();
    if (backward) {
      ElementwiseLoop<Io, kFormula, true>(gp, x.data(), a.data(), x.size());
      ElementwiseDoublePath<Io, kFormula, true>(gp, x.data(), b.data(), x.size());
    } else {
      ElementwiseLoop<Io, kFormula, false>(nullptr, x.data(), a.data(), x.size());
      ElementwiseDoublePath<Io, kFormula, false>(nullptr, x.data(), b.data(), x.size());
    }
    size_t bad = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
      if (a[i] != b[i] && ++bad <= 5) {
        ADD_FAILURE() << name << " formula " << static_cast<int>(kFormula) << " pass " << pass << std::hex << " x=0x"
                      << i << " g=0x" << gp[i] << " float path 0x" << a[i] << " double path 0x" << b[i];
      }
    }
    EXPECT_EQ(bad, 0u) << name << " formula " << static_cast<int>(kFormula) << " pass " << pass;
  }
}

void TestFloatPathAllInputs() {
  if constexpr (!cpu::RunsFloatCore(HWY_TARGET)) {
    GTEST_SKIP() << "no float path on " << hwy::TargetName(HWY_TARGET);
  } else {
    CheckFloatPathEqualsDoublePath<IoBf16, common::Formula::kNone>(test::kBf16);
    CheckFloatPathEqualsDoublePath<IoBf16, common::Formula::kTanh>(test::kBf16);
    CheckFloatPathEqualsDoublePath<IoBf16, common::Formula::kSigmoid>(test::kBf16);
    CheckFloatPathEqualsDoublePath<IoF16, common::Formula::kNone>(test::kF16);
    CheckFloatPathEqualsDoublePath<IoF16, common::Formula::kTanh>(test::kF16);
    CheckFloatPathEqualsDoublePath<IoF16, common::Formula::kSigmoid>(test::kF16);
  }
}

// The 16-bit forward's lookup (LookupForwardLoop) both ways, the four scalar lookups and, where the target has it,
// AVX-512's gather: y[i] = table[x[i]] for every encoding (in a shuffled order, so that neighbours differ), the
// table's last entry included, at every length up to 40 and every start offset up to 7 (the gather's vectors and
// the scalar tails).
void TestForwardLookupBothWays() {
  std::mt19937 rng(9);
  std::vector<uint16_t> table(cpu::kRoundedTableEntries);
  for (auto& t : table) t = static_cast<uint16_t>(rng());
  std::vector<uint16_t> x(65536 + 8), y(x.size());
  for (uint32_t i = 0; i < 65536; ++i) x[i] = static_cast<uint16_t>(i);
  std::shuffle(x.begin(), x.begin() + 65536, rng);
  for (const bool gather : {false, true}) {
    std::fill(y.begin(), y.end(), uint16_t{0});
    LookupForwardLoop(table.data(), x.data(), y.data(), 65536, gather);
    size_t bad = 0;
    for (size_t i = 0; i < 65536; ++i) {
      if (y[i] != table[x[i]] && ++bad <= 5) {
        ADD_FAILURE() << (gather ? "gather" : "scalar") << " x=0x" << std::hex << x[i] << " got 0x" << y[i]
                      << " table 0x" << table[x[i]];
      }
    }
    EXPECT_EQ(bad, 0u) << (gather ? "gather" : "scalar") << " on " << hwy::TargetName(HWY_TARGET);
    for (size_t offset = 0; offset < 8; ++offset) {
      for (size_t n = 0; n <= 40; ++n) {
        std::fill(y.begin(), y.end(), uint16_t{0xdead});
        LookupForwardLoop(table.data(), x.data() + offset, y.data() + offset, n, gather);
        for (size_t i = 0; i < y.size(); ++i) {
          const bool inside = i >= offset && i < offset + n;
          ASSERT_EQ(y[i], inside ? table[x[i]] : uint16_t{0xdead})
              << (gather ? "gather" : "scalar") << " offset " << offset << " n " << n << " at " << i;
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gelu {
HWY_BEFORE_TEST(HalfVectorConvertTest);
HWY_EXPORT_AND_TEST_P(HalfVectorConvertTest, TestVectorStoreBoundaries);
HWY_EXPORT_AND_TEST_P(HalfVectorConvertTest, TestVectorLoadAll);
HWY_EXPORT_AND_TEST_P(HalfVectorConvertTest, TestFloatStoreBoundaries);
HWY_EXPORT_AND_TEST_P(HalfVectorConvertTest, TestFloatPathAllInputs);
HWY_EXPORT_AND_TEST_P(HalfVectorConvertTest, TestForwardLookupBothWays);

namespace test {
namespace {

bool IsNan(double v) { return v != v; }

// Widening, every encoding: the formula's value, NaN kept as NaN with its payload, -0 kept.
TEST(HalfScalarConvertTest, WidenAllEncodings) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<uint16_t>(i);
    const float b = common::Bf16ToFloat(h), f = common::F16ToFloat(h);
    const double bv = Bf16Value(h), fv = F16Value(h);
    if (IsNan(bv)) {
      EXPECT_TRUE(IsNan(b));
      EXPECT_EQ(std::bit_cast<uint32_t>(b) >> 16, i);  // payload and sign kept
    } else {
      EXPECT_EQ(static_cast<double>(b), bv) << std::hex << i;
      EXPECT_EQ(std::signbit(b), (i & 0x8000) != 0) << std::hex << i;
    }
    if (IsNan(fv)) {
      EXPECT_TRUE(IsNan(f));
      EXPECT_EQ((std::bit_cast<uint32_t>(f) >> 13) & 0x3ff, i & 0x3ff);  // payload kept
    } else {
      EXPECT_EQ(static_cast<double>(f), fv) << std::hex << i;
      EXPECT_EQ(std::signbit(f), (i & 0x8000) != 0) << std::hex << i;
    }
  }
}

// Narrowing every encoding's own value gives it back (round trip), both signs.
TEST(HalfScalarConvertTest, RoundTripAllFinite) {
  for (const Format* f : {&kBf16, &kF16}) {
    for (uint32_t i = 0; i < 65536; ++i) {
      const auto h = static_cast<uint16_t>(i);
      const double v = f->to_double(h);
      if (IsNan(v)) continue;
      EXPECT_EQ(f->from_double(v), h) << f->name << std::hex << " 0x" << i;
    }
  }
}

// Every midpoint (ties to even), one double ulp either side, the overflow threshold, the underflow to zero.
TEST(HalfScalarConvertTest, AllRoundingBoundaries) {
  for (const Format* f : {&kBf16, &kF16}) {
    size_t bad = 0;
    const auto cases = BoundaryCases(*f);
    for (const auto& c : cases) {
      const uint16_t got = f->from_double(c.v);
      if (got != c.want && ++bad <= 5) {
        ADD_FAILURE() << f->name << std::hexfloat << " v=" << c.v << std::hex << " got 0x" << got << " want 0x"
                      << c.want;
      }
    }
    EXPECT_EQ(bad, 0u) << f->name;
  }
}

// Random doubles against the nearest value found by search over the ordered list (ties: even encoding).
TEST(HalfScalarConvertTest, RandomDoublesAgainstSearch) {
  std::mt19937_64 rng(20261129);
  for (const Format* f : {&kBf16, &kF16}) {
    std::vector<double> values;
    for (uint32_t b = 0; b <= f->max_finite; ++b) values.push_back(f->to_double(static_cast<uint16_t>(b)));
    const double top = values.back() + 0.5 * (values.back() - values[values.size() - 2]);  // overflow threshold
    std::uniform_real_distribution<double> log2mag(f->emin - f->precision - 3.0, std::log2(values.back()) + 1.0);
    for (int i = 0; i < 200000; ++i) {
      const double v = std::exp2(log2mag(rng));
      uint16_t want;
      if (v > top || (v == top && (f->max_finite & 1))) {
        want = f->inf;
      } else {
        const auto it = std::lower_bound(values.begin(), values.end(), v);  // first >= v
        const size_t hi = static_cast<size_t>(it - values.begin());
        if (hi == values.size()) {
          want = f->max_finite;
        } else if (values[hi] == v || hi == 0) {
          want = static_cast<uint16_t>(hi);
        } else {
          const double dlo = v - values[hi - 1], dhi = values[hi] - v;
          want = static_cast<uint16_t>(dlo < dhi ? hi - 1 : dhi < dlo ? hi : ((hi - 1) % 2 == 0 ? hi - 1 : hi));
        }
      }
      ASSERT_EQ(f->from_double(v), want) << f->name << std::hexfloat << " v=" << v;
      ASSERT_EQ(f->from_double(-v), want | 0x8000) << f->name << std::hexfloat << " v=" << -v;
    }
  }
}

// The reason for rounding straight from double: through float, 1 + 2^-8 + 2^-40 first becomes 1 + 2^-8, a bf16
// tie, which then goes to even (1); the correct bf16 result is 1 + 2^-7.
TEST(HalfScalarConvertTest, NoDoubleRounding) {
  const double v = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(common::DoubleToBf16(v), 0x3f81);
  EXPECT_EQ(common::DoubleToBf16(static_cast<float>(v)), 0x3f80);  // what rounding via float would give
  const double w = 1.0 + 0x1p-11 + 0x1p-40;                        // the same for fp16
  EXPECT_EQ(common::DoubleToF16(w), 0x3c01);
  EXPECT_EQ(common::DoubleToF16(1.0 + 0x1p-11), 0x3c00);      // true ties go to even
  EXPECT_EQ(common::DoubleToF16(1.0 + 3 * 0x1p-11), 0x3c02);
}

TEST(HalfScalarConvertTest, SpecialValues) {
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(common::DoubleToBf16(qnan), 0x7fc0);
  EXPECT_EQ(common::DoubleToBf16(-qnan), 0xffc0);
  EXPECT_EQ(common::DoubleToF16(qnan), 0x7e00);
  EXPECT_EQ(common::DoubleToF16(-0.0), 0x8000);
  EXPECT_EQ(common::DoubleToBf16(-0.0), 0x8000);
  EXPECT_EQ(common::DoubleToF16(65519.99), 0x7bff);  // below max + ulp/2 = 65520
  EXPECT_EQ(common::DoubleToF16(65520.0), 0x7c00);   // tie between 65504 (odd) and 2^16: inf
  EXPECT_EQ(common::DoubleToF16(0x1p-25), 0x0000);   // tie between 0 and 2^-24: 0
  EXPECT_EQ(common::DoubleToF16(0x1.8p-24), 0x0002); // tie between 2^-24 and 2^-23: even
  EXPECT_EQ(common::DoubleToBf16(0x1p-134), 0x0000);
  EXPECT_EQ(common::DoubleToBf16(0x1.000001p-134), 0x0001);
  // A signalling NaN payload comes out quiet.
  EXPECT_EQ(common::DoubleToF16(std::bit_cast<double>(uint64_t{0x7ff0000000000001} | (uint64_t{1} << 45))) & 0x7e00,
            0x7e00);
}

}  // namespace
}  // namespace test
}  // namespace gelu
#endif  // HWY_ONCE
