// SPDX-License-Identifier: Apache-2.0
// float64 GELU through the public C API (gelu_forward_f64 / gelu_backward_f64), on every Highway target:
// special values (bitwise), sizes 0..3*Lanes+1, unaligned and in-place calls, and the accuracy claim against
// MPFR (120 bits) on a sample of 3 x 3.4 million inputs (every binade of both signs, dense over the ranges where
// the forms are neither 0 nor x, both sides of every threshold and root), forward, backward with grad_out = 1 and
// backward with a random grad_out per input (against grad_out times the exact f'), the bounds of
// src/common/functions.h:
//   <= 2 ULP, ulp(r) = 2^(max(e,-1021)-53) for r = m 2^e, m in [0.5, 1), 2^-1074 at r = 0 (SLEEF's countULPdp);
//   derivatives in the near-root window (-2 < x < 0, |f'(x)| < 2^-8): absolute error <= |grad_out| 2^-53.
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/reference/ulp.h"
#include "src/reference/mpfr_oracle.h"

namespace {

using gelu::common::kForms;  // src/common/functions.h
using gelu::common::kNumForms;
using gelu::common::kFormNames;  // the function table's names of the forms
constexpr double kInf = std::numeric_limits<double>::infinity();

double Fwd(double x, gelu_approximate a) {
  double y = 12345.0;
  EXPECT_EQ(GELU_OK, gelu_forward_f64(&x, &y, 1, a));
  return y;
}
double Bwd(double x, gelu_approximate a, double g = 1.0) {
  double r = 12345.0;
  EXPECT_EQ(GELU_OK, gelu_backward_f64(&g, &x, &r, 1, a));
  return r;
}
uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

// ------------------------------------------------------------------------------------------------------
// MPFR reference (120 bits; the worst conditioning in the sample, exp(-z) at |z| ~ 800, costs < 12 bits).

struct Ref {
  double hi;     // RN(r)
  double delta;  // (r - hi) / ulp(r), |delta| <= 1/2 (or NaN when r is NaN)
  double ulp;    // ulp(r) as defined above
};

// f and f' of a form at x (finite) against the shared oracle (src/reference/mpfr_oracle.h), at 120 bits (the worst
// conditioning in the sample, exp(-z) at |z| ~ 800, costs < 12 bits), as Refs.
class Mpfr {
 public:
  // And, with gbwd, the reference of g f'(x), formed at 120 bits from MPFR's f' (whose exponent range reaches far
  // below a double's: f'(-50) ~ 2^-1800, which a Ref cannot hold).
  void Eval(double xd, int form, Ref& fwd, Ref& bwd, double g = 0.0, Ref* gbwd = nullptr) {
    oracle_.Eval(xd, static_cast<gelu::common::Form>(form), f_.get(), d_.get());
    Store(f_.get(), fwd);
    Store(d_.get(), bwd);
    if (gbwd != nullptr) {
      mpfr_mul_d(d_.get(), d_.get(), g, MPFR_RNDN);
      Store(d_.get(), *gbwd);
    }
  }
  Ref DerivativeTimes(double x, int form, double g) {
    Ref fwd, bwd, out;
    Eval(x, form, fwd, bwd, g, &out);
    return out;
  }

 private:
  void Store(mpfr_srcptr r, Ref& out) {
    if (mpfr_nan_p(r)) {
      out = {std::nan(""), std::nan(""), 1.0};
      return;
    }
    out.hi = mpfr_get_d(r, MPFR_RNDN);
    if (mpfr_zero_p(r)) {
      out.delta = 0.0;
      out.ulp = 0x1p-1074;
      return;
    }
    const long e = std::max<long>(mpfr_get_exp(r), -1021);
    out.ulp = std::ldexp(1.0, static_cast<int>(e - 53));
    mpfr_sub_d(a_.get(), r, out.hi, MPFR_RNDN);
    mpfr_div_2si(a_.get(), a_.get(), e - 53, MPFR_RNDN);
    out.delta = mpfr_get_d(a_.get(), MPFR_RNDN);
  }

  gelu::test::MpfrGelu oracle_{120};
  gelu::test::MpfrValue f_{120}, d_{120}, a_{120};
};

// |y - r| / ulp(r); NaN results must match NaN references (then 0), anything else NaN is +inf. Zeros are signed,
// as in float32's UlpErrorF32 (src/reference/ulp.h): a zero y whose sign differs from r's (r.hi = RN(r) keeps the
// sign of a tiny r) is +inf. (The near-root window, where the claim is absolute, is BackwardErr's.)
double UlpError(double y, const Ref& r) {
  if (std::isnan(r.hi)) return std::isnan(y) ? 0.0 : kInf;
  if (std::isnan(y)) return kInf;
  if (std::isinf(r.hi) || std::isinf(y)) return y == r.hi ? 0.0 : kInf;
  if (y == 0 && std::signbit(y) != std::signbit(r.hi)) return kInf;
  return std::fabs((y - r.hi) / r.ulp - r.delta);
}

// Per form: the dense sample's range [lo, hi] (where the form is neither 0 nor x), and DeepTailLargeGradOut's
// [deep_lo, deep_hi] (past DeepTailTimes' clamp, -54.5, -30, -900, to where every g f' rounds to zero). One case per
// form, no default: -Werror=switch refuses a form without its ranges (a loop over the forms must not skip one).
struct FormRanges {
  double lo, hi, deep_lo, deep_hi;
};
FormRanges RangesOf(gelu::common::Form form) {
  switch (form) {
    case gelu::common::kNone: return {-39.0, 9.0, -56.0, -38.0};
    case gelu::common::kTanh: return {-23.0, 6.0, -31.0, -20.0};
    case gelu::common::kSigmoid: return {-450.0, 25.0, -1000.0, -440.0};
  }
  std::abort();  // a value outside the enum
}

// The sample of one form: every binade of both signs (random mantissas), plus dense uniform coverage of
// [lo, hi] (where the form is neither 0 nor x), plus each threshold and the root region at a finer step.
std::vector<double> Sample(int form, size_t dense) {
  std::mt19937_64 rng(0x6e1u + static_cast<unsigned>(form));
  std::vector<double> xs;
  // Binades: biased exponent 0 (subnormals) .. 2046, 150 random mantissas each, both signs (~614k).
  for (uint64_t ex = 0; ex <= 2046; ++ex) {
    for (int j = 0; j < 150; ++j) {
      const uint64_t bits = (ex << 52) | (rng() >> 12);
      xs.push_back(std::bit_cast<double>(bits));
      xs.push_back(-std::bit_cast<double>(bits));
    }
  }
  std::uniform_real_distribution<double> uni(RangesOf(kForms[form]).lo, RangesOf(kForms[form]).hi);
  for (size_t i = 0; i < dense; ++i) xs.push_back(uni(rng));
  // Near the tails' ends, the kernels' internal thresholds and the derivative roots: 2^16 each, +-1/64
  // around the point, plus the exact neighbours (+-8 ulp).
  std::vector<double> points = {-38.5, -37.5, -0.75, -0.5, 0.5, -1.25, 1.25, 40.0, -40.0, -22.0, -21.8,
                                 -440.0, -416.0, -1.0, 0.0, 5.0, 8.3, -0.7518, -0.7512, 1e-8, -1e-8};
  for (double p : points) {
    std::uniform_real_distribution<double> near(p - 1.0 / 64, p + 1.0 / 64);
    for (int j = 0; j < 1 << 16; ++j) xs.push_back(near(rng));
    double a = p, b = p;
    for (int j = 0; j < 8; ++j) {
      a = std::nextafter(a, kInf);
      b = std::nextafter(b, -kInf);
      xs.push_back(a);
      xs.push_back(b);
    }
  }
  return xs;
}

// Random grad_out: both signs, random mantissas, a third each in the binades 2^-30 .. 2^30, 2^-1074 .. 2^-31
// (subnormals included; products in the subnormal range) and 2^31 .. 2^1019 (f' <= 1.13, so products stay finite;
// with the far tail's tiny f' they can be any double). The wide binades are what reach the far tail's rare-lane
// path, which the first range alone never exercises (DeepTailLargeGradOut checks it directly).
double RandomGrad(std::mt19937_64& rng) {
  const double m = 1.0 + static_cast<double>(rng() >> 11) * 0x1p-53;
  const uint64_t range = rng() % 3;
  const int e = range == 0   ? static_cast<int>(rng() % 61) - 30
                : range == 1 ? -1074 + static_cast<int>(rng() % 1044)
                             : 31 + static_cast<int>(rng() % 989);
  return (rng() & 1 ? -1.0 : 1.0) * std::ldexp(m, e);  // rounds to a subnormal below 2^-1022
}

struct FormSample {
  std::vector<double> x, g;       // inputs and a random grad_out per input
  std::vector<Ref> fwd, bwd, gbwd;  // f, f', and g f'
};

// Built once per process (all targets share it), on 2 threads.
const std::vector<FormSample>& Samples() {
  static const std::vector<FormSample> samples = [] {
    std::vector<FormSample> s(kNumForms);
    for (int f = 0; f < kNumForms; ++f) {
      s[f].x = Sample(f, 1400000);
      s[f].fwd.resize(s[f].x.size());
      s[f].bwd.resize(s[f].x.size());
      s[f].gbwd.resize(s[f].x.size());
      std::mt19937_64 rng(0x9a4du + static_cast<unsigned>(f));
      for (size_t i = 0; i < s[f].x.size(); ++i) s[f].g.push_back(RandomGrad(rng));
    }
    constexpr size_t kChunk = 1 << 14;
    std::atomic<size_t> next{0};
    std::vector<size_t> start(kNumForms + 1, 0);  // the forms' samples, one after another: form f's at start[f]
    for (int f = 0; f < kNumForms; ++f) start[f + 1] = start[f] + s[f].x.size();
    const size_t total = start[kNumForms];
    auto work = [&] {
      Mpfr m;
      for (size_t c; (c = next.fetch_add(kChunk)) < total;) {
        for (size_t i = c; i < std::min(total, c + kChunk); ++i) {
          const int f = static_cast<int>(std::upper_bound(start.begin(), start.end(), i) - start.begin()) - 1;
          const size_t j = i - start[f];
          m.Eval(s[f].x[j], f, s[f].fwd[j], s[f].bwd[j], s[f].g[j], &s[f].gbwd[j]);
        }
      }
    };
    {
      std::vector<std::jthread> pool;
      for (int t = 0; t < 2; ++t) pool.emplace_back(work);
    }
    return s;
  }();
  return samples;
}

struct Worst {
  double err = 0.0;   // ULP (or absolute, for the root window)
  double x = 0.0, y = 0.0, r = 0.0;
  // NaN-sticky (src/reference/ulp.h): a NaN error is kept and fails the bound.
  void Add(double e, double xv, double yv, double rv) {
    if (gelu::reference::MaxError::Raise(err, e)) {
      x = xv;
      y = yv;
      r = rv;
    }
  }
};

std::string Describe(const char* what, const Worst& w) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-18s max %.4g at x=%a y=%a ref=%a", what, w.err, w.x, w.y, w.r);
  return buf;
}

// ------------------------------------------------------------------------------------------------------

// The reference's continued fraction agrees with mpfr_erfc (to 2^-100; both are far more accurate than needed).
TEST(GeluF64Reference, CrossCheckContinuedFraction) {
  gelu::test::MpfrGelu m(120);
  constexpr double kMin = gelu::test::MpfrGelu::kContinuedFractionMin;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uni(kMin, 12.0);
  for (int i = 0; i < 60; ++i) {
    const double t = i < 3 ? (i == 0 ? kMin : i == 1 ? 38.0 : 20.0) : uni(rng);
    EXPECT_LT(m.CrossCheckContinuedFraction(t), 0x1p-100) << std::hexfloat << t;
  }
}

class GeluF64Test : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(GeluF64Test);

TEST_P(GeluF64Test, ChosenTarget) {
  EXPECT_EQ(0.0, Fwd(0.0, GELU_APPROXIMATE_NONE));  // dispatches, so the chosen target is initialized
  EXPECT_STREQ(hwy::TargetName(GetParam()), gelu_simd_target());
}

TEST_P(GeluF64Test, SpecialValues) {
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  const double snan = std::numeric_limits<double>::signaling_NaN();
  const double big = std::numeric_limits<double>::max();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double dmin = std::numeric_limits<double>::min();
  for (int f = 0; f < kNumForms; ++f) {
    SCOPED_TRACE(kFormNames[f]);
    const gelu_approximate a = kForms[f];
    EXPECT_TRUE(std::isnan(Fwd(qnan, a)));
    EXPECT_TRUE(std::isnan(Fwd(snan, a)));
    EXPECT_TRUE(std::isnan(Fwd(-qnan, a)));
    EXPECT_TRUE(std::isnan(Bwd(qnan, a)));
    EXPECT_TRUE(std::isnan(Bwd(snan, a)));
    EXPECT_EQ(Bits(kInf), Bits(Fwd(kInf, a)));
    EXPECT_EQ(Bits(-0.0), Bits(Fwd(-kInf, a)));
    EXPECT_EQ(Bits(1.0), Bits(Bwd(kInf, a)));
    EXPECT_EQ(Bits(0.0), Bits(Bwd(-kInf, a)));
    EXPECT_EQ(Bits(0.0), Bits(Fwd(0.0, a)));
    EXPECT_EQ(Bits(-0.0), Bits(Fwd(-0.0, a)));
    EXPECT_EQ(Bits(0.5), Bits(Bwd(0.0, a)));
    EXPECT_EQ(Bits(0.5), Bits(Bwd(-0.0, a)));
    // Saturation without overflow or NaN.
    EXPECT_EQ(Bits(big), Bits(Fwd(big, a)));
    EXPECT_EQ(Bits(-0.0), Bits(Fwd(-big, a)));
    EXPECT_EQ(Bits(1.0), Bits(Bwd(big, a)));
    EXPECT_EQ(0.0, Bwd(-big, a));
    EXPECT_EQ(Bits(1e300), Bits(Fwd(1e300, a)));
    EXPECT_EQ(Bits(-0.0), Bits(Fwd(-1e300, a)));
    EXPECT_EQ(Bits(1.0), Bits(Bwd(1e300, a)));
    // Tiny inputs: f(x) = x/2 rounded (x Phi(x) ~ x/2), f'(x) = 1/2.
    EXPECT_LE(Fwd(tiny, a), tiny);  // tiny (Phi > 1/2) or 0: within 1 ULP of 2^-1075 (1 + eps)
    EXPECT_GE(Fwd(tiny, a), 0.0);
    EXPECT_EQ(Bits(tiny), Bits(Fwd(2 * tiny, a)));
    EXPECT_EQ(Bits(dmin / 2), Bits(Fwd(dmin, a)));
    EXPECT_EQ(Bits(-dmin / 2), Bits(Fwd(-dmin, a)));
    EXPECT_EQ(Bits(0.5), Bits(Bwd(tiny, a)));
    EXPECT_EQ(Bits(0.5), Bits(Bwd(-dmin, a)));
    // grad_out scales; NaN and inf grads propagate.
    EXPECT_EQ(Bits(-1.5), Bits(Bwd(0.0, a, -3.0)));
    EXPECT_TRUE(std::isnan(Bwd(1.0, a, qnan)));
    EXPECT_EQ(Bits(kInf), Bits(Bwd(1.0, a, kInf)));  // the kernels' rare-lane path (non-finite grad_out)
    EXPECT_EQ(Bits(-kInf), Bits(Bwd(0.0, a, -kInf)));
    EXPECT_EQ(Bits(0.0), Bits(Bwd(-kInf, a, 2.0)));
  }
  // Subnormal results are produced, not flushed: the exact form's tail around x = -38 (f ~ 2^-1060) and the
  // sigmoid form's around x = -430.
  const double ys = Fwd(-38.0, GELU_APPROXIMATE_NONE);
  EXPECT_LT(ys, 0.0);
  EXPECT_GT(ys, -dmin);
  const double ys2 = Fwd(-430.0, GELU_APPROXIMATE_SIGMOID);
  EXPECT_LT(ys2, 0.0);
  EXPECT_GT(ys2, -dmin);
  const double ys3 = Fwd(-21.5, GELU_APPROXIMATE_TANH);
  EXPECT_LT(ys3, 0.0);
  EXPECT_GT(ys3, -dmin);
}

// Sizes 0..3N+1 at every offset of a buffer, out of place and in place: each element equals the
// single-element result (no dependence on neighbours, alignment or the tail path), nothing else is written.
TEST_P(GeluF64Test, SizesOffsetsInPlace) {
  const size_t N = 16;  // >= Lanes of every target (AVX-512: 8)
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uni(-10.0, 10.0);
  for (int f = 0; f < kNumForms; ++f) {
    const gelu_approximate a = kForms[f];
    for (size_t n = 0; n <= 3 * N + 1; ++n) {
      for (size_t off = 0; off < 3; ++off) {
        std::vector<double> x(n + 8), g(n + 8), y(n + 8, 777.0), gi(n + 8, 777.0);
        for (auto& v : x) v = uni(rng);
        for (auto& v : g) v = uni(rng);
        ASSERT_EQ(GELU_OK, gelu_forward_f64(x.data() + off, y.data() + off, n, a));
        ASSERT_EQ(GELU_OK, gelu_backward_f64(g.data() + off, x.data() + off, gi.data() + off, n, a));
        for (size_t i = 0; i < n + 8; ++i) {
          if (i < off || i >= off + n) {
            ASSERT_EQ(777.0, y[i]);
            ASSERT_EQ(777.0, gi[i]);
            continue;
          }
          ASSERT_EQ(Bits(Fwd(x[i], a)), Bits(y[i])) << kFormNames[f] << " n=" << n << " i=" << i;
          ASSERT_EQ(Bits(Bwd(x[i], a, g[i])), Bits(gi[i])) << kFormNames[f] << " n=" << n << " i=" << i;
        }
        // In place: y aliases x; grad_in aliases grad_out, then x.
        std::vector<double> xi = x, gg = g, gx = x;
        ASSERT_EQ(GELU_OK, gelu_forward_f64(xi.data() + off, xi.data() + off, n, a));
        ASSERT_EQ(GELU_OK, gelu_backward_f64(gg.data() + off, x.data() + off, gg.data() + off, n, a));
        ASSERT_EQ(GELU_OK, gelu_backward_f64(g.data() + off, gx.data() + off, gx.data() + off, n, a));
        for (size_t i = off; i < off + n; ++i) {
          ASSERT_EQ(Bits(y[i]), Bits(xi[i]));
          ASSERT_EQ(Bits(gi[i]), Bits(gg[i]));
          ASSERT_EQ(Bits(gi[i]), Bits(gx[i]));
        }
      }
    }
  }
}

// The error of a backward result d against the reference r of g f': ULP, or (in the near-root window of f' at x)
// the absolute error less one subnormal ULP (2^-1074: the claim's |g| 2^-53 + 2^-1074, for a g so small that the
// product is subnormal) in units of |g| times the table's absolute bound. fprime is f'(x) (rounded).
struct BackwardError {
  bool window;
  double err;
};
BackwardError BackwardErr(double x, double fprime, double g, double d, const Ref& r, const gelu::common::Function& fn) {
  if (gelu::common::InNearRootWindow(x, fprime)) {
    // excess / |g| first: |g| 2^-53 underflows to 0 for a subnormal g.
    const double excess = std::max(0.0, std::fabs((d - r.hi) - r.delta * r.ulp) - 0x1p-1074);
    return {true, gelu::reference::PairError(d, r.hi, excess / std::fabs(g) / fn.f64_abs)};
  }
  return {false, UlpError(d, r)};
}

// The float64 functions of the table, with their bounds.
const gelu::common::Function& F64Function(int form, bool backward) {
  const gelu::common::Function* fn = gelu::common::FindFunction(static_cast<gelu::common::Formula>(form),
                                                                backward ? gelu::common::kBackward : gelu::common::kForward);
  EXPECT_TRUE(fn != nullptr && fn->Has(gelu::common::kF64));
  return *fn;
}

// A small MPFR spot check on every target (the full sample is GeluF64Sample below): 3000 inputs per form, forward,
// and backward with random grad_out against grad_out times the exact f', and with grad_out = +-0 against the zero of
// the sign IEEE gives grad_out times the exact f' (bit for bit).
TEST_P(GeluF64Test, MpfrSpotCheck) {
  Mpfr m;
  std::mt19937_64 rng(7);
  for (int f = 0; f < kNumForms; ++f) {
    const gelu::common::Function& fwd = F64Function(f, false);
    const gelu::common::Function& bwd = F64Function(f, true);
    std::uniform_real_distribution<double> uni(RangesOf(kForms[f]).lo, RangesOf(kForms[f]).hi);
    std::vector<double> x(3000), y(x.size()), d(x.size()), g(x.size());
    for (auto& v : x) v = uni(rng);
    for (auto& v : g) v = RandomGrad(rng);
    ASSERT_EQ(GELU_OK, gelu_forward_f64(x.data(), y.data(), x.size(), kForms[f]));
    ASSERT_EQ(GELU_OK, gelu_backward_f64(g.data(), x.data(), d.data(), x.size(), kForms[f]));
    const std::vector<double> plus_zero(x.size(), 0.0), minus_zero(x.size(), -0.0);
    std::vector<double> d_plus(x.size()), d_minus(x.size());
    ASSERT_EQ(GELU_OK, gelu_backward_f64(plus_zero.data(), x.data(), d_plus.data(), x.size(), kForms[f]));
    ASSERT_EQ(GELU_OK, gelu_backward_f64(minus_zero.data(), x.data(), d_minus.data(), x.size(), kForms[f]));
    for (size_t i = 0; i < x.size(); ++i) {
      Ref rf, rb, rg;
      m.Eval(x[i], f, rf, rb, g[i], &rg);
      ASSERT_EQ(Bits(d_plus[i]), Bits(0.0 * rb.hi)) << kFormNames[f] << std::hexfloat << " x=" << x[i] << " g=+0";
      ASSERT_EQ(Bits(d_minus[i]), Bits(-0.0 * rb.hi)) << kFormNames[f] << std::hexfloat << " x=" << x[i] << " g=-0";
      ASSERT_LE(UlpError(y[i], rf), fwd.f64_ulp) << kFormNames[f] << std::hexfloat << " x=" << x[i];
      const BackwardError e = BackwardErr(x[i], rb.hi, g[i], d[i], rg, bwd);
      ASSERT_LE(e.err, e.window ? 1.0 : bwd.f64_ulp)
          << kFormNames[f] << std::hexfloat << " x=" << x[i] << " g=" << g[i] << " got " << d[i];
    }
  }
}

// The far negative tail with a large grad_out (DeepTailTimes in src/cpu/gelu_f64-inl.h): f'(x) below 2^-1140,
// beyond the exponent argument the common paths clamp (a = t^2/2 or |z| > 800), times |g| in 2^30 .. 2^1023, where
// g f' is a double (normal or subnormal) for much of the range: 4000 draws per form over x from before that clamp
// to past the point where every g f' rounds to zero, against MPFR's g f' at the claim's bound. A kernel whose f'
// stops decreasing at the clamp fails here (e.g. x = -50, g = 2^1000: -2.9e-241 is the right product).
TEST_P(GeluF64Test, DeepTailLargeGradOut) {
  Mpfr m;
  std::mt19937_64 rng(11);
  // Each range runs past DeepTailTimes' clamp (x >= -54.5, -30, -900), where every product rounds to zero.
  for (int f = 0; f < kNumForms; ++f) {
    const gelu::common::Function& bwd = F64Function(f, true);
    std::uniform_real_distribution<double> uni(RangesOf(kForms[f]).deep_lo, RangesOf(kForms[f]).deep_hi);
    std::vector<double> x(4000), g(x.size()), d(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = uni(rng);
      const double mantissa = 1.0 + static_cast<double>(rng() >> 11) * 0x1p-53;
      g[i] = (rng() & 1 ? -1.0 : 1.0) * std::ldexp(mantissa, 30 + static_cast<int>(rng() % 994));
    }
    x[0] = -50.0, g[0] = 0x1p1000;  // the example above (exact form)
    ASSERT_EQ(GELU_OK, gelu_backward_f64(g.data(), x.data(), d.data(), x.size(), kForms[f]));
    size_t nonzero = 0;
    Worst worst;
    for (size_t i = 0; i < x.size(); ++i) {
      const Ref r = m.DerivativeTimes(x[i], f, g[i]);
      nonzero += r.hi != 0.0;
      worst.Add(UlpError(d[i], r), x[i], d[i], r.hi);
      ASSERT_LE(UlpError(d[i], r), bwd.f64_ulp)
          << kFormNames[f] << std::hexfloat << " x=" << x[i] << " g=" << g[i] << " got " << d[i] << " ref " << r.hi;
    }
    std::printf("%-7s %-8s %s (%zu of %zu nonzero)\n", gelu_simd_target(), kFormNames[f],
                Describe("deep g*f' ULP", worst).c_str(), nonzero, x.size());
    EXPECT_GT(nonzero, x.size() / 4) << kFormNames[f] << ": the draws reach nonzero products";
  }
}

// Next to each derivative's root, where the kernels' f' = hi + lo cancels (hi alone may have the wrong sign): the
// 64 doubles around the root (found by bisection on MPFR's f'), grad_out = +-0 bit for bit against the zero of
// grad_out times MPFR's f', grad_out = +-1 with the sign of grad_out f'.
TEST_P(GeluF64Test, SignsNextToTheRoots) {
  Mpfr m;
  for (int f = 0; f < kNumForms; ++f) {
    const auto fprime = [&](double x) {
      Ref rf, rb;
      m.Eval(x, f, rf, rb);
      return rb.hi;
    };
    // Every form's f' is increasing on [-1.2, -0.3] (f'' > 0 there) and changes sign once: f' < 0 at -1.2, > 0 at
    // -0.3 (the roots lie near -0.75).
    double below = -1.2, above = -0.3;
    ASSERT_LT(fprime(below), 0.0) << kFormNames[f];
    ASSERT_GT(fprime(above), 0.0) << kFormNames[f];
    while (std::nextafter(below, 0.0) < above) {
      const double mid = below + (above - below) / 2;
      if (mid == below || mid == above) break;
      (fprime(mid) < 0 ? below : above) = mid;
    }
    double x = below;
    for (int k = 0; k < 31; ++k) x = std::nextafter(x, -1.0);
    for (int k = 0; k < 64; ++k, x = std::nextafter(x, 0.0)) {
      const double d = fprime(x);
      ASSERT_NE(d, 0.0) << std::hexfloat << x;
      for (double g : {0.0, -0.0}) {
        EXPECT_EQ(Bits(Bwd(x, kForms[f], g)), Bits(g * d)) << kFormNames[f] << std::hexfloat << " x=" << x << " g=" << g;
      }
      for (double g : {1.0, -1.0}) {
        EXPECT_EQ(std::signbit(Bwd(x, kForms[f], g)), std::signbit(g * d)) << kFormNames[f] << std::hexfloat << " x=" << x
                                                                           << " g=" << g;
      }
    }
  }
}

// The accuracy claim: the MPFR sample, every target this CPU runs, every form, forward and backward (grad_out = 1,
// and random grad_out against grad_out times the exact f').
// One test (not one per target) so that the reference is computed once; the targets are looped here.
TEST(GeluF64Sample, MaxUlpAllTargets) {
  const std::vector<FormSample>& s = Samples();
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ASSERT_STREQ(hwy::TargetName(target), gelu_simd_target());
    for (int f = 0; f < kNumForms; ++f) {
      const gelu::common::Function& fwd = F64Function(f, false);
      const gelu::common::Function& bwd = F64Function(f, true);
      const FormSample& fs = s[f];
      const size_t n = fs.x.size();
      std::vector<double> y(n), d(n), dg(n), one(n, 1.0);
      ASSERT_EQ(GELU_OK, gelu_forward_f64(fs.x.data(), y.data(), n, kForms[f]));
      ASSERT_EQ(GELU_OK, gelu_backward_f64(one.data(), fs.x.data(), d.data(), n, kForms[f]));
      ASSERT_EQ(GELU_OK, gelu_backward_f64(fs.g.data(), fs.x.data(), dg.data(), n, kForms[f]));
      Worst wf, wb, wr, wgb, wgr, wgn;  // wgn: g*f' where f' is a normal double (diagnostic: printed only)
      for (size_t i = 0; i < n; ++i) {
        const double x = fs.x[i];
        wf.Add(UlpError(y[i], fs.fwd[i]), x, y[i], fs.fwd[i].hi);
        const BackwardError e1 = BackwardErr(x, fs.bwd[i].hi, 1.0, d[i], fs.bwd[i], bwd);
        (e1.window ? wr : wb).Add(e1.err, x, d[i], fs.bwd[i].hi);
        const BackwardError eg = BackwardErr(x, fs.bwd[i].hi, fs.g[i], dg[i], fs.gbwd[i], bwd);
        (eg.window ? wgr : wgb).Add(eg.err, x, dg[i], fs.gbwd[i].hi);
        if (!eg.window && std::fabs(fs.bwd[i].hi) >= 0x1p-1022) wgn.Add(eg.err, x, dg[i], fs.gbwd[i].hi);
      }
      const std::string name = std::string(hwy::TargetName(target)) + " " + kFormNames[f];
      std::printf("%-14s %s\n%-14s %s\n%-14s %s\n%-14s %s\n%-14s %s\n%-14s %s\n", name.c_str(),
                  Describe("forward ULP", wf).c_str(), name.c_str(), Describe("backward ULP", wb).c_str(),
                  name.c_str(), Describe("backward root abs", wr).c_str(), name.c_str(),
                  Describe("g*f' ULP", wgb).c_str(), name.c_str(), Describe("g*f' ULP, f' normal", wgn).c_str(),
                  name.c_str(), Describe("g*f' root abs/|g|", wgr).c_str());
      EXPECT_LE(wf.err, fwd.f64_ulp) << name << std::hexfloat << " forward x=" << wf.x;
      EXPECT_LE(wb.err, bwd.f64_ulp) << name << std::hexfloat << " backward x=" << wb.x;
      EXPECT_LE(wr.err, 1.0) << name << std::hexfloat << " backward near root x=" << wr.x;
      EXPECT_LE(wgb.err, bwd.f64_ulp) << name << std::hexfloat << " backward, random grad_out, x=" << wgb.x;
      EXPECT_LE(wgr.err, 1.0) << name << std::hexfloat << " backward, random grad_out, near root x=" << wgr.x;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  const size_t inputs = s[0].x.size() + s[1].x.size() + s[2].x.size();
  std::printf("%zu inputs (every form forward, backward and backward with random grad_out: %zu evaluations) on "
              "each of %zu targets\n", inputs, 3 * inputs, hwy::SupportedAndGeneratedTargets().size());
  EXPECT_GE(inputs, size_t{10'000'000});
}

}  // namespace
