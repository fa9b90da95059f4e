// SPDX-License-Identifier: Apache-2.0
// The elementwise loops over a storage type: y = f(x) or y = g * f'(x), by the float path or the double path
// (src/cpu/storage_paths-inl.h). Included once per target by src/cpu/elementwise_storage.cc (foreach_target.h),
// whose lookup tables for the 16-bit types are built from them; entry points in src/cpu/storage_kernels.h.

// Toggle guard, as Highway's skeleton-inl.h: this part is re-included once per target.
#if defined(GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_
#undef GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_
#else
#define GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/cpu/storage_paths-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_ toggle
