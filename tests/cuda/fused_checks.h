// SPDX-License-Identifier: Apache-2.0
// Fused bias + GELU and GEGLU on the GPU against the host evaluation of the same element functions
// (src/cuda/gelu_ops.h) and the CPU's grad_bias order; shared by gelu_cuda_test.cc (GPU) and
// gelu_cuda_reference_test.cc (host reference against the CPU library, no GPU).
#ifndef GELU_TESTS_CUDA_FUSED_CHECKS_H_
#define GELU_TESTS_CUDA_FUSED_CHECKS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "src/cuda/gelu_ops.h"
#include "tests/cuda/check_inputs.h"
#include "tests/cuda/check_report.h"
#include "tests/cuda/cuda_functions.h"
#include "tests/cuda/device_buffers.h"
#include "tests/cuda/element_bits.h"
#include "tests/cuda/gpu_checks.h"
#include "tests/cuda/stream_gate.h"
#include "tests/cuda/stream_order.h"

namespace gelu::cuda_test {

enum class FusedOp { kBiasForward, kBiasBackward, kGegluForward, kGegluBackward, kGegluRowsForward, kGegluRowsBackward };
inline const char* FusedName(FusedOp op) {
  switch (op) {
    case FusedOp::kBiasForward: return "bias_forward";
    case FusedOp::kBiasBackward: return "bias_backward";
    case FusedOp::kGegluForward: return "geglu_forward";
    case FusedOp::kGegluBackward: return "geglu_backward";
    case FusedOp::kGegluRowsForward: return "geglu_rows_forward";
    default: return "geglu_rows_backward";
  }
}

// One fused problem's arrays, as raw bytes of `type` elements. Shapes: bias ops rows x cols with bias[cols];
// geglu ops n = rows * cols elements per array; geglu rows ops x is rows x 2*cols. Inputs: g, x (or a), b
// (or bias); outputs: y (forward, or grad_x / grad_a) and y2 (grad_bias / grad_b).
struct FusedArrays {
  std::vector<char> g, x, b, y, y2;
};

inline size_t FusedInputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 g, 1 x, 2 b */) {
  const size_t n = rows * cols;
  switch (op) {
    case FusedOp::kBiasForward: return which == 0 ? 0 : which == 1 ? n : cols;
    case FusedOp::kBiasBackward: return which == 2 ? cols : n;
    case FusedOp::kGegluForward: return which == 0 ? 0 : n;
    case FusedOp::kGegluBackward: return n;
    case FusedOp::kGegluRowsForward: return which == 1 ? 2 * n : 0;
    default: return which == 0 ? n : which == 1 ? 2 * n : 0;
  }
}
inline size_t FusedOutputElements(FusedOp op, size_t rows, size_t cols, int which /* 0 y, 1 y2 */) {
  const size_t n = rows * cols;
  switch (op) {
    case FusedOp::kBiasForward: return which == 0 ? n : 0;
    case FusedOp::kBiasBackward: return which == 0 ? n : cols;
    case FusedOp::kGegluForward: return which == 0 ? n : 0;
    case FusedOp::kGegluBackward: return n;
    case FusedOp::kGegluRowsForward: return which == 0 ? n : 0;
    default: return which == 0 ? 2 * n : 0;
  }
}

// ---- Host evaluation.
template <class Format>
void HostFusedTyped(FusedOp op, int form, const void* gv, const void* xv, const void* bv, void* yv, void* y2v,
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

inline void HostFused(Type t, FusedOp op, int form, FusedArrays* a, size_t rows, size_t cols) {
  switch (t) {
    case Type::kF32:
      return HostFusedTyped<gelu::cuda::F32Format>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                                   a->y2.data(), rows, cols);
    case Type::kBf16:
      return HostFusedTyped<gelu::common::Bf16>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                                a->y2.data(), rows, cols);
    default:
      return HostFusedTyped<gelu::common::F16>(op, form, a->g.data(), a->x.data(), a->b.data(), a->y.data(),
                                               a->y2.data(), rows, cols);
  }
}

// ---- The fused entry points of one library, typed: PREFIX gelu_ (the CPU library, gelu.h) or gelu_cuda_
// (gelu_cuda.h); the trailing arguments (approximate, then the stream for CUDA) are __VA_ARGS__. Expands to the
// body of a function template on T (float or uint16_t) with parameters t, op, gv, xv, bv, yv, y2v, rows, cols:
// the CPU reference test (gelu_cuda_reference_test.cc) and the GPU checks call the same list of functions.
#define GELU_FUSED_SWITCH(PREFIX, SUFFIX, ...)                                                                  \
  switch (op) {                                                                                                 \
    case FusedOp::kBiasForward: return PREFIX##bias_forward_##SUFFIX(x, b, y, rows, cols, __VA_ARGS__);         \
    case FusedOp::kBiasBackward: return PREFIX##bias_backward_##SUFFIX(g, x, b, y, y2, rows, cols, __VA_ARGS__); \
    case FusedOp::kGegluForward: return PREFIX##geglu_forward_##SUFFIX(x, b, y, n, __VA_ARGS__);                \
    case FusedOp::kGegluBackward: return PREFIX##geglu_backward_##SUFFIX(g, x, b, y, y2, n, __VA_ARGS__);       \
    case FusedOp::kGegluRowsForward: return PREFIX##geglu_rows_forward_##SUFFIX(x, y, rows, cols, __VA_ARGS__); \
    default: return PREFIX##geglu_rows_backward_##SUFFIX(g, x, y, rows, cols, __VA_ARGS__);                     \
  }
#define GELU_FUSED_TYPED_CALL(PREFIX, ...)            \
  const T* g = static_cast<const T*>(gv);             \
  const T* x = static_cast<const T*>(xv);             \
  const T* b = static_cast<const T*>(bv);             \
  T* y = static_cast<T*>(yv);                         \
  T* y2 = static_cast<T*>(y2v);                       \
  const size_t n = rows * cols;                       \
  if constexpr (std::is_same_v<T, float>) {           \
    GELU_FUSED_SWITCH(PREFIX, f32, __VA_ARGS__)       \
  } else if (t == Type::kBf16) {                      \
    GELU_FUSED_SWITCH(PREFIX, bf16, __VA_ARGS__)      \
  } else {                                            \
    GELU_FUSED_SWITCH(PREFIX, f16, __VA_ARGS__)       \
  }

// ---- The gelu_cuda call (pointers to device memory).
template <class T>
gelu_status CudaFusedTyped(Type t, FusedOp op, gelu_approximate a, const void* gv, const void* xv, const void* bv,
                           void* yv, void* y2v, size_t rows, size_t cols, void* s) {
  GELU_FUSED_TYPED_CALL(gelu_cuda_, a, s)
}

inline gelu_status CudaFused(Type t, FusedOp op, gelu_approximate a, const void* g, const void* x, const void* b,
                             void* y, void* y2, size_t rows, size_t cols, void* stream) {
  return t == Type::kF32 ? CudaFusedTyped<float>(t, op, a, g, x, b, y, y2, rows, cols, stream)
                         : CudaFusedTyped<uint16_t>(t, op, a, g, x, b, y, y2, rows, cols, stream);
}

inline std::vector<FusedOp> AllFusedOps() {
  return {FusedOp::kBiasForward,   FusedOp::kBiasBackward,      FusedOp::kGegluForward,
          FusedOp::kGegluBackward, FusedOp::kGegluRowsForward, FusedOp::kGegluRowsBackward};
}

// Random inputs for a fused problem (the outputs sized and zeroed).
inline void FusedInputs(Type t, FusedOp op, size_t rows, size_t cols, uint64_t seed, FusedArrays* a) {
  const size_t es = TypeSize(t);
  std::vector<char>* in[3] = {&a->g, &a->x, &a->b};
  for (int k = 0; k < 3; ++k) {
    const size_t m = FusedInputElements(op, rows, cols, k);
    in[k]->assign(m * es + 1, 0);
    RandomFill(t, in[k]->data(), m, seed * 7 + k);
  }
  a->y.assign(FusedOutputElements(op, rows, cols, 0) * es + 1, 0);
  a->y2.assign(FusedOutputElements(op, rows, cols, 1) * es + 1, 0);
}

// On the GPU: every fused function of type t and form against the host, over shapes from 1 x 1 to 300 x 2056 (cols
// a multiple of 8 in 65 x 8 and 300 x 2056: the 16-byte vector kernels of GELU_CUDA_FUSED_VECTORS), with rows = 0 (grad_bias must become 0), in a non-default stream; outputs poisoned, with guards after them.
// Transfers are ordered on the call's stream (stream_order.h, "Stream order"). Every shape after the first runs
// behind a closed StreamGate (the stream busy when the call is made: see CheckBusyStream); the first loads the
// kernels.
inline Report CheckFusedOnDevice(Type t, FusedOp op, int form) {
  Report r;
  const size_t es = TypeSize(t), guard = 16;
  constexpr int kStale = 0x5A;
  const std::vector<std::pair<size_t, size_t>> shapes = {{1, 1},  {1, 7},    {3, 1},   {2, 5},     {17, 33},
                                                         {64, 3}, {65, 8},   {127, 9}, {130, 257}, {1000, 333},
                                                         {5, 4099}, {0, 12}, {4096, 3}, {300, 2056}};
  Stream stream;
  if (Failed(stream.error, "cudaStreamCreateWithFlags", &r)) return r;
  const cudaStream_t s = stream.s;
  uint64_t seed = 1;
  bool first = true;
  for (const auto& [rows, cols] : shapes) {
    if (rows == 0 && op != FusedOp::kBiasBackward) continue;
    FusedArrays host;
    FusedInputs(t, op, rows, cols, ++seed, &host);
    HostFused(t, op, form, &host, rows, cols);
    size_t in_n[3], out_n[2];
    for (int k = 0; k < 3; ++k) in_n[k] = FusedInputElements(op, rows, cols, k);
    for (int k = 0; k < 2; ++k) out_n[k] = FusedOutputElements(op, rows, cols, k);
    DeviceBuffer d_in[3] = {DeviceBuffer(in_n[0] * es + 16), DeviceBuffer(in_n[1] * es + 16),
                            DeviceBuffer(in_n[2] * es + 16)};
    DeviceBuffer d_out[2] = {DeviceBuffer((out_n[0] + guard) * es), DeviceBuffer((out_n[1] + guard) * es)};
    HostBuffer h_in[3] = {HostBuffer(in_n[0] * es + 16), HostBuffer(in_n[1] * es + 16), HostBuffer(in_n[2] * es + 16)};
    HostBuffer got[2] = {HostBuffer((out_n[0] + guard) * es), HostBuffer((out_n[1] + guard) * es)};
    const std::vector<char>* inputs[3] = {&host.g, &host.x, &host.b};
    for (int k = 0; k < 3; ++k) std::memcpy(h_in[k].p, inputs[k]->data(), in_n[k] * es);
    const std::string what = std::string(FusedName(op)) + "_" + TypeName(t) + "/" + FormName(form) + " " +
                             std::to_string(rows) + "x" + std::to_string(cols);
    const auto enqueue = [&] {
      for (int k = 0; k < 3; ++k) {
        if (!CopyToDevice(d_in[k].p, h_in[k].p, in_n[k] * es, s, &r)) return false;
      }
      for (int k = 0; k < 2; ++k) {
        if (!FillBytes(d_out[k].p, kPoisonNan, (out_n[k] + guard) * es, s, &r)) return false;
      }
      if (!CallOk(CudaFused(t, op, static_cast<gelu_approximate>(form), d_in[0].p, d_in[1].p, d_in[2].p, d_out[0].p,
                            d_out[1].p, rows, cols, s),
                  what, &r)) {
        return false;
      }
      for (int k = 0; k < 2; ++k) {
        if (!CopyToHost(got[k].p, d_out[k].p, (out_n[k] + guard) * es, s, &r)) return false;
      }
      return true;
    };
    bool ran;
    if (first) {
      ran = enqueue() && Synchronize(s, &r);
    } else {
      // Inputs and outputs hold kStale until the gated work runs.
      std::vector<std::pair<const void*, size_t>> watched;
      for (int k = 0; k < 3; ++k) watched.push_back({d_in[k].p, in_n[k] * es});
      for (int k = 0; k < 2; ++k) watched.push_back({d_out[k].p, (out_n[k] + guard) * es});
      ran = true;
      for (const auto& [p, bytes] : watched) ran = ran && FillBytes(const_cast<void*>(p), kStale, bytes, s, &r);
      ran = ran && Synchronize(s, &r) && RunBehindGate(s, watched, kStale, what, enqueue, &r);
    }
    if (!ran) break;
    first = false;
    const std::vector<char>* want[2] = {&host.y, &host.y2};
    for (int k = 0; k < 2; ++k) {
      for (size_t i = 0; i < out_n[k] + guard; ++i) {
        const uint32_t gv = Element(t, got[k].p, i);
        const bool inside = i < out_n[k];
        const uint32_t wv = inside ? Element(t, want[k]->data(), i) : (t == Type::kF32 ? 0xFFFFFFFFu : 0xFFFFu);
        if (inside ? SameResult(t, gv, wv) : gv == wv) continue;
        r.Fail(what + " output " + std::to_string(k) + " element " + std::to_string(i) + (inside ? "" : " (guard)") +
               ": device " + Hex(gv, t) + ", want " + Hex(wv, t));
      }
      r.checked += out_n[k];
    }
  }
  return r;
}

}  // namespace gelu::cuda_test

#endif  // GELU_TESTS_CUDA_FUSED_CHECKS_H_
