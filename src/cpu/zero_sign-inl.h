// SPDX-License-Identifier: Apache-2.0
// Per-target (Highway): the sign of a zero product g (hi + lo), for the backward kernels of both precisions
// (src/cpu/gelu-inl.h's HwyOps, src/cpu/gelu_f64-inl.h). The scalar path's versions are
// common::ScalarOps::OrSignOfProduct and OrSignOfNegated (src/common/gelu_f32_math.h).

// Toggle guard, as Highway's skeleton-inl.h: this header is re-included once per target.
#if defined(GELU_SRC_CPU_ZERO_SIGN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_ZERO_SIGN_INL_H_
#undef GELU_SRC_CPU_ZERO_SIGN_INL_H_
#else
#define GELU_SRC_CPU_ZERO_SIGN_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

// r with the sign bit of a * b ORed into its own. For r = fma(g, hi, g * lo) rounded, |lo| < |hi| (so hi has the
// sign of hi + lo): with g = +-0 the fma adds two zeros of opposite signs to +0 wherever hi and lo differ in sign,
// and OrSignOfProduct(r, g, hi) gives the zero IEEE gives g (hi + lo); every other r already has that sign and is
// unchanged. AVX-512: two vpternlogd (or a vpternlogd and a vorps); AVX2: three bitwise operations.
template <class D, class V = hwy::HWY_NAMESPACE::Vec<D>>
HWY_INLINE V OrSignOfProduct(D d, V r, V a, V b) {
  namespace hn = hwy::HWY_NAMESPACE;
  return hn::Or(r, hn::And(hn::Xor(a, b), hn::SignBit(d)));
}

// r with the sign bit of -a ORed into its own: OrSignOfProduct(r, a, b) for a b known negative (the sigmoid ring's
// derivative, f'(-t) < 0), one vpternlogd on AVX-512, two operations on AVX2.
template <class D, class V = hwy::HWY_NAMESPACE::Vec<D>>
HWY_INLINE V OrSignOfNegated(D d, V r, V a) {
  namespace hn = hwy::HWY_NAMESPACE;
  return hn::Or(r, hn::AndNot(a, hn::SignBit(d)));
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_ZERO_SIGN_INL_H_ toggle
