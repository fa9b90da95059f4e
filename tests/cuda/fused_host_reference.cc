// SPDX-License-Identifier: Apache-2.0
#include "tests/cuda/fused_host_reference.h"

#include <algorithm>

#include "src/cuda/gelu_ops.h"

namespace gelu::cuda_test {

// ---- Host evaluation.
template <class Format>
void HostFusedTyped(FusedOp op, common::Form form, const void* gv, const void* xv, const void* bv, void* yv, void* y2v,
                    size_t rows, size_t cols) {
  using T = typename gelu::cuda::Storage<Format>::T;
  const T* g = static_cast<const T*>(gv);
  const T* x = static_cast<const T*>(xv);
  const T* b = static_cast<const T*>(bv);
  T* y = static_cast<T*>(yv);
  T* y2 = static_cast<T*>(y2v);
  const size_t n = rows * cols;
  switch (op) {
    case FusedOp::kBiasForward:
      for (size_t i = 0; i < n; ++i) y[i] = gelu::cuda::BiasForwardElement<Format>(x[i], b[i % cols], form);
      return;
    case FusedOp::kBiasBackward: {
      // The CPU's order: rows in blocks of ceil(rows / 64), each block summed in row order from +0, block sums
      // added in block order.
      const size_t block = rows > 0 ? (rows + 63) / 64 : 1;
      for (size_t c = 0; c < cols; ++c) {
        double total = 0.0;
        for (size_t r0 = 0; r0 < rows; r0 += block) {
          double sum = 0.0;
          for (size_t r = r0; r < std::min(rows, r0 + block); ++r) {
            sum += gelu::cuda::BiasBackwardElement<Format>(g[r * cols + c], x[r * cols + c], b[c], form,
                                                           &y[r * cols + c]);
          }
          total = r0 == 0 ? sum : total + sum;
        }
        y2[c] = Format::FromDouble(total);
      }
      return;
    }
    case FusedOp::kGegluForward:
      for (size_t i = 0; i < n; ++i) y[i] = gelu::cuda::GegluForwardElement<Format>(x[i], b[i], form);
      return;
    case FusedOp::kGegluBackward:
      for (size_t i = 0; i < n; ++i) gelu::cuda::GegluBackwardElement<Format>(g[i], x[i], b[i], form, &y[i], &y2[i]);
      return;
    case FusedOp::kGegluRowsForward:
      for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < cols; ++c) {
          y[r * cols + c] = gelu::cuda::GegluForwardElement<Format>(x[r * 2 * cols + c], x[r * 2 * cols + cols + c], form);
        }
      }
      return;
    default:
      for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < cols; ++c) {
          T ga, gb;
          gelu::cuda::GegluBackwardElement<Format>(g[r * cols + c], x[r * 2 * cols + c], x[r * 2 * cols + cols + c],
                                                   form, &ga, &gb);
          y[r * 2 * cols + c] = ga;
          y[r * 2 * cols + cols + c] = gb;
        }
      }
      return;
  }
}

void HostFused(Type t, FusedOp op, common::Form form, FusedArrays* a, size_t rows, size_t cols) {
  switch (t) {
    case common::kF32:
      return HostFusedTyped<gelu::cuda::F32Format>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                                   a->y2.data(), rows, cols);
    case common::kBf16:
      return HostFusedTyped<gelu::common::Bf16>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                                a->y2.data(), rows, cols);
    default:
      return HostFusedTyped<gelu::common::F16>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                               a->y2.data(), rows, cols);
  }
}

}  // namespace gelu::cuda_test
