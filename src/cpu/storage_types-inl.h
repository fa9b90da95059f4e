// SPDX-License-Identifier: Apache-2.0
// The storage types of the per-target storage loops (float32, bf16, fp16): widening loads and once-rounding
// stores, the float path's 16-bit rounding test, the one mapping from a runtime storage type to its Io type, and
// the 16-bit table gather. Included (through src/cpu/storage_paths-inl.h) by the storage loops, and by
// tests/half/half_round_test.cc.
//
// Narrowing a double result to half precision rounds it ONCE, to nearest even, straight to the target format
// (RoundToHalfGrid below), never through float; src/common/half.h explains why and holds the scalar twin
// (DoubleToBf16/DoubleToF16, integer arithmetic), against which tests/half/half_round_test.cc checks this
// code on every rounding boundary of both formats (and the float path's StoreF and NearMidpoint).

// Toggle guard, as Highway's skeleton-inl.h: this part is re-included once per target.
#if defined(GELU_SRC_CPU_STORAGE_TYPES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_STORAGE_TYPES_INL_H_
#undef GELU_SRC_CPU_STORAGE_TYPES_INL_H_
#else
#define GELU_SRC_CPU_STORAGE_TYPES_INL_H_
#endif

#include <cmath>  // HUGE_VAL
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/common/half.h"
#include "src/cpu/float_core_targets.h"
#include "src/cpu/hwy_ops-inl.h"       // DemoteToF32
#include "src/common/functions.h"  // common::Type

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

// The float path (WidenBlock, StoreBlock: src/cpu/storage_paths-inl.h) stores float32 results: Io::StoreF(df, v, p) rounds float lanes to
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

// The one mapping from a runtime storage type (common::Type) to its Io type: f(IoF32{}), f(IoBf16{}) or f(IoF16{}).
// No default: -Werror=switch refuses a storage type without its case. float64 has no storage loops (its kernels
// are src/cpu/gelu_f64.cc): a caller that passes it stops here.
template <class F>
HWY_INLINE void VisitIo(common::Type io, const F& f) {
  switch (io) {
    case common::kF32: return f(IoF32{});
    case common::kBf16: return f(IoBf16{});
    case common::kF16: return f(IoF16{});
    case common::kF64: break;
  }
  HWY_ABORT("VisitIo: storage type %d has no storage loops", static_cast<int>(io));
}
// The half types only (their lookup tables): io is common::kBf16 or common::kF16; float32 and float64 have no
// table, and a caller that passes one stops here rather than running another type's loop.
template <class F>
HWY_INLINE void VisitHalfIo(common::Type io, const F& f) {
  switch (io) {
    case common::kBf16: return f(IoBf16{});
    case common::kF16: return f(IoF16{});
    case common::kF32:
    case common::kF64: break;
  }
  HWY_ABORT("VisitHalfIo: storage type %d is not a 16-bit type", static_cast<int>(io));
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

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_STORAGE_TYPES_INL_H_ toggle
