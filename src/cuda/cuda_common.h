// SPDX-License-Identifier: Apache-2.0
// Host-side helpers shared by the CUDA translation units (gelu.cu, gelu_fused.cu): the per-thread error text,
// argument checks with the CPU library's rules, and the device's SM count. Internal; not installed.
#ifndef GELU_SRC_CUDA_CUDA_COMMON_H_
#define GELU_SRC_CUDA_CUDA_COMMON_H_

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "gelu/gelu_cuda.h"

namespace gelu::cuda {

constexpr int kMaxDevices = 64;  // per-device caches; more devices are queried on every call

// gelu_cuda_last_error_string's text, one per host thread (one definition for every translation unit).
inline thread_local char g_last_error[256] = "";

inline gelu_status CudaFailure(const char* call, cudaError_t err) {
  std::snprintf(g_last_error, sizeof g_last_error, "%s: %s (%s)", call, cudaGetErrorString(err),
                cudaGetErrorName(err));
  return GELU_CUDA_ERROR;
}

inline bool ValidApproximate(gelu_approximate a) {
  return a == GELU_APPROXIMATE_NONE || a == GELU_APPROXIMATE_TANH || a == GELU_APPROXIMATE_SIGMOID;
}
// True when the byte ranges [p, p + pn) and [q, q + qn) share memory (empty ranges share nothing).
inline bool Overlap(const void* p, size_t pn, const void* q, size_t qn) {
  if (pn == 0 || qn == 0) return false;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
  return a < b ? b - a < pn : a - b < qn;
}
// True if [a, a + bytes) and [b, b + bytes) share a byte but a != b (exact aliasing is the in-place mode).
inline bool PartialOverlap(const void* a, const void* b, size_t bytes) { return a != b && Overlap(a, bytes, b, bytes); }
inline bool CheckedMul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }
template <class T>
bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// The current device and its multiprocessor count (cached per device).
inline gelu_status CurrentDevice(int* device, int* sms) {
  static std::atomic<int> cache[kMaxDevices] = {};
  cudaError_t err = cudaGetDevice(device);
  if (err != cudaSuccess) return CudaFailure("cudaGetDevice", err);
  const bool cacheable = *device >= 0 && *device < kMaxDevices;
  if (cacheable && (*sms = cache[*device].load(std::memory_order_relaxed)) > 0) return GELU_OK;
  err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, *device);
  if (err != cudaSuccess) return CudaFailure("cudaDeviceGetAttribute(MultiProcessorCount)", err);
  if (*sms <= 0) *sms = 1;
  if (cacheable) cache[*device].store(*sms, std::memory_order_relaxed);
  return GELU_OK;
}

inline gelu_status LaunchStatus() {
  const cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? GELU_OK : CudaFailure("kernel launch", err);
}

}  // namespace gelu::cuda

#endif  // GELU_SRC_CUDA_CUDA_COMMON_H_
