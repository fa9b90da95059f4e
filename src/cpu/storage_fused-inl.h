// SPDX-License-Identifier: Apache-2.0
// The fused loops over a storage type: bias + GELU (forward, and the backward's tiles with the bias gradient) and
// GEGLU (two operands, or the two halves of each row), by the float path or the double path
// (src/cpu/storage_paths-inl.h). Included once per target by src/cpu/gelu_fused.cc (foreach_target.h); entry
// points in src/cpu/storage_kernels.h.

// Toggle guard, as Highway's skeleton-inl.h: this part is re-included once per target.
#if defined(GELU_SRC_CPU_STORAGE_FUSED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GELU_SRC_CPU_STORAGE_FUSED_INL_H_
#undef GELU_SRC_CPU_STORAGE_FUSED_INL_H_
#else
#define GELU_SRC_CPU_STORAGE_FUSED_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "src/cpu/storage_paths-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

#endif  // GELU_SRC_CPU_STORAGE_FUSED_INL_H_ toggle
