// SPDX-License-Identifier: Apache-2.0
// Per-target loops over a storage type (float32, bf16, fp16): widening loads and once-rounding stores
// (RoundToHalfGrid), the formulas of the named variants (gelu_fast, gelu_10) next to the three forms, and the
// elementwise, bias + GELU and GEGLU loops. Included once per target by src/cpu/elementwise_storage.cc and
// src/cpu/gelu_fused.cc (foreach_target.h), and by tests/half/half_round_test.cc; their entry points are declared
// in src/cpu/storage_kernels.h.
//
// Inputs are float32 values: half inputs widen exactly to float, and the bias sum is rounded to float first. Two
// paths evaluate GELU on them:
// - the float path (the three forms, on the targets that run the float core: src/cpu/float_core_targets.h): the
//   float32 kernel (GeluF32Run, src/cpu/gelu-inl.h) on blocks of widened inputs; a float32 output is its result
//   (and, for GEGLU, a float product of it); a 16-bit output rounds the float result, except in the lanes within a
//   few float ULPs of a 16-bit rounding midpoint, which the double path redoes (Io::NearMidpoint), so 16-bit
//   results have the double path's bits;
// - the double path (the *DoublePath loops; every other target, and the variant formulas): DoublePath
//   (src/cpu/gelu-inl.h) in double lanes, with the error analysis of src/common/gelu_scalar.h (its double-side
//   relative error bound before the one final rounding).
// Each lane's result depends on its own inputs only (tails go through the same vector code via stack buffers:
// src/cpu/padding-inl.h), whatever the length, alignment, row layout or thread split.
//
// Narrowing a double result to half precision rounds it ONCE, to nearest even, straight to the target format
// (RoundToHalfGrid below), never through float; src/common/half.h explains why and holds the scalar twin
// (DoubleToBf16/DoubleToF16, integer arithmetic), against which tests/half/half_round_test.cc checks this
// code on every rounding boundary of both formats (and the float path's StoreF and NearMidpoint).

// Toggle guard, as Highway's skeleton-inl.h: this part is re-included once per target.
#if defined(GELU_SRC_CPU_STORAGE_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_STORAGE_LOOPS_INL_H_
#undef GELU_SRC_CPU_STORAGE_LOOPS_INL_H_
#else
#define GELU_SRC_CPU_STORAGE_LOOPS_INL_H_
#endif

#include <cmath>  // HUGE_VAL
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/common/half.h"
#include "src/cpu/gelu-inl.h"
#include "src/cpu/storage_kernels.h"  // the variants' constants

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f or f' of kFormula in double lanes holding float32 values (src/common/functions.h): the three forms go to
// DoublePath, the two variant formulas are defined here.
template <common::Formula kFormula, bool kDerivative, class D, class V = hn::Vec<D>>
HWY_INLINE V FormulaDoublePath(D d, V x) {
  if constexpr (common::IsForm(kFormula)) {
    return DoublePath<common::FormOf(kFormula), kDerivative>(HwyOps<D>{d}, x);
  } else if constexpr (kFormula == common::Formula::kGeluFast) {
    // As DoublePath's tanh branch, with gelu_fast's constant.
    const V x2 = hn::Mul(x, x);  // exact for float32 x
    const V z = hn::Mul(x, hn::MulAdd(hn::Set(d, cpu::kGeluFastZ3), x2, hn::Set(d, cpu::kGeluFastZ1)));
    const V dz = hn::MulAdd(hn::Set(d, 3.0 * cpu::kGeluFastZ3), x2, hn::Set(d, cpu::kGeluFastZ1));
    return SigmoidForm<kDerivative>(HwyOps<D>{d}, x, z, dz);
  } else {
    static_assert(kFormula == common::Formula::kGelu10);
    const V v = DoublePath<common::kNone, kDerivative>(HwyOps<D>{d}, x);
    const auto clipped = hn::Gt(x, hn::Set(d, cpu::kGelu10Max));  // false for NaN: NaN stays NaN
    if constexpr (!kDerivative) return hn::IfThenElse(clipped, hn::Set(d, cpu::kGelu10Max), v);
    return hn::IfThenZeroElse(clipped, v);
  }
}

// The forward value for a half-precision output: common::TinyForwardNudge, per lane (see src/common/half.h:
// for 0 < |x| < 2^-60 the double result x/2 may sit exactly on a half midpoint that the exact f(x) exceeds).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V TinyForwardNudge(D d, V x, V y) {
  const V ax = hn::Abs(x);
  const auto tiny = hn::And(hn::Lt(ax, hn::Set(d, common::kTinyForwardLimit)), hn::Gt(ax, hn::Zero(d)));
  return hn::IfThenElse(tiny, hn::MulAdd(ax, hn::Set(d, common::kTinyForwardNudge), hn::Mul(hn::Set(d, 0.5), x)),
                        y);
}

// f (kDerivative false) or f' of kFormula, with the half-precision fix above when kHalf.
template <common::Formula kFormula, bool kDerivative, bool kHalf, class D, class V = hn::Vec<D>>
HWY_INLINE V FormForOutput(D d, V x) {
  const V v = FormulaDoublePath<kFormula, kDerivative>(d, x);
  if constexpr (!kHalf) return v;
  if constexpr (kDerivative) return v;
  return TinyForwardNudge(d, x, v);
}

// ---------------------------------------------------------------------------------------------------------
// Storage types. Each has T (the element type), kHalf, and
//   LoadF(df, p):     Lanes(df) elements widened exactly to float32 lanes (df = Rebind<float, double tag>);
//   Store(dd, v, p):  double lanes rounded once to the storage type.

// Rounds double lanes to the grid of a binary format with precision kP and exponents [kEmin, kEmax], to
// nearest even, in one rounding: with q the quantum (ULP) of |v| in the target, 2^(max(e, kEmin) - kP + 1),
// and C = 1.5 * 2^52 * q, (|v| + C) - C is |v| rounded to a multiple of q by the double addition itself:
// |v| < 2^kP q <= 2^-40 C keeps |v| + C inside [2^52 q, 2^53 q), the binade whose ULP is exactly q, and the
// subtraction is exact. The exponent field of |v| gives 2^e directly (And with the exponent mask), clamped
// below at 2^kEmin (subnormal results share the smallest quantum; zero and double subnormals land there too)
// and above at 2^(kEmax+1) (anything that large overflows anyway; this also turns inf/NaN's all-ones exponent
// into a finite C, so inf stays inf and NaN stays NaN). The result is exactly representable in the target, or
// >= 2^(kEmax+1) (becomes inf when stored), or NaN; the sign is copied back afterwards, so -tiny rounds to -0.
// Exactness needs the default rounding mode (to nearest) and the double operations not reassociated
// (-ffp-contract=off, no -ffast-math).
template <int kP, int kEmin, int kEmax, class D, class V = hn::Vec<D>>
HWY_INLINE V RoundToHalfGrid(D d, V v) {
  const hn::RebindToUnsigned<D> du;
  const V av = hn::Abs(v);
  const V pow2 = hn::BitCast(d, hn::And(hn::BitCast(du, av), hn::Set(du, uint64_t{0x7ff0000000000000})));
  const V lo = hn::Set(d, common::BitsToDouble(static_cast<uint64_t>(kEmin + 1023) << 52));
  const V hi = hn::Set(d, common::BitsToDouble(static_cast<uint64_t>(kEmax + 1 + 1023) << 52));
  const V scale = hn::Set(d, common::BitsToDouble(static_cast<uint64_t>(52 - (kP - 1) + 1023) << 52) * 1.5);
  const V c = hn::Mul(hn::Min(hn::Max(pow2, lo), hi), scale);
  const V r = hn::Sub(hn::Add(av, c), c);
  return hn::CopySignToAbs(r, v);
}

// The float-core path (FloatCoreBlocks below) stores float32 results: Io::StoreF(df, v, p) rounds float lanes to
// the storage type, and Io::NearMidpoint(df, v) marks the lanes whose result the double path must redo: those
// within common::kMidpointMargin float32 ULPs of a rounding midpoint of the storage type (where the float result's
// error could decide the rounding; the margin's derivation is at its definition, src/common/half.h, with the
// scalar twins of these two functions, which the CUDA element functions run), and inf/NaN (their payloads and the
// overflow edge as the double path has them). A whole vector is redone when any of its lanes is near, which
// changes no bits of the others (each lane's double-path result is then the same rounding).
using common::kMidpointMargin;

struct IoF32 {
  using T = float;
  static constexpr bool kHalf = false;
  template <class DF>
  static HWY_INLINE hn::Mask<DF> NearMidpoint(DF df, hn::Vec<DF>) {
    return hn::FirstN(df, 0);  // stored as computed: the float core's bound is the result's
  }
  template <class DF>
  static HWY_INLINE void StoreF(DF df, hn::Vec<DF> v, T* p) {
    hn::StoreU(v, df, p);
  }
  template <class DF>
  static HWY_INLINE hn::Vec<DF> LoadF(DF df, const T* p) {
    return hn::LoadU(df, p);
  }
  template <class DD>
  static HWY_INLINE void Store(DD dd, hn::Vec<DD> v, T* p) {
    const hn::Rebind<float, DD> df;
    hn::StoreU(DemoteToF32(df, v), df, p);  // to nearest, overflow -> inf (src/cpu/hwy_ops-inl.h), as gelu_f32.cc
  }
};

struct IoBf16 {
  using T = uint16_t;
  static constexpr bool kHalf = true;
  // bf16 is the top half of a float32 (subnormals included): a result rounds by its low 16 bits, whose midpoint
  // is 0x8000. Inf and NaN (magnitude bits >= 0x7f800000) go to the double path.
  template <class DF>
  static HWY_INLINE hn::Mask<DF> NearMidpoint(DF df, hn::Vec<DF> v) {
    const hn::RebindToUnsigned<DF> du;
    const auto mag = hn::And(hn::BitCast(du, v), hn::Set(du, 0x7fffffffu));
    const auto from_low_edge = hn::Sub(hn::And(mag, hn::Set(du, 0xffffu)), hn::Set(du, 0x8000u - kMidpointMargin));
    const auto near = hn::Lt(from_low_edge, hn::Set(du, 2 * kMidpointMargin + 1));  // unsigned: below the edge wraps
    return hn::RebindMask(df, hn::Or(near, hn::Gt(mag, hn::Set(du, 0x7f7fffffu))));
  }
  // Round to nearest even on the bits (finite lanes; a carry into the exponent is the next binade, or inf).
  template <class DF>
  static HWY_INLINE void StoreF(DF df, hn::Vec<DF> v, T* p) {
    const hn::RebindToUnsigned<DF> du;
    const hn::RebindToSigned<DF> di;
    const hn::Rebind<uint16_t, DF> d16;
    const auto u = hn::BitCast(du, v);
    const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
    const auto bits = hn::ShiftRight<16>(hn::Add(u, hn::Add(odd, hn::Set(du, 0x7fffu))));
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, bits)), d16, p);
  }
  template <class DF>
  static HWY_INLINE hn::Vec<DF> LoadF(DF df, const T* p) {
    const hn::Rebind<uint16_t, DF> d16;
    const hn::Rebind<int32_t, DF> di;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(di, hn::LoadU(d16, p))));  // bf16 = top of float
  }
  template <class DD>
  static HWY_INLINE void Store(DD dd, hn::Vec<DD> v, T* p) {
    const hn::Rebind<float, DD> df;
    const hn::Rebind<uint32_t, DD> du;
    const hn::Rebind<int32_t, DD> di;
    const hn::Rebind<uint16_t, DD> d16;
    // Exact: the rounded value is a bf16 value (its float has 16 zero low bits) or >= 2^128 (float inf).
    const auto f = DemoteToF32(df, RoundToHalfGrid<8, -126, 127>(dd, v));
    const auto bits = hn::ShiftRight<16>(hn::BitCast(du, f));  // NaN: float's quiet bit 22 -> bf16 bit 6
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, bits)), d16, p);
  }
};

struct IoF16 {
  using T = uint16_t;
  static constexpr bool kHalf = true;
  // In float arithmetic, as RoundToHalfGrid: with P = 2^max(e, -14) (e the exponent of |v|), the fp16 quantum is
  // q = P 2^-10, c = 1.5 2^23 q rounds |v| to r, a multiple of q (|v| < 2 P = 2^11 q keeps |v| + c in the binade
  // of ULP q), and |v| - r (exact: both multiples of ULP(v), |v - r| <= q/2) is compared with the midpoint q/2.
  // The margin is kMidpointMargin ULPs of |v| (P_v 2^-23) for |v| >= 2^-100, and 2^-119 below: there |v| lies far
  // below fp16's first midpoint 2^-25 (the distance exceeds any margin) and P_v 2^-19 would be subnormal, a
  // microcode assist on x86 for every tiny result. Inf, NaN and |v| >= 2^113 give a NaN distance: not greater, so
  // near.
  template <class DF>
  static HWY_INLINE hn::Mask<DF> NearMidpoint(DF df, hn::Vec<DF> v) {
    const hn::RebindToUnsigned<DF> du;
    const auto av = hn::Abs(v);
    const auto pow2 = hn::BitCast(df, hn::And(hn::BitCast(du, av), hn::Set(du, 0x7f800000u)));
    const auto p = hn::Max(pow2, hn::Set(df, 0x1p-14f));
    const auto c = hn::Mul(p, hn::Set(df, 0x1.8p13f));
    const auto r = hn::Sub(hn::Add(av, c), c);
    const auto distance = hn::Sub(hn::Mul(p, hn::Set(df, 0x1p-11f)), hn::Abs(hn::Sub(av, r)));
    const auto margin =
        hn::Mul(hn::Max(pow2, hn::Set(df, 0x1p-100f)), hn::Set(df, static_cast<float>(kMidpointMargin) * 0x1p-23f));
    return hn::Not(hn::Gt(distance, margin));
  }
  // The hardware's conversion, to nearest even, overflow to inf, NaN kept (the float-core targets all have one:
  // x86 vcvtps2ph (F16C), Arm FCVTN (NEON) and FCVT (SVE); no other target takes the float path).
  template <class DF>
  static HWY_INLINE void StoreF(DF df, hn::Vec<DF> v, T* p) {
    static_assert(cpu::RunsFloatCore(HWY_TARGET) && sizeof(DF) > 0, "the float-core targets");
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || HWY_ARCH_ARM_A64
    const hn::Rebind<hwy::float16_t, DF> df16;
    hn::StoreU(hn::DemoteTo(df16, v), df16, reinterpret_cast<hwy::float16_t*>(p));
#else
    (void)df, (void)v, (void)p;
#endif
  }
  // binary16 -> float32 in integer lanes (as common::F16ToFloat): normal: exponent + 112; subnormal:
  // fraction * 2^-24 (int -> float conversion, exact, no float subnormal involved); inf/NaN: exponent 255.
  // On AVX2 and AVX-512 (F16C) the hardware conversions are used instead: vcvtph2ps is exact, and vcvtps2ph
  // (round to nearest) is exact on the already-rounded values, turns >= 2^16 into inf and keeps NaN payloads.
  // Highway 1.0.3's emulation for older targets does not handle inf/NaN, hence the integer code there.
  template <class DF>
  static HWY_INLINE hn::Vec<DF> LoadF(DF df, const T* p) {
#if HWY_TARGET <= HWY_AVX2
    const hn::Rebind<hwy::float16_t, DF> df16;
    return hn::PromoteTo(df, hn::LoadU(df16, reinterpret_cast<const hwy::float16_t*>(p)));
#endif
    const hn::Rebind<uint16_t, DF> d16;
    const hn::Rebind<int32_t, DF> di;
    const auto h = hn::PromoteTo(di, hn::LoadU(d16, p));  // zero-extended: 0..0xffff
    const auto mag = hn::And(h, hn::Set(di, 0x7fff));
    const auto sign = hn::ShiftLeft<16>(hn::Xor(h, mag));
    const auto normal = hn::Add(hn::ShiftLeft<13>(mag), hn::Set(di, 112 << 23));
    const auto sub = hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mag), hn::Set(df, 0x1p-24f)));
    const auto special = hn::Or(hn::ShiftLeft<13>(mag), hn::Set(di, 0x7f800000));
    auto bits = hn::IfThenElse(hn::Lt(mag, hn::Set(di, 0x400)), sub, normal);
    bits = hn::IfThenElse(hn::Gt(mag, hn::Set(di, 0x7bff)), special, bits);
    return hn::BitCast(df, hn::Or(bits, sign));
  }
  template <class DD>
  static HWY_INLINE void Store(DD dd, hn::Vec<DD> v, T* p) {
    const hn::Rebind<float, DD> df;
    const hn::Rebind<int32_t, DD> di;
    const hn::Rebind<uint16_t, DD> d16;
    // The rounded value is an fp16 value (exact in float), >= 2^16, or NaN.
    const auto f = DemoteToF32(df, RoundToHalfGrid<11, -14, 15>(dd, v));
#if HWY_TARGET <= HWY_AVX2
    const hn::Rebind<hwy::float16_t, DD> df16;
    hn::StoreU(hn::DemoteTo(df16, f), df16, reinterpret_cast<hwy::float16_t*>(p));
    return;
#endif
    const auto bits = hn::BitCast(di, f);
    const auto abits = hn::And(bits, hn::Set(di, 0x7fffffff));
    const auto af = hn::BitCast(df, abits);
    const auto sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(di, 0x8000));
    // Normal (|f| >= 2^-14, bits 0x38800000): rebias the exponent, drop 13 fraction bits that are zero.
    // This also maps 2^16 (bits 0x47800000) to 0x7c00, inf; larger values and inf are clamped to it.
    const auto normal = hn::Min(hn::Sub(hn::ShiftRight<13>(abits), hn::Set(di, 112 << 10)), hn::Set(di, 0x7c00));
    // Subnormal (|f| = m 2^-24, m < 1024): 0.5 + m 2^-24 is exact (ULP of float at 0.5 is 2^-24), its bits are
    // 0x3f000000 + m.
    const auto sub = hn::Sub(hn::BitCast(di, hn::Add(af, hn::Set(df, 0.5f))), hn::Set(di, 0x3f000000));
    auto h = hn::IfThenElse(hn::Lt(abits, hn::Set(di, 0x38800000)), sub, normal);
    // NaN -> quiet NaN keeping the top 10 payload bits, as common::DoubleToF16.
    const auto nan = hn::Or(hn::And(hn::ShiftRight<13>(abits), hn::Set(di, 0x3ff)), hn::Set(di, 0x7e00));
    h = hn::IfThenElse(hn::Gt(abits, hn::Set(di, 0x7f800000)), nan, h);
    hn::StoreU(hn::DemoteTo(d16, hn::Or(h, sign)), d16, p);
  }
};

// The one mapping from a runtime storage type (cpu::Io) to its Io type: f(IoF32{}), f(IoBf16{}) or f(IoF16{}).
// No default: -Werror=switch refuses a storage type without its case.
template <class F>
HWY_INLINE void VisitIo(int io, const F& f) {
  switch (static_cast<cpu::Io>(io)) {
    case cpu::kIoF32: return f(IoF32{});
    case cpu::kIoBf16: return f(IoBf16{});
    case cpu::kIoF16: return f(IoF16{});
  }
}
// The half types only (their lookup tables): io is kIoBf16 or kIoF16.
template <class F>
HWY_INLINE void VisitHalfIo(int io, const F& f) {
  if (io == cpu::kIoBf16) return f(IoBf16{});
  return f(IoF16{});
}

// Loads Lanes(dd) elements as double lanes (exact).
template <class Io, class DD>
HWY_INLINE hn::Vec<DD> LoadD(DD dd, const typename Io::T* p) {
  const hn::Rebind<float, DD> df;
  return hn::PromoteTo(dd, Io::LoadF(df, p));
}

// table[h] for the Lanes(dd) half-precision encodings h at p (the per-input tables of src/cpu/elementwise_storage.cc).
template <class DD>
HWY_INLINE hn::Vec<DD> GatherByBits(DD dd, const double* table, const uint16_t* p) {
  const hn::Rebind<uint16_t, DD> d16;
  const hn::Rebind<int32_t, DD> d32;
  const hn::Rebind<int64_t, DD> d64;
  return hn::GatherIndex(dd, table, hn::PromoteTo(d64, hn::PromoteTo(d32, hn::LoadU(d16, p))));
}

// ---------------------------------------------------------------------------------------------------------
// Matrix loops. Each walks a flat range [begin, end) of a rows x cols index space, row segment by row
// segment, so that gelu::parallel::ParallelFor can split any shape; operands are (pointer, row stride in
// elements), and a bias is an operand with row stride 0.
template <class Body>
HWY_INLINE void ForEachRowSegment(size_t cols, size_t begin, size_t end, const Body& body) {
  while (begin < end) {
    const size_t r = begin / cols, c = begin % cols;
    const size_t len = (cols - c < end - begin) ? cols - c : end - begin;
    body(r, c, len);
    begin += len;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The float-core path: on the targets that run the float core (src/cpu/float_core_targets.h), the three forms
// evaluate in float32 lanes, a block at a time: inputs widened into stack buffers (exact), GeluF32Run (the
// float32 kernel of src/cpu/gelu-inl.h, its bounds and special values), then stored through Io::StoreF; a vector
// with a lane that Io::NearMidpoint marks is redone by the double path (the *DoublePath loops below), so the
// 16-bit results are those of the double path, and the float32 results the float core's (docs/ACCURACY.md).
// Other targets, and the variant formulas, run the double path throughout.
template <common::Formula kFormula>
constexpr bool UsesFloatCore() {
  return cpu::RunsFloatCore(HWY_TARGET) && common::IsForm(kFormula);
}
inline constexpr size_t kFloatBlock = 256;  // elements per block (a multiple of every vector length)

// dst[0, count) = the count elements at p widened to float, then zeros to the next whole vector; returns that
// padded count.
template <class Io, class DF>
HWY_INLINE size_t WidenBlock(DF df, const typename Io::T* p, size_t count, float* dst) {
  constexpr size_t kMax = hn::MaxLanes(df);
  size_t padded = 0;
  ForEachVector(df, count, [&](size_t i, size_t n) HWY_ATTR {
    if (n == hn::Lanes(df)) {
      hn::Store(Io::LoadF(df, p + i), df, dst + i);
    } else {
      PaddedLanes<typename Io::T, kMax> b;
      hn::Store(Io::LoadF(df, b.From(p + i, n)), df, dst + i);
    }
    padded = i + hn::Lanes(df);
  });
  return padded;
}

// Stores yf[0, count) to p in the storage type; a vector with a lane near a midpoint (Io::NearMidpoint) or
// marked in `redo_also` (may be null) is instead handed to redo(i, n), which writes p[i, i + n) by the double path.
template <class Io, class DF, class Redo>
HWY_INLINE void StoreBlock(DF df, const float* yf, typename Io::T* p, size_t count, const Redo& redo) {
  constexpr size_t kMax = hn::MaxLanes(df);
  ForEachVector(df, count, [&](size_t i, size_t n) HWY_ATTR {
    const auto y = hn::Load(df, yf + i);
    if (HWY_UNLIKELY(!hn::AllFalse(df, Io::NearMidpoint(df, y)))) return redo(i, n);
    if (n == hn::Lanes(df)) return Io::StoreF(df, y, p + i);
    PaddedLanes<typename Io::T, kMax> b;
    Io::StoreF(df, y, b.lanes);
    b.To(p + i, n);
  });
}

// Runs body(r, c, len) over the row segments of the flat range [begin, end) (ForEachRowSegment), cut into
// pieces of at most kFloatBlock elements.
template <class Body>
HWY_INLINE void ForEachBlock(size_t cols, size_t begin, size_t end, const Body& body) {
  ForEachRowSegment(cols, begin, end, [&](size_t r, size_t c, size_t len) {
    for (size_t k = 0; k < len; k += kFloatBlock) body(r, c + k, HWY_MIN(kFloatBlock, len - k));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Elementwise: y = f(x) (kBackward false) or y = g * f'(x), in place allowed.
template <class Io, common::Formula kFormula, bool kBackward>
HWY_NOINLINE void ElementwiseDoublePath(const typename Io::T* g, const typename Io::T* x, typename Io::T* y, size_t n) {
  using T = typename Io::T;
  const hn::ScalableTag<double> dd;
  constexpr size_t kMax = hn::MaxLanes(dd);
  auto one = [&](const T* gp, const T* xp, T* yp) HWY_ATTR {
    auto v = FormForOutput<kFormula, kBackward, Io::kHalf>(dd, LoadD<Io>(dd, xp));
    if constexpr (kBackward) v = hn::Mul(LoadD<Io>(dd, gp), v);
    Io::Store(dd, v, yp);
  };
  ForEachVector(dd, n, [&](size_t i, size_t count) HWY_ATTR {
    if (count == hn::Lanes(dd)) return one(kBackward ? g + i : nullptr, x + i, y + i);
    PaddedLanes<T, kMax> xb, gb, yb;
    one(kBackward ? gb.From(g + i, count) : nullptr, xb.From(x + i, count), yb.lanes);
    yb.To(y + i, count);
  });
}

template <class Io, common::Formula kFormula, bool kBackward>
HWY_NOINLINE void ElementwiseLoop(const typename Io::T* g, const typename Io::T* x, typename Io::T* y, size_t n) {
  if constexpr (!UsesFloatCore<kFormula>()) {
    ElementwiseDoublePath<Io, kFormula, kBackward>(g, x, y, n);
  } else {
    const hn::ScalableTag<float> df;
    HWY_ALIGN float xf[kFloatBlock], gf[kBackward ? kFloatBlock : 1], yf[kFloatBlock];
    for (size_t start = 0; start < n; start += kFloatBlock) {
      const size_t count = HWY_MIN(kFloatBlock, n - start);
      const size_t padded = WidenBlock<Io>(df, x + start, count, xf);
      if constexpr (kBackward) WidenBlock<Io>(df, g + start, count, gf);
      GeluF32Run<common::FormOf(kFormula), kBackward>(gf, xf, yf, padded);
      // In place: a vector's inputs are read (widened, or by the redo) before its outputs are written.
      StoreBlock<Io>(df, yf, y + start, count, [&](size_t i, size_t m) HWY_ATTR {
        ElementwiseDoublePath<Io, kFormula, kBackward>(kBackward ? g + start + i : nullptr, x + start + i,
                                                       y + start + i, m);
      });
    }
  }
}

// h = fl32(x + bias) in float lanes (one rounding, as the float32 addition of an unfused `x + bias`), widened.
template <class Io, class DD>
HWY_INLINE hn::Vec<DD> BiasSum(DD dd, const typename Io::T* xp, const typename Io::T* bp) {
  const hn::Rebind<float, DD> df;
  return hn::PromoteTo(dd, hn::Add(Io::LoadF(df, xp), Io::LoadF(df, bp)));
}

// Bias + GELU forward: y[r][c] = f(fl32(x[r][c] + bias[c])) over the flat range [begin, end).
template <class Io, common::Formula kFormula>
HWY_NOINLINE void BiasForwardDoublePath(const typename Io::T* x, const typename Io::T* bias, typename Io::T* y,
                                  size_t cols, size_t begin, size_t end) {
  using T = typename Io::T;
  const hn::ScalableTag<double> dd;
  constexpr size_t kMax = hn::MaxLanes(dd);
  auto one = [&](const T* xp, const T* bp, T* yp) HWY_ATTR {
    Io::Store(dd, FormForOutput<kFormula, false, Io::kHalf>(dd, BiasSum<Io>(dd, xp, bp)), yp);
  };
  ForEachRowSegment(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
    const T* xr = x + r * cols + c;
    const T* br = bias + c;
    T* yr = y + r * cols + c;
    ForEachVector(dd, len, [&](size_t i, size_t count) HWY_ATTR {
      if (count == hn::Lanes(dd)) return one(xr + i, br + i, yr + i);
      PaddedLanes<T, kMax> xb, bb, yb;
      one(xb.From(xr + i, count), bb.From(br + i, count), yb.lanes);
      yb.To(yr + i, count);
    });
  });
}

// h = fl32(x + bias) for a block of count elements into hf (padded with zeros to whole vectors), one pass; returns
// the padded count.
template <class Io, class DF>
HWY_INLINE size_t BiasSumBlock(DF df, const typename Io::T* x, const typename Io::T* bias, size_t count, float* hf) {
  constexpr size_t kMax = hn::MaxLanes(df);
  size_t padded = 0;
  ForEachVector(df, count, [&](size_t i, size_t n) HWY_ATTR {
    if (n == hn::Lanes(df)) {
      hn::Store(hn::Add(Io::LoadF(df, x + i), Io::LoadF(df, bias + i)), df, hf + i);
    } else {
      PaddedLanes<typename Io::T, kMax> xb, bb;
      hn::Store(hn::Add(Io::LoadF(df, xb.From(x + i, n)), Io::LoadF(df, bb.From(bias + i, n))), df, hf + i);
    }
    padded = i + hn::Lanes(df);
  });
  return padded;
}

template <class Io, common::Formula kFormula>
HWY_NOINLINE void BiasForwardLoop(const typename Io::T* x, const typename Io::T* bias, typename Io::T* y,
                                  size_t cols, size_t begin, size_t end) {
  if constexpr (!UsesFloatCore<kFormula>()) {
    BiasForwardDoublePath<Io, kFormula>(x, bias, y, cols, begin, end);
  } else {
    const hn::ScalableTag<float> df;
    HWY_ALIGN float hf[kFloatBlock], yf[kFloatBlock];
    ForEachBlock(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
      const size_t padded = BiasSumBlock<Io>(df, x + r * cols + c, bias + c, len, hf);
      GeluF32Run<common::FormOf(kFormula), false>(nullptr, hf, yf, padded);
      StoreBlock<Io>(df, yf, y + r * cols + c, len, [&](size_t i, size_t m) HWY_ATTR {
        BiasForwardDoublePath<Io, kFormula>(x, bias, y, cols, r * cols + c + i, r * cols + c + i + m);
      });
    });
  }
}

// Bias + GELU backward over rows [r0, r1) and columns [c0, c1): grad_x[r][c] = g[r][c] * f'(h[r][c]), and
// sums[c - c0] = sum over r = r0, r0+1, ..., r1-1 (in that order, in double) of the unrounded products.
// `sums` is overwritten (starts from +0). The fixed order makes the caller's total independent of threads.
template <class Io, common::Formula kFormula>
HWY_NOINLINE void BiasBackwardTileDoublePath(const typename Io::T* g, const typename Io::T* x, const typename Io::T* bias,
                                   typename Io::T* gx, size_t cols, size_t r0, size_t r1, size_t c0, size_t c1,
                                   double* sums) {
  using T = typename Io::T;
  const hn::ScalableTag<double> dd;
  constexpr size_t kMax = hn::MaxLanes(dd);
  for (size_t c = c0; c < c1; ++c) sums[c - c0] = 0.0;
  auto one = [&](const T* gp, const T* xp, const T* bp, T* yp, double* sp) HWY_ATTR {
    const auto h = BiasSum<Io>(dd, xp, bp);
    const auto v = hn::Mul(LoadD<Io>(dd, gp), FormForOutput<kFormula, true, Io::kHalf>(dd, h));
    Io::Store(dd, v, yp);
    hn::StoreU(hn::Add(hn::LoadU(dd, sp), v), dd, sp);
  };
  for (size_t r = r0; r < r1; ++r) {
    const size_t base = r * cols + c0;
    ForEachVector(dd, c1 - c0, [&](size_t i, size_t count) HWY_ATTR {
      if (count == hn::Lanes(dd)) return one(g + base + i, x + base + i, bias + c0 + i, gx + base + i, sums + i);
      PaddedLanes<T, kMax> gb, xb, bb, yb;
      PaddedLanes<double, kMax> sb;  // the running sums: read and written
      sb.From(sums + i, count);
      one(gb.From(g + base + i, count), xb.From(x + base + i, count), bb.From(bias + c0 + i, count), yb.lanes,
          sb.lanes);
      yb.To(gx + base + i, count);
      sb.To(sums + i, count);
    });
  }
}

// The float-core path of BiasBackwardTile: the products grad_out * f'(h) are the float32 kernel's (within its
// 2-ULP bound), summed in double in the same order; a 16-bit grad_x near a midpoint is redone by the double path
// (grad_x only: the sums take the float products, so that no lane's sum depends on its neighbours).
template <class Io, common::Formula kFormula>
HWY_NOINLINE void BiasBackwardTile(const typename Io::T* g, const typename Io::T* x, const typename Io::T* bias,
                                   typename Io::T* gx, size_t cols, size_t r0, size_t r1, size_t c0, size_t c1,
                                   double* sums) {
  if constexpr (!UsesFloatCore<kFormula>()) {
    BiasBackwardTileDoublePath<Io, kFormula>(g, x, bias, gx, cols, r0, r1, c0, c1, sums);
  } else {
    using T = typename Io::T;
    const hn::ScalableTag<float> df;
    const hn::ScalableTag<double> dd;
    const hn::Rebind<float, decltype(dd)> dh;
    constexpr size_t kMax = hn::MaxLanes(dd);
    HWY_ALIGN float hf[kFloatBlock], gf[kFloatBlock], yf[kFloatBlock];
    for (size_t c = c0; c < c1; ++c) sums[c - c0] = 0.0;
    for (size_t r = r0; r < r1; ++r) {
      for (size_t k = c0; k < c1; k += kFloatBlock) {
        const size_t len = HWY_MIN(kFloatBlock, c1 - k);
        const size_t base = r * cols + k;
        const size_t padded = BiasSumBlock<Io>(df, x + base, bias + k, len, hf);
        WidenBlock<Io>(df, g + base, len, gf);
        GeluF32Run<common::FormOf(kFormula), true>(gf, hf, yf, padded);
        double* s = sums + (k - c0);
        for (size_t i = 0; i + hn::Lanes(dd) <= len; i += hn::Lanes(dd)) {
          hn::StoreU(hn::Add(hn::LoadU(dd, s + i), hn::PromoteTo(dd, hn::Load(dh, yf + i))), dd, s + i);
        }
        for (size_t i = len - len % hn::Lanes(dd); i < len; ++i) s[i] += static_cast<double>(yf[i]);
        StoreBlock<Io>(df, yf, gx + base, len, [&](size_t i, size_t m) HWY_ATTR {
          ForEachVector(dd, m, [&](size_t j, size_t count) HWY_ATTR {
            PaddedLanes<T, kMax> gb, xb, bb, yb;
            const auto h = BiasSum<Io>(dd, xb.From(x + base + i + j, count), bb.From(bias + k + i + j, count));
            const auto v = hn::Mul(LoadD<Io>(dd, gb.From(g + base + i + j, count)),
                                   FormForOutput<kFormula, true, Io::kHalf>(dd, h));
            Io::Store(dd, v, yb.lanes);
            yb.To(gx + base + i + j, count);
          });
        });
      }
    }
  }
}

// GEGLU forward: y[r][c] = f(a[r][c]) * b[r][c], the product formed in double and rounded once. For half types,
// ftab (may be null) holds f in double for every encoding, as computed here: then f(a) is gathered, not computed.
template <class Io, common::Formula kFormula, bool kTable>
HWY_NOINLINE void GegluForwardImpl(const typename Io::T* a, size_t lda, const typename Io::T* b, size_t ldb,
                                   typename Io::T* y, size_t ldy, size_t cols, size_t begin, size_t end,
                                   const double* ftab) {
  using T = typename Io::T;
  const hn::ScalableTag<double> dd;
  constexpr size_t kMax = hn::MaxLanes(dd);
  auto one = [&](const T* ap, const T* bp, T* yp) HWY_ATTR {
    hn::Vec<decltype(dd)> fa;
    if constexpr (kTable) {
      fa = GatherByBits(dd, ftab, ap);
    } else {
      fa = FormForOutput<kFormula, false, Io::kHalf>(dd, LoadD<Io>(dd, ap));
    }
    Io::Store(dd, hn::Mul(fa, LoadD<Io>(dd, bp)), yp);
  };
  ForEachRowSegment(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
    const T* ar = a + r * lda + c;
    const T* br = b + r * ldb + c;
    T* yr = y + r * ldy + c;
    ForEachVector(dd, len, [&](size_t i, size_t count) HWY_ATTR {
      if (count == hn::Lanes(dd)) return one(ar + i, br + i, yr + i);
      PaddedLanes<T, kMax> ab, bb, yb;
      one(ab.From(ar + i, count), bb.From(br + i, count), yb.lanes);
      yb.To(yr + i, count);
    });
  });
}

// The float-core path of GEGLU's forward: y = fl32(f(a) * b) from the float32 kernel's f(a): within the core's
// bound plus half a ULP (float32; docs/ACCURACY.md); 16-bit results near a midpoint are redone by the double path.
template <class Io, common::Formula kFormula>
HWY_NOINLINE void GegluForwardFloatCore(const typename Io::T* a, size_t lda, const typename Io::T* b, size_t ldb,
                                        typename Io::T* y, size_t ldy, size_t cols, size_t begin, size_t end) {
  const hn::ScalableTag<float> df;
  HWY_ALIGN float af[kFloatBlock], bf[kFloatBlock], yf[kFloatBlock];
  ForEachBlock(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
    const size_t padded = WidenBlock<Io>(df, a + r * lda + c, len, af);
    WidenBlock<Io>(df, b + r * ldb + c, len, bf);
    GeluF32Run<common::FormOf(kFormula), false>(nullptr, af, yf, padded);
    for (size_t i = 0; i < padded; i += hn::Lanes(df)) {
      hn::Store(hn::Mul(hn::Load(df, yf + i), hn::Load(df, bf + i)), df, yf + i);
    }
    StoreBlock<Io>(df, yf, y + r * ldy + c, len, [&](size_t i, size_t m) HWY_ATTR {
      GegluForwardImpl<Io, kFormula, false>(a, lda, b, ldb, y, ldy, cols, r * cols + c + i, r * cols + c + i + m,
                                            nullptr);
    });
  });
}

template <class Io, common::Formula kFormula>
HWY_INLINE void GegluForwardLoop(const typename Io::T* a, size_t lda, const typename Io::T* b, size_t ldb,
                                 typename Io::T* y, size_t ldy, size_t cols, size_t begin, size_t end,
                                 const double* ftab) {
  if constexpr (Io::kHalf) {
    if (ftab != nullptr) return GegluForwardImpl<Io, kFormula, true>(a, lda, b, ldb, y, ldy, cols, begin, end, ftab);
  }
  if constexpr (UsesFloatCore<kFormula>()) {
    GegluForwardFloatCore<Io, kFormula>(a, lda, b, ldb, y, ldy, cols, begin, end);
  } else {
    GegluForwardImpl<Io, kFormula, false>(a, lda, b, ldb, y, ldy, cols, begin, end, nullptr);
  }
}

// GEGLU backward: grad_a = (g * b) * f'(a), grad_b = g * f(a); g * b is exact in double (two float
// significands), each result rounded once. Every input of a vector is loaded before either output is stored,
// so an output may alias any input exactly.
// ftab, dtab (may be null): f and f' in double for every half encoding, as in GegluForwardLoop.
template <class Io, common::Formula kFormula, bool kTable>
HWY_NOINLINE void GegluBackwardImpl(const typename Io::T* g, size_t ldg, const typename Io::T* a, size_t lda,
                                    const typename Io::T* b, size_t ldb, typename Io::T* ga, size_t ldga,
                                    typename Io::T* gb, size_t ldgb, size_t cols, size_t begin, size_t end,
                                    const double* ftab, const double* dtab) {
  using T = typename Io::T;
  const hn::ScalableTag<double> dd;
  constexpr size_t kMax = hn::MaxLanes(dd);
  auto one = [&](const T* gp, const T* ap, const T* bp, T* gap, T* gbp) HWY_ATTR {
    const auto gd = LoadD<Io>(dd, gp);
    const auto bd = LoadD<Io>(dd, bp);
    hn::Vec<decltype(dd)> fa, da;
    if constexpr (kTable) {
      fa = GatherByBits(dd, ftab, ap);
      da = GatherByBits(dd, dtab, ap);
    } else {
      const auto ad = LoadD<Io>(dd, ap);
      fa = FormForOutput<kFormula, false, Io::kHalf>(dd, ad);
      da = FormForOutput<kFormula, true, Io::kHalf>(dd, ad);
    }
    Io::Store(dd, hn::Mul(hn::Mul(gd, bd), da), gap);
    Io::Store(dd, hn::Mul(gd, fa), gbp);
  };
  ForEachRowSegment(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
    const T* gr = g + r * ldg + c;
    const T* ar = a + r * lda + c;
    const T* br = b + r * ldb + c;
    T* gar = ga + r * ldga + c;
    T* gbr = gb + r * ldgb + c;
    ForEachVector(dd, len, [&](size_t i, size_t count) HWY_ATTR {
      if (count == hn::Lanes(dd)) return one(gr + i, ar + i, br + i, gar + i, gbr + i);
      PaddedLanes<T, kMax> gbuf, abuf, bbuf, o1, o2;
      one(gbuf.From(gr + i, count), abuf.From(ar + i, count), bbuf.From(br + i, count), o1.lanes, o2.lanes);
      o1.To(gar + i, count);
      o2.To(gbr + i, count);
    });
  });
}

// The float-core path of GEGLU's backward: m = fl32(grad_out * b) (exact for 16-bit inputs: 16 or 22 significant
// bits), grad_a = the float32 kernel's m * f'(a) (its 2-ULP bound, plus m's half ULP for float32), grad_b =
// fl32(grad_out * f(a)). A vector is redone by the double path where m overflows (m * f' may still be finite) or
// a 16-bit result is near a midpoint.
template <class Io, common::Formula kFormula>
HWY_NOINLINE void GegluBackwardFloatCore(const typename Io::T* g, size_t ldg, const typename Io::T* a, size_t lda,
                                         const typename Io::T* b, size_t ldb, typename Io::T* ga, size_t ldga,
                                         typename Io::T* gb, size_t ldgb, size_t cols, size_t begin, size_t end) {
  using T = typename Io::T;
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  constexpr size_t kMax = hn::MaxLanes(df);
  HWY_ALIGN float af[kFloatBlock], gf[kFloatBlock], mf[kFloatBlock], gaf[kFloatBlock], faf[kFloatBlock];
  ForEachBlock(cols, begin, end, [&](size_t r, size_t c, size_t len) HWY_ATTR {
    const size_t padded = WidenBlock<Io>(df, a + r * lda + c, len, af);
    WidenBlock<Io>(df, g + r * ldg + c, len, gf);
    WidenBlock<Io>(df, b + r * ldb + c, len, mf);
    for (size_t i = 0; i < padded; i += hn::Lanes(df)) {
      hn::Store(hn::Mul(hn::Load(df, gf + i), hn::Load(df, mf + i)), df, mf + i);
    }
    GeluF32Run<common::FormOf(kFormula), true>(mf, af, gaf, padded);
    GeluF32Run<common::FormOf(kFormula), false>(nullptr, af, faf, padded);
    ForEachVector(df, len, [&](size_t i, size_t n) HWY_ATTR {
      const auto m = hn::Load(df, mf + i);
      const auto grad_a = hn::Load(df, gaf + i);
      const auto grad_b = hn::Mul(hn::Load(df, gf + i), hn::Load(df, faf + i));
      const auto m_overflow = hn::RebindMask(
          df, hn::Gt(hn::And(hn::BitCast(du, m), hn::Set(du, 0x7fffffffu)), hn::Set(du, 0x7f7fffffu)));
      const auto redo = hn::Or(m_overflow, hn::Or(Io::NearMidpoint(df, grad_a), Io::NearMidpoint(df, grad_b)));
      T* gap = ga + r * ldga + c + i;
      T* gbp = gb + r * ldgb + c + i;
      if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) {
        // The double path's results in the marked lanes only: a float32 lane's bits must not depend on whether a
        // neighbour's multiplier overflowed (16-bit lanes not marked have the same bits either way).
        PaddedLanes<T, kMax> double_a, double_b, float_a, float_b;
        GegluBackwardImpl<Io, kFormula, false>(g + r * ldg + c + i, 0, a + r * lda + c + i, 0, b + r * ldb + c + i, 0,
                                               double_a.lanes, 0, double_b.lanes, 0, n, 0, n, nullptr, nullptr);
        HWY_ALIGN float marked[kMax];
        hn::Store(hn::IfThenElseZero(redo, hn::Set(df, 1.0f)), df, marked);
        Io::StoreF(df, grad_a, float_a.lanes);
        Io::StoreF(df, grad_b, float_b.lanes);
        for (size_t k = 0; k < n; ++k) {
          gap[k] = marked[k] != 0.0f ? double_a.lanes[k] : float_a.lanes[k];
          gbp[k] = marked[k] != 0.0f ? double_b.lanes[k] : float_b.lanes[k];
        }
        return;
      }
      if (n == hn::Lanes(df)) {
        Io::StoreF(df, grad_a, gap);
        return Io::StoreF(df, grad_b, gbp);
      }
      PaddedLanes<T, kMax> o1, o2;
      Io::StoreF(df, grad_a, o1.lanes);
      Io::StoreF(df, grad_b, o2.lanes);
      o1.To(gap, n);
      o2.To(gbp, n);
    });
  });
}

template <class Io, common::Formula kFormula>
HWY_INLINE void GegluBackwardLoop(const typename Io::T* g, size_t ldg, const typename Io::T* a, size_t lda,
                                  const typename Io::T* b, size_t ldb, typename Io::T* ga, size_t ldga,
                                  typename Io::T* gb, size_t ldgb, size_t cols, size_t begin, size_t end,
                                  const double* ftab, const double* dtab) {
  if constexpr (Io::kHalf) {
    if (ftab != nullptr && dtab != nullptr) {
      return GegluBackwardImpl<Io, kFormula, true>(g, ldg, a, lda, b, ldb, ga, ldga, gb, ldgb, cols, begin, end, ftab,
                                                dtab);
    }
  }
  if constexpr (UsesFloatCore<kFormula>()) {
    GegluBackwardFloatCore<Io, kFormula>(g, ldg, a, lda, b, ldb, ga, ldga, gb, ldgb, cols, begin, end);
  } else {
    GegluBackwardImpl<Io, kFormula, false>(g, ldg, a, lda, b, ldb, ga, ldga, gb, ldgb, cols, begin, end, nullptr,
                                           nullptr);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_STORAGE_LOOPS_INL_H_ toggle
