// SPDX-License-Identifier: Apache-2.0
// Per-target float64 GELU (Highway): the three forms and their derivatives, <= 2 ULP against MPFR
// (tests/f64/gelu_f64_test.cc). Included once per target by src/cpu/gelu_f64.cc via foreach_target.h.
//
// Why this is more than the float32 kernel in double: in float64 the roundings of the arguments matter. exp(-t^2/2) at
// t = 38 has condition number t^2/2 = 722 with respect to t^2, so the rounding of t*t alone (2^-53 relative) would cost
// up to ~700 ULP; so would that of z = c*x in exp(-|z|) near |z| = 700. Every exponent argument is therefore carried as
// a double-double (hi + lo, error-free products and sums) into a Cody-Waite reduction whose reduced argument r = rhi +
// rlo is exact to ~2^-85, and exp(r) is kept as m = mhi + mlo in [0.7, 1.42] with the power of two applied last (an
// exact multiplication, then one that rounds, so a subnormal result is rounded from the 53-bit value, not flushed).
// Where a result is a difference (the derivatives near their roots, x ~ -0.75), the terms are formed in double-double
// too, or (exact form) a polynomial expanded around the root is used.
//
// Notation: t = |x|; phi0 = 1/sqrt(2 pi); Q(t) = Phi(-t); "dd" = double-double.

// Toggle guard, as Highway's skeleton-inl.h: this header is re-included once per target.
#if defined(GELU_SRC_CPU_GELU_F64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_GELU_F64_INL_H_
#undef GELU_SRC_CPU_GELU_F64_INL_H_
#else
#define GELU_SRC_CPU_GELU_F64_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>  // polynomial.inc

#include "hwy/highway.h"
#include "src/common/bit_cast.h"      // GELU_HD
#include "src/common/coefficients.h"  // kLog2e
#include "src/common/functions.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace f64 {
namespace hn = hwy::HWY_NAMESPACE;

// ------------------------------------------------------------------------------------------------------
// Constants. Double-doubles (hi, lo) were printed by mpmath at 300 bits: hi = RN(v), lo = RN(v - hi).
// The forms' constants are the real numbers of their formulas (1.702, 0.044715, sqrt(2/pi)), not their
// double roundings: the relative difference, ~2^-54, is amplified |z| times in exp(-|z|).
inline constexpr double kPhi0Hi = 0x1.9884533d43651p-2;   // 1/sqrt(2 pi)
inline constexpr double kPhi0Lo = -0x1.cbc0d30ebfd15p-56;
inline constexpr double kTanhKHi = 0x1.9884533d43651p+0;  // K = 2 sqrt(2/pi): z = K (x + 0.044715 x^3)
inline constexpr double kTanhKLo = -0x1.cbc0d30ebfd15p-54;
inline constexpr double kTanhKaHi = 0x1.2444f2a4d8b4bp-4;  // K * 0.044715
inline constexpr double kTanhKaLo = -0x1.6c843a29d1c70p-61;
inline constexpr double kTanhK3aHi = 0x1.b6676bf7450f0p-3;  // 3 K * 0.044715: x z'(x) = x (K + 3 K a x^2)
inline constexpr double kTanhK3aLo = 0x1.bba7351828aabp-57;
inline constexpr double kSigmoidCHi = 0x1.b3b645a1cac08p+0;  // 1.702
inline constexpr double kSigmoidCLo = 0x1.89374bc6a7efap-55;

// The constants of ExpNeg below, the float64 exponent. Their float32-path namesakes (common::kLn2Hi, kLn2Lo,
// kRoundShifter in src/common/coefficients.h, those of common::ExpNegBounded) have other values, chosen for another
// reduction, hence the suffix. kLog2e is the same double in both (1/ln 2 rounded to nearest): common::kLog2e.
// Cody-Waite split of ln 2 (mpmath, 300 bits): kLn2HiF64 = ln 2 rounded to 42 significant bits, so k * kLn2HiF64
// is exact for |k| < 2^11 (here |k| <= 1155), and a - k kLn2HiF64 is exact (Sterbenz; k = round(a/ln 2)).
// kLn2LoF64 = ln 2 - kLn2HiF64 rounded to a double (~2^-44) keeps the low part of r below 2^-32, so its square
// (dropped) is below 2^-64.
inline constexpr double kLn2HiF64 = 0x1.62e42fefa3800p-1;
inline constexpr double kLn2LoF64 = 0x1.ef35793c76730p-45;
// 0x1.8p52 = 1.5 * 2^52: adding it to v in [-2^50, 2^50] rounds v to an integer k held in the low mantissa bits
// (the spacing of doubles there is 1), as a signed offset from the shifter's own bits, with no exponent bias (ExpNeg
// subtracts the shifter's bits and splits k itself; common::kRoundShifter carries the bias 1023 instead).
inline constexpr double kRoundShifterF64 = 0x1.8p52;
// Largest exponent argument used: exp(-800) = 2^-1154.2, far below half the smallest subnormal times any
// |x| the forms reach (<= 500), so clamping there changes no result; k >= -1155 keeps k/2 normal.
inline constexpr double kExpArgMax = 800.0;

// exp(r) = 1 + r + r^2 H(r), |r| <= 0.3467 (> ln(2)/2), H of degree 11 (kExpDegreeF64: common::kExpDegree is
// the float32 path's exp polynomial), lowest degree first.
// Derivation: scripts/fit/gelu_f64_exp.sollya (fpminimax, absolute error of r^2 H, double coefficients):
// absolute approximation error 2^-67.56 on [-0.3467, 0.3467].
inline constexpr int kExpDegreeF64 = 11;
inline constexpr double kExpH[kExpDegreeF64 + 1] = {
    0x1p-1,                0x1.5555555555555p-3,  0x1.5555555555558p-5,  0x1.11111111112ccp-7,
    0x1.6c16c16c15007p-10, 0x1.a01a019f487ecp-13, 0x1.a01a01ad79386p-16, 0x1.71de3d398e7bap-19,
    0x1.27e4cc20d1e7dp-22, 0x1.ae5a9f8484d26p-26, 0x1.1f8bc091db2a4p-29, 0x1.6de69185b3d5fp-33};

// ------------------------------------------------------------------------------------------------------
// Error-free transformations. On targets without native FMA (SSE4, EMU128, SCALAR), Highway's MulAdd is a
// multiply then an add, so the exact product falls back to Dekker's splitting.

// hi + lo = a * b exactly (|a b| well inside the normal range, as everywhere here).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V TwoProd(D d, V a, V b, V& lo) {
  const V hi = hn::Mul(a, b);
#if HWY_NATIVE_FMA
  (void)d;
  lo = hn::MulSub(a, b, hi);
#else
  const V split = hn::Set(d, 0x1p27 + 1.0);  // Dekker's splitter for 53-bit doubles
  const V ca = hn::Mul(a, split), cb = hn::Mul(b, split);
  const V ah = hn::Sub(ca, hn::Sub(ca, a)), bh = hn::Sub(cb, hn::Sub(cb, b));
  const V al = hn::Sub(a, ah), bl = hn::Sub(b, bh);
  lo = hn::Add(hn::Add(hn::Add(hn::Sub(hn::Mul(ah, bh), hi), hn::Mul(ah, bl)), hn::Mul(al, bh)),
               hn::Mul(al, bl));
#endif
  return hi;
}

// c - a*b, exact whenever that value is representable (division residuals: a ~ c/b within 2 ulp).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ResidualNegMulAdd(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::NegMulAdd(a, b, c);
#else
  V lo;
  const V hi = TwoProd(d, a, b, lo);
  return hn::Sub(hn::Sub(c, hi), lo);
#endif
}

// hi + lo = a + b exactly, any order of magnitude (Knuth's TwoSum).
template <class V>
HWY_INLINE V TwoSum(V a, V b, V& lo) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  lo = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return s;
}

// hi + lo = a + b exactly, requires |a| >= |b| (or a = 0) (Dekker's Fast2Sum).
template <class V>
HWY_INLINE V FastTwoSum(V a, V b, V& lo) {
  const V s = hn::Add(a, b);
  lo = hn::Sub(b, hn::Sub(s, a));
  return s;
}

// The operations the shared polynomial evaluators (src/common/polynomial.inc) need, on vectors of D.
template <class D>
struct F64Ops {
  D d;
  HWY_INLINE hn::Vec<D> Set(double c) const { return hn::Set(d, c); }
  HWY_INLINE hn::Vec<D> Mul(hn::Vec<D> a, hn::Vec<D> b) const { return hn::Mul(a, b); }
  HWY_INLINE hn::Vec<D> MulAdd(hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> c) const { return hn::MulAdd(a, b, c); }
};

#include "src/common/polynomial.inc"

// Horner over c[kFirst..kLast] (lowest degree first) at x: common HornerSteps.
template <size_t kFirst, size_t kLast, size_t kN, class D, class V = hn::Vec<D>>
HWY_INLINE V Horner(D d, V x, const double (&c)[kN]) {
  static_assert(kFirst <= kLast && kLast < kN, "coefficient range");
  return HornerSteps<static_cast<int>(kFirst), static_cast<int>(kLast)>(F64Ops<D>{d}, x, Elements<double>{c});
}

// Polynomial c[0..kLast] at x: Estrin for c[kDd..kLast], then the last kDd Horner steps (the multiplications by x and
// the additions of c[kDd-1] .. c[0]) in double-double: returns hi, sets lo. Used where the partial sums exceed the
// result, so that ordinary Horner's final roundings would dominate the error.
template <size_t kDd, size_t kLast, bool kEstrin = true, size_t kN, class D, class V = hn::Vec<D>>
HWY_INLINE V HornerDd(D d, V x, const double (&c)[kN], V& lo) {
  V h;
  if constexpr (kEstrin) {
    // Estrin's scheme (common EstrinTree): the long polynomials here are latency-bound.
    static_assert(kDd <= kLast && kLast < kN && kLast - kDd < 32, "coefficient range");
    const F64Ops<D> o{d};
    V x2, x4, x8, x16;
    EstrinPowers<static_cast<int>(kLast)>(o, x, x2, x4, x8, x16);
    h = EstrinTree<static_cast<int>(kDd), static_cast<int>(kLast)>(o, Elements<double>{c}, x, x2, x4, x8, x16);
  } else {
    h = Horner<kDd, kLast>(d, x, c);
  }
  V l = hn::Zero(d);
  for (size_t j = kDd; j-- > 0;) {
    V pl;
    const V ph = TwoProd(d, x, h, pl);
    pl = hn::MulAdd(x, l, pl);
    V sl;
    h = TwoSum(hn::Set(d, c[j]), ph, sl);
    l = hn::Add(sl, pl);
  }
  lo = l;
  return h;
}

// ------------------------------------------------------------------------------------------------------
// exp(-(ahi + alo)) for 0 <= ahi <= kExpArgMax, |alo| <= 2^-40 ahi: returns m = mhi + mlo, a normalized double-double
// in [0.7, 1.42] (relative error ~2^-56 at |r| = ln(2)/2, ~2^-60 for |r| <= 0.1) and the scale 2^k as two factors s1 *
// s2 (k1 = floor(k/2), k2 = k - k1, both >= -578, so each factor is a normal double and y * s1 is exact for y ~ 1):
// exp(-a) = m * s1 * s2.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void ExpNeg(D d, V ahi, V alo, V& mhi, V& mlo, V& s1, V& s2) {
  const hn::RebindToSigned<D> di;
  using VI = hn::Vec<decltype(di)>;
  const V shifter = hn::Set(d, kRoundShifterF64);
  const V kd = hn::MulAdd(ahi, hn::Set(d, -common::kLog2e), shifter);
  const V k = hn::Sub(kd, shifter);  // k = round(-a / ln 2) <= 0, an exact integer
  // r = -a - k ln 2 = rhi + rlo; rhi exact (see kLn2HiF64), |rlo| <= 2^-32, rounded to ~2^-85.
  // -(k ln2) - a in one fnmsub: the bits of fma(k, -ln2, -a) without the two sign-bit xors.
  const V rhi = hn::NegMulSub(k, hn::Set(d, kLn2HiF64), ahi);
  const V rlo = hn::NegMulSub(k, hn::Set(d, kLn2LoF64), alo);
  const F64Ops<D> o{d};
  V r2, r4, r8, r16;  // rhi^2, r^4, r^8 (the degree-11 tree reads no r^16)
  EstrinPowers<kExpDegreeF64>(o, rhi, r2, r4, r8, r16);
  const V h = EstrinTree<0, kExpDegreeF64>(o, Constants<kExpH>{}, rhi, r2, r4, r8, r16);
  const V w = hn::Mul(r2, h);  // r^2 H(r) <= 0.066: its rounding is <= 2^-56.3 absolute
  // exp(rhi + rlo) = (1 + rhi + w)(1 + rlo) to rlo^2/2 < 2^-65; 1 + rhi split exactly (|rhi| < 1).
  V e1;
  const V m1 = FastTwoSum(hn::Set(d, 1.0), rhi, e1);
  // Normalize: mhi = RN(m), |mlo| <= ulp(m)/2 (m1 >= 0.7 > |w + ...| <= 0.07, so Fast2Sum applies).
  mhi = FastTwoSum(m1, hn::Add(e1, hn::MulAdd(rlo, hn::Add(m1, w), w)), mlo);
  const VI ki = hn::Sub(hn::BitCast(di, kd), hn::BitCast(di, shifter));  // k as int64
  const VI k1 = hn::ShiftRight<1>(ki);
  const VI k2 = hn::Sub(ki, k1);
  const VI bias = hn::Set(di, 1023);
  s1 = hn::BitCast(d, hn::ShiftLeft<52>(hn::Add(k1, bias)));
  s2 = hn::BitCast(d, hn::ShiftLeft<52>(hn::Add(k2, bias)));
}

template <class V>
HWY_INLINE V Scale(V y, V s1, V s2) {
  return hn::Mul(hn::Mul(y, s1), s2);  // first product exact, second rounds once (also when subnormal)
}

// A derivative before its last rounding: f' = (hi + lo) s, |lo| <= 0.3 |hi|, where ExpNeg's scale s1 s2 applies:
// hi and lo are already multiplied by s1 (exact: s1 ~ 2^(k/2) keeps them normal) and s = s2 (s = 1 where no scale
// applies). Backward folds grad_out in before rounding (BackwardTimes), so g f' is rounded once, not f' and then
// g f' (that double rounding reached ~2.5 ULP of g f'). Applying s1 before the paths' blends leaves three vectors
// to blend, not four. The three are separate values (the derivative paths return hi and set lo and s), not a
// struct: SVE's vectors are sizeless and cannot be struct members.
// g (hi + lo) s, rounded once (twice only where the result is subnormal: < 1 ulp there). g (hi + lo) cannot
// overflow for a finite g, as g (hi + lo) s1 s2 computed the other way round could. With FMA, g lo is rounded
// inside the addend (at most 0.3 of the result: ~0.15 ULP); without FMA, where g hi is split by Dekker's method
// and MulAdd rounds twice, hi + lo is normalized first (the non-FMA targets measured up to 1.70 ULP without it).
// For finite nonzero g; GeluF64Backward gives a non-finite g's lanes g hi s (g lo would be inf * 0 = NaN where
// lo = 0), and a zero g's the zero g (hi + lo) (the sum below adds two zeros of opposite signs to +0 where hi and lo
// differ in sign).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V BackwardTimes(D d, V g, V f_hi, V f_lo, V f_s) {
#if HWY_NATIVE_FMA
  (void)d;
  const V p = hn::MulAdd(g, f_hi, hn::Mul(g, f_lo));
  return hn::Mul(p, f_s);
#else
  // Dekker's split multiplies g by 2^27 + 1, which overflows for |g| near DBL_MAX (the product came out NaN for
  // |g| above about 2^997), and its error terms for a tiny g fall below the subnormal grid (each rounded there: up
  // to 1.8 ULP for products near 2^-1022): such g is scaled by 2^-64 or 2^64 first and s by the inverse (exact: s is
  // a power of two in [2^-578, 1]), so that the last multiplication rounds once.
  const V magnitude = hn::Abs(g);
  const auto huge = hn::Ge(magnitude, hn::Set(d, 0x1p960));
  const auto tiny = hn::Lt(magnitude, hn::Set(d, 0x1p-960));
  const V one = hn::Set(d, 1.0);
  const V gs = hn::Mul(g, hn::IfThenElse(huge, hn::Set(d, 0x1p-64), hn::IfThenElse(tiny, hn::Set(d, 0x1p64), one)));
  const V ss = hn::Mul(f_s, hn::IfThenElse(huge, hn::Set(d, 0x1p64), hn::IfThenElse(tiny, hn::Set(d, 0x1p-64), one)));
  V lo, pl;
  const V hi = FastTwoSum(f_hi, f_lo, lo);
  const V ph = TwoProd(d, gs, hi, pl);
  // Where g hi underflows to a zero (a tiny g), that zero has the product's sign, which adding the corrections'
  // +0 would lose (FMA's fma(g, hi, g lo) rounds the nonzero exact sum, keeping it).
  const V p = hn::IfThenElse(hn::Eq(ph, hn::Zero(d)), ph, hn::Add(ph, hn::MulAdd(gs, lo, pl)));
  return hn::Mul(p, ss);
#endif
}

// ------------------------------------------------------------------------------------------------------
// GeluF64<0, false>: exact GELU f(x) = x Phi(x) = (x/2) erfc(-x/sqrt 2), float64 -> float64.
//   Domain:     all float64. x > 40 returns x (Phi(x) = 1 in double well before); x < -40 returns -0 (f
//               underflows to -0 below x ~ -38.56; subnormal results below x ~ -37.62 are rounded once).
//   Max error:  1.16 ULP vs. MPFR (120 bits), ulp floor 2^-1074, 10^7-input sample incl. every binade, every
//               Highway target this CPU runs (AVX3, AVX2, SSE4, SSSE3, SCALAR), tests/f64/gelu_f64_test.cc.
//   Method:     t = |x|, Q(t) = Phi(-t) = exp(-t^2/2) S(t) (S = Q e^{t^2/2}, the Mills ratio over sqrt(2 pi));
//               f(-t) = -t Q(t), f(t) = t - t Q(t) with t Q(t) in dd, so both round once. S(t): t < 3, a
//               degree-24 polynomial in u = t - 3/2 (kCommonS, Estrin + 3 dd Horner steps); t >= 3, degree 22
//               in tau = 6/(6+t) (kMillsF64, Horner + 3 dd steps). The rounding of u (t < 3/4) and of tau
//               shifts t by a known dt, corrected as S(t) = S(t') + S'(t) dt, S' = t S - phi0.
//               exp(-t^2/2) from t^2 = t2h + t2l exactly (ExpNeg). Never 1 + erf: no cancellation for x < 0.
//   Derivation: scripts/fit/gelu_f64_common.sollya (2^-58.3), gelu_f64_mills.sollya (2^-60.6),
//               gelu_f64_exp.sollya (2^-67.6 absolute); fpminimax, double (and one double-double) coefficients.
//   Special:    f(+-0) = +-0, f(+inf) = +inf, f(-inf) = -0, NaN -> qNaN.
//
// ExactF64<true>: its derivative f'(x) = Phi(x) + x phi(x) unrounded, (hi + lo) s (GeluF64Backward: g f').
//   Domain:     all float64; f'(x) = 1 for x > 40; below x ~ -38.5 f' is below the smallest double, and for x <
//               -40 its clamped value is kept only where g f' rounds to 0 (|g| < 2^64; larger g: DeepTailTimes).
//   Max error:  g f' (random g, any binade) 1.21 ULP (AVX3, AVX2; 1.18 on SSE4, SSSE3, SCALAR, without FMA);
//               g = 1: 1.24 (1.26) ULP; as above, except where |f'(x)| < 2^-8 around the root x0 = -0.75179
//               (|x - x0| < 0.009): there 4.9e-19 |g| absolute.
//   Method:     f'(-t) = D(t) = exp(-t^2/2) (S(t) - phi0 t) (S - phi0 t in dd), f'(t) = 1 - D(t), except
//               -5/4 < x <= -1/2: D cancels to 0 at t0 = 0.7518, so D(t0 + d) = d (w1 + d W2(d)) with d, t0, w1
//               in dd (kRootW2). Near 0 the general path serves: D(t) is 1/2 .. 0.13 for t <= 1/2, S - phi0 t
//               (formed in dd) cancels by at most 2.3x there, and 1 - D is split exactly. So |x| < 1/2 needs no
//               path of its own (a polynomial there would cost every vector holding such a lane, nearly all on
//               N(0, 1), for no accuracy: docs/EXPERIMENTS.md).
//   Derivation: as above plus scripts/fit/gelu_f64_root.sollya (2^-58.0).
//   Special:    f'(+-0) = 1/2, f'(+inf) = 1, f'(-inf) = +0, NaN -> qNaN.

// S(tau) fitted for t in [1/2, 40] (used for t >= 3), tau = 6/(6+t) in [6/46, 12/13]; degree 22, lowest
// degree first. Derivation: scripts/fit/gelu_f64_mills.sollya (fpminimax, relative, double coefficients):
// relative approximation error 2^-60.64. Horner with the last three steps in dd: evaluation error
// <= 0.48 * 2^-53 relative for t >= 3 (simulated; Estrin would give 1.2, its high coefficients alternate).
inline constexpr int kMillsDegree = 22;
inline constexpr double kMillsP = 6.0;
inline constexpr double kMillsInvP = 1.0 / 6.0;  // only scales a correction term: its rounding is harmless
inline constexpr double kMillsF64[kMillsDegree + 1] = {
    -0x1.87cb2803f3fd5p-43, 0x1.1058377f2a339p-4,  0x1.10583758a84e1p-4,  0x1.08c78eb07849ap-4,
    0x1.f34bf89fc538fp-5,   0x1.c7302a197a6dp-5,   0x1.8f83883caa8a7p-5,  0x1.51babf8a0a92ep-5,
    0x1.06b8faf87ecabp-5,   0x1.da9366d957477p-6,  0x1.4bef5341e2c4ep-9,  0x1.dc5708eab6508p-5,
    -0x1.cdd666e0a649bp-4,  0x1.039a9193fc1e5p-2,  -0x1.b94745b1378ddp-2, 0x1.3645c127b50b1p-1,
    -0x1.5f056cbb8ca54p-1,  0x1.38c51aba25f5bp-1,  -0x1.ace4306968c3dp-2, 0x1.ae48c6dfefcaap-3,
    -0x1.24f75e7a273edp-4,  0x1.e0357b1a427ffp-7,  -0x1.64f9fa9fe4a9ep-10};
// Dt(t0 + d) = d (w1 + d W2(d)) for t in [1/2, 5/4], W2 of degree 15 (d^2 .. d^17), Horner, lowest first;
// t0 and w1 = Dt'(t0) as double-doubles. Derivation: scripts/fit/gelu_f64_root.sollya (fpminimax, relative,
// double coefficients): relative error of Dt 2^-58.0 (of the fitted remainder 2^-53.9).
// S(t) for t in [0, 3] as a polynomial in u = t - 3/2, degree 24, c0 a double-double; Estrin for degrees
// 3..24, the last three Horner steps in dd (the partial sums reach 4x S at u = 3/2; simulated evaluation
// error of this scheme <= 0.54 * 2^-53 relative, vs 1.3 * 2^-53 with one dd step). Derivation:
// scripts/fit/gelu_f64_common.sollya (fpminimax, relative, [DD, D...]): relative error 2^-58.3.
inline constexpr double kCommonMax = 3.0;
inline constexpr double kCommonCenter = 1.5;
inline constexpr int kCommonDegree = 24;
inline constexpr double kCommonS0Lo = -0x1.d0a18f0d5b57p-59;
inline constexpr double kCommonS[kCommonDegree + 1] = {
    0x1.a5705596892b7p-3,   -0x1.71c04c317211dp-4,  0x1.204038e2e73c1p-5,   -0x1.99805968b714fp-7,
    0x1.0d602eb745347p-8,   -0x1.4bf38a32025cfp-10, 0x1.826247b6b00f6p-12,  -0x1.ab8f478d7a558p-14,
    0x1.c41919c4f6ea1p-16,  -0x1.cab51884239b6p-18, 0x1.c021e708a2308p-20,  -0x1.a6c6656204b8cp-22,
    0x1.821f5ed4fe90dp-24,  -0x1.562051e43f23ap-26, 0x1.26a7ace433971p-28,  -0x1.ee32627001ef7p-31,
    0x1.940ca627d3ad6p-33,  -0x1.42039a46a7a0ep-35, 0x1.f679cab8f468ep-38,  -0x1.866207271cb4fp-40,
    0x1.240f7b6e66551p-42,  -0x1.7293afd926c47p-45, 0x1.09dc12044aac8p-47,  -0x1.4b04fc1a7c45bp-49,
    0x1.cd1b7c7dc1ba9p-52};

inline constexpr int kRootDegree = 15;
inline constexpr double kRootT0Hi = 0x1.80ead197f00b4p-1;
inline constexpr double kRootT0Lo = -0x1.13e74c58cada8p-56;
inline constexpr double kRootW1Hi = -0x1.b9d98fa5a3215p-2;
inline constexpr double kRootW1Lo = -0x1.f7c1a23190c7cp-56;
inline constexpr double kRootW2[kRootDegree + 1] = {
    0x1.8d9a941de3ac5p-2,   0x1.2a2ef9bb865a5p-6,  -0x1.d2fa4c17c7c56p-4, 0x1.e4088244f944cp-7,
    0x1.3e346def0d272p-6,   -0x1.297b9d6f4bf07p-8, -0x1.258a6d3f89f92p-9, 0x1.8680f54724feap-11,
    0x1.86c80bd333aep-13,   -0x1.695effd5e4fd7p-14, -0x1.781dea7718fbbp-17, 0x1.0322ec65bfe41p-17,
    0x1.d55457b8403b7p-22,  -0x1.e6812e74d467bp-22, -0x1.b85f64484392cp-23, 0x1.2eb855aa5ebb5p-23};

// Derivative paths: -5/4 < x <= -1/2 the root path, else the general one.
inline constexpr double kRootMin = 0.5;
inline constexpr double kRootMax = 1.25;
inline constexpr double kExactTMax = 40.0;  // t > 40: Q(t) = 0 in double (t Q(t) < 2^-1150)

// f'(-t) for t in [1/2, 5/4]: d (w1 + d W2(d)), d = t - t0 = dh + dl (t - t0hi exact by Sterbenz).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExactRoot(D d, V t, V& lo) {
  const V dh = hn::Sub(t, hn::Set(d, kRootT0Hi));
  const V dl = hn::Set(d, -kRootT0Lo);
  V w2l;
  const V w2h = HornerDd<1, kRootDegree>(d, dh, kRootW2, w2l);  // |d W2| reaches 0.9 |W| at t = 5/4
  V wdl;
  const V wdh = TwoProd(d, dh, w2h, wdl);
  const V wd = hn::Add(wdh, hn::MulAdd(dh, w2l, hn::Add(wdl, hn::Set(d, kRootW1Lo))));
  V wl;
  const V wh = TwoSum(hn::Set(d, kRootW1Hi), wd, wl);
  V pl;
  const V ph = TwoProd(d, dh, wh, pl);
  lo = hn::Add(pl, hn::MulAdd(dh, wl, hn::Mul(dl, wh)));
  return ph;
}

// S(t) = sh + sl for t in [0, 40] (tc, already clamped): the common-range polynomial in u = t - 3/2 where
// t < 3, the Mills-ratio polynomial in tau = 6/(6+t) elsewhere (each only if some lane needs it). Both
// arguments are rounded (u for t < 3/4, tau always); the rounding error, seen as a shift dt of t, is known
// exactly and corrected to first order with S'(t) = t S - phi0.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MillsS(D d, V tc, V& sl) {
  const auto common = hn::Lt(tc, hn::Set(d, kCommonMax));
  V sh = hn::Zero(d), dt = hn::Zero(d);
  sl = hn::Zero(d);
  if (!hn::AllFalse(d, common)) {
    V ul;
    const V uh = TwoSum(tc, hn::Set(d, -kCommonCenter), ul);  // u = t - 3/2 = uh + ul, ul = 0 for t >= 3/4
    V cl;
    sh = HornerDd<3, kCommonDegree>(d, uh, kCommonS, cl);
    sl = hn::Add(cl, hn::Set(d, kCommonS0Lo));
    dt = ul;
  }
  if (!hn::AllTrue(d, common)) {
    // tau = p / (p + t) with p + t = den_h + den_l exactly.
    const V p = hn::Set(d, kMillsP);
    const V den_h = hn::Add(p, tc);
    const V den_l = hn::Add(hn::Sub(hn::Max(p, tc), den_h), hn::Min(p, tc));
    const V tau = hn::Div(p, den_h);
    // tau = p/(p+t') exactly for t' = t - dt, dt = (tau den_l - (p - tau den_h)) / tau (exact residual;
    // 1/tau ~ den_h/p suffices for this tiny correction).
    const V rr = ResidualNegMulAdd(d, tau, den_h, p);
    const V dtt = hn::Mul(hn::MulSub(tau, den_l, rr), hn::Mul(den_h, hn::Set(d, kMillsInvP)));
    V tl;
    const V th = HornerDd<3, kMillsDegree, false>(d, tau, kMillsF64, tl);  // Horner: Estrin errs 1.2 ulp here
    sh = hn::IfThenElse(common, sh, th);
    sl = hn::IfThenElse(common, sl, tl);
    dt = hn::IfThenElse(common, dt, dtt);
  }
  sl = hn::MulAdd(hn::MulSub(tc, sh, hn::Set(d, kPhi0Hi)), dt, sl);  // S(t) = S(t') + S'(t) dt
  return sh;
}

// Exact form. kDerivative: f'(x), else f(x).
//   f(-t) = -t Q(t), f(t) = t - t Q(t), Q(t) = exp(-t^2/2) S(t), t Q(t) kept as a double-double until the end;
//   f'(-t) = D(t) = exp(-t^2/2) (S(t) - phi0 t), f'(t) = 1 - D(t); near the root of D (x in (-5/4, -1/2])
//   the derivative takes ExactRoot.
// Returns f(x), or f' as hi, with lo and s set (the derivative's (hi + lo) s; untouched for f).
template <bool kDerivative, class D, class V = hn::Vec<D>>
HWY_INLINE V ExactF64(D d, V x, V& lo, V& s) {
  const V t = hn::Abs(x);
  const auto negative = hn::Lt(x, hn::Zero(d));
  V root_hi = hn::Zero(d), root_lo = hn::Zero(d);
  auto root = hn::Lt(t, hn::Zero(d));  // lanes taking ExactRoot (derivative only)
  if constexpr (kDerivative) {
    root = hn::And(negative, hn::And(hn::Ge(t, hn::Set(d, kRootMin)), hn::Lt(t, hn::Set(d, kRootMax))));
    if (!hn::AllFalse(d, root)) root_hi = ExactRoot(d, t, root_lo);
    if (hn::AllTrue(d, root)) {
      lo = root_lo;
      s = hn::Set(d, 1.0);
      return root_hi;
    }
  }
  const V tc = hn::Min(t, hn::Set(d, kExactTMax));
  V sc;
  const V sh = MillsS(d, tc, sc);
  // exp(-t^2/2) = 2^k (mh + ml) with t^2 = t2h + t2l exactly.
  V t2l;
  const V t2h = TwoProd(d, tc, tc, t2l);
  const V halfv = hn::Set(d, 0.5);
  V mh, ml, s1, s2;
  ExpNeg(d, hn::Mul(t2h, halfv), hn::Mul(t2l, halfv), mh, ml, s1, s2);
  // y = (uh + ul) (mh + ml) in dd: u = t S (forward) or S - phi0 t (derivative).
  V uh, ul;
  if constexpr (!kDerivative) {
    uh = TwoProd(d, tc, sh, ul);
    ul = hn::MulAdd(tc, sc, ul);
  } else {
    V pl;
    const V ph = TwoProd(d, hn::Set(d, kPhi0Hi), tc, pl);  // phi0 t
    pl = hn::MulAdd(hn::Set(d, kPhi0Lo), tc, pl);
    uh = TwoSum(sh, hn::Neg(ph), ul);
    ul = hn::Add(ul, hn::Sub(sc, pl));
  }
  V yl;
  const V yh = TwoProd(d, uh, mh, yl);
  yl = hn::Add(yl, hn::MulAdd(uh, ml, hn::Mul(ul, mh)));
  if constexpr (!kDerivative) {
    (void)root_hi, (void)root_lo, (void)root, (void)lo, (void)s;
    // x < 0: -2^k (yh + yl), rounded once. x >= 0: x - 2^k yh - 2^k yl, where x - 2^k yh is exact
    // (Sterbenz: 2^k yh = t Q(t) <= t/2), so f(t) = t (1 - Q) is rounded once too.
    const V vh = Scale(yh, s1, s2);
    const V vl = Scale(yl, s1, s2);
    const V vneg = Scale(hn::Add(yh, yl), s1, s2);
    return hn::IfThenElse(negative, hn::Neg(vneg), hn::Sub(hn::Sub(x, vh), vl));
  } else {
    // x < 0: D(t) = 2^k (yh + yl). x >= 1/2: 1 - D(t), D(t) <= 0.14, as 1 - 2^k yh (exact split) - 2^k yl.
    const V vh = Scale(yh, s1, s2);
    V el;
    const V eh = FastTwoSum(hn::Set(d, 1.0), hn::Neg(vh), el);
    // x < 0: (yh s1 + yl s1) s2; x >= 1/2: (eh + el - 2^k yl) 1; the root lanes: ExactRoot's, unscaled.
    const V one = hn::Set(d, 1.0);
    const V general_hi = hn::IfThenElse(negative, hn::Mul(yh, s1), eh);
    const V general_lo = hn::IfThenElse(negative, hn::Mul(yl, s1), hn::Sub(el, Scale(yl, s1, s2)));
    const V general_s = hn::IfThenElse(negative, s2, one);
    lo = hn::IfThenElse(root, root_lo, general_lo);
    s = hn::IfThenElse(root, one, general_s);
    return hn::IfThenElse(root, root_hi, general_hi);
  }
}

// ------------------------------------------------------------------------------------------------------
// GeluF64<1, .>: tanh form f(x) = (x/2)(1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) = x sigma(z),
//   z = K (x + 0.044715 x^3), K = 2 sqrt(2/pi) (since (1 + tanh u)/2 = sigma(2u)); and its derivative.
// GeluF64<2, .>: sigmoid form f(x) = x sigma(z), z = 1.702 x; and its derivative.
//   Reference:  the formula with its constants as real numbers (1.702, 0.044715, sqrt(2/pi) exactly), in MPFR.
//   Domain:     all float64; |x| is clamped at 40 (tanh) / 500 (sigmoid) where f = x or -0 and f' = 1 or -0; the
//               derivatives' far tail (|z| > kExpArgMax) with |g| >= 2^64: DeepTailTimes.
//   Max error:  forward 0.77 ULP (both forms); g f' with random g (any binade) 1.62 ULP (tanh) and 1.49 ULP
//               (sigmoid) with FMA (1.53 / 1.40 on SSE4, SSSE3, SCALAR), g = 1: 1.57 / 1.41 (1.60 / 1.59); around the
//               derivatives' roots (x ~ -0.752, -0.751), where |f'| < 2^-8: 5.1e-19 |g| absolute. Same sample and
//               targets as the exact form.
//   Method:     z and zp = x z'(x) in dd (the constants as dd); e = exp(-|z|) = 2^k m (ExpNeg), then with one
//               division (1/(1+e)) and quotients corrected by their exact residuals:
//                 x >= 0:  f = x / (1 + e),          f' = s (1 + zp e s),      s = 1/(1+e),  zp >= 0;
//                 x <  0:  f = 2^k x m / (1 + e),    f' = y (1 + zp (1 - y)),  y = e/(1+e) = sigma(z).
//               The x < 0 derivative has a root (1 + zp (1 - y) = 0): 1 - y, zp (1 - y) and the sum are formed
//               in dd, so only the ~2^-60 relative error of m (|r| ~ 0.11 there) reaches it, times |zp| y ~ 0.3.
//   Derivation: scripts/fit/gelu_f64_exp.sollya.
//   Special:    f(+-0) = +-0, f(+inf) = +inf, f(-inf) = -0, f'(+-0) = 1/2, f'(+inf) = 1, f'(-inf) = +0,
//               NaN -> qNaN.

// z (and, for the derivative, zp = x z'(x)) in dd, for |x| <= the form's clamp.
template <bool kTanh, bool kDerivative, class D, class V = hn::Vec<D>>
HWY_INLINE void SigmoidArgs(D d, V x, V& zh, V& zl, V& zph, V& zpl) {
  if constexpr (!kTanh) {
    zh = TwoProd(d, hn::Set(d, kSigmoidCHi), x, zl);
    zl = hn::MulAdd(hn::Set(d, kSigmoidCLo), x, zl);
    zph = zh;
    zpl = zl;
  } else {
    V sl;
    const V sh = TwoProd(d, x, x, sl);
    const V kh = hn::Set(d, kTanhKHi), kl = hn::Set(d, kTanhKLo);
    // x (K + c s) in dd for c = Ka (z) and c = 3Ka (zp); both terms are positive.
    const auto mul = [&](double ch, double cl, V& outl) {
      V ml;
      const V mh = TwoProd(d, hn::Set(d, ch), sh, ml);
      ml = hn::MulAdd(hn::Set(d, ch), sl, hn::MulAdd(hn::Set(d, cl), sh, ml));
      const V wh = hn::Add(kh, mh);
      const V wl = hn::Add(hn::Add(hn::Sub(hn::Max(kh, mh), wh), hn::Min(kh, mh)), hn::Add(kl, ml));
      V ol;
      const V oh = TwoProd(d, x, wh, ol);
      outl = hn::MulAdd(x, wl, ol);
      return oh;
    };
    zh = mul(kTanhKaHi, kTanhKaLo, zl);
    if constexpr (kDerivative) {
      zph = mul(kTanhK3aHi, kTanhK3aLo, zpl);
    } else {
      zph = zh;
      zpl = zl;
    }
  }
}

// Returns f(x), or f' as hi, with lo and s set (the derivative's (hi + lo) s; untouched for f).
template <bool kTanh, bool kDerivative, class D, class V = hn::Vec<D>>
HWY_INLINE V SigmoidF64(D d, V x, V& lo, V& s) {
  // Beyond the clamp the results are saturated: e^-|z| x < 2^-1100 (x < 0); sigma = 1 in double (x > 0).
  const V lim = hn::Set(d, kTanh ? 40.0 : 500.0);
  const V xc = hn::Min(hn::Max(x, hn::Neg(lim)), lim);
  const auto negative = hn::Lt(x, hn::Zero(d));
  V zh, zl, zph, zpl;
  SigmoidArgs<kTanh, kDerivative>(d, xc, zh, zl, zph, zpl);
  // a = |z| in dd (z has the sign of x).
  const V ah = hn::Min(hn::Abs(zh), hn::Set(d, kExpArgMax));
  const V al = hn::IfThenElse(negative, hn::Neg(zl), zl);
  V mh, ml, s1, s2;
  ExpNeg(d, ah, al, mh, ml, s1, s2);
  const V one = hn::Set(d, 1.0);
  const V eh = Scale(mh, s1, s2);
  const V el = Scale(ml, s1, s2);
  V den_l;
  const V den_h = FastTwoSum(one, eh, den_l);
  den_l = hn::Add(den_l, el);
  const V inv = hn::Div(one, den_h);
  if constexpr (!kDerivative) {
    (void)lo, (void)s;
    // x >= 0: x / den.
    const V qp = hn::Mul(xc, inv);
    const V rp = ResidualNegMulAdd(d, qp, den_h, xc);
    const V fpos = hn::MulAdd(hn::NegMulAdd(qp, den_l, rp), inv, qp);
    // x < 0: 2^k x m / den.
    V nl;
    const V nh = TwoProd(d, xc, mh, nl);
    nl = hn::MulAdd(xc, ml, nl);
    const V qn = hn::Mul(nh, inv);
    const V rn = ResidualNegMulAdd(d, qn, den_h, nh);
    const V fneg = Scale(hn::MulAdd(hn::NegMulAdd(qn, den_l, hn::Add(rn, nl)), inv, qn), s1, s2);
    return hn::IfThenElse(negative, fneg, hn::IfThenElse(hn::Gt(x, lim), x, fpos));
  } else {
    // x >= 0: s = 1/den = inv + sl, f' = s + s v with v = zp e s (>= 0, <= 0.3: its rounding is diluted).
    const V sl = hn::Mul(hn::NegMulAdd(inv, den_l, ResidualNegMulAdd(d, inv, den_h, one)), inv);
    const V v = hn::Mul(hn::Mul(zph, eh), inv);
    // Left unnormalized, |fposl| <= 0.3 inv: BackwardTimes rounds g fposl inside its FMA's addend (~0.15 ULP at
    // most; a FastTwoSum here would add a dependent step for nothing), and normalizes where it has no FMA.
    const V fposh = inv, fposl = hn::MulAdd(inv, v, sl);
    // x < 0: y = 2^k ys, ys = m / den = qh + ql.
    const V qh = hn::Mul(mh, inv);
    const V rq = ResidualNegMulAdd(d, qh, den_h, mh);
    const V ql = hn::Mul(hn::NegMulAdd(qh, den_l, hn::Add(rq, ml)), inv);
    const V yh = Scale(qh, s1, s2);
    const V yl = Scale(ql, s1, s2);
    V oml;
    const V omh = FastTwoSum(one, hn::Neg(yh), oml);  // 1 - y, y <= 1/2
    oml = hn::Sub(oml, yl);
    V pl;
    const V ph = TwoProd(d, zph, omh, pl);  // zp (1 - y) <= 0
    pl = hn::Add(pl, hn::MulAdd(zph, oml, hn::Mul(zpl, omh)));
    V hl;
    const V hh = TwoSum(one, ph, hl);  // h = 1 + zp (1 - y): cancels near the root
    hl = hn::Add(hl, pl);
    V gl;
    const V gh = TwoProd(d, qh, hh, gl);
    // x < 0: (gh s1 + (gl + ...) s1) s2; x >= 0: (fposh + fposl) 1.
    lo = hn::IfThenElse(negative, hn::Mul(hn::Add(gl, hn::MulAdd(qh, hl, hn::Mul(ql, hh))), s1), fposl);
    s = hn::IfThenElse(negative, s2, hn::Set(d, 1.0));
    return hn::IfThenElse(negative, hn::Mul(gh, s1), fposh);
  }
}

// ------------------------------------------------------------------------------------------------------
// The derivatives' far negative tail, for a grad_out so large that g f'(x) is a double although f'(x) lies far
// below the smallest one (|f'| down to 2^-2100 matters for |g| up to 2^1024). The paths above clamp their exponent
// argument a (t^2/2, |z|) at kExpArgMax, where |f'| < 2^-1140: right for every |g| < 2^64, wrong beyond (x = -50,
// g = 2^1000 gave -6.3e-46 for -2.9e-241). GeluF64Backward sends the lanes with a > kExpArgMax here when their g
// could matter (rare: only |x g| >= 2^64 leaves its common path).
//   Method:     f'(-t) = -exp(-a) P with, t = |x|:
//                 exact form:     a = t^2/2 (t^2 exact), P = t phi0 (1 - R(t)/t), R the Mills ratio
//                                 Phi(-t)/phi(t), R/t = u (1 - u + 3u^2 - 15u^3 + 105u^4 - 945u^5 + 10395u^6),
//                                 u = 1/t^2 <= 2^-10.6 (t > 40): the asymptotic series, alternating, its error below
//                                 the first omitted term 135135 u^8 < 2^-67;
//                 tanh, sigmoid:  a = |z|, P = -(1 + zp) = |zp| - 1 (zp = x z'(x) <= -800 here): f' = y (1 + zp (1 -
//                                 y)) with y = e/(1 + e), e = exp(-a) < 2^-1154, so y and 1 - y are e and 1 to
//                                 2^-1154 relative.
//               exp(-a) = exp(-700) exp(-(a - 700)), the second by ExpNeg (a - 700 in (100, 785], its range, and
//               exact: a is a double below 2^11, so a multiple of 2^-42, and a - 700 lies below 2^10), the first
//               the constant M0 2^-1010 (mpmath, 300 bits).
//               P, the exponential and M0 multiply in dd as H, scaled by 2^-14 (exact) so that |H| < 1 and g H
//               cannot overflow; g H is rounded once (BackwardTimes), then scaled by 2^-996 (exact: where the result
//               can be nonzero, |g H| >= 2^65), by s1 and by s2 (both <= 2^-72 since ExpNeg's k <= -144, so a
//               rounding of the s1 product, subnormal, is scaled far below the last rounding's half ULP).
//               a is clamped at kDeepExpArgMax = 54.5^2/2 (x >= -54.5 exact, -30 tanh, -900 sigmoid: |zp| < 2^13),
//               where |f'| < 2^-2129, so |g f'| < 2^-1105 rounds to the zero of -g's sign, as it should.
//   Error:      relative ~2^-55 before the one rounding (ExpNeg 2^-56, the series 2^-62, dd products 2^-100).
//   Verified:   tests/f64/gelu_f64_test.cc (DeepTailLargeGradOut): MPFR's g f' on x in the deep tails of each
//               form, |g| in 2^30 .. 2^1023, every target.
inline constexpr double kDeepExactTMax = 54.5;
inline constexpr double kDeepExpArgMax = kDeepExactTMax * kDeepExactTMax / 2;  // 1485.125, exact
inline constexpr double kDeepExpOffset = 700.0;
static_assert(kDeepExpArgMax - kDeepExpOffset <= kExpArgMax && kExpArgMax - kDeepExpOffset >= 100.0,
              "ExpNeg's range, and its k <= -144 (s1, s2 <= 2^-72)");
inline constexpr double kExpMinus700Hi = 0x1.14f2b0fb9307fp+0;  // exp(-700) 2^1010 = M0 (mpmath, 300 bits)
inline constexpr double kExpMinus700Lo = 0x1.57961a567de7ap-57;
inline constexpr double kDeepTailXMin = 20.0;  // every deep lane has x < -kDeepTailXMin (tanh: t > 22.05)

// The float64 kernels' per-form code, one block per form: Eval, f (kDerivative false) or f' = (hi + lo) s (returns
// hi, sets lo and s) as GeluF64 and GeluF64Backward round them, and DeepArgs, the far tail's exponent argument a = ah + al and factor P = ph + pl
// (DeepTailTimes, below) with the lanes where the far tail applies.
template <common::Form kForm>
struct F64Form;
template <>
struct F64Form<common::kNone> {
  template <bool kDerivative, class D, class V>
  static HWY_INLINE V Eval(D d, V x, V& lo, V& s) {
    return ExactF64<kDerivative>(d, x, lo, s);
  }
  // a = t^2/2, P = t phi0 (1 - R/t) by the Mills ratio's series.
  template <class D, class V>
  static HWY_INLINE hn::Mask<D> DeepArgs(D d, V x, V& ah, V& al, V& ph, V& pl) {
    const V one = hn::Set(d, 1.0);
    const V t = hn::Min(hn::Neg(x), hn::Set(d, kDeepExactTMax));
    const auto lanes = hn::And(hn::IsFinite(x), hn::Lt(x, hn::Set(d, -kExactTMax)));
    V t2l;
    const V t2h = TwoProd(d, t, t, t2l);
    ah = hn::Mul(t2h, hn::Set(d, 0.5));
    al = hn::Mul(t2l, hn::Set(d, 0.5));
    const V u = hn::Div(one, t2h);
    static constexpr double kSeries[7] = {1.0, -1.0, 3.0, -15.0, 105.0, -945.0, 10395.0};
    const V v = hn::Mul(u, Horner<0, 6>(d, u, kSeries));  // R/t <= 2^-10.6
    V wl;
    const V wh = FastTwoSum(one, hn::Neg(v), wl);
    V tl;
    const V th = TwoProd(d, t, hn::Set(d, kPhi0Hi), tl);
    tl = hn::MulAdd(t, hn::Set(d, kPhi0Lo), tl);
    ph = TwoProd(d, th, wh, pl);
    pl = hn::Add(pl, hn::MulAdd(th, wl, hn::Mul(tl, wh)));
    return lanes;
  }
};
// tanh (kTanh) and sigmoid: a = |z|, P = |zp| - 1; x clamped at kXMin, where |zp| < 2^13.
template <bool kTanh, double kXMin>
struct F64SigmoidForm {
  template <bool kDerivative, class D, class V>
  static HWY_INLINE V Eval(D d, V x, V& lo, V& s) {
    return SigmoidF64<kTanh, kDerivative>(d, x, lo, s);
  }
  template <class D, class V>
  static HWY_INLINE hn::Mask<D> DeepArgs(D d, V x, V& ah, V& al, V& ph, V& pl) {
    const V one = hn::Set(d, 1.0);
    const V xc = hn::Max(x, hn::Set(d, kXMin));
    V zh, zl, zph, zpl;
    SigmoidArgs<kTanh, true>(d, xc, zh, zl, zph, zpl);  // z, zp < 0
    const auto lanes = hn::And(hn::IsFinite(x), hn::Lt(zh, hn::Set(d, -kExpArgMax)));
    ah = hn::Min(hn::Neg(zh), hn::Set(d, kDeepExpArgMax));
    al = hn::Neg(zl);
    ph = FastTwoSum(hn::Neg(zph), hn::Neg(one), pl);  // |zp| - 1
    pl = hn::Sub(pl, zpl);
    return lanes;
  }
};
template <>
struct F64Form<common::kTanh> : F64SigmoidForm<true, -30.0> {};
template <>
struct F64Form<common::kSigmoid> : F64SigmoidForm<false, -900.0> {};

// Returns g f'(x) where `lanes` (set: x < 0, finite, with a > kExpArgMax).
template <common::Form kForm, class D, class V = hn::Vec<D>>
HWY_NOINLINE V DeepTailTimes(D d, V g, V x, hn::Mask<D>& lanes) {
  V ah, al, ph, pl;  // a = ah + al; P = ph + pl
  lanes = F64Form<kForm>::DeepArgs(d, x, ah, al, ph, pl);
  V mh, ml, s1, s2;
  ExpNeg(d, hn::Sub(ah, hn::Set(d, kDeepExpOffset)), al, mh, ml, s1, s2);
  V el;  // P m
  const V eh = TwoProd(d, ph, mh, el);
  el = hn::Add(el, hn::MulAdd(ph, ml, hn::Mul(pl, mh)));
  V hl;  // P m M0
  const V hh = TwoProd(d, eh, hn::Set(d, kExpMinus700Hi), hl);
  hl = hn::Add(hl, hn::MulAdd(eh, hn::Set(d, kExpMinus700Lo), hn::Mul(el, hn::Set(d, kExpMinus700Hi))));
  // g f' = -g (hh + hl) 2^-14 2^-996 s1 s2
  const V scale = hn::Set(d, -0x1p-14);
  const V p = BackwardTimes(d, g, hn::Mul(hh, scale), hn::Mul(hl, scale), hn::Set(d, 1.0));
  return hn::Mul(hn::Mul(hn::Mul(p, hn::Set(d, 0x1p-996)), s1), s2);
}

// ------------------------------------------------------------------------------------------------------
// f(x) (kDerivative false) or f'(x) of form kForm (0 none, 1 tanh, 2 sigmoid), with the special values:
// NaN -> NaN (quiet), f(-inf) = -0, f'(-inf) = +0, f(+inf) = +inf, f'(+inf) = 1.
template <common::Form kForm, class D, class V = hn::Vec<D>>
HWY_INLINE V GeluF64(D d, V x) {
  V unused_lo, unused_s;
  V r = F64Form<kForm>::template Eval<false>(d, x, unused_lo, unused_s);
  r = hn::CopySign(r, x);  // f has the sign of x, zeros included (f(-0) = -0, f(-40) = -0)
  return hn::IfThenElse(hn::IsNaN(x), hn::Add(x, x), r);
}

// True where v is finite and not zero (subnormals included). AVX-512: one vfpclasspd, as IsFinite's.
template <class D, class V = hn::Vec<D>>
HWY_INLINE auto IsFiniteNonzero(D d, V v) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (hn::MaxLanes(D()) == 8) {
    (void)d;
    // fpclass categories QNaN 0x01, +0 0x02, -0 0x04, +inf 0x08, -inf 0x10, SNaN 0x80.
    return hn::Not(hn::Mask<D>{_mm512_fpclass_pd_mask(v.raw, 0x9F)});
  }
#endif
  return hn::And(hn::IsFinite(v), hn::Ne(v, hn::Zero(d)));
}

// g f'(x), rounded once (BackwardTimes); f'(-inf) = +0, f'(+inf) = 1, NaN x -> NaN; g = +-0 gives the zero of the
// sign IEEE gives g f'(x).
template <common::Form kForm, class D, class V = hn::Vec<D>>
HWY_INLINE V GeluF64Backward(D d, V g, V x) {
  V f_lo, f_s;
  V f_hi = F64Form<kForm>::template Eval<true>(d, x, f_lo, f_s);
  const V r = BackwardTimes(d, g, f_hi, f_lo, f_s);
  // Lanes with a non-finite x or g, a zero g, or a g large enough for the far tail (DeepTailTimes), rare: tested
  // once per vector so that the common path skips their fix-ups (about a tenth of this function's operations).
  // (x g) 2^960 is finite and nonzero where both are finite, g is nonzero, and x g neither underflows to 0 nor
  // reaches 2^64 (the product by 2^960 is exact, and overflows exactly there): two products and one test, one on
  // AVX-512 (a magnitude compare, three operations, is no faster: docs/EXPERIMENTS.md). The
  // fix-ups below give the other lanes r again (x = 0 too). A deep lane whose g f' can be nonzero has x < -20 and
  // |g| >= 2^64 (|f'| < 2^-1140 where a > kExpArgMax), so |x g| > 2^64.
  if (HWY_LIKELY(hn::AllTrue(d, IsFiniteNonzero(d, hn::Mul(hn::Mul(x, g), hn::Set(d, 0x1p960)))))) return r;
  const auto minus_inf = hn::Eq(x, hn::Set(d, -std::numeric_limits<double>::infinity()));
  f_hi = hn::IfThenZeroElse(minus_inf, f_hi);  // f'(-inf) = +0
  f_lo = hn::IfThenZeroElse(minus_inf, f_lo);
  V any_g = hn::IfThenElse(hn::IsFinite(g), BackwardTimes(d, g, f_hi, f_lo, f_s), hn::Mul(hn::Mul(g, f_hi), f_s));
  // g = +-0: g (hi + lo), whose sign is that of g f' (hi alone may differ next to the roots, where hi + lo cancels;
  // hi = lo = +0 at x = -inf).
  any_g = hn::IfThenElse(hn::Eq(g, hn::Zero(d)), hn::Mul(g, hn::Add(f_hi, f_lo)), any_g);
  // The far tail for a finite nonzero g (a zero g keeps the zero of -g's sign above, an infinite one g hi s).
  const auto finite_g = IsFiniteNonzero(d, g);
  if (!hn::AllFalse(d, hn::And(finite_g, hn::Lt(x, hn::Set(d, -kDeepTailXMin))))) {
    hn::Mask<D> deep_lanes;
    const V deep = DeepTailTimes<kForm>(d, g, x, deep_lanes);
    any_g = hn::IfThenElse(hn::And(finite_g, deep_lanes), deep, any_g);
  }
  return hn::IfThenElse(hn::IsNaN(x), hn::Add(x, x), any_g);
}

}  // namespace f64
}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_GELU_F64_INL_H_
