// SPDX-License-Identifier: Apache-2.0
// Fused bias + GELU and GEGLU, float32 / bf16 / fp16, every form, forward and backward:
// - float32 on the float-core targets (AVX2, AVX-512: the float path of src/cpu/storage_paths-inl.h): the unfused
//   composition bit for bit (gelu_forward_f32 / gelu_backward_f32 of the float32 sum; GEGLU: the float32 kernels'
//   f(a), fl32(grad_out b) f'(a), then float products), and within the function table's float32 bound (GEGLU's
//   products: 2B + 0.5 and B + 1 ULP, docs/ACCURACY.md) of the reference;
// - elsewhere, and for bf16/fp16 everywhere: the documented one-rounding formula, evaluated by the shared scalar
//   code (src/common), bit for bit; float32 bias-GELU never farther from the exact value than the unfused
//   composition, GEGLU within 1 ULP of the two-pass fl(fl(f(a)) * b); bf16/fp16 bias-GELU equals the half
//   functions where the sum is exact in the type;
// - against the double reference (accuracy of the result, not only agreement of two implementations): every
//   result within its bound (kMaxUlp: 0.5 + 2^-18 ULP for bf16/fp16, 0.5 + 2^-6 for float32 off the float core) of
//   the reference (GEGLU's grad_a and bias-backward's grad_x: grad_out (times b) times the reference f'), a zero
//   result of the reference's sign (the IEEE sign of the product), and no NaN for a number (MaxError);
// - grad_bias: against a double sum of the exact products, and bit-identical for 1, 2, 3 and 8 threads;
// - the halves layout (rows form) against the separate-array form row by row; in place; argument errors.
// Each runs on every SIMD target compiled in and supported here (the kernels are compiled per target).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "gelu/gelu.h"
#include "gelu/gelu.hpp"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/common/half.h"
#include "src/cpu/float_core_targets.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"

namespace {

using gelu::reference::Form;

// ---- Storage types.
struct F32 : gelu::detail::api<float> {  // its C functions: gelu.hpp's list
  using T = float;
  static constexpr const char* kName = "f32";
  static constexpr bool kHalf = false;
  static constexpr int kPrecision = 24;
  static double ToD(T v) { return v; }
  static T FromD(double v) { return static_cast<float>(v); }
};
struct Bf16 : gelu::detail::api<gelu::bf16> {  // its C functions: gelu.hpp's list
  using T = uint16_t;
  static constexpr const char* kName = "bf16";
  static constexpr bool kHalf = true;
  static constexpr int kPrecision = 8;
  static double ToD(T v) { return gelu::common::Bf16ToFloat(v); }
  static T FromD(double v) { return gelu::common::DoubleToBf16(v); }
  static constexpr auto forward = gelu_forward_bf16;
  static constexpr auto backward = gelu_backward_bf16;
};
struct F16 : gelu::detail::api<gelu::f16> {  // its C functions: gelu.hpp's list
  using T = uint16_t;
  static constexpr const char* kName = "f16";
  static constexpr bool kHalf = true;
  static constexpr int kPrecision = 11;
  static double ToD(T v) { return gelu::common::F16ToFloat(v); }
  static T FromD(double v) { return gelu::common::DoubleToF16(v); }
  static constexpr auto forward = gelu_forward_f16;
  static constexpr auto backward = gelu_backward_f16;
};

// Bit patterns, so that comparisons see signed zeros.
uint32_t Bits(float v) { return std::bit_cast<uint32_t>(v); }
uint32_t Bits(uint16_t v) { return v; }
template <class T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every fused result is a double computation rounded once: within 0.5 ULP of the exact value plus the double
// side's relative error (< 2^-30, src/common/gelu_scalar.h) in ULPs of the type: 2^-30 * 2^24 = 2^-6 for float32,
// <= 2^-19 for the half types (plus the reference's own 2^-40).
template <class S>
constexpr double kMaxUlp = 0.5 + (S::kPrecision == 24 ? 0x1p-6 : 0x1p-18);

using gelu::common::kForms;  // src/common/functions.h

// Whether the target under test runs the float core (the best of the supported targets, which
// HWY_TARGET_INSTANTIATE_TEST_SUITE_P restricts to it): then the float32 fused results are the float32 kernel's
// (src/cpu/storage_paths-inl.h), held to the function table's float32 bound (plus the products' roundings).
bool FloatCoreNow() {
  const int64_t targets = hwy::SupportedTargets();
  return gelu::cpu::RunsFloatCore(targets & -targets);
}
// The float32 bound of (form, direction) in the function table: f32_ulp ULP, f32_abs absolute (times grad_out)
// next to f's root.
const gelu::common::Function& F32Claim(gelu_approximate a, bool derivative) {
  return *gelu::common::FindFunction(gelu::common::FormulaOf(static_cast<gelu::common::Form>(a)),
                                     derivative ? gelu::common::kBackward : gelu::common::kForward);
}
// The bound a fused result is held to: kMaxUlp (one rounding of the double path), or on the float core for
// float32, the float32 kernel's bound times `scale` plus `extra` ULP (the roundings of the products around it:
// docs/ACCURACY.md).
template <class S>
double FusedBound(gelu_approximate a, bool derivative, double scale = 1.0, double extra = 0.0) {
  if (S::kHalf || !FloatCoreNow()) return kMaxUlp<S>;
  return F32Claim(a, derivative).f32_ulp * scale + extra;
}

// The documented computation: f or f' of a float32 value in double (the kernels' scalar twin), with the two
// half-precision corrections of src/common/half.h when the output is a half type.
template <class S>
double F(float h, gelu_approximate a, bool derivative) {
  const double v = gelu::common::DoublePathScalar(h, a, derivative);
  if (!S::kHalf) return v;
  return derivative ? v : gelu::common::TinyForwardNudge(h, v);
}
double Ref(double x, gelu_approximate a, bool derivative) {
  return derivative ? gelu::reference::Derivative(x, static_cast<Form>(a))
                    : gelu::reference::Forward(x, static_cast<Form>(a));
}

// ULP of the type at |v| (with its subnormal floor, which is also the ULP at 0), for tolerances.
template <class S>
double Ulp(double v) {
  const int emin = S::kPrecision == 24 ? -126 : S::kPrecision == 8 ? -126 : -14;
  int e;
  std::frexp(v, &e);  // v = m 2^e, m in [1/2, 1)
  return std::ldexp(1.0, (v == 0 ? emin : std::max(e - 1, emin)) - (S::kPrecision - 1));
}

// The error of a result y against the reference r in ULPs of the type. Zeros are signed, as in UlpErrorF32
// (src/reference/ulp.h): a zero y whose sign differs from r's (the IEEE sign of the product grad_out f', or
// f(a) b, also where r is a tiny value that rounds to zero) is +inf. NaN is MaxError's (PairError).
template <class S>
double UlpError(double y, double r) {
  if (y == 0 && std::signbit(y) != std::signbit(r)) return std::numeric_limits<double>::infinity();
  return std::fabs(y - r) / Ulp<S>(r);
}
// The error of a backward result y (bias-backward grad_x, GEGLU grad_a) against r = m f'(x), m its multiplier
// (grad_out, or grad_out b), f' the reference's. float32 only: less |m| 2^-40, the double side's absolute error in
// f' in the common range |x| <= 3 (src/common/gelu_scalar.h), which near f's root exceeds the relative 2^-30 that
// kMaxUlp rests on (docs/ACCURACY.md). The 16-bit types are held to kMaxUlp without it (their ULPs are 2^13 and
// 2^16 times coarser; the samples here never needed it).
// On the float core the float32 kernel's absolute near-root bound (2^-24 times grad_out) takes its place.
template <class S>
double GradError(double y, double r, double m, double x = 0.0) {
  const double e = UlpError<S>(y, r);
  if (S::kHalf || std::isinf(e)) return e;
  const bool near_root = gelu::common::InNearRootWindow(x, m == 0 ? 0.0 : r / m);
  const double absolute = FloatCoreNow() ? (near_root ? 0x1p-24 : 0.0) : 0x1p-40;
  return std::max(0.0, std::fabs(y - r) - std::fabs(m) * absolute) / Ulp<S>(r);
}
using gelu::reference::MaxError;

template <class S>
std::vector<typename S::T> Random(size_t n, double scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0.0, scale);
  std::vector<typename S::T> v(n);
  for (auto& e : v) e = S::FromD(nd(rng));
  return v;
}

struct Shape {
  size_t rows, cols;
};
// Around the vector length, odd tails, one row/column, and one large enough to run on several threads.
const Shape kShapes[] = {{1, 1}, {3, 7}, {2, 8}, {5, 17}, {17, 33}, {300, 1}, {1, 1000}, {64, 129}, {700, 301}};

// ---------------------------------------------------------------------------------------------------------------
template <class S>
void CheckBiasForward() {
  using T = typename S::T;
  for (const Shape& sh : kShapes) {
    const size_t n = sh.rows * sh.cols;
    const auto x = Random<S>(n, 3.0, 1), bias = Random<S>(sh.cols, 1.0, 2);
    std::vector<T> y(n), y2(n);
    std::vector<float> h(n), hy(n);
    for (size_t i = 0; i < n; ++i) {
      h[i] = static_cast<float>(S::ToD(x[i])) + static_cast<float>(S::ToD(bias[i % sh.cols]));
    }
    for (gelu_approximate a : kForms) {
      ASSERT_EQ(S::bias_forward(x.data(), bias.data(), y.data(), sh.rows, sh.cols, a), GELU_OK);
      if constexpr (!S::kHalf) {
        // The unfused composition: at least as accurate (one rounding of a double evaluation against the float
        // core's 1 / 2 ULP), up to the double side's error where the exact value is that close to a midpoint.
        ASSERT_EQ(gelu_forward_f32(h.data(), hy.data(), n, a), GELU_OK);
      }
      MaxError worst;
      for (size_t i = 0; i < n; ++i) {
        // float32 on the float core: gelu_forward_f32 of the sum, bit for bit; otherwise the double path.
        const T want = !S::kHalf && FloatCoreNow() ? static_cast<T>(hy[i]) : S::FromD(F<S>(h[i], a, false));
        ASSERT_EQ(Bits(y[i]), Bits(want)) << S::kName << " form " << a << " " << sh.rows << "x" << sh.cols
                                          << " i=" << i;
        const double r = Ref(h[i], a, false);
        if constexpr (!S::kHalf) {
          ASSERT_LE(std::fabs(S::ToD(y[i]) - r), std::fabs(static_cast<double>(hy[i]) - r) + 0x1p-6 * Ulp<S>(r));
        }
        worst.Add(S::ToD(y[i]), r, UlpError<S>(S::ToD(y[i]), r));
      }
      EXPECT_LE(worst.value, FusedBound<S>(a, false)) << S::kName << " form " << a;
      // In place (y == x) gives the same bits.
      std::vector<T> inplace(x);
      ASSERT_EQ(S::bias_forward(inplace.data(), bias.data(), inplace.data(), sh.rows, sh.cols, a), GELU_OK);
      EXPECT_TRUE(SameBits(inplace, y)) << S::kName << " in place";
    }
  }
}

// Half types against their own unfused sequence where x + bias is exact in the type: then fl32(x + bias) is the
// half value itself, and the fused result must equal gelu_forward_* of it.
template <class S>
void CheckBiasForwardAgainstHalfSequence() {
  using T = typename S::T;
  const size_t rows = 37, cols = 19, n = rows * cols;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> k(-127, 127);  // k/16 + j/16 = (k+j)/16, |k+j| <= 254: 8 bits, exact
  std::vector<T> x(n), bias(cols), sum(n), y(n), want(n);
  for (auto& v : x) v = S::FromD(k(rng) / 16.0);
  for (auto& v : bias) v = S::FromD(k(rng) / 16.0);
  for (size_t i = 0; i < n; ++i) sum[i] = S::FromD(S::ToD(x[i]) + S::ToD(bias[i % cols]));
  for (gelu_approximate a : kForms) {
    ASSERT_EQ(S::bias_forward(x.data(), bias.data(), y.data(), rows, cols, a), GELU_OK);
    ASSERT_EQ(S::forward(sum.data(), want.data(), n, a), GELU_OK);
    EXPECT_TRUE(SameBits(y, want)) << S::kName << " form " << a;
  }
}

template <class S>
void CheckBiasBackward() {
  using T = typename S::T;
  MaxError worst_gx[gelu::common::kNumForms];  // per form, over all shapes
  for (const Shape& sh : kShapes) {
    const size_t n = sh.rows * sh.cols;
    const auto x = Random<S>(n, 3.0, 4), bias = Random<S>(sh.cols, 1.0, 5), g = Random<S>(n, 1.0, 6);
    std::vector<float> h(n), gf(n), unfused(n);
    for (size_t i = 0; i < n; ++i) {
      h[i] = static_cast<float>(S::ToD(x[i])) + static_cast<float>(S::ToD(bias[i % sh.cols]));
      gf[i] = static_cast<float>(S::ToD(g[i]));
    }
    for (gelu_approximate a : kForms) {
      std::vector<T> gx(n), gb(sh.cols);
      ASSERT_EQ(S::bias_backward(g.data(), x.data(), bias.data(), gx.data(), gb.data(), sh.rows, sh.cols, a), GELU_OK);
      if constexpr (!S::kHalf) ASSERT_EQ(gelu_backward_f32(gf.data(), h.data(), unfused.data(), n, a), GELU_OK);
      std::vector<double> exact(sh.cols, 0.0), magnitude(sh.cols, 0.0), grad_magnitude(sh.cols, 0.0);
      for (size_t i = 0; i < n; ++i) {
        const double prod = static_cast<double>(gf[i]) * F<S>(h[i], a, true);
        const T want = !S::kHalf && FloatCoreNow() ? static_cast<T>(unfused[i]) : S::FromD(prod);
        ASSERT_EQ(Bits(gx[i]), Bits(want)) << S::kName << " form " << a << " " << sh.rows << "x" << sh.cols
                                           << " i=" << i;
        const double r = gf[i] * Ref(h[i], a, true);
        worst_gx[a].Add(S::ToD(gx[i]), r, GradError<S>(S::ToD(gx[i]), r, gf[i], h[i]));
        if constexpr (!S::kHalf) {
          // As forward; the absolute |g| 2^-40 is GradError's (the double f' near its root).
          ASSERT_LE(std::fabs(S::ToD(gx[i]) - r),
                    std::fabs(static_cast<double>(unfused[i]) - r) + 0x1p-6 * Ulp<S>(r) + std::fabs(gf[i]) * 0x1p-40);
        }
        exact[i % sh.cols] += r;
        magnitude[i % sh.cols] += std::fabs(r);
        grad_magnitude[i % sh.cols] += std::fabs(gf[i]);
      }
      for (size_t c = 0; c < sh.cols; ++c) {
        // One rounding of a double sum: 0.5 ULP, plus the sum's own rounding errors and the reference's, and the
        // terms' own: on the float core the float32 products (2 ULP, 2^-22 relative, or 2^-24 |grad_out| next to
        // the root), else the double products' (< 2^-30 relative).
        const double term = FloatCoreNow() ? 0x1p-22 : 0x1p-34;
        const double term_abs = FloatCoreNow() ? 0x1p-24 : 0.0;
        const double tol =
            0.5 * Ulp<S>(exact[c]) + magnitude[c] * (sh.rows * 0x1p-52 + term) + grad_magnitude[c] * term_abs;
        EXPECT_LE(std::fabs(S::ToD(gb[c]) - exact[c]), tol)
            << S::kName << " form " << a << " " << sh.rows << "x" << sh.cols << " c=" << c << std::hexfloat
            << " got " << S::ToD(gb[c]) << " sum " << exact[c];
      }
      // In place: grad_x == grad_out, and grad_x == x.
      std::vector<T> io(g), gb2(sh.cols);
      ASSERT_EQ(S::bias_backward(io.data(), x.data(), bias.data(), io.data(), gb2.data(), sh.rows, sh.cols, a),
                GELU_OK);
      EXPECT_TRUE(SameBits(io, gx) && SameBits(gb2, gb)) << S::kName << " in place (grad_out)";
      std::vector<T> io2(x);
      ASSERT_EQ(S::bias_backward(g.data(), io2.data(), bias.data(), io2.data(), gb2.data(), sh.rows, sh.cols, a),
                GELU_OK);
      EXPECT_TRUE(SameBits(io2, gx) && SameBits(gb2, gb)) << S::kName << " in place (x)";
    }
  }
  for (gelu_approximate a : kForms) {
    std::printf("%-7s %-4s form %d: bias backward grad_x max %.6f ULP of grad_out f'\n", gelu_simd_target(), S::kName,
                a, worst_gx[a].value);
    EXPECT_LE(worst_gx[a].value, FusedBound<S>(a, true)) << S::kName << " form " << a;
  }
}

// grad_bias and grad_x are the same bits whatever the thread count (the serial and threaded reductions too).
template <class S>
void CheckBiasBackwardDeterministic() {
  using T = typename S::T;
  const int saved = gelu_get_num_threads();
  for (const Shape& sh : {Shape{4096, 40}, Shape{640, 257}, Shape{70000, 1}, Shape{3, 30000}}) {
    const size_t n = sh.rows * sh.cols;
    const auto x = Random<S>(n, 2.0, 7), bias = Random<S>(sh.cols, 1.0, 8), g = Random<S>(n, 1.0, 9);
    std::vector<T> gx1(n), gb1(sh.cols);
    gelu_set_num_threads(1);
    ASSERT_EQ(S::bias_backward(g.data(), x.data(), bias.data(), gx1.data(), gb1.data(), sh.rows, sh.cols,
                               GELU_APPROXIMATE_NONE),
              GELU_OK);
    for (int threads : {2, 3, 8}) {
      gelu_set_num_threads(threads);
      std::vector<T> gx(n), gb(sh.cols);
      ASSERT_EQ(S::bias_backward(g.data(), x.data(), bias.data(), gx.data(), gb.data(), sh.rows, sh.cols,
                                 GELU_APPROXIMATE_NONE),
                GELU_OK);
      EXPECT_TRUE(SameBits(gx, gx1)) << S::kName << " threads " << threads;
      EXPECT_TRUE(SameBits(gb, gb1))
          << S::kName << " grad_bias, threads " << threads << ", " << sh.rows << "x" << sh.cols;
    }
  }
  gelu_set_num_threads(saved);
}

// ---------------------------------------------------------------------------------------------------------------
template <class S>
void CheckGeglu() {
  using T = typename S::T;
  MaxError worst_y[gelu::common::kNumForms], worst_ga[gelu::common::kNumForms], worst_gb[gelu::common::kNumForms];  // per form, over all shapes
  for (const Shape& sh : kShapes) {
    const size_t n = sh.rows * sh.cols;
    const auto av = Random<S>(n, 3.0, 10), bv = Random<S>(n, 2.0, 11), g = Random<S>(n, 1.0, 12);
    for (gelu_approximate a : kForms) {
      std::vector<T> y(n), ga(n), gb(n);
      ASSERT_EQ(S::geglu_forward(av.data(), bv.data(), y.data(), n, a), GELU_OK);
      ASSERT_EQ(S::geglu_backward(g.data(), av.data(), bv.data(), ga.data(), gb.data(), n, a), GELU_OK);
      // float32 on the float core: the float32 kernels' f(a) and (fl32(grad_out b)) f'(a), then float products.
      const bool float_core = !S::kHalf && FloatCoreNow();
      std::vector<float> a32(n), m32(n), fa32(n), ga32(n);
      for (size_t i = 0; i < n; ++i) {
        a32[i] = static_cast<float>(S::ToD(av[i]));
        m32[i] = static_cast<float>(S::ToD(g[i])) * static_cast<float>(S::ToD(bv[i]));
      }
      ASSERT_EQ(gelu_forward_f32(a32.data(), fa32.data(), n, a), GELU_OK);
      ASSERT_EQ(gelu_backward_f32(m32.data(), a32.data(), ga32.data(), n, a), GELU_OK);
      for (size_t i = 0; i < n; ++i) {
        const auto af = static_cast<float>(S::ToD(av[i]));
        const double b = S::ToD(bv[i]), gd = S::ToD(g[i]);
        if (float_core) {
          ASSERT_EQ(Bits(y[i]), Bits(static_cast<T>(fa32[i] * static_cast<float>(b)))) << S::kName << " y i=" << i;
          ASSERT_EQ(Bits(ga[i]), Bits(static_cast<T>(ga32[i]))) << S::kName << " ga i=" << i;
          ASSERT_EQ(Bits(gb[i]), Bits(static_cast<T>(static_cast<float>(gd) * fa32[i]))) << S::kName << " gb i=" << i;
        } else {
          // The documented one-rounding formulas, bit for bit.
          ASSERT_EQ(Bits(y[i]), Bits(S::FromD(F<S>(af, a, false) * b))) << S::kName << " y i=" << i;
          ASSERT_EQ(Bits(ga[i]), Bits(S::FromD((gd * b) * F<S>(af, a, true)))) << S::kName << " ga i=" << i;
          ASSERT_EQ(Bits(gb[i]), Bits(S::FromD(gd * F<S>(af, a, false)))) << S::kName << " gb i=" << i;
        }
        // Against the reference.
        const double ry = Ref(af, a, false) * b, rga = gd * b * Ref(af, a, true), rgb = gd * Ref(af, a, false);
        worst_y[a].Add(S::ToD(y[i]), ry, UlpError<S>(S::ToD(y[i]), ry));
        worst_gb[a].Add(S::ToD(gb[i]), rgb, UlpError<S>(S::ToD(gb[i]), rgb));
        worst_ga[a].Add(S::ToD(ga[i]), rga, GradError<S>(S::ToD(ga[i]), rga, gd * b, af));
        // Against the unfused two-pass composition (f rounded, then the product rounded): never farther from the
        // exact value, up to twice the double side's error (where the exact value is that close to a midpoint,
        // either neighbour may come out of a one-rounding evaluation). (No bound on their difference: in the
        // subnormal range the first rounding's absolute error is multiplied by b.)
        const double two_pass = S::ToD(S::FromD(S::ToD(S::FromD(F<S>(af, a, false))) * b));
        if (!float_core) EXPECT_LE(std::fabs(S::ToD(y[i]) - ry), std::fabs(two_pass - ry) + 2 * (kMaxUlp<S> - 0.5) * Ulp<S>(ry))
            << S::kName << " form " << a << std::hexfloat << " a=" << af << " b=" << b << " y=" << S::ToD(y[i]) << " ref=" << ry
            << " two-pass=" << two_pass;
      }
      // In place: y == a, y == b; grad_a == a with grad_b == b.
      std::vector<T> ia(av), ib(bv);
      ASSERT_EQ(S::geglu_forward(ia.data(), bv.data(), ia.data(), n, a), GELU_OK);
      ASSERT_EQ(S::geglu_forward(av.data(), ib.data(), ib.data(), n, a), GELU_OK);
      EXPECT_TRUE(SameBits(ia, y) && SameBits(ib, y)) << S::kName;
      std::vector<T> ja(av), jb(bv);
      ASSERT_EQ(S::geglu_backward(g.data(), ja.data(), jb.data(), ja.data(), jb.data(), n, a), GELU_OK);
      EXPECT_TRUE(SameBits(ja, ga) && SameBits(jb, gb)) << S::kName;
    }
  }
  for (gelu_approximate a : kForms) {
    std::printf("%-7s %-4s form %d: GEGLU max y %.6f, grad_a %.6f, grad_b %.6f ULP\n", gelu_simd_target(), S::kName,
                a, worst_y[a].value, worst_ga[a].value, worst_gb[a].value);
    // float32 on the float core (docs/ACCURACY.md): f(a) b and grad_out f(a) round a product of the kernel's f,
    // whose error of B ULP of f is up to 2B ULP of the product (ULP(f) |b| < 2 ULP(f b)), plus half a ULP;
    // grad_a is the kernel's (B) on the multiplier fl32(grad_out b), off by half a ULP of it (up to one of grad_a).
    EXPECT_LE(worst_y[a].value, FusedBound<S>(a, false, 2.0, 0.5)) << S::kName << " form " << a;
    EXPECT_LE(worst_ga[a].value, FusedBound<S>(a, true, 1.0, 1.0)) << S::kName << " form " << a;
    EXPECT_LE(worst_gb[a].value, FusedBound<S>(a, false, 2.0, 0.5)) << S::kName << " form " << a;
  }
}

// GEGLU's grad_a = (grad_out b) f'(a) where the multiplier grad_out b (two float32-range factors: up to 2^256) meets
// the derivatives' deep negative tail, |f'| down to 2^-406 (kExactDerivativeTMax, kSigmoidDerivativeZMax): a in the
// exact form's [-24.5, -15.5], the tanh form's |z| in [133, 296] (a in [-15.6, -11.7]) and the sigmoid form's
// (a in [-173, -70]), |grad_out| and |b| in 2^40 .. 2^127, against grad_out b times the reference f'. Cutoffs at
// |f'| < 2^-286 (enough for grad_out alone) fail here: x = -22, grad_out = b = 2^120 needs -1.2e-32, not -0.
// bf16 has float32's exponent range; fp16's products stay below 2^32, where every deep-tail result is 0.
template <class S>
void CheckGegluDeepTail() {
  using T = typename S::T;
  const double lo[3] = {-24.5, -15.6, -173.0}, hi[3] = {-15.5, -11.7, -70.0};
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> exponent(40, 126);  // 2^127 * m may round to bf16 inf
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int f = 0; f < 3; ++f) {
    const gelu_approximate a = kForms[f];
    std::uniform_real_distribution<double> deep(lo[f], hi[f]);
    const size_t n = 4096;
    std::vector<T> av(n), bv(n), g(n), ga(n), gb(n);
    for (size_t i = 0; i < n; ++i) {
      av[i] = S::FromD(i == 0 && f == 0 ? -22.0 : deep(rng));
      bv[i] = S::FromD((rng() & 1 ? -1 : 1) * std::ldexp(mantissa(rng), i == 0 ? 120 : exponent(rng)));
      g[i] = S::FromD((rng() & 1 ? -1 : 1) * std::ldexp(mantissa(rng), i == 0 ? 120 : exponent(rng)));
    }
    ASSERT_EQ(S::geglu_backward(g.data(), av.data(), bv.data(), ga.data(), gb.data(), n, a), GELU_OK);
    size_t nonzero = 0;
    MaxError worst;
    for (size_t i = 0; i < n; ++i) {
      const double af = S::ToD(av[i]), m = S::ToD(g[i]) * S::ToD(bv[i]);  // exact in double
      const double r = m * Ref(af, a, true);
      nonzero += S::FromD(r) != S::FromD(0.0) && S::FromD(r) != S::FromD(-0.0);
      worst.Add(S::ToD(ga[i]), r, UlpError<S>(S::ToD(ga[i]), r));
      ASSERT_LE(std::fabs(S::ToD(ga[i]) - r), FusedBound<S>(a, true, 1.0, 1.0) * Ulp<S>(r))
          << S::kName << " form " << a << std::hexfloat << " a=" << af << " grad_out*b=" << m << " got "
          << S::ToD(ga[i]) << " ref " << r;
      ASSERT_EQ(std::signbit(S::ToD(ga[i])), std::signbit(r))
          << S::kName << " form " << a << std::hexfloat << " a=" << af;
    }
    EXPECT_GT(nonzero, n / 4) << S::kName << " form " << a << ": the draws reach nonzero products";
    std::printf("%-7s %s form %d: deep-tail grad_a max %.4f ULP, %zu of %zu nonzero\n", gelu_simd_target(), S::kName, f,
                worst.value, nonzero, n);
  }
}

// float32 GEGLU backward where one lane's multiplier grad_out b overflows float32 (2^200) but grad_a does not
// (f'(a) ~ 2^-70 at a = -12; the sigmoid form's f' falls slower: a = -60, ~2^-140): that lane takes the double path, and its neighbours keep the float core's bits
// (a lane's result depends on its own inputs only).
void CheckGegluF32OverflowingMultiplier() {
  const size_t n = 40, odd = 21;
  std::vector<float> a(n), b(n), g(n), ga(n), gb(n), m(n), want(n);
  std::mt19937 rng(31);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  for (size_t i = 0; i < n; ++i) a[i] = nd(rng), b[i] = nd(rng), g[i] = nd(rng);
  b[odd] = 0x1p100f, g[odd] = -0x1p100f;
  for (gelu_approximate f : kForms) {
    a[odd] = f == GELU_APPROXIMATE_SIGMOID ? -60.0f : -12.0f;
    ASSERT_EQ(gelu_geglu_backward_f32(g.data(), a.data(), b.data(), ga.data(), gb.data(), n, f), GELU_OK);
    for (size_t i = 0; i < n; ++i) m[i] = g[i] * b[i];
    ASSERT_EQ(gelu_backward_f32(m.data(), a.data(), want.data(), n, f), GELU_OK);
    const double r = -0x1p200 * Ref(a[odd], f, true);
    EXPECT_LE(std::fabs(ga[odd] - r), kMaxUlp<F32> * Ulp<F32>(r)) << "form " << f << std::hexfloat << " " << ga[odd];
    if (!FloatCoreNow()) continue;
    for (size_t i = 0; i < n; ++i) {
      if (i != odd) EXPECT_EQ(Bits(ga[i]), Bits(want[i])) << "form " << f << " lane " << i;
    }
  }
}

// The halves layout: row r of x is [a_r | b_r]; results equal the separate-array form applied row by row.
template <class S>
void CheckGegluRows() {
  using T = typename S::T;
  for (const Shape& sh : kShapes) {
    const size_t n = sh.rows * sh.cols;
    const auto x = Random<S>(2 * n, 3.0, 13), g = Random<S>(n, 1.0, 14);
    for (gelu_approximate a : kForms) {
      std::vector<T> y(n), gx(2 * n);
      ASSERT_EQ(S::geglu_rows_forward(x.data(), y.data(), sh.rows, sh.cols, a), GELU_OK);
      ASSERT_EQ(S::geglu_rows_backward(g.data(), x.data(), gx.data(), sh.rows, sh.cols, a), GELU_OK);
      for (size_t r = 0; r < sh.rows; ++r) {
        const T* ar = x.data() + 2 * r * sh.cols;
        std::vector<T> yr(sh.cols), ga(sh.cols), gb(sh.cols);
        ASSERT_EQ(S::geglu_forward(ar, ar + sh.cols, yr.data(), sh.cols, a), GELU_OK);
        ASSERT_EQ(S::geglu_backward(g.data() + r * sh.cols, ar, ar + sh.cols, ga.data(), gb.data(), sh.cols, a),
                  GELU_OK);
        ASSERT_EQ(std::memcmp(yr.data(), y.data() + r * sh.cols, sh.cols * sizeof(T)), 0) << S::kName << " row " << r;
        ASSERT_EQ(std::memcmp(ga.data(), gx.data() + 2 * r * sh.cols, sh.cols * sizeof(T)), 0) << S::kName;
        ASSERT_EQ(std::memcmp(gb.data(), gx.data() + (2 * r + 1) * sh.cols, sh.cols * sizeof(T)), 0) << S::kName;
      }
      std::vector<T> io(x);  // grad_x may alias x
      ASSERT_EQ(S::geglu_rows_backward(g.data(), io.data(), io.data(), sh.rows, sh.cols, a), GELU_OK);
      EXPECT_TRUE(SameBits(io, gx)) << S::kName;
    }
  }
}

template <class S>
void CheckArguments() {
  using T = typename S::T;
  std::vector<T> buf(64, S::FromD(1.0)), out(64, S::FromD(7.0));
  const auto untouched = out;
  const auto bad = static_cast<gelu_approximate>(gelu::common::kNumForms);  // the first value past the forms
  T* p = buf.data();
  T* o = out.data();
  // Unknown approximate, null pointers, partial overlaps, size overflow: invalid, nothing written.
  EXPECT_EQ(S::bias_forward(p, p, o, 2, 4, bad), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::bias_forward(nullptr, p, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::bias_forward(p, nullptr, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::bias_forward(p, p, p + 1, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // y overlaps x
  EXPECT_EQ(S::bias_forward(p, o + 4, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // bias inside y
  EXPECT_EQ(S::bias_forward(p, p, o, SIZE_MAX / 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::bias_backward(p, p, p, o, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // grad_bias in grad_x
  EXPECT_EQ(S::bias_backward(p, p, p, o, nullptr, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::bias_backward(p, p, o + 8, o, o + 8, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_EQ(S::geglu_forward(p, p + 1, p, 8, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // y overlaps b
  EXPECT_EQ(S::geglu_backward(p, p, p, o, o + 2, 8, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // grads overlap
  EXPECT_EQ(S::geglu_backward(p, p, p, o, o, 8, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // same grads
  EXPECT_EQ(S::geglu_rows_forward(o, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // y may not alias x
  EXPECT_EQ(S::geglu_rows_backward(o, p, o, 2, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);  // grad_x over grad_out
  EXPECT_EQ(S::geglu_rows_forward(p, o, SIZE_MAX / 4, 4, GELU_APPROXIMATE_NONE), GELU_INVALID_ARGUMENT);
  EXPECT_TRUE(SameBits(out, untouched)) << S::kName;
  // Empty shapes are fine and write nothing; rows == 0 sets grad_bias to zero.
  EXPECT_EQ(S::bias_forward(nullptr, nullptr, nullptr, 0, 4, GELU_APPROXIMATE_NONE), GELU_OK);
  EXPECT_EQ(S::geglu_forward(nullptr, nullptr, nullptr, 0, GELU_APPROXIMATE_TANH), GELU_OK);
  EXPECT_EQ(S::geglu_rows_forward(nullptr, nullptr, 5, 0, GELU_APPROXIMATE_TANH), GELU_OK);
  EXPECT_EQ(S::bias_backward(nullptr, nullptr, nullptr, nullptr, o, 0, 4, GELU_APPROXIMATE_NONE), GELU_OK);
  for (size_t c = 0; c < 4; ++c) EXPECT_EQ(S::ToD(out[c]), 0.0);
}

// The plain half backward with a grad_out other than 1 (the exhaustive half test uses grad_out = 1 only): the
// product grad_out * f'(x) of a double f' rounded once, the fused backwards' grad_x computation, so the same bound
// (kMaxUlp; not correctly rounded in every case: docs/ACCURACY.md) against grad_out times the reference f'.
template <class S>
void CheckHalfBackwardRandomGradOut() {
  using T = typename S::T;
  const size_t n = 200000;
  const auto x = Random<S>(n, 3.0, 11), g = Random<S>(n, 1.0, 12);
  std::vector<T> gi(n);
  for (gelu_approximate a : kForms) {
    ASSERT_EQ(S::backward(g.data(), x.data(), gi.data(), n, a), GELU_OK);
    MaxError worst;
    size_t zeros = 0;
    for (size_t i = 0; i < n; ++i) {
      const double r = S::ToD(g[i]) * Ref(S::ToD(x[i]), a, true);
      zeros += S::ToD(gi[i]) == 0;  // of the sign of r (UlpError), the IEEE sign of grad_out f'
      worst.Add(S::ToD(gi[i]), r, UlpError<S>(S::ToD(gi[i]), r));
    }
    std::printf("%-7s %s form %d: backward, random grad_out: max %.6f ULP (%zu zero results)\n", gelu_simd_target(),
                S::kName, a, worst.value, zeros);
    EXPECT_LE(worst.value, kMaxUlp<S>) << S::kName << " form " << a;
  }
}

// The plain half backward, bit for bit, against its documented computation: grad_out times the double path's
// f'(x) (src/common/half.h: BackwardHalf, the scalar twin), the product rounded once. On the float-core targets
// most bf16 vectors form the product in float from a float table of f' and round that unless it lies near a
// rounding midpoint (src/cpu/elementwise_storage.cc: LookupBackwardFloatIo); this is the test that the margin keeps
// every such result on the double path's side (fp16 takes the double table: the same check of that path).
// Pairs: grad_out ~ N(0, 1) and x ~ N(0, 3) (where the float path serves most vectors), and every encoding of both
// at random (NaN, inf, subnormals, overflowing and underflowing products). NaN results: NaN.
template <class S>
void CheckHalfBackwardMatchesScalarPath() {
  using T = typename S::T;
  using Scalar = std::conditional_t<S::kPrecision == 8, gelu::common::Bf16, gelu::common::F16>;
  const size_t n = size_t{1} << 20;
  auto x = Random<S>(n, 3.0, 13), g = Random<S>(n, 1.0, 14);
  std::mt19937 rng(15);
  for (size_t i = n / 2; i < n; ++i) {
    x[i] = static_cast<T>(rng());
    g[i] = static_cast<T>(rng());
  }
  std::vector<T> gi(n);
  for (gelu_approximate a : kForms) {
    ASSERT_EQ(S::backward(g.data(), x.data(), gi.data(), n, a), GELU_OK);
    size_t mismatches = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
      const T want = gelu::common::BackwardHalf<Scalar>(g[i], x[i], a);
      const bool same = std::isnan(S::ToD(want)) ? std::isnan(S::ToD(gi[i])) : gi[i] == want;
      if (!same && mismatches++ == 0) first = i;
    }
    EXPECT_EQ(mismatches, 0u) << S::kName << " form " << a << ": first at g=" << S::ToD(g[first])
                              << " x=" << S::ToD(x[first]);
  }
}

// Subnormal grad_out, which the bf16 float path forms as (g 2^64) F 2^-64 rather than with a subnormal operand
// (src/cpu/elementwise_storage.cc): every input x with each subnormal grad_out of either sign in turn (8 rounds,
// each a different pairing), bit for bit against the scalar path as above; most results are not zero (a path
// that dropped such a g would give zeros).
template <class S>
void CheckHalfBackwardSubnormalGradOut() {
  using T = typename S::T;
  using Scalar = std::conditional_t<S::kPrecision == 8, gelu::common::Bf16, gelu::common::F16>;
  const uint32_t subnormals = (1u << (S::kPrecision - 1)) - 1;  // mantissa patterns 1 .. 2^(p-1) - 1
  std::vector<T> x(65536), g(65536), gi(65536);
  for (uint32_t i = 0; i < 65536; ++i) x[i] = static_cast<T>(i);
  for (gelu_approximate a : kForms) {
    size_t mismatches = 0, first = 0, nonzero = 0;
    for (uint32_t round = 0; round < 8; ++round) {
      for (uint32_t i = 0; i < 65536; ++i) {
        const uint32_t k = (i * 7 + round * 13) % (2 * subnormals);
        g[i] = static_cast<T>((k < subnormals ? 0u : 0x8000u) | (k % subnormals + 1));
      }
      ASSERT_EQ(S::backward(g.data(), x.data(), gi.data(), 65536, a), GELU_OK);
      for (uint32_t i = 0; i < 65536; ++i) {
        const T want = gelu::common::BackwardHalf<Scalar>(g[i], x[i], a);
        const bool same = std::isnan(S::ToD(want)) ? std::isnan(S::ToD(gi[i])) : gi[i] == want;
        if (!same && mismatches++ == 0) first = i;
        nonzero += (want & 0x7fffu) != 0 && !std::isnan(S::ToD(want));
      }
    }
    EXPECT_EQ(mismatches, 0u) << S::kName << " form " << a << ": first at x=0x" << std::hex << first;
    EXPECT_GT(nonzero, 100000u) << S::kName << " form " << a << ": nonzero results";
  }
}

// Every test of the fused kernels on every SIMD target compiled in and supported here.
class FusedTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(FusedTest);

TEST_P(FusedTest, DispatchesToTheTargetUnderTest) {
  const float x = 1.0f, b = 0.0f;
  float y;
  ASSERT_EQ(gelu_bias_forward_f32(&x, &b, &y, 1, 1, GELU_APPROXIMATE_NONE), GELU_OK);  // dispatches
  EXPECT_STREQ(gelu_simd_target(), hwy::TargetName(GetParam()));
}
TEST_P(FusedTest, HalfBackwardRandomGradOutBf16) { CheckHalfBackwardRandomGradOut<Bf16>(); }
TEST_P(FusedTest, HalfBackwardRandomGradOutF16) { CheckHalfBackwardRandomGradOut<F16>(); }
TEST_P(FusedTest, HalfBackwardMatchesScalarPathBf16) { CheckHalfBackwardMatchesScalarPath<Bf16>(); }
TEST_P(FusedTest, HalfBackwardSubnormalGradOutBf16) { CheckHalfBackwardSubnormalGradOut<Bf16>(); }
TEST_P(FusedTest, HalfBackwardSubnormalGradOutF16) { CheckHalfBackwardSubnormalGradOut<F16>(); }
TEST_P(FusedTest, HalfBackwardMatchesScalarPathF16) { CheckHalfBackwardMatchesScalarPath<F16>(); }
TEST_P(FusedTest, BiasForwardF32) { CheckBiasForward<F32>(); }
TEST_P(FusedTest, BiasForwardBf16) { CheckBiasForward<Bf16>(); }
TEST_P(FusedTest, BiasForwardF16) { CheckBiasForward<F16>(); }
TEST_P(FusedTest, BiasForwardBf16EqualsHalfSequenceWhereExact) { CheckBiasForwardAgainstHalfSequence<Bf16>(); }
TEST_P(FusedTest, BiasForwardF16EqualsHalfSequenceWhereExact) { CheckBiasForwardAgainstHalfSequence<F16>(); }
TEST_P(FusedTest, BiasBackwardF32) { CheckBiasBackward<F32>(); }
TEST_P(FusedTest, BiasBackwardBf16) { CheckBiasBackward<Bf16>(); }
TEST_P(FusedTest, BiasBackwardF16) { CheckBiasBackward<F16>(); }
TEST_P(FusedTest, BiasBackwardDeterministicF32) { CheckBiasBackwardDeterministic<F32>(); }
TEST_P(FusedTest, BiasBackwardDeterministicBf16) { CheckBiasBackwardDeterministic<Bf16>(); }
TEST_P(FusedTest, GegluF32) { CheckGeglu<F32>(); }
TEST_P(FusedTest, GegluBf16) { CheckGeglu<Bf16>(); }
TEST_P(FusedTest, GegluF16) { CheckGeglu<F16>(); }
TEST_P(FusedTest, GegluDeepTailF32) { CheckGegluDeepTail<F32>(); }
TEST_P(FusedTest, GegluF32OverflowingMultiplier) { CheckGegluF32OverflowingMultiplier(); }
TEST_P(FusedTest, GegluDeepTailBf16) { CheckGegluDeepTail<Bf16>(); }
TEST_P(FusedTest, GegluRowsF32) { CheckGegluRows<F32>(); }
TEST_P(FusedTest, GegluRowsBf16) { CheckGegluRows<Bf16>(); }
TEST_P(FusedTest, GegluRowsF16) { CheckGegluRows<F16>(); }
// Argument checks, before any dispatch: once.
TEST(FusedArgumentsTest, ArgumentsF32) { CheckArguments<F32>(); }
TEST(FusedArgumentsTest, ArgumentsBf16) { CheckArguments<Bf16>(); }
TEST(FusedArgumentsTest, ArgumentsF16) { CheckArguments<F16>(); }

// The C++ wrappers: shapes from spans, size errors as gelu::Error.
TEST(FusedCppTest, WrappersMatchCApi) {
  std::vector<float> x(6 * 5), bias(5), y(30), y2(30);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * static_cast<float>(i) - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.25f * static_cast<float>(i);
  gelu::bias_forward(x, bias, y, gelu::Approximation::tanh);
  ASSERT_EQ(gelu_bias_forward_f32(x.data(), bias.data(), y2.data(), 6, 5, GELU_APPROXIMATE_TANH), GELU_OK);
  EXPECT_EQ(y, y2);
  std::vector<float> bad_bias(7);
  EXPECT_THROW(gelu::bias_forward(x, bad_bias, y), gelu::Error);  // 30 is not a multiple of 7
  EXPECT_EQ(y, y2);  // refused before anything is written
  std::vector<gelu::bf16> hx(10), hy(5);
  for (size_t i = 0; i < hx.size(); ++i) hx[i] = gelu::bf16::from_float(0.5f * static_cast<float>(i) - 2.0f);
  gelu::geglu_rows_forward(std::span<const gelu::bf16>(hx), std::span<gelu::bf16>(hy), 5);
  std::vector<uint16_t> cy(5);
  ASSERT_EQ(gelu_geglu_rows_forward_bf16(reinterpret_cast<const uint16_t*>(hx.data()), cy.data(), 1, 5,
                                         GELU_APPROXIMATE_NONE),
            GELU_OK);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(hy[i].bits, cy[i]);
  EXPECT_THROW(gelu::geglu_rows_forward(std::span<const gelu::bf16>(hx), std::span<gelu::bf16>(hy), 3), gelu::Error);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(hy[i].bits, cy[i]);  // untouched by the refused call
}

}  // namespace
