// SPDX-License-Identifier: Apache-2.0
// float64 GELU through the public C API (gelu_forward_f64 / gelu_backward_f64), on every Highway target:
// special values (bitwise), sizes 0..3*Lanes+1, unaligned and in-place calls, and the accuracy claim against
// MPFR (120 bits) on a sample of 3 x 3.4 million inputs (every binade of both signs, dense over the ranges where
// the forms are neither 0 nor x, both sides of every threshold and root), forward and backward:
//   <= 2 ULP, ulp(r) = 2^(max(e,-1021)-53) for r = m 2^e, m in [0.5, 1), 2^-1074 at r = 0 (SLEEF's countULPdp);
//   derivatives where |x| < 2 and |f'(x)| < 2^-8 (around the roots near x = -0.75): absolute error <= 2^-53.
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

namespace {

constexpr gelu_approximate kForms[3] = {GELU_APPROXIMATE_NONE, GELU_APPROXIMATE_TANH, GELU_APPROXIMATE_SIGMOID};
const char* const kFormNames[3] = {"none", "tanh", "sigmoid"};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxUlp = 2.0;
constexpr double kRootAbs = 0x1p-53;    // absolute bound where |f'| < 2^-8 near a root
constexpr double kRootWindow = 0x1p-8;

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

class Mpfr {
 public:
  Mpfr() {
    for (mpfr_ptr p : {x, t, u, v, w, c, k, a, one}) mpfr_init2(p, kPrec);
    mpfr_set_ui(one, 1, MPFR_RNDN);
  }
  ~Mpfr() {
    for (mpfr_ptr p : {x, t, u, v, w, c, k, a, one}) mpfr_clear(p);
  }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;

  // f (fwd) and f' (bwd) of form at x (finite).
  void Eval(double xd, int form, Ref& fwd, Ref& bwd) {
    mpfr_set_d(x, xd, MPFR_RNDN);
    if (form == 0) {
      // w = phi(x) = exp(-x^2/2)/sqrt(2 pi); u = Phi(x); f = x u; f' = u + x w.
      mpfr_sqr(t, x, MPFR_RNDN);
      mpfr_div_2ui(t, t, 1, MPFR_RNDN);
      mpfr_neg(t, t, MPFR_RNDN);
      mpfr_exp(w, t, MPFR_RNDN);
      mpfr_const_pi(t, MPFR_RNDN);
      mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
      mpfr_sqrt(t, t, MPFR_RNDN);
      mpfr_div(w, w, t, MPFR_RNDN);
      QTail(std::fabs(xd));  // u = Phi(-|x|)
      if (xd > 0) mpfr_ui_sub(u, 1, u, MPFR_RNDN);
      mpfr_mul(v, x, u, MPFR_RNDN);
      Store(v, fwd);
      mpfr_mul(w, w, x, MPFR_RNDN);
      mpfr_add(v, u, w, MPFR_RNDN);
      Store(v, bwd);
      return;
    }
    // z = c x (sigmoid: c = 1.702) or K (x + a x^3) (tanh: K = 2 sqrt(2/pi), a = 0.044715); zp = x z'(x).
    if (form == 2) {
      mpfr_set_str(c, "1.702", 10, MPFR_RNDN);
      mpfr_mul(u, c, x, MPFR_RNDN);  // z
      mpfr_set(v, u, MPFR_RNDN);     // zp
    } else {
      mpfr_const_pi(t, MPFR_RNDN);
      mpfr_ui_div(t, 2, t, MPFR_RNDN);
      mpfr_sqrt(k, t, MPFR_RNDN);
      mpfr_mul_2ui(k, k, 1, MPFR_RNDN);  // K
      mpfr_set_str(a, "0.044715", 10, MPFR_RNDN);
      mpfr_sqr(t, x, MPFR_RNDN);
      mpfr_mul(t, t, a, MPFR_RNDN);  // a x^2
      mpfr_add(u, t, one, MPFR_RNDN);
      mpfr_mul(u, u, x, MPFR_RNDN);
      mpfr_mul(u, u, k, MPFR_RNDN);  // z
      mpfr_mul_ui(t, t, 3, MPFR_RNDN);
      mpfr_add(v, t, one, MPFR_RNDN);
      mpfr_mul(v, v, x, MPFR_RNDN);
      mpfr_mul(v, v, k, MPFR_RNDN);  // zp
    }
    // e = exp(-|z|); sigma(z) = 1/(1+e) or e/(1+e); sigma(1-sigma) = e/(1+e)^2 (no cancellation).
    const bool neg = mpfr_sgn(u) < 0;
    mpfr_abs(t, u, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_exp(w, t, MPFR_RNDN);             // e
    mpfr_add(t, w, one, MPFR_RNDN);        // 1 + e
    mpfr_div(u, neg ? w : one, t, MPFR_RNDN);  // sigma
    mpfr_mul(c, x, u, MPFR_RNDN);
    Store(c, fwd);
    mpfr_div(w, w, t, MPFR_RNDN);
    mpfr_div(w, w, t, MPFR_RNDN);  // sigma (1 - sigma)
    mpfr_mul(w, w, v, MPFR_RNDN);
    mpfr_add(w, w, u, MPFR_RNDN);
    Store(w, bwd);
  }

  // u = Phi(-ta) = erfc(ta/sqrt 2)/2 for ta >= 0, with w = phi(ta) already set. mpfr_erfc takes up to 1 ms per
  // call for 3 < ta/sqrt(2) < 20 (its asymptotic series needs ~ta^2 terms), so from ta = 2 sqrt 2 on, Laplace's
  // continued fraction of the Mills ratio is used: Phi(-t) = phi(t) / (t + 1/(t + 2/(t + 3/(t + ...)))),
  // evaluated bottom-up from n terms; n = 1.5 (39/t)^2 + 25 terms give 2^-112 or better (measured against
  // 20000 terms for t in [2, 38]; CrossCheckContinuedFraction below checks it against mpfr_erfc).
  void QTail(double ta) {
    if (ta < kCfMin || std::isinf(ta)) {
      mpfr_set_d(t, ta, MPFR_RNDN);
      mpfr_sqrt_ui(u, 2, MPFR_RNDN);
      mpfr_div(t, t, u, MPFR_RNDN);
      mpfr_erfc(u, t, MPFR_RNDN);
      mpfr_div_2ui(u, u, 1, MPFR_RNDN);
      return;
    }
    const int n = static_cast<int>(1.5 * (39.0 / ta) * (39.0 / ta)) + 25;
    mpfr_set_d(t, ta, MPFR_RNDN);
    mpfr_set(u, t, MPFR_RNDN);
    for (int j = n; j >= 1; --j) {
      mpfr_ui_div(u, static_cast<unsigned long>(j), u, MPFR_RNDN);
      mpfr_add(u, u, t, MPFR_RNDN);
    }
    mpfr_div(u, w, u, MPFR_RNDN);
  }

  // Relative difference between the continued fraction and mpfr_erfc at ta >= kCfMin.
  double CrossCheck(double ta) {
    mpfr_set_d(x, ta, MPFR_RNDN);
    mpfr_sqr(t, x, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_exp(w, t, MPFR_RNDN);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    mpfr_div(w, w, t, MPFR_RNDN);
    QTail(ta);
    mpfr_set(v, u, MPFR_RNDN);
    mpfr_sqrt_ui(t, 2, MPFR_RNDN);
    mpfr_div(t, x, t, MPFR_RNDN);
    mpfr_erfc(u, t, MPFR_RNDN);
    mpfr_div_2ui(u, u, 1, MPFR_RNDN);
    mpfr_sub(v, v, u, MPFR_RNDN);
    mpfr_div(v, v, u, MPFR_RNDN);
    return std::fabs(mpfr_get_d(v, MPFR_RNDN));
  }

  static constexpr double kCfMin = 2.8284271247461903;  // 2 sqrt 2: mpfr_erfc below, the fraction above

 private:
  static constexpr mpfr_prec_t kPrec = 120;

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
    mpfr_sub_d(a, r, out.hi, MPFR_RNDN);
    mpfr_div_2si(a, a, e - 53, MPFR_RNDN);
    out.delta = mpfr_get_d(a, MPFR_RNDN);
  }

  mpfr_t x, t, u, v, w, c, k, a, one;
};

// |y - r| / ulp(r); NaN results must match NaN references (then 0), anything else NaN is +inf.
double UlpError(double y, const Ref& r) {
  if (std::isnan(r.hi)) return std::isnan(y) ? 0.0 : kInf;
  if (std::isnan(y)) return kInf;
  if (std::isinf(r.hi) || std::isinf(y)) return y == r.hi ? 0.0 : kInf;
  return std::fabs((y - r.hi) / r.ulp - r.delta);
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
  const double lo = form == 0 ? -39.0 : form == 1 ? -23.0 : -450.0;
  const double hi = form == 0 ? 9.0 : form == 1 ? 6.0 : 25.0;
  std::uniform_real_distribution<double> uni(lo, hi);
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

struct FormSample {
  std::vector<double> x;
  std::vector<Ref> fwd, bwd;
};

// Built once per process (all targets share it), on 2 threads.
const std::vector<FormSample>& Samples() {
  static const std::vector<FormSample> samples = [] {
    std::vector<FormSample> s(3);
    for (int f = 0; f < 3; ++f) {
      s[f].x = Sample(f, 1400000);
      s[f].fwd.resize(s[f].x.size());
      s[f].bwd.resize(s[f].x.size());
    }
    constexpr size_t kChunk = 1 << 14;
    std::atomic<size_t> next{0};
    const size_t n0 = s[0].x.size(), n1 = s[1].x.size(), n2 = s[2].x.size();
    const size_t total = n0 + n1 + n2;
    auto work = [&] {
      Mpfr m;
      for (size_t c; (c = next.fetch_add(kChunk)) < total;) {
        for (size_t i = c; i < std::min(total, c + kChunk); ++i) {
          const int f = i < n0 ? 0 : i < n0 + n1 ? 1 : 2;
          const size_t j = f == 0 ? i : f == 1 ? i - n0 : i - n0 - n1;
          m.Eval(s[f].x[j], f, s[f].fwd[j], s[f].bwd[j]);
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
  void Add(double e, double xv, double yv, double rv) {
    if (!(e <= err)) {
      err = e;
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
  Mpfr m;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uni(Mpfr::kCfMin, 12.0);
  for (int i = 0; i < 60; ++i) {
    const double t = i < 3 ? (i == 0 ? Mpfr::kCfMin : i == 1 ? 38.0 : 20.0) : uni(rng);
    EXPECT_LT(m.CrossCheck(t), 0x1p-100) << std::hexfloat << t;
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
  for (int f = 0; f < 3; ++f) {
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
  for (int f = 0; f < 3; ++f) {
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
          ASSERT_EQ(Bits(g[i] * Bwd(x[i], a)), Bits(gi[i])) << kFormNames[f] << " n=" << n << " i=" << i;
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

// A small MPFR spot check on every target (the full sample is GeluF64Sample below): 3000 inputs per form.
TEST_P(GeluF64Test, MpfrSpotCheck) {
  Mpfr m;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uni(-40.0, 10.0);
  for (int f = 0; f < 3; ++f) {
    std::vector<double> x(3000), y(x.size()), d(x.size()), one(x.size(), 1.0);
    for (auto& v : x) v = f == 2 ? 12 * uni(rng) : uni(rng);
    ASSERT_EQ(GELU_OK, gelu_forward_f64(x.data(), y.data(), x.size(), kForms[f]));
    ASSERT_EQ(GELU_OK, gelu_backward_f64(one.data(), x.data(), d.data(), x.size(), kForms[f]));
    for (size_t i = 0; i < x.size(); ++i) {
      Ref rf, rb;
      m.Eval(x[i], f, rf, rb);
      ASSERT_LE(UlpError(y[i], rf), kMaxUlp) << kFormNames[f] << std::hexfloat << " x=" << x[i];
      const bool window = std::fabs(x[i]) < 2 && std::fabs(rb.hi) < kRootWindow;
      if (window) {
        ASSERT_LE(std::fabs((d[i] - rb.hi) - rb.delta * rb.ulp), kRootAbs) << std::hexfloat << " x=" << x[i];
      } else {
        ASSERT_LE(UlpError(d[i], rb), kMaxUlp) << kFormNames[f] << std::hexfloat << " x=" << x[i];
      }
    }
  }
}

// The accuracy claim: the MPFR sample, every target this CPU runs, every form, forward and backward.
// One test (not one per target) so that the reference is computed once; the targets are looped here.
TEST(GeluF64Sample, MaxUlpAllTargets) {
  const std::vector<FormSample>& s = Samples();
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ASSERT_STREQ(hwy::TargetName(target), gelu_simd_target());
    for (int f = 0; f < 3; ++f) {
      const FormSample& fs = s[f];
      const size_t n = fs.x.size();
      std::vector<double> y(n), d(n), one(n, 1.0);
      ASSERT_EQ(GELU_OK, gelu_forward_f64(fs.x.data(), y.data(), n, kForms[f]));
      ASSERT_EQ(GELU_OK, gelu_backward_f64(one.data(), fs.x.data(), d.data(), n, kForms[f]));
      Worst wf, wb, wr;
      for (size_t i = 0; i < n; ++i) {
        const double x = fs.x[i];
        wf.Add(UlpError(y[i], fs.fwd[i]), x, y[i], fs.fwd[i].hi);
        const Ref& rb = fs.bwd[i];
        if (std::fabs(x) < 2 && std::fabs(rb.hi) < kRootWindow) {
          wr.Add(std::fabs((d[i] - rb.hi) - rb.delta * rb.ulp), x, d[i], rb.hi);
        } else {
          wb.Add(UlpError(d[i], rb), x, d[i], rb.hi);
        }
      }
      const std::string name = std::string(hwy::TargetName(target)) + " " + kFormNames[f];
      std::printf("%-14s %s\n%-14s %s\n%-14s %s\n", name.c_str(), Describe("forward ULP", wf).c_str(),
                  name.c_str(), Describe("backward ULP", wb).c_str(), name.c_str(),
                  Describe("backward root abs", wr).c_str());
      EXPECT_LE(wf.err, kMaxUlp) << name << std::hexfloat << " forward x=" << wf.x;
      EXPECT_LE(wb.err, kMaxUlp) << name << std::hexfloat << " backward x=" << wb.x;
      EXPECT_LE(wr.err, kRootAbs) << name << std::hexfloat << " backward near root x=" << wr.x;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  const size_t inputs = s[0].x.size() + s[1].x.size() + s[2].x.size();
  std::printf("%zu inputs (every form forward and backward: %zu evaluations) on each of %zu targets\n", inputs,
              2 * inputs, hwy::SupportedAndGeneratedTargets().size());
  EXPECT_GE(inputs, size_t{10'000'000});
}

}  // namespace
