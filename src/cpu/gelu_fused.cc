// SPDX-License-Identifier: Apache-2.0
// Fused bias + GELU and GEGLU, float32 / bf16 / fp16, forward and backward: per-target kernels (loops in
// src/cpu/storage_fused-inl.h) and their C entry points (argument checks, threads).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#include "src/cpu/storage_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/cpu/gelu_fused.cc"  // this file, relative to the repo root
#include "hwy/foreach_target.h"                       // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/cpu/storage_fused-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gelu {
namespace HWY_NAMESPACE {

// Calls f(Io{}, k) for the storage type `io` and the form `form` (k: common::FormConstant, src/common/functions.h).
template <class F>
HWY_INLINE void WithIoForm(common::Type io, common::Form form, const F& f) {
  VisitIo(io, [&](auto io_tag) HWY_ATTR {
    common::VisitForm(form, [&](auto k) HWY_ATTR { f(io_tag, k); });
  });
}

void BiasForwardKernel(common::Type io, common::Form form, const void* x, const void* bias, void* y, size_t cols,
                       size_t begin, size_t end) {
  WithIoForm(io, form, [&](auto io_tag, auto k) HWY_ATTR {
    using Io = decltype(io_tag);
    using T = typename Io::T;
    BiasForwardLoop<Io, common::FormulaOf(decltype(k)::value)>(static_cast<const T*>(x), static_cast<const T*>(bias),
                                            static_cast<T*>(y), cols, begin, end);
  });
}

void BiasBackwardTileKernel(common::Type io, common::Form form, const void* g, const void* x, const void* bias,
                            void* gx, size_t cols, size_t r0, size_t r1, size_t c0, size_t c1, double* sums) {
  WithIoForm(io, form, [&](auto io_tag, auto k) HWY_ATTR {
    using Io = decltype(io_tag);
    using T = typename Io::T;
    BiasBackwardTile<Io, common::FormulaOf(decltype(k)::value)>(static_cast<const T*>(g), static_cast<const T*>(x),
                                             static_cast<const T*>(bias), static_cast<T*>(gx), cols, r0, r1, c0, c1,
                                             sums);
  });
}

void GegluForwardKernel(common::Type io, common::Form form, const void* a, size_t lda, const void* b, size_t ldb,
                        void* y, size_t ldy, size_t cols, size_t begin, size_t end, const double* ftab) {
  WithIoForm(io, form, [&](auto io_tag, auto k) HWY_ATTR {
    using Io = decltype(io_tag);
    using T = typename Io::T;
    GegluForwardLoop<Io, common::FormulaOf(decltype(k)::value)>(static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb,
                                             static_cast<T*>(y), ldy, cols, begin, end, ftab);
  });
}

void GegluBackwardKernel(common::Type io, common::Form form, const void* g, size_t ldg, const void* a, size_t lda,
                         const void* b, size_t ldb, void* ga, size_t ldga, void* gb, size_t ldgb, size_t cols,
                         size_t begin, size_t end, const double* ftab, const double* dtab) {
  WithIoForm(io, form, [&](auto io_tag, auto k) HWY_ATTR {
    using Io = decltype(io_tag);
    using T = typename Io::T;
    GegluBackwardLoop<Io, common::FormulaOf(decltype(k)::value)>(static_cast<const T*>(g), ldg, static_cast<const T*>(a), lda,
                                              static_cast<const T*>(b), ldb, static_cast<T*>(ga), ldga,
                                              static_cast<T*>(gb), ldgb, cols, begin, end, ftab, dtab);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace gelu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "src/common/half.h"
#include "src/common/validate.h"
#include "src/parallel/parallel.h"

namespace gelu {
HWY_EXPORT(BiasForwardKernel);
HWY_EXPORT(BiasBackwardTileKernel);
HWY_EXPORT(GegluForwardKernel);
HWY_EXPORT(GegluBackwardKernel);

namespace cpu {

void BiasForward(common::Type io, common::Form form, const void* x, const void* bias, void* y, size_t cols,
                 size_t begin, size_t end) {
  HWY_DYNAMIC_DISPATCH(BiasForwardKernel)(io, form, x, bias, y, cols, begin, end);
}
void BiasBackwardTile(common::Type io, common::Form form, const void* g, const void* x, const void* bias, void* grad_x,
                      size_t cols, size_t r0, size_t r1, size_t c0, size_t c1, double* sums) {
  HWY_DYNAMIC_DISPATCH(BiasBackwardTileKernel)(io, form, g, x, bias, grad_x, cols, r0, r1, c0, c1, sums);
}
void GegluForward(common::Type io, common::Form form, const void* a, size_t lda, const void* b, size_t ldb, void* y,
                  size_t ldy, size_t cols, size_t begin, size_t end, const double* ftab) {
  HWY_DYNAMIC_DISPATCH(GegluForwardKernel)(io, form, a, lda, b, ldb, y, ldy, cols, begin, end, ftab);
}
void GegluBackward(common::Type io, common::Form form, const void* g, size_t ldg, const void* a, size_t lda,
                   const void* b, size_t ldb, void* grad_a, size_t ldga, void* grad_b, size_t ldgb, size_t cols,
                   size_t begin, size_t end, const double* ftab, const double* dtab) {
  HWY_DYNAMIC_DISPATCH(GegluBackwardKernel)(io, form, g, ldg, a, lda, b, ldb, grad_a, ldga, grad_b, ldgb, cols,
                                            begin, end, ftab, dtab);
}

}  // namespace cpu
}  // namespace gelu

namespace {

using gelu::common::Type;
namespace validate = gelu::validate;

// Rounds a double once to the storage type and stores it at p[i].
void StoreRounded(Type io, void* p, size_t i, double v) {
  switch (io) {
    case gelu::common::kF32: static_cast<float*>(p)[i] = static_cast<float>(v); return;
    case gelu::common::kBf16: static_cast<uint16_t*>(p)[i] = gelu::common::DoubleToBf16(v); return;
    case gelu::common::kF16: static_cast<uint16_t*>(p)[i] = gelu::common::DoubleToF16(v); return;
    case gelu::common::kF64: break;  // no fused float64 operations
  }
  std::abort();
}

// f and f' in double per half encoding (null for float32, or if no memory: the kernels then compute them).
const double* ForwardTable(Type io, gelu::common::Form form) {
  return io == gelu::common::kF32 ? nullptr
                                 : static_cast<const double*>(gelu::cpu::HalfTable(io, gelu::common::FormulaOf(form), gelu::cpu::kTableForward));
}
const double* DerivativeTable(Type io, gelu::common::Form form) {
  return io == gelu::common::kF32
             ? nullptr
             : static_cast<const double*>(gelu::cpu::HalfTable(io, gelu::common::FormulaOf(form), gelu::cpu::kTableDerivative));
}

const unsigned char* Bytes(const void* p) { return static_cast<const unsigned char*>(p); }
unsigned char* Bytes(void* p) { return static_cast<unsigned char*>(p); }

gelu_status BiasForward(Type io, const void* x, const void* bias, void* y, size_t rows, size_t cols,
                        gelu_approximate a) {
  if (!validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto form = a;
  const auto v = validate::BiasForward(gelu::common::TypeSize(io), 1, x, bias, y, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const size_t n = rows * cols;
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    gelu::cpu::BiasForward(io, form, x, bias, y, cols, begin, end);
  });
  return GELU_OK;
}

// grad_bias: rows are summed in blocks of ceil(rows / kMaxRowBlocks) rows, each block in row order, and the block
// sums in block order, all in double; the blocks depend on `rows` only, so the bits do not depend on threads. With
// threads, the (row block x column tile) items run in parallel into a partial-sum buffer (row blocks x cols
// doubles, at most 64 x cols) that is then reduced in block order; without (or if that buffer cannot be
// allocated), each column tile walks the blocks in order on the stack. Same operations, same order, same bits.
constexpr size_t kMaxRowBlocks = 64;
constexpr size_t kColumnTile = 256;

gelu_status BiasBackward(Type io, const void* g, const void* x, const void* bias, void* gx, void* gbias, size_t rows,
                         size_t cols, gelu_approximate a) {
  if (!validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto form = a;
  const auto v = validate::BiasBackward(gelu::common::TypeSize(io), 1, g, x, bias, gx, gbias, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const size_t n = rows * cols;
  if (rows == 0) {
    for (size_t c = 0; c < cols; ++c) StoreRounded(io, gbias, c, 0.0);
    return GELU_OK;
  }
  const size_t block = (rows + kMaxRowBlocks - 1) / kMaxRowBlocks;
  const size_t blocks = (rows + block - 1) / block;
  const size_t tiles = (cols + kColumnTile - 1) / kColumnTile;
  auto tile_cols = [&](size_t t, size_t* c0, size_t* c1) {
    *c0 = t * kColumnTile;
    *c1 = std::min(cols, *c0 + kColumnTile);
  };
  auto run_tile = [&](size_t b, size_t c0, size_t c1, double* sums) {
    const size_t r0 = b * block, r1 = std::min(rows, r0 + block);
    gelu::cpu::BiasBackwardTile(io, form, g, x, bias, gx, cols, r0, r1, c0, c1, sums);
  };

  const int threads = gelu::parallel::GetNumThreads();
  std::unique_ptr<double[]> partial;
  if (threads > 1 && n >= gelu::parallel::kMinParallelElements) {
    partial.reset(new (std::nothrow) double[blocks * cols]);
  }
  if (partial) {
    const long items = static_cast<long>(blocks * tiles);
    const int team = static_cast<int>(std::min<long>(threads, items));
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
      for (long item = 0; item < items; ++item) {
        const size_t b = static_cast<size_t>(item) / tiles, t = static_cast<size_t>(item) % tiles;
        size_t c0, c1;
        tile_cols(t, &c0, &c1);
        run_tile(b, c0, c1, partial.get() + b * cols + c0);
      }
      // (implicit barrier: every partial sum is written before any column is reduced)
#pragma omp for schedule(static)
      for (long c = 0; c < static_cast<long>(cols); ++c) {
        double total = partial[static_cast<size_t>(c)];
        for (size_t b = 1; b < blocks; ++b) total += partial[b * cols + static_cast<size_t>(c)];
        StoreRounded(io, gbias, static_cast<size_t>(c), total);
      }
    }
    return GELU_OK;
  }
  double total[kColumnTile], sums[kColumnTile];
  for (size_t t = 0; t < tiles; ++t) {
    size_t c0, c1;
    tile_cols(t, &c0, &c1);
    for (size_t b = 0; b < blocks; ++b) {
      run_tile(b, c0, c1, b == 0 ? total : sums);
      if (b > 0) {
        for (size_t c = 0; c < c1 - c0; ++c) total[c] += sums[c];
      }
    }
    for (size_t c = c0; c < c1; ++c) StoreRounded(io, gbias, c, total[c - c0]);
  }
  return GELU_OK;
}

gelu_status GegluForward(Type io, const void* a, const void* b, void* y, size_t n, gelu_approximate approx) {
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto form = approx;
  const auto v = validate::GegluForward(gelu::common::TypeSize(io), 1, a, b, y, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const double* ftab = ForwardTable(io, form);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    gelu::cpu::GegluForward(io, form, a, 0, b, 0, y, 0, n, begin, end, ftab);
  });
  return GELU_OK;
}

gelu_status GegluBackward(Type io, const void* g, const void* a, const void* b, void* ga, void* gb, size_t n,
                          gelu_approximate approx) {
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto form = approx;
  const auto v = validate::GegluBackward(gelu::common::TypeSize(io), 1, g, a, b, ga, gb, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const double* ftab = ForwardTable(io, form);
  const double* dtab = DerivativeTable(io, form);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    gelu::cpu::GegluBackward(io, form, g, 0, a, 0, b, 0, ga, 0, gb, 0, n, begin, end, ftab, dtab);
  });
  return GELU_OK;
}

gelu_status GegluRowsForward(Type io, const void* x, void* y, size_t rows, size_t cols, gelu_approximate approx) {
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto form = approx;
  const size_t size = gelu::common::TypeSize(io);
  const auto v = validate::GegluRowsForward(size, 1, x, y, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const size_t n = rows * cols;
  const auto* xb = Bytes(x);
  const double* ftab = ForwardTable(io, form);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    gelu::cpu::GegluForward(io, form, xb, 2 * cols, xb + cols * size, 2 * cols, y, cols, cols, begin, end, ftab);
  });
  return GELU_OK;
}

gelu_status GegluRowsBackward(Type io, const void* g, const void* x, void* gx, size_t rows, size_t cols,
                              gelu_approximate approx) {
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto form = approx;
  const size_t size = gelu::common::TypeSize(io);
  const auto v = validate::GegluRowsBackward(size, 1, g, x, gx, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const size_t n = rows * cols;
  const auto* xb = Bytes(x);
  auto* gxb = Bytes(gx);
  const double* ftab = ForwardTable(io, form);
  const double* dtab = DerivativeTable(io, form);
  gelu::parallel::ParallelFor(n, [&](size_t begin, size_t end) {
    gelu::cpu::GegluBackward(io, form, g, cols, xb, 2 * cols, xb + cols * size, 2 * cols, gxb, 2 * cols,
                             gxb + cols * size, 2 * cols, cols, begin, end, ftab, dtab);
  });
  return GELU_OK;
}

}  // namespace

extern "C" {

#define GELU_FUSED_ENTRY_POINTS(suffix, T, io)                                                                     \
  gelu_status gelu_bias_forward_##suffix(const T* x, const T* bias, T* y, size_t rows, size_t cols,               \
                                         gelu_approximate approximate) {                                          \
    return BiasForward(io, x, bias, y, rows, cols, approximate);                                                   \
  }                                                                                                                \
  gelu_status gelu_bias_backward_##suffix(const T* grad_out, const T* x, const T* bias, T* grad_x, T* grad_bias,  \
                                          size_t rows, size_t cols, gelu_approximate approximate) {               \
    return BiasBackward(io, grad_out, x, bias, grad_x, grad_bias, rows, cols, approximate);                       \
  }                                                                                                                \
  gelu_status gelu_geglu_forward_##suffix(const T* a, const T* b, T* y, size_t n, gelu_approximate approximate) { \
    return GegluForward(io, a, b, y, n, approximate);                                                              \
  }                                                                                                                \
  gelu_status gelu_geglu_backward_##suffix(const T* grad_out, const T* a, const T* b, T* grad_a, T* grad_b,       \
                                           size_t n, gelu_approximate approximate) {                              \
    return GegluBackward(io, grad_out, a, b, grad_a, grad_b, n, approximate);                                      \
  }                                                                                                                \
  gelu_status gelu_geglu_rows_forward_##suffix(const T* x, T* y, size_t rows, size_t cols,                         \
                                               gelu_approximate approximate) {                                    \
    return GegluRowsForward(io, x, y, rows, cols, approximate);                                                    \
  }                                                                                                                \
  gelu_status gelu_geglu_rows_backward_##suffix(const T* grad_out, const T* x, T* grad_x, size_t rows,            \
                                                size_t cols, gelu_approximate approximate) {                      \
    return GegluRowsBackward(io, grad_out, x, grad_x, rows, cols, approximate);                                    \
  }

GELU_FUSED_ENTRY_POINTS(f32, float, gelu::common::kF32)
GELU_FUSED_ENTRY_POINTS(bf16, uint16_t, gelu::common::kBf16)
GELU_FUSED_ENTRY_POINTS(f16, uint16_t, gelu::common::kF16)
#undef GELU_FUSED_ENTRY_POINTS

}  // extern "C"
#endif  // HWY_ONCE
