// SPDX-License-Identifier: Apache-2.0
// CUDA kernels behind include/gelu/gelu_cuda.h: every form, forward and backward, fp32/bf16/fp16.
//
// Arithmetic: the per-element functions are src/common/gelu_scalar.h, the same source the host scalar path
// compiles, built here with --fmad=false so that nvcc contracts nothing the source does not write as an FMA
// (gelu_scalar.h writes its FMAs explicitly, __fma_rn on the device, std::fma on the host). Double-precision
// adds, multiplies, FMAs and the division are correctly rounded on both sides, so a device result has the
// host's bits for every input (tests/cuda/ checks all 2^32 float32 inputs); NaN payloads may differ.
//
// Cost: the evaluation is in double. Per element, forward `none` issues about 40 fp64 instructions (two Horner
// polynomials of degree 9 and 12, a division, Cody-Waite reduction); the sigmoid forms about 25. An H100/H200
// SM retires 64 fp64 FMAs per cycle, 132 SMs at ~1.98 GHz: ~1.7e13 fp64 instructions/s, i.e. ~4e11 elements/s
// for `none`. Copy bandwidth is ~4.3 TB/s (read + written, measured on an H200 here), i.e. ~5.4e11 fp32
// elements/s forward (8 bytes each) and ~1.1e12 bf16 elements/s (4 bytes each). So by this count the fp32
// sigmoid forms are memory-bound while `none` and the 16-bit types are limited by fp64 throughput; the GPU
// check (bench/gpu/check.sh) measures where each one lands. Estimates, not measurements: no GPU was available
// when this was written (docs/CUDA.md).
//
// Memory access: each thread moves 16-byte vectors (uint4: 4 floats or 8 halves), kUnroll of them loaded before
// the first is used, so that enough bytes are in flight to cover DRAM latency; grid-stride loops over a grid
// sized to the resident capacity of the device (SM count x blocks per SM from the occupancy calculator). The
// vectors cover the part of the array where every pointer is 16-byte aligned; the < 8 elements before it (the
// head) and after it (the tail) are done one by one in the same launch. If the pointers' offsets modulo 16
// differ (e.g. y = x + 1 element), no common alignment exists and the whole array takes the scalar loop.
// Streaming loads and stores (ld.global.cs / st.global.cs) tell L2 not to keep data that is used once.
// Indices are size_t throughout: n may exceed 2^32 (the largest array tested has 2^34 + 3 elements).
#include "gelu/gelu_cuda.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "src/cuda/gelu_ops.h"

namespace gelu::cuda {
namespace {

constexpr int kThreads = 256;     // per block; 8 warps, any multiple of 32 would do for elementwise work
constexpr int kUnroll = 4;        // 16-byte vectors in flight per thread and input (64 bytes)
constexpr int kVectorBytes = 16;  // uint4
constexpr int kMaxDevices = 64;   // per-device caches below; more devices are queried on every call

// ---------------------------------------------------------------------------------------------------------
// The kernel.

template <class T, int kInputs>
struct Params {
  const T* in[kInputs];
  T* out;
  size_t n;
  size_t head;     // elements [0, head) are done one by one (before the first aligned vector)
  size_t vectors;  // then `vectors` 16-byte vectors; the rest, [head + vectors * lanes, n), one by one
};

template <class T>
union Vector {
  uint4 bits;
  T lanes[kVectorBytes / sizeof(T)];
};

template <class Op>
__global__ void __launch_bounds__(kThreads) GeluKernel(const Params<typename Op::T, Op::kInputs> p) {
  using T = typename Op::T;
  constexpr int kIn = Op::kInputs;
  constexpr int kLanes = kVectorBytes / sizeof(T);
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;

  // Vector body. In iteration j thread t handles vectors t + (j*kUnroll + u) * stride, u < kUnroll: for each u
  // a warp touches 32 consecutive vectors (512 bytes), and all kUnroll * kIn loads are issued before any use.
  const uint4* in_vec[kIn];
#pragma unroll
  for (int k = 0; k < kIn; ++k) in_vec[k] = reinterpret_cast<const uint4*>(p.in[k] + p.head);
  uint4* out_vec = reinterpret_cast<uint4*>(p.out + p.head);
  for (size_t v = tid; v < p.vectors; v += kUnroll * stride) {
    Vector<T> a[kUnroll][kIn];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t i = v + u * stride;
      if (i < p.vectors) {
#pragma unroll
        for (int k = 0; k < kIn; ++k) a[u][k].bits = __ldcs(in_vec[k] + i);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t i = v + u * stride;
      if (i < p.vectors) {
        Vector<T> r;
#pragma unroll
        for (int l = 0; l < kLanes; ++l) {
          T e[kIn];
#pragma unroll
          for (int k = 0; k < kIn; ++k) e[k] = a[u][k].lanes[l];
          r.lanes[l] = Op::Apply(e);
        }
        __stcs(out_vec + i, r.bits);
      }
    }
  }

  // Head and tail (or, without a common alignment, everything), one element per thread and step, kUnroll
  // elements loaded before use as above.
  const size_t body_end = p.head + p.vectors * kLanes;
  const size_t scalars = p.head + (p.n - body_end);
  for (size_t s = tid; s < scalars; s += kUnroll * stride) {
    T a[kUnroll][kIn];
    size_t idx[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const size_t j = s + u * stride;
      idx[u] = j < p.head ? j : body_end + (j - p.head);
      if (j < scalars) {
#pragma unroll
        for (int k = 0; k < kIn; ++k) a[u][k] = p.in[k][idx[u]];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (s + u * stride < scalars) p.out[idx[u]] = Op::Apply(a[u]);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Host side: errors, argument checks, launch geometry.

thread_local char g_last_error[256] = "";

gelu_status CudaFailure(const char* call, cudaError_t err) {
  std::snprintf(g_last_error, sizeof g_last_error, "%s: %s (%s)", call, cudaGetErrorString(err),
                cudaGetErrorName(err));
  return GELU_CUDA_ERROR;
}

// True if [a, a + bytes) and [b, b + bytes) share a byte but a != b (exact aliasing is allowed).
bool PartialOverlap(const void* a, const void* b, size_t bytes) {
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  if (pa == pb) return false;
  return pa < pb ? pb - pa < bytes : pa - pb < bytes;
}

template <class T, int kInputs>
bool ValidArguments(const T* const (&in)[kInputs], const T* out, size_t n) {
  if (n > SIZE_MAX / sizeof(T)) return false;
  const size_t bytes = n * sizeof(T);
  if (out == nullptr || reinterpret_cast<uintptr_t>(out) % alignof(T) != 0) return false;
  for (const T* p : in) {
    if (p == nullptr || reinterpret_cast<uintptr_t>(p) % alignof(T) != 0) return false;
    if (PartialOverlap(p, out, bytes)) return false;
  }
  return true;
}

// Blocks that fit on the device at once for `kernel` (SMs x resident blocks per SM), cached per device.
template <class Kernel>
gelu_status ResidentBlocks(Kernel kernel, size_t* blocks) {
  static std::atomic<int> cache[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return CudaFailure("cudaGetDevice", err);
  if (device >= 0 && device < kMaxDevices) {
    const int cached = cache[device].load(std::memory_order_relaxed);
    if (cached > 0) {
      *blocks = static_cast<size_t>(cached);
      return GELU_OK;
    }
  }
  int sms = 0, per_sm = 0;
  err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return CudaFailure("cudaDeviceGetAttribute(MultiProcessorCount)", err);
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0);
  if (err != cudaSuccess) return CudaFailure("cudaOccupancyMaxActiveBlocksPerMultiprocessor", err);
  const int total = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  if (device >= 0 && device < kMaxDevices) cache[device].store(total, std::memory_order_relaxed);
  *blocks = static_cast<size_t>(total);
  return GELU_OK;
}

template <class Op>
gelu_status Launch(const typename Op::T* const (&in)[Op::kInputs], typename Op::T* out, size_t n,
                   void* stream) {
  using T = typename Op::T;
  constexpr size_t kLanes = kVectorBytes / sizeof(T);
  Params<T, Op::kInputs> p{};
  for (int k = 0; k < Op::kInputs; ++k) p.in[k] = in[k];
  p.out = out;
  p.n = n;
  // The vector body starts where in[0] is 16-byte aligned; usable only if every pointer is then aligned too.
  const uintptr_t offset = reinterpret_cast<uintptr_t>(in[0]) % kVectorBytes;
  bool common_alignment = reinterpret_cast<uintptr_t>(out) % kVectorBytes == offset;
  for (const T* q : in) common_alignment = common_alignment && reinterpret_cast<uintptr_t>(q) % kVectorBytes == offset;
  const size_t head = ((kVectorBytes - offset) % kVectorBytes) / sizeof(T);
  if (common_alignment && head < n) {
    p.head = head;
    p.vectors = (n - head) / kLanes;
  } else {
    p.head = n;
    p.vectors = 0;
  }
  const size_t scalars = n - p.vectors * kLanes;
  // Threads wanted: one per kUnroll vectors, or per scalar element if there are more of those.
  const size_t per_thread_items = (p.vectors + kUnroll - 1) / kUnroll;
  const size_t threads = per_thread_items > scalars ? per_thread_items : scalars;
  size_t blocks = (threads + kThreads - 1) / kThreads;
  size_t resident = 0;
  if (const gelu_status s = ResidentBlocks(GeluKernel<Op>, &resident); s != GELU_OK) return s;
  if (blocks > resident) blocks = resident;
  if (blocks == 0) blocks = 1;
  GeluKernel<Op><<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return CudaFailure("kernel launch", err);
  return GELU_OK;
}

// Validates, then picks the instantiation for `approximate`.
template <template <int> class Op, class T, int kInputs>
gelu_status Run(const T* const (&in)[kInputs], T* out, size_t n, gelu_approximate approximate, void* stream) {
  if (approximate != GELU_APPROXIMATE_NONE && approximate != GELU_APPROXIMATE_TANH &&
      approximate != GELU_APPROXIMATE_SIGMOID) {
    return GELU_INVALID_ARGUMENT;
  }
  if (n == 0) return GELU_OK;
  if (!ValidArguments<T, kInputs>(in, out, n)) return GELU_INVALID_ARGUMENT;
  switch (approximate) {
    case GELU_APPROXIMATE_NONE: return Launch<Op<0>>(in, out, n, stream);
    case GELU_APPROXIMATE_TANH: return Launch<Op<1>>(in, out, n, stream);
    default: return Launch<Op<2>>(in, out, n, stream);
  }
}

}  // namespace
}  // namespace gelu::cuda

extern "C" {

gelu_status gelu_cuda_forward_f32(const float* x, float* y, size_t n, gelu_approximate approximate,
                                  void* stream) {
  const float* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardF32Op>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_f32(const float* grad_out, const float* x, float* grad_in, size_t n,
                                   gelu_approximate approximate, void* stream) {
  const float* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardF32Op>(in, grad_in, n, approximate, stream);
}

gelu_status gelu_cuda_forward_bf16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                   void* stream) {
  const uint16_t* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardBf16Op>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_bf16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                    gelu_approximate approximate, void* stream) {
  const uint16_t* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardBf16Op>(in, grad_in, n, approximate, stream);
}

gelu_status gelu_cuda_forward_f16(const uint16_t* x, uint16_t* y, size_t n, gelu_approximate approximate,
                                  void* stream) {
  const uint16_t* const in[1] = {x};
  return gelu::cuda::Run<gelu::cuda::ForwardF16Op>(in, y, n, approximate, stream);
}

gelu_status gelu_cuda_backward_f16(const uint16_t* grad_out, const uint16_t* x, uint16_t* grad_in, size_t n,
                                   gelu_approximate approximate, void* stream) {
  const uint16_t* const in[2] = {grad_out, x};
  return gelu::cuda::Run<gelu::cuda::BackwardF16Op>(in, grad_in, n, approximate, stream);
}

const char* gelu_cuda_last_error_string(void) { return gelu::cuda::g_last_error; }

}  // extern "C"
