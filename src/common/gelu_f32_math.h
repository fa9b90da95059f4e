// SPDX-License-Identifier: Apache-2.0
// The float32 GELU math, written once against an operations policy `Ops` (one lane of scalar float on the host
// and in CUDA device code: ScalarOps below; a Highway vector in src/cpu/hwy_ops-inl.h). Every policy performs the
// same IEEE operations in the same order (FMA where this file says MulAdd), so the scalar path, every SIMD target
// with native FMA and the GPU return the same bits by construction (tests/gelu_f32_test.cc checks the scalar path
// against every target; tests/cuda checks the device against the host).
//
// ForwardF32(x, form), BackwardF32(grad_out, x, form): float32 -> float32.
//   Domain:     all float32.
//   Max error:  exact form <= 1 ULP of the true GELU; tanh and sigmoid forms <= 2 ULP of their own formula;
//               derivatives (times grad_out) <= 2 ULP, absolute 2^-24 where |f'| < 2^-8 near the root
//               (x in (-2, 0)). Proven over all 2^32 inputs on every SIMD target by tests/gelu_exhaustive_test.cc;
//               measured maxima in docs/exhaustive_maxima.md.
//   Method:     core range -4.125 <= x < 3.875 (99.99% of N(0,1) inputs), in float lanes: 32 intervals of width
//               1/4 centred on c = j/4; c = (x + 0x1.8p21) - 0x1.8p21 rounds x to the grid (exact, ties to even,
//               so |d| <= 1/8 for d = x - c, also exact), and the low 5 bits of the bits of x + 0x1.8p21 are
//               j mod 32, the table column. Per interval a degree-6 polynomial in d whose constant term is a
//               float pair (hi, lo) (src/common/core_tables.h, fitted by scripts/fit/core_intervals.sollya; worst
//               relative approximation error 2^-26.5). The forward tables fit f(x)/x where c >= -1/4 (near 0,
//               f(x) ~ x/2 keeps its relative accuracy) and f itself below; derivative tables fit f', their root
//               interval expanded about the float just above the root. The result is fma(u, head, u * tail), u = x,
//               1 or grad_out, head + tail the polynomial with |tail| a fraction of it, so the one full-size
//               rounding is the last; forwards round the linear term once with the tail (fma), derivatives add
//               it exactly (TwoProduct, Fast2Sum). Measured over all inputs: docs/exhaustive_maxima.md.
//               Tails (|x| >= 3.875 outside the core), in float lanes too (TailF32): with t = |x|,
//               f(-t) = -exp(-E(t)) A(t) and f'(-t) = -exp(-E(t)) B(t), E = t^2/2 or the sigmoid's argument z(t),
//               A and B smooth: degree-5 polynomials on 32 intervals spaced 8 to a binade (worst relative fit
//               2^-29, scripts/fit/tail_intervals.py), E as a float pair, exp(-E) = 2^-m 2^(-j/32) e^-r with a
//               float-pair table and a degree-4 Taylor e^-r, the product carried as hi + lo and rounded once, then
//               scaled exactly; f(t) = t + f(-t) and f'(t) = 1 - f'(-t) on the positive side. For NaN and
//               x <= -kTailZeroFrom<Function> (|f| < 2^-151, |f'| < 2^-279: -inf included) the result is selected:
//               x + x, -0, or grad_out times -0 (AboveTailZero, TailZeroOrNaN). Results below 2^-126 are rounded
//               once more from the tail's float value, in integer arithmetic (no subnormal operation). The
//               backward's lanes the tail cannot serve (t > kTailTMax, where a huge grad_out still gives a float;
//               |grad_out (h + s)| < 2^-62; an overflowing product): the proven double path of
//               src/common/gelu_scalar.h (DoublePathScalar), rounded once. From x >= kTailIdentityFrom<Function>
//               the result is x or grad_out (TailIdentity), returned without the tail. The sigmoid form's
//               lanes with |x| < kRingEnd = 11.875 outside the core (its "ring": 60% of U[-10, 10]) skip the tail
//               too: with t = |x|, f(-t) and f'(-t) from 32 more intervals of width 1/4 (4 <= c <= 11.75) in the
//               core's layout and method, degree 5 (RingF32; worst relative fit 2^-27.8), then f(t) = t + f(-t) and
//               f'(t) = 1 - f'(-t). The sigmoid's exponent is linear in t, so exp(-1.702 t) changes by e^0.43
//               at most across an interval and degree 5 fits; the exact and tanh forms' exponents steepen with
//               t (t^2 / 2, t^3) and would need far more intervals or degrees. The AVX2 and AVX-512 kernels run
//               the core on every vector in place (the ring too, where a vector has ring lanes: on AVX2 in the
//               same evaluation, CoreOrRingF32) and compact the tail lanes of each 1024-element block, running
//               them a vector at a time. Tiny x (|x| < kCoreTinyBelow = 2^-40, zeros and subnormals included):
//               the core evaluates them at +-2^-40, so that no operation has a subnormal operand, and the forward
//               returns x/2 rounded to nearest even (HalfOfTiny); the vector loops take that path only for blocks
//               that hold a tiny x.
//   Special:    GELU(+-0) = +-0, GELU(+inf) = +inf, GELU(-inf) = -0, NaN -> NaN; f'(-inf) = 0, f'(+inf) = 1.
#ifndef GELU_SRC_COMMON_GELU_F32_MATH_H_
#define GELU_SRC_COMMON_GELU_F32_MATH_H_

#include <cstdint>
#include <utility>  // std::integer_sequence

#include "src/common/bit_cast.h"  // GELU_HD, FloatToBits, BitsToFloat
#include "src/common/core_tables.h"
#include "src/common/f32_forms.h"  // F32Form: the per-form tables and constants
#include "src/common/gelu_scalar.h"  // DoublePathScalar (the tails)

namespace gelu::common {

// The rows of the table a lookup of the core, the ring or the tail reads: kind kCoreRowsKind the core table of
// (form, derivative), kRingRowsKind the sigmoid ring's table, kTailRowsKind the tail table, kTailExp2RowsKind the
// tail's 2^(-j/32) table (form and derivative unused). Lookups name tables this way, not by reference, so that a
// policy may read a layout of its own made from the same table at compile time (the AVX2 kernel:
// src/cpu/hwy_ops-inl.h). kCoreAndRingRowsKind: the core's and the sigmoid ring's tables at once (column + 32 for the
// ring), a layout only the AVX2 kernel builds (CoreOrRingF32).
enum TableKind { kCoreRowsKind, kRingRowsKind, kCoreAndRingRowsKind, kTailRowsKind, kTailExp2RowsKind };
template <int kKind, common::Form kForm, bool kDerivative>
GELU_HD constexpr const auto& TableRowsOf() {
  if constexpr (kKind == kCoreRowsKind) {
    return F32Form<kForm>::Core(kDerivative).row;
  } else if constexpr (kKind == kRingRowsKind) {
    static_assert(F32Form<kForm>::kHasRing, "a form with a ring");
    return F32Form<kForm>::Ring(kDerivative).row;
  } else if constexpr (kKind == kCoreAndRingRowsKind) {
    static_assert(kKind != kCoreAndRingRowsKind, "no single table: the policy that reads it builds its layout");
  } else if constexpr (kKind == kTailRowsKind) {
    return F32Form<kForm>::Tail(kDerivative).row;
  } else {
    return TailExp2Table().row;
  }
}

// The derivatives' root interval (core_intervals.sollya): the one column where f' is expanded about the float
// nearest its root rather than about the centre, the only column whose rows 8 (that offset) and 9 (the low part of
// a1) are nonzero. CoreF32 applies the two as constants where c is this interval's centre, instead of reading two
// more rows per lane: on AVX-512 two vpermt2ps and a subtract become a compare and two masked operations. Same
// bits as the rows: elsewhere d - 0 = d, and fma(d, 0, lo) = lo because lo is nonzero in every column (asserted).
template <common::Form kForm>
struct CoreRootInterval {
  // The host tables by name: constants only are read from them, so the device code may use the results (there
  // TableRowsOf picks the device copies and is not constexpr).
  static constexpr const auto& kRows = F32Form<kForm>::kHostCoreDerivative.row;
  static constexpr int FindColumn() {
    int found = -1;
    for (int j = 0; j < kCoreColumns; ++j) {
      if (kRows[1][j] == 0.0f) return -2;  // a zero lo would make fma(d, 0, lo) differ from lo in the sign of 0
      if (kRows[8][j] == 0.0f && kRows[9][j] == 0.0f) continue;
      if (found >= 0) return -2;
      found = j;
    }
    return found;
  }
  static constexpr int kColumn = FindColumn();
  static_assert(kColumn >= 0, "the derivative table has one root interval, and lo is nonzero in every column");
  // Column j holds the interval centred at c = round(4x) / 4 with round(4x) in [-16, 16) and j = round(4x) mod 32.
  static constexpr float kCentre = static_cast<float>(kColumn < kCoreColumns / 2 ? kColumn : kColumn - kCoreColumns) / 4;
  static constexpr float kOffset = kRows[8][kColumn];
  static constexpr float kA1Lo = kRows[9][kColumn];
  // Expanded about the float just above the root (core_intervals.sollya): the constant f'(rp), whole in lo (hi = 0),
  // is positive, so at d = 0 the head +0 has the sign of f' (SignedTimesHeadTail), and a1 > 0 (f' increases through
  // its root), so elsewhere head = d * a1 has the sign of d and of f'.
  static_assert(kRows[0][kColumn] == 0.0f && kRows[1][kColumn] > 0.0f && kRows[2][kColumn] > 0.0f,
                "the root interval: hi = 0, f'(rp) > 0, a1 > 0");
};

// The sigmoid ring's derivative table fits f'(-t) < 0 (t >= 3.875, beyond the root): every interval's constant hi is
// negative, and |tail| <= 0.22 |hi| (RingF32), so every value it gives is negative too. (The sigmoid form's table by
// name: a table read through F32Form is not a constant expression under nvcc, f32_forms.h; a second form with a
// ring needs its own check here.)
inline constexpr bool kRingNegativeDerivative = [] {
  for (int j = 0; j < kCoreColumns; ++j) {
    if (!(kRingSigmoidDerivative.row[0][j] < 0.0f)) return false;
  }
  return true;
}();

// Whether every form's kTailTMax, forward and derivative, lies below 64 (ScalarOps::TailColumn's premise).
template <int... kForms>
GELU_HD constexpr bool TailTMaxBelow64(std::integer_sequence<int, kForms...>) {
  return ((F32Form<static_cast<Form>(kForms)>::TailTMax(false) < 64.0f &&
           F32Form<static_cast<Form>(kForms)>::TailTMax(true) < 64.0f) &&
          ...);
}

// Tiny inputs, |x| < kCoreTinyBelow = 2^-40 (zero and subnormal x included). Run through the core as they are,
// d = x makes subnormal intermediates (d^2, q d^2 with q ~ a2 ~ 2^-25.5 at c = 0, the forward's x * tail, subnormal x
// itself), and a multiply or FMA with a subnormal operand costs a microcode assist on Intel cores (~150 cycles a
// vector; a subnormal result, an addition or a vrangeps costs nothing extra there: docs/EXPERIMENTS.md). So the core
// evaluates them at x = +-2^-40 instead (AwayFromTiny), where every intermediate is at least ~2^-106 (d^2 = 2^-80,
// q d^2 ~ 2^-105.5, u * tail ~ 2^-81, a1 d's rounding error a multiple of 2^-88; 2^-50 would be the least power of
// two that keeps q d^2 normal). For the derivative that gives the bits of x itself: f'(x) = 1/2 + O(x), so
// grad_out f'(x) rounds to grad_out / 2 for every |x| < 2^-25 except where grad_out / 2 is a tie on the subnormal
// grid, and there grad_out * tail (< 2^-160) rounds to zero in both evaluations (every tiny input compared with
// the evaluation at x, grad_out 1 and hashed: docs/EXPERIMENTS.md). The forward takes
// HalfOfTiny(x) = x / 2 rounded to nearest even: f(x) = x/2 (1 + ~0.8 x) and 0.8 |x| < 2^-40 is far below half an
// ULP, so this is the correctly rounded value except at ties, and bit for bit the core's own result at x there
// (fma(x, 1/2, x * tail), x * tail far below the result's ULP or rounded to zero).
inline constexpr float kCoreTinyBelow = 0x1p-40f;

// TailF32's e^-r - 1 = -r + r^2/2 - r^3/6 + r^4/24 (Taylor, truncation < 2^-39 for |r| <= ln2/64) = r P(r), the
// coefficients of P from the lowest degree up (HornerSteps).
inline constexpr float kTailExpTaylor[4] = {-1.0f, 0.5f, -1.0f / 6.0f, 1.0f / 24.0f};

// InCore, CoreF32, InRing, RingF32, TailF32: the per-lane math, compiled here for one lane and per Highway target in src/cpu/gelu-inl.h.
#include "src/common/gelu_f32_core.inc"

// One lane of float, for the host and CUDA device code: the generic operations (gelu_scalar.h) and the float
// core's and tail's table columns, lookups and powers of two.
struct ScalarOps : ScalarLaneOps<float> {
  GELU_HD static uint32_t Column(float shifted) { return FloatToBits(shifted) & 31u; }
  // x - c for shifted = x + kCoreShifter = kCoreShifter + c (CoreF32): exact.
  GELU_HD static float QuarterOffset(float x, float shifted) { return x - (shifted - kCoreShifter); }
  static constexpr bool kRowsWhereUsed = false;  // RowsAt loads the rows at once, through Rows
  // out[k] = the table's row k at column, k < N (the first N rows).
  template <int kKind, common::Form kForm, bool kDerivative, int N>
  GELU_HD static void Rows(uint32_t column, float (&out)[N]) {
    const auto& rows = TableRowsOf<kKind, kForm, kDerivative>();
    for (int k = 0; k < N; ++k) out[k] = rows[k][column];
  }
  // The tail table column of t in [3.875, kTailTMax<Form>] (TailF32 clamps t, NaN to kTailTMax):
  // (bits(t) >> 20) - kTailFirstColumnBits, at least 0 ([3.875, 4) gives -1); at most 31 (every kTailTMax < 64),
  // so no upper clamp.
  static_assert(TailTMaxBelow64(std::make_integer_sequence<int, kNumForms>{}),
                "TailColumn has no upper clamp: every kTailTMax must lie below 64, in column 31 or before");
  GELU_HD static uint32_t TailColumn(float t) {
    const int32_t k = static_cast<int32_t>(FloatToBits(t) >> 20) - kTailFirstColumnBits;
    return static_cast<uint32_t>(k < 0 ? 0 : k);
  }
  // 2^(64 - m) for kd = 0x1.8p23 + n, n = 32 m + j in [0, 2^13): the exponent field 127 + 64 - m.
  GELU_HD static float Pow2OfShifted(float kd) {
    const int32_t m = static_cast<int32_t>((FloatToBits(kd) - 0x4B400000u) >> 5);
    return BitsToFloat(static_cast<uint32_t>(191 - m) << 23);
  }
  // The float whose bit pattern is units rounded to an integer (ties to even), for 0 <= units <= 2^23: the
  // subnormal (or 2^-126) units * 2^-149 rounded once, made without a subnormal operation (TailF32). units + 2^23
  // lies in [2^23, 2^24], where the float spacing is 1, and the bits of 2^23 + k are those of 2^23 plus k.
  GELU_HD static float SubnormalFromUnits(float units) { return BitsToFloat(FloatToBits(units + 0x1p23f) - 0x4B000000u); }
  // r with the sign bit of a * b ORed into its own (CoreF32's derivative: the sign of a zero product).
  GELU_HD static float OrSignOfProduct(float r, float a, float b) {
    return BitsToFloat(FloatToBits(r) | ((FloatToBits(a) ^ FloatToBits(b)) & 0x80000000u));
  }
  // r with the sign bit of -a ORed into its own (OrSignOfProduct for a product known negative).
  GELU_HD static float OrSignOfNegated(float r, float a) { return BitsToFloat(FloatToBits(r) | (~FloatToBits(a) & 0x80000000u)); }
  // x with its magnitude raised to kCoreTinyBelow where it is below (the sign kept; NaN kept): the core's input.
  GELU_HD static float AwayFromTiny(float x) {
    return Abs(x) < kCoreTinyBelow ? BitsToFloat((FloatToBits(x) & 0x80000000u) | FloatToBits(kCoreTinyBelow)) : x;
  }
  // x / 2 rounded to nearest even, for |x| < kCoreTinyBelow, in integer arithmetic (no subnormal operation).
  // a = bits of |x|: from 2^-125 up the exponent field minus 1 (exact); below, a is |x| in units of 2^-149
  // (subnormals, and [2^-126, 2^-125) where the implicit bit is bit 23), halved with ties to even, which is the
  // result's pattern.
  GELU_HD static float HalfOfTiny(float x) {
    const uint32_t bits = FloatToBits(x), sign = bits & 0x80000000u, a = bits ^ sign, half = a >> 1;
    return BitsToFloat(sign | (a >= 0x01000000u ? a - 0x00800000u : half + (a & half & 1u)));
  }
};

// One float32 element: the core's lanes (InCore, most of any activation's), and OutsideCoreF32Forward / Backward
// for the rest (the identity range, the sigmoid form's ring, NaN and the far tail by selection, the float tail, and
// the double path where the tail leaves a lane). Apart, so that a kernel may keep the rare part out of line (the
// CUDA kernels call it __noinline__ from their unrolled loops: src/cuda/gelu_ops.h); composed as ForwardF32Form.
template <common::Form kForm>
GELU_HD float OutsideCoreF32Forward(float x) {
  const ScalarOps o;
  if (TailIdentity<kForm, false>(o, x)) return x;
  if constexpr (F32Form<kForm>::kHasRing) {
    if (InRing(o, x)) return RingF32<kForm, false>(o, x, 1.0f);
  }
  if (!AboveTailZero<kForm, false>(o, x)) return TailZeroOrNaN<false>(o, x, 1.0f);
  bool valid;
  const float tail = TailF32<kForm, false>(o, x, 1.0f, valid);
  return valid ? tail : ForwardF32ViaDoublePath(x, kForm);
}
template <common::Form kForm>
GELU_HD float OutsideCoreF32Backward(float grad_out, float x) {
  const ScalarOps o;
  if (TailIdentity<kForm, true>(o, x)) return grad_out;
  if constexpr (F32Form<kForm>::kHasRing) {
    if (InRing(o, x)) return RingF32<kForm, true>(o, x, grad_out);
  }
  if (!AboveTailZero<kForm, true>(o, x)) return TailZeroOrNaN<true>(o, x, grad_out);
  bool valid;
  const float tail = TailF32<kForm, true>(o, x, grad_out, valid);
  return valid ? tail : BackwardF32ViaDoublePath(grad_out, x, kForm);
}
// The core's lanes (x with InCoreF32(x)): f(x), and grad_out * f'(x).
GELU_HD bool InCoreF32(float x) { return InCore(ScalarOps{}, x); }
template <common::Form kForm>
GELU_HD float CoreF32Forward(float x) {
  const ScalarOps o;
  return IsTiny(o, x) ? o.HalfOfTiny(x) : CoreF32<kForm, false>(o, x, 1.0f);
}
template <common::Form kForm>
GELU_HD float CoreF32Backward(float grad_out, float x) {
  const ScalarOps o;
  return CoreF32<kForm, true>(o, o.AwayFromTiny(x), grad_out);
}
template <common::Form kForm>
GELU_HD float ForwardF32Form(float x) {
  return InCoreF32(x) ? CoreF32Forward<kForm>(x) : OutsideCoreF32Forward<kForm>(x);
}
template <common::Form kForm>
GELU_HD float BackwardF32Form(float grad_out, float x) {
  return InCoreF32(x) ? CoreF32Backward<kForm>(grad_out, x) : OutsideCoreF32Backward<kForm>(grad_out, x);
}
// form: a gelu_approximate value (common::Form).
GELU_HD float ForwardF32(float x, Form form) {
  return VisitForm(form, [&](auto k) { return ForwardF32Form<decltype(k)::value>(x); });
}
GELU_HD float BackwardF32(float grad_out, float x, Form form) {
  return VisitForm(form, [&](auto k) { return BackwardF32Form<decltype(k)::value>(grad_out, x); });
}

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_GELU_F32_MATH_H_
