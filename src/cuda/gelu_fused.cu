// SPDX-License-Identifier: Apache-2.0
// Fused bias + GELU and GEGLU on the GPU (gelu_cuda.h), float32 / bf16 / fp16, forward and backward, with the CPU
// library's semantics and bits (gelu.h: gelu_bias_*, gelu_geglu_*, gelu_geglu_rows_*): the per-element arithmetic
// is src/cuda/gelu_ops.h (over gelu_scalar.h and half.h), and grad_bias is summed in the CPU's order.
//
// The kernels in use are plain: one element per thread and grid-stride step, coalesced (their speed beside PyTorch's
// unfused composition: docs/CUDA.md, "Measured speed"). Built with GELU_CUDA_FUSED_VECTORS=1,
// the flat cases instead move 16-byte vectors (4 floats or 8 halves per thread and step): bias forward and
// backward where x, bias and the outputs are 16-byte aligned and cols is a multiple of the vector's lanes, GEGLU
// forward and backward (not the rows forms) where every array is 16-byte aligned. They compute the same elements
// in the same order (grad_bias: the same per-column sums), so the same bits; they have not run on a GPU yet, which
// is why they are off: bench/gpu/launch_variants.sh builds them, checks them (gelu_cuda_check) and times them.
//
// Indexing: a rows x cols problem is walked as a flat index i (coalesced: consecutive threads, consecutive
// columns); each thread keeps its (row, column) and advances it by the grid stride without a division per step.
//
// grad_bias (bias backward): rows are split into blocks of ceil(rows / 64) rows, as the CPU splits them. One
// thread per (row block, column) walks its rows in order, writes grad_x and sums the unrounded products in double
// from +0; a second kernel adds the block sums in block order per column and rounds once. Same operations in the
// same order as the CPU: the same bits, whatever the grid.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "gelu/gelu_cuda.h"
#include "src/common/functions.h"
#include "src/cuda/cuda_common.h"
#include "src/cuda/gelu_ops.h"

namespace gelu::cuda {
namespace {

constexpr int kThreads = 256;
constexpr size_t kMaxRowBlocks = 64;  // the CPU's kMaxRowBlocks (src/cpu/gelu_fused.cc)
#ifndef GELU_CUDA_FUSED_VECTORS
#define GELU_CUDA_FUSED_VECTORS 0
#endif
constexpr bool kFusedVectors = GELU_CUDA_FUSED_VECTORS != 0;

// A 16-byte vector of T.
template <class T>
union Vec {
  static constexpr int kLanes = 16 / sizeof(T);
  uint4 bits;
  T lanes[kLanes];
};

inline bool Aligned16(std::initializer_list<const void*> ps) {
  for (const void* p : ps) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  }
  return true;
}

// (row, column) of flat index i in a rows x cols walk, advanced by a fixed stride.
struct Walker {
  size_t r, c, dr, dc, cols;
  __device__ Walker(size_t i, size_t stride, size_t cols_)
      : r(i / cols_), c(i % cols_), dr(stride / cols_), dc(stride % cols_), cols(cols_) {}
  __device__ __forceinline__ void Advance() {
    c += dc;
    r += dr;
    if (c >= cols) c -= cols, ++r;
  }
};

__device__ __forceinline__ size_t ThreadIndex() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ size_t GridStride() { return static_cast<size_t>(gridDim.x) * blockDim.x; }

template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) BiasForwardKernel(const typename Storage<Format>::T* x,
                                                              const typename Storage<Format>::T* bias,
                                                              typename Storage<Format>::T* y, size_t n, size_t cols) {
  const size_t stride = GridStride();
  Walker w(ThreadIndex(), stride, cols);
  for (size_t i = ThreadIndex(); i < n; i += stride, w.Advance()) {
    y[i] = BiasForwardElement<Format>(x[i], bias[w.c], kForm);
  }
}

// Row block blockIdx.y; columns grid-stride over x.
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) BiasBackwardBlocks(const typename Storage<Format>::T* g,
                                                               const typename Storage<Format>::T* x,
                                                               const typename Storage<Format>::T* bias,
                                                               typename Storage<Format>::T* grad_x, double* partial,
                                                               size_t rows, size_t cols, size_t block) {
  const size_t b = blockIdx.y;
  const size_t r0 = b * block, r1 = r0 + block < rows ? r0 + block : rows;
  for (size_t c = ThreadIndex(); c < cols; c += GridStride()) {
    const auto bc = bias[c];
    double sum = 0.0;
    for (size_t r = r0; r < r1; ++r) {
      const size_t i = r * cols + c;
      sum += BiasBackwardElement<Format>(g[i], x[i], bc, kForm, &grad_x[i]);
    }
    partial[b * cols + c] = sum;
  }
}

template <class Format>
__global__ void __launch_bounds__(kThreads) BiasBackwardReduce(const double* partial, size_t blocks, size_t cols,
                                                               typename Storage<Format>::T* grad_bias) {
  for (size_t c = ThreadIndex(); c < cols; c += GridStride()) {
    double total = blocks > 0 ? partial[c] : 0.0;
    for (size_t b = 1; b < blocks; ++b) total += partial[b * cols + c];
    grad_bias[c] = Format::FromDouble(total);
  }
}

// GEGLU over rows x cols with row strides (in elements): y[r][c] = f(a[r][c]) * b[r][c].
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) GegluForwardKernel(const typename Storage<Format>::T* a, size_t lda,
                                                               const typename Storage<Format>::T* b, size_t ldb,
                                                               typename Storage<Format>::T* y, size_t ldy, size_t n,
                                                               size_t cols) {
  const size_t stride = GridStride();
  Walker w(ThreadIndex(), stride, cols);
  for (size_t i = ThreadIndex(); i < n; i += stride, w.Advance()) {
    y[w.r * ldy + w.c] = GegluForwardElement<Format>(a[w.r * lda + w.c], b[w.r * ldb + w.c], kForm);
  }
}

template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) GegluBackwardKernel(
    const typename Storage<Format>::T* g, size_t ldg, const typename Storage<Format>::T* a, size_t lda,
    const typename Storage<Format>::T* b, size_t ldb, typename Storage<Format>::T* ga, size_t ldga,
    typename Storage<Format>::T* gb, size_t ldgb, size_t n, size_t cols) {
  const size_t stride = GridStride();
  Walker w(ThreadIndex(), stride, cols);
  for (size_t i = ThreadIndex(); i < n; i += stride, w.Advance()) {
    using T = typename Storage<Format>::T;
    // Every input is read before either output is written: outputs may alias inputs exactly.
    const T gv = g[w.r * ldg + w.c], av = a[w.r * lda + w.c], bv = b[w.r * ldb + w.c];
    T outa, outb;
    GegluBackwardElement<Format>(gv, av, bv, kForm, &outa, &outb);
    ga[w.r * ldga + w.c] = outa;
    gb[w.r * ldgb + w.c] = outb;
  }
}

// ---- 16-byte vector kernels (GELU_CUDA_FUSED_VECTORS; the callers check alignment and lanes).

// Bias forward over vectors: cols is a multiple of the lanes, so a vector lies in one row and its bias is the
// vector at column-vector w.c of bias.
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) BiasForwardVectors(const typename Storage<Format>::T* x,
                                                               const typename Storage<Format>::T* bias,
                                                               typename Storage<Format>::T* y, size_t vectors,
                                                               size_t col_vectors) {
  using V = Vec<typename Storage<Format>::T>;
  const size_t stride = GridStride();
  const uint4* xv = reinterpret_cast<const uint4*>(x);
  const uint4* bv = reinterpret_cast<const uint4*>(bias);
  uint4* yv = reinterpret_cast<uint4*>(y);
  Walker w(ThreadIndex(), stride, col_vectors);
  for (size_t v = ThreadIndex(); v < vectors; v += stride, w.Advance()) {
    V a, b, r;
    a.bits = __ldcs(xv + v);
    b.bits = __ldg(bv + w.c);
#pragma unroll
    for (int l = 0; l < V::kLanes; ++l) r.lanes[l] = BiasForwardElement<Format>(a.lanes[l], b.lanes[l], kForm);
    __stcs(yv + v, r.bits);
  }
}

// Bias backward, row block blockIdx.y, one column vector (kLanes columns, kLanes sums) per thread and step: each
// column's products are summed in row order from +0, as the scalar kernel does.
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) BiasBackwardBlockVectors(const typename Storage<Format>::T* g,
                                                                     const typename Storage<Format>::T* x,
                                                                     const typename Storage<Format>::T* bias,
                                                                     typename Storage<Format>::T* grad_x,
                                                                     double* partial, size_t rows, size_t cols,
                                                                     size_t block) {
  using V = Vec<typename Storage<Format>::T>;
  const size_t col_vectors = cols / V::kLanes;
  const size_t b = blockIdx.y;
  const size_t r0 = b * block, r1 = r0 + block < rows ? r0 + block : rows;
  const uint4* gv = reinterpret_cast<const uint4*>(g);
  const uint4* xv = reinterpret_cast<const uint4*>(x);
  uint4* outv = reinterpret_cast<uint4*>(grad_x);
  for (size_t c = ThreadIndex(); c < col_vectors; c += GridStride()) {
    V bc;
    bc.bits = __ldg(reinterpret_cast<const uint4*>(bias) + c);
    double sum[V::kLanes];
#pragma unroll
    for (int l = 0; l < V::kLanes; ++l) sum[l] = 0.0;
    for (size_t r = r0; r < r1; ++r) {
      const size_t i = r * col_vectors + c;
      V gi, xi, out;
      gi.bits = __ldcs(gv + i);
      xi.bits = __ldcs(xv + i);
#pragma unroll
      for (int l = 0; l < V::kLanes; ++l) {
        sum[l] += BiasBackwardElement<Format>(gi.lanes[l], xi.lanes[l], bc.lanes[l], kForm, &out.lanes[l]);
      }
      __stcs(outv + i, out.bits);
    }
#pragma unroll
    for (int l = 0; l < V::kLanes; ++l) partial[b * cols + c * V::kLanes + l] = sum[l];
  }
}

// GEGLU forward over n contiguous elements: whole vectors, then the last n % kLanes one by one.
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) GegluForwardVectors(const typename Storage<Format>::T* a,
                                                                const typename Storage<Format>::T* b,
                                                                typename Storage<Format>::T* y, size_t n) {
  using V = Vec<typename Storage<Format>::T>;
  const size_t stride = GridStride(), vectors = n / V::kLanes;
  for (size_t v = ThreadIndex(); v < vectors; v += stride) {
    V av, bv, r;
    av.bits = __ldcs(reinterpret_cast<const uint4*>(a) + v);
    bv.bits = __ldcs(reinterpret_cast<const uint4*>(b) + v);
#pragma unroll
    for (int l = 0; l < V::kLanes; ++l) r.lanes[l] = GegluForwardElement<Format>(av.lanes[l], bv.lanes[l], kForm);
    __stcs(reinterpret_cast<uint4*>(y) + v, r.bits);
  }
  for (size_t i = vectors * V::kLanes + ThreadIndex(); i < n; i += stride) {
    y[i] = GegluForwardElement<Format>(a[i], b[i], kForm);
  }
}

// GEGLU backward over n contiguous elements; a vector's inputs are all read before its outputs are written
// (outputs may alias inputs exactly).
template <class Format, common::Form kForm>
__global__ void __launch_bounds__(kThreads) GegluBackwardVectors(
    const typename Storage<Format>::T* g, const typename Storage<Format>::T* a, const typename Storage<Format>::T* b,
    typename Storage<Format>::T* ga, typename Storage<Format>::T* gb, size_t n) {
  using T = typename Storage<Format>::T;
  using V = Vec<T>;
  const size_t stride = GridStride(), vectors = n / V::kLanes;
  for (size_t v = ThreadIndex(); v < vectors; v += stride) {
    V gv, av, bv, outa, outb;
    gv.bits = __ldcs(reinterpret_cast<const uint4*>(g) + v);
    av.bits = __ldcs(reinterpret_cast<const uint4*>(a) + v);
    bv.bits = __ldcs(reinterpret_cast<const uint4*>(b) + v);
#pragma unroll
    for (int l = 0; l < V::kLanes; ++l) {
      GegluBackwardElement<Format>(gv.lanes[l], av.lanes[l], bv.lanes[l], kForm, &outa.lanes[l], &outb.lanes[l]);
    }
    __stcs(reinterpret_cast<uint4*>(ga) + v, outa.bits);
    __stcs(reinterpret_cast<uint4*>(gb) + v, outb.bits);
  }
  for (size_t i = vectors * V::kLanes + ThreadIndex(); i < n; i += stride) {
    const T gi = g[i], ai = a[i], bi = b[i];
    T outa, outb;
    GegluBackwardElement<Format>(gi, ai, bi, kForm, &outa, &outb);
    ga[i] = outa;
    gb[i] = outb;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Host side.

// Blocks for n independent elements: enough to cover them, at most 8 per SM (each thread then loops).
gelu_status Blocks(size_t n, unsigned* blocks) {
  int device = 0, sms = 0;
  if (const gelu_status s = CurrentDevice(&device, &sms); s != GELU_OK) return s;
  const size_t want = (n + kThreads - 1) / kThreads, cap = static_cast<size_t>(sms) * 8;
  *blocks = static_cast<unsigned>(want < cap ? (want > 0 ? want : 1) : cap);
  return GELU_OK;
}

// Calls f(k) for a valid `a`, k a common::FormConstant (src/common/functions.h).
template <class F>
gelu_status WithForm(gelu_approximate a, const F& f) {
  return common::VisitForm(a, f);
}

template <class Format>
gelu_status BiasForward(const void* x, const void* bias, void* y, size_t rows, size_t cols, gelu_approximate a,
                        void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::BiasForward(sizeof(T), alignof(T), x, bias, y, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const size_t n = rows * cols;
  constexpr size_t kLanes = Vec<T>::kLanes;
  const bool vectors = kFusedVectors && cols % kLanes == 0 && Aligned16({x, bias, y});
  unsigned blocks = 0;
  if (const gelu_status s = Blocks(vectors ? n / kLanes : n, &blocks); s != GELU_OK) return s;
  return WithForm(a, [&](auto form) {
    const auto st = static_cast<cudaStream_t>(stream);
    if (vectors) {
      BiasForwardVectors<Format, decltype(form)::value><<<blocks, kThreads, 0, st>>>(
          static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<T*>(y), n / kLanes, cols / kLanes);
    } else {
      BiasForwardKernel<Format, decltype(form)::value><<<blocks, kThreads, 0, st>>>(
          static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<T*>(y), n, cols);
    }
    return LaunchStatus();
  });
}

template <class Format>
gelu_status BiasBackward(const void* g, const void* x, const void* bias, void* gx, void* gbias, size_t rows,
                         size_t cols, gelu_approximate a, void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(a)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::BiasBackward(sizeof(T), alignof(T), g, x, bias, gx, gbias, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  int device = 0, sms = 0;
  if (const gelu_status s = CurrentDevice(&device, &sms); s != GELU_OK) return s;
  const auto st = static_cast<cudaStream_t>(stream);
  const size_t block = rows > 0 ? (rows + kMaxRowBlocks - 1) / kMaxRowBlocks : 1;
  const size_t row_blocks = rows > 0 ? (rows + block - 1) / block : 0;
  constexpr size_t kLanes = Vec<T>::kLanes;
  const bool vectors = kFusedVectors && cols % kLanes == 0 && Aligned16({g, x, bias, gx});
  const size_t col_threads = vectors ? cols / kLanes : cols;  // a column, or a vector of kLanes columns, each
  const size_t col_blocks = (col_threads + kThreads - 1) / kThreads;
  double* partial = nullptr;
  if (row_blocks > 0) {
    // Stream-ordered scratch (row_blocks x cols doubles), freed after the reduction on the same stream.
    const cudaError_t err = cudaMallocAsync(reinterpret_cast<void**>(&partial), row_blocks * cols * sizeof(double), st);
    if (err != cudaSuccess) return CudaFailure("cudaMallocAsync", err);
  }
  gelu_status status = WithForm(a, [&](auto form) {
    if (row_blocks > 0) {
      const dim3 grid(static_cast<unsigned>(col_blocks < 65535 ? col_blocks : 65535),
                      static_cast<unsigned>(row_blocks));
      if (vectors) {
        BiasBackwardBlockVectors<Format, decltype(form)::value><<<grid, kThreads, 0, st>>>(
            static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<T*>(gx),
            partial, rows, cols, block);
      } else {
        BiasBackwardBlocks<Format, decltype(form)::value><<<grid, kThreads, 0, st>>>(
            static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<T*>(gx),
            partial, rows, cols, block);
      }
      if (const gelu_status s = LaunchStatus(); s != GELU_OK) return s;
    }
    const size_t reduce_col_blocks = (cols + kThreads - 1) / kThreads;
    const size_t reduce_blocks =
        reduce_col_blocks < static_cast<size_t>(sms) * 8 ? reduce_col_blocks : static_cast<size_t>(sms) * 8;
    BiasBackwardReduce<Format><<<static_cast<unsigned>(reduce_blocks), kThreads, 0, st>>>(partial, row_blocks, cols,
                                                                                       static_cast<T*>(gbias));
    return LaunchStatus();
  });
  if (partial != nullptr) {
    const cudaError_t err = cudaFreeAsync(partial, st);
    if (status == GELU_OK && err != cudaSuccess) status = CudaFailure("cudaFreeAsync", err);
  }
  return status;
}

// GEGLU with strides; the callers check arguments.
template <class Format>
gelu_status GegluForwardStrided(const void* a, size_t lda, const void* b, size_t ldb, void* y, size_t ldy,
                                size_t rows, size_t cols, gelu_approximate approx, void* stream) {
  using T = typename Storage<Format>::T;
  const size_t n = rows * cols;
  unsigned blocks = 0;
  if (const gelu_status s = Blocks(n, &blocks); s != GELU_OK) return s;
  return WithForm(approx, [&](auto form) {
    GegluForwardKernel<Format, decltype(form)::value><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, static_cast<T*>(y), ldy, n, cols);
    return LaunchStatus();
  });
}

template <class Format>
gelu_status GegluBackwardStrided(const void* g, size_t ldg, const void* a, size_t lda, const void* b, size_t ldb,
                                 void* ga, size_t ldga, void* gb, size_t ldgb, size_t rows, size_t cols,
                                 gelu_approximate approx, void* stream) {
  using T = typename Storage<Format>::T;
  const size_t n = rows * cols;
  unsigned blocks = 0;
  if (const gelu_status s = Blocks(n, &blocks); s != GELU_OK) return s;
  return WithForm(approx, [&](auto form) {
    GegluBackwardKernel<Format, decltype(form)::value><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(g), ldg, static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb,
        static_cast<T*>(ga), ldga, static_cast<T*>(gb), ldgb, n, cols);
    return LaunchStatus();
  });
}

template <class Format>
gelu_status GegluForward(const void* a, const void* b, void* y, size_t n, gelu_approximate approx, void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::GegluForward(sizeof(T), alignof(T), a, b, y, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  if (kFusedVectors && Aligned16({a, b, y})) {
    unsigned blocks = 0;
    if (const gelu_status s = Blocks(n / Vec<T>::kLanes + 1, &blocks); s != GELU_OK) return s;
    return WithForm(approx, [&](auto form) {
      GegluForwardVectors<Format, decltype(form)::value><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
          static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n);
      return LaunchStatus();
    });
  }
  return GegluForwardStrided<Format>(a, 0, b, 0, y, 0, 1, n, approx, stream);
}

template <class Format>
gelu_status GegluBackward(const void* g, const void* a, const void* b, void* ga, void* gb, size_t n,
                          gelu_approximate approx, void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::GegluBackward(sizeof(T), alignof(T), g, a, b, ga, gb, n);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  if (kFusedVectors && Aligned16({g, a, b, ga, gb})) {
    unsigned blocks = 0;
    if (const gelu_status s = Blocks(n / Vec<T>::kLanes + 1, &blocks); s != GELU_OK) return s;
    return WithForm(approx, [&](auto form) {
      GegluBackwardVectors<Format, decltype(form)::value><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
          static_cast<const T*>(g), static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(ga),
          static_cast<T*>(gb), n);
      return LaunchStatus();
    });
  }
  return GegluBackwardStrided<Format>(g, 0, a, 0, b, 0, ga, 0, gb, 0, 1, n, approx, stream);
}

template <class Format>
gelu_status GegluRowsForward(const void* x, void* y, size_t rows, size_t cols, gelu_approximate approx,
                             void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::GegluRowsForward(sizeof(T), alignof(T), x, y, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const T* xt = static_cast<const T*>(x);
  return GegluForwardStrided<Format>(xt, 2 * cols, xt + cols, 2 * cols, y, cols, rows, cols, approx, stream);
}

template <class Format>
gelu_status GegluRowsBackward(const void* g, const void* x, void* gx, size_t rows, size_t cols,
                              gelu_approximate approx, void* stream) {
  using T = typename Storage<Format>::T;
  if (!validate::ValidForm(approx)) return GELU_INVALID_ARGUMENT;
  const auto v = validate::GegluRowsBackward(sizeof(T), alignof(T), g, x, gx, rows, cols);
  if (v != validate::Verdict::kRun) return validate::Status(v);
  const T* xt = static_cast<const T*>(x);
  T* gt = static_cast<T*>(gx);
  return GegluBackwardStrided<Format>(g, cols, xt, 2 * cols, xt + cols, 2 * cols, gt, 2 * cols, gt + cols, 2 * cols,
                                      rows, cols, approx, stream);
}

}  // namespace
}  // namespace gelu::cuda

#define GELU_CUDA_FUSED(suffix, T, Format)                                                                        \
  gelu_status gelu_cuda_bias_forward_##suffix(const T* x, const T* bias, T* y, size_t rows, size_t cols,          \
                                              gelu_approximate approximate, void* stream) {                       \
    return gelu::cuda::BiasForward<Format>(x, bias, y, rows, cols, approximate, stream);                          \
  }                                                                                                               \
  gelu_status gelu_cuda_bias_backward_##suffix(const T* grad_out, const T* x, const T* bias, T* grad_x,           \
                                               T* grad_bias, size_t rows, size_t cols,                            \
                                               gelu_approximate approximate, void* stream) {                      \
    return gelu::cuda::BiasBackward<Format>(grad_out, x, bias, grad_x, grad_bias, rows, cols, approximate,        \
                                            stream);                                                              \
  }                                                                                                               \
  gelu_status gelu_cuda_geglu_forward_##suffix(const T* a, const T* b, T* y, size_t n,                            \
                                               gelu_approximate approximate, void* stream) {                      \
    return gelu::cuda::GegluForward<Format>(a, b, y, n, approximate, stream);                                     \
  }                                                                                                               \
  gelu_status gelu_cuda_geglu_backward_##suffix(const T* grad_out, const T* a, const T* b, T* grad_a, T* grad_b,  \
                                                size_t n, gelu_approximate approximate, void* stream) {           \
    return gelu::cuda::GegluBackward<Format>(grad_out, a, b, grad_a, grad_b, n, approximate, stream);             \
  }                                                                                                               \
  gelu_status gelu_cuda_geglu_rows_forward_##suffix(const T* x, T* y, size_t rows, size_t cols,                   \
                                                    gelu_approximate approximate, void* stream) {                 \
    return gelu::cuda::GegluRowsForward<Format>(x, y, rows, cols, approximate, stream);                           \
  }                                                                                                               \
  gelu_status gelu_cuda_geglu_rows_backward_##suffix(const T* grad_out, const T* x, T* grad_x, size_t rows,       \
                                                     size_t cols, gelu_approximate approximate, void* stream) {   \
    return gelu::cuda::GegluRowsBackward<Format>(grad_out, x, grad_x, rows, cols, approximate, stream);           \
  }

extern "C" {
GELU_CUDA_FUSED(f32, float, gelu::cuda::F32Format)
GELU_CUDA_FUSED(bf16, uint16_t, gelu::common::Bf16)
GELU_CUDA_FUSED(f16, uint16_t, gelu::common::F16)
}  // extern "C"
