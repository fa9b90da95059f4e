// SPDX-License-Identifier: Apache-2.0
// The elementwise loops over a storage type: y = f(x) or y = g * f'(x), by the float path or the double path
// (src/cpu/storage_paths-inl.h), and the 16-bit forward's lookup in its rounded table. Included once per target by
// src/cpu/elementwise_storage.cc (foreach_target.h), whose lookup tables for the 16-bit types are built from them,
// and by tests/half/half_round_test.cc; entry points in src/cpu/storage_kernels.h.

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

// y[i] = table[x[i]], the rounded table of a half type (gelu_forward_bf16 / _f16; built and used by
// src/cpu/elementwise_storage.cc). Four lookups, then their four
// stores: a store before the next element's load made the plain loop stall where y and x lie a multiple of 4 KiB
// apart (as two arrays of 64 Ki elements from malloc do), at half the rate. With `gather` on AVX-512: a gather of
// 16 32-bit words at byte offsets 2 x[i], whose low halves are the entries (the table has an entry of slack past
// 65,535: kRoundedTableEntries), narrowed by vpmovdw; faster than the four lookups on some CPUs, slower on others
// (cpu::ForwardLookupGathers times both). The same bits either way. AVX2's vpgatherdd of 8 was no faster than the
// scalar loop (docs/EXPERIMENTS.md, "16-bit lookups").
HWY_INLINE void LookupForwardLoop(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n, bool gather) {
  size_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if (gather) {
    for (; i + 16 <= n; i += 16) {
      const __m512i offsets = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
      const __m512i words = _mm512_i32gather_epi32(offsets, table, 2);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm512_cvtepi32_epi16(words));
    }
  }
#else
  (void)gather;
#endif
  for (; i + 4 <= n; i += 4) {
    const uint16_t a = table[x[i]], b = table[x[i + 1]], c = table[x[i + 2]], d = table[x[i + 3]];
    y[i] = a;
    y[i + 1] = b;
    y[i + 2] = c;
    y[i + 3] = d;
  }
  for (; i < n; ++i) y[i] = table[x[i]];
}
// Whether LookupForwardLoop has a gather to choose on this target.
inline constexpr bool kLookupForwardCanGather = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3;

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#endif  // GELU_SRC_CPU_STORAGE_ELEMENTWISE_INL_H_ toggle
