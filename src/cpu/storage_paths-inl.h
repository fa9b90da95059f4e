// SPDX-License-Identifier: Apache-2.0
// The two paths by which the storage loops (src/cpu/storage_elementwise-inl.h, src/cpu/storage_fused-inl.h)
// evaluate GELU on a storage type (src/cpu/storage_types-inl.h), the formulas of the named variants (gelu_fast,
// gelu_10) next to the three forms, and the row-segment walk every matrix loop shares. Their entry points are
// declared in src/cpu/storage_kernels.h.
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

// Toggle guard, as Highway's skeleton-inl.h: this part is re-included once per target.
#if defined(GELU_SRC_CPU_STORAGE_PATHS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_STORAGE_PATHS_INL_H_
#undef GELU_SRC_CPU_STORAGE_PATHS_INL_H_
#else
#define GELU_SRC_CPU_STORAGE_PATHS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/cpu/gelu-inl.h"
#include "src/cpu/storage_kernels.h"  // the variants' constants
#include "src/cpu/storage_types-inl.h"

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
// with a lane that Io::NearMidpoint marks is redone by the double path (the *DoublePath loops of the elementwise and fused loops), so the
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

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_STORAGE_PATHS_INL_H_ toggle
